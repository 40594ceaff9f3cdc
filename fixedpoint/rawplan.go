package fixedpoint

import (
	"errors"
	"fmt"
	"math/bits"
)

// Raw-integer plans: Cast, MulCast, AddCast and the reciprocal unit on the
// raw integers of unsigned formats, with the formats and modes fixed in
// advance. They are what a compiled datapath (cc/hpcc Update, cc/ldcp
// Window, the NIC model's rate multiplier) runs per event: operands and
// results are plain uint64 registers, and everything that depends only on
// the formats and modes is resolved once, so a cast is one add, two
// shifts, one multiply by a power of two and one compare, with no call: the
// methods are small enough for the compiler to inline into the datapath's
// loop. Their results are those of the Value operations bit for bit
// (TestRawPlansMatchValues, TestRawCaster128,
// TestRawReciprocalMatchesUnit).
//
// An operand is read as the non-negative integer it is: x stands for the
// real number x * 2^-F of its format, and bits above the format's width
// are not masked off (a register of that width has none); a RawAddCaster,
// whose 63-bit sum must not carry out, ignores them instead.

// ErrNoRawPlan is wrapped by the error of a raw plan constructor asked for
// a cast that raw plans do not offer: a shift by more than 63 bits (left or
// right), or RndConv (whose tie rule needs the kept LSB, a term that would
// make every raw cast slower and too large to inline). Such a cast is
// exact with the Value plans (Caster, MulCaster, AddCaster); a datapath
// that meets one runs its Value form instead.
var ErrNoRawPlan = errors.New("not offered by a raw plan")

// rawQuant is the quantizer of a raw plan: a non-negative magnitude
// (hi:lo) * 2^-e cast into an unsigned target of at most 64 bits, with the
// shift s = e - F(to) in [-63, 63]. With r = max(s, 0) and l = max(-s, 0),
// the rounded value is q = (hi:lo + bias) >> r, which is lo>>r + hi*2^(64-r)
// when hi < 2^r (one shift and one multiplication by a power of two,
// hi*k: x86-64 without BMI2 shifts only by CL, and the multiplication runs
// beside the shift); the value overflows when hi is larger or q > MAX >> l,
// and the result is q << l, or on overflow (q << l) & wrapMask | sat (the
// left shift by a field rather than a multiplication by 2^l: it is on
// every cast's dependency chain, and a shift takes 1 cycle where a
// multiplication takes 3; measured 10% faster on the hpcc datapath, whose
// Newton-Raphson and multiply-cast chains are serial): the low W bits
// under Wrap (wrapMask = 2^W - 1, sat = 0), MAX under Sat and SatSym (an
// unsigned target has no negative side), 0 under SatZero.
//
// The rounding bias is that of biasSel for a non-negative value: 0 (Trn,
// TrnZero), H = 2^(r-1) (Rnd, RndInf) or H-1 (RndZero, RndMinInf).
type rawQuant struct {
	r        uint   // right shift max(s, 0)
	bias     uint64 // rounding bias, 0 when s <= 0
	hiMax    uint64 // 2^r - 1: a larger high word makes the shifted value >= 2^64
	k        uint64 // 2^(64-r) for r >= 1, else 0
	l        uint   // left shift max(-s, 0)
	lmax     uint64 // MAX >> l: the largest q that the left shift keeps in range
	wrapMask uint64 // Wrap: 2^W - 1, else 0
	sat      uint64 // the overflow result besides the wrapped bits: MAX (Sat, SatSym), else 0
}

