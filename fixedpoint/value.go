package fixedpoint

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strings"
)

// Value is a fixed-point number: a Format plus a raw two's-complement (or
// unsigned) integer r, representing r * 2^-F. Values are immutable, compare
// with == (same format and same raw bits), and never allocate for any width.
// The zero Value has no format (the invalid zero Format): it is the only
// Value without a valid format, every operation that returns an error
// rejects it as an operand, and a plan given it returns it.
type Value struct {
	lo, hi uint64 // raw W-bit pattern, sign-extended (signed) or zero-extended (unsigned) to 128 bits
	p      pfmt   // the format, packed so a Value travels in three registers
}

// pfmt is a Format packed into 32 bits: W in bits 0-7, Signed in bit 8, I
// (as int16) in bits 16-31. The zero pfmt is the zero (invalid) Format.
type pfmt uint32

func pack(f Format) pfmt {
	s := pfmt(0)
	if f.Signed {
		s = 1 << 8
	}
	return pfmt(uint8(f.W)) | s | pfmt(uint16(int16(f.I)))<<16
}

func (p pfmt) format() Format {
	return Format{W: int(uint8(p)), I: int(int16(p >> 16)), Signed: p&(1<<8) != 0}
}

// mkValue builds a Value; f must be valid or the zero Format.
func mkValue(f Format, r u128) Value { return Value{lo: r.lo, hi: r.hi, p: pack(f)} }

// ok reports whether p is a valid format. Every Value is built from a
// validated format or is the zero Value, so W in [1,128] is the whole test.
func (p pfmt) ok() bool { return uint8(p)-1 < MaxWidth }

// frac returns the fraction bits W-I of the packed format.
func (p pfmt) frac() int { return int(uint8(p)) - int(int16(p>>16)) }

// fm returns v's format.
func (v Value) fm() Format { return v.p.format() }

// raw returns v's raw 128-bit pattern.
func (v Value) raw() u128 { return u128{v.hi, v.lo} }

// ErrRange is wrapped by errors about a raw integer or real number that a
// format cannot hold.
var ErrRange = errors.New("out of range")

// ErrDivByZero is wrapped by the error of a division by zero.
var ErrDivByZero = errors.New("division by zero")

// minValue returns MIN of f (valid f).
func (f Format) minValue() Value {
	if !f.Signed {
		return mkValue(f, u128{})
	}
	return mkValue(f, f.maxMag(true).neg())
}

// maxValue returns MAX of f (valid f).
func (f Format) maxValue() Value { return mkValue(f, f.maxMag(false)) }

// Min returns the most negative value of f (0 when unsigned); the zero Value
// when f is invalid.
func (f Format) Min() Value {
	if !f.valid() {
		return Value{}
	}
	return f.minValue()
}

// Max returns the largest value of f; the zero Value when f is invalid.
func (f Format) Max() Value {
	if !f.valid() {
		return Value{}
	}
	return f.maxValue()
}

// Zero returns 0 in f; the zero Value (no format) when f is invalid.
func (f Format) Zero() Value {
	if !f.valid() {
		return Value{}
	}
	return mkValue(f, u128{})
}

// LSB returns the value of one unit in the last place (raw 1): 2^-F. It is
// not representable when f is signed with W=1; then LSB returns 0 in f and
// ok false. An invalid f gives the zero Value (no format) and false.
func (f Format) LSB() (v Value, ok bool) {
	if !f.valid() {
		return Value{}, false
	}
	if f.Signed && f.W == 1 {
		return mkValue(f, u128{}), false
	}
	return mkValue(f, u128{0, 1}), true
}

// FromRaw returns the value with raw integer raw in f. It fails when f is
// invalid or raw is outside [MinRaw, MaxRaw].
func FromRaw(f Format, raw int64) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	r := u128{uint64(raw >> 63), uint64(raw)}
	neg := raw < 0
	mag := r
	if neg {
		mag = r.neg()
	}
	if mag.cmp(f.maxMag(neg)) > 0 {
		return Value{}, fmt.Errorf("fixedpoint: FromRaw raw=%d: outside %s range [%s, %s]: %w", raw, f, f.MinRawBig(), f.MaxRawBig(), ErrRange)
	}
	return mkValue(f, r), nil
}

// FromUint returns the value with non-negative raw integer raw in f (use it
// for unsigned formats of 64 bits). It fails when raw > MaxRaw.
func FromUint(f Format, raw uint64) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	r := u128{0, raw}
	if r.cmp(f.maxMag(false)) > 0 {
		return Value{}, fmt.Errorf("fixedpoint: FromUint raw=%d: above %s MaxRaw %s: %w", raw, f, f.MaxRawBig(), ErrRange)
	}
	return mkValue(f, r), nil
}

// FromBits reads the low W bits of the 128-bit pattern hi:lo as a raw value
// of f (bits above W are ignored; signed formats sign-extend bit W-1). Use it
// to decode hardware words.
func FromBits(f Format, hi, lo uint64) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	return mkValue(f, u128{hi, lo}.extend(uint(f.W), f.Signed)), nil
}

