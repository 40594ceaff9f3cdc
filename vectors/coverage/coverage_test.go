package coverage

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// smallModel is a hand-built module with one node of each structural kind.
func smallModel(t *testing.T) *Model {
	t.Helper()
	m := rtl.NewModule("tiny_mod", "")
	x := m.In("x", 4, false)
	y := m.In("y", 3, false)
	c1 := m.Gt(x, m.Const(4, false, 9))
	yz := m.ZExt(y, 4)
	c2 := m.Gt(yz, m.Const(4, false, 9)) // y <= 7: at and above unreachable
	r := m.ROM(m.Slice(x, 2, 2), 8, []uint64{3, 1, 4, 1})
	mx := m.Mux(m.Bit(x, 0), x, m.Not(x))
	p := m.Add(m.ZExt(x, 5), m.ZExt(yz, 5))
	inc := m.Bit(p, 1).Named("rnd_inc")
	m.Out("c1", c1, "")
	m.Out("c2", c2, "")
	m.Out("r", r, "")
	m.Out("mx", mx, "")
	m.Out("inc", inc, "")
	cm, err := newModel(m)
	if err != nil {
		t.Fatal(err)
	}
	cm.addStructural()
	if err := cm.validate(); err != nil {
		t.Fatal(err)
	}
	return cm
}