// newRawQuant resolves the cast of a non-negative value with e fraction
// bits into `to` (valid, unsigned, W <= 64) under the valid modes q and o;
// it fails for RndConv and when the shift is beyond [-63, 63].
func newRawQuant(op string, e int, to Format, q Quantization, o Overflow) (rawQuant, error) {
	if q == RndConv {
		return rawQuant{}, fmt.Errorf("fixedpoint: %s q=%s: convergent rounding is offered by the Value plans only: %w", op, q, ErrNoRawPlan)
	}
	s := e - to.F()
	if s > 63 || s < -63 {
		return rawQuant{}, fmt.Errorf("fixedpoint: %s to=%s: the cast shifts by %d bits (%d fraction bits into %d): %w", op, to, s, e, to.F(), ErrNoRawPlan)
	}
	max := ^uint64(0) >> uint(64-to.W)
	c := rawQuant{lmax: max}
	switch o {
	case Sat, SatSym:
		c.sat = max
	case Wrap:
		c.wrapMask = max
	}
	if s >= 1 {
		c.r = uint(s)
		c.hiMax = 1<<uint(s) - 1
		c.k = 1 << uint(64-s)
		l := c.hiMax
		t := &biasTab[q][0]
		c.bias = ((l&t.all | l>>1&t.half) + t.one) & l
	} else {
		c.l = uint(-s)
		c.lmax = max >> uint(-s)
	}
	return c, nil
}

// cast returns the raw result of (hi:lo) * 2^-e. hi must be at most
// 2^64-2 (a 64x64-bit product, or a sum's carry), so that the rounding
// carry cannot overflow it.
func (c *rawQuant) cast(hi, lo uint64) uint64 {
	l, cy := bits.Add64(lo, c.bias, 0)
	hi += cy
	q := l>>(c.r&63) + hi*c.k
	if hi > c.hiMax || q > c.lmax {
		return q<<(c.l&63)&c.wrapMask | c.sat
	}
	return q << (c.l & 63)
}

// cast1 is cast(0, v) for v < 2^63: the bias (below 2^63) cannot carry out
// of 64 bits, so no high word is needed. It is the short form for narrow
// products, which a Newton-Raphson chain runs serially.
func (c *rawQuant) cast1(v uint64) uint64 {
	q := (v + c.bias) >> (c.r & 63)
	if q > c.lmax {
		return q<<(c.l&63)&c.wrapMask | c.sat
	}
	return q << (c.l & 63)
}

// checkRaw validates the formats and modes of a raw plan: valid, unsigned,
// and at most maxW (operands) and 64 (to) bits wide.
func checkRaw(op string, maxW int, to Format, q Quantization, o Overflow, in ...Format) error {
	if err := checkPlan(op, to, q, o, in...); err != nil {
		return err
	}
	for i, f := range append(in, to) {
		name, w := "to", 64
		if i < len(in) {
			name, w = fmt.Sprintf("operand %d", i+1), maxW
		}
		if f.Signed || f.W > w {
			return fmt.Errorf("fixedpoint: %s %s=%s: a raw plan needs an unsigned format of at most %d bits: %w", op, name, f, w, ErrFormat)
		}
	}
	return nil
}

// RawCaster is Cast on raw integers: the raw integer of Cast(x, To, Q, O)
// for the raw integer of x in From, both formats unsigned, From at most
// 128 bits wide (a product a datapath formed itself) and To at most 64,
// with a cast shift F(From) - F(To) in [-63, 63]. It is immutable, safe for
// concurrent use, and a value (copy it into the datapath that uses it).
type RawCaster struct {
	c rawQuant
	// For Cast128's rare high word of all ones, which the rounding carry
	// would overflow: the general engine casts it.
	e  int
	to Format
	q  Quantization
	o  Overflow
}

// NewRawCaster returns the RawCaster of (from, to, q, o). It fails, naming
// the format, mode or shift, when a format is invalid or signed, From is
// wider than 128 bits or To than 64, a mode is invalid, or the shift is
// beyond [-63, 63] (ErrNoRawPlan).
func NewRawCaster(from, to Format, q Quantization, o Overflow) (RawCaster, error) {
	if err := checkRaw("NewRawCaster", 128, to, q, o, from); err != nil {
		return RawCaster{}, err
	}
	c, err := newRawQuant("NewRawCaster", from.F(), to, q, o)
	if err != nil {
		return RawCaster{}, err
	}
	return RawCaster{c: c, e: from.F(), to: to, q: q, o: o}, nil
}

