package fixedpoint

import "fmt"

// MaxDividerSteps bounds a Divider's iteration count (its latency in cycles
// when built as an iterative unit, or its depth when unrolled).
const MaxDividerSteps = 256

// Divider models a restoring (shift-and-subtract) hardware divider
// bit-exactly. Operands are raw integers of formats Num and Den (at most 64
// bits each); the quotient is produced in format Quo (at most 64 bits)
// under quantization Q and overflow O.
//
// Datapath (what the RTL implements, in this order):
//
//  1. Sign/magnitude: A = |x.raw|, B = |y.raw| (unsigned, Num.W and Den.W
//     bits); the quotient is negative when exactly one operand is.
//  2. Alignment: the quotient must come out with Quo.F()+1 fraction bits
//     (one guard bit), so the dividend is A * 2^j with
//     j = Quo.F() + Den.F() - Num.F() + 1. For j >= 0 the dividend is A
//     followed by j zero bits; for j < 0, A is shifted right by -j and the
//     bits shifted out are ORed into a sticky bit.
//  3. Restoring iteration, Steps() = Num.W + max(j,0) times, MSB first: the
//     partial remainder R (Den.W+1 bits) becomes 2R + next dividend bit; if
//     R >= B then R -= B and the quotient bit is 1, else 0.
//  4. Rounding: the last quotient bit is the guard bit G, and
//     S = sticky OR (R != 0). (G,S) = (0,0) exact, (0,1) below half, (1,0)
//     a tie, (1,1) above half; Q's rule from the quantization table picks
//     whether the magnitude (quotient without G) is incremented.
//  5. Sign and overflow: the signed result is range-checked against Quo
//     and O applied, exactly as Cast.
//
// The result therefore equals Div(x, y, Quo, Q, O), the exact quotient
// quantized once; tests check that exhaustively for small formats.
//
// Zero divisor: the restoring array sets every quotient bit, which the
// output stage treats as an infinite magnitude and saturates whatever O is:
// the result is Quo's MAX when x >= 0, and when x < 0 Quo's MIN (-MAX if O
// is SatSym; 0 for an unsigned Quo). The error is nil; ZeroDivisor tells
// callers the case happened so they can count it.
type Divider struct {
	Num, Den, Quo Format       // operand and quotient formats
	Q             Quantization // quotient quantization (NewDivider: Trn)
	O             Overflow     // quotient overflow handling (NewDivider: Sat)
	j             int          // dividend alignment, see step 2
}

// NewDivider returns a divider truncating toward -inf (Trn) and saturating
// (Sat), the cheapest hardware form.
func NewDivider(num, den, quo Format) (*Divider, error) {
	return NewDividerModes(num, den, quo, Trn, Sat)
}

// NewDividerModes returns a divider with quantization q and overflow o. All
// formats must be valid and at most 64 bits wide, and Steps() at most
// MaxDividerSteps.
func NewDividerModes(num, den, quo Format, q Quantization, o Overflow) (*Divider, error) {
	for _, c := range []struct {
		name string
		f    Format
	}{{"Num", num}, {"Den", den}, {"Quo", quo}} {
		if err := c.f.Validate(); err != nil {
			return nil, fmt.Errorf("fixedpoint: Divider %s: %w", c.name, err)
		}
		if c.f.W > 64 {
			return nil, fmt.Errorf("fixedpoint: Divider %s=%s: width must be at most 64", c.name, c.f)
		}
	}
	if !q.Valid() {
		return nil, fmt.Errorf("fixedpoint: Divider Q=%d: unknown quantization", q)
	}
	if !o.Valid() {
		return nil, fmt.Errorf("fixedpoint: Divider O=%d: unknown overflow mode", o)
	}
	d := &Divider{Num: num, Den: den, Quo: quo, Q: q, O: o, j: quo.F() + den.F() - num.F() + 1}
	if s := d.Steps(); s > MaxDividerSteps {
		return nil, fmt.Errorf("fixedpoint: Divider Quo=%s: needs %d iterations for Num=%s Den=%s; at most %d", quo, s, num, den, MaxDividerSteps)
	}
	return d, nil
}

// Steps returns the number of restoring iterations: Num.W + max(j,0), one
// quotient bit each (the last is the guard bit).
func (d *Divider) Steps() int { return d.Num.W + max(d.j, 0) }

// Align returns j, the dividend alignment of step 2: the dividend is
// |x.raw| * 2^j (a right shift with sticky when negative).
func (d *Divider) Align() int { return d.j }

// ZeroDivisor reports whether y is the zero divisor (defined output).
func ZeroDivisor(y Value) bool { return y.IsZero() }

// Div divides x (format Num) by y (format Den). It fails only when an
// operand has the wrong format; a zero divisor gives the defined output
// (see Divider).
func (d *Divider) Div(x, y Value) (Value, error) {
	if x.fm() != d.Num {
		return Value{}, fmt.Errorf("fixedpoint: Divider.Div x format %s: want Num %s", x.fm(), d.Num)
	}
	if y.fm() != d.Den {
		return Value{}, fmt.Errorf("fixedpoint: Divider.Div y format %s: want Den %s", y.fm(), d.Den)
	}
	xn, am := x.signMag()
	yn, bm := y.signMag()
	a, b := am.lo, bm.lo // <= 64 bits each
	if b == 0 {
		switch {
		case !xn:
			return d.Quo.maxValue(), nil
		case d.O == SatSym && d.Quo.Signed:
			return mkValue(d.Quo, d.Quo.maxMag(false).neg()), nil
		}
		return d.Quo.minValue(), nil
	}
	sticky := false
	j := d.j
	if j < 0 {
		if m := uint(-j); m >= 64 {
			sticky, a = a != 0, 0
		} else {
			sticky, a = a&(1<<m-1) != 0, a>>m
		}
		j = 0
	}
	q, r, huge := restore(a, b, d.Num.W, j)
	g := q.lo & 1
	q = q.shr(1) // drop the guard bit; huge still means >= 2^127, beyond any Quo
	sticky = sticky || !r.isZero()
	res := resExact
	switch {
	case g == 0 && sticky:
		res = resLow
	case g == 1 && !sticky:
		res = resHalf
	case g == 1:
		res = resHigh
	}
	return finish(xn != yn, q, huge, res, d.Quo, d.Q, d.O), nil
}

// restore runs the restoring iteration of step 3 on the w-bit dividend a
// followed by j zero bits and the divisor b > 0. It returns the quotient
// bits (low 128), the final remainder, and whether a quotient bit left the
// 128-bit register.
func restore(a, b uint64, w, j int) (q, r u128, huge bool) {
	n := w + j
	if b < 1<<63 { // 2r+1 < 2^64: one-word remainder
		var rr uint64
		for i := 0; i < n; i++ {
			var bit uint64
			if i < w {
				bit = a >> uint(w-1-i) & 1
			}
			rr = rr<<1 | bit
			huge = huge || q.hi>>63 != 0
			q = q.shl(1)
			if rr >= b {
				rr -= b
				q.lo |= 1
			}
		}
		return q, u128{0, rr}, huge
	}
	for i := 0; i < n; i++ { // partial remainder < b, so 2r+1 < 2^65
		var bit uint64
		if i < w {
			bit = a >> uint(w-1-i) & 1
		}
		r = r.shl(1)
		r.lo |= bit
		huge = huge || q.hi>>63 != 0
		q = q.shl(1)
		if r.cmp(u128{0, b}) >= 0 {
			r = r.sub(u128{0, b})
			q.lo |= 1
		}
	}
	return q, r, huge
}
