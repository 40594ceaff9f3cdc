package fixedpoint

import (
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Limits on formats. MaxWidth is the widest raw integer a Value holds; the
// integer-bit count I is bounded so that every exponent arithmetic stays far
// from int overflow and exact decimal printing stays bounded. Both bounds are
// far beyond any datapath signal.
const (
	MaxWidth   = 128  // largest W, bits
	MaxIntBits = 4096 // largest |I|, bits
)

// ErrFormat is wrapped by every error about an invalid format or notation,
// and about an operand without a format (the zero Value).
var ErrFormat = errors.New("invalid format")

// ErrMode is wrapped by every error about an invalid quantization or
// overflow mode.
var ErrMode = errors.New("invalid mode")

// Format is a fixed-point number format, as ac_fixed<W,I,S> or sc_fixed<W,I>
// (signed) / sc_ufixed<W,I> (unsigned): W total bits (1..128), I integer bits
// (any value in [-4096,4096]: I may be negative or larger than W, as in
// ac_fixed), Signed selects two's complement. The fraction bit count is
// F = W - I, and a raw W-bit integer r represents the real number r * 2^-F.
//
// Notation (ParseFormat, String): "s16.8" is signed W=16 I=8, "u12.-3" is
// unsigned W=12 I=-3 (LSB weight 2^-15), "u32.40" is unsigned W=32 I=40 (LSB
// weight 2^8). The zero Format is invalid.
type Format struct {
	W      int  // total bits, 1..MaxWidth
	I      int  // integer bits (bits left of the binary point, sign included), |I| <= MaxIntBits
	Signed bool // two's complement when true, unsigned otherwise
}

// NewFormat returns the validated format (w, i, signed).
func NewFormat(w, i int, signed bool) (Format, error) {
	f := Format{W: w, I: i, Signed: signed}
	if err := f.Validate(); err != nil {
		return Format{}, err
	}
	return f, nil
}

// MustFormat parses notation such as "s16.8" and panics if it is invalid. Use
// it only on string literals in code and tests.
func MustFormat(s string) Format {
	f, err := ParseFormat(s)
	if err != nil {
		panic(err)
	}
	return f
}

// ParseFormat parses the notation "s<W>.<I>" or "u<W>.<I>" (see Format).
// Whitespace is not allowed; I may carry a leading '-' or '+'.
func ParseFormat(s string) (Format, error) {
	if len(s) < 4 || (s[0] != 's' && s[0] != 'u') {
		return Format{}, fmt.Errorf("fixedpoint: format %q: want s<W>.<I> or u<W>.<I>: %w", s, ErrFormat)
	}
	ws, is, ok := strings.Cut(s[1:], ".")
	if !ok || !isDecimal(ws, false) || !isDecimal(is, true) {
		return Format{}, fmt.Errorf("fixedpoint: format %q: want s<W>.<I> or u<W>.<I>: %w", s, ErrFormat)
	}
	w, err1 := strconv.Atoi(ws)
	i, err2 := strconv.Atoi(is)
	if err1 != nil || err2 != nil {
		return Format{}, fmt.Errorf("fixedpoint: format %q: number out of range: %w", s, ErrFormat)
	}
	f := Format{W: w, I: i, Signed: s[0] == 's'}
	if err := f.Validate(); err != nil {
		return Format{}, fmt.Errorf("fixedpoint: format %q: %w", s, err)
	}
	return f, nil
}

// isDecimal reports whether s is a non-empty run of ASCII digits, optionally
// preceded by one sign when signOK.
func isDecimal(s string, signOK bool) bool {
	if signOK && len(s) > 0 && (s[0] == '-' || s[0] == '+') {
		s = s[1:]
	}
	if s == "" || len(s) > 9 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Validate checks W in [1,128] and |I| <= 4096.
func (f Format) Validate() error {
	if f.W < 1 || f.W > MaxWidth {
		return fmt.Errorf("fixedpoint: Format W=%d: must be in [1,%d]: %w", f.W, MaxWidth, ErrFormat)
	}
	if f.I < -MaxIntBits || f.I > MaxIntBits {
		return fmt.Errorf("fixedpoint: Format I=%d: must be in [%d,%d]: %w", f.I, -MaxIntBits, MaxIntBits, ErrFormat)
	}
	return nil
}

// valid is Validate without the error value (hot paths).
func (f Format) valid() bool {
	return f.W >= 1 && f.W <= MaxWidth && f.I >= -MaxIntBits && f.I <= MaxIntBits
}

// F returns the number of fraction bits, W - I (negative when I > W).
func (f Format) F() int { return f.W - f.I }

// String returns the notation, e.g. "s16.8" or "u12.-3".
func (f Format) String() string {
	c := "u"
	if f.Signed {
		c = "s"
	}
	return c + strconv.Itoa(f.W) + "." + strconv.Itoa(f.I)
}

// MarshalText implements encoding.TextMarshaler: the notation of String
// ("u32.8"), so a Format reads and writes as a JSON string in config files.
// It never fails, even for an invalid Format (whose notation ParseFormat then
// rejects).
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler: it parses the notation
// with ParseFormat. An invalid notation is an error naming the text and
// wrapping ErrFormat, and leaves f unchanged.
func (f *Format) UnmarshalText(b []byte) error {
	v, err := ParseFormat(string(b))
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// MinRaw returns the smallest raw integer of f: -2^(W-1) signed, 0 unsigned.
// ok is false when it does not fit in an int64 (signed W > 64; use
// MinRawBig) or f is invalid.
func (f Format) MinRaw() (raw int64, ok bool) {
	if !f.valid() {
		return 0, false
	}
	if !f.Signed {
		return 0, true
	}
	if f.W > 64 {
		return 0, false
	}
	return -1 << (f.W - 1), true
}

// MaxRaw returns the largest raw integer of f: 2^(W-1)-1 signed, 2^W-1
// unsigned. ok is false when it does not fit in an int64; use MaxRawUint or
// MaxRawBig.
func (f Format) MaxRaw() (raw int64, ok bool) {
	if !f.valid() {
		return 0, false
	}
	if f.Signed {
		if f.W > 64 {
			return 0, false
		}
		return int64(uint64(1)<<(f.W-1) - 1), true
	}
	if f.W > 63 {
		return 0, false
	}
	return int64(uint64(1)<<f.W - 1), true
}

// MaxRawUint returns the largest raw integer of f as a uint64; ok is false
// when it needs more than 64 bits.
func (f Format) MaxRawUint() (raw uint64, ok bool) {
	if !f.valid() {
		return 0, false
	}
	m := f.maxMag(false)
	return m.lo, m.hi == 0
}

// MinRawBig returns the smallest raw integer of f (0 for an invalid f).
func (f Format) MinRawBig() *big.Int {
	if !f.valid() || !f.Signed {
		return new(big.Int)
	}
	return new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), uint(f.W-1)))
}