// Cast returns the raw result of casting x, read as x * 2^-F(From).
// Allocation-free.
func (c *RawCaster) Cast(x uint64) uint64 { return c.c.cast(0, x) }

// Cast63 is Cast for x below 2^63 (a register of at most 63 bits), with a
// shorter dependency chain. A larger x gives a wrong result.
func (c *RawCaster) Cast63(x uint64) uint64 { return c.c.cast1(x) }

// Cast128 returns the raw result of casting the 128-bit integer hi:lo,
// read as (hi:lo) * 2^-F(From). Allocation-free.
func (c *RawCaster) Cast128(hi, lo uint64) uint64 {
	if hi == ^uint64(0) { // the rounding carry would overflow the high word
		return cast64(0, hi, lo, c.e, c.to, c.q, c.o).lo
	}
	return c.c.cast(hi, lo)
}

// RawMulCaster is MulCast on raw integers: the raw integer of MulCast(x, y,
// To, Q, O) for raw integers of X and Y, all three formats unsigned and at
// most 64 bits wide, with a cast shift F(X) + F(Y) - F(To) in [-63, 63].
// The exact product is formed in 128 bits. It is immutable, safe for
// concurrent use, and a value.
type RawMulCaster struct {
	c      rawQuant
	narrow bool // X.W + Y.W <= 63
}

// NewRawMulCaster returns the RawMulCaster of (x, y, to, q, o). It fails
// as NewRawCaster does.
func NewRawMulCaster(x, y, to Format, q Quantization, o Overflow) (RawMulCaster, error) {
	if err := checkRaw("NewRawMulCaster", 64, to, q, o, x, y); err != nil {
		return RawMulCaster{}, err
	}
	c, err := newRawQuant("NewRawMulCaster", x.F()+y.F(), to, q, o)
	return RawMulCaster{c: c, narrow: x.W+y.W <= 63}, err
}

// Narrow reports whether X.W + Y.W <= 63, so that the product of any
// registers of X and Y is below 2^63 and MulCastNarrow applies to them.
func (c *RawMulCaster) Narrow() bool { return c.narrow }

// MulCastNarrow is MulCast for operands whose product is below 2^63 (any
// registers of X and Y when Narrow reports true): the product is formed in
// 64 bits and the cast needs no high word, a shorter dependency chain for
// serial multipliers. A larger product gives a wrong result; a datapath
// tests Narrow once, at construction or outside its loop.
func (c *RawMulCaster) MulCastNarrow(x, y uint64) uint64 { return c.c.cast1(x * y) }

// MulCast returns the raw result of the exact product x*y, read as
// x*y * 2^-(F(X)+F(Y)). Allocation-free.
func (c *RawMulCaster) MulCast(x, y uint64) uint64 { return c.c.cast(bits.Mul64(x, y)) }

// RawAddCaster is AddCast on raw integers: the raw integer of AddCast(x, y,
// To, Q, O) for raw integers of X and Y, all three formats unsigned, X and
// Y at most 63 bits wide with the same number of fraction bits (a datapath
// adder's operands are aligned registers, and their sum fits 64 bits), To
// at most 64 bits, and a cast shift F(X) - F(To) in [-63, 63]. It is
// immutable, safe for concurrent use, and a value.
type RawAddCaster struct {
	c      rawQuant
	xm, ym uint64 // 2^X.W - 1, 2^Y.W - 1
}

// NewRawAddCaster returns the RawAddCaster of (x, y, to, q, o). It fails as
// NewRawCaster does, and, naming them, when x or y is wider than 63 bits or
// they have different fraction bit counts (use AddCaster for those).
func NewRawAddCaster(x, y, to Format, q Quantization, o Overflow) (RawAddCaster, error) {
	if err := checkRaw("NewRawAddCaster", 63, to, q, o, x, y); err != nil {
		return RawAddCaster{}, err
	}
	if x.F() != y.F() {
		return RawAddCaster{}, fmt.Errorf("fixedpoint: NewRawAddCaster x=%s y=%s: fraction bits %d and %d differ: a raw adder needs aligned operands: %w", x, y, x.F(), y.F(), ErrFormat)
	}
	c, err := newRawQuant("NewRawAddCaster", x.F(), to, q, o)
	return RawAddCaster{c: c, xm: ^uint64(0) >> uint(64-x.W), ym: ^uint64(0) >> uint(64-y.W)}, err
}

