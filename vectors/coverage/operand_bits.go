package coverage

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// Structural kinds of the operand bits a mutation grader's signedness and
// slice mutants need (grade/mutate.go: cmp-sign, ext-swap, mul-sign, the
// lshr <-> ashr op-swap, slice+1 and slice-1). Each bin is a condition
// under which the mutant's value differs from the original's at the node:
// without it a mutant can survive every vector while every other bin is
// hit.
const (
	// KindSign: a signedness-sensitive node (ordered compare, extension,
	// product, right shift) with an operand's top bit set while reading it
	// signed or unsigned gives a different result.
	KindSign Kind = "sign"
	// KindSlice: the bit just above (below) a slice x[hi:lo] of a wider x
	// at 0 and at 1 while it differs from the sliced edge bit hi (lo).
	KindSlice Kind = "slice"
)

// addOperandBits adds the sign and slice points of node n (a live node of
// the flattened description), if it has any.
func (m *Model) addOperandBits(n *rtl.Node) {
	switch n.Op {
	case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		m.addSignCompare(n)
	case rtl.OpZExt, rtl.OpSExt:
		m.addSignExt(n)
	case rtl.OpMul:
		m.addSignMul(n)
	case rtl.OpLShr, rtl.OpAShr, rtl.OpLShrC, rtl.OpAShrC:
		m.addSignShift(n)
	case rtl.OpSlice:
		m.addSliceEdges(n)
	}
}

// topBit returns whether the value analysis fixes the top bit of n, its
// value, and the proof.
func (m *Model) topBit(n *rtl.Node) (known, v bool, why string) {
	return m.bitFixed(n, n.Width-1)
}

// bitFixed returns whether the value analysis fixes bit i of n (by its
// known bits, or by its interval: every value in [lo, hi] has the same
// bit i when lo and hi agree on it and on every bit above it), its value,
// and the proof.
func (m *Model) bitFixed(n *rtl.Node, i int) (known, v bool, why string) {
	if k, b := bitKnown(m.rng[n.ID], i); k {
		return true, b, fmt.Sprintf("%s: bit %d of %s is always %d (known bits)", m.analysis(n), i, nodeLabel(n), b2i(b))
	}
	if why := productLowZero(n, i); why != "" {
		return true, false, why
	}
	if lo, hi, ok := m.interval(n); ok && i < 64 && lo>>uint(i) == hi>>uint(i) {
		b := lo>>uint(i)&1 == 1
		return true, b, fmt.Sprintf("%s: bit %d of %s is always %d", m.rangeText(n), i, nodeLabel(n), b2i(b))
	}
	return false, false, ""
}

// svTop is the SystemVerilog test of n's top bit (a compare, legal on an
// inlined constant too).
func (m *Model) svTop(n *rtl.Node) string {
	return fmt.Sprintf("(%s >= %s)", m.svRef(n), svLit(n.Width, rtl.BitsOf(1).Shl(uint(n.Width-1))))
}

// addSignCompare: an ordered compare of a and b reads differently signed
// and unsigned exactly when their top bits differ (cmp-sign shows then and
// only then). Bins: a's top bit 1 and b's 0; a's 0 and b's 1.
func (m *Model) addSignCompare(n *rtl.Node) {
	a, b := n.Args[0], n.Args[1]
	w := a.Width
	bins := []Bin{{Name: "a_top1"}, {Name: "b_top1"}}
	ka, va, wa := m.topBit(a)
	kb, vb, wb := m.topBit(b)
	// bin 0 needs a's top 1 and b's 0; bin 1 the reverse.
	for i, need := range [2][2]bool{{true, false}, {false, true}} {
		switch {
		case ka && va != need[0]:
			bins[i].Unreachable = wa
		case kb && vb != need[1]:
			bins[i].Unreachable = wb
		default:
			bins[i].Unreachable = m.excludedPerLengthBits([]bitCond{{a, w - 1, need[0]}, {b, w - 1, need[1]}})
		}
	}
	aid, bid := a.ID, b.ID
	m.add(Point{Name: "sign_" + nodeLabel(n), Kind: KindSign, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{a, b},
		Doc: fmt.Sprintf("%s %s %s read signed and unsigned differ (top bits differ): a's top bit 1, b's 1", nodeLabel(a), n.Op, nodeLabel(b)),
		sample: func(s valueSource) int {
			ta, tb := s.node(aid).Bit(w-1), s.node(bid).Bit(w-1)
			switch {
			case ta && !tb:
				return 0
			case !ta && tb:
				return 1
			}
			return -1
		},
		sv: svPoint{expr: fmt.Sprintf("{%s, %s}", m.svTop(a), m.svTop(b)), vals: []string{"{2}", "{1}"}}})
}

