package fixedpoint

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// rawDraw returns a raw register of an unsigned format of width w, biased
// to 0, 1, MAX, MAX-1, powers of two and their neighbours.
func rawDraw(rng *rand.Rand, w int) uint64 {
	m := ^uint64(0) >> uint(64-w)
	switch rng.IntN(8) {
	case 0:
		return 0
	case 1:
		return 1 & m
	case 2:
		return m
	case 3:
		return m - 1&m
	case 4:
		b := uint(rng.IntN(w))
		return (1<<b + uint64(rng.IntN(3)) - 1) & m
	}
	return rng.Uint64() >> uint(rng.IntN(64)) & m
}

// rawFormat draws an unsigned format of at most 64 bits whose fraction
// count lets shifts reach beyond [-63, 63] (the general path).
func rawFormat(rng *rand.Rand) Format {
	w := 1 + rng.IntN(64)
	return Format{W: w, I: w - (rng.IntN(100) - 30)}
}

// TestRawPlansMatchValues: RawCaster, RawMulCaster and RawAddCaster give
// the raw integer of Cast, MulCast and AddCast (the oracle: the Value
// operations, themselves checked against math/big rationals and SystemC)
// on random unsigned formats of 1..64 bits under every mode pair, with
// operands biased to 0, 1, MAX and powers of two; a cast shift beyond
// [-63, 63] and RndConv must be refused with ErrNoRawPlan. RawCaster and RawMulCaster
// read any uint64 as the integer it is (checked against Values of the
// 64-bit formats with the same fraction bits); RawAddCaster ignores bits
// above its operands' widths.
func TestRawPlansMatchValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 43))
	n := 400
	if testing.Short() {
		n = 80
	}
	inRange := func(s int) bool { return s >= -63 && s <= 63 }
	offered := func(s int, q Quantization) bool { return inRange(s) && q != RndConv }
	wide := func(f Format) Format { return Format{W: 64, I: 64 - f.F()} } // same fraction bits, 64 bits
	for k := 0; k < n; k++ {
		fx, fy, to := rawFormat(rng), rawFormat(rng), rawFormat(rng)
		fa := Format{W: min(fy.W, 63), I: min(fy.W, 63) - fx.F()} // aligned with fx for the adder
		fx63 := Format{W: min(fx.W, 63), I: min(fx.W, 63) - fx.F()}
		for _, q := range AllQuantizations() {
			for _, o := range AllOverflows() {
				c, errC := NewRawCaster(fx, to, q, o)
				mc, errM := NewRawMulCaster(fx, fy, to, q, o)
				ac, errA := NewRawAddCaster(fx63, fa, to, q, o)
				for _, e := range []struct {
					err error
					s   int
				}{{errC, fx.F() - to.F()}, {errM, fx.F() + fy.F() - to.F()}, {errA, fx.F() - to.F()}} {
					if offered(e.s, q) != (e.err == nil) || (e.err != nil && !errors.Is(e.err, ErrNoRawPlan)) {
						t.Fatalf("shift %d (%s, %s -> %s, %s): err %v", e.s, fx, fy, to, q, e.err)
					}
				}
				for i := 0; i < 20; i++ {
					xr, yr := rawDraw(rng, fx.W), rawDraw(rng, fy.W)
					if i%4 == 0 { // bits above the width
						xr |= rng.Uint64() &^ (^uint64(0) >> uint(64-fx.W))
					}
					x, _ := FromBits64(wide(fx), xr)
					y, _ := FromBits64(wide(fy), yr)
					if errC == nil {
						want, err := Cast(x, to, q, o)
						if err != nil {
							t.Fatal(err)
						}
						if got := c.Cast(xr); got != want.RawUint() {
							t.Fatalf("RawCaster(%s -> %s, %s, %s).Cast(%#x) = %#x, want %#x", fx, to, q, o, xr, got, want.RawUint())
						}
						x63 := xr >> 1 // below 2^63
						want, err = Cast(mustBits(t, wide(fx), x63), to, q, o)
						if err != nil {
							t.Fatal(err)
						}
						if got := c.Cast63(x63); got != want.RawUint() {
							t.Fatalf("RawCaster(%s -> %s, %s, %s).Cast63(%#x) = %#x, want %#x", fx, to, q, o, x63, got, want.RawUint())
						}
					}
					if errM == nil {
						want, err := MulCast(x, y, to, q, o)
						if err != nil {
							t.Fatal(err)
						}
						if got := mc.MulCast(xr, yr); got != want.RawUint() {
							t.Fatalf("RawMulCaster(%s * %s -> %s, %s, %s).MulCast(%#x, %#x) = %#x, want %#x", fx, fy, to, q, o, xr, yr, got, want.RawUint())
						}
						if mc.Narrow() != (fx.W+fy.W <= 63) {
							t.Fatalf("RawMulCaster(%s * %s).Narrow() = %v", fx, fy, mc.Narrow())
						}
						xm := xr & (^uint64(0) >> uint(64-fx.W)) // a register of X
						if xv, _ := FromBits64(fx, xm); mc.Narrow() {
							want, err := MulCast(xv, y, to, q, o)
							if err != nil {
								t.Fatal(err)
							}
							if got := mc.MulCastNarrow(xm, yr); got != want.RawUint() {
								t.Fatalf("RawMulCaster(%s * %s -> %s, %s, %s).MulCastNarrow(%#x, %#x) = %#x, want %#x", fx, fy, to, q, o, xm, yr, got, want.RawUint())
							}
						}
					}
					if errA == nil {
						xa, _ := FromBits64(fx63, xr)
						ya, _ := FromBits64(fa, yr)
						want, err := AddCast(xa, ya, to, q, o)
						if err != nil {
							t.Fatal(err)
						}
						if got := ac.AddCast(xr, yr); got != want.RawUint() {
							t.Fatalf("RawAddCaster(%s + %s -> %s, %s, %s).AddCast(%#x, %#x) = %#x, want %#x", fx63, fa, to, q, o, xr, yr, got, want.RawUint())
						}
					}
				}
			}
		}
	}
}

