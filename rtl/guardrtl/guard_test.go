package guardrtl

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestCombVsGolden runs every directed vector and 20000 constrained-random
// ones of each check configuration (guardvec.CheckConfigs) through the
// rtl evaluator of the combinational int_guard and compares every output
// field with cc/intguard's (the oracle for bits).
func TestCombVsGolden(t *testing.T) {
	for name, cfg := range guardvec.CheckConfigs() {
		m, err := Comb(cfg)
		if err != nil {
			t.Fatal(err)
		}
		model, err := guardvec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		in, out := model.Input(), model.Output()
		if len(m.Inputs) != len(in.Fields) || len(m.Outputs) != len(out.Fields) {
			t.Fatalf("%s: ports %d in, %d out; tables %d, %d", name, len(m.Inputs), len(m.Outputs), len(in.Fields), len(out.Fields))
		}
		for i, f := range in.Fields {
			if m.Inputs[i].Name != f.Name || m.Inputs[i].Width != f.Width {
				t.Fatalf("%s: input %d: port %s/%d, field %s/%d", name, i, m.Inputs[i].Name, m.Inputs[i].Width, f.Name, f.Width)
			}
		}
		sim, err := rtl.NewSim(m)
		if err != nil {
			t.Fatal(err)
		}
		ev, _ := model.NewEvaluator()
		want := make([]uint64, out.Words())
		n := 0
		check := func(class string, word []uint64) {
			t.Helper()
			for i := range want {
				want[i] = 0
			}
			h := vectors.NewHits(len(model.Classes()), 1000)
			if err := ev.Eval(word, want, h); err != nil {
				t.Fatal(err)
			}
			for i, f := range in.Fields {
				sim.SetIn(i, rtl.BitsOf(fieldtable.Get(word, f)))
			}
			sim.Eval()
			for i, f := range out.Fields {
				got := sim.Out(i).Uint64()
				if w := fieldtable.Get(want, f); got != w {
					t.Fatalf("%s: %s vector %d: %s = %#x, golden %#x", name, class, n, f.Name, got, w)
				}
			}
			n++
		}
		err = model.Directed(1, func(c int, word []uint64) error {
			check(model.Classes()[c].Name, word)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		r := &vectors.Rand{}
		word := make([]uint64, in.Words())
		for j := uint64(0); j < 20000; j++ {
			r.Reset(3, j)
			for i := range word {
				word[i] = 0
			}
			if err := model.Random(r, word); err != nil {
				t.Fatal(err)
			}
			check("random", word)
		}
		t.Logf("%s: %d vectors bit-exact", name, n)
	}
}