// addSignExt: sign and zero extension of a to a wider width differ exactly
// when a's top bit is 1 (ext-swap shows). Bin: top bit 1. (Top bit 0 never
// makes them differ, so it is no bin.)
func (m *Model) addSignExt(n *rtl.Node) {
	a := n.Args[0]
	if a.Width >= n.Width {
		return // same width: both extensions are the identity
	}
	bins := []Bin{{Name: "top1"}}
	if k, v, why := m.topBit(a); k && !v {
		bins[0].Unreachable = why
	}
	w, aid := a.Width, a.ID
	m.add(Point{Name: "sign_" + nodeLabel(n), Kind: KindSign, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{a},
		Doc: fmt.Sprintf("%s of %s to %d bits: operand top bit 1 (sign and zero extension differ)", n.Op, nodeLabel(a), n.Width),
		sample: func(s valueSource) int {
			if s.node(aid).Bit(w - 1) {
				return 0
			}
			return -1
		},
		sv: svPoint{expr: m.svTop(a), vals: []string{"{1}"}}})
}

// addSignMul: the product of a and b read signed minus read unsigned is
// -(a_top ? b << |a| : 0) - (b_top ? a << |b| : 0) mod 2^(|a|+|b|), so with
// one top bit set it differs exactly when the other operand is not 0
// (mul-sign shows). Bins: a's top bit 1, b's 0, b != 0; b's top bit 1,
// a's 0, a != 0. (Both top bits set can cancel, so it is no bin.)
func (m *Model) addSignMul(n *rtl.Node) {
	a, b := n.Args[0], n.Args[1]
	bins := []Bin{{Name: "a_top1"}, {Name: "b_top1"}}
	ka, va, wa := m.topBit(a)
	kb, vb, wb := m.topBit(b)
	zero := func(x *rtl.Node) string {
		if lo, hi, ok := m.interval(x); ok && lo == 0 && hi == 0 {
			return m.rangeText(x)
		}
		return ""
	}
	for i, need := range [2][2]bool{{true, false}, {false, true}} {
		other := b
		if i == 1 {
			other = a
		}
		switch {
		case ka && va != need[0]:
			bins[i].Unreachable = wa
		case kb && vb != need[1]:
			bins[i].Unreachable = wb
		case zero(other) != "":
			bins[i].Unreachable = zero(other)
		default:
			bins[i].Unreachable = m.excludedPerLengthBits([]bitCond{{a, a.Width - 1, need[0]}, {b, b.Width - 1, need[1]}, {other, -1, true}})
		}
	}
	aw, bw, aid, bid := a.Width, b.Width, a.ID, b.ID
	m.add(Point{Name: "sign_" + nodeLabel(n), Kind: KindSign, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{a, b},
		Doc: fmt.Sprintf("product %s * %s read signed and unsigned differ: a's top bit 1 (b's 0, b != 0), b's top bit 1 (a's 0, a != 0)", nodeLabel(a), nodeLabel(b)),
		sample: func(s valueSource) int {
			x, y := s.node(aid), s.node(bid)
			ta, tb := x.Bit(aw-1), y.Bit(bw-1)
			switch {
			case ta && !tb && !y.Trunc(bw).IsZero():
				return 0
			case !ta && tb && !x.Trunc(aw).IsZero():
				return 1
			}
			return -1
		},
		sv: svPoint{expr: fmt.Sprintf("{%s, %s, (%s != %s), (%s != %s)}", m.svTop(a), m.svTop(b), m.svRef(a), svLit(aw, rtl.Bits{}), m.svRef(b), svLit(bw, rtl.Bits{})),
			vals: []string{"{11}", "{7}"}}})
}

