package coverage

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// The high bits of MultiQ's case-3 u' before its cast (issue 14): the
// sign and slice bins (operand_bits.go) of u_nbl's rounded sum v =
// zext(s0) + zext(s1) (s0 = p[top:K], s1 = p[K-1], p = tx_rate *
// recip_mq) and of s0 need a high bit of v or s0 at 1: the compare v >
// max read signed needs v's top bit, the extension of s0 its top bit, the
// slice v[31:0] moved by one bit 31 or 32. declareUnblBound
// (multiq_unbl.go) bounds v below the cast's threshold; the same argument
// with a lower goal bounds it below 2^j: v <= (y * r(y) >> K) + 1 for the
// mux mq_y whose arms are each at least tx_rate, and the value analysis
// per piece of y (recipProductBelow) shows y * r(y) < (2^j - 1) << K, so
// v <= 2^j - 1 and bit j and every bit above it are 0, in v and in s0 <= v
// (the sum of the zero extensions does not wrap: v is wider than s0).

// unblShape returns, for the hop slot's mq_y y, recip_mq r and u_nbl mux
// u, the rounded sum v, its truncated part s0, the multiplicand a (tx_rate)
// and the drop K, when the description has declareUnblBound's form.
func (m *Model) unblShape(y, r, u *rtl.Node) (v, s0, a *rtl.Node, k int, ok bool) {
	cmp := u.Args[0]
	if cmp.Op != rtl.OpGt {
		return nil, nil, nil, 0, false
	}
	v = cmp.Args[0]
	if v.Op != rtl.OpAdd || len(v.Args) != 2 || v.Signed {
		return nil, nil, nil, 0, false
	}
	s0, s1 := peel(v.Args[0]), peel(v.Args[1])
	if s0.Op != rtl.OpSlice || s1.Op != rtl.OpSlice || s0.Args[0] != s1.Args[0] || s1.Width != 1 || s1.K != s0.K-1 ||
		s0.K+s0.Width != s0.Args[0].Width || s0.Width >= v.Width {
		return nil, nil, nil, 0, false
	}
	p := s0.Args[0]
	if p.Op != rtl.OpMul || p.Signed || len(p.Args) != 2 || p.Width < p.Args[0].Width+p.Args[1].Width {
		return nil, nil, nil, 0, false
	}
	switch {
	case peel(p.Args[1]) == r:
		a = peel(p.Args[0])
	case peel(p.Args[0]) == r:
		a = peel(p.Args[1])
	default:
		return nil, nil, nil, 0, false
	}
	if !m.notBelow(y.Args[1], a) || !m.notBelow(y.Args[2], a) || s0.K >= 128 {
		return nil, nil, nil, 0, false
	}
	return v, s0, a, s0.K, true
}

// bitNeeded returns, for bin b of sign or slice point p, the node and the
// bit that the bin needs at 1 (ok false for other points or bins).
func (m *Model) bitNeeded(p *Point, b int, byLabel map[string]*rtl.Node) (x *rtl.Node, bit int, ok bool) {
	switch p.Kind {
	case KindSign:
		if b >= len(p.src) {
			return nil, 0, false
		}
		n := byLabel[p.Node]
		if n == nil {
			return nil, 0, false
		}
		switch n.Op {
		case rtl.OpZExt, rtl.OpSExt, rtl.OpLShr, rtl.OpAShr, rtl.OpLShrC, rtl.OpAShrC:
			if b != 0 {
				return nil, 0, false
			}
		case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe, rtl.OpMul:
		default:
			return nil, 0, false
		}
		x = p.src[b]
		return x, x.Width - 1, true
	case KindSlice:
		n := byLabel[p.Node]
		if n == nil || n.Op != rtl.OpSlice || len(p.src) != 1 {
			return nil, 0, false
		}
		e, nb := n.K+n.Width-1, n.K+n.Width
		if strings.HasPrefix(p.Name, "slice_below_") {
			e, nb = n.K, n.K-1
		}
		if b == 0 {
			return p.src[0], e, true // bit nb at 0 while bit e is 1
		}
		return p.src[0], nb, true
	}
	return nil, 0, false
}

