package fixedpoint

import (
	"fmt"
	"math/bits"
)

// Result formats of full-precision arithmetic. They follow ac_fixed's rt
// rules (ac_fixed.h, struct rt), so every result holds the exact value:
//
//	Mul:     W = W1+W2, I = I1+I2, S = S1||S2
//	Add:     I = max(I1 + (S2&&!S1), I2 + (S1&&!S2)) + 1, F = max(F1,F2), S = S1||S2
//	Sub:     as Add but always signed
//	Neg/Abs: W+1, I+1, signed
//	DivAC:   W = W1 + max(F2,0) + S2, I = I1 + F2 + S2, S = S1||S2

// MulFormat returns the format of Mul(x, y) for operands of formats a and b.
func MulFormat(a, b Format) (Format, error) {
	return resultFormat("Mul", a, b, a.W+b.W, a.I+b.I, a.Signed || b.Signed)
}

// AddFormat returns the format of Add(x, y) for operands of formats a and b.
func AddFormat(a, b Format) (Format, error) {
	i := max(a.I+b2i(b.Signed && !a.Signed), b.I+b2i(a.Signed && !b.Signed)) + 1
	return resultFormat("Add", a, b, i+max(a.F(), b.F()), i, a.Signed || b.Signed)
}

// SubFormat returns the format of Sub(x, y) for operands of formats a and b.
func SubFormat(a, b Format) (Format, error) {
	i := max(a.I+b2i(b.Signed && !a.Signed), b.I+b2i(a.Signed && !b.Signed)) + 1
	return resultFormat("Sub", a, b, i+max(a.F(), b.F()), i, true)
}

// NegFormat returns the format of Neg(x) and Abs(x) for x of format a:
// one bit wider than a, signed. It fails when a is invalid or W = 128 (the
// result would need 129 bits).
func NegFormat(a Format) (Format, error) { return unaryFormat("Neg", a) }

// unaryFormat is NegFormat with the operation's name in the error.
func unaryFormat(op string, a Format) (Format, error) {
	f := Format{W: a.W + 1, I: a.I + 1, Signed: true}
	if a.valid() && f.valid() {
		return f, nil
	}
	if err := a.Validate(); err != nil {
		return Format{}, fmt.Errorf("fixedpoint: %s x: %w", op, err)
	}
	hint := "NegCast(x, to, q, o)"
	if op == "Abs" {
		hint = "Cast(x, ...) or NegCast(x, ...) by x's Sign"
	}
	return Format{}, fmt.Errorf("fixedpoint: %s x of format %s: the exact result needs %s, wider than %d bits; use %s into a format of at most %d bits: %w",
		op, a, f, MaxWidth, hint, MaxWidth, ErrFormat)
}

// DivACFormat returns the format of DivAC(x, y) (ac_fixed's rt::div).
func DivACFormat(a, b Format) (Format, error) {
	s := b2i(b.Signed)
	return resultFormat("DivAC", a, b, a.W+max(b.F(), 0)+s, a.I+b.F()+s, a.Signed || b.Signed)
}

