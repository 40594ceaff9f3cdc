package coverage

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// declareWideLowZeros declares the "at" bin of a compare against a
// constant unreachable when the variable operand is wider than 64 bits
// (where the interval rules and the per-bit-length rule do not reach) and
// its low z bits are 0 for every input (grade.LowZeros) while the
// threshold has a one among them: MultiQ's recip_mq cast before
// saturation is the Newton result shifted left by clz + 7 in 87 bits, never
// its maximum 2^54 - 1.
func (m *Model) declareWideLowZeros() {
	byName := map[string]*rtl.Node{}
	for _, n := range m.f.Nodes {
		byName[n.Name] = n
	}
	for i := range m.Points {
		p := &m.Points[i]
		if p.Kind != KindCompare || len(p.src) != 1 || p.Bins[1].Unreachable != "" || p.Bins[1].Name != "at" {
			continue
		}
		n, v := byName[p.Node], p.src[0]
		if n == nil || v.Width <= 64 || len(n.Args) != 2 {
			continue
		}
		c := peel(n.Args[1])
		if c.Op != rtl.OpConst || peel(n.Args[0]) != peel(v) && n.Args[0] != v {
			c = peel(n.Args[0])
		}
		if c.Op != rtl.OpConst {
			continue
		}
		z := min(m.lowZeros()[v.ID], v.Width)
		cv := c.Value.Trunc(v.Width)
		if z == 0 || cv.Trunc(z).IsZero() {
			continue
		}
		p.Bins[1].Unreachable = fmt.Sprintf("low zeros (grade.LowZeros: shifts and products add trailing zeros): the low %d bits of the %d-bit %s are always 0, and the threshold %s has a one among them", z, v.Width, nodeLabel(v), cv.Hex(v.Width))
	}
}
