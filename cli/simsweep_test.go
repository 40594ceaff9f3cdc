package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// simSweepSpec is a 4-point sweep of the small incast; the second
// max_stage value's runs are cut short by run.limit_ns so that a point
// fails its verdict.
const simSweepSpec = `{"name": "cli", "scenario": "demo-incast-4to1",
 "grid": [{"key": "hpcc.eta", "values": [0.9, 0.95]}, {"key": "run.limit_ns", "values": [100000000, 20000]}]}`

// TestSimSweepShardsMerge: a sweep run as one process, and as 3 shards
// (each its own process) merged (shards out of order), give the same
// directory byte for byte (manifest included), the same stdout and the
// same exit status (1: the points cut short by run.limit_ns did not
// complete their flows); each shard exits 0. Oracle: the single run. Bad
// invocations exit 2 naming the flag.
func TestSimSweepShardsMerge(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(spec, []byte(simSweepSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single")
	code, wantOut, errs := runCLIExit(t, "sim", "--sweep", spec, "--out", single)
	if code != 1 || !strings.Contains(errs, "2 of 4 points did not complete") {
		t.Fatalf("single sweep: exit %d, want 1 (2 points incomplete)\n%s\n%s", code, wantOut, errs)
	}
	want := readTree(t, single)
	for _, f := range []string{"sweep.json", "points.csv", "points.txt", "manifest.json", "points/0000/summary.json", "points/0003/flows.csv"} {
		if len(want[f]) == 0 {
			t.Fatalf("single sweep lacks %s (has %d files)", f, len(want))
		}
	}
	var shards []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(dir, "shard"+strconv.Itoa(i))
		if code, _, errs := runCLIExit(t, "sim", "--sweep", spec, "--shard", strconv.Itoa(i)+"/3", "--workers", "1", "--out", d); code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", i, code, errs)
		}
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	code, out, errs := runCLIExit(t, "sim", "merge", "--out", merged, shards[2], shards[0], shards[1])
	if code != 1 || !strings.HasSuffix(out, strings.Replace(wantOut, single, merged, 1)) {
		t.Fatalf("merge: exit %d, want 1\nstdout:\n%s\nwant (after its first line):\n%s\nstderr %s", code, out, wantOut, errs)
	}
	sameTree(t, "merged vs single sweep", want, readTree(t, merged))

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--sweep", spec}, "--sweep needs --out"},
		{[]string{"sim", "--sweep", spec, "--scenario", "x", "--out", dir + "/o"}, "--scenario: not with --sweep"},
		{[]string{"sim", "--sweep", spec, "--shard", "0/5", "--out", dir + "/o"}, "holds none"},
		{[]string{"sim", "--sweep", spec, "--shard", "2/2/2", "--out", dir + "/o"}, "--shard"},
		{[]string{"sim", "merge", "--out", dir + "/m"}, "missing SHARD_DIR"},
		{[]string{"sim", "merge", "--out", dir + "/m", shards[0], shards[2]}, "shards 1 of 3 missing"},
		{[]string{"sim", "merge", "--out", dir + "/m", single}, `"sim-sweep" directory`},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q\n%s", c.args, code, c.want, errs)
		}
	}
}

// TestPlanSimGrade: explore plan --command sim|grade writes the engine's
// files for a scenario sweep and a grading, the shard count bounded by the
// sweep's points or the grading's sample; bad combinations exit 2 naming
// the flag.
func TestPlanSimGrade(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "sweep.json")
	if err := os.WriteFile(spec, []byte(simSweepSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string // a file the plan holds, and a line of it
		line string
	}{
		{[]string{"--engine", "slurm", "--command", "sim", spec, "--shards", "4"}, "slurm/shards.sbatch", `exec hpccgold sim --sweep "${SLURM_SUBMIT_DIR:-.}/spec.json" --shard "$SLURM_ARRAY_TASK_ID/4"`},
		{[]string{"--engine", "kubernetes", "--command", "grade", "--grade-args", "--cc ldcp --mutants 20", "--shards", "20"}, "k8s/merge-job.json", `"grade",`},
	} {
		out := filepath.Join(dir, c.args[1]+c.args[3])
		code, _, errs := runCLI(append(append([]string{"explore", "plan"}, c.args...), "--out", out)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, code, errs)
		}
		tree := readTree(t, out)
		if !strings.Contains(string(tree[c.want]), c.line) {
			t.Fatalf("%v: %s lacks %q:\n%s", c.args, c.want, c.line, tree[c.want])
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "slurm", "--command", "sim", spec, "--shards", "5"}, "--shards=5"},
		{[]string{"--engine", "slurm", "--command", "grade", "--grade-args", "--mutants 0", "--shards", "2"}, "--mutants"},
		{[]string{"--engine", "slurm", "--command", "grade", "--grade-args", "--mutants 10", "--shards", "11"}, "--shards=11"},
		{[]string{"--engine", "slurm", "--command", "grade", spec, "--shards", "2"}, "not a spec"},
		{[]string{"--engine", "slurm", "--command", "vectors", "--shards", "2"}, "--command"},
		{[]string{"--engine", "slurm", "--example", "--grade-args", "--cc ldcp", "--shards", "2"}, "--grade-args"},
	} {
		code, _, errs := runCLI(append(append([]string{"explore", "plan"}, c.args...), "--out", filepath.Join(dir, "bad"))...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, want 2 naming %q\n%s", c.args, code, c.want, errs)
		}
	}
}