// TestRawCaster128: RawCaster.Cast128 from formats of 65..128 bits (a
// product a datapath formed itself) gives the raw integer of Cast (the
// oracle), for high words including all ones (the rounding carry's edge).
func TestRawCaster128(t *testing.T) {
	rng := rand.New(rand.NewPCG(59, 61))
	for k := 0; k < 400; k++ {
		w := 65 + rng.IntN(64)
		to := rawFormat(rng)
		from := Format{W: w, I: w - (to.F() + rng.IntN(127) - 63)} // shift in [-63, 63]
		q := AllQuantizations()[rng.IntN(int(RndConv))]            // every mode but RndConv
		o := AllOverflows()[rng.IntN(int(numOverflow))]
		c, err := NewRawCaster(from, to, q, o)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 50; i++ {
			hi, lo := rawDraw(rng, w-64), rawDraw(rng, 64)
			if i%5 == 0 && w == 128 {
				hi = ^uint64(0)
			}
			x, _ := FromBits(from, hi, lo)
			want, err := Cast(x, to, q, o)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Cast128(hi, lo); got != want.RawUint() {
				t.Fatalf("RawCaster(%s -> %s, %s, %s).Cast128(%#x, %#x) = %#x, want %#x", from, to, q, o, hi, lo, got, want.RawUint())
			}
		}
	}
}

// TestRawPlanErrors: every raw plan refuses an invalid, signed or wider
// than 64-bit format and an invalid mode, and the error names it.
func TestRawPlanErrors(t *testing.T) {
	u := MustFormat("u16.8")
	for _, c := range []struct {
		name string
		err  error
		want string
		is   error
	}{
		{"caster signed from", second(NewRawCaster(MustFormat("s16.8"), u, Trn, Sat)), "operand 1=s16.8", ErrFormat},
		{"caster wide to", second(NewRawCaster(u, MustFormat("u65.8"), Trn, Sat)), "to=u65.8", ErrFormat},
		{"caster signed wide from", second(NewRawCaster(MustFormat("s100.8"), u, Trn, Sat)), "operand 1=s100.8", ErrFormat},
		{"caster invalid to", second(NewRawCaster(u, Format{}, Trn, Sat)), "W=0", ErrFormat},
		{"caster bad q", second(NewRawCaster(u, u, Quantization(9), Sat)), "q=", nil},
		{"caster bad o", second(NewRawCaster(u, u, Trn, Overflow(7))), "o=", nil},
		{"mul signed y", second(NewRawMulCaster(u, MustFormat("s8.0"), u, Rnd, Sat)), "operand 2=s8.0", ErrFormat},
		{"mul signed to", second(NewRawMulCaster(u, u, MustFormat("s8.0"), Rnd, Sat)), "to=s8.0", ErrFormat},
		{"add unaligned", second(NewRawAddCaster(MustFormat("u8.-60"), MustFormat("u8.8"), u, Rnd, Sat)), "x=u8.-60 y=u8.8", ErrFormat},
		{"add 64-bit x", second(NewRawAddCaster(MustFormat("u64.8"), u, u, Rnd, Sat)), "operand 1=u64.8", ErrFormat},
		{"mul shift 80", second(NewRawMulCaster(MustFormat("u8.-60"), MustFormat("u8.-4"), MustFormat("u8.8"), Rnd, Sat)), "shifts by 80", ErrNoRawPlan},
		{"mul RndConv", second(NewRawMulCaster(u, u, u, RndConv, Sat)), "q=RndConv", ErrNoRawPlan},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) || (c.is != nil && !errors.Is(c.err, c.is)) {
			t.Errorf("%s: err %v, want one naming %q (wrapping %v)", c.name, c.err, c.want, c.is)
		}
	}
	r, err := NewReciprocal(ReciprocalConfig{In: u, TableBits: 4, Entry: MustFormat("u8.1"), Out: MustFormat("s16.8"), Q: Rnd, O: Sat})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRawReciprocal(r); err == nil || !strings.Contains(err.Error(), "Out=s16.8") {
		t.Errorf("NewRawReciprocal(signed Out): err %v, want one naming Out=s16.8", err)
	}
	if _, err := NewRawReciprocal(nil); err == nil {
		t.Errorf("NewRawReciprocal(nil): no error")
	}
}

