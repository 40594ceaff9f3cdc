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
		etaU, err := fixedpoint.Cast(d.eta, d.fU, fixedpoint.Trn, fixedpoint.Sat)
		if err != nil {
			t.Fatal(err)
		}
		eta := etaU.RawUint() + 1 // first U raw >= eta
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
			boundV, err := fixedpoint.AddCast(bits64(d.fW, st.Wc), d.wai, d.fW, fixedpoint.Trn, fixedpoint.Sat)
			if err != nil {
				t.Fatal(err)
			}
			bound := boundV.RawUint()
			if next.W > bound {
				t.Fatalf("%s: U raw %d >= eta: W raw %d > Wc+W_ai raw %d", e, st.U, next.W, bound)
			}
		}
	}
}

// TestRegressionNoValidHopKeepsU: with no valid hop (tau = 0) U must stay
// bit-identical (docs/datapath.md section 1, "no valid hop"). The EWMA of
// line 9 at tau = 0 is U*T*inv_t, and inv_t is the 1/T table entry rounded
// to TableEntryBits bits, not exactly 1/T: found by review, at T = 1000 or
// 8000 every U code from 146.29 up (43% of the codes; T = 12000: from 217.0)
// moved by one LSB on every such event, in Update and UpdateSpec alike
// (T = 5000 and 10000 happen to round exactly). Fixed by a mux that keeps st_u when no
// hop is selected. The case sweeps U codes over the whole register (evenly
// spaced, odd-offset and edge codes) for T in {1000, 5000 (default), 8000,
// 12000}, both encodings, and four ways of having no valid hop; the
// expected U is the stored code itself, the float reference's U the
// stored value.
func TestRegressionNoValidHopKeepsU(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		for _, tNs := range []uint32{1000, DefaultConfig().BaseRTTNs, 8000, 12000} {
			c := DefaultConfigFor(e)
			c.BaseRTTNs = tNs
			d, r := mustDP(t, c), mustRef(t, c)
			uMax := maxRaw(d.fU)
			var codes []uint64
			for k := uint64(0); k < 1024; k++ {
				codes = append(codes, k*(uMax/1023), min(k*(uMax/1023)+k%7*0x1357, uMax))
			}
			codes = append(codes, 0, 1, 2, d.uinit.RawUint(), uMax-1, uMax)

			// No valid hop: the only hop repeats its snapshot (dts = 0); the
			// hop count changes (path change); the flow carries no hops; the
			// only hop's speed code is reserved.
			prev := hop(t, e, 1, 100, 5_000_000, 1_000_000*128, 8000)
			moved := hop(t, e, 1, 100, 5_001_000, 1_000_000*128+11000, 6250)
			bad := moved
			bad.SpeedCode = 15 & (1<<e.SpeedBits() - 1)
			type noHop struct {
				name   string
				stHops int
				in     Input
			}
			cases := []noHop{
				{"dts=0", 1, event(2000, prev)},
				{"path change", 1, event(2000, moved, moved)},
				{"no hops", 0, event(2000)},
				{"reserved speed", 1, event(2000, bad)},
			}
			for _, cs := range cases {
				for _, u := range codes {
					st := State{Valid: true, NHops: uint8(cs.stHops), W: d.wmax.RawUint(), Wc: d.wmax.RawUint() / 2, U: u, LastUpdate: 1000}
					if cs.stHops > 0 {
						st.Hops[0] = d.record(&prev)
					}
					next, o := d.Update(st, cs.in)
					nextS, oS := d.UpdateSpec(st, cs.in)
					if o.HopValid != 0 || o.SelHop != NoHop {
						t.Fatalf("%s T=%d %s: a hop is valid (%#x, sel %d): the case is wrong", e, tNs, cs.name, o.HopValid, o.SelHop)
					}
					if next.U != u || o.U != u || nextS.U != u || oS.U != u {
						t.Fatalf("%s T=%d %s: U code %#x (%.9g) -> Update %#x, UpdateSpec %#x: want it unchanged",
							e, tNs, cs.name, u, d.UValue(u), next.U, nextS.U)
					}
					if _, ro := r.Update(d.RefState(st), cs.in); ro.U != d.UValue(u) {
						t.Fatalf("%s T=%d %s: float reference U %.12g -> %.12g: want it unchanged", e, tNs, cs.name, d.UValue(u), ro.U)
					}
				}
			}
		}
	}
}
