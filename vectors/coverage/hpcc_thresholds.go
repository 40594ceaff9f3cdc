package coverage

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// minThresholds is how many thresholds (constants it is compared against)
// a node needs before the model splits the value analysis at them: a
// comparator chain, such as IFA's egress-time normalizer (eight compares
// t >= k*10^9), not every node compared once.
const minThresholds = 2

// excludedBySplits proves that the conditions never hold together by the
// analyses that split the inputs or read values modulo the width: the
// threshold split (excludedByThresholds) and modular arcs (ldcp_arcs.go).
// It returns the proof, or "".
func (m *Model) excludedBySplits(conds []bitCond) string {
	if why := m.excludedByThresholds(conds); why != "" {
		return why
	}
	return m.excludedByArcs(conds)
}

// excludedByThresholds proves that the conditions never hold together
// when, for some node x compared against constants at least minThresholds
// times and read by a condition's node, the value analysis split at x's
// thresholds (grade.ThresholdSplitter: the pieces cover x's interval, and
// within one every compare of x against a constant is decided) rules out
// at least one condition in every piece: IFA's egress ns t - k*10^9 is
// below 10^9 < 2^30 on every piece [k*10^9, (k+1)*10^9 - 1] of t, where
// the carry is k, so bit 30 of the subtraction is 0 (the whole-interval
// analysis, with t and the carry unrelated, says nothing). It returns the
// proof, or "".
func (m *Model) excludedByThresholds(conds []bitCond) string {
	if m.splitter == nil {
		m.splitter = grade.NewThresholdSplitter(m.f)
	}
	cone := map[int]bool{}
	var walk func(n *rtl.Node)
	walk = func(n *rtl.Node) {
		if cone[n.ID] {
			return
		}
		cone[n.ID] = true
		for _, a := range n.Args {
			walk(a)
		}
	}
	for _, c := range conds {
		walk(c.n)
	}
	cands := m.splitter.Candidates(minThresholds)
	for ci := len(cands) - 1; ci >= 0; ci-- { // the nearest chain first
		x := cands[ci]
		if !cone[x.ID] {
			continue
		}
		s := m.splitter.Split(x)
		if s == nil {
			continue
		}
		var parts []string
		for i, p := range s.Pieces {
			if p.Empty {
				parts = append(parts, fmt.Sprintf("[%d, %d]: no input", p.Lo, p.Hi))
				continue
			}
			out := ""
			for _, c := range conds {
				if c.contradicts(s.Range(i, c.n)) {
					if c.bit < 0 {
						out = fmt.Sprintf("[%d, %d]: %s = 0", p.Lo, p.Hi, nodeLabel(c.n))
					} else {
						out = fmt.Sprintf("[%d, %d]: bit %d of %s is %d", p.Lo, p.Hi, c.bit, nodeLabel(c.n), b2i(!c.v))
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
			return fmt.Sprintf("value analysis split at the %d thresholds of %s (grade.ThresholdSplitter: the constants it is compared against; the pieces cover its interval and decide every such compare): %s",
				len(m.splitter.Thresholds(x)), nodeLabel(x), strings.Join(parts, ", "))
		}
	}
	return ""
}