// MaxRawBig returns the largest raw integer of f (0 for an invalid f).
func (f Format) MaxRawBig() *big.Int {
	if !f.valid() {
		return new(big.Int)
	}
	return f.maxMag(false).big()
}

// maxMag returns the largest magnitude of a raw value of sign neg that fits
// in f: for positive values 2^(W-1)-1 (signed) or 2^W-1 (unsigned); for
// negative values 2^(W-1) (signed) or 0 (unsigned). f must be valid.
func (f Format) maxMag(neg bool) u128 {
	if f.Signed {
		p := pow2(uint(f.W - 1))
		if neg {
			return p
		}
		return p.sub1()
	}
	if neg {
		return u128{}
	}
	if f.W == 128 {
		return u128{^uint64(0), ^uint64(0)}
	}
	return pow2(uint(f.W)).sub1()
}

// Quantization selects how a value is rounded to the target format's LSB
// when low bits are dropped. The names and behaviour are SystemC's sc_q_mode
// (IEEE 1666-2011 section 7.10.9.1) and ac_fixed's ac_q_mode.
type Quantization uint8

// Quantization modes. "Ties" are values exactly halfway between two
// representable neighbours.
const (
	Trn       Quantization = iota // truncate toward -inf (floor): SC_TRN, AC_TRN
	TrnZero                       // truncate toward zero: SC_TRN_ZERO, AC_TRN_ZERO
	Rnd                           // round to nearest, ties toward +inf: SC_RND, AC_RND
	RndZero                       // round to nearest, ties toward zero: SC_RND_ZERO, AC_RND_ZERO
	RndInf                        // round to nearest, ties away from zero: SC_RND_INF, AC_RND_INF
	RndMinInf                     // round to nearest, ties toward -inf: SC_RND_MIN_INF, AC_RND_MIN_INF
	RndConv                       // round to nearest, ties to even LSB (convergent): SC_RND_CONV, AC_RND_CONV
	numQuantization
)

var quantizationNames = [...]string{"Trn", "TrnZero", "Rnd", "RndZero", "RndInf", "RndMinInf", "RndConv"}
var quantizationSC = [...]string{"SC_TRN", "SC_TRN_ZERO", "SC_RND", "SC_RND_ZERO", "SC_RND_INF", "SC_RND_MIN_INF", "SC_RND_CONV"}

// AllQuantizations returns every quantization mode in declaration order.
func AllQuantizations() []Quantization {
	return []Quantization{Trn, TrnZero, Rnd, RndZero, RndInf, RndMinInf, RndConv}
}

