package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
)

// TestGatedElseExhaustive checks the gated-else rule (Model.gatedElse: the
// else_differs bin of mux(sel, mux(g, x, k), k) is unreachable when g
// implies sel) on a hand-built module sampled over all of its inputs, with
// the rule's shape and three reachable twins: sel an and over g and an
// input that can be 0 (g = 1, r = 0 takes the else arm while x differs
// from k), an else arm constant other than k, and sel an and over another
// input than g (r = 0 with g = 1 takes the else arm while x differs).
// Oracle: each mux's select and arms recomputed here from x, g and r;
// exactly the bins proved unreachable are never hit. It also checks that
// on hpcc_update the rule proves hop 0's candidate of the u' max-select
// (the shape it was written for) and only muxes of that shape.
func TestGatedElseExhaustive(t *testing.T) {
	m := rtl.NewModule("gated_mod", "")
	x := m.In("x", 3, false)
	g := m.In("g", 1, false)
	r := m.In("r", 1, false)
	zero := m.Const(3, false, 0)
	one := m.Or(m.Const(1, false, 1), r) // always 1, by the value analysis
	inner := m.Mux(g, x, zero)
	type muxCase struct {
		name       string
		sel, else_ *rtl.Node
		selOf      func(g, r bool) bool
		elseV      uint64
	}
	cases := []muxCase{
		{"gated", m.And(g, one), zero, func(g, r bool) bool { return g }, 0},
		{"gated_nested", m.And(m.And(one, g), one), zero, func(g, r bool) bool { return g }, 0},
		{"and_input", m.And(g, r), zero, func(g, r bool) bool { return g && r }, 0},
		{"other_const", m.And(g, one), m.Const(3, false, 1), func(g, r bool) bool { return g }, 1},
		{"other_select", m.And(r, one), zero, func(g, r bool) bool { return r }, 0},
	}
	muxes := make([]*rtl.Node, len(cases))
	for i, c := range cases {
		muxes[i] = m.Mux(c.sel, inner, c.else_).Named("mx_" + c.name)
		m.Out(c.name, muxes[i], "")
	}
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
	c := cm.NewCounts()
	want := make([][2]uint64, len(cases))
	for xv := uint64(0); xv < 8; xv++ {
		for gv := uint64(0); gv < 2; gv++ {
			for rv := uint64(0); rv < 2; rv++ {
				s.Sample([]uint64{xv, gv, rv}, c)
				innerV := uint64(0)
				if gv == 1 {
					innerV = xv
				}
				for i, cc := range cases {
					if innerV == cc.elseV {
						continue
					}
					if cc.selOf(gv == 1, rv == 1) {
						want[i][1]++
					} else {
						want[i][0]++
					}
				}
			}
		}
	}
	idx := map[string]int{}
	for i, p := range cm.Points {
		idx[p.Node] = i
	}
	for i, cc := range cases {
		pi, ok := idx["mx_"+cc.name]
		if !ok {
			t.Fatalf("%s: no mux point", cc.name)
		}
		p := cm.Points[pi]
		for b, bin := range p.Bins {
			if c.Bins[pi][b] != want[i][b] {
				t.Errorf("%s.%s: count %d, want %d", cc.name, bin.Name, c.Bins[pi][b], want[i][b])
			}
			if (want[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: oracle count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", cc.name, bin.Name, want[i][b], bin.Unreachable)
			}
		}
	}

	hm, err := ForHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var gated []string
	for _, p := range hm.Points {
		if p.Kind == KindMux && strings.Contains(p.Bins[0].Unreachable, "at select 0") {
			gated = append(gated, p.Name+" ("+p.Doc+")")
		}
	}
	if len(gated) != 1 || !strings.Contains(gated[0], "select h0_take") {
		t.Errorf("gated-else proofs on hpcc_update: %q, want exactly hop 0's candidate (select h0_take)", gated)
	}
}
