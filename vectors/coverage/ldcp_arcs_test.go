package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestArcBinsExhaustive checks the modular-arc rule of the slice bins
// (Model.excludedByArcs; ldcp_update's cw_md_diff never below -2^31) on
// its shape in small, sampled over all of its inputs: d = zext(cw) - (n <<
// shift) in 5 bits read signed (cw 4 bits, n 2 bits) and its low slice
// d[3:0]. With shift 1 d >= -6, so bits 4 and 3 are never 1 and 0 (the
// slice's above1 bin unreachable, while the unsigned interval of d spans
// [0, 31]); with shift 2 (the reachable twin) d reaches -12. Oracle:
// exhaustive sampling; no bin proved unreachable is hit, and above1 is
// proved by the arcs exactly when it is unhit.
func TestArcBinsExhaustive(t *testing.T) {
	for _, shift := range []int{1, 2} {
		m := rtl.NewModule("md_diff", "")
		cw := m.In("cw", 4, false)
		n := m.In("n", 2, false)
		d := m.Sub(m.AsSigned(m.ZExt(cw, 5)), m.AsSigned(m.ShlC(m.ZExt(n, 5), shift))).Named("d")
		m.Out("lo", m.Slice(d, 0, 4).Named("lo"), "")
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
		for cv := uint64(0); cv < 16; cv++ {
			for nv := uint64(0); nv < 4; nv++ {
				s.Sample([]uint64{cv, nv}, cnt)
			}
		}
		seen := 0
		for pi, p := range cm.Points {
			for bi, bin := range p.Bins {
				hit := cnt.Bins[pi][bi]
				if bin.Unreachable != "" && hit != 0 {
					t.Errorf("shift %d: %s.%s hit %d times, yet proved unreachable: %s", shift, p.Name, bin.Name, hit, bin.Unreachable)
				}
				if !strings.HasPrefix(p.Name, "slice_above_lo") || bin.Name != "above1" {
					continue
				}
				seen++
				proved := strings.HasPrefix(bin.Unreachable, "modular arcs")
				if proved != (shift == 1) || (hit == 0) != (shift == 1) {
					t.Errorf("shift %d: %s.%s hit %d times, proof %q: want proved by the arcs %v", shift, p.Name, bin.Name, hit, bin.Unreachable, shift == 1)
				}
			}
		}
		if seen != 1 {
			t.Fatalf("shift %d: %d lo above1 bins found, want 1", shift, seen)
		}
	}
}
