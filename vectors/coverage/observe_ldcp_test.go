package coverage

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/vectors"
)

// maskedSurvivorBins are bins on the nodes of the ldcp_update mutants that
// only the random vectors of the default set kill although the directed
// vectors alone hit a bin at their node (grade --cc ldcp --mutants 0 on
// both sets, seed 1; docs/vectors.md "Observed coverage"): the change each
// mutant makes shows at its node on a directed vector, but is masked
// before any output there.
var maskedSurvivorBins = map[string]string{
	"sign_n_39.top1":                 "#49 n_39 zext -> sext (win_ok)",
	"sign_n_89.a_top1":               "#138 n_89 cmp-sign (n)",
	"sign_n_96.a_top1":               "#150 n_96 mul-sign (cw_md_diff)",
	"sign_n_97.top1":                 "#151 n_97 zext -> sext (cw_md_diff)",
	"slice_below_rnd_inc.below0":     "#237 rnd_inc slice-1",
	"slice_below_rnd_inc.below1":     "#237 rnd_inc slice-1",
	"slice_above_rnd_inc_224.above0": "#326 rnd_inc_224 slice+1",
	"slice_above_rnd_inc_224.above1": "#326 rnd_inc_224 slice+1",
	"sign_n_273.a_top1":              "#409 n_273 cmp-sign (full_ack)",
	"sign_n_286.b_top1":              "#434 n_286 cmp-sign (cw_next)",
}

// TestObservedLDCP samples ldcp_update's directed vectors alone (grade:
// 95.16%, below the goal) and the default set (directed + 10 000 random;
// grade 98.90%) with observed coverage. Checked on both: the plain counts
// equal Run's, each bin's observed count is at most its plain count, and
// the counts do not depend on the number of workers. On the directed
// vectors: observed coverage is below 100% and below the plain figure;
// every bin of maskedSurvivorBins is hit (plain) but never observed (the
// plain model counted these as closed while grade's mutants on them
// survive), and every plain hole is an observed hole. On the default set,
// whose random vectors kill those mutants, each of these bins is
// observed. Oracle: the description evaluated per vector, and the
// forward simulation TestObservedMatchesBruteForce checks.
func TestObservedLDCP(t *testing.T) {
	cfg := ldcp.DefaultConfig()
	cm, err := ForLDCP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := ldcpVec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, count := range []int64{0, 10000} {
		set, err := vectors.Generate(vm, vectors.Options{Level: 1, Seed: 1, Count: count, NoJSONL: true})
		if err != nil {
			t.Fatal(err)
		}
		vs := grade.FromSet(set, "ldcp")
		plain, err := cm.Run(context.Background(), vs, 2)
		if err != nil {
			t.Fatal(err)
		}
		p1, o1, err := cm.RunObserved(context.Background(), vs, 1)
		if err != nil {
			t.Fatal(err)
		}
		p2, o2, err := cm.RunObserved(context.Background(), vs, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				if p1.Bins[i][b] != plain.Bins[i][b] || p2.Bins[i][b] != plain.Bins[i][b] {
					t.Fatalf("count %d: %s.%s: plain count %d, RunObserved's %d (1 worker) and %d (2)", count, p.Name, bin.Name, plain.Bins[i][b], p1.Bins[i][b], p2.Bins[i][b])
				}
				if o1.Bins[i][b] != o2.Bins[i][b] {
					t.Fatalf("count %d: %s.%s: observed %d with 1 worker, %d with 2", count, p.Name, bin.Name, o1.Bins[i][b], o2.Bins[i][b])
				}
				if o1.Bins[i][b] > plain.Bins[i][b] {
					t.Fatalf("count %d: %s.%s: observed %d times, hit %d", count, p.Name, bin.Name, o1.Bins[i][b], plain.Bins[i][b])
				}
			}
		}
		rep := cm.Report(plain, []string{"ldcp"})
		if err := rep.AddObserved(cm, o1); err != nil {
			t.Fatal(err)
		}
		holes := map[string]bool{}
		for _, h := range rep.ObservedHoles() {
			holes[h] = true
		}
		ps, os := rep.Summary, rep.Observed.Summary
		t.Logf("count %d: plain %d of %d = %.2f%% (%d holes); observed %d = %.2f%% (%d holes, %d hit but never observed)", count, ps.Hit, ps.Reachable, ps.Percent, ps.Holes, os.Hit, os.Percent, os.Holes, len(rep.Observed.Masked))
		if os.Holes != ps.Holes+len(rep.Observed.Masked) {
			t.Errorf("count %d: %d observed holes, want the %d plain holes and the %d masked bins", count, os.Holes, ps.Holes, len(rep.Observed.Masked))
		}
		for _, h := range rep.Holes() {
			if !holes[h] {
				t.Errorf("count %d: plain hole %s is not an observed hole", count, h)
			}
		}
		for bin, mutant := range maskedSurvivorBins {
			switch {
			case count == 0 && !holes[bin]:
				t.Errorf("directed vectors: %s (mutant %s survives them) is observed", bin, mutant)
			case count == 0 && !contains(rep.Observed.Masked, bin):
				t.Errorf("directed vectors: %s (mutant %s) is not hit (plain): the list is stale", bin, mutant)
			case count != 0 && holes[bin]:
				t.Errorf("default set: %s is never observed, but the set kills mutant %s", bin, mutant)
			}
		}
		if count == 0 && (os.Percent >= 100 || os.Hit >= ps.Hit) {
			t.Errorf("directed vectors: observed %.2f%% (%d hits), plain %.2f%% (%d): want observed below 100%% and below plain", os.Percent, os.Hit, ps.Percent, ps.Hit)
		}
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
