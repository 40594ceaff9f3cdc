package hpcc

import (
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Regression cases: minimal counterexamples found by the properties (shrunk
// by gopter) or by analysis, kept so the bugs stay fixed.

// TestRegressionMonotoneAtZero: TestPropMonotoneU (queue) shrank to this
// case when the selection started at u = 0 with a strict > (the draft's
// literal lines 2 and 6): an idle hop (u' = 0) made no measurement and left
// U = 24.85, while one byte of queue made u' = 1.6e-4 the target and pulled
// U down. Fixed by selecting the first valid hop even at u' = 0.
func TestRegressionMonotoneAtZero(t *testing.T) {
	c := DefaultConfig()
	d, r := mustDP(t, c), mustRef(t, c)
	base := stepCase{NHops: 1, WcBytes: 1000, WBytes: 1000, UMicro: 24849120,
		Hops: []hopCase{{SpeedIdx: 0, DtsNs: 1}, {}, {}, {}, {}}}
	more := base
	more.Hops = append([]hopCase(nil), base.Hops...)
	more.Hops[0].QlenPrev, more.Hops[0].QlenCur = 1, 1
	if !monotone(t, d, r, base, more) {
		t.Fatal("more queue lowered U")
	}
	// And the idle measurement itself moves U toward 0 by tau/T = 1/5000.
	st, rs, in := base.build(t, d)
	_, o := d.Update(st, in)
	_, ro := r.Update(rs, in)
	if o.SelHop != 0 || ro.SelHop != 0 || !(ro.U < 24.849120) {
		t.Errorf("idle hop not selected: fixed sel %d, float sel %d U %v", o.SelHop, ro.SelHop, ro.U)
	}
}

// TestRegressionEtaOverUClamp: with U at or just above eta, the 1/U unit
// times eta can round above 1 when the unit overestimates 1/U (here a coarse
// unit: 64-entry table of 8-bit entries, no Newton-Raphson, which the range
// analysis accepts); the multiplicative step then raised W above Wc + W_ai
// (found by analysis of line 13; TestPropDecreaseBound checks the defaults).
// Fixed by clamping eta/U at 1 when U >= eta. The case sweeps U over 4096 raw
// values from eta up.
func TestRegressionEtaOverUClamp(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		c.RecipU = RecipParams{TableBits: 6, EntryBits: 8, NRSteps: 0}
		d := mustDP(t, c)
		eta := fixedpoint.Cast(d.eta, d.fU, fixedpoint.Trn, fixedpoint.Sat).RawUint() + 1 // first U raw >= eta
		for k := uint64(0); k < 4096; k++ {
			st := State{Valid: true, NHops: 1, W: d.wmax.RawUint(), Wc: d.wmax.RawUint() / 3, U: eta + k}
			in := Input{NHops: 1, Seq: 0}
			// dts = 0 on the only hop: no measurement, U stays at eta + k.
			h := hop(t, e, 1, 100, 1000, 0, 0)
			st.Hops[0] = d.record(&h)
			in.Hops[0] = h
			next, o := d.Update(st, in)
			if !o.MI || next.U != st.U {
				t.Fatalf("%s: U raw %d: MI=%v U %d -> %d", e, st.U, o.MI, st.U, next.U)
			}
			bound := fixedpoint.AddCast(bits64(d.fW, st.Wc), d.wai, d.fW, fixedpoint.Trn, fixedpoint.Sat).RawUint()
			if next.W > bound {
				t.Fatalf("%s: U raw %d >= eta: W raw %d > Wc+W_ai raw %d", e, st.U, next.W, bound)
			}
		}
	}
}
