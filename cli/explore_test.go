package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// exploreTestSpec sweeps the width of U over three points on
// demo-incast-4to1 without synthesis (the Yosys path is tested in package
// explore); exploreTestSpec4 extends it by one width.
const (
	exploreTestSpec = `{"name": "t", "encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "none",
  "params": [{"name": "formats.u", "formats": {"sign": "u", "int": 8, "widths": {"from": 12, "to": 20, "step": 4}}}]}`
	exploreTestSpec4 = `{"name": "t", "encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "none",
  "params": [{"name": "formats.u", "formats": {"sign": "u", "int": 8, "widths": {"from": 12, "to": 24, "step": 4}}}]}`
)

// readTree returns every file under dir but the lock and the cache, by
// slash path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if fi.IsDir() {
			if strings.HasPrefix(fi.Name(), ".hpccgold") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(fi.Name(), ".hpccgold") {
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree fails unless a and b hold the same files byte for byte.
func sameTree(t *testing.T, what string, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: %d files vs %d", what, len(a), len(b))
	}
	for n, d := range a {
		if !bytes.Equal(d, b[n]) {
			t.Fatalf("%s: %s differs", what, n)
		}
	}
}

// runCLIProcess runs hpccgold as its own process and returns stdout.
func runCLIProcess(t *testing.T, args ...string) string {
	t.Helper()
	cmd := cliCommand(args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("hpccgold %s: %v\nstdout %s\nstderr %s", strings.Join(args, " "), err, out.String(), errb.String())
	}
	return out.String()
}

var exploreCounts = regexp.MustCompile(`scenario runs (\d+) run, (\d+) cached`)

// TestExploreShardsMerge: every shard of a sweep run as a separate process
// (each with its own output directory and cache) and merged gives the
// single run's directory byte for byte, manifest included; a rerun into
// the same directory is byte-identical and computes nothing; an extended
// sweep computes only its new point. Oracle: the single run.
func TestExploreShardsMerge(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(exploreTestSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	single := filepath.Join(dir, "single")
	out := runCLIProcess(t, "explore", spec, "--out", single)
	if m := exploreCounts.FindStringSubmatch(out); m == nil || m[1] != "4" {
		t.Fatalf("single run: want 4 scenario runs (3 fixed, 1 float):\n%s", out)
	}
	want := readTree(t, single)
	for _, f := range []string{"points.csv", "points.json", "front.txt", "front_accuracy.png", "front_network.svg", "plots/w_rel_err_vs_formats_u.svg", "manifest.json"} {
		if len(want[f]) == 0 {
			t.Fatalf("single run lacks %s (has %d files)", f, len(want))
		}
	}
	var shards []string
	for i := 0; i < 3; i++ {
		d := filepath.Join(dir, "shard", string(rune('0'+i)))
		runCLIProcess(t, "explore", spec, "--shard", string(rune('0'+i))+"/3", "--out", d)
		shards = append(shards, d)
	}
	merged := filepath.Join(dir, "merged")
	// Shards in another order than their indices: merge sorts them.
	runCLIProcess(t, append([]string{"explore", "merge", "--out", merged}, shards[2], shards[0], shards[1])...)
	sameTree(t, "merged vs single run", want, readTree(t, merged))

	out = runCLIProcess(t, "explore", spec, "--out", single)
	if m := exploreCounts.FindStringSubmatch(out); m == nil || m[1] != "0" || m[2] != "6" {
		t.Fatalf("rerun: want 0 runs and 6 reused (a fixed and a float run per point):\n%s", out)
	}
	sameTree(t, "rerun vs first run", want, readTree(t, single))

	if err := os.WriteFile(spec, []byte(exploreTestSpec4), 0o644); err != nil {
		t.Fatal(err)
	}
	out = runCLIProcess(t, "explore", spec, "--out", single)
	if m := exploreCounts.FindStringSubmatch(out); m == nil || m[1] != "1" {
		t.Fatalf("extended sweep: want 1 new scenario run:\n%s", out)
	}
}

// TestExploreUsage: bad invocations exit 2 with an error naming the flag
// or argument, before anything is computed.
func TestExploreUsage(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(spec, []byte(exploreTestSpec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"explore", "--out", dir + "/o"}, "missing SPEC"},
		{[]string{"explore", spec}, "--out is required"},
		{[]string{"explore", spec, "--example", "--out", dir + "/o"}, "not both"},
		{[]string{"explore", spec, "--shard", "3/3", "--out", dir + "/o"}, "--shard"},
		{[]string{"explore", spec, "--shard", "0/4", "--out", dir + "/o"}, "holds none"},
		{[]string{"explore", spec, "extra", "--out", dir + "/o"}, "unexpected argument"},
		{[]string{"explore", "merge", "--out", dir + "/m"}, "missing SHARD_DIR"},
		{[]string{"explore", "plan", "--engine", "nomad", spec, "--shards", "1", "--out", dir + "/p"}, "--engine"},
		{[]string{"explore", "plan", "--engine", "slurm", spec, "--shards", "4", "--out", dir + "/p"}, "--shards=4"},
		{[]string{"explore", "plan", "--engine", "slurm", spec, "--shards", "2", "--parallelism", "3", "--out", dir + "/p"}, "--parallelism=3"},
	} {
		var out, errb bytes.Buffer
		code := Run(t.Context(), tc.args, nil, &out, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("hpccgold %s: exit %d, stderr %q; want exit %d naming %q", strings.Join(tc.args, " "), code, errb.String(), ExitUsage, tc.want)
		}
	}
}

// TestExplorePlanCLI: explore plan writes the engine's files into an
// artefact directory (the manifest lists them).
func TestExplorePlanCLI(t *testing.T) {
	dir := t.TempDir()
	for _, engine := range []string{"kubernetes", "slurm"} {
		out := filepath.Join(dir, engine)
		var o, e bytes.Buffer
		if code := Run(t.Context(), []string{"explore", "plan", "--engine", engine, "--example", "--shards", "4", "--out", out}, nil, &o, &e); code != 0 {
			t.Fatalf("plan %s: exit %d: %s", engine, code, e.String())
		}
		tree := readTree(t, out)
		if len(tree["manifest.json"]) == 0 || len(tree) < 4 {
			t.Fatalf("plan %s wrote %d files", engine, len(tree))
		}
	}
}
