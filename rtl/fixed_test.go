package rtl

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// randFmt draws a format with W in [1,maxW] and I in [-12, W+12].
func randFmt(r *rand.Rand, maxW int) fixedpoint.Format {
	w := 1 + r.Intn(maxW)
	return fixedpoint.Format{W: w, I: r.Intn(w+25) - 12, Signed: r.Intn(2) == 0}
}

// edgeRaws returns raw values of f that stress rounding and overflow: the
// range ends and their neighbours, zero, +-1, and for each dropped-bit count
// d up to `drop` the patterns just below, at and above a tie.
func edgeRaws(r *rand.Rand, f fixedpoint.Format, drop, n int) []*big.Int {
	lo, hi := f.MinRawBig(), f.MaxRawBig()
	one := big.NewInt(1)
	c := []*big.Int{lo, hi, new(big.Int).Add(lo, one), new(big.Int).Sub(hi, one), big.NewInt(0), big.NewInt(1), big.NewInt(-1)}
	if drop > 0 && drop < 200 {
		half := new(big.Int).Lsh(one, uint(drop-1))
		for _, k := range []int64{-3, -1, 0, 1, 2, 5} {
			base := new(big.Int).Lsh(big.NewInt(k), uint(drop))
			for _, delta := range []*big.Int{half, new(big.Int).Sub(half, one), new(big.Int).Add(half, one)} {
				c = append(c, new(big.Int).Add(base, delta))
			}
		}
	}
	for i := 0; i < n; i++ {
		x := new(big.Int).Rand(r, new(big.Int).Lsh(one, uint(f.W)))
		c = append(c, x.Add(x, lo))
	}
	var out []*big.Int
	for _, x := range c {
		if x.Cmp(lo) >= 0 && x.Cmp(hi) <= 0 {
			out = append(out, x)
		}
	}
	return out
}

// TestFxCastVsFixedpoint checks the lowering of every quantization x overflow
// mode against fixedpoint.Cast (the oracle: SystemC sc_fixed semantics) for
// random source/target format pairs up to 64 bits (also wider than 64 to
// exercise multi-word logic), on edge and random raw values. Every mode pair
// is one output of one module per format pair.
func TestFxCastVsFixedpoint(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	pairs := 150
	if testing.Short() {
		pairs = 40
	}
	qs, os := fixedpoint.AllQuantizations(), fixedpoint.AllOverflows()
	for p := 0; p < pairs; p++ {
		from, to := randFmt(r, 64), randFmt(r, 64)
		if p%10 == 0 {
			from = randFmt(r, 120)
		}
		m := NewModule("t", "")
		x := m.FxIn("x", from)
		for _, q := range qs {
			for _, o := range os {
				m.FxOut(fmt.Sprintf("y_%s_%s", q, o), m.FxCast(x, to, q, o), "")
			}
		}
		sim, err := NewSim(m)
		if err != nil {
			t.Fatalf("%s -> %s: %v", from, to, err)
		}
		for _, raw := range edgeRaws(r, from, from.F()-to.F(), 20) {
			xv, err := fixedpoint.FromBig(from, raw)
			if err != nil {
				t.Fatal(err)
			}
			sim.SetIn(0, BitsOfBig(raw, from.W))
			i := 0
			for _, q := range qs {
				for _, o := range os {
					want, err := fixedpoint.Cast(xv, to, q, o)
					if err != nil {
						t.Fatal(err)
					}
					got := sim.Out(i).Big()
					if w := BitsOfBig(want.RawBig(), to.W).Big(); got.Cmp(w) != 0 {
						t.Fatalf("FxCast(%v, %s, %s, %s) raw = %#x, want %#x (%v)", xv.Notation(), to, q, o, got, w, want.Notation())
					}
					i++
				}
			}
		}
	}
}