// AddCast returns the raw result of the exact sum of the X register x and
// the Y register y (bits above their widths are ignored, as a hardware
// adder's ports ignore them). Allocation-free.
func (c *RawAddCaster) AddCast(x, y uint64) uint64 { return c.c.cast(0, x&c.xm+y&c.ym) }

// RawReciprocal is a Reciprocal on raw integers: Recip(x) returns the raw
// Out integer of r.Recip for the raw In integer x, bit for bit, with the
// unit's shifts, table and Newton-Raphson multipliers resolved once. Its
// steps are exported so that a datapath loop can run them inline (each is
// small enough for the compiler to inline); Recip(x) for x != 0 is
//
//	m, y, p := r.Seed(x)
//	for j := 0; j < r.NRSteps(); j++ {
//		e := r.MulE(j).MulCast(m, y)
//		y = r.MulY(j).MulCast(y, r.TwoMinus(e))
//	}
//	return r.Scale(p).Cast(y)
//
// and, when Narrow reports true, the same with MulCastNarrow and Cast63
// (every value of the chain is a register of its format, and every product
// is below 2^63). It is immutable and safe for concurrent use.
type RawReciprocal struct {
	w        int      // In.W
	nr       int      // Newton-Raphson steps
	two      uint64   // 2 in Work
	inMask   uint64   // 2^In.W - 1
	outMax   uint64   // Out's MAX raw (1/0)
	table    []uint64 // Entry raw values, 2^TableBits of them
	kMask    uint64   // 2^TableBits - 1
	idxShift uint     // In.W - 1 - TableBits: the index is the TableBits mantissa bits below the leading one
	// nrE[j], nrY[j]: the two truncating multipliers of NR step j (step 0
	// has y in Entry, later steps y in Work).
	nrE, nrY [4]RawMulCaster
	// out[p]: the output cast of y for a leading one at bit p of the input:
	// 1/x = (1/m) * 2^(In.F - p), so y is read with F(y) - (In.F - p)
	// fraction bits.
	out [64]RawCaster
	// narrow: every Newton-Raphson product and every y fed to out[p] is
	// below 2^63.
	narrow bool
}

// NewRawReciprocal returns the raw-integer form of r. It fails, naming the
// format, when Out is signed or wider than 64 bits, and with ErrNoRawPlan
// when an output cast shifts by more than 63 bits (Out's LSB far from the
// reciprocal's range); the other formats of a unit always suit.
func NewRawReciprocal(r *Reciprocal) (RawReciprocal, error) {
	if r == nil {
		return RawReciprocal{}, errors.New("fixedpoint: NewRawReciprocal: nil Reciprocal")
	}
	c := r.c
	if c.Out.Signed || c.Out.W > 64 {
		return RawReciprocal{}, fmt.Errorf("fixedpoint: NewRawReciprocal Out=%s: a raw plan needs an unsigned format of at most 64 bits: %w", c.Out, ErrFormat)
	}
	rr := RawReciprocal{w: c.In.W, nr: c.NRSteps, table: r.Table()}
	rr.inMask = ^uint64(0) >> uint(64-c.In.W)
	rr.outMax = ^uint64(0) >> uint(64-c.Out.W)
	rr.kMask = 1<<uint(c.TableBits) - 1
	rr.idxShift = uint(c.In.W - 1 - c.TableBits)
	y := c.Entry
	var err error
	if c.NRSteps > 0 {
		for j := range rr.nrE {
			if rr.nrE[j], err = NewRawMulCaster(r.mant, y, c.Work, Trn, Sat); err != nil {
				return RawReciprocal{}, fmt.Errorf("fixedpoint: NewRawReciprocal: NR step %d: %w", j, err)
			}
			if rr.nrY[j], err = NewRawMulCaster(y, c.Work, c.Work, Trn, Sat); err != nil {
				return RawReciprocal{}, fmt.Errorf("fixedpoint: NewRawReciprocal: NR step %d: %w", j, err)
			}
			y = c.Work
		}
		rr.two = 2 << uint(c.Work.F())
	}
	// Bit lengths: m < 2^In.W, a table entry < 2^Entry.W, t <= 2 in Work
	// (bits.Len64(two)), y in Work < 2^Work.W; without NR, y0 goes to out.
	rr.narrow = c.Entry.W <= 63
	if c.NRSteps > 0 {
		lt := bits.Len64(rr.two)
		rr.narrow = c.In.W+c.Entry.W <= 63 && c.Entry.W+lt <= 63 && c.In.W+c.Work.W <= 63 && c.Work.W+lt <= 63
	}
	for p := 0; p < c.In.W; p++ {
		// y * 2^(In.F - p): y's raw bits with F(y) - (In.F - p) fraction bits.
		from := Format{W: y.W, I: y.I + c.In.F() - p}
		if rr.out[p], err = NewRawCaster(from, c.Out, c.Q, c.O); err != nil {
			return RawReciprocal{}, fmt.Errorf("fixedpoint: NewRawReciprocal: output for a leading one at bit %d: %w", p, err)
		}
	}
	return rr, nil
}

