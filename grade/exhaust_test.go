package grade

import (
	"context"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// satModule is the txRate cast of hpcc_update at small scale (14 input
// bits): r = floor(255 / max(x, 1)) from a table (the 1/dts unit), d * r
// rounded half up after a 4-bit shift (v, 12 bits), saturated at k. The
// compare's threshold and the value muxed in are separate constants, as in
// the description.
func satModule(t testing.TB, k uint64) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("satmod", "saturating rounded product of a reciprocal table")
	x := m.In("x", 6, false)
	d := m.In("d", 8, false)
	tab := make([]uint64, 64)
	for i := range tab {
		tab[i] = 255 / uint64(max(i, 1))
	}
	r := m.ROM(x, 8, tab)
	p := m.Mul(m.ZExt(d, 16), m.ZExt(r, 16))
	v := m.Add(m.ZExt(m.Slice(p, 4, 12), 12), m.ZExt(m.Bit(p, 3), 12))
	sat := m.Gt(v, m.Const(12, false, k))
	m.Out("y", m.Mux(sat, m.Const(12, false, k), v), "min(Rnd(d * r / 16), k)")
	m.Out("lo", m.Bit(p, 0), "the product's last bit")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestExhaustRuleSound grades every mutant of satModule over all 2^14
// inputs (the oracle) and asks rule 10 alone (exhaustProof) for a proof of
// each: no mutant an input kills may have one. Under k = 3012 the value
// 3013 is never produced (computed over every x and d: Rnd(d * r / 16)
// takes 3012 and 3014 but not 3013), so the threshold + 1 differs nowhere
// and must be proved; under k = 4063, the twin, 4064 is produced at two
// inputs only (x <= 1, d = 255: the top corner, which the probes miss),
// the mutant outputs 4064 where the original saturates to 4063, and is
// killed. The cut of the compare is the two inputs (14 bits: 16 384
// values), more than one leaf, so the proof runs the bisection and the
// leaf evaluation both.
//
// Planted unsound edits each make this test fail (checked by hand when
// the rule landed): a split that drops its last part, the post-dominator
// test skipped (every node of the forward cone taken as d: the product's
// ext-swaps proved), a leaf evaluation that skips a box's last value, the
// first box one value short of the cut node's interval.
func TestExhaustRuleSound(t *testing.T) {
	for _, c := range []struct {
		k      uint64
		proved bool // the compare threshold's const+1
	}{{3012, true}, {4063, false}} {
		m := satModule(t, c.k)
		v := exhaustive(t, m)
		f, err := combinational(m)
		if err != nil {
			t.Fatal(err)
		}
		all, err := Sites(f, 1)
		if err != nil {
			t.Fatal(err)
		}
		r, err := newRunner(f, v)
		if err != nil {
			t.Fatal(err)
		}
		pr := newProver(f)
		var cmp *rtl.Node
		for _, n := range f.Nodes {
			if n.Op == rtl.OpGt {
				cmp = n
			}
		}
		found, proved := false, 0
		for _, mu := range all {
			mm, err := Apply(m, mu)
			if err != nil {
				t.Fatal(err)
			}
			kill, _, err := r.firstKill(context.Background(), mm)
			if err != nil {
				t.Fatal(err)
			}
			proof, err := pr.exhaustProof(mu)
			if err != nil {
				t.Fatal(err)
			}
			if proof != "" {
				proved++
				if kill >= 0 {
					t.Errorf("k=%d: %s: proved by exhaustion (%s) but input %d kills it", c.k, mu, proof, kill)
				}
			}
			if mu.NodeID == cmp.Args[1].ID && mu.Operator == ConstInc {
				found = true
				if (proof != "") != c.proved {
					t.Errorf("k=%d: the threshold + 1: proof %q, want proved %v (killed at input %d)", c.k, proof, c.proved, kill)
				}
				if c.proved && !strings.Contains(proof, "values evaluated") {
					t.Errorf("k=%d: proof %q does not say what it evaluated", c.k, proof)
				}
				if (kill >= 0) == c.proved {
					t.Errorf("k=%d: the threshold + 1 killed at %d: the twin's premise is wrong", c.k, kill)
				}
			}
		}
		if !found {
			t.Fatalf("k=%d: no const+1 of the compare's threshold among %d sites", c.k, len(all))
		}
		t.Logf("k=%d: %d sites, %d proved by exhaustion", c.k, len(all), proved)
	}
}

// TestExhaustCut: the cut found for the saturation compare of satModule
// is its two inputs (6 + 8 bits, at most exhaustInputBits), while the
// minimum cut by interval bits is the 12-bit sum itself (12 bits: v <=
// 4064), whose interval holds 3013 and so could not prove k = 3012; and a
// mutant whose node drives an output has no post-dominator (the rule
// does not apply).
func TestExhaustCut(t *testing.T) {
	m := satModule(t, 3012)
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	p := newProver(f)
	var v *rtl.Node
	for _, n := range f.Nodes {
		if n.Op == rtl.OpGt {
			v = n.Args[0]
		}
	}
	cut := p.inputCut([]*rtl.Node{v})
	if len(cut) != 2 || cut[0].Op != rtl.OpInput || cut[1].Op != rtl.OpInput {
		t.Errorf("input cut %v; want the inputs x, d", cut)
	}
	mc, w := minCut(f, p.kb, []*rtl.Node{v})
	if len(mc) != 1 || mc[0] != v || w != 12 {
		t.Errorf("minimum cut of %d nodes, weight %d; want v alone, 12 bits", len(mc), w)
	}
	for _, o := range f.Outputs {
		if ds := p.postDominators(o.Node); ds != nil {
			t.Errorf("output %s has post-dominators %d", o.Name, len(ds))
		}
	}
}