func second[T any](_ T, err error) error { return err }

func mustBits(t *testing.T, f Format, raw uint64) Value {
	v, err := FromBits64(f, raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRawReciprocalMatchesUnit: RawReciprocal.Recip, and its steps run by
// hand (Seed, MulE, MulY, TwoMinus, Scale), equal Reciprocal.Recip (the
// oracle, checked exhaustively against its error bound in
// TestReciprocalExhaustive) on every input of narrow units and on 20000
// random inputs plus every power of two and its neighbours of wide ones,
// for units with 0-3 Newton-Raphson steps, products above 64 bits, and
// every output mode but RndConv. A unit whose output cast would shift by
// more than 63 bits, or rounds by RndConv, is refused with ErrNoRawPlan.
func TestRawReciprocalMatchesUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(47, 53))
	cfgs := []ReciprocalConfig{
		{In: MustFormat("u12.12"), TableBits: 4, Entry: MustFormat("u8.1"), Out: MustFormat("u16.4"), Q: Rnd, O: Sat},
		{In: MustFormat("u12.6"), TableBits: 5, Entry: MustFormat("u10.1"), NRSteps: 1, Out: MustFormat("u20.3"), Q: RndZero, O: Wrap},
		{In: MustFormat("u16.16"), TableBits: 6, Entry: MustFormat("u10.1"), NRSteps: 2, Out: MustFormat("u24.8"), Q: Trn, O: SatZero},
		{In: MustFormat("u32.16"), TableBits: 8, Entry: MustFormat("u12.1"), NRSteps: 1, Out: MustFormat("u32.17"), Q: Rnd, O: Sat},
		{In: MustFormat("u51.51"), TableBits: 10, Entry: MustFormat("u40.0"), Out: MustFormat("u40.-10"), Q: RndInf, O: Sat},
		{In: MustFormat("u48.48"), TableBits: 8, Entry: MustFormat("u20.1"), NRSteps: 3, Out: MustFormat("u64.0"), Q: Rnd, O: Sat},
		{In: MustFormat("u64.40"), TableBits: 12, Entry: MustFormat("u30.1"), NRSteps: 1, Out: MustFormat("u64.40"), Q: TrnZero, O: Wrap},
		{In: MustFormat("u40.20"), TableBits: 6, Entry: MustFormat("u12.1"), Out: MustFormat("u8.2"), Q: RndMinInf, O: SatSym},
	}
	narrow := 0
	for _, cfg := range cfgs {
		r, err := NewReciprocal(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := NewRawReciprocal(r)
		if err != nil {
			t.Fatalf("%+v: %v", cfg, err)
		}
		in := cfg.In
		check := func(x uint64) {
			v, _ := FromBits64(in, x)
			want, err := r.Recip(v)
			if err != nil {
				t.Fatal(err)
			}
			if got := rr.Recip(x); got != want.RawUint() {
				t.Fatalf("%+v: Recip(%#x) = %#x, want %#x", cfg, x, got, want.RawUint())
			}
			if x == 0 {
				return
			}
			m, y, p := rr.Seed(x)
			for j := 0; j < rr.NRSteps(); j++ {
				e := rr.MulE(j).MulCast(m, y)
				y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
			}
			if got := rr.Scale(p).Cast(y); got != want.RawUint() {
				t.Fatalf("%+v: the steps of Recip(%#x) = %#x, want %#x", cfg, x, got, want.RawUint())
			}
			if !rr.Narrow() {
				return
			}
			m, y, p = rr.Seed(x)
			for j := 0; j < rr.NRSteps(); j++ {
				e := rr.MulE(j).MulCastNarrow(m, y)
				y = rr.MulY(j).MulCastNarrow(y, rr.TwoMinus(e))
			}
			if got := rr.Scale(p).Cast63(y); got != want.RawUint() {
				t.Fatalf("%+v: the narrow steps of Recip(%#x) = %#x, want %#x", cfg, x, got, want.RawUint())
			}
		}
		if in.W <= 12 {
			for x := uint64(0); x < 1<<uint(in.W); x++ {
				check(x)
			}
			continue
		}
		m := ^uint64(0) >> uint(64-in.W)
		for b := 0; b < in.W; b++ {
			for _, x := range []uint64{1 << uint(b), 1<<uint(b) - 1, 1<<uint(b) + 1} {
				check(x & m)
			}
		}
		for k := 0; k < 20000; k++ {
			check(rng.Uint64() >> uint(rng.IntN(64)) & m)
		}
		check(m)
		narrow++
		if !rr.Narrow() {
			narrow--
		}
	}
	if narrow == 0 || narrow == len(cfgs) {
		t.Errorf("%d of %d units narrow: the table must cover both kinds", narrow, len(cfgs))
	}
	r, err := NewReciprocal(ReciprocalConfig{In: MustFormat("u64.64"), TableBits: 8, Entry: MustFormat("u12.1"), Out: MustFormat("u64.100"), Q: Rnd, O: Sat})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRawReciprocal(r); !errors.Is(err, ErrNoRawPlan) {
		t.Errorf("NewRawReciprocal(Out u64.100 for In u64.64): err %v, want ErrNoRawPlan", err)
	}
	r, err = NewReciprocal(ReciprocalConfig{In: MustFormat("u16.16"), TableBits: 4, Entry: MustFormat("u8.1"), Out: MustFormat("u16.8"), Q: RndConv, O: Sat})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewRawReciprocal(r); !errors.Is(err, ErrNoRawPlan) || !strings.Contains(err.Error(), "RndConv") {
		t.Errorf("NewRawReciprocal(Q RndConv): err %v, want ErrNoRawPlan naming RndConv", err)
	}
}

// Raw plan benchmarks (run: go test -run XXX -bench Raw -benchmem -cpu 1):
// unsigned registers of the formats of BenchmarkMulCaster64 and
// BenchmarkCaster, 256 pseudo-random raws (so many products saturate), Rnd
// and Sat.

var rawSink uint64

func benchRaws(w int) []uint64 {
	rs := make([]uint64, 256)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range rs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		rs[i] = x >> uint(64-w)
	}
	return rs
}

