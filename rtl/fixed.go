package rtl

import (
	"math/big"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// Fx is a node read as a fixed-point value of format F: the node's bits are
// F's raw two's-complement (or unsigned) integer, so N.Width == F.W and
// N.Signed == F.Signed. The Fx helpers lower package fixedpoint's operations
// to primitive integer ops with the same bits: full-precision Add, Sub, Mul
// and Neg grow their formats exactly as fixedpoint's AddFormat, SubFormat,
// MulFormat and NegFormat; FxCast lowers every Quantization and Overflow mode
// into explicit rounding-increment and saturation logic.
type Fx struct {
	N *Node
	F fixedpoint.Format
}

// FxIn declares an input port holding a value of format f.
func (m *Module) FxIn(name string, f fixedpoint.Format) Fx {
	if err := f.Validate(); err != nil {
		m.fail("input %s: %v", name, err)
		return Fx{m.placeholder(1, false), f}
	}
	return Fx{m.In(name, f.W, f.Signed), f}
}

// FxOf reads node n as format f (n's width and signedness must match f).
func (m *Module) FxOf(n *Node, f fixedpoint.Format) Fx {
	if !m.okArgs(OpAs, n) {
		return Fx{m.placeholder(max(f.W, 1), f.Signed), f}
	}
	if err := f.Validate(); err != nil {
		m.fail("fx of %s: %v", n.Name, err)
		return Fx{n, f}
	}
	if n.Width != f.W {
		m.fail("fx of %s (%s): width differs from format %s", n.Name, n.Type(), f)
		return Fx{n, f}
	}
	if n.Signed != f.Signed {
		n = m.as(n, f.Signed)
	}
	return Fx{n, f}
}

// FxConst returns the constant v.
func (m *Module) FxConst(v fixedpoint.Value) Fx {
	f := v.Format()
	return Fx{m.ConstBits(f.W, f.Signed, BitsOfBig(v.RawBig(), f.W)), f}
}

// FxOut declares an output port carrying x's raw bits.
func (m *Module) FxOut(name string, x Fx, doc string) { m.Out(name, x.N, doc) }

// fxExact converts x exactly into format to, which must hold every value of
// x's format (to.F >= x.F and enough integer bits, signed if x is).
func (m *Module) fxExact(x Fx, to fixedpoint.Format) *Node {
	s := to.F() - x.F.F()
	if s < 0 || to.W < x.F.W+s || (x.F.Signed && !to.Signed) {
		m.fail("internal: %s does not hold %s exactly", to, x.F)
		return m.placeholder(max(to.W, 1), to.Signed)
	}
	n := m.Ext(x.N, to.W)
	n = m.ShlC(n, s)
	return m.as(n, to.Signed)
}

// commonFormat is the smallest format holding every value of a and b exactly.
func commonFormat(a, b fixedpoint.Format) fixedpoint.Format {
	f := max(a.F(), b.F())
	i := max(a.I+b2i(b.Signed && !a.Signed), b.I+b2i(a.Signed && !b.Signed))
	return fixedpoint.Format{W: i + f, I: i, Signed: a.Signed || b.Signed}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (m *Module) fxFormat(op string, f fixedpoint.Format, err error) bool {
	if err != nil {
		m.fail("%s: %v", op, err)
		return false
	}
	if f.W > MaxWidth {
		m.fail("%s: result format %s wider than %d bits", op, f, MaxWidth)
		return false
	}
	return true
}

// FxMul returns the exact product x*y in fixedpoint.MulFormat(x.F, y.F)
// (W1+W2 bits). A signed-by-unsigned product extends the unsigned operand by
// one zero bit, multiplies signed and drops the (redundant) top bit.
func (m *Module) FxMul(x, y Fx) Fx {
	f, err := fixedpoint.MulFormat(x.F, y.F)
	if !m.fxFormat("fxmul", f, err) {
		return Fx{m.placeholder(1, false), f}
	}
	if x.F.Signed == y.F.Signed {
		return Fx{m.Mul(x.N, y.N), f}
	}
	a, b := x.N, y.N
	if !a.Signed {
		a = m.AsSigned(m.ZExt(a, a.Width+1))
	}
	if !b.Signed {
		b = m.AsSigned(m.ZExt(b, b.Width+1))
	}
	return Fx{m.Trunc(m.Mul(a, b), f.W), f}
}

// FxAdd returns the exact sum in fixedpoint.AddFormat(x.F, y.F).
func (m *Module) FxAdd(x, y Fx) Fx {
	f, err := fixedpoint.AddFormat(x.F, y.F)
	if !m.fxFormat("fxadd", f, err) {
		return Fx{m.placeholder(1, false), f}
	}
	return Fx{m.Add(m.fxExact(x, f), m.fxExact(y, f)), f}
}

// FxSub returns the exact difference in fixedpoint.SubFormat(x.F, y.F)
// (always signed).
func (m *Module) FxSub(x, y Fx) Fx {
	f, err := fixedpoint.SubFormat(x.F, y.F)
	if !m.fxFormat("fxsub", f, err) {
		return Fx{m.placeholder(1, false), f}
	}
	return Fx{m.Sub(m.fxExact(x, f), m.fxExact(y, f)), f}
}

// FxNeg returns -x exactly in fixedpoint.NegFormat(x.F).
func (m *Module) FxNeg(x Fx) Fx {
	f, err := fixedpoint.NegFormat(x.F)
	if !m.fxFormat("fxneg", f, err) {
		return Fx{m.placeholder(1, false), f}
	}
	return Fx{m.Neg(m.fxExact(x, f)), f}
}

// FxMulCast is fixedpoint.MulCast: the exact product quantized once.
func (m *Module) FxMulCast(x, y Fx, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) Fx {
	return m.FxCast(m.FxMul(x, y), to, q, o)
}

// FxAddCast is fixedpoint.AddCast: the exact sum quantized once.
func (m *Module) FxAddCast(x, y Fx, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) Fx {
	return m.FxCast(m.FxAdd(x, y), to, q, o)
}

// FxSubCast is fixedpoint.SubCast: the exact difference quantized once.
func (m *Module) FxSubCast(x, y Fx, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) Fx {
	return m.FxCast(m.FxSub(x, y), to, q, o)
}

// FxScaleExp is fixedpoint.ScaleExp: x * 2^n by moving the binary point
// (I += n); no logic.
func (m *Module) FxScaleExp(x Fx, n int) Fx {
	f := x.F
	f.I += n
	if err := f.Validate(); err != nil {
		m.fail("fxscaleexp %s by %d: %v", x.F, n, err)
	}
	return Fx{x.N, f}
}

// fxCmp aligns x and y to their common format and compares.
func (m *Module) fxCmp(op Op, x, y Fx) *Node {
	c := commonFormat(x.F, y.F)
	if c.W > MaxWidth {
		m.fail("fx compare %s with %s: common format wider than %d bits", x.F, y.F, MaxWidth)
		return m.placeholder(1, false)
	}
	return m.cmp(op, m.fxExact(x, c), m.fxExact(y, c))
}

// FxLt returns x < y, exact across formats (fixedpoint.Cmp < 0).
func (m *Module) FxLt(x, y Fx) *Node { return m.fxCmp(OpLt, x, y) }

// FxLe returns x <= y, exact across formats.
func (m *Module) FxLe(x, y Fx) *Node { return m.fxCmp(OpLe, x, y) }

// FxGt returns x > y, exact across formats.
func (m *Module) FxGt(x, y Fx) *Node { return m.fxCmp(OpGt, x, y) }

// FxGe returns x >= y, exact across formats.
func (m *Module) FxGe(x, y Fx) *Node { return m.fxCmp(OpGe, x, y) }

// FxEq returns x == y, exact across formats.
func (m *Module) FxEq(x, y Fx) *Node { return m.fxCmp(OpEq, x, y) }

// FxMux returns sel ? t : f; t and f must share a format.
func (m *Module) FxMux(sel *Node, t, f Fx) Fx {
	if t.F != f.F {
		m.fail("fxmux: formats %s and %s differ", t.F, f.F)
	}
	return Fx{m.Mux(sel, t.N, f.N), t.F}
}

// FxMin returns the smaller of x and y (same format): fixedpoint.Min.
func (m *Module) FxMin(x, y Fx) Fx { return m.FxMux(m.FxLt(y, x), y, x) }

// FxMax returns the larger of x and y (same format): fixedpoint.Max.
func (m *Module) FxMax(x, y Fx) Fx { return m.FxMux(m.FxGt(y, x), y, x) }

// FxCLZ is fixedpoint.CLZ: leading zeros of the raw pattern for an unsigned
// format; redundant sign bits (leading bits equal to the sign, minus one)
// for a signed one. Result unsigned, CountWidth(W) bits.
func (m *Module) FxCLZ(x Fx) *Node {
	if !x.F.Signed {
		return m.CLZ(x.N)
	}
	w := x.F.W
	rw := CountWidth(w)
	if w == 1 {
		return m.Const(rw, false, 0)
	}
	sign := m.AShrC(x.N, w-1) // all copies of the sign bit
	y := m.Xor(x.N, sign)     // leading sign copies become zeros
	return m.Resize(m.CLZ(m.Slice(y, 0, w-1)), rw)
}

// FxCast lowers fixedpoint.Cast(x, to, q, o) to integer logic with the same
// bits for every input:
//
//  1. Quantize: with d = x.F - to.F dropped fraction bits, r = floor(x/2^d)
//     (an arithmetic slice) and the dropped bits rem = x mod 2^d; the mode
//     decides a one-bit increment from the top dropped bit ("half"), the
//     OR of the others ("sticky"), the sign and r's LSB:
//     Trn 0; TrnZero neg&&(half||sticky); Rnd half; RndMinInf half&&sticky;
//     RndZero half&&(sticky||neg); RndInf half&&(sticky||!neg);
//     RndConv half&&(sticky||r[0]). q = r + inc in one more bit than r.
//     With d <= 0 no bits drop and q = x << -d exactly.
//  2. Overflow: q is compared with to's MAX and MIN (only the comparisons
//     that can fire are built) and a mux picks MAX/MIN (Sat), 0 (SatZero),
//     MAX/-MAX (SatSym, whose range is [-MAX, MAX] so MIN itself becomes
//     -MAX; unsigned: MAX/0) or q's low to.W bits (in range, and always for
//     Wrap).
func (m *Module) FxCast(x Fx, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) Fx {
	if err := to.Validate(); err != nil {
		m.fail("fxcast to %s: %v", to, err)
		return Fx{m.placeholder(1, false), to}
	}
	if !q.Valid() || !o.Valid() {
		m.fail("fxcast to %s: invalid mode %v/%v", to, q, o)
		return Fx{m.placeholder(to.W, to.Signed), to}
	}
	if x.F == to {
		return x
	}
	qn := m.fxQuantize(x, to.F(), q)
	return Fx{m.fxOverflow(qn, to, o), to}
}

// fxQuantize returns x in units of 2^-f (to's LSB), rounded under q, as an
// integer node with x's signedness and enough bits to hold it exactly.
func (m *Module) fxQuantize(x Fx, f int, q fixedpoint.Quantization) *Node {
	d := x.F.F() - f
	xn := x.N
	if d <= 0 {
		s := -d
		if xn.Width+s > MaxWidth {
			m.fail("fxcast %s: left shift by %d exceeds %d bits", x.F, s, MaxWidth)
			return m.placeholder(1, xn.Signed)
		}
		return m.ShlC(m.Ext(xn, xn.Width+s), s)
	}
	// Make sure at least one bit stays above the dropped ones.
	if xn.Width < d+1 {
		xn = m.Ext(xn, d+1)
	}
	w := xn.Width
	r := m.Slice(xn, d, w-d)
	if xn.Signed {
		r = m.AsSigned(r)
	}
	if q == fixedpoint.Trn {
		return r
	}
	half := m.Bit(xn, d-1)
	sticky := m.Const(1, false, 0)
	if d >= 2 {
		sticky = m.Ne(m.Slice(xn, 0, d-1), m.Const(d-1, false, 0))
	}
	neg := m.Const(1, false, 0)
	if xn.Signed {
		neg = m.Bit(xn, w-1)
	}
	var inc *Node
	switch q {
	case fixedpoint.TrnZero:
		inc = m.And(neg, m.Or(half, sticky))
	case fixedpoint.Rnd:
		inc = half
	case fixedpoint.RndMinInf:
		inc = m.And(half, sticky)
	case fixedpoint.RndZero:
		inc = m.And(half, m.Or(sticky, neg))
	case fixedpoint.RndInf:
		inc = m.And(half, m.Or(sticky, m.Not(neg)))
	default: // RndConv
		inc = m.And(half, m.Or(sticky, m.Bit(r, 0)))
	}
	inc = inc.Named("rnd_inc")
	re := m.Ext(r, r.Width+1)
	return m.Add(re, m.as(m.ZExt(inc, re.Width), re.Signed))
}

// fxOverflow fits integer node v (units of to's LSB) into to.W bits under o.
func (m *Module) fxOverflow(v *Node, to fixedpoint.Format, o fixedpoint.Overflow) *Node {
	vmin, vmax := intRange(v.Width, v.Signed)
	tmin, tmax := intRange(to.W, to.Signed)
	if o == fixedpoint.SatSym && to.Signed {
		tmin = new(big.Int).Neg(tmax) // range [-MAX, MAX]: MIN itself saturates
	}
	canHi := vmax.Cmp(tmax) > 0
	canLo := vmin.Cmp(tmin) < 0
	fit := func() *Node {
		if v.Width > to.W {
			return m.as(m.Slice(v, 0, to.W), to.Signed)
		}
		return m.as(m.Ext(v, to.W), to.Signed)
	}
	if o == fixedpoint.Wrap || (!canHi && !canLo) {
		return fit()
	}
	low := fit()
	hiVal, loVal := tmax, tmin
	if o == fixedpoint.SatZero {
		hiVal, loVal = new(big.Int), new(big.Int)
	}
	k := func(x *big.Int) *Node { return m.ConstBits(to.W, to.Signed, BitsOfBig(x, to.W)) }
	res := low
	if canLo {
		under := m.Lt(v, m.ConstBits(v.Width, v.Signed, BitsOfBig(tmin, v.Width))).Named("ovf_lo")
		res = m.Mux(under, k(loVal), res)
	}
	if canHi {
		over := m.Gt(v, m.ConstBits(v.Width, v.Signed, BitsOfBig(tmax, v.Width))).Named("ovf_hi")
		res = m.Mux(over, k(hiVal), res)
	}
	return res
}

// intRange returns the smallest and largest integer of a w-bit signed or
// unsigned word.
func intRange(w int, signed bool) (lo, hi *big.Int) {
	one := big.NewInt(1)
	if signed {
		p := new(big.Int).Lsh(one, uint(w-1))
		return new(big.Int).Neg(p), new(big.Int).Sub(p, one)
	}
	return new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(w)), one)
}

