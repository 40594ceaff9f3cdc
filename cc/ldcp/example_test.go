package ldcp_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/ldcp"
)

// A 3-packet message starts at full speed: two ECN-incapable packets and an
// ECN-capable last one (draft section 3.1), all sent in the first RTT
// (IW = 63). A flow in the stable stage with cw = 1 then receives an ECE
// ACK: cw = 1 - beta = 0.5 < 1, so the flow is ticked out by a timer
// RTT/cw = 10 us. The fixed-point registers are printed as real values.
func Example() {
	cfg := ldcp.DefaultConfig()
	dp, err := ldcp.NewDatapath(cfg)
	if err != nil {
		panic(err)
	}
	st := dp.InitialState()
	st, _ = dp.Update(st, ldcp.Event{Kind: ldcp.Start, Seq: 100, MsgPkts: 3})
	for i := 0; i < 4; i++ {
		var out ldcp.Output
		st, out = dp.Update(st, ldcp.Event{Kind: ldcp.Send, NowNs: uint64(i)})
		fmt.Printf("send: allowed=%v psn=%d ect=%v block=%s\n", out.Allowed, out.PSN, out.ECT, out.Block)
	}

	stable := ldcp.State{Stage: ldcp.Stable, Cw: dp.CwRaw(1), Una: 500, Nxt: 501, End: 1000}
	next, out := dp.Update(stable, ldcp.Event{Kind: ldcp.Ack, NowNs: 2000, AckSeq: 501, ECE: true})
	fmt.Printf("ack: rule=%s cw=%v timer=%v interval=%d ns next_send=%d\n", out.Rule, dp.CwPackets(out.Cw), out.TimerArmed, out.IntervalNs, next.NextSend)
	fmt.Println("flow table bits:", dp.FlowStateBits())
	// Output:
	// send: allowed=true psn=100 ect=false block=none
	// send: allowed=true psn=101 ect=false block=none
	// send: allowed=true psn=102 ect=true block=none
	// send: allowed=false psn=0 ect=false block=no_data
	// ack: rule=md cw=0.5 timer=true interval=10000 ns next_send=12000
	// flow table bits: 162
}
