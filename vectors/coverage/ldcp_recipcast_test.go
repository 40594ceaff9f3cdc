package coverage

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// TestLDCPRecipCastEdgesUnreachable proves, for the default configuration,
// that the 1/cw unit's output before its saturating cast (the operand v
// of the compare "ovf_hi", v > 2^32 - 1) is never exactly 2^32 - 1 (the
// coverage bin cmp_ovf_hi.at, which the low-zeros rule declares) nor
// exactly 2^32: the one value where the mutant "threshold + 1" of that
// compare (grade #242, const+1 of 0xffffffff) differs from the
// description, so that mutant is equivalent. The proof: v depends on the
// inputs only through the unit's input x (checked: the cone of v reaches
// no input port without passing x); in every run of the value analysis
// per bit length of x (grade.NormalizerRuns) whose interval of v excludes
// both values the bit length is settled, and every x of the other bit
// lengths (x < 2^16) is evaluated through the description (rtl.Sim, x set
// through st_cw on a send, where x = st_cw; checked per value). Oracle:
// the description itself, exhaustively on the lengths the analysis leaves,
// where v takes values on both sides of the two targets.
func TestLDCPRecipCastEdgesUnreachable(t *testing.T) {
	cm, err := ForLDCP(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f := cm.f
	var cmp *rtl.Node
	for _, n := range f.Nodes {
		if n.Name == "ovf_hi" && n.Op == rtl.OpGt {
			cmp = n
		}
	}
	if cmp == nil || peel(cmp.Args[1]).Op != rtl.OpConst || peel(cmp.Args[1]).Value.Uint64() != 1<<32-1 {
		t.Fatal("no compare ovf_hi: v > 2^32 - 1 in ldcp_update")
	}
	v := cmp.Args[0]
	runs := grade.NormalizerRuns(f)
	if len(runs) != 1 {
		t.Fatalf("%d normalizer inputs, want the 1/cw unit's only", len(runs))
	}
	x := f.Nodes[runs[0][0].X]
	// The cone of v: every path to an input port passes x.
	seen := map[int]bool{}
	var walk func(n *rtl.Node)
	walk = func(n *rtl.Node) {
		if n == x || seen[n.ID] {
			return
		}
		seen[n.ID] = true
		if n.Op == rtl.OpInput {
			t.Fatalf("v (%s) reads input %s without passing x (%s)", v.Name, n.Name, x.Name)
		}
		for _, a := range n.Args {
			walk(a)
		}
	}
	walk(v)
	targets := []uint64{1<<32 - 1, 1 << 32}
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.SetInput("ev_kind", rtl.BitsOf(1)); err != nil { // a send: x = st_cw
		t.Fatal(err)
	}
	settled, evaluated := 0, 0
	below, above := false, false // the twins: v is seen on both sides of the targets
	for _, r := range runs[0] {
		rv := r.Ranges[v.ID]
		if !rv.HasRange {
			t.Fatalf("L=%d: no interval of v", r.L)
		}
		out := true
		for _, c := range targets {
			if c >= rv.Lo && c <= rv.Hi {
				out = false
			}
		}
		if out {
			settled++
			continue
		}
		if r.Hi >= 1<<16 {
			t.Fatalf("L=%d: v in [%d, %d] holds a target and x in [%d, %d] is too wide to evaluate", r.L, rv.Lo, rv.Hi, r.Lo, r.Hi)
		}
		for xv := r.Lo; xv <= r.Hi; xv++ {
			if err := sim.SetInput("st_cw", rtl.BitsOf(xv)); err != nil {
				t.Fatal(err)
			}
			sim.Eval()
			if got := sim.NodeValue(x.ID).Uint64(); got != xv {
				t.Fatalf("st_cw %d on a send: x = %d", xv, got)
			}
			val := sim.NodeValue(v.ID)
			below = below || val.Uint64() < targets[0]
			above = above || val.Uint64() > targets[1]
			for _, c := range targets {
				if val == rtl.BitsOf(c) {
					t.Errorf("x = %d: v = %d", xv, c)
				}
			}
			evaluated++
		}
	}
	if !below || !above {
		t.Errorf("the evaluated inputs give v below 2^32 - 1: %v, above 2^32: %v; want both (the targets lie inside what they reach)", below, above)
	}
	if settled == 0 || evaluated == 0 {
		t.Fatalf("%d lengths settled by the analysis, %d inputs evaluated: the proof needs both here", settled, evaluated)
	}
	t.Logf("%d bit lengths settled by the value analysis, %d values of x evaluated", settled, evaluated)
}