// TestStructuralBinsExhaustive samples every input of the small module and
// compares each point's bin counts with counts computed directly from x
// and y (the oracle), and checks that exactly the bins the value analysis
// proves unreachable are never hit (for a module sampled over all of its
// inputs, a bin not hit is unreachable: the proofs are sound and complete
// here).
func TestStructuralBinsExhaustive(t *testing.T) {
	cm := smallModel(t)
	// The sign and slice points of this module are checked by
	// TestOperandBitsExhaustive.
	cm.Points = slices.DeleteFunc(cm.Points, func(p Point) bool { return p.Kind == KindSign || p.Kind == KindSlice })
	s, err := cm.NewSampler()
	if err != nil {
		t.Fatal(err)
	}
	c := cm.NewCounts()
	want := map[string][]uint64{}
	add := func(p string, n, b int) {
		if want[p] == nil {
			want[p] = make([]uint64, n)
		}
		want[p][b]++
	}
	for x := uint64(0); x < 16; x++ {
		for y := uint64(0); y < 8; y++ {
			s.Sample([]uint64{x, y}, c)
			add("c1", 3, cmpBin(x, 9))
			add("c2", 3, cmpBin(y, 9))
			add("rom", 4, int(x>>2))
			add("mux", 2, int(x&1))
			pp := (x + y) & 3
			add("round", 4, map[uint64]int{0: 0, 1: 3, 2: 2, 3: 1}[pp])
		}
	}
	byKind := map[string]string{}
	for _, p := range cm.Points {
		switch {
		case p.Kind == KindCompare && strings.Contains(p.Doc, "x ("):
			byKind[p.Name] = "c1"
		case p.Kind == KindCompare:
			byKind[p.Name] = "c2"
		default:
			byKind[p.Name] = map[Kind]string{KindROM: "rom", KindMux: "mux", KindRound: "round"}[p.Kind]
		}
	}
	if len(cm.Points) != 5 {
		t.Fatalf("%d points, want 5 (two compares, a ROM, a mux, a rounding): %v", len(cm.Points), byKind)
	}
	for i, p := range cm.Points {
		w := want[byKind[p.Name]]
		if fmt.Sprint(c.Bins[i]) != fmt.Sprint(w) {
			t.Errorf("%s (%s): counts %v, want %v", p.Name, byKind[p.Name], c.Bins[i], w)
		}
		for b, bin := range p.Bins {
			if (c.Bins[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", p.Name, bin.Name, c.Bins[i][b], bin.Unreachable)
			}
		}
	}
}

func cmpBin(v, c uint64) int {
	switch {
	case v < c:
		return 0
	case v == c:
		return 1
	}
	return 2
}

// TestHPCCFunctionalBins samples the default level-1 set and checks the
// functional bins against the golden datapath's own outputs (the oracle:
// hpcc.Datapath.Update on the unpacked transaction), that no bin proved
// unreachable is ever hit (soundness of the proofs on 20k vectors), and
// that the set closes coverage.
func TestHPCCFunctionalBins(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	cm, err := ForHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 1, Seed: 1, Count: 2000, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	d, _ := hpcc.NewDatapath(cfg)
	idx := map[string]int{}
	for i, p := range cm.Points {
		idx[p.Name] = i
	}
	s, err := cm.NewSampler()
	if err != nil {
		t.Fatal(err)
	}
	v := grade.FromSet(set, "test")
	total := cm.NewCounts()
	var miForced, notFirst int
	for k := 0; k < v.Len(); k++ {
		c := cm.NewCounts()
		s.Sample(v.Input(k), c)
		total.Add(c)
		st, in, err := d.UnpackInput(set.Input(k))
		if err != nil {
			t.Fatal(err)
		}
		next, out := d.Update(st, in)
		hit := func(p string) int {
			for b, n := range c.Bins[idx[p]] {
				if n != 0 {
					return b
				}
			}
			return -1
		}
		if out.First {
			if hit("sel_hop") != -1 || hit("x_branch_inc_update") != -1 {
				t.Fatalf("vector %d: a first event hit sel_hop or the branch cross", k)
			}
			continue
		}
		notFirst++
		wantSel := int(out.SelHop)
		if out.SelHop == hpcc.NoHop {
			wantSel = cfg.MaxHops
		}
		if got := hit("sel_hop"); got != wantSel {
			t.Fatalf("vector %d: sel_hop bin %d, datapath selected %d", k, got, out.SelHop)
		}
		inc := min(int(st.IncStage), cfg.MaxStage+1)
		wantX := (b2i(out.MI)*(cfg.MaxStage+2)+inc)*2 + b2i(out.UpdateWc)
		if got := hit("x_branch_inc_update"); got != wantX {
			t.Fatalf("vector %d: branch cross bin %d, datapath mi=%v inc=%d update=%v (bin %d)", k, got, out.MI, st.IncStage, out.UpdateWc, wantX)
		}
		if int(st.IncStage) >= cfg.MaxStage {
			miForced++
		}
		if got, u := hit("u"), next.U; (u == 0) != (got == 0) {
			t.Fatalf("vector %d: u bin %d for U raw %#x", k, got, u)
		}
	}
	if miForced == 0 || notFirst == 0 {
		t.Fatalf("the set has %d non-first events, %d with incStage >= maxStage: the test needs both", notFirst, miForced)
	}
	for i, p := range cm.Points {
		for b, bin := range p.Bins {
			if bin.Unreachable != "" && total.Bins[i][b] != 0 {
				t.Errorf("%s.%s is proved unreachable (%s) but hit %d times", p.Name, bin.Name, bin.Unreachable, total.Bins[i][b])
			}
		}
	}
	// Closure: every bin the set does not hit is proved unreachable (issue
	// 14: the default level-1 set closes coverage, in agreement with grade,
	// which puts it at or above the 98% goal, docs/grade.md), except the
	// sign and slice holes listed here (operand_bits.go; neither hit nor
	// proved unreachable yet, docs/vectors.md): none since the egress ns
	// slices' above1 bins (slice_above_h<i>_eg_ns) are proved by the
	// threshold split (hpcc_thresholds.go) and the ns differences' top
	// bits (sign_n_141 and the other hops') hit by stored_ns_above_max. A
	// new bin the set misses, a proof lost, or a listed hole hit or
	// proved, fails here.
	listed := map[string]bool{}
	for i, p := range cm.Points {
		for b, bin := range p.Bins {
			name := p.Name + "." + bin.Name
			hole := bin.Unreachable == "" && total.Bins[i][b] == 0
			if hole != listed[name] {
				t.Errorf("%s: hole %v, listed %v (hit %d, proof %q)", name, hole, listed[name], total.Bins[i][b], bin.Unreachable)
			}
		}
	}
	rep := cm.Report(total, []string{"test"})
	if rep.Summary.Holes != len(listed) {
		t.Errorf("the default set leaves %d holes, want the %d listed: %+v", rep.Summary.Holes, len(listed), rep.Summary)
	}
}

// TestCloseDeterministic runs closure twice on ldcp_update with the same
// options: the same count and bias; and the set regenerated with that
// count and bias has the coverage closure reported (the oracle:
// vectors.Generate, as vectors gen writes the set).
func TestCloseDeterministic(t *testing.T) {
	cfg := ldcp.DefaultConfig()
	cm, err := ForLDCP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := ldcpVec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	opts := CloseOptions{Level: 1, Seed: 3, Budget: 3000, Round: 500, Workers: 2}
	a, err := Close(context.Background(), vm, cm, opts)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Close(context.Background(), vm, cm, opts)
	if err != nil {
		t.Fatal(err)
	}
	if a.Random != b.Random || fmt.Sprint(a.Bias) != fmt.Sprint(b.Bias) || fmt.Sprint(a.Counts.Bins) != fmt.Sprint(b.Counts.Bins) {
		t.Fatalf("closure is not deterministic: %d %v / %d %v", a.Random, a.Bias, b.Random, b.Bias)
	}
	set, err := vectors.Generate(vm, vectors.Options{Level: 1, Seed: 3, Count: a.Random, Bias: a.Bias, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := cm.Run(context.Background(), grade.FromSet(set, "regen"), 2)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Bins) != fmt.Sprint(a.Counts.Bins) || c.Vectors != a.Counts.Vectors {
		t.Fatalf("the regenerated set's coverage differs from closure's (%d vs %d vectors)", c.Vectors, a.Counts.Vectors)
	}
	if !a.Closed && a.Random != opts.Budget {
		t.Errorf("closure stopped at %d random vectors, neither closed nor at the budget %d", a.Random, opts.Budget)
	}
}

// TestSVExport checks the covergroup text: one coverpoint per point, one
// bins or ignore_bins line per bin with values (in model order), the
// ignore_bins exactly the unreachable bins.
func TestSVExport(t *testing.T) {
	cm, err := ForHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := cm.WriteSV(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	var cps, bins, ign, empty int
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case strings.Contains(l, ": coverpoint "):
			cps++
		case strings.HasPrefix(l, "bins "):
			bins++
		case strings.HasPrefix(l, "ignore_bins "):
			ign++
		case strings.HasPrefix(l, "// bin "):
			empty++
		}
	}
	total, _, unreach := cm.Bins()
	if cps != len(cm.Points) || bins+ign+empty != total {
		t.Errorf("%d coverpoints, %d bins + %d ignore_bins + %d empty; model has %d points, %d bins", cps, bins, ign, empty, len(cm.Points), total)
	}
	if ign+empty != unreach {
		t.Errorf("%d ignore_bins and %d empty bins, %d unreachable bins", ign, empty, unreach)
	}
	// Every signal read exists in the module emit verilog --stages 0 prints.
	um, _, err := hpccrtl.Update(hpcc.DefaultConfig(), 0)
	if err != nil {
		t.Fatal(err)
	}
	v, err := verilog.Print(um)
	if err != nil {
		t.Fatal(err)
	}
	idents := map[string]bool{}
	for _, f := range strings.FieldsFunc(string(v), func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		idents[f] = true
	}
	refs := 0
	for _, part := range strings.Split(text, "`"+SVDutMacro+".")[1:] {
		name := strings.FieldsFunc(part, func(r rune) bool {
			return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
		})[0]
		refs++
		if !idents[name] {
			t.Errorf("the covergroup reads %s, which the printed hpcc_update does not declare", name)
		}
	}
	if refs < len(cm.Points) {
		t.Errorf("%d signal references for %d points", refs, len(cm.Points))
	}
}

func ldcpVec(cfg ldcp.Config) (vectors.Model, error) { return ldcpvecNew(cfg) }
