package coverage

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// addRelations sharpens the model's value analysis by the relations
// interval arithmetic loses (grade.RelationalValueRanges: convex
// combinations and round-half-up sums): every node's Range becomes the
// meet of the split analysis' and the relational one's, both sound, and
// the relations applied are kept to name the proofs they give. Called
// before the points are built.
func (m *Model) addRelations() {
	rs, rels := grade.RelationalValueRanges(m.f)
	if len(rels) == 0 {
		return
	}
	m.split = append([]grade.Range(nil), m.rng...)
	for i, n := range m.f.Nodes {
		m.rng[i] = meetRange(m.rng[i], rs[i], n.Width)
	}
	m.relations = rels
}

// meetRange is what holds in both of two sound Ranges of a w-bit node:
// every known bit of either, the intersection of the intervals. When they
// contradict (which sound analyses never do) a is kept.
func meetRange(a, b grade.Range, w int) grade.Range {
	r := grade.Range{Zero: a.Zero.Or(b.Zero), One: a.One.Or(b.One), Lo: a.Lo, Hi: a.Hi, HasRange: a.HasRange}
	if !r.Zero.And(r.One).IsZero() {
		return a
	}
	if w <= 64 && b.HasRange {
		if !r.HasRange {
			r.Lo, r.Hi, r.HasRange = b.Lo, b.Hi, true
		} else {
			r.Lo, r.Hi = max(r.Lo, b.Lo), min(r.Hi, b.Hi)
		}
		if r.Lo > r.Hi {
			return a
		}
	}
	return r
}

// relationalText names the relations behind n's Range when they sharpen
// it beyond the split analysis ("" otherwise): those at n or in its input
// cone.
func (m *Model) relationalText(n *rtl.Node) string {
	if m.split == nil {
		return ""
	}
	if r, s := m.rng[n.ID], m.split[n.ID]; r.Lo == s.Lo && r.Hi == s.Hi && r.Zero == s.Zero && r.One == s.One {
		return ""
	}
	cone := map[int]bool{}
	var walk func(x *rtl.Node)
	walk = func(x *rtl.Node) {
		if cone[x.ID] {
			return
		}
		cone[x.ID] = true
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(n)
	var whys []string
	for _, rel := range m.relations {
		if cone[rel.Node] {
			whys = append(whys, fmt.Sprintf("%s in [%d, %d] (%s)", m.f.Nodes[rel.Node].Name, rel.Lo, rel.Hi, rel.Why))
		}
	}
	return "value analysis with the relations interval arithmetic loses (grade.RelationalValueRanges: " + strings.Join(whys, "; ") + ")"
}

// armsEqualWhere proves a mux bin unreachable when, on every input with
// the select at that value, the two arms are equal (grade.ArmsEqualWhere:
// one run of the value analysis under the select's value, the muxes it
// decides followed, the arms' difference as an affine form of one of them
// strictly between -1 and 1): u_new keeps st_u with no valid hop, where
// u_ewma = round(st_u * T * inv_t) = st_u.
func (m *Model) armsEqualWhere(n *rtl.Node, bins []Bin) {
	if n.Width > 64 {
		return
	}
	for b, v := range []bool{false, true} {
		if bins[b].Unreachable != "" {
			continue
		}
		if why, ok := grade.ArmsEqualWhere(m.f, n, v); ok {
			bins[b].Unreachable = "arms equal (grade.ArmsEqualWhere): " + why
		}
		if bins[b].Unreachable == "" {
			bins[b].Unreachable = m.armsEqualBisected(n, v)
		}
	}
}