func BenchmarkRawMulCaster(b *testing.B) {
	c, err := NewRawMulCaster(MustFormat("u64.32"), MustFormat("u64.48"), MustFormat("u64.40"), Rnd, Sat)
	if err != nil {
		b.Fatal(err)
	}
	xs, ys := benchRaws(64), benchRaws(64)
	b.ReportAllocs()
	var s uint64
	for i := 0; i < b.N; i++ {
		s += c.MulCast(xs[i&255], ys[(i+7)&255])
	}
	rawSink = s
}

func BenchmarkRawMulCasterNarrow(b *testing.B) {
	c, err := NewRawMulCaster(MustFormat("u32.16"), MustFormat("u31.8"), MustFormat("u32.20"), Rnd, Sat)
	if err != nil || !c.Narrow() {
		b.Fatal(err, c.Narrow())
	}
	xs, ys := benchRaws(32), benchRaws(31)
	b.ReportAllocs()
	var s uint64
	for i := 0; i < b.N; i++ {
		s += c.MulCastNarrow(xs[i&255], ys[(i+7)&255])
	}
	rawSink = s
}

func BenchmarkRawCaster(b *testing.B) {
	c, err := NewRawCaster(MustFormat("u48.20"), MustFormat("u24.12"), Rnd, Sat)
	if err != nil {
		b.Fatal(err)
	}
	xs := benchRaws(48)
	b.ReportAllocs()
	var s uint64
	for i := 0; i < b.N; i++ {
		s += c.Cast(xs[i&255])
	}
	rawSink = s
}

func BenchmarkRawReciprocal(b *testing.B) {
	r, err := NewReciprocal(ReciprocalConfig{In: MustFormat("u32.16"), TableBits: 8, Entry: MustFormat("u12.1"), NRSteps: 1, Out: MustFormat("u32.17"), Q: Rnd, O: Sat})
	if err != nil {
		b.Fatal(err)
	}
	rr, err := NewRawReciprocal(r)
	if err != nil {
		b.Fatal(err)
	}
	xs := benchRaws(32)
	b.ReportAllocs()
	var s uint64
	for i := 0; i < b.N; i++ {
		s += rr.Recip(xs[i&255])
	}
	rawSink = s
}