// addSignShift: a logical and an arithmetic right shift of a differ exactly
// when a's top bit is 1 and the amount is at least 1 (the lshr <-> ashr
// swap shows). Bin: top bit 1 with a non-zero amount.
func (m *Model) addSignShift(n *rtl.Node) {
	a := n.Args[0]
	if (n.Op == rtl.OpLShrC || n.Op == rtl.OpAShrC) && n.K == 0 {
		return // a shift by 0 is the identity either way
	}
	bins := []Bin{{Name: "top1"}}
	if k, v, why := m.topBit(a); k && !v {
		bins[0].Unreachable = why
	}
	w, aid, amt := a.Width, a.ID, -1
	expr := m.svTop(a)
	vals := []string{"{1}"}
	if n.Op == rtl.OpLShr || n.Op == rtl.OpAShr {
		s := n.Args[1]
		amt = s.ID
		if lo, hi, ok := m.interval(s); ok && lo == 0 && hi == 0 && bins[0].Unreachable == "" {
			bins[0].Unreachable = m.rangeText(s)
		}
		expr = fmt.Sprintf("{%s, (%s != %s)}", expr, m.svRef(s), svLit(s.Width, rtl.Bits{}))
		vals = []string{"{3}"}
	}
	m.add(Point{Name: "sign_" + nodeLabel(n), Kind: KindSign, Node: nodeLabel(n), Bins: bins, src: n.Args,
		Doc: fmt.Sprintf("%s of %s: operand top bit 1 with a non-zero amount (logical and arithmetic shift differ)", n.Op, nodeLabel(a)),
		sample: func(s valueSource) int {
			if !s.node(aid).Bit(w - 1) {
				return -1
			}
			if amt >= 0 && s.node(amt).IsZero() {
				return -1
			}
			return 0
		},
		sv: svPoint{expr: expr, vals: vals}})
}

// addSliceEdges: a slice x[hi:lo] moved up one bit (slice+1) reads bit
// hi+1 where it read bit hi, moved down (slice-1) bit lo-1 where it read
// bit lo. Points: the bit above hi at 0 while bit hi is 1 and at 1 while
// bit hi is 0 (where hi+1 is a bit of x); the bit below lo likewise
// against bit lo (where lo > 0). Bits the value analysis fixes, or that
// the description makes copies of the edge bit (x a sign extension whose
// copied sign covers both), make bins unreachable.
func (m *Model) addSliceEdges(n *rtl.Node) {
	x := n.Args[0]
	if x.Op == rtl.OpConst {
		return
	}
	hi, lo := n.K+n.Width-1, n.K
	if hi+1 < x.Width {
		m.addSliceEdge(n, x, hi, hi+1, "above")
	}
	if lo > 0 {
		m.addSliceEdge(n, x, lo, lo-1, "below")
	}
}

// addSliceEdge adds point <side>_<n>: bit nb of x at 0 while bit e is 1
// (bin <side>0) and at 1 while bit e is 0 (bin <side>1).
func (m *Model) addSliceEdge(n, x *rtl.Node, e, nb int, side string) {
	bins := []Bin{{Name: side + "0"}, {Name: side + "1"}}
	ke, ve, we := m.bitFixed(x, e)
	kn, vn, wn := m.bitFixed(x, nb)
	for i, nv := range []bool{false, true} {
		switch {
		case kn && vn != nv:
			bins[i].Unreachable = wn
		case ke && ve == nv:
			bins[i].Unreachable = we
		default:
			bins[i].Unreachable = m.excludedPerLengthBits([]bitCond{{x, nb, nv}, {x, e, !nv}})
		}
	}
	if why := signCopies(x, e, nb); why != "" {
		for i := range bins {
			if bins[i].Unreachable == "" {
				bins[i].Unreachable = why
			}
		}
	}
	xid := x.ID
	m.add(Point{Name: "slice_" + side + "_" + nodeLabel(n), Kind: KindSlice, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{x},
		Doc: fmt.Sprintf("slice %s = %s[%d:%d]: bit %d (%s the slice) at 0 and at 1 while bit %d differs from it", nodeLabel(n), nodeLabel(x), n.K+n.Width-1, n.K, nb, side, e),
		sample: func(s valueSource) int {
			v := s.node(xid)
			be, bn := v.Bit(e), v.Bit(nb)
			if be == bn {
				return -1
			}
			return b2i(bn)
		},
		// {bit nb, bit e}: 2'b01 bin 0, 2'b10 bin 1.
		sv: svPoint{expr: fmt.Sprintf("{%s[%d], %s[%d]}", m.svRef(x), nb, m.svRef(x), e), vals: []string{"{1}", "{2}"}},
	})
}

