package cosim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/testtool"
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
	os.Exit(code)
}

// needTools fails the test when a simulator or Yosys is missing and
// HPCCGOLD_REQUIRE_TOOLS=1 (CI), skipping it otherwise.
func needTools(t *testing.T) {
	t.Helper()
	_, err := verilog.FindTools()
	testtool.Require(t, err, verilog.ErrToolMissing, "verilator", "iverilog", "vvp", "yosys")
}

// TestUpdateVerilator co-simulates the pipelined hpcc_update (default
// configuration) under Verilator on every level-2 directed corner class
// plus random vectors (over 100k in all), after lint and Yosys checks; the
// expected outputs are the golden datapath's (package vectors).
func TestUpdateVerilator(t *testing.T) {
	needTools(t)
	work := t.TempDir()
	rep, err := RunUpdate(context.Background(), Options{Config: hpcc.DefaultConfig(), Stages: 3, Simulator: verilog.Verilator,
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
	needTools(t)
	work := t.TempDir()
	rep, err := RunUpdate(context.Background(), Options{Config: hpcc.DefaultConfig(), Stages: 2, Simulator: verilog.Icarus,
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
	needTools(t)
	work := t.TempDir()
	opts := Options{Config: hpcc.DefaultConfig(), Stages: 2, Simulator: verilog.Verilator, Level: 1, Seed: 4, Count: 100,
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
	d, _ := hpcc.NewDatapath(opts.Config)
	out := d.OutputTable()
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
