package fixedpoint

import "math/bits"

// MulCastCache is MulCast with the plan of its last formats and modes kept
// (the MulCaster of (X, Y, To, Q, O), derived again only when they
// change): a per-caller cache for code that multiplies through the plain
// MulCast signature but mostly repeats one format pair, so that it pays
// the plan's cost, not MulCast's derivation per call. The zero
// MulCastCache is ready to use and holds no plan. It allocates nothing. It
// is not safe for concurrent use: it belongs to its caller (a component, a
// goroutine), which keeps it beside its other state; there is no shared or
// global cache.
type MulCastCache struct {
	pxy  uint64 // the operands' packed formats (X low, Y high) | keptBit; 0: no plan kept
	to   Format
	q    Quantization
	o    Overflow
	plan plan64
}

// MulCast returns MulCast(x, y, to, q, o), bit for bit, with the same
// errors. When x and y are at most 64 bits wide and their formats, to, q
// and o are those of the last call that kept a plan, the plan does the
// work (the cost of MulCaster.MulCast plus one compare of the formats and
// modes); otherwise the arguments are checked as MulCast checks them, and
// a plan is derived and kept for the next call when the fast path applies.
func (c *MulCastCache) MulCast(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	// One branch: the differences of every key part ORed together.
	d := (uint64(x.p) | uint64(y.p)<<32 | keptBit) ^ c.pxy
	d |= uint64(to.W^c.to.W) | uint64(to.I^c.to.I) | uint64(q^c.q) | uint64(o^c.o)
	if d != 0 || to.Signed != c.to.Signed {
		return c.miss(x, y, to, q, o)
	}
	// As MulCaster.MulCast: W <= 64, so hi is the sign extension of lo.
	hi, lo := bits.Mul64((x.lo^x.hi)-x.hi, (y.lo^y.hi)-y.hi)
	neg := (x.hi ^ y.hi) >> 63
	p := &c.plan
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

// keptBit marks a kept plan's key: bit 9 of a packed format is never set
// (pack uses bits 0-8 and 16-31), so the zero MulCastCache, whose key is 0,
// matches no operands, not even two zero Values.
const keptBit = 1 << 9

// miss is MulCast for arguments other than the kept plan's: checked and
// computed by MulCast, and the plan derived and kept when the operands are
// at most 64 bits wide and the quantizer has its fast path.
func (c *MulCastCache) miss(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	v, err := MulCast(x, y, to, q, o)
	if err != nil {
		return v, err
	}
	// MulCast accepted the arguments: both operands have formats, to and
	// the modes are valid.
	if uint8(x.p) <= 64 && uint8(y.p) <= 64 {
		if p, ok := newPlan64(x.p.frac()+y.p.frac()-to.F(), to, q, o); ok {
			c.pxy, c.to, c.q, c.o, c.plan = uint64(x.p)|uint64(y.p)<<32|keptBit, to, q, o, p
		}
	}
	return v, nil
}
