package coverage

import (
	"fmt"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// lowZeroCache holds grade.LowZeros of the model's value analysis and of
// each run of grade.NormalizerRuns, computed when a proof first needs them
// (the low-zeros rules below; they were added for ldcp_update's bins).
type lowZeroCache struct {
	all  []int
	runs map[[2]int][]int // by (normalizer input, run) index of Model.runs
}

// lowZeros returns grade.LowZeros of the model's value analysis.
func (m *Model) lowZeros() []int {
	if m.lz.all == nil {
		m.lz.all = grade.LowZeros(m.f, m.rng)
	}
	return m.lz.all
}

// roundLowZeros adds the low-zeros proofs to the bins of a rounding point
// at the half bit d-1 of xn (addRound's bins: down, up, tie, below_tie):
// when the low z bits of xn are 0 for every input (grade.LowZeros), the
// bits below the half bit are never all ones if z >= 1 (below_tie), and
// never anything but zeros if z >= d-1 (up: the half bit set and something
// below it). ldcp_update's AI increment n*alpha * 1/cw (n*alpha is a
// multiple of 2^12, so the increment's low 12 bits are 0: no below-tie) and
// eta * cw (cw * 2^11: the bits below the half bit are 0, so it rounds
// exactly at the tie or down, never up) are such casts.
func (m *Model) roundLowZeros(xn *rtl.Node, d int, bins []Bin) {
	z := m.lowZeros()[xn.ID]
	if z == 0 || d < 2 {
		return
	}
	why := fmt.Sprintf("low zeros (grade.LowZeros: products add their operands' trailing zeros): the low %d bits of %s are always 0", z, nodeLabel(xn))
	if bins[3].Unreachable == "" {
		bins[3].Unreachable = why + ", so the bits below the half bit are never all ones"
	}
	if z >= d-1 && bins[1].Unreachable == "" {
		bins[1].Unreachable = why + ", so nothing below the half bit is ever set"
	}
}

// runLowZeroExcludes reports whether, in run j of normalizer input i of
// Model.runs, node v's low zeros (grade.LowZeros of the run's Ranges) rule
// out the value c: c has a one among them. The 1/cw unit's output before
// its saturation is y << (clz - 10) for cw below 2^21 (raw), so it is even
// there and never 2^32 - 1.
func (m *Model) runLowZeroExcludes(i, j int, v *rtl.Node, c uint64) bool {
	if m.lz.runs == nil {
		m.lz.runs = map[[2]int][]int{}
	}
	k := [2]int{i, j}
	z, ok := m.lz.runs[k]
	if !ok {
		z = grade.LowZeros(m.f, m.runs[i][j].Ranges)
		m.lz.runs[k] = z
	}
	n := z[v.ID]
	return n > 0 && c&maxOf(min(n, 64)) != 0
}
