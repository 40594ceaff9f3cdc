package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestBisectionBinsExhaustive checks the bisection rules of the compare
// "at" and mux bins (Model.excludedByBisection, Model.armsEqualBisected;
// eta/U never exactly 1, and not clamped where U >= eta) on a small module
// sampled over all of its inputs: a 6-bit x normalized (x << clz(x)) and
// squared (v: 0, or in [1024, 3969]). Compares v > 1025 (its "at" inside
// the per-length run, never taken: 32^2 = 1024, 33^2 = 1089) and the twin
// v > 1089; muxes x != 0 ? (v == 1025 ? 0 : v) : v, whose arms are equal
// since v is never 1025 (one run under x != 0 has v in [1024, 3969], so
// grade.ArmsEqualWhere does not decide the inner select), and the twin
// with 1089. Oracle:
// exhaustive sampling; no bin proved unreachable is hit, and the four
// target bins are proved by a bisection exactly when unhit.
func TestBisectionBinsExhaustive(t *testing.T) {
	m := rtl.NewModule("bisect_mod", "")
	x := m.In("x", 6, false)
	clz := m.Const(6, false, 6)
	for i := 0; i < 6; i++ {
		clz = m.Mux(m.Bit(x, i), m.Const(6, false, uint64(5-i)), clz)
	}
	norm := m.Shl(x, clz.Named("clz"))
	v := m.Mul(norm, norm).Named("v")
	c12 := func(k uint64) *rtl.Node { return m.Const(12, false, k) }
	m.Out("gt1025", m.Gt(v, c12(1025)).Named("gt1025"), "")
	m.Out("gt1089", m.Gt(v, c12(1089)).Named("gt1089"), "")
	nz := m.Ne(x, m.Const(6, false, 0))
	m.Out("m1025", m.Mux(nz, m.Mux(m.Eq(v, c12(1025)), c12(0), v), v).Named("m1025"), "")
	m.Out("m1089", m.Mux(nz, m.Mux(m.Eq(v, c12(1089)), c12(0), v), v).Named("m1089"), "")
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
	for xv := uint64(0); xv < 64; xv++ {
		s.Sample([]uint64{xv}, cnt)
	}
	targets := map[string]bool{"cmp_gt1025.at": true, "cmp_gt1089.at": false, "mux_m1025.then_differs": true, "mux_m1089.then_differs": false}
	seen := 0
	for pi, p := range cm.Points {
		for b, bin := range p.Bins {
			hit := cnt.Bins[pi][b]
			if bin.Unreachable != "" && hit != 0 {
				t.Errorf("%s.%s hit %d times, yet proved unreachable: %s", p.Name, bin.Name, hit, bin.Unreachable)
			}
			name := p.Name[:strings.LastIndex(p.Name, "_")] // the flat description suffixes node names
			want, ok := targets[name+"."+bin.Name]
			if !ok {
				continue
			}
			seen++
			proved := strings.HasPrefix(bin.Unreachable, "value analysis over a bisection")
			if proved != want || (hit == 0) != want {
				t.Errorf("%s.%s hit %d times, proof %q: want proved by a bisection %v", p.Name, bin.Name, hit, bin.Unreachable, want)
			}
		}
	}
	if seen != len(targets) {
		t.Fatalf("%d of the %d target bins found", seen, len(targets))
	}
}
