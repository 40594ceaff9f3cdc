package fixedpoint

import (
	"fmt"
	"math/bits"
)

// Plans: Cast and MulCast with the formats and modes fixed in advance, as a
// datapath stage has them. Everything that depends only on the formats and
// modes (the shift, the rounding bias, the overflow limits, the packed
// result format) is resolved once, so the per-value work is the multiply,
// one add, one shift, one compare and the sign. The results are those of
// Cast and MulCast bit for bit (TestPlans compares them on random and
// edge-case operands of random formats under every mode).

// plan64 is the quantizer of cast64 with its target, modes and shift s in
// [-63, 63] resolved: it maps ±(hi:lo) * 2^-(s + F(to)) into `to` (W <= 64).
//
// With the rounding bias added (see biasSel), the result overflows exactly
// when the 128-bit magnitude reaches a threshold that depends only on the
// sign: (lim+1) * 2^s for s >= 1, lim/2^-s + 1 (integer division) for
// s <= 0, with lim = MAX, |MIN| (MAX under SatSym) or 0 (an unsigned
// target and a negative value). So one 128-bit compare decides overflow,
// and an overflow returns a precomputed Value.
type plan64 struct {
	p      pfmt        // the target format, packed
	right  bool        // s >= 1: drop s bits (otherwise shift left by -s)
	sh     uint        // s when right, else -s
	rsh    uint        // 64 - s when right
	oddBit uint64      // RndConv with s >= 1: 2^s (the kept LSB, which joins the bias), else 0
	sign   [2]signPlan // by sign (0 positive, 1 negative)
	sgn    uint64      // all ones when the target is signed
	wrap   bool        // Wrap (or an invalid mode, which behaves as Wrap)
	wmask  uint64      // 2^W - 1
	sbit   uint64      // 2^(W-1) when the target is signed, else 0
}

// signPlan holds what depends on the sign of the value.
type signPlan struct {
	bias         uint64   // rounding bias, 0 when nothing is dropped
	thrHi, thrLo uint64   // overflow threshold of the biased magnitude (all ones under Wrap: never)
	sat          Value    // the result of an overflow: MAX, MIN, -MAX or 0
	_            [16]byte // pad to 64 bytes: &sign[neg] is then one shift
}

// newPlan64 resolves the quantizer; ok is false when cast64 would not take
// its fast path (W > 64, |s| > 63, invalid target).
func newPlan64(s int, to Format, q Quantization, o Overflow) (p plan64, ok bool) {
	if uint(to.W-1) > 63 || uint(s+63) > 126 || !to.valid() {
		return plan64{}, false
	}
	p.p = pack(to)
	p.wmask = ^uint64(0) >> uint(64-to.W)
	lim := [2]uint64{p.wmask, 0}
	if to.Signed {
		lim[0] >>= 1
		lim[1] = lim[0] + 1
		if o == SatSym {
			lim[1] = lim[0]
		}
		p.sgn = ^uint64(0)
		p.sbit = lim[0] + 1
	}
	if s >= 1 {
		p.right, p.sh, p.rsh = true, uint(s), uint(64-s)
		l := uint64(1)<<uint(s) - 1
		for n := range p.sign {
			t := &biasTab[min(q, numQuantization)][n]
			p.sign[n].bias = ((l&t.all | l>>1&t.half) + t.one) & l
			p.oddBit = t.odd << uint(s) // the same for both signs
		}
	} else {
		p.sh = uint(-s)
	}
	for n := range p.sign {
		sp := &p.sign[n]
		var thr u128
		if p.right {
			thr, _ = u128{0, lim[n]}.add1()
			thr = thr.shl(p.sh)
		} else {
			thr, _ = u128{0, lim[n] >> p.sh}.add1()
		}
		sp.thrHi, sp.thrLo = thr.hi, thr.lo
		switch o {
		case Sat, SatSym:
			r := (lim[n] ^ -uint64(n)) + uint64(n) // ±lim
			sp.sat = Value{lo: r, hi: uint64(int64(r)>>63) & p.sgn, p: p.p}
		case SatZero:
			sp.sat = Value{p: p.p}
		default:
			p.wrap = true
			sp.thrHi, sp.thrLo = ^uint64(0), ^uint64(0) // never reached: hi <= 2^64-2
		}
	}
	return p, true
}

// The quantizer in inlinable steps, so that a Caster or MulCaster method is
// a single call. With sp := &c.sign[neg] (neg is 0 or 1) and hi at most
// 2^64-2 (a 64x64-bit product or a 64-bit magnitude):
//
//	right:     hi, lo = c.round(sp, hi, lo); if sp.over(hi, lo) { return sp.sat }; return c.signed(neg, c.shr(hi, lo))
//	otherwise: if sp.over(hi, lo) { return sp.sat }; return c.signed(neg, lo<<c.sh)

// round adds the rounding bias to the magnitude (right shifts only).
func (c *plan64) round(sp *signPlan, hi, lo uint64) (uint64, uint64) {
	bias := sp.bias
	if lo&c.oddBit != 0 {
		bias++
	}
	lo, cy := bits.Add64(lo, bias, 0)
	return hi + cy, lo
}

