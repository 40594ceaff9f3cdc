package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrade runs `hpccgold grade` on LDCP (the fast datapath): a small
// sample below the 98% goal exits 1 after writing grade.json and grade.txt
// (the text also on stdout); the same run with --workers 1 writes a
// byte-identical grade.json; --min-score 0 passes (exit 0); a set read with
// --vectors gives the same verdicts as the same set generated in memory;
// `hpccgold verify` accepts the directory. Bad flags are usage errors
// (exit 2) naming the flag.
func TestGrade(t *testing.T) {
	out1, out2 := t.TempDir(), t.TempDir()
	// The directed vectors alone (--count 0) leave this sample below the
	// goal (the proofs of grade/equiv.go settle the survivors of samples
	// graded over random vectors too).
	args := []string{"grade", "--cc", "ldcp", "--mutants", "24", "--seed", "1", "--count", "0"}
	code, stdout, errs := runCLI(append(args, "--out", out1)...)
	if code != 1 || !strings.Contains(stdout, "score ") || !strings.Contains(errs, "below the goal 98.00%") {
		t.Fatalf("grade below the goal: exit %d, want 1\n%s\n%s", code, stdout, errs)
	}
	text, err := os.ReadFile(filepath.Join(out1, gradeTextFile))
	if err != nil || string(text) != stdout {
		t.Fatalf("grade.txt differs from stdout (%v)", err)
	}
	if code, _, errs := runCLI(append(args, "--out", out2, "--workers", "1")...); code != 1 {
		t.Fatalf("workers 1: exit %d\n%s", code, errs)
	}
	js1, _ := os.ReadFile(filepath.Join(out1, gradeJSONFile))
	js2, _ := os.ReadFile(filepath.Join(out2, gradeJSONFile))
	if len(js1) == 0 || !bytes.Equal(js1, js2) {
		t.Fatal("grade.json depends on the worker count")
	}
	var rep struct {
		Mutants, Killed, Equivalent, Gaps int
		Pass                              bool
	}
	if err := json.Unmarshal(js1, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Mutants != 24 || rep.Killed+rep.Equivalent+rep.Gaps != 24 || rep.Pass {
		t.Fatalf("report %+v", rep)
	}
	if code, _, errs := runCLI("verify", out1); code != 0 {
		t.Fatalf("verify of a grade directory: exit %d\n%s", code, errs)
	}
	if code, _, errs := runCLI(append(args, "--min-score", "0")...); code != 0 {
		t.Fatalf("--min-score 0: exit %d\n%s", code, errs)
	}
	vec := t.TempDir()
	if code, _, errs := runCLI("vectors", "gen", "--cc", "ldcp", "--count", "0", "--no-jsonl", "--out", vec); code != 0 {
		t.Fatalf("vectors gen: exit %d\n%s", code, errs)
	}
	out3 := t.TempDir()
	if code, _, errs := runCLI("grade", "--vectors", vec, "--mutants", "24", "--seed", "1", "--out", out3); code != 1 {
		t.Fatalf("grade --vectors: exit %d\n%s", code, errs)
	}
	var r1, r3 struct{ Results []json.RawMessage }
	js3, _ := os.ReadFile(filepath.Join(out3, gradeJSONFile))
	if json.Unmarshal(js1, &r1) != nil || json.Unmarshal(js3, &r3) != nil || len(r1.Results) != 24 {
		t.Fatal("reports do not parse")
	}
	for i := range r1.Results {
		if !bytes.Equal(r1.Results[i], r3.Results[i]) {
			t.Fatalf("mutant %d: generated set and --vectors set disagree:\n%s\n%s", i, r1.Results[i], r3.Results[i])
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"grade", "--mutants", "-1"}, "--mutants=-1"},
		{[]string{"grade", "--min-score", "101"}, "--min-score=101"},
		{[]string{"grade", "--cc", "dcqcn"}, `--cc="dcqcn"`},
		{[]string{"grade", "--shard", "3/3"}, "--shard"},
		{[]string{"grade", "--level", "3"}, "--level=3"},
		{[]string{"grade", "--vectors", vec, "--count", "5"}, "--count"},
		{[]string{"grade", "--vectors", vec, "--cc", "hpcc"}, "--cc=hpcc"},
		{[]string{"grade", "extra"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q\n%s", c.args, code, c.want, errs)
		}
	}
}
