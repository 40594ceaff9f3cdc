package rtl

// Composite helpers: each expands into primitive ops (so both printers and
// the evaluator see only the ops of op.go).

// bitLen returns the number of bits needed to hold v (v >= 0).
func bitLen(v int) int {
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

// CountWidth returns the width of CLZ's result for a w-bit operand: enough
// bits to hold w.
func CountWidth(w int) int { return max(bitLen(w), 1) }

// CLZ returns the number of leading zero bits of a's raw pattern (a.Width
// when a is zero), unsigned, CountWidth(a.Width) bits: a priority encoder
// built as a binary tree (log2 depth). The operand is padded on the right
// with ones up to a power of two so the tree never sees an all-zero word
// unless a's width is itself a power of two.
func (m *Module) CLZ(a *Node) *Node {
	if !m.okArgs(OpSlice, a) {
		return m.placeholder(1, false)
	}
	w := a.Width
	rw := CountWidth(w)
	if w == 1 {
		return m.Not(m.AsUnsigned(a))
	}
	p := 1
	for p < w {
		p <<= 1
	}
	cur := m.AsUnsigned(a)
	if p > w {
		cur = m.Concat(cur, m.ConstBits(p-w, false, onesBits(p-w)))
	}
	levels := bitLen(p) - 1 // log2(p)
	zs := make([]*Node, levels)
	for k := levels - 1; k >= 0; k-- {
		half := 1 << uint(k)
		hi := m.Slice(cur, half, half)
		lo := m.Slice(cur, 0, half)
		z := m.Eq(hi, m.Const(half, false, 0))
		zs[levels-1-k] = z
		if k > 0 {
			cur = m.Mux(z, lo, hi)
		}
	}
	// zs (MSB first) is the count for a non-zero word.
	cnt := m.Concat(zs...)
	if p == w {
		// All-zero word: the tree says p-1, the answer is p.
		allz := m.Eq(a, m.ConstBits(w, a.Signed, Bits{}))
		wide := m.ZExt(cnt, rw)
		return m.Mux(allz, m.Const(rw, false, uint64(w)), wide).Named("clz")
	}
	return m.Resize(cnt, rw).Named("clz")
}

func onesBits(w int) Bits {
	var b Bits
	return b.Not().Trunc(w)
}

// Neg returns -a modulo 2^W (0 - a).
func (m *Module) Neg(a *Node) *Node {
	if !m.okArgs(OpSub, a) {
		return m.placeholder(widthOf(a), false)
	}
	return m.Sub(m.ConstBits(a.Width, a.Signed, Bits{}), a)
}

// Min returns the smaller of a and b (same width and signedness).
func (m *Module) Min(a, b *Node) *Node { return m.Mux(m.Lt(a, b), a, b) }

// Max returns the larger of a and b (same width and signedness).
func (m *Module) Max(a, b *Node) *Node { return m.Mux(m.Gt(a, b), a, b) }

// IsZero returns a == 0 (1 bit).
func (m *Module) IsZero(a *Node) *Node {
	if !m.okArgs(OpEq, a) {
		return m.placeholder(1, false)
	}
	return m.Eq(a, m.ConstBits(a.Width, a.Signed, Bits{}))
}

// AndAll returns the AND of 1-bit nodes (1 when none are given).
func (m *Module) AndAll(xs ...*Node) *Node {
	if len(xs) == 0 {
		return m.Const(1, false, 1)
	}
	r := xs[0]
	for _, x := range xs[1:] {
		r = m.And(r, x)
	}
	return r
}

// OrAll returns the OR of 1-bit nodes (0 when none are given).
func (m *Module) OrAll(xs ...*Node) *Node {
	if len(xs) == 0 {
		return m.Const(1, false, 0)
	}
	r := xs[0]
	for _, x := range xs[1:] {
		r = m.Or(r, x)
	}
	return r
}