// Valid reports whether q is one of the declared modes.
func (q Quantization) Valid() bool { return q < numQuantization }

// String returns the Go name, e.g. "RndConv".
func (q Quantization) String() string {
	if q.Valid() {
		return quantizationNames[q]
	}
	return "Quantization(" + strconv.Itoa(int(q)) + ")"
}

// SystemC returns the SystemC enumerator name, e.g. "SC_RND_CONV".
func (q Quantization) SystemC() string {
	if q.Valid() {
		return quantizationSC[q]
	}
	return q.String()
}

// ParseQuantization accepts, case-insensitively, the Go name ("RndConv"),
// the SystemC name with or without its prefix ("SC_RND_CONV", "RND_CONV")
// and the ac_fixed name ("AC_RND_CONV"). On error it returns an invalid
// mode (Valid() is false), never a usable one, and the error names s.
func ParseQuantization(s string) (Quantization, error) {
	for q := Quantization(0); q < numQuantization; q++ {
		if matchMode(s, quantizationNames[q], quantizationSC[q]) {
			return q, nil
		}
	}
	return badQuantization, fmt.Errorf("fixedpoint: quantization %q: want one of %s (or SC_/AC_ names such as SC_TRN_ZERO, TRN_ZERO): %w",
		s, strings.Join(quantizationNames[:], ", "), ErrMode)
}

// badQuantization and badOverflow are what the parsers return on error:
// invalid modes, which every operation and plan rejects.
const (
	badQuantization Quantization = 0xff
	badOverflow     Overflow     = 0xff
)

// matchMode reports whether s names the mode whose Go name is goName and
// whose SystemC enumerator is sc ("SC_..."): the Go name, sc, sc without
// "SC_", or sc with "AC_" instead, case-insensitively.
func matchMode(s, goName, sc string) bool {
	bare := sc[len("SC_"):]
	if len(s) > 3 && (strings.EqualFold(s[:3], "SC_") || strings.EqualFold(s[:3], "AC_")) {
		return strings.EqualFold(s[3:], bare)
	}
	return strings.EqualFold(s, goName) || strings.EqualFold(s, bare)
}

// Overflow selects what happens when a quantized value lies outside the
// target format's range. The names and behaviour are SystemC's sc_o_mode
// with n_bits = 0 (IEEE 1666-2011 section 7.10.9.2); SC_WRAP_SM is not
// offered.
type Overflow uint8

// Overflow modes. MIN and MAX are the format's extreme values.
const (
	Wrap    Overflow = iota // keep the low W bits (two's complement wrap-around): SC_WRAP, AC_WRAP
	Sat                     // clamp to MAX or MIN: SC_SAT, AC_SAT
	SatZero                 // any overflow gives 0: SC_SAT_ZERO, AC_SAT_ZERO
	SatSym                  // range [-MAX, MAX]: clamp to MAX or -MAX, MIN itself becomes -MAX (unsigned: as Sat): SC_SAT_SYM, AC_SAT_SYM
	numOverflow
)

var overflowNames = [...]string{"Wrap", "Sat", "SatZero", "SatSym"}
var overflowSC = [...]string{"SC_WRAP", "SC_SAT", "SC_SAT_ZERO", "SC_SAT_SYM"}

// AllOverflows returns every overflow mode in declaration order.
func AllOverflows() []Overflow { return []Overflow{Wrap, Sat, SatZero, SatSym} }

// Valid reports whether o is one of the declared modes.
func (o Overflow) Valid() bool { return o < numOverflow }

// String returns the Go name, e.g. "SatSym".
func (o Overflow) String() string {
	if o.Valid() {
		return overflowNames[o]
	}
	return "Overflow(" + strconv.Itoa(int(o)) + ")"
}

// SystemC returns the SystemC enumerator name, e.g. "SC_SAT_SYM".
func (o Overflow) SystemC() string {
	if o.Valid() {
		return overflowSC[o]
	}
	return o.String()
}

// ParseOverflow accepts, case-insensitively, the Go name ("SatSym"), the
// SystemC name with or without its prefix ("SC_SAT_SYM", "SAT_SYM") and the
// ac_fixed name ("AC_SAT_SYM"). On error it returns an invalid mode (Valid()
// is false), never a usable one, and the error names s.
func ParseOverflow(s string) (Overflow, error) {
	for o := Overflow(0); o < numOverflow; o++ {
		if matchMode(s, overflowNames[o], overflowSC[o]) {
			return o, nil
		}
	}
	return badOverflow, fmt.Errorf("fixedpoint: overflow %q: want one of %s (or SC_/AC_ names such as SC_SAT_SYM, SAT_SYM): %w",
		s, strings.Join(overflowNames[:], ", "), ErrMode)
}