// declareUnblBits declares, for every MultiQ hop slot of declareUnblBound's
// form, each sign and slice bin that needs bit j of u_nbl's rounded sum v
// or of its truncated part s0 at 1, where the per-piece analysis shows v <=
// 2^j - 1.
func (m *Model) declareUnblBits() {
	byName := map[string]*rtl.Node{}
	byLabel := map[string]*rtl.Node{}
	for _, n := range m.f.Nodes {
		byName[n.Name] = n
		byLabel[nodeLabel(n)] = n
	}
	norms := normalizerShl(m.f)
	cache := map[string]string{}
	for i := 0; ; i++ {
		hp := "h" + strconv.Itoa(i) + "_"
		y, r, u := byName[hp+"mq_y"], byName[hp+"recip_mq"], byName[hp+"u_nbl"]
		if y == nil {
			return
		}
		if r == nil || u == nil || u.Op != rtl.OpMux || y.Op != rtl.OpMux {
			continue
		}
		v, s0, a, k, ok := m.unblShape(y, r, u)
		if !ok {
			continue
		}
		var shl *rtl.Node
		for _, s := range norms {
			if s.Args[0] == y {
				shl = s
			}
		}
		if shl == nil {
			continue
		}
		for pi := range m.Points {
			p := &m.Points[pi]
			if p.Kind != KindSign && p.Kind != KindSlice {
				continue
			}
			for b := range p.Bins {
				if p.Bins[b].Unreachable != "" {
					continue
				}
				x, j, ok := m.bitNeeded(p, b, byLabel)
				if !ok || x != v && x != s0 || j < 1 || j >= 64 {
					continue
				}
				why := m.unblBelow(cache, shl, y, r, k, j)
				if why == "" {
					continue
				}
				l := nodeLabel
				p.Bins[b].Unreachable = fmt.Sprintf("every arm of %s = mux(%s, ...) is at least %s (description), so %s = Rnd(%s * %s >> %d) <= (%s * %s >> %d) + 1; %s: %s <= %d, so bit %d of %s (and of %s <= %s) is 0",
					l(y), l(y.Args[0]), l(a), l(v), l(a), l(r), k, l(y), l(r), k, why, l(v), uint64(1)<<uint(j)-1, j, l(v), l(s0), l(v))
			}
		}
	}
}

// unblBelow proves y * r(y) < (2^j - 1) << k by recipProductBelow and
// returns the proof's text, or "" (cached by the cone's structure and the
// goal).
func (m *Model) unblBelow(cache map[string]string, shl, y, r *rtl.Node, k, j int) string {
	g := uint64(1)<<uint(j) - 1
	gh, gl := uint64(0), g
	switch {
	case k >= 64:
		if k-64+j > 64 {
			return ""
		}
		gh, gl = g<<uint(k-64), 0
	case k > 0:
		if k+j > 128 {
			return ""
		}
		gh, gl = g>>uint(64-k), g<<uint(k)
	}
	cr, err := grade.NewConeRanges(m.f, []*rtl.Node{y}, []*rtl.Node{r})
	if err != nil {
		return ""
	}
	xlo, xhi, _ := m.interval(y)
	key := fmt.Sprintf("%s|[%d,%d]|%d,%d", m.coneSig(cr, y, r), xlo, xhi, gh, gl)
	if why, ok := cache[key]; ok {
		return why
	}
	why := ""
	if runs, proved := m.recipProductBelow(shl, r, gh, gl); proved {
		why = fmt.Sprintf("value analysis per piece of %s (%d runs, grade.ConeRanges): %s * %s < %d << %d", nodeLabel(y), runs, nodeLabel(y), nodeLabel(r), g, k)
	}
	cache[key] = why
	return why
}