// over reports whether the biased magnitude overflows.
func (sp *signPlan) over(hi, lo uint64) bool {
	_, b := bits.Sub64(lo, sp.thrLo, 0)
	_, b = bits.Sub64(hi, sp.thrHi, b)
	return b == 0 // (hi:lo) >= threshold
}

// shr returns the low 64 bits of (hi:lo) >> s (right shifts only).
func (c *plan64) shr(hi, lo uint64) uint64 { return lo>>(c.sh&63) | hi<<(c.rsh&63) }

// signed applies the sign to the quantized magnitude (and, under Wrap,
// keeps the low W bits).
func (c *plan64) signed(neg, qv uint64) Value {
	r := (qv ^ -neg) + neg // two's complement
	if c.wrap {
		r = (r&c.wmask ^ c.sbit) - c.sbit // the low W bits, sign- or zero-extended
	}
	return Value{lo: r, hi: uint64(int64(r)>>63) & c.sgn, p: c.p}
}

// noFormat is a packed format no Value has (W = 255): a plan whose fast path
// does not apply stores it so that every operand takes the general path.
const noFormat pfmt = 0xff

// Caster is Cast(x, To, Q, O) for values x of format From, with every
// format- and mode-dependent quantity resolved once (a datapath register
// assignment). Values of another format are cast correctly too, by Cast.
// A Caster is immutable and safe for concurrent use.
type Caster struct {
	from, to Format
	q        Quantization
	o        Overflow
	pf       pfmt // From packed, or noFormat when the fast path does not apply
	plan     plan64
}

// NewCaster returns the Caster of (from, to, q, o). It fails for an invalid
// format or mode, naming it.
func NewCaster(from, to Format, q Quantization, o Overflow) (*Caster, error) {
	if err := checkPlan("NewCaster", to, q, o, from); err != nil {
		return nil, err
	}
	c := &Caster{from: from, to: to, q: q, o: o, pf: noFormat}
	if from.W <= 64 {
		if p, ok := newPlan64(from.F()-to.F(), to, q, o); ok {
			c.pf, c.plan = pack(from), p
		}
	}
	return c, nil
}

// Cast returns Cast(x, To, Q, O). It returns no error because the
// formats and modes were validated by NewCaster; the only operand Cast
// would reject, the zero Value (no format), gives the zero Value, which the
// next checked operation rejects. Allocation-free.
func (c *Caster) Cast(x Value) Value {
	if x.p != c.pf {
		return c.general(x)
	}
	// W <= 64: hi is the sign extension of lo (0 or all ones), so
	// (lo ^ hi) - hi is the magnitude and hi>>63 the sign.
	neg, lo := x.hi>>63, (x.lo^x.hi)-x.hi
	p := &c.plan
	sp := &p.sign[neg]
	if p.right {
		hi, lo := p.round(sp, 0, lo)
		if sp.over(hi, lo) {
			return sp.sat
		}
		return p.signed(neg, p.shr(hi, lo))
	}
	if sp.over(0, lo) {
		return sp.sat
	}
	return p.signed(neg, lo<<(p.sh&63))
}

// general is Cast for an operand of another format than From.
func (c *Caster) general(x Value) Value {
	if !x.p.ok() {
		return Value{} // no format: propagate the zero Value
	}
	neg, hi, lo := x.negMag()
	return cast64(neg, hi, lo, x.p.frac(), c.to, c.q, c.o)
}

// MulCaster is MulCast(x, y, To, Q, O) for operands x of format X and y of
// format Y, with every format- and mode-dependent quantity resolved once (a
// datapath multiplier stage and its output register). Operands of other
// formats are handled correctly too, by MulCast. A MulCaster is immutable
// and safe for concurrent use.
type MulCaster struct {
	x, y, to Format
	q        Quantization
	o        Overflow
	pxy      uint64 // X and Y packed (X in the low half), or noFormat twice when the fast path does not apply
	plan     plan64
}

// NewMulCaster returns the MulCaster of (x, y, to, q, o). It fails for an
// invalid format or mode, naming it.
func NewMulCaster(x, y, to Format, q Quantization, o Overflow) (*MulCaster, error) {
	if err := checkPlan("NewMulCaster", to, q, o, x, y); err != nil {
		return nil, err
	}
	c := &MulCaster{x: x, y: y, to: to, q: q, o: o, pxy: uint64(noFormat) | uint64(noFormat)<<32}
	if x.W <= 64 && y.W <= 64 {
		if p, ok := newPlan64(x.F()+y.F()-to.F(), to, q, o); ok {
			c.pxy, c.plan = uint64(pack(x))|uint64(pack(y))<<32, p
		}
	}
	return c, nil
}

