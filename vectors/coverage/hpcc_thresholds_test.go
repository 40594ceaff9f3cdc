package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestThresholdBinsExhaustive checks the threshold-split rule of the slice
// bins (Model.excludedByThresholds; IFA's egress ns never has bit 30 set)
// on IFA's egress-time normalizer in small, sampled over all of its
// inputs: t = a + b (5 bits, 0..30), carry = the number of k in 1..chain
// with t >= 5k, rem = t - 5*carry (a table read at the carry), ns =
// rem[2:0]. With chain 6 rem is below 5, so bit 3 is never 1 while bit 2
// is 0 (ns's slice_above bin above1 unreachable); with chain 4 (the
// reachable twin) rem reaches 8 and 9. Oracle: exhaustive sampling; no bin
// proved unreachable is hit, and above1 is proved by the split exactly
// when it is unhit.
func TestThresholdBinsExhaustive(t *testing.T) {
	for _, chain := range []int{6, 4} {
		m := rtl.NewModule("carry_chain", "")
		a := m.In("a", 4, false)
		b := m.In("b", 4, false)
		tt := m.Add(m.ZExt(a, 5), m.ZExt(b, 5)).Named("t")
		carry := m.Const(3, false, 0)
		mults := make([]uint64, 8)
		for k := 1; k <= chain; k++ {
			carry = m.Add(carry, m.ZExt(m.Ge(tt, m.Const(5, false, uint64(5*k))), 3))
			mults[k] = uint64(5 * k)
		}
		rem := m.Sub(tt, m.ROM(carry.Named("carry"), 5, mults)).Named("rem")
		m.Out("ns", m.Slice(rem, 0, 3).Named("ns"), "")
		cm, err := newModel(m)
		if err != nil {
			t.Fatal(err)
		}
		cm.addStructural()
		if err := cm.validate(); err != nil {
			t.Fatal(err)
		}
		s, err := cm.NewSampler()
		if err != nil {
			t.Fatal(err)
		}
		cnt := cm.NewCounts()
		for av := uint64(0); av < 16; av++ {
			for bv := uint64(0); bv < 16; bv++ {
				s.Sample([]uint64{av, bv}, cnt)
			}
		}
		seen := 0
		for pi, p := range cm.Points {
			for bi, bin := range p.Bins {
				hit := cnt.Bins[pi][bi]
				if bin.Unreachable != "" && hit != 0 {
					t.Errorf("chain %d: %s.%s hit %d times, yet proved unreachable: %s", chain, p.Name, bin.Name, hit, bin.Unreachable)
				}
				if !strings.HasPrefix(p.Name, "slice_above_ns") || bin.Name != "above1" {
					continue
				}
				seen++
				proved := strings.HasPrefix(bin.Unreachable, "value analysis split at the")
				if proved != (chain == 6) || (hit == 0) != (chain == 6) {
					t.Errorf("chain %d: %s.%s hit %d times, proof %q: want proved by the split %v", chain, p.Name, bin.Name, hit, bin.Unreachable, chain == 6)
				}
			}
		}
		if seen != 1 {
			t.Fatalf("chain %d: %d ns above1 bins found, want 1", chain, seen)
		}
	}
}
