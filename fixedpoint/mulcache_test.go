package fixedpoint

import (
	"fmt"
	"math/rand"
	"testing"
)

// TestMulCastCacheRandom drives one MulCastCache through runs of calls
// that repeat a format pair and modes (so the kept plan is used) and
// change them between runs (so it is replaced), with formats up to 80 bits
// wide (wider operands take MulCast's own path), values biased to MIN, MAX
// and their neighbours, and now and then an invalid argument (a zero
// Value, an invalid target format or mode). The oracle is the plain
// MulCast: the same Value, or an error with the same text.
func TestMulCastCacheRandom(t *testing.T) {
	r := rand.New(rand.NewSource(17))
	n := 100000
	if testing.Short() {
		n = 10000
	}
	var c MulCastCache
	fx, fy, to := randFormat(r, 64), randFormat(r, 64), randFormat(r, 64)
	q, o := Quantization(0), Overflow(0)
	for i := 0; i < n; {
		// Half the runs change one part of the last key only (the
		// cache must notice each), the others draw every part anew.
		switch r.Intn(12) {
		case 0:
			fx = randFormat(r, 80)
		case 1:
			fy = randFormat(r, 80)
		case 2:
			to = randFormat(r, 64)
		case 3:
			q = Quantization(r.Intn(7))
		case 4:
			o = Overflow(r.Intn(4))
		case 5:
			fx, fy = fy, fx
		default:
			fx, fy, to = randFormat(r, 80), randFormat(r, 80), randFormat(r, 64)
			q, o = Quantization(r.Intn(7)), Overflow(r.Intn(4))
		}
		switch r.Intn(40) {
		case 0:
			to.W = 0
		case 1:
			q = numQuantization
		case 2:
			o = numOverflow
		case 3:
			to.W += 256 // packs like to.W: must still be refused
		}
		for k := 1 + r.Intn(6); k > 0; k, i = k-1, i+1 {
			x, y := randValue(r, fx), randValue(r, fy)
			if r.Intn(50) == 0 {
				x = Value{}
			}
			want, werr := MulCast(x, y, to, q, o)
			got, gerr := c.MulCast(x, y, to, q, o)
			if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
				t.Fatalf("MulCastCache.MulCast(%s, %s, %s, %v, %v) = %v, %v; MulCast gives %v, %v",
					x.Format(), y.Format(), to, q, o, got, gerr, want, werr)
			}
		}
	}
}

// TestMulCastCacheZero checks that the zero MulCastCache keeps no plan:
// two zero Values with the zero Format and modes get MulCast's error, not
// a product.
func TestMulCastCacheZero(t *testing.T) {
	var c MulCastCache
	if _, err := c.MulCast(Value{}, Value{}, Format{}, 0, 0); err == nil {
		t.Fatal("zero cache, zero Values: no error")
	}
}

// TestMulCastCacheAllocs checks that MulCastCache.MulCast allocates
// nothing, on the kept plan and when it derives a new one.
func TestMulCastCacheAllocs(t *testing.T) {
	fx, fy := MustFormat("s32.16"), MustFormat("u32.8")
	x, y := mustV(FromInt(fx, -3, Sat)), mustV(FromInt(fy, 5, Sat))
	tos := []Format{MustFormat("s32.20"), MustFormat("s40.20")}
	var c MulCastCache
	i := 0
	if a := testing.AllocsPerRun(100, func() {
		i++
		mustV(c.MulCast(x, y, tos[i/3&1], RndConv, Sat))
	}); a != 0 {
		t.Errorf("%v allocations per call", a)
	}
}

// BenchmarkMulCastCache is BenchmarkMulCast (the same operands, formats
// and modes) through a MulCastCache: compare with BenchmarkMulCaster in the
// same run.
func BenchmarkMulCastCache(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s32.16")), benchValues(b, MustFormat("u32.8"))
	to := MustFormat("s32.20")
	var c MulCastCache
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(c.MulCast(xs[i&255], ys[(i+7)&255], to, RndConv, Sat))
	}
}

// BenchmarkMulCastCache64 is BenchmarkMulCast64 through a MulCastCache.
func BenchmarkMulCastCache64(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s64.32")), benchValues(b, MustFormat("u64.16"))
	to := MustFormat("s64.40")
	var c MulCastCache
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(c.MulCast(xs[i&255], ys[(i+7)&255], to, Rnd, Sat))
	}
}
