package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// guardedNormModule is a 1/dts unit in small: x = mux(sel, d, 1) over a
// 6-bit d, normalized (x << clz(x)); "lt" is 1 where the normalized value
// is below 32, which only x = 0 gives. sel is en & d != 0 & d <= 40
// (kind "and": x is never 0), en & d <= 40 (kind "no_ne": x = 0 at d = 0)
// or en | d != 0 (kind "or": x = 0 at en = 1, d = 0).
func guardedNormModule(t testing.TB, kind string) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("gn", "")
	d := m.In("d", 6, false)
	en := m.In("en", 1, false)
	var sel *rtl.Node
	switch kind {
	case "and":
		sel = m.And(m.And(en, m.Ne(d, m.Const(6, false, 0))), m.Le(d, m.Const(6, false, 40)))
	case "no_ne":
		sel = m.And(en, m.Le(d, m.Const(6, false, 40)))
	case "or":
		sel = m.Or(en, m.Ne(d, m.Const(6, false, 0)))
	}
	x := m.Mux(sel, d, m.Const(6, false, 1))
	clz := m.Const(6, false, 6)
	for i := 0; i < 6; i++ { // the highest set bit decides last
		clz = m.Mux(m.Bit(x, i), m.Const(6, false, uint64(5-i)), clz)
	}
	norm := m.Shl(x, clz)
	m.Out("norm", norm, "")
	m.Out("lt", m.Lt(norm, m.Const(6, false, 32)), "normalized value below 32 (x = 0)")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSplitValueRanges checks SplitValueRanges (and ValueRanges' mux arms
// under an and of guards) against exhaustive evaluation. Oracle: rtl.Sim
// over all 128 inputs: every value of every node lies in its Range (the
// interval and the known bits). And the analysis must decide "lt" = 0
// where x is never 0 (the and of guards, split by bit length), which one
// pass without the split cannot, and must not decide it in the two twins
// where x = 0 is reachable.
func TestSplitValueRanges(t *testing.T) {
	for _, kind := range []string{"and", "no_ne", "or"} {
		t.Run(kind, func(t *testing.T) {
			f, err := combinational(guardedNormModule(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			split, plain := SplitValueRanges(f), ValueRanges(f)
			sim, err := rtl.NewSim(f)
			if err != nil {
				t.Fatal(err)
			}
			ltSeen := false
			for v := uint64(0); v < 128; v++ {
				sim.SetInUint(0, v&63)
				sim.SetInUint(1, v>>6)
				sim.Out(0)
				for _, n := range f.Nodes {
					x := sim.NodeValue(n.ID)
					r := split[n.ID]
					if !x.And(r.Zero).IsZero() || x.And(r.One) != r.One || r.HasRange && (x.Uint64() < r.Lo || x.Uint64() > r.Hi) {
						t.Fatalf("d=%d en=%d: node %s = %d outside its range [%d, %d] (ones %s, zeros %s)", v&63, v>>6, n.Name, x.Uint64(), r.Lo, r.Hi, r.One.Hex(n.Width), r.Zero.Hex(n.Width))
					}
				}
				ltSeen = ltSeen || sim.Out(1).Bit(0)
			}
			lt := f.Outputs[1].Node.ID
			decided := split[lt].Zero.Bit(0)
			if want := kind == "and"; decided != want || ltSeen == want {
				t.Fatalf("lt decided 0: %v, reached 1: %v; want decided %v", decided, ltSeen, want)
			}
			if kind == "and" && plain[lt].Zero.Bit(0) {
				t.Fatalf("one pass decides lt without the split: the test no longer needs it")
			}
		})
	}
}

// TestValueRangesWhere checks ValueRangesWhere against exhaustive
// evaluation. Oracle: rtl.Sim over all 128 inputs of guardedNormModule:
// on every input where the select sel has the asked value, every node's
// value lies in its Range under that value. And the bounds must say
// something: where sel = 1 in the "and" kind, d is bounded to [1, 40], so
// x is never 0; a select of no compares gives no Ranges (ok false).
func TestValueRangesWhere(t *testing.T) {
	for _, kind := range []string{"and", "no_ne", "or"} {
		t.Run(kind, func(t *testing.T) {
			f, err := combinational(guardedNormModule(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			var sel, x *rtl.Node
			for _, n := range f.Nodes {
				if n.Op == rtl.OpMux && n.Args[2].Op == rtl.OpConst && n.Width == 6 && sel == nil {
					sel, x = n.Args[0], n
				}
			}
			if sel == nil {
				t.Fatal("no select mux(sel, d, 1)")
			}
			sim, err := rtl.NewSim(f)
			if err != nil {
				t.Fatal(err)
			}
			checked := 0
			for _, val := range []bool{false, true} {
				rs, ok := ValueRangesWhere(f, sel, val)
				if !ok {
					continue
				}
				if kind == "and" && val && rs[x.ID].HasRange && rs[x.ID].Lo == 0 {
					t.Fatalf("where sel = 1 the mux output x may be 0: %+v", rs[x.ID])
				}
				for v := uint64(0); v < 128; v++ {
					sim.SetInUint(0, v&63)
					sim.SetInUint(1, v>>6)
					sim.Out(0)
					if sim.NodeValue(sel.ID).Bit(0) != val {
						continue
					}
					checked++
					for _, n := range f.Nodes {
						y := sim.NodeValue(n.ID)
						r := rs[n.ID]
						if !y.And(r.Zero).IsZero() || y.And(r.One) != r.One || r.HasRange && (y.Uint64() < r.Lo || y.Uint64() > r.Hi) {
							t.Fatalf("sel=%v d=%d en=%d: node %s = %d outside its range [%d, %d]", val, v&63, v>>6, n.Name, y.Uint64(), r.Lo, r.Hi)
						}
					}
				}
			}
			if checked == 0 {
				t.Fatal("no Ranges checked on any input: the test checks nothing")
			}
		})
	}
	m := rtl.NewModule("nocmp", "")
	a := m.In("a", 1, false)
	m.Out("o", m.Mux(a, m.Const(2, false, 1), m.Const(2, false, 2)), "")
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ValueRangesWhere(f, f.Nodes[a.ID], true); ok {
		t.Fatal("a select that is an input implies no bound, yet Ranges were given")
	}
}

// TestNormalizerRuns checks NormalizerRuns against exhaustive evaluation.
// Oracle: rtl.Sim over all 128 inputs of guardedNormModule: each input has
// exactly one run of the normalizer input x, the one of x's bit length,
// and every node's value lies in that run's Range.
func TestNormalizerRuns(t *testing.T) {
	for _, kind := range []string{"and", "no_ne", "or"} {
		t.Run(kind, func(t *testing.T) {
			f, err := combinational(guardedNormModule(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			all := NormalizerRuns(f)
			if len(all) != 1 {
				t.Fatalf("%d normalizers with runs, want 1", len(all))
			}
			sim, err := rtl.NewSim(f)
			if err != nil {
				t.Fatal(err)
			}
			for v := uint64(0); v < 128; v++ {
				sim.SetInUint(0, v&63)
				sim.SetInUint(1, v>>6)
				sim.Out(0)
				var run *LengthRun
				for i := range all[0] {
					r := &all[0][i]
					if x := sim.NodeValue(r.X).Uint64(); x >= r.Lo && x <= r.Hi {
						if run != nil {
							t.Fatalf("d=%d en=%d: x in two runs (L=%d, L=%d)", v&63, v>>6, run.L, r.L)
						}
						run = r
					}
				}
				if run == nil {
					t.Fatalf("d=%d en=%d: x = %d in no run", v&63, v>>6, sim.NodeValue(all[0][0].X).Uint64())
				}
				for _, n := range f.Nodes {
					y := sim.NodeValue(n.ID)
					r := run.Ranges[n.ID]
					if !y.And(r.Zero).IsZero() || y.And(r.One) != r.One || r.HasRange && (y.Uint64() < r.Lo || y.Uint64() > r.Hi) {
						t.Fatalf("d=%d en=%d (run L=%d): node %s = %d outside its range [%d, %d]", v&63, v>>6, run.L, n.Name, y.Uint64(), r.Lo, r.Hi)
					}
				}
			}
		})
	}
}
