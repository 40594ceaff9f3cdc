package fixedpoint

import (
	"errors"
	"math/big"
	"testing"
)

func mustRaw(t testing.TB, f string, raw int64) Value {
	t.Helper()
	v, err := FromRaw(MustFormat(f), raw)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestParseFormat checks the notation round trip and the error messages for
// bad notation; expected values are the documented notation.
func TestParseFormat(t *testing.T) {
	good := []struct {
		in   string
		want Format
	}{
		{"s16.8", Format{16, 8, true}},
		{"u12.-3", Format{12, -3, false}},
		{"u32.40", Format{32, 40, false}},
		{"s1.1", Format{1, 1, true}},
		{"u128.0", Format{128, 0, false}},
		{"s128.-4096", Format{128, -4096, true}},
		{"s8.+2", Format{8, 2, true}},
	}
	for _, c := range good {
		got, err := ParseFormat(c.in)
		if err != nil || got != c.want {
			t.Errorf("ParseFormat(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
		back, err := ParseFormat(got.String())
		if err != nil || back != got {
			t.Errorf("ParseFormat(%q.String()=%q) = %v, %v", c.in, got.String(), back, err)
		}
	}
	bad := []struct{ in, msg string }{
		{"s0.0", "fixedpoint: format \"s0.0\": fixedpoint: Format W=0: must be in [1,128]: invalid format"},
		{"u129.1", "fixedpoint: format \"u129.1\": fixedpoint: Format W=129: must be in [1,128]: invalid format"},
		{"s8.5000", "fixedpoint: format \"s8.5000\": fixedpoint: Format I=5000: must be in [-4096,4096]: invalid format"},
		{"x8.4", "fixedpoint: format \"x8.4\": want s<W>.<I> or u<W>.<I>: invalid format"},
		{"s8", "fixedpoint: format \"s8\": want s<W>.<I> or u<W>.<I>: invalid format"},
		{"s8.", "fixedpoint: format \"s8.\": want s<W>.<I> or u<W>.<I>: invalid format"},
		{"s-8.4", "fixedpoint: format \"s-8.4\": want s<W>.<I> or u<W>.<I>: invalid format"},
		{"s8.4 ", "fixedpoint: format \"s8.4 \": want s<W>.<I> or u<W>.<I>: invalid format"},
		{"", "fixedpoint: format \"\": want s<W>.<I> or u<W>.<I>: invalid format"},
	}
	for _, c := range bad {
		_, err := ParseFormat(c.in)
		if err == nil || err.Error() != c.msg || !errors.Is(err, ErrFormat) {
			t.Errorf("ParseFormat(%q) error = %v; want %q", c.in, err, c.msg)
		}
	}
	if _, err := NewFormat(0, 0, true); err == nil || err.Error() != "fixedpoint: Format W=0: must be in [1,128]: invalid format" {
		t.Errorf("NewFormat(0,0,true) error = %v", err)
	}
}

// TestFormatRange checks MinRaw/MaxRaw against 2^(W-1) and 2^W by hand.
func TestFormatRange(t *testing.T) {
	cases := []struct {
		f              string
		min, max       int64
		minOK, maxOK   bool
		maxBig, minBig string
	}{
		{"s8.4", -128, 127, true, true, "127", "-128"},
		{"u8.4", 0, 255, true, true, "255", "0"},
		{"s1.0", -1, 0, true, true, "0", "-1"},
		{"u1.0", 0, 1, true, true, "1", "0"},
		{"s64.0", -1 << 63, 1<<63 - 1, true, true, "9223372036854775807", "-9223372036854775808"},
		{"u64.0", 0, 0, true, false, "18446744073709551615", "0"},
		{"s65.0", 0, 0, false, false, "18446744073709551615", "-18446744073709551616"},
		{"u128.0", 0, 0, true, false, "340282366920938463463374607431768211455", "0"},
	}
	for _, c := range cases {
		f := MustFormat(c.f)
		mn, ok1 := f.MinRaw()
		mx, ok2 := f.MaxRaw()
		if ok1 != c.minOK || ok2 != c.maxOK || (ok1 && mn != c.min) || (ok2 && mx != c.max) {
			t.Errorf("%s: MinRaw=%d,%v MaxRaw=%d,%v; want %d,%v %d,%v", c.f, mn, ok1, mx, ok2, c.min, c.minOK, c.max, c.maxOK)
		}
		if f.MaxRawBig().String() != c.maxBig || f.MinRawBig().String() != c.minBig {
			t.Errorf("%s: MinRawBig=%s MaxRawBig=%s; want %s %s", c.f, f.MinRawBig(), f.MaxRawBig(), c.minBig, c.maxBig)
		}
	}
}

// TestCastQuantization checks every quantization mode on the three residue
// classes (below, at and above half an LSB) for both signs. Expected raws
// are worked by hand: s8.4 -> s8.6 (F=2) drops two bits (LSB 0.25, half 0.125).
func TestCastQuantization(t *testing.T) {
	//             raw s8.4 value:  Trn TrnZero Rnd RndZero RndInf RndMinInf RndConv
	cases := []struct {
		raw  int64 // s8.4
		want [7]int64
	}{
		{38, [7]int64{9, 9, 10, 9, 10, 9, 10}},            // 2.375 tie between 2.25 (9, odd) and 2.5 (10)
		{-38, [7]int64{-10, -9, -9, -9, -10, -10, -10}},   // -2.375 tie
		{37, [7]int64{9, 9, 9, 9, 9, 9, 9}},               // 2.3125 below half
		{-37, [7]int64{-10, -9, -9, -9, -9, -9, -9}},      // -2.3125 below half
		{39, [7]int64{9, 9, 10, 10, 10, 10, 10}},          // 2.4375 above half
		{-39, [7]int64{-10, -9, -10, -10, -10, -10, -10}}, // -2.4375 above half
		{42, [7]int64{10, 10, 11, 10, 11, 10, 10}},        // 2.625 tie between 2.5 (10, even) and 2.75
		{-42, [7]int64{-11, -10, -10, -10, -11, -11, -10}},
		{40, [7]int64{10, 10, 10, 10, 10, 10, 10}}, // 2.5 exact
		{-2, [7]int64{-1, 0, 0, 0, -1, -1, 0}},     // -0.125: tie between -0.25 and 0
		{2, [7]int64{0, 0, 1, 0, 1, 0, 0}},         // 0.125 tie
		{-1, [7]int64{-1, 0, 0, 0, 0, 0, 0}},       // -0.0625 below half
	}
	to := MustFormat("s8.6")
	for _, c := range cases {
		x := mustRaw(t, "s8.4", c.raw)
		for qi, q := range AllQuantizations() {
			got := mustV(Cast(x, to, q, Wrap))
			if rawOf(got) != c.want[qi] || got.Format() != to {
				t.Errorf("Cast(%s, s8.6, %v) = raw %d; want %d", x, q, rawOf(got), c.want[qi])
			}
		}
	}
}

// TestCastOverflow checks every overflow mode at and beyond the range edges
// of s8.4 ([-8, 7.9375], raw [-128, 127]) and u8.4 ([0, 15.9375]). Expected
// raws by hand: wrap is the value mod 2^8 read as two's complement.
func TestCastOverflow(t *testing.T) {
	cases := []struct {
		from string
		raw  int64
		to   string
		q    Quantization
		want [4]int64 // Wrap Sat SatZero SatSym
	}{
		{"s10.6", 144, "s8.4", Trn, [4]int64{-112, 127, 0, 127}},       // 9.0
		{"s10.6", -144, "s8.4", Trn, [4]int64{112, -128, 0, -127}},     // -9.0
		{"s10.6", -128, "s8.4", Trn, [4]int64{-128, -128, -128, -127}}, // -8.0 = MIN: SC_SAT_SYM range is [-MAX, MAX] (SystemC 2.3.4 output)
		{"s10.6", 127, "s8.4", Trn, [4]int64{127, 127, 127, 127}},      // MAX
		{"s10.6", 128, "s8.4", Trn, [4]int64{-128, 127, 0, 127}},       // MAX + LSB
		{"s10.6", -129, "s8.4", Trn, [4]int64{127, -128, 0, -127}},     // MIN - LSB
		{"s10.5", 255, "s8.4", Rnd, [4]int64{-128, 127, 0, 127}},       // 7.96875 rounds up to 8.0: overflow by rounding
		{"s10.5", 255, "s8.4", Trn, [4]int64{127, 127, 127, 127}},      // truncation keeps it in range
		{"s10.6", -16, "u8.4", Trn, [4]int64{240, 0, 0, 0}},            // -1.0 into unsigned
		{"s10.6", 256, "u8.4", Trn, [4]int64{0, 255, 0, 255}},          // 16.0
		{"s10.6", -1, "u8.4", Trn, [4]int64{255, 0, 0, 0}},             // -0.0625 into unsigned
		{"s10.5", -1, "u8.4", TrnZero, [4]int64{0, 0, 0, 0}},           // -0.03125 toward zero: 0, no overflow
		{"s10.5", -1, "u8.4", Trn, [4]int64{255, 0, 0, 0}},             // -0.03125 floors to -0.0625: overflow
		{"s10.6", 1, "s1.1", Trn, [4]int64{0, 0, 0, 0}},                // 0.0625 -> s1.1 {-1,0}: 0 fits
		{"s10.6", 16, "s1.1", Trn, [4]int64{-1, 0, 0, 0}},              // 1.0 overflows s1.1: wrap to -1, sat to 0
		{"s10.6", -32, "s1.1", Trn, [4]int64{0, -1, 0, 0}},             // -2.0: wrap 0, sat -1, symmetric -MAX = 0
	}
	for _, c := range cases {
		x := mustRaw(t, c.from, c.raw)
		to := MustFormat(c.to)
		for oi, o := range AllOverflows() {
			got := mustV(Cast(x, to, c.q, o))
			if rawOf(got) != c.want[oi] {
				t.Errorf("Cast(%s %s, %s, %v, %v) = raw %d; want %d", c.from, x, c.to, c.q, o, rawOf(got), c.want[oi])
			}
		}
	}
}

// TestCastWide checks casts in and out of 128-bit formats and across large
// binary-point moves, against oracleCast (exact rationals).
func TestCastWide(t *testing.T) {
	vals := []string{
		"s128.0:0x80000000000000000000000000000000",
		"s128.0:0x7fffffffffffffffffffffffffffffff",
		"u128.0:0xffffffffffffffffffffffffffffffff",
		"u128.-100:0x80000000000000000000000000000001",
		"s100.200:0x8000000000000000000000001",
		"s64.0:-9223372036854775808",
		"u64.64:0xffffffffffffffff",
		"s3.4096:0x5",
		"u3.-4096:0x7",
	}
	tos := []string{"s128.0", "u128.128", "s64.0", "s8.-120", "u1.0", "s1.1", "s128.4096", "u128.-4096", "s127.63", "u65.200"}
	for _, vs := range vals {
		x, err := ParseValue(vs)
		if err != nil {
			t.Fatal(err)
		}
		for _, ts := range tos {
			to := MustFormat(ts)
			for _, q := range AllQuantizations() {
				for _, o := range AllOverflows() {
					got := mustV(Cast(x, to, q, o))
					want := oracleCast(x.Rat(), to, q, o)
					if got.RawBig().Cmp(want) != 0 || got.Format() != to {
						t.Errorf("Cast(%s, %s, %v, %v) = %s; want raw %s", vs, ts, q, o, got.Notation(), want)
					}
				}
			}
		}
	}
}

// TestArithFormats checks the ac_fixed result-format rules (ac_fixed.h rt)
// on hand-picked operand formats.
func TestArithFormats(t *testing.T) {
	cases := []struct {
		op        string
		a, b, out string
	}{
		{"mul", "s16.8", "u8.0", "s24.8"},
		{"mul", "u12.-3", "u12.-3", "u24.-6"},
		{"add", "s16.8", "s16.8", "s17.9"},
		{"add", "u8.8", "s8.8", "s10.10"},
		{"add", "u8.4", "u4.-2", "u11.5"},
		{"add", "s8.2", "u8.8", "s16.10"},
		{"sub", "u8.8", "u8.8", "s9.9"},
		{"neg", "u8.8", "", "s9.9"},
		{"divac", "s8.4", "s8.4", "s13.9"},
		{"divac", "u16.16", "u8.0", "u24.24"},
		{"divac", "u16.0", "u8.-2", "u26.10"},
	}
	for _, c := range cases {
		a, b := MustFormat(c.a), Format{}
		if c.b != "" {
			b = MustFormat(c.b)
		}
		var got Format
		var err error
		switch c.op {
		case "mul":
			got, err = MulFormat(a, b)
		case "add":
			got, err = AddFormat(a, b)
		case "sub":
			got, err = SubFormat(a, b)
		case "neg":
			got, err = NegFormat(a)
		case "divac":
			got, err = DivACFormat(a, b)
		}
		if err != nil || got.String() != c.out {
			t.Errorf("%s(%s, %s) format = %v, %v; want %s", c.op, c.a, c.b, got, err, c.out)
		}
	}
	if _, err := MulFormat(MustFormat("s100.0"), MustFormat("s29.0")); err == nil ||
		err.Error() != "fixedpoint: Mul of s100.0 and s29.0: result s129.0: fixedpoint: Format W=129: must be in [1,128]: invalid format" {
		t.Errorf("MulFormat(s100.0, s29.0) error = %v", err)
	}
}

// TestArith checks Add/Sub/Mul/Neg/Abs on hand-computed values, including
// the most negative value and mixed signedness.
func TestArith(t *testing.T) {
	cases := []struct {
		op   string
		x, y string
		want string // notation of the result
	}{
		{"add", "s8.4=1.5", "s8.4=-2.25", "s9.5=-0.75"},
		{"add", "u8.8=255", "u8.8=255", "u9.9=510"},
		{"add", "u8.8=255", "s8.8=-128", "s10.10=127"},
		{"add", "s8.4=-8", "s8.6=-32", "s11.7=-40"},
		{"sub", "u8.8=0", "u8.8=255", "s9.9=-255"},
		{"sub", "s8.4=-8", "s8.4=7.9375", "s9.5=-15.9375"},
		{"mul", "s8.4=-8", "s8.4=-8", "s16.8=64"},
		{"mul", "s8.4=-0.0625", "u8.8=255", "s16.12=-15.9375"},
		{"mul", "u64.0:0xffffffffffffffff", "u64.0:0xffffffffffffffff", "u128.0:0xfffffffffffffffe0000000000000001"},
		{"mul", "s64.0:-9223372036854775808", "s64.0:-9223372036854775808", "s128.0:0x40000000000000000000000000000000"},
		{"mul", "s100.50:0x8000000000000000000000000", "s28.28=-1", "s128.78:0x00000008000000000000000000000000"},
		{"neg", "s8.4=-8", "", "s9.5=8"},
		{"neg", "u8.8=255", "", "s9.9=-255"},
		{"abs", "s8.4=-8", "", "s9.5=8"},
		{"abs", "s8.4=7.5", "", "s9.5=7.5"},
	}
	for _, c := range cases {
		x, err := ParseValue(c.x)
		if err != nil {
			t.Fatal(err)
		}
		want, err := ParseValue(c.want)
		if err != nil {
			t.Fatal(err)
		}
		var y, got Value
		if c.y != "" {
			if y, err = ParseValue(c.y); err != nil {
				t.Fatal(err)
			}
		}
		switch c.op {
		case "add":
			got, err = Add(x, y)
		case "sub":
			got, err = Sub(x, y)
		case "mul":
			got, err = Mul(x, y)
		case "neg":
			got, err = Neg(x)
		case "abs":
			got, err = Abs(x)
		}
		if err != nil || got != want {
			t.Errorf("%s(%s, %s) = %s, %v; want %s", c.op, c.x, c.y, got.Notation(), err, want.Notation())
		}
	}
}

// TestCmpMinMax checks exact comparison across formats (hand-picked values,
// including equal values in different formats and 128-bit extremes).
func TestCmpMinMax(t *testing.T) {
	cases := []struct {
		x, y string
		want int
	}{
		{"s8.4=1.5", "u16.2=1.5", 0},
		{"s8.4=-0.0625", "u8.0=0", -1},
		{"s8.4=0", "u8.0=0", 0},
		{"u128.0:0xffffffffffffffffffffffffffffffff", "u128.1:0x7fffffffffffffffffffffffffffffff", 1},
		{"u128.0:0xfffffffffffffffffffffffffffffffe", "u128.1:0x7fffffffffffffffffffffffffffffff", 0},
		{"s128.0:0x80000000000000000000000000000000", "s8.200:0x80", 1},
		{"u8.-100:0x1", "u8.100:0x80", -1},
		{"s8.4=-7.9375", "s8.4=-8", 1},
	}
	for _, c := range cases {
		x, _ := ParseValue(c.x)
		y, _ := ParseValue(c.y)
		if got := Cmp(x, y); got != c.want {
			t.Errorf("Cmp(%s, %s) = %d; want %d", c.x, c.y, got, c.want)
		}
		if got := Cmp(y, x); got != -c.want {
			t.Errorf("Cmp(%s, %s) = %d; want %d", c.y, c.x, got, -c.want)
		}
		mn, mx := Min(x, y), Max(x, y)
		switch {
		case c.want < 0 && (mn != x || mx != y), c.want > 0 && (mn != y || mx != x), c.want == 0 && (mn != x || mx != x):
			t.Errorf("Min/Max(%s, %s) = %s, %s", c.x, c.y, mn.Notation(), mx.Notation())
		}
	}
}

// TestShifts checks Shl/Shr/ShrLogical/ScaleExp/CLZ/Normalize on
// hand-computed bit patterns.
func TestShifts(t *testing.T) {
	x := mustRaw(t, "s8.4", -3) // 0xfd
	type fn func(Value, int) (Value, error)
	cases := []struct {
		name string
		f    fn
		x    Value
		n    int
		want int64
	}{
		{"Shl", Shl, x, 1, -6},
		{"Shl", Shl, x, 7, -128}, // 0xfd<<7 = 0x80 (wrap)
		{"Shl", Shl, x, 8, 0},    // everything shifted out
		{"Shl", Shl, mustRaw(t, "s8.4", 64), 1, -128},
		{"Shr", Shr, x, 1, -2}, // floor(-3/2)
		{"Shr", Shr, x, 8, -1},
		{"ShrLogical", ShrLogical, x, 1, 0x7e},
		{"ShrLogical", ShrLogical, x, 0, -3},
		{"Shr", Shr, mustRaw(t, "u8.0", 200), 3, 25},
	}
	for _, c := range cases {
		got, err := c.f(c.x, c.n)
		if err != nil || rawOf(got) != c.want || got.Format() != c.x.Format() {
			t.Errorf("%s(%s, %d) = %s, %v; want raw %d", c.name, c.x.Notation(), c.n, got.Notation(), err, c.want)
		}
	}
	u, _ := ParseValue("u128.0:0x80000000000000000000000000000000")
	if got, _ := Shr(u, 127); rawOf(got) != 1 {
		t.Errorf("Shr(u128 2^127, 127) = %s; want 1", got.Notation())
	}
	if _, err := Shl(x, 9); err == nil || err.Error() != "fixedpoint: Shl n=9: must be in [0,8] for s8.4: out of range" {
		t.Errorf("Shl(x, 9) error = %v", err)
	}
	if _, err := Shr(x, -1); err == nil {
		t.Errorf("Shr(x, -1): want error")
	}
	if s, err := ScaleExp(x, 3); err != nil || s.Format().String() != "s8.7" || rawOf(s) != -3 || s.String() != "-1.5" {
		t.Errorf("ScaleExp(%s, 3) = %s (%s), %v", x.Notation(), s.Notation(), s, err)
	}
	clz := []struct {
		v    string
		want int
	}{
		{"u8.0:0x01", 7}, {"u8.0:0x80", 0}, {"u8.0:0x00", 8}, {"s8.0:0x00", 7}, {"s8.0:0xff", 7},
		{"s8.0:0x01", 6}, {"s8.0:0xc0", 1}, {"s8.0:0x80", 0}, {"s8.0:0x40", 0}, {"s8.0:0xfd", 5},
		{"u128.0:0x1", 127}, {"s128.0:0x1", 126}, {"u1.0:0x1", 0}, {"s1.0:0x1", 0},
	}
	for _, c := range clz {
		v, _ := ParseValue(c.v)
		if got := CLZ(v); got != c.want {
			t.Errorf("CLZ(%s) = %d; want %d", c.v, got, c.want)
		}
		nv, n := Normalize(v)
		if n != c.want || nv.RawBig().Cmp(new(big.Int).Lsh(v.RawBig(), uint(n))) != 0 {
			t.Errorf("Normalize(%s) = %s, %d", c.v, nv.Notation(), n)
		}
	}
}

// TestValueNotation checks String (exact decimal), Hex, Notation and
// ParseValue, including their errors.
func TestValueNotation(t *testing.T) {
	cases := []struct{ in, str, note string }{
		{"s16.8:0xfe80", "-1.5", "s16.8:0xfe80"},
		{"s16.8:-384", "-1.5", "s16.8:0xfe80"},
		{"s16.8=-1.5", "-1.5", "s16.8:0xfe80"},
		{"u12.-3:0x001", "0.000030517578125", "u12.-3:0x001"},
		{"u4.8:0xf", "240", "u4.8:0xf"},
		{"s1.0:0x1", "-0.5", "s1.0:0x1"}, {"s1.1:0x1", "-1", "s1.1:0x1"},
		{"u5.0:31", "0.96875", "u5.0:0x1f"}, {"u5.5:31", "31", "u5.5:0x1f"},
		{"s128.128:0x80000000000000000000000000000000", "-170141183460469231731687303715884105728", "s128.128:0x80000000000000000000000000000000"},
	}
	for _, c := range cases {
		v, err := ParseValue(c.in)
		if err != nil || v.String() != c.str || v.Notation() != c.note {
			t.Errorf("ParseValue(%q) = %s (%s), %v; want %s (%s)", c.in, v.Notation(), v, err, c.note, c.str)
		}
	}
	bad := []struct{ in, msg string }{
		{"s8.4:256", "fixedpoint: value \"s8.4:256\": fixedpoint: FromBig raw=256: outside s8.4 range [-128, 127]: out of range"},
		{"s8.4=0.03", "fixedpoint: value \"s8.4=0.03\": 0.03 is not exactly representable in s8.4: out of range"},
		{"s8.4:0x100", "fixedpoint: value \"s8.4:0x100\": hex \"100\": want at most 8 bits of hex digits"},
		{"s8.4", "fixedpoint: value \"s8.4\": want <format>:<raw> or <format>=<real>"},
		{"s8.4=1/3", "fixedpoint: value \"s8.4=1/3\": real \"1/3\": want a decimal number"},
	}
	for _, c := range bad {
		if _, err := ParseValue(c.in); err == nil || err.Error() != c.msg {
			t.Errorf("ParseValue(%q) error = %v; want %q", c.in, err, c.msg)
		}
	}
}

// TestConstructors checks FromRaw/FromUint/FromInt/FromFloat/FromRat range
// handling and their errors.
func TestConstructors(t *testing.T) {
	s84 := MustFormat("s8.4")
	if _, err := FromRaw(s84, 128); err == nil || err.Error() != "fixedpoint: FromRaw raw=128: outside s8.4 range [-128, 127]: out of range" {
		t.Errorf("FromRaw(s8.4, 128) error = %v", err)
	}
	if _, err := FromRaw(MustFormat("u8.0"), -1); err == nil {
		t.Errorf("FromRaw(u8.0, -1): want error")
	}
	if v, err := FromUint(MustFormat("u64.0"), 1<<64-1); err != nil || v.RawUint() != 1<<64-1 {
		t.Errorf("FromUint(u64.0, max) = %v, %v", v, err)
	}
	if _, err := FromUint(MustFormat("s64.0"), 1<<63); err == nil {
		t.Errorf("FromUint(s64.0, 2^63): want error")
	}
	if v, err := FromInt(s84, 3, Sat); err != nil || rawOf(v) != 48 {
		t.Errorf("FromInt(s8.4, 3) = %s, %v; want raw 48", v.Notation(), err)
	}
	if v, err := FromInt(s84, 100, Sat); err != nil || rawOf(v) != 127 {
		t.Errorf("FromInt(s8.4, 100, Sat) = %s, %v; want raw 127", v.Notation(), err)
	}
	if v, err := FromInt(MustFormat("u8.10"), 12, Sat); err != nil || rawOf(v) != 3 {
		t.Errorf("FromInt(u8.10, 12) = %s, %v; want raw 3", v.Notation(), err)
	}
	if _, err := FromInt(MustFormat("u8.10"), 13, Sat); err == nil || err.Error() != "fixedpoint: FromInt n=13: not a multiple of u8.10's LSB 2^2: out of range" {
		t.Errorf("FromInt(u8.10, 13) error = %v", err)
	}
	if v, err := FromFloat(s84, -0.09375, RndConv, Sat); err != nil || rawOf(v) != -2 { // -1.5 LSB tie -> even -2
		t.Errorf("FromFloat(s8.4, -0.09375, RndConv) = %s, %v; want raw -2", v.Notation(), err)
	}
	if v, err := FromFloat(s84, 1e300, Trn, Sat); err != nil || rawOf(v) != 127 {
		t.Errorf("FromFloat(s8.4, 1e300, Sat) = %s, %v", v.Notation(), err)
	}
	if _, err := FromFloat(s84, posInf(), Trn, Sat); err == nil {
		t.Errorf("FromFloat(+Inf): want error")
	}
	if v, err := FromRat(s84, big.NewRat(-1, 3), Trn, Sat); err != nil || rawOf(v) != -6 {
		t.Errorf("FromRat(s8.4, -1/3, Trn) = %s, %v; want raw -6", v.Notation(), err)
	}
	if v, err := FromRat(s84, big.NewRat(-1, 3), TrnZero, Sat); err != nil || rawOf(v) != -5 {
		t.Errorf("FromRat(s8.4, -1/3, TrnZero) = %s, %v; want raw -5", v.Notation(), err)
	}
	if _, err := FromRaw(Format{}, 0); err == nil {
		t.Errorf("FromRaw(zero Format): want error")
	}
}

// TestDivision checks Div (SystemC: exact quotient, one quantization) and
// DivAC (ac_fixed: truncate toward zero into the natural type, then cast),
// using the example -1/3 into s8.4: -5/16 (ac) vs -6/16 (SystemC).
func TestDivision(t *testing.T) {
	s84 := MustFormat("s8.4")
	x, y := mustRaw(t, "s8.4", -16), mustRaw(t, "s8.4", 48) // -1, 3
	sc, err := Div(x, y, s84, Trn, Wrap)
	if err != nil || rawOf(sc) != -6 {
		t.Errorf("Div(-1, 3, s8.4, Trn) = %s, %v; want raw -6", sc.Notation(), err)
	}
	ac, err := DivAC(x, y)
	if err != nil || ac.Format().String() != "s13.9" || rawOf(ac) != -5 {
		t.Errorf("DivAC(-1, 3) = %s, %v; want s13.9 raw -5", ac.Notation(), err)
	}
	if got := mustV(Cast(ac, s84, Trn, Wrap)); rawOf(got) != -5 {
		t.Errorf("Cast(DivAC(-1,3), s8.4, Trn) = %s; want raw -5", got.Notation())
	}
	if _, err := Div(x, s84.Zero(), s84, Trn, Wrap); !errors.Is(err, ErrDivByZero) ||
		err.Error() != "fixedpoint: Div x=-1 y=0 (s8.4): division by zero" {
		t.Errorf("Div by zero error = %v", err)
	}
	// -MIN / -1 overflows s8.4 under Div but not DivAC's wider type.
	mn := mustRaw(t, "s8.4", -128)
	m1 := mustRaw(t, "s8.4", -16)
	if got, _ := Div(mn, m1, s84, Trn, Sat); rawOf(got) != 127 {
		t.Errorf("Div(-8, -1, s8.4, Sat) = %s; want raw 127", got.Notation())
	}
	if got, _ := DivAC(mn, m1); got.String() != "8" {
		t.Errorf("DivAC(-8, -1) = %s; want 8", got.Notation())
	}
}

// TestCounters checks WrapDiff, WrapDiffSigned and TimestampDiffNs on
// hand-computed wrap-arounds.
func TestCounters(t *testing.T) {
	cases := []struct {
		a, b uint64
		n    uint
		want uint64
		sw   int64
	}{
		{5, 3, 8, 2, 2},
		{3, 5, 8, 254, -2},
		{0, 255, 8, 1, 1},
		{0x10, 0xfff0, 16, 0x20, 0x20},
		{0, 1, 64, 1<<64 - 1, -1},
		{1, 0, 1, 1, -1}, // 1-bit counter: distance 1 reads as -1 signed
		{7, 7, 3, 0, 0},
		{0x1ff, 0x0ff, 8, 0, 0}, // high bits ignored
	}
	for _, c := range cases {
		if got := WrapDiff(c.a, c.b, c.n); got != c.want {
			t.Errorf("WrapDiff(%d, %d, %d) = %d; want %d", c.a, c.b, c.n, got, c.want)
		}
		if got := WrapDiffSigned(c.a, c.b, c.n); got != c.sw {
			t.Errorf("WrapDiffSigned(%d, %d, %d) = %d; want %d", c.a, c.b, c.n, got, c.sw)
		}
	}
	if !WrapLess(250, 5, 8) || WrapLess(5, 250, 8) || WrapLess(5, 5, 8) {
		t.Errorf("WrapLess wrong around 8-bit wrap")
	}
	ts := []struct {
		aS, aN, bS, bN uint64
		bits           uint
		want           uint64
		err            string
	}{
		{10, 500, 9, 999_999_500, 32, 1000, ""},
		{0, 100, 255, 999_999_900, 8, 200, ""}, // seconds wrap at 2^8
		{3, 0, 3, 0, 8, 0, ""},
		{2, 0, 0, 1, 2, 1_999_999_999, ""},
		{0, 0, 0, 1, 2, 3_999_999_999, ""}, // b after a: wraps the 2-bit seconds
		{0, 0, 1, 0, 64, 0, "fixedpoint: TimestampDiffNs: 18446744073709551615 s + 0 ns does not fit in uint64 ns"},
		{0, 1_000_000_000, 0, 0, 8, 0, "fixedpoint: TimestampDiffNs aNs=1000000000: must be < 1000000000"},
		{256, 0, 0, 0, 8, 0, "fixedpoint: TimestampDiffNs aSec=256: must be < 2^8"},
		{0, 0, 0, 0, 0, 0, "fixedpoint: TimestampDiffNs secBits=0: must be in [1,64]"},
	}
	for _, c := range ts {
		got, err := TimestampDiffNs(c.aS, c.aN, c.bS, c.bN, c.bits)
		if (err == nil) != (c.err == "") || (err != nil && err.Error() != c.err) || got != c.want {
			t.Errorf("TimestampDiffNs(%d,%d,%d,%d,%d) = %d, %v; want %d, %q", c.aS, c.aN, c.bS, c.bN, c.bits, got, err, c.want, c.err)
		}
	}
}
