package cosim

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
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

func needTools(t *testing.T) {
	t.Helper()
	if _, err := verilog.FindTools(); err != nil {
		if os.Getenv("HPCCGOLD_REQUIRE_TOOLS") == "1" || !errors.Is(err, verilog.ErrToolMissing) {
			t.Fatal(err)
		}
		t.Skip(err)
	}
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
