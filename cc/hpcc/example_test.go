package hpcc_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// One flow, one 100 Gbps hop: the first ACK records the telemetry, the
// second measures u' = 6250/(12.5*5000) + (11000/1000)/12.5 = 0.98, so
// U = 0.8*1 + 0.2*0.98 = 0.996 >= eta and W = Wc*eta/U + W_ai. Both models
// run from the same configuration; the fixed-point registers are printed as
// real values.
func Example() {
	cfg := hpcc.DefaultConfig()
	dp, err := hpcc.NewDatapath(cfg)
	if err != nil {
		panic(err)
	}
	ref, _ := hpcc.NewReference(cfg)
	ack := func(seq, sndNxt, ts, tx, q uint64) hpcc.Input {
		h, _ := telemetry.FromPhysical(cfg.Encoding, telemetry.Physical{SwitchID: 1, PortID: 1, SpeedGbps: 100, TsNs: ts, TxBytes: tx, QlenBytes: q})
		in := hpcc.Input{Seq: seq, SndNxt: sndNxt, NHops: 1}
		in.Hops[0] = h
		return in
	}
	st, rs := dp.InitialState(), ref.InitialState()
	for _, in := range []hpcc.Input{ack(0, 5000, 5_000_000, 1_000_000, 8000), ack(6000, 9000, 5_001_000, 1_011_000, 6250)} {
		var out hpcc.Output
		var ro hpcc.RefOutput
		st, out = dp.Update(st, in)
		rs, ro = ref.Update(rs, in)
		fmt.Printf("fixed W=%.4f U=%.7f R=%.4f Gbps | float W=%.4f U=%.7f\n",
			dp.WBytes(out.W), dp.UValue(out.U), dp.RateBytesPerNs(out.Rate)*8, ro.W, ro.U)
	}
	fmt.Println("flow table bits:", dp.FlowStateBits())
	// Output:
	// fixed W=62500.0000 U=1.0000000 R=100.0000 Gbps | float W=62500.0000 U=1.0000000
	// fixed W=59675.9531 U=0.9960000 R=95.4815 Gbps | float W=59675.9538 U=0.9960000
	// flow table bits: 845
}
