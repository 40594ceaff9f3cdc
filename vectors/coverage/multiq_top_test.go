package coverage

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// recipMQStageConsts returns, per hop slot, the constant nodes of the
// recip_mq normalizer's stage compares (rtl.CLZ: hi == 0 at every stage)
// of the flat MultiQ description f: the CLZ tree is found from its padded
// word, the concat whose first part is h<i>_mq_y, following slices and
// muxes only.
func recipMQStageConsts(t *testing.T, f *rtl.Module, hops int) [][]*rtl.Node {
	t.Helper()
	users := map[int][]*rtl.Node{}
	for _, n := range f.Nodes {
		for _, a := range n.Args {
			users[a.ID] = append(users[a.ID], n)
		}
	}
	out := make([][]*rtl.Node, hops)
	for i := 0; i < hops; i++ {
		y := fmt.Sprintf("h%d_mq_y", i)
		var word *rtl.Node
		for _, n := range f.Nodes {
			if n.Op == rtl.OpConcat && n.Args[0].Name == y {
				word = n
			}
		}
		if word == nil {
			t.Fatalf("no padded normalizer word of %s", y)
		}
		seen := map[int]bool{}
		queue := []*rtl.Node{word}
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			for _, u := range users[n.ID] {
				if seen[u.ID] {
					continue
				}
				seen[u.ID] = true
				switch {
				case u.Op == rtl.OpSlice || u.Op == rtl.OpMux && u.Args[0] != n:
					queue = append(queue, u)
				case u.Op == rtl.OpEq && u.Args[1].Op == rtl.OpConst && u.Args[1].Value.IsZero():
					out[i] = append(out[i], u.Args[1])
				}
			}
		}
	}
	return out
}

// TestMultiQTopKillsNormalizerMutants applies to the MultiQ hpcc_update
// (the configuration docs/grade.md grades) every mutant of a recip_mq
// normalizer stage's compare constant with its top bit set (grade's
// const-msb: 0 -> 100...0; #1877 of `grade --seed 1` and `--seed 13` is
// hop 3's first stage) on every hop slot, and requires the class
// mq_y_top_binade, generated alone, to kill each: some vector whose
// outputs under the mutant differ from the golden ones. Oracle: the
// golden outputs of the class's vectors (hpcc.Datapath.Update) against
// the mutated description evaluated by rtl.Sim, as grade does. As a
// control, the same mutants are applied to mq_y_leading_one's vectors
// (which aim at y = 2^p exactly and cannot reach the top binade's start,
// TestMQTopExactUnreachable): the class must be what kills the first
// stage's mutants.
func TestMultiQTopKillsNormalizerMutants(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	cfg.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	rm, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := rtl.Flatten(rm)
	if err != nil {
		t.Fatal(err)
	}
	stages := recipMQStageConsts(t, f, cfg.MaxHops)
	sites, err := grade.Sites(rm, 1)
	if err != nil {
		t.Fatal(err)
	}
	byNode := map[int]grade.Mutant{}
	for _, mu := range sites {
		if mu.Operator == grade.ConstMSB {
			byNode[mu.NodeID] = mu
		}
	}
	gen := func(class string) *vectors.Set {
		t.Helper()
		set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 1, Seed: 1, Count: 0, Classes: []string{class}, NoJSONL: true})
		if err != nil {
			t.Fatalf("%s: %v", class, err)
		}
		if set.Len() == 0 {
			t.Fatalf("%s: no vectors", class)
		}
		return set
	}
	top, lead := gen("mq_y_top_binade"), gen("mq_y_leading_one")
	for k, fld := range top.InputTable().Fields {
		if f.Inputs[k].Name != fld.Name {
			t.Fatalf("input %d is %s, the set's field %s", k, f.Inputs[k].Name, fld.Name)
		}
	}
	kills := func(m *rtl.Module, set *vectors.Set) bool {
		s, err := rtl.NewSim(m)
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < set.Len(); k++ {
			for i, fld := range set.InputTable().Fields {
				s.SetInUint(i, fieldtable.Get(set.Input(k), fld))
			}
			s.Eval()
			for i, fld := range set.OutputTable().Fields {
				if s.Out(i).Uint64() != fieldtable.Get(set.Output(k), fld) {
					return true
				}
			}
		}
		return false
	}
	if kills(f, top) {
		t.Fatal("the unmutated description disagrees with the class's golden outputs")
	}
	n, firstByLead := 0, 0
	for i, cs := range stages {
		if len(cs) != 6 {
			t.Errorf("hop %d: %d normalizer stage compares, want 6 (a 64-bit padded word)", i, len(cs))
		}
		for j, c := range cs {
			mu, ok := byNode[c.ID]
			if !ok {
				t.Errorf("hop %d stage %d: no const-msb mutant of %s", i, j, c.Name)
				continue
			}
			n++
			mm, err := grade.Apply(rm, mu)
			if err != nil {
				t.Fatal(err)
			}
			if !kills(mm, top) {
				t.Errorf("hop %d: mq_y_top_binade does not kill #%d %s", i, mu.Index, mu)
			}
			if c.Width == 32 && kills(mm, lead) {
				firstByLead++
			}
		}
	}
	if n != 6*cfg.MaxHops {
		t.Errorf("%d mutants checked, want %d", n, 6*cfg.MaxHops)
	}
	if firstByLead != 0 {
		t.Errorf("mq_y_leading_one kills %d first-stage mutants: the control no longer shows what the class adds", firstByLead)
	}
}
