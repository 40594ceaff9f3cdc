package fixedpoint

import (
	"math/big"
	"math/rand"
	"testing"
)

// randFormat draws a format with W in [1,maxW] and I in [-20, W+20].
func randFormat(r *rand.Rand, maxW int) Format {
	w := 1 + r.Intn(maxW)
	return Format{W: w, I: r.Intn(w+41) - 20, Signed: r.Intn(2) == 0}
}

// randValue draws a raw value of f, biased toward the range edges.
func randValue(r *rand.Rand, f Format) Value {
	var raw *big.Int
	switch r.Intn(4) {
	case 0:
		raw = f.MinRawBig()
	case 1:
		raw = f.MaxRawBig()
	default:
		raw = new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(f.W)))
		raw.Add(raw, f.MinRawBig())
	}
	if r.Intn(8) == 0 {
		raw.Add(raw, big.NewInt(int64(r.Intn(3)-1)))
		if raw.Cmp(f.MinRawBig()) < 0 || raw.Cmp(f.MaxRawBig()) > 0 {
			raw = big.NewInt(0)
		}
	}
	v, err := FromBig(f, raw)
	if err != nil {
		panic(err)
	}
	return v
}

// TestRandomOpsVsOracle checks Cast, MulCast, AddCast, SubCast and Div on
// random formats (widths 1..128, negative I and I > W) against oracleCast
// on the exact big.Rat result, and the fast paths against the big.Int ones.
func TestRandomOpsVsOracle(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	n := 20000
	if testing.Short() {
		n = 2000
	}
	for i := 0; i < n; i++ {
		maxW := 128
		if i%2 == 0 {
			maxW = 64
		}
		fx, fy, to := randFormat(r, maxW), randFormat(r, maxW), randFormat(r, 128)
		x, y := randValue(r, fx), randValue(r, fy)
		q := Quantization(r.Intn(7))
		o := Overflow(r.Intn(4))
		check := func(op string, got Value, exact *big.Rat) {
			want := oracleCast(exact, to, q, o)
			if got.RawBig().Cmp(want) != 0 || got.Format() != to {
				t.Fatalf("%s(%s, %s, %s, %v, %v) = %s; want raw %s", op, x.Notation(), y.Notation(), to, q, o, got.Notation(), want)
			}
		}
		check("Cast", mustV(Cast(x, to, q, o)), x.Rat())
		check("MulCast", mustV(MulCast(x, y, to, q, o)), new(big.Rat).Mul(x.Rat(), y.Rat()))
		check("mulCastBig", mulCastBig(x, y, to, q, o), new(big.Rat).Mul(x.Rat(), y.Rat()))
		check("AddCast", mustV(AddCast(x, y, to, q, o)), new(big.Rat).Add(x.Rat(), y.Rat()))
		check("SubCast", mustV(SubCast(x, y, to, q, o)), new(big.Rat).Sub(x.Rat(), y.Rat()))
		xn, xm := x.signMag()
		yn, ym := y.signMag()
		check("addCastBig", addCastBig(xn, xm, fx.F(), yn, ym, fy.F(), to, q, o), new(big.Rat).Add(x.Rat(), y.Rat()))
		if !y.IsZero() {
			d, err := Div(x, y, to, q, o)
			if err != nil {
				t.Fatal(err)
			}
			check("Div", d, new(big.Rat).Quo(x.Rat(), y.Rat()))
		}
	}
}
