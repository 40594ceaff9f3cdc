package fixedpoint

import (
	"errors"
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

// TestCastErrors: every cast-like operation given an invalid target
// format, an undeclared mode or an operand without a format (the zero
// Value) returns the zero Value and an error naming the culprit; none of
// them returns a plausible number. Expected messages are written from the
// validation rules (docs/fixedpoint.md).
func TestCastErrors(t *testing.T) {
	s84 := MustFormat("s8.4")
	x := mustRaw(t, "s8.4", 5)
	wide := Format{W: 129, I: 0}
	for _, tc := range []struct {
		name    string
		r       opResult
		wantErr error
		want    string
	}{
		{"Cast to W=0", result("Cast")(Cast(x, Format{}, Trn, Wrap)), ErrFormat, "fixedpoint: Cast to: fixedpoint: Format W=0: must be in [1,128]: invalid format"},
		{"Cast to W=129", result("Cast")(Cast(x, wide, Trn, Wrap)), ErrFormat, "fixedpoint: Cast to: fixedpoint: Format W=129: must be in [1,128]: invalid format"},
		{"Cast to I=5000", result("Cast")(Cast(x, Format{W: 8, I: 5000}, Trn, Wrap)), ErrFormat, "fixedpoint: Cast to: fixedpoint: Format I=5000: must be in [-4096,4096]: invalid format"},
		{"Cast q", result("Cast")(Cast(x, s84, Quantization(7), Wrap)), ErrMode, "fixedpoint: Cast q=Quantization(7): invalid mode"},
		{"Cast o", result("Cast")(Cast(x, s84, Trn, Overflow(4))), ErrMode, "fixedpoint: Cast o=Overflow(4): invalid mode"},
		{"Cast parsed-bad q", result("Cast")(Cast(x, s84, badQuantization, Wrap)), ErrMode, "fixedpoint: Cast q=Quantization(255): invalid mode"},
		{"Cast zero Value", result("Cast")(Cast(Value{}, s84, Trn, Wrap)), ErrFormat, "fixedpoint: Cast x: the zero Value has no format (an ignored error?): invalid format"},
		{"MulCast to", result("MulCast")(MulCast(x, x, Format{W: 200}, Rnd, Sat)), ErrFormat, "fixedpoint: MulCast to: fixedpoint: Format W=200: must be in [1,128]: invalid format"},
		{"MulCast y zero", result("MulCast")(MulCast(x, Value{}, s84, Rnd, Sat)), ErrFormat, "fixedpoint: MulCast y: the zero Value has no format (an ignored error?): invalid format"},
		{"MulCast x zero", result("MulCast")(MulCast(Value{}, x, s84, Rnd, Sat)), ErrFormat, "fixedpoint: MulCast x: the zero Value has no format (an ignored error?): invalid format"},
		{"MulCast o", result("MulCast")(MulCast(x, x, s84, Rnd, Overflow(9))), ErrMode, "fixedpoint: MulCast o=Overflow(9): invalid mode"},
		{"AddCast to", result("AddCast")(AddCast(x, x, Format{W: -1}, Rnd, Sat)), ErrFormat, "fixedpoint: AddCast to: fixedpoint: Format W=-1: must be in [1,128]: invalid format"},
		{"AddCast q", result("AddCast")(AddCast(x, x, s84, Quantization(8), Sat)), ErrMode, "fixedpoint: AddCast q=Quantization(8): invalid mode"},
		{"SubCast y zero", result("SubCast")(SubCast(x, Value{}, s84, Rnd, Sat)), ErrFormat, "fixedpoint: SubCast y: the zero Value has no format (an ignored error?): invalid format"},
		{"SubCast to", result("SubCast")(SubCast(x, x, Format{W: 64, I: -4097}, Rnd, Sat)), ErrFormat, "fixedpoint: SubCast to: fixedpoint: Format I=-4097: must be in [-4096,4096]: invalid format"},
		{"NegCast to", result("NegCast")(NegCast(x, Format{}, Rnd, Sat)), ErrFormat, "fixedpoint: NegCast to: fixedpoint: Format W=0: must be in [1,128]: invalid format"},
		{"NegCast zero", result("NegCast")(NegCast(Value{}, s84, Rnd, Sat)), ErrFormat, "fixedpoint: NegCast x: the zero Value has no format (an ignored error?): invalid format"},
		{"DivACCast to", result("DivACCast")(DivACCast(x, x, Format{}, Trn, Sat)), ErrFormat, "fixedpoint: DivACCast to: fixedpoint: Format W=0: must be in [1,128]: invalid format"},
		{"DivACCast q", result("DivACCast")(DivACCast(x, x, s84, Quantization(200), Sat)), ErrMode, "fixedpoint: DivACCast q=Quantization(200): invalid mode"},
		{"DivACCast zero divisor", result("DivACCast")(DivACCast(x, s84.Zero(), s84, Trn, Sat)), ErrDivByZero, "fixedpoint: DivACCast x=0.3125 y=0 (s8.4): division by zero"},
		{"ScaleExp zero Value", result("ScaleExp")(ScaleExp(Value{}, 1)), ErrFormat, "fixedpoint: ScaleExp x: the zero Value has no format (an ignored error?): invalid format"},
		{"ScaleExp out of range", result("ScaleExp")(ScaleExp(x, 5000)), ErrRange, "fixedpoint: ScaleExp n=5000: I=4+5000 of s8.4 must stay in [-4096,4096]: out of range"},
		{"ScaleExp far out", result("ScaleExp")(ScaleExp(x, -1<<40)), ErrRange, "fixedpoint: ScaleExp n=-1099511627776: I=4+-1099511627776 of s8.4 must stay in [-4096,4096]: out of range"},
	} {
		if tc.r.err == nil || !errors.Is(tc.r.err, tc.wantErr) || tc.r.err.Error() != tc.want {
			t.Errorf("%s: error %v; want %q (wrapping %v)", tc.name, tc.r.err, tc.want, tc.wantErr)
		}
		if tc.r.v != (Value{}) {
			t.Errorf("%s: value %s; want the zero Value with the error", tc.name, tc.r.v.Notation())
		}
	}
	// The zero Value's notation and string say it has no format.
	if s := (Value{}).String(); !strings.Contains(s, "no format") {
		t.Errorf("Value{}.String() = %q; want it to say it has no format", s)
	}
}

// TestPlansZeroValue: a plan, whose formats and modes were validated when it
// was built, returns the zero Value (not a number) for an operand without a
// format, and the next checked operation rejects that.
func TestPlansZeroValue(t *testing.T) {
	s84 := MustFormat("s8.4")
	x := mustRaw(t, "s8.4", 5)
	c, err := NewCaster(s84, s84, Rnd, Sat)
	if err != nil {
		t.Fatal(err)
	}
	mc, err := NewMulCaster(s84, s84, s84, Rnd, Sat)
	if err != nil {
		t.Fatal(err)
	}
	ac, err := NewAddCaster(s84, s84, s84, Rnd, Sat)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		got  Value
	}{
		{"Caster.Cast", c.Cast(Value{})},
		{"MulCaster.MulCast x", mc.MulCast(Value{}, x)},
		{"MulCaster.MulCast y", mc.MulCast(x, Value{})},
		{"AddCaster.AddCast", ac.AddCast(x, Value{})},
		{"AddCaster.SubCast", ac.SubCast(Value{}, x)},
	} {
		if tc.got != (Value{}) {
			t.Errorf("%s(zero Value) = %s; want the zero Value", tc.name, tc.got.Notation())
		}
		if _, err := Cast(tc.got, s84, Trn, Sat); !errors.Is(err, ErrFormat) {
			t.Errorf("Cast(%s result) error = %v; want ErrFormat", tc.name, err)
		}
	}
}

