package cosim

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/exttool"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

var buildCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hpccgold-cosim-test-")
	if err != nil {
		os.Exit(2)
	}
	buildCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	if userRTL.dir != "" {
		os.RemoveAll(userRTL.dir)
	}
	os.Exit(code)
}

// needTools checks that the programs of flows are installed, failing the
// test when one is missing and HPCCGOLD_REQUIRE_TOOLS=1 (CI), skipping it
// otherwise. A program of another flow is not asked for.
func needTools(t *testing.T, flows ...verilog.Flow) {
	t.Helper()
	err := verilog.LookupTools().Need(flows...)
	var me *exttool.MissingError
	var progs []string
	if errors.As(err, &me) {
		progs = me.Programs
	}
	testtool.Require(t, err, verilog.ErrToolMissing, progs...)
}

// TestUpdateVerilator co-simulates the pipelined hpcc_update (default
// configuration) under Verilator on every level-2 directed corner class
// plus random vectors (over 100k in all), after lint and Yosys checks; the
// expected outputs are the golden datapath's (package vectors).
func TestUpdateVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowLint)
	work := t.TempDir()
	rep, err := Run(context.Background(), Options{Model: hpccModel(t), Stages: 3, Simulator: verilog.Verilator,
		Level: 2, Seed: 1, Count: 40000, WorkDir: work, CacheDir: buildCache, Lint: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Vectors < 100000 {
		t.Fatalf("only %d vectors", rep.Vectors)
	}
	t.Logf("verilator: %d vectors passed in %v (%.0f vectors/s simulated, %.0f end to end), build %v", rep.Vectors, rep.RunTime, rep.SimRate, rep.VectorsPerSecond(), rep.BuildTime)
}

// TestUpdateIcarus co-simulates hpcc_update under Icarus Verilog on every
// level-1 directed corner class plus a random sample, with idle cycles
// between transactions (gap) so the valid handshake is exercised too.
func TestUpdateIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	work := t.TempDir()
	rep, err := Run(context.Background(), Options{Model: hpccModel(t), Stages: 2, Simulator: verilog.Icarus,
		Level: 1, Seed: 2, Count: 1500, WorkDir: work, CacheDir: buildCache, Gap: 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Classes {
		if c.Level == 1 && c.Count == 0 {
			t.Errorf("directed class %s has no vectors in the set", c.Name)
		}
	}
	t.Logf("icarus: %d vectors passed in %v (%.0f vectors/s simulated)", rep.Vectors, rep.RunTime, rep.SimRate)
}

// TestLockstep drives the Verilated hpcc_update transaction by transaction
// from Go over the line protocol: the first vectors of a golden set match;
// with one expected line corrupted the run stops exactly there and prints
// both states, marking the differing field.
func TestLockstep(t *testing.T) {
	needTools(t, verilog.FlowVerilator)
	work := t.TempDir()
	opts := Options{Model: hpccModel(t), Stages: 2, Simulator: verilog.Verilator, Level: 1, Seed: 4, Count: 100,
		Limit: 400, WorkDir: work, CacheDir: buildCache}
	rep, err := RunLockstep(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Diverged || rep.Vectors != 400 {
		var b strings.Builder
		rep.Write(&b)
		t.Fatalf("%d vectors: %s", rep.Vectors, b.String())
	}
	// Corrupt vector 123's ns_w field in the expected file.
	path := filepath.Join(work, "vectors", "expected.hex")
	out := opts.Model.Output()
	lines, err := verilog.ReadVectors(path, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Fields[out.Index("ns_w")]
	fieldtable.PutBits(lines[123], f.Offset, f.Width, fieldtable.Get(lines[123], f)^1)
	var buf []byte
	for _, l := range lines {
		buf = append(out.AppendHex(buf, l), '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Vectors = filepath.Join(work, "vectors")
	rep, err = RunLockstep(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Write(&b)
	if !rep.Diverged || rep.Index != 123 || !strings.Contains(b.String(), "ns_w") || !strings.Contains(b.String(), "<-- differs") {
		t.Fatalf("want a divergence at vector 123 in ns_w, got:\n%s", b.String())
	}
}

// linkTools returns a directory holding symbolic links to the named
// programs (looked up on the real PATH), to serve as the whole PATH of a
// test that must see only them.
func linkTools(t *testing.T, names ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, n)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestIcarusOnlyRelativePaths runs Run under Icarus with only
// iverilog and vvp on PATH (no Verilator, make, g++ or Yosys: the run does
// not use them) and every path relative to the working directory, first
// generating a vector set, then on that set by its relative path. Asking
// for lint then fails before anything runs, naming verilator and its
// install command.
func TestIcarusOnlyRelativePaths(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	t.Setenv("PATH", linkTools(t, "iverilog", "vvp"))
	t.Chdir(t.TempDir())
	ctx := context.Background()
	opts := Options{Model: hpccModel(t), Stages: 1, Simulator: verilog.Icarus, Level: 1, Seed: 5, Count: 10,
		Limit: 300, WorkDir: "work", CacheDir: "cache"}
	for _, vec := range []string{"", filepath.Join("work", "vectors")} {
		opts.Vectors = vec
		rep, err := Run(ctx, opts)
		if err != nil {
			t.Fatalf("Vectors=%q: %v", vec, err)
		}
		if err := rep.Err(); err != nil || rep.Passed != 300 {
			t.Fatalf("Vectors=%q: %d passed, %d failed: %v", vec, rep.Passed, rep.Failed, err)
		}
	}
	opts.Lint = true
	opts.WorkDir = "lint"
	_, err := Run(ctx, opts)
	if !errors.Is(err, verilog.ErrToolMissing) || !strings.Contains(err.Error(), "verilator") ||
		!strings.Contains(err.Error(), "apt-get install -y verilator") {
		t.Fatalf("Lint without verilator: err = %v, want naming verilator and its install command", err)
	}
	if _, err := os.Stat("lint"); err == nil {
		t.Errorf("a run refused for a missing tool wrote its work directory")
	}
}

// TestHarnessShards runs hpcc_update under Verilator's C++ harness on one
// set with two flipped expected bits, one in each half, in one process and
// split over two (Jobs 2, +first): both runs fail exactly those two vectors,
// named by their index in the set and their class (the oracle: the set's
// class ranges, Manifest.ClassAt), and pass the others; Jobs 2 reports
// two processes.
func TestHarnessShards(t *testing.T) {
	needTools(t, verilog.FlowVerilator)
	work := t.TempDir()
	opts := Options{Model: hpccModel(t), Stages: 3, Simulator: verilog.Verilator, Level: 1, Seed: 9, Count: 100000,
		WorkDir: work, CacheDir: buildCache, Jobs: 1}
	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(work, "vectors")
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := opts.Model.Output()
	path := filepath.Join(dir, vectors.ExpectedFile)
	lines, err := verilog.ReadVectors(path, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	bad := []int{17, len(lines) - 3}
	f := out.Fields[out.Index("ns_w")]
	for _, k := range bad {
		fieldtable.PutBits(lines[k], f.Offset, f.Width, fieldtable.Get(lines[k], f)^1)
	}
	var buf []byte
	for _, l := range lines {
		buf = append(out.AppendHex(buf, l), '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Vectors = dir
	for _, jobs := range []int{1, 2} {
		opts.Jobs = jobs
		rep, err := Run(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Failed != 2 || rep.Passed != len(lines)-2 || rep.Jobs != jobs {
			t.Errorf("jobs %d: %d passed, %d failed in %d processes, want %d, 2, %d", jobs, rep.Passed, rep.Failed, rep.Jobs, len(lines)-2, jobs)
		}
		for _, k := range bad {
			want := fmt.Sprintf("MISMATCH vector %d (class %s):", k, man.ClassAt(int64(k)))
			if !strings.Contains(rep.Output, want) {
				t.Errorf("jobs %d: no %q in:\n%s", jobs, want, mismatchLines(rep.Output, 20))
			}
		}
		t.Logf("jobs %d: %d vectors, %.0f vectors per CPU-second end to end (%.2f CPU-s), %.0f/s wall", jobs, rep.Vectors, rep.VectorsPerCPUSecond(), rep.CPUTime.Seconds(), rep.VectorsPerSecond())
	}
}