// Recip returns the raw Out integer of about 1/x for the In register x
// (bits above In.W are ignored, as Reciprocal.Recip's input has none);
// x = 0 gives Out's MAX. Allocation-free.
func (r *RawReciprocal) Recip(x uint64) uint64 {
	x &= r.inMask
	if x == 0 {
		return r.outMax // 1/0 saturates
	}
	m, y, p := r.Seed(x)
	if r.narrow {
		for j := 0; j < r.nr; j++ {
			e := r.nrE[j&3].MulCastNarrow(m, y)
			y = r.nrY[j&3].MulCastNarrow(y, r.TwoMinus(e))
		}
		return r.out[p&63].Cast63(y)
	}
	for j := 0; j < r.nr; j++ {
		e := r.nrE[j&3].MulCast(m, y)
		y = r.nrY[j&3].MulCast(y, r.TwoMinus(e))
	}
	return r.out[p&63].Cast(y)
}

// NRSteps returns the number of Newton-Raphson steps.
func (r *RawReciprocal) NRSteps() int { return r.nr }

// Narrow reports whether every product of the Newton-Raphson chain and
// every y fed to the output cast is below 2^63, so that the steps may use
// MulCastNarrow and Cast63.
func (r *RawReciprocal) Narrow() bool { return r.narrow }

// Seed runs steps 1 and 2 of the unit on the non-zero In register x (at
// most In.W bits): the leading one at bit p moves to bit In.W-1, giving the
// mantissa m in u(In.W).1, and y is the table entry for it.
func (r *RawReciprocal) Seed(x uint64) (m, y uint64, p int) {
	p = bits.Len64(x) - 1
	m = x << (uint(r.w-1-p) & 63)
	return m, r.table[m>>(r.idxShift&63)&r.kMask], p
}

// MulE returns the first multiplier of Newton-Raphson step j (0 <= j <
// NRSteps): e = MulCast(m, y, Work, Trn, Sat).
func (r *RawReciprocal) MulE(j int) *RawMulCaster { return &r.nrE[j&3] }

// MulY returns the second multiplier of Newton-Raphson step j: y' =
// MulCast(y, t, Work, Trn, Sat).
func (r *RawReciprocal) MulY(j int) *RawMulCaster { return &r.nrY[j&3] }

// TwoMinus is t = 2 - e, exact in Work, and 0 when e >= 2.
func (r *RawReciprocal) TwoMinus(e uint64) uint64 {
	if e >= r.two {
		return 0
	}
	return r.two - e
}

// Scale returns step 4's cast for the leading-one position p that Seed
// returned: it casts y (after the Newton-Raphson steps) into Out under Q
// and O.
func (r *RawReciprocal) Scale(p int) *RawCaster { return &r.out[p&63] }