// TestParseModes: every mode parses from its Go name, its SystemC name with
// and without the SC_ prefix and its ac_fixed name, in any case (names from
// IEEE 1666-2011 section 7.10.9 and ac_fixed's ac_q_mode/ac_o_mode); an
// unknown name gives an error naming it and a mode that is not valid.
func TestParseModes(t *testing.T) {
	for _, q := range AllQuantizations() {
		bare := q.SystemC()[3:]
		for _, s := range []string{q.String(), strings.ToUpper(q.String()), strings.ToLower(q.String()), q.SystemC(), strings.ToLower(q.SystemC()),
			bare, strings.ToLower(bare), "AC_" + bare, "ac_" + strings.ToLower(bare), "Sc_" + bare} {
			if got, err := ParseQuantization(s); err != nil || got != q {
				t.Errorf("ParseQuantization(%q) = %v, %v; want %v", s, got, err, q)
			}
		}
	}
	for _, o := range AllOverflows() {
		bare := o.SystemC()[3:]
		for _, s := range []string{o.String(), strings.ToUpper(o.String()), o.SystemC(), strings.ToLower(o.SystemC()), bare, "AC_" + bare, "ac_" + strings.ToLower(bare)} {
			if got, err := ParseOverflow(s); err != nil || got != o {
				t.Errorf("ParseOverflow(%q) = %v, %v; want %v", s, got, err, o)
			}
		}
	}
	// The case: TRN_ZERO used to fail and return Trn.
	if got, err := ParseQuantization("TRN_ZERO"); err != nil || got != TrnZero {
		t.Errorf("ParseQuantization(TRN_ZERO) = %v, %v; want TrnZero", got, err)
	}
	for _, s := range []string{"", "TRN_", "SC_", "XX_TRN", "SC_TRNZERO", "SC_SC_TRN", "AC_Trn_Zero_", "round", "SC_WRAP", "SC_TRN "} {
		got, err := ParseQuantization(s)
		if err == nil || got.Valid() || !errors.Is(err, ErrMode) || !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Errorf("ParseQuantization(%q) = %v, %v; want an invalid mode and an error naming it", s, got, err)
		}
	}
	for _, s := range []string{"", "SAT_", "SC_SATURATE", "AC_SAT_SYMM", "SC_TRN", "wrapsm", "SC_WRAP_SM"} {
		got, err := ParseOverflow(s)
		if err == nil || got.Valid() || !errors.Is(err, ErrMode) || !strings.Contains(err.Error(), `"`+s+`"`) {
			t.Errorf("ParseOverflow(%q) = %v, %v; want an invalid mode and an error naming it", s, got, err)
		}
	}
}

