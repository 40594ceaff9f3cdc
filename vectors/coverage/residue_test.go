package coverage

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestProductResidueExhaustive checks the residue rule of the rounding bins
// (Model.productResidue: the tie or the one-below-tie of x * k, k a
// constant, is unreachable when the congruence x*k = r (mod 2^d) has no
// solution in x's interval) on a hand-built module sampled over all of its
// inputs: odd and even constants, ties whose solutions fall inside the
// operand's range (reachable twins, which must keep no proof) and outside
// it, an odd residue of an even constant (no solution at all), and an
// operand whose interval is narrowed by a mux. Oracle: the low bits of x*k
// computed here for every x; exactly the bins proved unreachable are never
// hit.
func TestProductResidueExhaustive(t *testing.T) {
	m := rtl.NewModule("residue_mod", "")
	x := m.In("x", 4, false)
	sel := m.In("s", 1, false)
	// xr in [5, 12]: x clamped by muxes.
	lo := m.Mux(m.Lt(x, m.Const(4, false, 5)), m.Const(4, false, 5), x)
	xr := m.Mux(m.Gt(lo, m.Const(4, false, 12)), m.Const(4, false, 12), lo)
	_ = sel
	type rc struct {
		name string
		op   *rtl.Node // the operand node
		val  func(x uint64) uint64
		k    uint64
		d    int
	}
	clamp := func(x uint64) uint64 { return min(max(x, 5), 12) }
	ident := func(x uint64) uint64 { return x }
	cases := []rc{
		{"odd_out", x, ident, 3, 6},     // tie x = 32 (mod 64), below x = 53: neither in [0, 15]
		{"odd_in", x, ident, 3, 3},      // tie x = 4 (mod 8), below x = 1: both in range
		{"even", x, ident, 6, 4},        // tie x = 4 (mod 8); below 7 is odd: no solution
		{"even_small", x, ident, 2, 3},  // 2x: tie x = 2 (mod 4); below 3 is odd
		{"even_wide", x, ident, 10, 5},  // 10x: tie 5x = 8 (mod 16): x = 8; below 15 odd
		{"clamped", xr, clamp, 5, 5},    // tie 5x = 16 (mod 32): x = 16; below 5x = 15: x = 3; [5, 12] holds neither
		{"clamped_in", xr, clamp, 1, 4}, // tie x = 8, below x = 7 (mod 16): in [5, 12]
	}
	for _, c := range cases {
		p := m.Mul(m.ZExt(c.op, 8), m.Const(8, false, c.k))
		m.Out(c.name, m.Bit(p, c.d-1).Named("rnd_inc_"+c.name), "")
	}
	cm, err := newModel(m)
	if err != nil {
		t.Fatal(err)
	}
	cm.addStructural()
	if err := cm.validate(); err != nil {
		t.Fatal(err)
	}
	idx := map[string]int{}
	for i, p := range cm.Points {
		idx[p.Node] = i
	}
	s, err := cm.NewSampler()
	if err != nil {
		t.Fatal(err)
	}
	c := cm.NewCounts()
	want := make([][]uint64, len(cases))
	for i := range want {
		want[i] = make([]uint64, 4)
	}
	for xv := uint64(0); xv < 16; xv++ {
		for sv := uint64(0); sv < 2; sv++ {
			s.Sample([]uint64{xv, sv}, c)
			for i, cc := range cases {
				low := cc.val(xv) * cc.k & (1<<uint(cc.d) - 1)
				half := uint64(1) << uint(cc.d-1)
				switch {
				case low == half:
					want[i][2]++
				case low == half-1:
					want[i][3]++
				case low >= half:
					want[i][1]++
				default:
					want[i][0]++
				}
			}
		}
	}
	proved := 0
	for i, cc := range cases {
		pi, ok := idx["rnd_inc_"+cc.name]
		if !ok {
			t.Fatalf("%s: no rounding point", cc.name)
		}
		p := cm.Points[pi]
		if fmt.Sprint(c.Bins[pi]) != fmt.Sprint(want[i]) {
			t.Errorf("%s: counts %v, want %v", cc.name, c.Bins[pi], want[i])
		}
		for b, bin := range p.Bins {
			if bin.Unreachable != "" {
				proved++
			}
			if (want[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: oracle count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", cc.name, bin.Name, want[i][b], bin.Unreachable)
			}
		}
	}
	if proved == 0 {
		t.Fatal("no bin proved unreachable: the test checks nothing")
	}
}
