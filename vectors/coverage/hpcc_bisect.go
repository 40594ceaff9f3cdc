package coverage

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// bisectBudget bounds the pieces one bisection proof analyses (a proof of
// eta/U exactly 1 takes about 140; a reachable target fails at its first
// one-value piece, a few dozen in).
const bisectBudget = 2048

// normalizerInputs returns the input x of every normalizer x << clz of
// the description (the reciprocal units), in node order.
func (m *Model) normalizerInputs() []*rtl.Node {
	var out []*rtl.Node
	for _, n := range m.f.Nodes {
		if n.Op == rtl.OpShl && len(n.Args) == 2 && (n.Args[1].Name == "clz" || strings.HasPrefix(n.Args[1].Name, "clz_")) && n.Args[0].Width <= 64 {
			out = append(out, n.Args[0])
		}
	}
	return out
}

func (m *Model) bisections(targets ...*rtl.Node) []*grade.Bisection {
	if m.bisector == nil {
		m.bisector = grade.NewBisector(m.f)
	}
	var out []*grade.Bisection
	for _, x := range m.normalizerInputs() {
		if b := m.bisector.Of(x, targets...); b != nil {
			out = append(out, b)
		}
	}
	return out
}

// excludedByBisection proves that node v (at most 64 bits) never equals
// c when v is a function of a normalizer's input x alone and, in every
// piece of a bisection of x's values (grade.Bisection: by bit length, then
// halves, each piece's value analysis exact for one value), c lies outside
// v's interval or contradicts its known bits: eta/U is never exactly 1
// (just below eta it is 2^32 + 221, at eta 2^32 - 21). It returns the
// proof, or "".
func (m *Model) excludedByBisection(v *rtl.Node, c uint64) string {
	if v.Op == rtl.OpConst || v.Op == rtl.OpInput {
		return ""
	}
	cb := rtl.BitsOf(c)
	for _, b := range m.bisections(v) {
		n, ok := b.Holds(0, maxOf(b.X().Width), func(p *grade.Piece) bool {
			r := p.Range(v)
			return r.HasRange && (c < r.Lo || c > r.Hi) || !cb.And(r.Zero).IsZero() || cb.And(r.One) != r.One
		}, bisectBudget)
		if ok {
			return fmt.Sprintf("value analysis over a bisection of %s (%d pieces: by bit length, then halves; %s is a function of %s alone): %s never equals %d in any piece", nodeLabel(b.X()), n, nodeLabel(v), nodeLabel(b.X()), nodeLabel(v), c)
		}
	}
	return ""
}

// armsEqualBisected proves bin b (select value v) of mux n unreachable
// when the select and both arms are functions of a normalizer's input x
// alone and, in every piece of a bisection of x's values, the select is
// decided against v or both arms reach the same node through the muxes the
// piece decides: eta/U clamped at 1 where U >= eta equals eta/U, which is
// below 1 there.
func (m *Model) armsEqualBisected(n *rtl.Node, v bool) string {
	sel, t, e := n.Args[0], n.Args[1], n.Args[2]
	for _, b := range m.bisections(sel, t, e) {
		cnt, ok := b.Holds(0, maxOf(b.X().Width), func(p *grade.Piece) bool {
			if r := p.Range(sel); r.HasRange && r.Lo == r.Hi && (r.Lo == 1) != v {
				return true
			}
			return p.Resolve(t) == p.Resolve(e)
		}, bisectBudget)
		if ok {
			return fmt.Sprintf("value analysis over a bisection of %s (%d pieces: by bit length, then halves; %s and both arms are functions of %s alone): in every piece %s is not %d or both arms are the same node through the muxes the piece decides", nodeLabel(b.X()), cnt, nodeLabel(sel), nodeLabel(b.X()), nodeLabel(sel), b2i(v))
		}
	}
	return ""
}
