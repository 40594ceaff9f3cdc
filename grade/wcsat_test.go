package grade

import (
	"slices"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestWcAISaturationThresholdKillable shows that hpcc_update's #1864 (the
// saturation threshold 2^32 - 1 of the additive step's Wc + W_AI, u33,
// made 2^32) is a real gap, not an equivalent: the mutant differs where
// st_wc + W_AI is exactly 2^32 LSB (st_wc = 2^32 - W_AI, with W_AI =
// 16 000 LSB in the default configuration), where the original saturates
// the candidate to 2^32 - 1 and the mutant wraps it to 0, and that shows
// in the outputs. Oracle: rtl.Sim of the description and of the mutant
// (grade.Apply) on the default level-1 set's vectors with st_wc replaced
// by 2^32 - W_AI; the first vector where they differ is logged with its
// class (a vector set kills #1864 once it holds such a vector: an
// additive-step vector with Wc at 2^32 - W_AI, the top of the register).
func TestWcAISaturationThresholdKillable(t *testing.T) { wcAISaturationKill(t, true) }

// TestDefaultSetKillsWcAISaturationThreshold checks that the default
// level-1 set itself kills #1864: the window_saturation_edges class holds
// an additive-step vector with st_wc + W_AI exactly 2^32 (the same oracle
// as above, on the set's vectors unchanged).
func TestDefaultSetKillsWcAISaturationThreshold(t *testing.T) { wcAISaturationKill(t, false) }

// wcAISaturationKill applies the const+1 mutant of the additive step's
// saturation threshold and fails unless some vector of the default
// level-1 set (with st_wc replaced by 2^32 - W_AI when force is set) shows
// it at an output; without force, the killing vector must be of the class
// window_saturation_edges.
func wcAISaturationKill(t *testing.T, force bool) {
	if testing.Short() {
		t.Skip("generates the default level-1 set")
	}
	m, v := defaultTarget(t, "hpcc_update")
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	// The compare zext(st_wc) + W_AI > 2^32 - 1.
	var cmp *rtl.Node
	var wai uint64
	for _, n := range f.Nodes {
		if n.Op != rtl.OpGt || n.Args[1].Op != rtl.OpConst || n.Args[1].Value != rtl.BitsOf(1<<32-1) {
			continue
		}
		s := n.Args[0]
		if s.Op == rtl.OpAdd && s.Args[0].Op == rtl.OpZExt && s.Args[0].Args[0].Name == "st_wc" && s.Args[1].Op == rtl.OpConst {
			cmp, wai = n, s.Args[1].Value.Uint64()
		}
	}
	if cmp == nil {
		t.Fatal("no compare zext(st_wc) + W_AI > 2^32 - 1 in hpcc_update")
	}
	all, err := Sites(f, 1)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(all, func(mu Mutant) bool { return mu.NodeID == cmp.Args[1].ID && mu.Operator == ConstInc })
	if i < 0 {
		t.Fatal("no const+1 site of the threshold")
	}
	mu := all[i]
	t.Logf("site #%d: %s (W_AI = %d LSB)", mu.Index, mu, wai)
	mm, err := Apply(m, mu)
	if err != nil {
		t.Fatal(err)
	}
	so, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := rtl.NewSim(mm)
	if err != nil {
		t.Fatal(err)
	}
	wc := slices.IndexFunc(f.Inputs, func(n *rtl.Node) bool { return n.Name == "st_wc" })
	for k := 0; k < v.Len(); k++ {
		in := v.Input(k)
		for j, x := range in {
			if force && j == wc {
				x = 1<<32 - wai
			}
			so.SetInUint(j, x)
			sm.SetInUint(j, x)
		}
		var diff []string
		for j, o := range f.Outputs {
			if so.Out(j) != sm.Out(j) {
				diff = append(diff, o.Name)
			}
		}
		if diff != nil {
			t.Logf("killed at vector %d (class %s) with st_wc = %d: outputs %v differ", k, v.Class(k), so.NodeValue(f.Inputs[wc].ID).Uint64(), diff)
			if !force && v.Class(k) != "window_saturation_edges" {
				t.Errorf("killed by class %s, want window_saturation_edges", v.Class(k))
			}
			for _, n := range f.Inputs {
				if x := so.NodeValue(n.ID); !x.IsZero() {
					t.Logf("  %s = %d", n.Name, x.Uint64())
				}
			}
			return
		}
	}
	t.Fatalf("no vector of the level-1 set (st_wc forced to 2^32 - W_AI: %v) shows %s", force, mu)
}
