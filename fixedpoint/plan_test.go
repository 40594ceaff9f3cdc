package fixedpoint

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"
)

// TestPropPlans: a Caster or MulCaster gives exactly what Cast and MulCast
// give (the oracle; they are checked against exact rationals and SystemC
// elsewhere) for its own operand formats (the precomputed path when they
// fit 64 bits) and for operands of other formats (the general path).
func TestPropPlans(t *testing.T) {
	props := gopter.NewProperties(propParams())
	props.Property("plans equal Cast and MulCast", prop.ForAll(func(c OpCase) string {
		x, y, to := c.X.value(), c.Y.value(), c.To.format()
		q, o := Quantization(c.Q), Overflow(c.O)
		return checkPlans(x, y, to, q, o)
	}, genOp()))
	props.TestingRun(t)
}

// TestPlansRandom runs the comparison of TestPropPlans on 200,000 random
// cases with all formats at most 64 bits wide (so the precomputed path is
// taken whenever the shift allows), values biased to MIN, MAX and their
// neighbours.
func TestPlansRandom(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	for i := 0; i < n; i++ {
		fx, fy, to := randFormat(r, 64), randFormat(r, 64), randFormat(r, 64)
		x, y := randValue(r, fx), randValue(r, fy)
		if s := checkPlans(x, y, to, Quantization(r.Intn(7)), Overflow(r.Intn(4))); s != "" {
			t.Fatal(s)
		}
	}
}

func checkPlans(x, y Value, to Format, q Quantization, o Overflow) string {
	mc, err := NewMulCaster(x.Format(), y.Format(), to, q, o)
	if err != nil {
		return err.Error()
	}
	want, err := MulCast(x, y, to, q, o)
	if err != nil {
		return err.Error()
	}
	if got := mc.MulCast(x, y); got != want {
		return fmt.Sprintf("MulCaster(%s, %s, %s, %v, %v).MulCast(%s, %s) = %s; MulCast gives %s", x.Format(), y.Format(), to, q, o, x.Notation(), y.Notation(), got.Notation(), want.Notation())
	}
	if want, err = MulCast(y, x, to, q, o); err != nil {
		return err.Error()
	}
	if got := mc.MulCast(y, x); got != want { // formats swapped: general path unless equal
		return fmt.Sprintf("MulCaster(%s, %s, ...).MulCast(%s, %s) = %s; MulCast gives %s", x.Format(), y.Format(), y.Notation(), x.Notation(), got.Notation(), want.Notation())
	}
	c, err := NewCaster(x.Format(), to, q, o)
	if err != nil {
		return err.Error()
	}
	ac, err := NewAddCaster(x.Format(), y.Format(), to, q, o)
	if err != nil {
		return err.Error()
	}
	for _, op := range []struct {
		name    string
		plan    func(x, y Value) Value
		general func(x, y Value, to Format, q Quantization, o Overflow) (Value, error)
		a, b    Value
	}{
		{"AddCast", ac.AddCast, AddCast, x, y},
		{"SubCast", ac.SubCast, SubCast, x, y},
		{"SubCast", ac.SubCast, SubCast, y, x}, // formats swapped: general path unless equal
		{"AddCast", ac.AddCast, AddCast, x, x},
	} {
		want, err := op.general(op.a, op.b, to, q, o)
		if err != nil {
			return err.Error()
		}
		if got := op.plan(op.a, op.b); got != want {
			return fmt.Sprintf("AddCaster(%s, %s, %s, %v, %v).%s(%s, %s) = %s; %s gives %s", x.Format(), y.Format(), to, q, o, op.name, op.a.Notation(), op.b.Notation(), got.Notation(), op.name, want.Notation())
		}
	}
	for _, v := range []Value{x, y} {
		want, err := Cast(v, to, q, o)
		if err != nil {
			return err.Error()
		}
		if got := c.Cast(v); got != want {
			return fmt.Sprintf("Caster(%s, %s, %v, %v).Cast(%s) = %s; Cast gives %s", x.Format(), to, q, o, v.Notation(), got.Notation(), want.Notation())
		}
	}
	return ""
}