// signCopies proves that bits i and j of x are always equal when x is, up
// to reinterpretations, a sign extension of y with both bits at or above
// y's top bit (both are copies of it). It returns the proof, or "".
func signCopies(x *rtl.Node, i, j int) string {
	p := x
	for p.Op == rtl.OpAs {
		p = p.Args[0]
	}
	if p.Op != rtl.OpSExt {
		return ""
	}
	y := p.Args[0]
	if min(i, j) < y.Width-1 {
		return ""
	}
	return fmt.Sprintf("description: %s is %s sign-extended from %d bits: bits %d and %d are both copies of its top bit %d", nodeLabel(x), nodeLabel(y), y.Width, i, j, y.Width-1)
}

// bitCond is one condition of a bin: bit Bit of node N equals V, or, with
// Bit = -1, N is not zero.
type bitCond struct {
	n   *rtl.Node
	bit int
	v   bool
}

// contradicts reports whether range r (of c's node) rules condition c out.
func (c bitCond) contradicts(r grade.Range) bool {
	if c.bit < 0 {
		return r.HasRange && r.Lo == 0 && r.Hi == 0
	}
	if k, b := bitKnown(r, c.bit); k {
		return b != c.v
	}
	if r.HasRange && c.n.Width <= 64 && c.bit < 64 && r.Lo>>uint(c.bit) == r.Hi>>uint(c.bit) {
		return (r.Lo>>uint(c.bit)&1 == 1) != c.v
	}
	return false
}

// excludedPerLengthBits proves that the conditions never hold together
// when, for some normalizer input x, every run of the value analysis per
// bit length of x (grade.NormalizerRuns: the runs of one input cover every
// input) rules out at least one of them: x << clz(x) has its top bit set
// at every length but 0, where it is 0 throughout. It returns the proof,
// or "".
func (m *Model) excludedPerLengthBits(conds []bitCond) string {
	if m.runs == nil {
		m.runs = grade.NormalizerRuns(m.f)
	}
	for _, runs := range m.runs {
		if len(runs) == 0 {
			continue
		}
		var parts []string
		for _, r := range runs {
			out := ""
			for _, c := range conds {
				if c.contradicts(r.Ranges[c.n.ID]) {
					if c.bit < 0 {
						out = fmt.Sprintf("L=%d: %s = 0", r.L, nodeLabel(c.n))
					} else {
						out = fmt.Sprintf("L=%d: bit %d of %s is %d", r.L, c.bit, nodeLabel(c.n), b2i(!c.v))
					}
					break
				}
			}
			if out == "" {
				parts = nil
				break
			}
			parts = append(parts, out)
		}
		if parts != nil {
			return fmt.Sprintf("value analysis per bit length L of %s (every length some input gives): %s", nodeLabel(m.f.Nodes[runs[0].X]), strings.Join(parts, ", "))
		}
	}
	return m.excludedBySplits(conds) // hpcc_thresholds.go
}

// productLowZero proves bit i of n zero when n is a product with a
// constant operand of z >= i+1 trailing zeros (the product is a multiple
// of 2^z, modulo 2^W too). It returns the proof, or "".
func productLowZero(n *rtl.Node, i int) string {
	p := n
	for p.Op == rtl.OpAs {
		p = p.Args[0]
	}
	if p.Op != rtl.OpMul {
		return ""
	}
	for _, a := range p.Args {
		c := peel(a)
		if c.Op != rtl.OpConst || a.Op != rtl.OpConst && a.Op != rtl.OpAs {
			continue
		}
		k := c.Value.Trunc(a.Width)
		if k.IsZero() {
			continue
		}
		z := 0
		for !k.Bit(z) {
			z++
		}
		if i < z {
			return fmt.Sprintf("description: %s = %s * %s, a constant with %d trailing zeros, so bit %d is always 0", nodeLabel(n), nodeLabel(p.Args[0]), nodeLabel(p.Args[1]), z, i)
		}
	}
	return ""
}
