package cli

import (
	"bytes"
	"errors"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// runCLIExit runs hpccgold as its own process and returns its exit
// status, stdout and stderr.
func runCLIExit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := cliCommand(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String(), errb.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errb.String()
	}
	t.Fatalf("hpccgold %s: %v", strings.Join(args, " "), err)
	return 0, "", ""
}

// TestGradeShardsMerge: every shard of a grading run as a separate process
// and merged (shards given out of order) gives the single run's directory
// byte for byte (grade.json, grade.txt, manifest.json), its stdout and its
// exit status, both for a grading below the goal (exit 1) and one above
// it (exit 0); each shard exits 0 (the verdict is the merge's). Oracle:
// the unsharded run. Bad merges exit non-zero naming the problem.
func TestGradeShardsMerge(t *testing.T) {
	dir := t.TempDir()
	// No random vectors (--count 0): the directed ones leave gaps, so the
	// goal 100% fails.
	base := []string{"grade", "--cc", "ldcp", "--mutants", "60", "--seed", "1", "--count", "0"}
	for _, goal := range []string{"100", "0"} {
		single := filepath.Join(dir, "single-"+goal)
		args := append(append([]string{}, base...), "--min-score", goal)
		wantCode, wantOut, errs := runCLIExit(t, append(args, "--out", single)...)
		if wantCode != 0 && wantCode != 1 {
			t.Fatalf("single run: exit %d\n%s", wantCode, errs)
		}
		if (goal == "0") != (wantCode == 0) {
			t.Fatalf("single run with goal %s%%: exit %d", goal, wantCode)
		}
		want := readTree(t, single)
		var shards []string
		for i := 0; i < 3; i++ {
			d := filepath.Join(dir, "shard-"+goal+"-"+strconv.Itoa(i))
			if code, _, errs := runCLIExit(t, append(args, "--shard", strconv.Itoa(i)+"/3", "--out", d)...); code != 0 {
				t.Fatalf("shard %d: exit %d\n%s", i, code, errs)
			}
			shards = append(shards, d)
		}
		merged := filepath.Join(dir, "merged-"+goal)
		code, out, errs := runCLIExit(t, "grade", "merge", "--out", merged, shards[1], shards[2], shards[0])
		if code != wantCode || out != wantOut {
			t.Fatalf("merge: exit %d, want %d\nstdout:\n%s\nwant:\n%s\nstderr %s", code, wantCode, out, wantOut, errs)
		}
		sameTree(t, "merged vs single grading", want, readTree(t, merged))
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"grade", "merge"}, 2, "missing SHARD_DIR"},
		{[]string{"grade", "merge", filepath.Join(dir, "shard-0-0"), filepath.Join(dir, "shard-0-2")}, 2, "shards 1 of 3 missing"},
		{[]string{"grade", "merge", filepath.Join(dir, "shard-0-0"), filepath.Join(dir, "shard-100-1"), filepath.Join(dir, "shard-0-2")}, 2, "goal"},
		{[]string{"grade", "merge", dir}, 1, "does not match its manifest"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != c.code || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want %d naming %q\n%s", c.args, code, c.code, c.want, errs)
		}
	}
}
