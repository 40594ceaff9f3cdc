package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/coverage"
)

// TestVectorsCoverObserved runs `vectors cover --observed` on ldcp_update's
// directed vectors (whole, and as 2 shards merged): the plain figures are
// those of a run without the flag (byte-identical text before the observed
// section, equal JSON summary and bins), the observed figure is below 100%
// and below the plain one, the merged shards give the whole set's observed
// counts, and --observed without the functional model is a usage error.
func TestVectorsCoverObserved(t *testing.T) {
	root := t.TempDir()
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	gen := func(dir string, extra ...string) {
		t.Helper()
		args := append([]string{"vectors", "gen", "--cc", "ldcp", "--count", "0", "--seed", "1", "--out", filepath.Join(root, dir)}, extra...)
		if code, _, errs := run(args...); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errs)
		}
	}
	gen("whole")
	gen("s0", "--shard", "0/2")
	gen("s1", "--shard", "1/2")
	whole := filepath.Join(root, "whole")
	code, plainText, errs := run("vectors", "cover", whole)
	if code != 1 && code != 0 {
		t.Fatalf("cover: %d %s", code, errs)
	}
	code, obsText, errs := run("vectors", "cover", whole, "--observed")
	if code != 0 {
		t.Fatalf("cover --observed: %d %s", code, errs)
	}
	if !strings.HasPrefix(obsText, plainText) || !strings.Contains(obsText[len(plainText):], "observed coverage") || !strings.Contains(obsText, "hit but never observed") {
		t.Fatalf("cover --observed: want the plain report unchanged, then the observed one:\n%s", obsText)
	}
	report := func(args ...string) coverage.Report {
		t.Helper()
		code, out, errs := run(append([]string{"vectors", "cover", "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("cover %v: %d %s", args, code, errs)
		}
		var cj vectors.CoverageJSON
		if err := json.Unmarshal([]byte(out), &cj); err != nil {
			t.Fatal(err)
		}
		var r coverage.Report
		if err := json.Unmarshal(cj.Functional, &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	plain, obs := report(whole), report("--observed", whole)
	if plain.Observed != nil || obs.Observed == nil {
		t.Fatalf("observed figure: %v without the flag, %v with it", plain.Observed, obs.Observed)
	}
	if plain.Summary != obs.Summary {
		t.Errorf("plain summary changed by --observed: %+v, %+v", plain.Summary, obs.Summary)
	}
	for i, p := range plain.Points {
		for b, bin := range p.Bins {
			ob := obs.Points[i].Bins[b]
			if ob.Count != bin.Count || ob.Observed == nil || *ob.Observed > bin.Count {
				t.Fatalf("%s.%s: plain count %d; with --observed %d, observed %v", p.Name, bin.Name, bin.Count, ob.Count, ob.Observed)
			}
		}
	}
	if s := obs.Observed.Summary; s.Percent >= 100 || s.Hit >= plain.Summary.Hit || len(obs.Observed.Masked) == 0 {
		t.Errorf("directed ldcp vectors: observed %+v (%d masked), plain %+v: want observed below 100%% and below plain", s, len(obs.Observed.Masked), plain.Summary)
	}
	merged := report("--merge", "--observed", filepath.Join(root, "s1"), filepath.Join(root, "s0"))
	if merged.Observed == nil || merged.Observed.Summary != obs.Observed.Summary || fmt.Sprint(merged.Observed.Masked) != fmt.Sprint(obs.Observed.Masked) {
		t.Fatalf("merged shards' observed coverage differs from the whole set's")
	}
	for i, p := range obs.Points {
		for b, bin := range p.Bins {
			if mb := merged.Points[i].Bins[b]; mb.Count != bin.Count || *mb.Observed != *bin.Observed {
				t.Errorf("%s.%s: merged shards %d hits, %d observed; whole set %d, %d", p.Name, bin.Name, mb.Count, *mb.Observed, bin.Count, *bin.Observed)
			}
		}
	}
	if code, _, _ := run("vectors", "cover", whole, "--observed", "--functional=false"); code != 2 {
		t.Errorf("--observed --functional=false: exit %d, want 2", code)
	}
}