// TestFxArithVsFixedpoint checks FxMul, FxAdd, FxSub, FxNeg, the compares,
// FxMin/FxMax, FxCLZ and the fused casts against fixedpoint (Mul, Add, Sub,
// Neg, Cmp, Min, Max, CLZ, MulCast, AddCast, SubCast), including 64x64-bit
// products, the widest operands the datapath uses.
func TestFxArithVsFixedpoint(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	pairs := 120
	if testing.Short() {
		pairs = 30
	}
	for p := 0; p < pairs; p++ {
		fa, fb, to := randFmt(r, 64), randFmt(r, 64), randFmt(r, 64)
		if p%8 == 0 { // widest operands
			fa.W, fb.W = 64, 64
			fa.I, fb.I = r.Intn(80)-8, r.Intn(80)-8
		}
		q := fixedpoint.AllQuantizations()[r.Intn(7)]
		o := fixedpoint.AllOverflows()[r.Intn(4)]
		m := NewModule("t", "")
		a, b := m.FxIn("a", fa), m.FxIn("b", fb)
		m.FxOut("mul", m.FxMul(a, b), "")
		m.FxOut("add", m.FxAdd(a, b), "")
		m.FxOut("sub", m.FxSub(a, b), "")
		m.FxOut("neg", m.FxNeg(a), "")
		m.Out("lt", m.FxLt(a, b), "")
		m.Out("le", m.FxLe(a, b), "")
		m.Out("gt", m.FxGt(a, b), "")
		m.Out("ge", m.FxGe(a, b), "")
		m.Out("eq", m.FxEq(a, b), "")
		m.Out("clz", m.FxCLZ(a), "")
		m.FxOut("mulcast", m.FxMulCast(a, b, to, q, o), "")
		m.FxOut("addcast", m.FxAddCast(a, b, to, q, o), "")
		m.FxOut("subcast", m.FxSubCast(a, b, to, q, o), "")
		b2 := m.FxCast(b, fa, fixedpoint.Trn, fixedpoint.Wrap)
		m.FxOut("min", m.FxMin(a, b2), "")
		m.FxOut("max", m.FxMax(a, b2), "")
		sim, err := NewSim(m)
		if err != nil {
			t.Fatalf("%s, %s: %v", fa, fb, err)
		}
		as, bs := edgeRaws(r, fa, 0, 12), edgeRaws(r, fb, 0, 12)
		for i := 0; i < 40; i++ {
			av, _ := fixedpoint.FromBig(fa, as[r.Intn(len(as))])
			bv, _ := fixedpoint.FromBig(fb, bs[r.Intn(len(bs))])
			sim.SetIn(0, BitsOfBig(av.RawBig(), fa.W))
			sim.SetIn(1, BitsOfBig(bv.RawBig(), fb.W))
			mul, _ := fixedpoint.Mul(av, bv)
			add, _ := fixedpoint.Add(av, bv)
			sub, _ := fixedpoint.Sub(av, bv)
			neg, _ := fixedpoint.Neg(av)
			c := fixedpoint.Cmp(av, bv)
			bc, err1 := fixedpoint.Cast(bv, fa, fixedpoint.Trn, fixedpoint.Wrap)
			mc, err2 := fixedpoint.MulCast(av, bv, to, q, o)
			ac, err3 := fixedpoint.AddCast(av, bv, to, q, o)
			sc, err4 := fixedpoint.SubCast(av, bv, to, q, o)
			if err := errors.Join(err1, err2, err3, err4); err != nil {
				t.Fatal(err)
			}
			want := map[string]*big.Int{
				"mul": mul.RawBig(), "add": add.RawBig(), "sub": sub.RawBig(), "neg": neg.RawBig(),
				"lt": b01(c < 0), "le": b01(c <= 0), "gt": b01(c > 0), "ge": b01(c >= 0), "eq": b01(c == 0),
				"clz":     big.NewInt(int64(fixedpoint.CLZ(av))),
				"mulcast": mc.RawBig(),
				"addcast": ac.RawBig(),
				"subcast": sc.RawBig(),
				"min":     fixedpoint.Min(av, bc).RawBig(),
				"max":     fixedpoint.Max(av, bc).RawBig(),
			}
			for k, port := range m.Outputs {
				w := want[port.Name]
				got := sim.Out(k).Big()
				if wb := BitsOfBig(w, port.Node.Width).Big(); got.Cmp(wb) != 0 {
					t.Fatalf("%s(%v, %v) [to %s %s %s] = %#x, want %#x", port.Name, av.Notation(), bv.Notation(), to, q, o, got, wb)
				}
			}
		}
	}
}

func b01(c bool) *big.Int {
	if c {
		return big.NewInt(1)
	}
	return big.NewInt(0)
}

// TestFxRecipVsFixedpoint checks the reciprocal unit's lowering against
// fixedpoint.Reciprocal.Recip (the model the golden datapath uses) for
// random unit configurations, on every input of small formats and on edge
// and random inputs of wide ones.
func TestFxRecipVsFixedpoint(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	units := 40
	if testing.Short() {
		units = 12
	}
	for u := 0; u < units; u++ {
		inW := 2 + r.Intn(40)
		if u < 8 {
			inW = 2 + r.Intn(10)
		}
		in := fixedpoint.Format{W: inW, I: r.Intn(inW+10) - 5}
		k := r.Intn(min(10, inW-1) + 1)
		entry := fixedpoint.Format{W: 8 + r.Intn(16), I: r.Intn(3)}
		if entry.F() < 1 {
			entry.W = entry.I + 1 + r.Intn(8)
		}
		out := randFmt(r, 48)
		cfg := fixedpoint.ReciprocalConfig{In: in, TableBits: k, Entry: entry, NRSteps: r.Intn(3), Out: out,
			Q: fixedpoint.AllQuantizations()[r.Intn(7)], O: fixedpoint.AllOverflows()[r.Intn(4)]}
		unit, err := fixedpoint.NewReciprocal(cfg)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		m := NewModule("t", "")
		x := m.FxIn("x", in)
		m.FxOut("y", m.FxRecip(x, unit.Config(), unit.Table()), "")
		sim, err := NewSim(m)
		if err != nil {
			t.Fatalf("%+v: %v", unit.Config(), err)
		}
		var raws []uint64
		if inW <= 12 {
			for v := uint64(0); v < 1<<uint(inW); v++ {
				raws = append(raws, v)
			}
		} else {
			for _, b := range edgeRaws(r, in, 0, 300) {
				raws = append(raws, b.Uint64())
			}
			for s := 0; s < inW; s++ {
				raws = append(raws, 1<<uint(s), (1<<uint(s+1))-1)
			}
		}
		for _, raw := range raws {
			xv, _ := fixedpoint.FromUint(in, raw)
			want, err := unit.Recip(xv)
			if err != nil {
				t.Fatal(err)
			}
			sim.SetInUint(0, raw)
			if got, w := sim.Out(0).Big(), BitsOfBig(want.RawBig(), out.W).Big(); got.Cmp(w) != 0 {
				t.Fatalf("Recip %+v of %s = %#x, want %#x", unit.Config(), xv.Notation(), got, w)
			}
		}
	}
}