func resultFormat(op string, a, b Format, w, i int, signed bool) (Format, error) {
	f := Format{W: w, I: i, Signed: signed}
	if a.valid() && b.valid() && f.valid() {
		return f, nil
	}
	if err := a.Validate(); err != nil {
		return Format{}, fmt.Errorf("fixedpoint: %s x: %w", op, err)
	}
	if err := b.Validate(); err != nil {
		return Format{}, fmt.Errorf("fixedpoint: %s y: %w", op, err)
	}
	if err := f.Validate(); err != nil {
		return Format{}, fmt.Errorf("fixedpoint: %s of %s and %s: result %s: %w", op, a, b, f, err)
	}
	return f, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Cast returns x quantized into `to` under q, then overflow-handled under o:
// the assignment of sc_fixed/ac_fixed. It fails, naming the culprit, when
// `to` is invalid, q or o is not a declared mode, or x is the zero Value
// (which has no format); it never fails otherwise. Allocation-free for
// every width.
func Cast(x Value, to Format, q Quantization, o Overflow) (Value, error) {
	if uint8(x.p) == 0 || !to.valid() || !q.Valid() || !o.Valid() {
		return Value{}, opErr("Cast", to, q, o, x)
	}
	// Everything is checked up front, so that nothing stays live across
	// the quantizer's call for an error afterwards.
	neg, hi, lo := x.negMag()
	return cast64(neg, hi, lo, x.p.frac(), to, q, o), nil
}

// MulCast returns the exact product x*y quantized once into `to` (no
// intermediate rounding). It fails as Cast does, for either operand.
// Allocation-free when both raw magnitudes fit in 64 bits (always for
// W <= 64), except that a call whose formats and modes have no plan in the
// cache may store one (at most one allocation per mulPlanReplace misses of
// a cache slot, see mulPlans); wider operands take an exact big.Int path
// with the same result.
//
// For operands of at most 64 bits, the plan that MulCaster would derive
// from the formats and modes (a pure function of them) is looked up in
// mulPlans, a fixed-size cache of immutable plans shared by all callers; a
// hit costs one hash, one load and one compare of the key more than
// MulCaster.MulCast. A miss computes the product through the 64-bit cast
// engine, as every call did before the cache, and stores the plan when its
// slot is free or has missed often. The result never depends on the cache
// (TestMulCastPlanCache).
func MulCast(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	e := mulPlans.plans[mulPlanIndex(x.p, y.p, to)].Load()
	if e == nil || e.pxy != uint64(x.p)|uint64(y.p)<<32 || e.to != to || e.q != q || e.o != o {
		return mulPlans.miss(x, y, to, q, o)
	}
	// plan64.mul written out (it is too large to inline): W <= 64, so hi
	// is the sign extension of lo.
	hi, lo := bits.Mul64((x.lo^x.hi)-x.hi, (y.lo^y.hi)-y.hi)
	neg := (x.hi ^ y.hi) >> 63
	p := &e.plan
	sp := &p.sign[neg]
	if p.right {
		hi, lo = p.round(sp, hi, lo)
		if sp.over(hi, lo) {
			return sp.sat, nil
		}
		return p.signed(neg, p.shr(hi, lo)), nil
	}
	if sp.over(hi, lo) {
		return sp.sat, nil
	}
	return p.signed(neg, lo<<(p.sh&63)), nil
}

// mulCastEngine is MulCast through the 64-bit cast engine, deriving the
// shift, bias and limits on the call (what MulCast does on a cache miss).
func mulCastEngine(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	if uint8(x.p) == 0 || uint8(y.p) == 0 || !to.valid() || !q.Valid() || !o.Valid() {
		return Value{}, opErr("MulCast", to, q, o, x, y)
	}
	// mulCast written out (one call less), everything checked up front.
	xn, xh, xl := x.negMag()
	yn, yh, yl := y.negMag()
	if xh|yh == 0 {
		hi, lo := bits.Mul64(xl, yl)
		return cast64(xn^yn, hi, lo, x.p.frac()+y.p.frac(), to, q, o), nil
	}
	return mulCastBig(x, y, to, q, o), nil
}

// mulCast is MulCast for valid operands and modes; an invalid `to` gives
// the zero Value.
func mulCast(x, y Value, to Format, q Quantization, o Overflow) Value {
	xn, xh, xl := x.negMag()
	yn, yh, yl := y.negMag()
	if xh|yh == 0 {
		hi, lo := bits.Mul64(xl, yl)
		return cast64(xn^yn, hi, lo, x.p.frac()+y.p.frac(), to, q, o)
	}
	return mulCastBig(x, y, to, q, o)
}

func mulCastBig(x, y Value, to Format, q Quantization, o Overflow) Value {
	m := x.RawBig()
	m.Mul(m, y.RawBig())
	return quantizeBig(m, x.fm().F()+y.fm().F(), to, q, o)
}

// AddCast returns the exact sum x+y quantized once into `to`. It fails as
// Cast does, for either operand. Allocation-free when both raw magnitudes
// fit in 64 bits and the fraction bit counts differ by at most 63.
func AddCast(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	return addSubCastChecked(x, y, 0, to, q, o) // inlined: one call, as addSubCast
}

// SubCast returns the exact difference x-y quantized once into `to`. It
// fails as Cast does, for either operand.
func SubCast(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	return addSubCastChecked(x, y, 1, to, q, o) // inlined: one call, as addSubCast
}

// addSubCastChecked is AddCast (sub = 0) or SubCast (sub = 1): addSubCast
// with everything checked up front.
func addSubCastChecked(x, y Value, sub uint64, to Format, q Quantization, o Overflow) (Value, error) {
	if uint8(x.p) == 0 || uint8(y.p) == 0 || !to.valid() || !q.Valid() || !o.Valid() {
		return Value{}, opErr([2]string{"AddCast", "SubCast"}[sub&1], to, q, o, x, y)
	}
	ex, ey := x.p.frac(), y.p.frac()
	e := max(ex, ey)
	if int(uint8(x.p))+e-ex <= 62 && int(uint8(y.p))+e-ey <= 62 { // addSubCast's int64 path
		a := int64(x.lo) << uint(e-ex)
		b := int64(y.lo) << uint(e-ey)
		r := uint64(a + (b ^ -int64(sub) + int64(sub)))
		neg := r >> 63
		return cast64(neg, 0, (r^-neg)+neg, e, to, q, o), nil
	}
	xn, xh, xl := x.negMag()
	yn, yh, yl := y.negMag()
	return addCast(xn, xh, xl, ex, yn^sub, yh, yl, ey, to, q, o), nil
}

// addSubCast returns x+y (sub = 0) or x-y (sub = 1) quantized into `to`.
// When both operands, aligned to the larger fraction count, stay below
// 2^62 in magnitude, the exact result is formed in int64 (it cannot
// overflow); otherwise in 128-bit sign-magnitude (addCast).
func addSubCast(x, y Value, sub uint64, to Format, q Quantization, o Overflow) Value {
	ex, ey := x.p.frac(), y.p.frac()
	e := max(ex, ey)
	if int(uint8(x.p))+e-ex <= 62 && int(uint8(y.p))+e-ey <= 62 {
		// W <= 62: lo is the raw integer sign- or zero-extended to 64 bits.
		a := int64(x.lo) << uint(e-ex)
		b := int64(y.lo) << uint(e-ey)
		r := uint64(a + (b ^ -int64(sub) + int64(sub))) // a + b or a - b, |r| < 2^63
		neg := r >> 63
		return cast64(neg, 0, (r^-neg)+neg, e, to, q, o)
	}
	xn, xh, xl := x.negMag()
	yn, yh, yl := y.negMag()
	return addCast(xn, xh, xl, ex, yn^sub, yh, yl, ey, to, q, o)
}

// addCast returns (±x) + (±y) quantized into `to`, for magnitudes xh:xl
// and yh:yl with exponents ex and ey (value = ±m * 2^-e) and signs xn, yn
// (0 or 1).
func addCast(xn, xh, xl uint64, ex int, yn, yh, yl uint64, ey int, to Format, q Quantization, o Overflow) Value {
	if d := ex - ey; xh|yh == 0 && uint(d+63) <= 126 {
		// Align both to the larger exponent (each stays below 2^127).
		e := ex
		if d >= 0 {
			t := uint(d) & 63
			yh, yl = yl>>1>>(63-t), yl<<t // lo>>1>>(63-t) is lo>>(64-t), and 0 for t = 0
		} else {
			t := uint(-d) & 63
			xh, xl = xl>>1>>(63-t), xl<<t
			e = ey
		}
		// Signed add without branches on the data: y is negated in 128-bit
		// two's complement when the signs differ; the sum is then exact
		// (same signs: below 2^128; different signs: |sum| < 2^127), and
		// its sign, when the signs differ, is its top bit.
		diff := xn ^ yn
		m := -diff
		yl, c := bits.Add64(yl^m, diff, 0)
		yh = yh ^ m + c
		sl, c := bits.Add64(xl, yl, 0)
		sh := xh + yh + c
		sg := sh >> 63 & diff
		m = -sg
		sl, c = bits.Add64(sl^m, sg, 0)
		sh = sh ^ m + c
		return cast64(xn^sg, sh, sl, e, to, q, o)
	}
	xm, ym := u128{xh, xl}, u128{yh, yl}
	switch {
	case ym.isZero():
		return cast64(xn, xh, xl, ex, to, q, o)
	case xm.isZero():
		return cast64(yn, yh, yl, ey, to, q, o)
	}
	return addCastBig(xn != 0, xm, ex, yn != 0, ym, ey, to, q, o)
}

func addCastBig(xn bool, xm u128, ex int, yn bool, ym u128, ey int, to Format, q Quantization, o Overflow) Value {
	e := max(ex, ey)
	a := xm.big()
	a.Lsh(a, uint(e-ex))
	if xn {
		a.Neg(a)
	}
	b := ym.big()
	b.Lsh(b, uint(e-ey))
	if yn {
		b.Neg(b)
	}
	return quantizeBig(a.Add(a, b), e, to, q, o)
}

// opErr is the error of a cast-like operation op: it names the first
// operand without a format, then an invalid `to`, q or o. It is called only
// when one of them is invalid.
func opErr(op string, to Format, q Quantization, o Overflow, xs ...Value) error {
	for i, x := range xs {
		if uint8(x.p) == 0 {
			return fmt.Errorf("fixedpoint: %s %s: the zero Value has no format (an ignored error?): %w", op, operandName(i, len(xs)), ErrFormat)
		}
	}
	if err := to.Validate(); err != nil {
		return fmt.Errorf("fixedpoint: %s to: %w", op, err)
	}
	if !q.Valid() {
		return fmt.Errorf("fixedpoint: %s q=%s: %w", op, q, ErrMode)
	}
	if !o.Valid() {
		return fmt.Errorf("fixedpoint: %s o=%s: %w", op, o, ErrMode)
	}
	return fmt.Errorf("fixedpoint: %s: invalid operands", op) // unreachable for the callers' conditions
}

// operandName is "x" for a unary operation, else "x" or "y".
func operandName(i, n int) string {
	if i == 1 && n == 2 {
		return "y"
	}
	return "x"
}

// Add returns x+y exactly, in AddFormat(x, y). It fails only for invalid
// operands or a result wider than 128 bits.
func Add(x, y Value) (Value, error) {
	f, err := AddFormat(x.fm(), y.fm())
	if err != nil {
		return Value{}, err
	}
	if f.W <= 64 {
		return exact64(x.lo<<uint(f.F()-x.p.frac())+y.lo<<uint(f.F()-y.p.frac()), f), nil
	}
	return addSubCast(x, y, 0, f, Trn, Wrap), nil
}

// Sub returns x-y exactly, in SubFormat(x, y).
func Sub(x, y Value) (Value, error) {
	f, err := SubFormat(x.fm(), y.fm())
	if err != nil {
		return Value{}, err
	}
	if f.W <= 64 {
		return exact64(x.lo<<uint(f.F()-x.p.frac())-y.lo<<uint(f.F()-y.p.frac()), f), nil
	}
	return addSubCast(x, y, 1, f, Trn, Wrap), nil
}

// Mul returns x*y exactly, in MulFormat(x, y).
func Mul(x, y Value) (Value, error) {
	f, err := MulFormat(x.fm(), y.fm())
	if err != nil {
		return Value{}, err
	}
	if f.W <= 64 {
		return exact64(x.lo*y.lo, f), nil
	}
	return mulCast(x, y, f, Trn, Wrap), nil
}

// exact64 returns the value of f (W <= 64) whose raw integer has the 64-bit
// two's complement pattern r. Add, Sub and Mul use it when their result
// format fits 64 bits: the operands are then narrower, their raw patterns
// (lo, sign-extended to 64 bits) aligned to the result's fraction bits
// combine exactly modulo 2^64, and the result format holds the exact
// result, so r is its raw integer (sign-extended when f is signed).
func exact64(r uint64, f Format) Value {
	if f.Signed {
		return Value{lo: r, hi: uint64(int64(r) >> 63), p: pack(f)}
	}
	return Value{lo: r, p: pack(f)}
}

// Neg returns -x exactly, in NegFormat(x) (one bit wider, signed, so that
// -MIN fits).
func Neg(x Value) (Value, error) {
	f, err := unaryFormat("Neg", x.fm())
	if err != nil {
		return Value{}, err
	}
	neg, hi, lo := x.negMag()
	return cast64(neg^1, hi, lo, x.p.frac(), f, Trn, Wrap), nil
}

// Abs returns |x| exactly, in NegFormat(x) (as ac_fixed's abs()).
func Abs(x Value) (Value, error) {
	f, err := unaryFormat("Abs", x.fm())
	if err != nil {
		return Value{}, err
	}
	_, hi, lo := x.negMag()
	return cast64(0, hi, lo, x.p.frac(), f, Trn, Wrap), nil
}

// NegCast returns -x quantized into `to` (the SystemC expression
// `to_type t = -x`): e.g. -MIN saturates under Sat. It fails as Cast does.
func NegCast(x Value, to Format, q Quantization, o Overflow) (Value, error) {
	if uint8(x.p) == 0 || !to.valid() || !q.Valid() || !o.Valid() {
		return Value{}, opErr("NegCast", to, q, o, x)
	}
	neg, hi, lo := x.negMag()
	return cast64(neg^1, hi, lo, x.p.frac(), to, q, o), nil // -0 is 0 under every mode
}

// Cmp compares the real values of x and y exactly, across any formats: -1 if
// x < y, 0 if equal, +1 if x > y. Allocation-free.
func Cmp(x, y Value) int {
	xs, ys := x.Sign(), y.Sign()
	if xs != ys || xs == 0 {
		switch {
		case xs < ys:
			return -1
		case xs > ys:
			return 1
		}
		return 0
	}
	_, xm := x.signMag()
	_, ym := y.signMag()
	c := cmpMag(xm, x.fm().F(), ym, y.fm().F())
	if xs < 0 {
		return -c
	}
	return c
}

// cmpMag compares a*2^-ea with b*2^-eb for non-zero magnitudes a and b.
func cmpMag(a u128, ea int, b u128, eb int) int {
	ta, tb := a.bitLen()-ea, b.bitLen()-eb // position of the leading one
	switch {
	case ta < tb:
		return -1
	case ta > tb:
		return 1
	}
	// Same leading position: aligning the smaller-exponent one keeps it
	// within its partner's bit length (<= 128 bits).
	if ea > eb {
		b = b.shl(uint(ea - eb))
	} else {
		a = a.shl(uint(eb - ea))
	}
	return a.cmp(b)
}

// Equal reports whether x and y have the same real value (formats may
// differ). Use == to compare format and bits.
func Equal(x, y Value) bool { return Cmp(x, y) == 0 }

// Min returns the smaller of x and y by real value, in its own format; x
// when they are equal.
func Min(x, y Value) Value {
	if Cmp(y, x) < 0 {
		return y
	}
	return x
}

// Max returns the larger of x and y by real value, in its own format; x
// when they are equal.
func Max(x, y Value) Value {
	if Cmp(y, x) > 0 {
		return y
	}
	return x
}

// checkShift validates a shift amount against x's width.
func checkShift(op string, x Value, n int) error {
	if err := x.fm().Validate(); err != nil {
		return fmt.Errorf("fixedpoint: %s x: %w", op, err)
	}
	if n < 0 || n > x.fm().W {
		return fmt.Errorf("fixedpoint: %s n=%d: must be in [0,%d] for %s: %w", op, n, x.fm().W, x.fm(), ErrRange)
	}
	return nil
}

// Shl shifts the raw bits of x left by n in [0,W], keeping x's format: the
// sc_fixed statement `x <<= n` with quantization Trn and overflow Wrap
// (bits shifted out of the top are lost; the sign may change).
func Shl(x Value, n int) (Value, error) {
	if err := checkShift("Shl", x, n); err != nil {
		return Value{}, err
	}
	return mkValue(x.fm(), x.raw().shl(uint(n)).extend(uint(x.fm().W), x.fm().Signed)), nil
}

// Shr shifts the raw bits of x right by n in [0,W], arithmetically (the sign
// bit is replicated for signed formats), keeping x's format: `x >>= n`
// with quantization Trn (floor) in sc_fixed.
func Shr(x Value, n int) (Value, error) {
	if err := checkShift("Shr", x, n); err != nil {
		return Value{}, err
	}
	if x.fm().Signed {
		return mkValue(x.fm(), x.raw().sar(uint(n))), nil
	}
	return mkValue(x.fm(), x.raw().shr(uint(n))), nil
}

// ShrLogical shifts the raw W-bit pattern of x right by n in [0,W], filling
// with zeros, keeping x's format (for signed formats a negative value becomes
// positive when n >= 1).
func ShrLogical(x Value, n int) (Value, error) {
	if err := checkShift("ShrLogical", x, n); err != nil {
		return Value{}, err
	}
	w := uint(x.fm().W)
	return mkValue(x.fm(), x.raw().and(mask(w)).shr(uint(n)).extend(w, x.fm().Signed)), nil
}

// ScaleExp returns x * 2^n by moving the binary point: the format's I grows
// by n, the raw bits are unchanged, nothing is lost. It fails when x is the
// zero Value or I+n leaves [-MaxIntBits, MaxIntBits].
func ScaleExp(x Value, n int) (Value, error) {
	f := x.fm()
	if !x.p.ok() {
		return Value{}, opErr("ScaleExp", f, Trn, Wrap, x)
	}
	if n < -2*MaxIntBits || n > 2*MaxIntBits || !(Format{W: f.W, I: f.I + n, Signed: f.Signed}).valid() {
		return Value{}, fmt.Errorf("fixedpoint: ScaleExp n=%d: I=%d+%d of %s must stay in [%d,%d]: %w", n, f.I, n, f, -MaxIntBits, MaxIntBits, ErrRange)
	}
	f.I += n
	return mkValue(f, x.raw()), nil
}

// CLZ counts leading zeros of the raw W-bit pattern for unsigned formats and
// redundant sign bits (leading bits equal to the sign bit, minus one) for
// signed formats: the left shift that normalizes x. CLZ of 0 is W (unsigned)
// or W-1 (signed); of an invalid Value, 0.
func CLZ(x Value) int {
	if !x.fm().valid() {
		return 0
	}
	if !x.fm().Signed {
		return x.fm().W - x.raw().bitLen()
	}
	r := x.raw()
	if int64(r.hi) < 0 {
		r = r.not()
	}
	return x.fm().W - 1 - r.bitLen()
}

// Normalize shifts x left by CLZ(x) in its own format, so that the MSB of an
// unsigned value is set (a signed value's bit W-2 differs from its sign
// bit), and returns the shift. No bits are lost. Zero returns zero and W
// (unsigned) or W-1 (signed).
func Normalize(x Value) (Value, int) {
	n := CLZ(x)
	if !x.fm().valid() {
		return x, 0
	}
	return mkValue(x.fm(), x.raw().shl(uint(n))), n
}

// Div returns the exact quotient x/y quantized once into `to` under q and o:
// SystemC semantics (the sc_fxval quotient assigned to an sc_fixed, with
// unlimited division precision). It fails when y is 0 or a format is
// invalid. Allocation-free when |raw x| scaled fits in 128 bits and |raw y|
// scaled in 64; otherwise exact big.Int arithmetic.
func Div(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	if err := x.fm().Validate(); err != nil {
		return Value{}, fmt.Errorf("fixedpoint: Div x: %w", err)
	}
	if err := y.fm().Validate(); err != nil {
		return Value{}, fmt.Errorf("fixedpoint: Div y: %w", err)
	}
	if err := to.Validate(); err != nil {
		return Value{}, fmt.Errorf("fixedpoint: Div to: %w", err)
	}
	if y.IsZero() {
		return Value{}, fmt.Errorf("fixedpoint: Div x=%s y=0 (%s): %w", x, y.fm(), ErrDivByZero)
	}
	xn, xm := x.signMag()
	yn, ym := y.signMag()
	// raw quotient = xm * 2^k / ym, k = Fto + Fy - Fx
	k := to.F() + y.fm().F() - x.fm().F()
	if mag, res, ok := quo128(xm, ym, k); ok {
		return finish(xn != yn, mag, false, res, to, q, o), nil
	}
	mag, huge, res := quotientBig(xm.big(), ym.big(), k)
	return finish(xn != yn, mag, huge, res, to, q, o), nil
}

// quo128 computes floor(a*2^k / b) and its residue when a*2^k fits in 128
// bits and b*2^-k (k<0) fits in 64 bits; ok is false otherwise.
func quo128(a, b u128, k int) (u128, residue, bool) {
	if k >= 0 {
		if k >= 128 || a.bitLen()+k > 128 {
			return u128{}, 0, false
		}
		a = a.shl(uint(k))
	} else {
		if -k >= 64 || b.bitLen()-k > 64 {
			return u128{}, 0, false
		}
		b = b.shl(uint(-k))
	}
	if b.hi != 0 {
		return u128{}, 0, false
	}
	d := b.lo
	qhi, r := a.hi/d, a.hi%d
	qlo, r := bitsDiv64(r, a.lo, d)
	res := resExact
	if r != 0 {
		switch h := d - r; { // compare r with d/2 as 2r vs d without overflow
		case r < h:
			res = resLow
		case r == h:
			res = resHalf
		default:
			res = resHigh
		}
	}
	return u128{qhi, qlo}, res, true
}

// DivAC returns x/y as ac_fixed's operator/ computes it: the quotient
// truncated toward zero into DivACFormat(x, y) (F = F1 + max(F2,0) - F2),
// which always holds it. Assigning that to a narrower ac_fixed quantizes a
// second time: Cast(DivAC(x,y), to, q, o), which DivACCast computes in one
// call. DivAC fails when DivACFormat is wider than 128 bits; DivACCast then
// still gives ac_fixed's narrow result, and Div gives SystemC's. See
// docs/fixedpoint.md for where this differs from Div (SystemC).
func DivAC(x, y Value) (Value, error) {
	f, err := DivACFormat(x.fm(), y.fm())
	if err != nil {
		if x.fm().valid() && y.fm().valid() {
			return Value{}, fmt.Errorf("%w; DivACCast(x, y, to, q, o) gives the quotient assigned to a narrower type without this intermediate", err)
		}
		return Value{}, err
	}
	v, err := Div(x, y, f, TrnZero, Wrap)
	if err != nil {
		return Value{}, fmt.Errorf("fixedpoint: DivAC: %w", err)
	}
	return v, nil
}

// DivACCast returns ac_fixed's quotient x/y assigned to `to`: the quotient
// truncated toward zero at DivACFormat(x, y)'s fraction bits (as DivAC),
// then quantized under q and overflow-handled under o into `to`, which is
// Cast(DivAC(x, y), to, q, o) bit for bit, but without forming DivAC's
// natural type, so it also works when that type would be wider than 128
// bits. (Div quantizes the exact quotient once instead: SystemC.) It fails
// for a zero divisor (wrapping ErrDivByZero), an operand without a format,
// an invalid `to`, q or o.
func DivACCast(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	if uint8(x.p) == 0 || uint8(y.p) == 0 || !to.valid() || !q.Valid() || !o.Valid() {
		return Value{}, opErr("DivACCast", to, q, o, x, y)
	}
	if y.IsZero() {
		return Value{}, fmt.Errorf("fixedpoint: DivACCast x=%s y=0 (%s): %w", x, y.fm(), ErrDivByZero)
	}
	xn, xm := x.signMag()
	yn, ym := y.signMag()
	// The natural type's fraction bits fn = F1 + max(F2,0) - F2, so the raw
	// quotient at fn bits is xm * 2^k / ym with k = fn + F2 - F1 = max(F2,0).
	f1, f2 := x.fm().F(), y.fm().F()
	k := max(f2, 0)
	fn := f1 + k - f2
	neg := xn != yn
	if mag, _, ok := quo128(xm, ym, k); ok {
		return quantize(neg, mag, fn, to, q, o), nil // the truncation toward zero is the floor of the magnitude
	}
	num := xm.big()
	num.Lsh(num, uint(k))
	num.Quo(num, ym.big()) // truncates toward zero (magnitudes)
	if neg {
		num.Neg(num)
	}
	return quantizeBig(num, fn, to, q, o), nil
}