// FromBits64 is FromBits with a 64-bit pattern (hi = 0).
func FromBits64(f Format, bits uint64) (Value, error) { return FromBits(f, 0, bits) }

// FromBig returns the value with raw integer raw in f; it fails when raw is
// outside [MinRaw, MaxRaw].
func FromBig(f Format, raw *big.Int) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	mag, huge := u128FromBig(raw)
	neg := raw.Sign() < 0
	if huge || mag.cmp(f.maxMag(neg)) > 0 {
		return Value{}, fmt.Errorf("fixedpoint: FromBig raw=%s: outside %s range [%s, %s]: %w", raw, f, f.MinRawBig(), f.MaxRawBig(), ErrRange)
	}
	if neg {
		mag = mag.neg()
	}
	return mkValue(f, mag), nil
}

// FromInt returns the integer n in f, applying overflow mode o when n is
// outside f's range. It fails when f is invalid or when n is not a multiple
// of f's LSB (possible only when F < 0): integer constants are never rounded
// silently.
func FromInt(f Format, n int64, o Overflow) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	neg := n < 0
	mag := uint64(n)
	if neg {
		mag = -mag
	}
	if fb := f.F(); fb < 0 && mag != 0 && (-fb >= 64 || bits.TrailingZeros64(mag) < -fb) {
		return Value{}, fmt.Errorf("fixedpoint: FromInt n=%d: not a multiple of %s's LSB 2^%d: %w", n, f, -fb, ErrRange)
	}
	return quantize(neg, u128{0, mag}, 0, f, Trn, o), nil
}

// FromRat returns the exact rational r quantized into f under q and o.
func FromRat(f Format, r *big.Rat, q Quantization, o Overflow) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	if r == nil {
		return Value{}, fmt.Errorf("fixedpoint: FromRat r=nil")
	}
	var a big.Int
	a.Abs(r.Num())
	mag, huge, res := quotientBig(&a, r.Denom(), f.F())
	return finish(r.Sign() < 0, mag, huge, res, f, q, o), nil
}

// FromFloat returns the float64 x (taken exactly) quantized into f under q
// and o. It is for display, tests and reference models; datapaths use
// FromRaw/FromBits. NaN and infinities are errors.
func FromFloat(f Format, x float64, q Quantization, o Overflow) (Value, error) {
	if err := f.Validate(); err != nil {
		return Value{}, err
	}
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Value{}, fmt.Errorf("fixedpoint: FromFloat x=%v: not a finite number: %w", x, ErrRange)
	}
	frac, exp := math.Frexp(math.Abs(x)) // |x| = frac * 2^exp, frac in [0.5,1)
	mant := uint64(math.Ldexp(frac, 53)) // exact: 53-bit integer
	return quantize(math.Signbit(x) && x != 0, u128{0, mant}, 53-exp, f, q, o), nil
}

// Format returns v's format.
func (v Value) Format() Format { return v.fm() }

// Raw returns the raw integer and true when it fits an int64 (always for
// W <= 63 and for signed W = 64). Otherwise, for a wider raw integer or the
// zero Value (no format), it returns 0 and false: use RawBig, Bits or
// RawUint (the low 64 bits of the pattern) for those.
func (v Value) Raw() (raw int64, ok bool) {
	if !v.p.ok() || v.hi != uint64(int64(v.lo)>>63) {
		return 0, false
	}
	return int64(v.lo), true
}

// RawUint returns the raw bits as an unsigned integer: the low min(W,64)
// bits of the raw pattern (two's complement for negative values).
func (v Value) RawUint() uint64 {
	if v.fm().W >= 64 || v.fm().W < 1 {
		return v.raw().lo
	}
	return v.raw().lo & (1<<v.fm().W - 1)
}

// Bits returns the raw W-bit pattern as hi:lo (bits above W are zero).
func (v Value) Bits() (hi, lo uint64) {
	if v.fm().W < 1 {
		return 0, 0
	}
	b := v.raw().and(mask(uint(v.fm().W)))
	return b.hi, b.lo
}

// RawBig returns the raw integer.
func (v Value) RawBig() *big.Int {
	neg, mag := v.signMag()
	z := mag.big()
	if neg {
		z.Neg(z)
	}
	return z
}

// Rat returns the exact real value raw * 2^-F.
func (v Value) Rat() *big.Rat {
	r := new(big.Rat).SetInt(v.RawBig())
	p := new(big.Int).Lsh(big.NewInt(1), uint(abs(v.fm().F())))
	if v.fm().F() >= 0 {
		return r.Quo(r, new(big.Rat).SetInt(p))
	}
	return r.Mul(r, new(big.Rat).SetInt(p))
}

// Float64 returns the nearest float64 to v (display and reference models
// only).
func (v Value) Float64() float64 {
	neg, mag := v.signMag()
	if mag.hi == 0 && mag.lo < 1<<53 {
		x := math.Ldexp(float64(mag.lo), -v.fm().F())
		if neg {
			x = -x
		}
		return x
	}
	x, _ := v.Rat().Float64()
	return x
}

