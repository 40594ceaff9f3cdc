package fixedpoint

import (
	"testing"
)

// Benchmarks (run: go test -run XXX -bench . -benchmem -cpu 1). Goals: Add
// and MulCast of <=64-bit formats under 5 ns/op with 0 allocs/op. Inputs
// vary per iteration (a table of 256 values) so branches are not trivially
// predicted; results go to a sink so nothing is optimized away.

var sink Value

func benchValues(b *testing.B, f Format) []Value {
	b.Helper()
	vs := make([]Value, 256)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range vs {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		v, err := FromBits(f, x, x*0x2545f4914f6cdd1d)
		if err != nil {
			b.Fatal(err)
		}
		vs[i] = v
	}
	return vs
}

func BenchmarkAdd(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s32.16")), benchValues(b, MustFormat("s24.8"))
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		v, _ := Add(xs[i&255], ys[(i+7)&255])
		sink = v
	}
}

func BenchmarkAddCast(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s32.16")), benchValues(b, MustFormat("s24.8"))
	to := MustFormat("s24.16")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(AddCast(xs[i&255], ys[(i+7)&255], to, RndConv, Sat))
	}
}

// BenchmarkMulCast is the datapath workhorse: a 32x32 product requantized
// to 32 bits with rounding and saturation.
func BenchmarkMulCast(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s32.16")), benchValues(b, MustFormat("u32.8"))
	to := MustFormat("s32.20")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(MulCast(xs[i&255], ys[(i+7)&255], to, RndConv, Sat))
	}
}

// BenchmarkMulCastPairs is MulCast over 36 operand format pairs that differ
// in W and I only (sW.I x uW.(I+2) -> s32.20 for W in {16, 24, 32} and I in
// 0..11, RndConv, Sat), one pair per iteration in turn: the many
// multipliers of a datapath sharing MulCast's plan cache (whose index must
// then give them different slots). Compare with BenchmarkMulCast.
func BenchmarkMulCastPairs(b *testing.B) {
	type pair struct{ xs, ys []Value }
	var ps []pair
	for _, w := range []int{16, 24, 32} {
		for i := 0; i < 12; i++ {
			ps = append(ps, pair{benchValues(b, Format{W: w, I: i, Signed: true}), benchValues(b, Format{W: w, I: i + 2})})
		}
	}
	to := MustFormat("s32.20")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		p := &ps[i%len(ps)]
		sink = mustV(MulCast(p.xs[i&255], p.ys[(i+7)&255], to, RndConv, Sat))
	}
}

func BenchmarkMulCast64(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s64.32")), benchValues(b, MustFormat("u64.16"))
	to := MustFormat("s64.40")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(MulCast(xs[i&255], ys[(i+7)&255], to, Rnd, Sat))
	}
}

func BenchmarkMulCast128(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("s100.50")), benchValues(b, MustFormat("u90.16"))
	to := MustFormat("s64.40")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = mustV(MulCast(xs[i&255], ys[(i+7)&255], to, Rnd, Sat))
	}
}

func BenchmarkCast(b *testing.B) {
	xs := benchValues(b, MustFormat("s48.20"))
	to := MustFormat("s24.12")
	for _, q := range AllQuantizations() {
		b.Run(q.String(), func(b *testing.B) {
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for i := 0; b.Loop(); i++ {
				sink = mustV(Cast(xs[i&255], to, q, Sat))
			}
		})
	}
}

func BenchmarkDiv(b *testing.B) {
	xs, ys := benchValues(b, MustFormat("u32.16")), benchValues(b, MustFormat("u24.8"))
	to := MustFormat("u32.16")
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		v, _ := Div(xs[i&255], ys[(i+7)&255], to, Trn, Sat)
		sink = v
	}
}

func BenchmarkDivider(b *testing.B) {
	num, den, quo := MustFormat("u32.16"), MustFormat("u24.8"), MustFormat("u32.16")
	d, err := NewDivider(num, den, quo)
	if err != nil {
		b.Fatal(err)
	}
	xs, ys := benchValues(b, num), benchValues(b, den)
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		v, _ := d.Div(xs[i&255], ys[(i+7)&255])
		sink = v
	}
}

func BenchmarkReciprocal(b *testing.B) {
	for _, nr := range []int{0, 1, 2} {
		b.Run("k8_nr"+string(rune('0'+nr)), func(b *testing.B) {
			c := ReciprocalConfig{In: MustFormat("u32.16"), TableBits: 8, Entry: MustFormat("u12.1"), NRSteps: nr, Out: MustFormat("u32.17"), Q: Rnd, O: Sat}
			r, err := NewReciprocal(c)
			if err != nil {
				b.Fatal(err)
			}
			xs := benchValues(b, c.In)
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for i := 0; b.Loop(); i++ {
				v, _ := r.Recip(xs[i&255])
				sink = v
			}
		})
	}
}