// TestRaw: Raw returns the raw integer only when it fits an int64; wider
// raw integers (and the zero Value) report false instead of a truncated
// number. Expected values: the raw integers written in the notation.
func TestRaw(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int64
		ok   bool
	}{
		{"s8.4:-3", -3, true},
		{"u8.0:255", 255, true},
		{"s64.0:0x8000000000000000", -1 << 63, true},
		{"u64.0:0x7fffffffffffffff", 1<<63 - 1, true},
		{"u64.0:0x8000000000000000", 0, false},   // 2^63 does not fit int64
		{"s65.0:0x10000000000000000", 0, false},  // -2^64
		{"s65.0:0x1ffffffffffffffff", -1, true},  // -1 in 65 bits
		{"s128.0:0x10000000000000000", 0, false}, // 2^64: the low 64 bits are 0
		{"u100.10:12345", 12345, true},           // a wide format with a small raw integer
	} {
		v, err := ParseValue(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := v.Raw(); got != tc.want || ok != tc.ok {
			t.Errorf("%s.Raw() = %d, %v; want %d, %v", tc.v, got, ok, tc.want, tc.ok)
		}
	}
	if got, ok := (Value{}).Raw(); got != 0 || ok {
		t.Errorf("Value{}.Raw() = %d, %v; want 0, false", got, ok)
	}
}

// TestNegWide: Neg and Abs of a 128-bit value fail with an error naming
// the one operand, its format and why, and pointing at NegCast, which
// computes the narrowed result (oracle: exact negation).
func TestNegWide(t *testing.T) {
	x, err := ParseValue("s128.10:0x80000000000000000000000000000000") // MIN
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		op   string
		f    func(Value) (Value, error)
		want string
	}{
		{"Neg", Neg, "fixedpoint: Neg x of format s128.10: the exact result needs s129.11, wider than 128 bits; use NegCast(x, to, q, o) into a format of at most 128 bits: invalid format"},
		{"Abs", Abs, "fixedpoint: Abs x of format s128.10: the exact result needs s129.11, wider than 128 bits; use Cast(x, ...) or NegCast(x, ...) by x's Sign into a format of at most 128 bits: invalid format"},
	} {
		v, err := tc.f(x)
		if err == nil || err.Error() != tc.want || !errors.Is(err, ErrFormat) || v != (Value{}) {
			t.Errorf("%s(%s) = %s, %v; want error %q", tc.op, x.Notation(), v.Notation(), err, tc.want)
		}
	}
	if _, err := NegFormat(MustFormat("u128.0")); err == nil || !strings.Contains(err.Error(), "Neg x of format u128.0") {
		t.Errorf("NegFormat(u128.0) error = %v", err)
	}
	// NegCast into s128.10 saturates -MIN to MAX (Sat), as the docs say.
	got, err := NegCast(x, MustFormat("s128.10"), Trn, Sat)
	if err != nil || got != MustFormat("s128.10").Max() {
		t.Errorf("NegCast(MIN, s128.10, Trn, Sat) = %s, %v; want MAX", got.Notation(), err)
	}
	// Neg at W = 127 still works and is exact.
	y, _ := ParseValue("s127.0:0x40000000000000000000000000000000") // MIN of s127
	n, err := Neg(y)
	if err != nil || n.Rat().Cmp(new(big.Rat).Neg(y.Rat())) != 0 || n.Format().String() != "s128.1" {
		t.Errorf("Neg(%s) = %s, %v; want %s in s128.1", y.Notation(), n.Notation(), err, new(big.Rat).Neg(y.Rat()).RatString())
	}
}

