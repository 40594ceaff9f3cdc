package coverage

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestMuxArmsWhereExhaustive checks the conditional rule of the mux bins
// (grade.ValueRangesWhere: a select's compares bound their operands, and
// an arm bin is unreachable when both arms are then the same constant; the
// 1/U unit's output mux at U = 0, whose own path saturates too) on a
// hand-built module sampled over all of its inputs. Shapes: the then arm
// where x = 0 makes the else arm the same constant, the else arm where
// x >= 8 does, and two reachable twins where the bounded operand leaves the
// other arm free (it follows y). Oracle: each mux recomputed here from x
// and y; exactly the bins proved unreachable are never hit.
func TestMuxArmsWhereExhaustive(t *testing.T) {
	m := rtl.NewModule("where_mod", "")
	x := m.In("x", 4, false)
	y := m.In("y", 3, false)
	k := m.Const(3, false, 7)
	c := func(v uint64) *rtl.Node { return m.Const(4, false, v) }
	type mc struct {
		name string
		n    *rtl.Node
		sel  func(x uint64) bool
		arms func(x, y uint64) (t, e uint64)
	}
	cases := []mc{
		// x == 0 ? 7 : (x < 1 ? 7 : y): at x = 0 both arms are 7.
		{"then_same", m.Mux(m.Eq(x, c(0)), k, m.Mux(m.Lt(x, c(1)), k, y)),
			func(x uint64) bool { return x == 0 },
			func(x, y uint64) (uint64, uint64) { return 7, map[bool]uint64{true: 7, false: y}[x < 1] }},
		// x == 0 ? 7 : (x < 2 ? y : 7): at x = 0 the else arm is y (twin).
		{"then_free", m.Mux(m.Eq(x, c(0)), k, m.Mux(m.Lt(x, c(2)), y, k)),
			func(x uint64) bool { return x == 0 },
			func(x, y uint64) (uint64, uint64) { return 7, map[bool]uint64{true: y, false: 7}[x < 2] }},
		// x < 8 ? (x < 8 ? y : 7) : 7: at x >= 8 both arms are 7.
		{"else_same", m.Mux(m.Lt(x, c(8)), m.Mux(m.Lt(x, c(8)), y, k), k),
			func(x uint64) bool { return x < 8 },
			func(x, y uint64) (uint64, uint64) { return map[bool]uint64{true: y, false: 7}[x < 8], 7 }},
		// x < 8 ? (x < 9 ? y : 7) : 7: at x = 8 the then arm is y (twin).
		{"else_free", m.Mux(m.Lt(x, c(8)), m.Mux(m.Lt(x, c(9)), y, k), k),
			func(x uint64) bool { return x < 8 },
			func(x, y uint64) (uint64, uint64) { return map[bool]uint64{true: y, false: 7}[x < 9], 7 }},
	}
	for _, cc := range cases {
		cc.n.Named("mx_" + cc.name)
		m.Out(cc.name, cc.n, "")
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
	cnt := cm.NewCounts()
	want := make([][2]uint64, len(cases))
	for xv := uint64(0); xv < 16; xv++ {
		for yv := uint64(0); yv < 8; yv++ {
			s.Sample([]uint64{xv, yv}, cnt)
			for i, cc := range cases {
				if tv, ev := cc.arms(xv, yv); tv != ev {
					want[i][b2i(cc.sel(xv))]++
				}
			}
		}
	}
	proved := 0
	for i, cc := range cases {
		pi, ok := idx["mx_"+cc.name]
		if !ok {
			t.Fatalf("%s: no mux point", cc.name)
		}
		for b, bin := range cm.Points[pi].Bins {
			if cnt.Bins[pi][b] != want[i][b] {
				t.Errorf("%s.%s: count %d, want %d", cc.name, bin.Name, cnt.Bins[pi][b], want[i][b])
			}
			if bin.Unreachable != "" {
				proved++
			}
			if (want[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: oracle count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", cc.name, bin.Name, want[i][b], bin.Unreachable)
			}
		}
	}
	if proved != 2 {
		t.Errorf("%d bins proved unreachable, want 2 (then_same.then_differs, else_same.else_differs)", proved)
	}
}
