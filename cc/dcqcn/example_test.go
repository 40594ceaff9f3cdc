package dcqcn_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
)

// A 100 Gbps flow with the HPCC paper's DCQCN profile receives one CNP at
// t = 10 us. The cut waits for the next rate-decrease check (4 us later),
// then the increase timer recovers the rate every 300 us: fast recovery,
// additive increase, hyper increase. The caller wakes the model at
// NextWake; the receiver side turns CE marks into CNPs.
func Example() {
	cfg := dcqcn.DefaultConfig()
	rp, err := dcqcn.NewRP(cfg)
	if err != nil {
		panic(err)
	}
	np, _ := dcqcn.NewNP(cfg)
	var nps dcqcn.NPState
	nps, cnp := np.OnPacket(nps, 10_000, true) // a CE-marked packet at the receiver
	_ = nps
	st := rp.InitialState()
	if cnp {
		st, _ = rp.OnCNP(st, 10_000)
	}
	for i := 0; i < 4; i++ {
		wake, ok := rp.NextWake(st)
		if !ok {
			break
		}
		var up dcqcn.RPUpdate
		st, up = rp.Advance(st, wake)
		fmt.Printf("t=%4d us rate=%7.3f Gbps target=%7.3f phase=%s\n", wake/1000, dcqcn.Gbps(up.RateBytesPerNs), dcqcn.Gbps(st.RT), up.Phase)
	}
	// Output:
	// t=  14 us rate= 50.777 Gbps target=100.000 phase=none
	// t= 314 us rate= 75.388 Gbps target=100.000 phase=fast_recovery
	// t= 614 us rate= 87.694 Gbps target=100.000 phase=additive_increase
	// t= 914 us rate= 93.847 Gbps target=100.000 phase=hyper_increase
}