// Sign returns -1, 0 or +1.
func (v Value) Sign() int {
	neg, mag := v.signMag()
	switch {
	case neg:
		return -1
	case mag.isZero():
		return 0
	}
	return 1
}

// IsZero reports whether v's real value is 0.
func (v Value) IsZero() bool { return v.raw().isZero() }

// String returns the exact real value in decimal, e.g. "-1.5" or "0.0625";
// every binary fraction has a finite decimal expansion, so nothing is
// rounded. The zero Value, which is not a number, prints as
// "(no format)".
func (v Value) String() string {
	if !v.p.ok() {
		return "(no format)"
	}
	neg, mag := v.signMag()
	n := mag.big()
	fb := v.fm().F()
	var s string
	if fb <= 0 {
		s = n.Lsh(n, uint(-fb)).String()
	} else {
		// mag * 2^-F = mag * 5^F / 10^F
		n.Mul(n, new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(fb)), nil))
		digits := n.String()
		if len(digits) <= fb {
			digits = strings.Repeat("0", fb-len(digits)+1) + digits
		}
		ip, fp := digits[:len(digits)-fb], strings.TrimRight(digits[len(digits)-fb:], "0")
		s = ip
		if fp != "" {
			s += "." + fp
		}
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Hex returns the raw W-bit pattern as ceil(W/4) lowercase hex digits, most
// significant first, without prefix: the form $readmemh reads.
func (v Value) Hex() string {
	hi, lo := v.Bits()
	n := (v.fm().W + 3) / 4
	if n < 1 {
		n = 1
	}
	s := fmt.Sprintf("%016x%016x", hi, lo)
	return s[32-n:]
}

// Notation returns "<format>:0x<hex>", e.g. "s16.8:0xfe80", which
// ParseValue reads back.
func (v Value) Notation() string { return v.fm().String() + ":0x" + v.Hex() }

// GoString returns Notation, so %#v prints the bits.
func (v Value) GoString() string { return v.Notation() }

// ParseValue reads a value in one of three notations:
//
//	s16.8:0xfe80   raw bit pattern in hex (at most W bits; sign from bit W-1)
//	s16.8:-384     raw integer in decimal (must be in range)
//	s16.8=-1.5     exact real value in decimal (must be representable)
func ParseValue(s string) (Value, error) {
	i := strings.IndexAny(s, ":=")
	if i < 0 {
		return Value{}, fmt.Errorf("fixedpoint: value %q: want <format>:<raw> or <format>=<real>", s)
	}
	f, err := ParseFormat(s[:i])
	if err != nil {
		return Value{}, fmt.Errorf("fixedpoint: value %q: %w", s, err)
	}
	body := s[i+1:]
	if s[i] == '=' {
		r, ok := new(big.Rat).SetString(body)
		if !ok || strings.ContainsAny(body, "/eEpP") {
			return Value{}, fmt.Errorf("fixedpoint: value %q: real %q: want a decimal number", s, body)
		}
		v, _ := FromRat(f, r, Trn, Wrap)
		if v.Rat().Cmp(r) != 0 {
			return Value{}, fmt.Errorf("fixedpoint: value %q: %s is not exactly representable in %s: %w", s, body, f, ErrRange)
		}
		return v, nil
	}
	if h, ok := strings.CutPrefix(body, "0x"); ok {
		n, ok := new(big.Int).SetString(h, 16)
		if !ok || strings.HasPrefix(h, "-") || strings.HasPrefix(h, "+") || n.BitLen() > f.W {
			return Value{}, fmt.Errorf("fixedpoint: value %q: hex %q: want at most %d bits of hex digits", s, h, f.W)
		}
		lo, _ := u128FromBig(n)
		return mkValue(f, lo.extend(uint(f.W), f.Signed)), nil
	}
	n, ok := new(big.Int).SetString(body, 10)
	if !ok {
		return Value{}, fmt.Errorf("fixedpoint: value %q: raw %q: want a decimal integer or 0x hex", s, body)
	}
	v, err := FromBig(f, n)
	if err != nil {
		return Value{}, fmt.Errorf("fixedpoint: value %q: %w", s, err)
	}
	return v, nil
}

// signMag returns the sign and magnitude of the raw integer.
func (v Value) signMag() (neg bool, mag u128) {
	if v.p&(1<<8) != 0 && int64(v.hi) < 0 {
		return true, v.raw().neg()
	}
	return false, v.raw()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// negMag returns the sign (1 when negative) and the magnitude hi:lo of the
// raw integer, without branches on the data.
func (v Value) negMag() (neg, hi, lo uint64) {
	neg = v.hi >> 63 & uint64(v.p>>8) & 1
	m := -neg
	lo, c := bits.Add64(v.lo^m, neg, 0)
	return neg, v.hi ^ m + c, lo
}
