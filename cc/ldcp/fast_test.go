package ldcp

import (
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// TestRawRecipMatchesUnit: the compiled reciprocal equals
// fixedpoint.Reciprocal.Recip bit for bit on every input of narrow units,
// and on all powers of two, their neighbours and 200k random inputs of wide
// ones. Oracle: package fixedpoint.
func TestRawRecipMatchesUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	cfgs := testConfigs()
	small := DefaultConfig()
	small.Formats.Cw, small.Formats.Param, small.Formats.RecipCw = fixedpoint.MustFormat("u16.5"), fixedpoint.MustFormat("u8.4"), fixedpoint.MustFormat("u17.4")
	small.CwMaxPkts, small.IWPkts = 8, 4
	small.RecipCw = RecipParams{TableBits: 6, EntryBits: 10, NRSteps: 2}
	cfgs = append(cfgs, namedConfig{small, "small"})
	for _, nc := range cfgs {
		d := mustDP(t, nc.Config)
		in := d.recip.Config().In
		check := func(x uint64) {
			v, _ := fixedpoint.FromBits64(in, x)
			want, err := d.recip.Recip(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.fast.r.Recip(x); got != want.RawUint() {
				t.Fatalf("%s: recip(%d) = %d, want %d", nc.name, x, got, want.RawUint())
			}
		}
		if in.W <= 16 {
			for x := uint64(0); x < 1<<uint(in.W); x++ {
				check(x)
			}
			continue
		}
		for b := 0; b < in.W; b++ {
			for _, x := range []uint64{1 << uint(b), 1<<uint(b) - 1, 1<<uint(b) + 1} {
				check(x & mask64(in.W))
			}
		}
		for k := 0; k < 200000; k++ {
			check(rng.Uint64() >> uint(rng.IntN(64)) & mask64(in.W))
		}
	}
}

// TestFastMatchesSpec: Window, Interval and Update (compiled integer
// operations) equal WindowSpec, IntervalSpec and UpdateSpec (fixedpoint
// Values, the documented op sequence) bit for bit: on every cw register
// value around the constants (gamma, 1, CwMax, the format's maximum) for
// every n up to NMax and both ECE values, on random bit patterns of every
// state and event field (the vectors' random level) and on generated
// reachable step cases. Oracle: the Spec forms.
func TestFastMatchesSpec(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		p := &d.fast
		var cws []uint64
		for _, c := range []uint64{0, p.gammaCw, p.one, p.cwMax, p.cwFmtMax, p.iw} {
			for k := uint64(0); k < 5; k++ {
				cws = append(cws, (c+k)&p.cwMaskW, (c-k)&p.cwMaskW)
			}
		}
		for k := 0; k < 3000; k++ {
			cws = append(cws, rng.Uint64()>>uint(rng.IntN(64))&p.cwMaskW)
		}
		ns := []uint64{0, 1, 2, 3, d.nMax - 1, d.nMax, d.nMax + 1, 1 << 20}
		for _, cw := range cws {
			for _, n := range ns {
				for _, ece := range []bool{false, true} {
					w1, r1 := d.Window(cw, ece, n)
					w2, r2 := d.WindowSpec(cw, ece, n)
					if w1 != w2 || r1 != r2 {
						t.Fatalf("%s: Window(%d, %v, %d) = %d %s, spec %d %s", nc.name, cw, ece, n, w1, r1, w2, r2)
					}
				}
			}
			if a, b := d.Interval(cw), d.IntervalSpec(cw); a != b {
				t.Fatalf("%s: Interval(%d) = %d, spec %d", nc.name, cw, a, b)
			}
		}
		for _, a := range []uint32{0, 1, 2, 63, 64, 4095, 4096, 1<<24 - 1, 1 << 31, ^uint32(0)} {
			if x, y := d.lossCw(a), d.lossCwSpec(a); x != y {
				t.Fatalf("%s: lossCw(%d) = %d, spec %d", nc.name, a, x, y)
			}
		}
		in := make([]uint64, d.InputTable().Words())
		for k := 0; k < 20000; k++ {
			for w := range in {
				in[w] = rng.Uint64()
			}
			st, ev, _ := d.UnpackInput(in)
			if k%2 == 0 {
				st.Cw = cws[rng.IntN(len(cws))]
			}
			n1, o1 := d.Update(st, ev)
			n2, o2 := d.UpdateSpec(st, ev)
			if n1 != n2 || o1 != o2 {
				t.Fatalf("%s: Update(%+v, %+v)\n = %+v %+v\nspec %+v %+v", nc.name, st, ev, n1, o1, n2, o2)
			}
		}
	}
}

// TestFastMatchesSpecWide: with n*alpha*recip_cw wider than 63 bits (16-bit
// n, 24-bit parameters, 32-bit reciprocal) the AI increment takes the
// 128-bit product and RawCaster.Cast128; Window and Interval must still
// equal WindowSpec and IntervalSpec (the oracle) on cw values around the
// constants and random ones, for n up to NMax and both ECE values.
func TestFastMatchesSpecWide(t *testing.T) {
	c := DefaultConfig()
	c.AckPktsBits, c.Formats.Param = 16, fixedpoint.MustFormat("u24.4")
	d := mustDP(t, c)
	if d.fast.incNarrow {
		t.Fatalf("AckPktsBits + W(Param) + W(RecipCw) = %d: want the wide path", c.AckPktsBits+c.Formats.Param.W+c.Formats.RecipCw.W)
	}
	rng := rand.New(rand.NewPCG(13, 17))
	p := &d.fast
	cws := []uint64{p.one, p.one + 1, p.cwMax, p.cwFmtMax, p.iw, p.gammaCw}
	for k := 0; k < 3000; k++ {
		cws = append(cws, rng.Uint64()>>uint(rng.IntN(64))&p.cwMaskW)
	}
	for _, cw := range cws {
		for _, n := range []uint64{1, 2, 255, d.nMax - 1, d.nMax, uint64(rng.IntN(int(d.nMax)) + 1)} {
			for _, ece := range []bool{false, true} {
				w1, r1 := d.Window(cw, ece, n)
				w2, r2 := d.WindowSpec(cw, ece, n)
				if w1 != w2 || r1 != r2 {
					t.Fatalf("Window(%d, %v, %d) = %d %s, spec %d %s", cw, ece, n, w1, r1, w2, r2)
				}
			}
		}
		if a, b := d.Interval(cw), d.IntervalSpec(cw); a != b {
			t.Fatalf("Interval(%d) = %d, spec %d", cw, a, b)
		}
	}
}