// TestPlanErrors: invalid formats and modes are rejected with an error
// naming them; expected messages written from the validation rules.
func TestPlanErrors(t *testing.T) {
	good := MustFormat("s16.8")
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"caster from", func() error { _, err := NewCaster(Format{W: 0}, good, Trn, Sat); return err }(), "fixedpoint: NewCaster operand 1: fixedpoint: Format W=0: must be in [1,128]: invalid format"},
		{"caster to", func() error { _, err := NewCaster(good, Format{W: 129}, Trn, Sat); return err }(), "fixedpoint: NewCaster to: fixedpoint: Format W=129: must be in [1,128]: invalid format"},
		{"caster q", func() error { _, err := NewCaster(good, good, Quantization(7), Sat); return err }(), "fixedpoint: NewCaster q=Quantization(7): invalid mode"},
		{"mulcaster y", func() error { _, err := NewMulCaster(good, Format{W: 8, I: 5000}, good, Trn, Sat); return err }(), "fixedpoint: NewMulCaster operand 2: fixedpoint: Format I=5000: must be in [-4096,4096]: invalid format"},
		{"mulcaster o", func() error { _, err := NewMulCaster(good, good, good, Rnd, Overflow(4)); return err }(), "fixedpoint: NewMulCaster o=Overflow(4): invalid mode"},
		{"addcaster x", func() error { _, err := NewAddCaster(Format{W: 129}, good, good, Rnd, Sat); return err }(), "fixedpoint: NewAddCaster operand 1: fixedpoint: Format W=129: must be in [1,128]: invalid format"},
		{"addcaster q", func() error { _, err := NewAddCaster(good, good, good, badQuantization, Sat); return err }(), "fixedpoint: NewAddCaster q=Quantization(255): invalid mode"},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: error %v; want %q", tc.name, tc.err, tc.want)
		}
	}
}

// Plan benchmarks: the same operands, formats and modes as BenchmarkMulCast,
// BenchmarkMulCast64 and BenchmarkCast, through a MulCaster or Caster built
// once (run: go test -run XXX -bench Caster -benchmem -cpu 1).

func BenchmarkMulCaster(b *testing.B) {
	fx, fy := MustFormat("s32.16"), MustFormat("u32.8")
	xs, ys := benchValues(b, fx), benchValues(b, fy)
	c, err := NewMulCaster(fx, fy, MustFormat("s32.20"), RndConv, Sat)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = c.MulCast(xs[i&255], ys[(i+7)&255])
	}
}

func BenchmarkMulCaster64(b *testing.B) {
	fx, fy := MustFormat("s64.32"), MustFormat("u64.16")
	xs, ys := benchValues(b, fx), benchValues(b, fy)
	c, err := NewMulCaster(fx, fy, MustFormat("s64.40"), Rnd, Sat)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = c.MulCast(xs[i&255], ys[(i+7)&255])
	}
}

// BenchmarkMulCasterPairs is BenchmarkMulCastPairs through one MulCaster
// per pair (the same operands, formats, modes and order).
func BenchmarkMulCasterPairs(b *testing.B) {
	type pair struct {
		xs, ys []Value
		c      *MulCaster
	}
	var ps []pair
	to := MustFormat("s32.20")
	for _, w := range []int{16, 24, 32} {
		for i := 0; i < 12; i++ {
			fx, fy := Format{W: w, I: i, Signed: true}, Format{W: w, I: i + 2}
			c, err := NewMulCaster(fx, fy, to, RndConv, Sat)
			if err != nil {
				b.Fatal(err)
			}
			ps = append(ps, pair{benchValues(b, fx), benchValues(b, fy), c})
		}
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		p := &ps[i%len(ps)]
		sink = p.c.MulCast(p.xs[i&255], p.ys[(i+7)&255])
	}
}

// BenchmarkAddCaster is BenchmarkAddCast through a plan.
func BenchmarkAddCaster(b *testing.B) {
	fx, fy := MustFormat("s32.16"), MustFormat("s24.8")
	xs, ys := benchValues(b, fx), benchValues(b, fy)
	c, err := NewAddCaster(fx, fy, MustFormat("s24.16"), RndConv, Sat)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	defer cpuPerOp(b)()
	for i := 0; b.Loop(); i++ {
		sink = c.AddCast(xs[i&255], ys[(i+7)&255])
	}
}

func BenchmarkCaster(b *testing.B) {
	from := MustFormat("s48.20")
	xs := benchValues(b, from)
	for _, q := range AllQuantizations() {
		b.Run(q.String(), func(b *testing.B) {
			c, err := NewCaster(from, MustFormat("s24.12"), q, Sat)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			defer cpuPerOp(b)()
			for i := 0; b.Loop(); i++ {
				sink = c.Cast(xs[i&255])
			}
		})
	}
}
