package coverage

import (
	"fmt"
	"slices"

	"github.com/hpccgold/hpccgold/grade"
)

// excludedByArcs proves that the conditions never hold together when the
// bit conditions on one node (a run of adjacent bits) exclude every value
// of its modular arc (grade.ModularArcs: wrapped intervals, which keep a
// subtraction that may borrow as one arc): ldcp_update's cw_md_diff = cw -
// n*beta, in [-n*beta, cw] read signed, is never below -2^31, so bits 32
// and 31 are never 1 and 0 (the unsigned interval of the 33-bit
// difference spans both ends and says nothing). It returns the proof, or
// "".
func (m *Model) excludedByArcs(conds []bitCond) string {
	byNode := map[int][]bitCond{}
	var order []int
	for _, c := range conds {
		if c.bit < 0 || c.n.Width > 64 {
			continue
		}
		if _, ok := byNode[c.n.ID]; !ok {
			order = append(order, c.n.ID)
		}
		byNode[c.n.ID] = append(byNode[c.n.ID], c)
	}
	for _, id := range order {
		cs := byNode[id]
		slices.SortFunc(cs, func(a, b bitCond) int { return a.bit - b.bit })
		lo, hi := cs[0].bit, cs[len(cs)-1].bit
		if hi-lo+1 != len(cs) {
			continue // not a run of adjacent bits (or a bit given twice)
		}
		var p uint64
		for _, c := range cs {
			if c.v {
				p |= 1 << uint(c.bit-lo)
			}
		}
		if m.arcs == nil {
			m.arcs = grade.ModularArcs(m.f)
		}
		n := m.f.Nodes[id]
		a := m.arcs[id]
		if grade.ArcExcludes(a, n.Width, lo, hi, p) {
			sext := func(v uint64) int64 { return int64(v<<uint(64-n.Width)) >> uint(64-n.Width) }
			return fmt.Sprintf("modular arcs (grade.ModularArcs: wrapped intervals): %s is in the arc from %d to %d mod 2^%d (read signed: from %d, %d values), where bits %d..%d are never %0*b",
				nodeLabel(n), a.Start, (a.Start+a.Len)&maxOf(n.Width), n.Width, sext(a.Start), a.Len+1, hi, lo, hi-lo+1, p)
		}
	}
	return ""
}