// acDivCastOracle is ac_fixed's x/y assigned to `to`, from its definition
// on exact rationals: the quotient truncated toward zero at the natural
// type's fraction bits fn = F1 + max(F2,0) - F2, then cast (oracleCast).
func acDivCastOracle(x, y Value, to Format, q Quantization, o Overflow) *big.Int {
	fn := x.fm().F() + max(y.fm().F(), 0) - y.fm().F()
	t := new(big.Rat).Quo(x.Rat(), y.Rat())
	t.Mul(t, ratPow2(fn))
	trunc := new(big.Int).Quo(t.Num(), t.Denom()) // Quo truncates toward zero
	return oracleCast(rawRat(trunc, Format{W: 1, I: 1 - fn}), to, q, o)
}

// TestDivACCast: DivACCast computes ac_fixed's quotient assigned to a
// narrow type even when DivAC's natural type exceeds 128 bits (DivAC
// refuses it and its error points to DivACCast), and equals
// Cast(DivAC(x, y), to, q, o) whenever DivAC works. Oracles: exact
// rationals (acDivCastOracle) and DivAC itself.
func TestDivACCast(t *testing.T) {
	// u100.50 / u64.0: the natural type is u164.50, which DivAC refuses.
	x, err := ParseValue("u100.50:0xbcdef0123456789abcdef0123")
	if err != nil {
		t.Fatal(err)
	}
	y, err := ParseValue("u64.0:0xfedcba9876543211")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DivAC(x, y); err == nil || !strings.Contains(err.Error(), "DivACCast(x, y, to, q, o)") {
		t.Fatalf("DivAC(u100.50, u64.0) error = %v; want a refusal pointing at DivACCast", err)
	}
	// u40.50 holds the quotient (about 8.3e14 < 2^50) with LSB 2^10, so the
	// cast rounds without saturating; u32.-10 saturates it.
	for _, to := range []Format{MustFormat("u40.50"), MustFormat("s40.50"), MustFormat("u32.-10")} {
		for _, q := range AllQuantizations() {
			for _, o := range AllOverflows() {
				got, err := DivACCast(x, y, to, q, o)
				want := acDivCastOracle(x, y, to, q, o)
				if err != nil || got.RawBig().Cmp(want) != 0 {
					t.Errorf("DivACCast(%s, %s, %s, %v, %v) = %s, %v; want raw %s", x.Notation(), y.Notation(), to, q, o, got.Notation(), err, want)
				}
				// Div (SystemC: the exact quotient quantized once) computes
				// this case too, against its own oracle.
				sc, err := Div(x, y, to, q, o)
				if want := oracleCast(new(big.Rat).Quo(x.Rat(), y.Rat()), to, q, o); err != nil || sc.RawBig().Cmp(want) != 0 {
					t.Errorf("Div(%s, %s, %s, %v, %v) = %s, %v; want raw %s", x.Notation(), y.Notation(), to, q, o, sc.Notation(), err, want)
				}
			}
		}
	}
	if v, _ := DivACCast(x, y, MustFormat("u40.50"), Rnd, Sat); v == MustFormat("u40.50").Max() || v.IsZero() {
		t.Errorf("DivACCast into u40.50 = %s: the case must not saturate", v.Notation())
	}
	// Random cases, formats of up to 128 bits (natural types up to ~256
	// bits): DivACCast against the rational oracle, and against
	// Cast(DivAC) when DivAC works.
	r := rand.New(rand.NewSource(21))
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for i := 0; i < n; i++ {
		fx, fy, ft := randFormat(r, 128), randFormat(r, 128), randFormat(r, 128)
		a, b := randValue(r, fx), randValue(r, fy)
		if b.IsZero() {
			continue
		}
		q, o := Quantization(r.Intn(7)), Overflow(r.Intn(4))
		got, err := DivACCast(a, b, ft, q, o)
		if want := acDivCastOracle(a, b, ft, q, o); err != nil || got.RawBig().Cmp(want) != 0 {
			t.Fatalf("DivACCast(%s, %s, %s, %v, %v) = %s, %v; want raw %s", a.Notation(), b.Notation(), ft, q, o, got.Notation(), err, want)
		}
		if nat, err := DivAC(a, b); err == nil {
			if two := mustV(Cast(nat, ft, q, o)); two != got {
				t.Fatalf("DivACCast(%s, %s, %s, %v, %v) = %s; Cast(DivAC) = %s", a.Notation(), b.Notation(), ft, q, o, got.Notation(), two.Notation())
			}
		}
	}
}