// MulCast returns MulCast(x, y, To, Q, O); like Caster.Cast it returns
// the zero Value for an operand without a format, and no error.
// Allocation-free for operands of formats X and Y when they are at most 64
// bits wide.
func (c *MulCaster) MulCast(x, y Value) Value {
	if uint64(x.p)|uint64(y.p)<<32 != c.pxy {
		return c.general(x, y)
	}
	// W <= 64: hi is the sign extension of lo (0 or all ones), so
	// (lo ^ hi) - hi is the magnitude and hi>>63 the sign.
	hi, lo := bits.Mul64((x.lo^x.hi)-x.hi, (y.lo^y.hi)-y.hi)
	neg := (x.hi ^ y.hi) >> 63
	p := &c.plan
	sp := &p.sign[neg]
	if p.right {
		hi, lo = p.round(sp, hi, lo)
		if sp.over(hi, lo) {
			return sp.sat
		}
		return p.signed(neg, p.shr(hi, lo))
	}
	if sp.over(hi, lo) {
		return sp.sat
	}
	return p.signed(neg, lo<<(p.sh&63))
}

// general is MulCast for operands of other formats.
func (c *MulCaster) general(x, y Value) Value {
	if !x.p.ok() || !y.p.ok() {
		return Value{} // no format: propagate the zero Value
	}
	return mulCast(x, y, c.to, c.q, c.o)
}

// AddCaster is AddCast(x, y, To, Q, O) and SubCast(x, y, To, Q, O) for
// operands x of format X and y of format Y, with every format- and
// mode-dependent quantity resolved once (a datapath adder or subtractor
// and its output register). Operands of other formats are handled
// correctly too. An AddCaster is immutable and safe for concurrent use.
type AddCaster struct {
	x, y, to Format
	q        Quantization
	o        Overflow
	pxy      uint64 // X and Y packed (X in the low half), or noFormat twice when the fast path does not apply
	shx, shy uint   // left shifts aligning x and y to the larger fraction count
	plan     plan64
}

// NewAddCaster returns the AddCaster of (x, y, to, q, o). It fails for an
// invalid format or mode, naming it.
func NewAddCaster(x, y, to Format, q Quantization, o Overflow) (*AddCaster, error) {
	if err := checkPlan("NewAddCaster", to, q, o, x, y); err != nil {
		return nil, err
	}
	c := &AddCaster{x: x, y: y, to: to, q: q, o: o, pxy: uint64(noFormat) | uint64(noFormat)<<32}
	e := max(x.F(), y.F())
	// The fast path forms the exact sum in int64: both aligned operands
	// must stay below 2^62 in magnitude (as addSubCast's).
	if x.W+e-x.F() <= 62 && y.W+e-y.F() <= 62 {
		if p, ok := newPlan64(e-to.F(), to, q, o); ok {
			c.pxy, c.plan = uint64(pack(x))|uint64(pack(y))<<32, p
			c.shx, c.shy = uint(e-x.F()), uint(e-y.F())
		}
	}
	return c, nil
}

// AddCast returns AddCast(x, y, To, Q, O); like Caster.Cast it returns the
// zero Value for an operand without a format, and no error.
// Allocation-free.
func (c *AddCaster) AddCast(x, y Value) Value {
	if uint64(x.p)|uint64(y.p)<<32 != c.pxy {
		return c.general(x, y, 0)
	}
	// W <= 62 aligned: lo is the raw integer sign- or zero-extended, and the
	// sum cannot overflow int64.
	r := uint64(int64(x.lo)<<(c.shx&63) + int64(y.lo)<<(c.shy&63))
	neg := r >> 63
	lo := (r ^ -neg) + neg
	p := &c.plan
	sp := &p.sign[neg]
	if p.right {
		hi, lo := p.round(sp, 0, lo)
		if sp.over(hi, lo) {
			return sp.sat
		}
		return p.signed(neg, p.shr(hi, lo))
	}
	if sp.over(0, lo) {
		return sp.sat
	}
	return p.signed(neg, lo<<(p.sh&63))
}

// SubCast returns SubCast(x, y, To, Q, O); like Caster.Cast it returns the
// zero Value for an operand without a format, and no error.
// Allocation-free.
func (c *AddCaster) SubCast(x, y Value) Value {
	if uint64(x.p)|uint64(y.p)<<32 != c.pxy {
		return c.general(x, y, 1)
	}
	r := uint64(int64(x.lo)<<(c.shx&63) - int64(y.lo)<<(c.shy&63))
	neg := r >> 63
	lo := (r ^ -neg) + neg
	p := &c.plan
	sp := &p.sign[neg]
	if p.right {
		hi, lo := p.round(sp, 0, lo)
		if sp.over(hi, lo) {
			return sp.sat
		}
		return p.signed(neg, p.shr(hi, lo))
	}
	if sp.over(0, lo) {
		return sp.sat
	}
	return p.signed(neg, lo<<(p.sh&63))
}

// general is AddCast (sub = 0) or SubCast (sub = 1) for operands of other
// formats.
func (c *AddCaster) general(x, y Value, sub uint64) Value {
	if !x.p.ok() || !y.p.ok() {
		return Value{} // no format: propagate the zero Value
	}
	return addSubCast(x, y, sub, c.to, c.q, c.o)
}

// checkPlan validates the formats and modes of a plan.
func checkPlan(op string, to Format, q Quantization, o Overflow, in ...Format) error {
	for i, f := range in {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("fixedpoint: %s operand %d: %w", op, i+1, err)
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
	return nil
}
