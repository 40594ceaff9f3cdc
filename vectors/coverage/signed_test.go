package coverage

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestSignedCompareBinsExhaustive checks the compare bins of signed
// compares (the reading of the Newton steps' t = 2 - e < 0): a hand-built
// module with signed operands that are non-negative throughout, negative
// throughout, and of both signs (where the unsigned interval says nothing
// about the signed order: a value read unsigned in [0, 15] is below 0
// signed), against constants and against each other, is sampled over all of
// its inputs. Oracle: each compare recomputed here on the signed values of
// x and y; exactly the bins proved unreachable are never hit (an unsound
// rule, such as reading the unsigned interval as signed, declares a hit
// bin unreachable; a missing one leaves a bin unhit without a proof).
func TestSignedCompareBinsExhaustive(t *testing.T) {
	m := rtl.NewModule("signed_mod", "")
	x := m.In("x", 4, false)
	y := m.In("y", 3, false)
	pos := m.AsSigned(m.ZExt(y, 5))                      // y: [0, 7]
	neg := m.AsSigned(m.Concat(m.Const(1, false, 1), y)) // y - 8: [-8, -1]
	both := m.AsSigned(x)                                // x read signed: [-8, 7]
	type cmpCase struct {
		name string
		n    *rtl.Node
		bin  func(x, y int64) int // the oracle: -1, 0, 1 -> bins below/lt, at/eq, above/gt
	}
	sx := func(x int64) int64 { return x << 60 >> 60 }
	cases := []cmpCase{
		{"pos_lt_0", m.Lt(pos, m.ConstInt(5, true, 0)), func(x, y int64) int { return cmpI(y, 0) }},
		{"pos_lt_m3", m.Lt(pos, m.ConstInt(5, true, -3)), func(x, y int64) int { return cmpI(y, -3) }},
		{"pos_gt_7", m.Gt(pos, m.ConstInt(5, true, 7)), func(x, y int64) int { return cmpI(y, 7) }},
		{"neg_lt_0", m.Lt(neg, m.ConstInt(4, true, 0)), func(x, y int64) int { return cmpI(y-8, 0) }},
		{"neg_ge_m1", m.Ge(neg, m.ConstInt(4, true, -1)), func(x, y int64) int { return cmpI(y-8, -1) }},
		{"both_lt_0", m.Lt(both, m.ConstInt(4, true, 0)), func(x, y int64) int { return cmpI(sx(x), 0) }},
		{"both_gt_min", m.Gt(both, m.ConstInt(4, true, -8)), func(x, y int64) int { return cmpI(sx(x), -8) }},
		{"both_lt_max", m.Lt(both, m.ConstInt(4, true, 7)), func(x, y int64) int { return cmpI(sx(x), 7) }},
		{"neg_lt_both", m.Lt(m.SExt(neg, 5), m.SExt(both, 5)), func(x, y int64) int { return cmpI(y-8, sx(x)) }},
		{"neg_lt_pos", m.Lt(m.SExt(neg, 5), pos), func(x, y int64) int { return cmpI(y-8, y) }},
	}
	for _, c := range cases {
		m.Out(c.name, c.n, "")
	}
	cm, err := newModel(m)
	if err != nil {
		t.Fatal(err)
	}
	cm.addStructural()
	if err := cm.validate(); err != nil {
		t.Fatal(err)
	}
	byNode := map[string]int{}
	for i, p := range cm.Points {
		if p.Kind == KindCompare {
			byNode[p.Node] = i
		}
	}
	s, err := cm.NewSampler()
	if err != nil {
		t.Fatal(err)
	}
	c := cm.NewCounts()
	want := make([][]uint64, len(cases))
	for i := range want {
		want[i] = make([]uint64, 3)
	}
	for xv := int64(0); xv < 16; xv++ {
		for yv := int64(0); yv < 8; yv++ {
			s.Sample([]uint64{uint64(xv), uint64(yv)}, c)
			for i, cc := range cases {
				want[i][cc.bin(xv, yv)+1]++
			}
		}
	}
	proved := 0
	for i, cc := range cases {
		pi, ok := byNode[cc.n.Name]
		if !ok {
			t.Fatalf("%s: no compare point for node %s", cc.name, cc.n.Name)
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

func cmpI(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a == b:
		return 0
	}
	return 1
}