// FxRecip lowers a fixedpoint.Reciprocal unit (configuration c with its
// Work format filled in, as Reciprocal.Config returns it, and the table
// Reciprocal.Table returns) to logic with the same bits for every input:
//
//  1. normalize: z = CLZ(x), mantissa m = x << z (format u(W).1);
//  2. look up: y0 = table[m's k bits after the leading one] (format Entry);
//  3. refine NRSteps times: e = MulCast(m, y, Work, Trn, Sat);
//     t = SubCast(2, e, Work, Trn, Sat); y = MulCast(y, t, Work, Trn, Sat);
//  4. scale: y * 2^(In.F - (W-1-z)) is y << z read with y.F - In.F + W - 1
//     fraction bits, cast into Out under c.Q and c.O;
//  5. x = 0 gives Out's MAX.
func (m *Module) FxRecip(x Fx, c fixedpoint.ReciprocalConfig, table []uint64) Fx {
	if x.F != c.In || c.In.Signed {
		m.fail("fxrecip: input format %s: want the unit's unsigned In %s", x.F, c.In)
		return Fx{m.placeholder(max(c.Out.W, 1), c.Out.Signed), c.Out}
	}
	w, k := c.In.W, c.TableBits
	if len(table) != 1<<uint(k) {
		m.fail("fxrecip: %d table entries for TableBits=%d", len(table), k)
		return Fx{m.placeholder(max(c.Out.W, 1), c.Out.Signed), c.Out}
	}
	if c.NRSteps > 0 && c.Work == (fixedpoint.Format{}) {
		m.fail("fxrecip: NRSteps=%d needs the Work format (use Reciprocal.Config)", c.NRSteps)
		return Fx{m.placeholder(max(c.Out.W, 1), c.Out.Signed), c.Out}
	}
	z := m.CLZ(x.N).Named("recip_clz")
	mant := Fx{m.Shl(x.N, z).Named("recip_mant"), fixedpoint.Format{W: w, I: 1}}
	addr := m.Const(1, false, 0)
	if k > 0 {
		addr = m.Slice(mant.N, w-1-k, k)
	}
	y := m.FxOf(m.ROM(addr, c.Entry.W, table).Named("recip_rom"), c.Entry)
	if c.NRSteps > 0 {
		two, err := fixedpoint.FromInt(c.Work, 2, fixedpoint.Sat)
		if err != nil {
			m.fail("fxrecip: Work=%s: %v", c.Work, err)
			return Fx{m.placeholder(max(c.Out.W, 1), c.Out.Signed), c.Out}
		}
		twoK := m.FxConst(two)
		for s := 0; s < c.NRSteps; s++ {
			e := m.FxMulCast(mant, y, c.Work, fixedpoint.Trn, fixedpoint.Sat)
			t := m.FxSubCast(twoK, e, c.Work, fixedpoint.Trn, fixedpoint.Sat)
			y = m.FxMulCast(y, t, c.Work, fixedpoint.Trn, fixedpoint.Sat)
		}
	}
	zw := y.F.W + w - 1
	zf := y.F.F() - c.In.F() + w - 1
	scaled := Fx{m.Shl(m.ZExt(y.N, zw), z), fixedpoint.Format{W: zw, I: zw - zf}}
	if err := scaled.F.Validate(); err != nil {
		m.fail("fxrecip: scaled format: %v", err)
		return Fx{m.placeholder(max(c.Out.W, 1), c.Out.Signed), c.Out}
	}
	r := m.FxCast(scaled, c.Out, c.Q, c.O)
	maxv := m.FxConst(c.Out.Max())
	return m.FxMux(m.IsZero(x.N), maxv, r)
}
