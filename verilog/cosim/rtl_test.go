package cosim

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// userRTL is the shared setup of the RTL-flow tests: a golden set of the
// testdata configuration (Compact, 2 hops: every level-1 class plus 300
// random vectors) and hpccgold's hpcc_update of it at 1 stage, which the
// hand-written tops of testdata/userrtl instantiate.
var userRTL struct {
	once     sync.Once
	dir, set string
	core     string // hpcc_update.v
	err      error
	nvec     int
}

func userRTLSetup(t *testing.T) (set, core string, n int) {
	t.Helper()
	userRTL.once.Do(func() {
		dir, err := os.MkdirTemp("", "hpccgold-userrtl-")
		if err != nil {
			userRTL.err = err
			return
		}
		userRTL.dir = dir
		f, err := os.Open("testdata/userrtl/config.json")
		if err != nil {
			userRTL.err = err
			return
		}
		defer f.Close()
		cfg, err := hpcc.LoadConfig(f)
		if err != nil {
			userRTL.err = err
			return
		}
		m, err := vectors.NewHPCC(cfg)
		if err != nil {
			userRTL.err = err
			return
		}
		userRTL.set = filepath.Join(dir, "golden")
		man, err := vectors.GenerateDir(userRTL.set, m, vectors.Options{Level: 1, Seed: 3, Count: 300})
		if err != nil {
			userRTL.err = err
			return
		}
		userRTL.nvec = int(man.Count)
		upd, _, err := hpccrtl.Update(cfg, 1)
		if err != nil {
			userRTL.err = err
			return
		}
		files, err := verilog.PrintAll(upd)
		if err != nil {
			userRTL.err = err
			return
		}
		if err := verilog.WriteFiles(filepath.Join(dir, "core"), files); err != nil {
			userRTL.err = err
			return
		}
		userRTL.core = filepath.Join(dir, "core", "hpcc_update.v")
	})
	if userRTL.err != nil {
		t.Fatal(userRTL.err)
	}
	return userRTL.set, userRTL.core, userRTL.nvec
}

// runUser co-simulates top from the testdata file under sim.
func runUser(t *testing.T, sim verilog.Simulator, file, top string) (*Report, error) {
	t.Helper()
	set, core, _ := userRTLSetup(t)
	return RunRTL(context.Background(), RTLOptions{Files: []string{filepath.Join("testdata/userrtl", file), core}, Top: top,
		Options: Options{Simulator: sim, Vectors: set, WorkDir: t.TempDir(), CacheDir: buildCache}})
}

// TestRTLIcarus co-simulates tops hpccgold did not write against the golden
// set under Icarus: ports in another order with an active-low reset, two
// more pipeline stages (latency 3), a ready handshake with idle cycles
// (latency and throughput vary per transaction), and the core alone with
// its bug parameter off; all pass every vector with no latency given. The
// same core with the parameter on (ns_w one LSB high on multiplicative
// updates) fails, naming ns_w and each failing vector's class. Oracle:
// the golden datapath's expected.hex.
func TestRTLIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus, verilog.FlowPorts)
	_, _, n := userRTLSetup(t)
	for _, c := range []struct{ file, top string }{
		{"reordered.v", "user_reordered"},
		{"piped.v", "user_piped"},
		{"ready.sv", "user_ready"},
		{"lsb_bug.v", "user_lsb_core"},
	} {
		t.Run(c.top, func(t *testing.T) {
			rep, err := runUser(t, verilog.Icarus, c.file, c.top)
			if err != nil {
				t.Fatal(err)
			}
			if err := rep.Err(); err != nil || rep.Passed != n {
				t.Fatalf("%s: %d passed, %d failed of %d: %v", c.top, rep.Passed, rep.Failed, n, err)
			}
			if c.top == "user_ready" && rep.Stalls < n {
				t.Errorf("user_ready: %d stall cycles for %d vectors: the ready handshake was not exercised", rep.Stalls, n)
			}
		})
	}
	t.Run("user_lsb_bug", func(t *testing.T) {
		rep, err := runUser(t, verilog.Icarus, "lsb_bug.v", "user_lsb_bug")
		if err != nil {
			t.Fatal(err)
		}
		err = rep.Err()
		if !errors.Is(err, ErrMismatch) || rep.Failed == 0 || rep.Passed+rep.Failed != n {
			t.Fatalf("one-LSB bug: %d passed, %d failed, err %v: want a mismatch", rep.Passed, rep.Failed, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "  ns_w: got") || !strings.Contains(msg, "(class ") {
			t.Errorf("report does not name ns_w and the class:\n%s", msg)
		}
		for _, l := range strings.Split(msg, "\n") {
			if strings.HasPrefix(l, "  ") && !strings.HasPrefix(l, "  ns_w:") {
				t.Errorf("a field other than ns_w differs: %q", l)
			}
		}
	})
}

// TestRTLContract: a top with a missing, a mis-sized and an extra port is
// refused before anything is built, with all three named.
func TestRTLContract(t *testing.T) {
	needTools(t, verilog.FlowIcarus, verilog.FlowPorts)
	work := t.TempDir()
	set, core, _ := userRTLSetup(t)
	_, err := RunRTL(context.Background(), RTLOptions{Files: []string{"testdata/userrtl/bad_ports.v", core}, Top: "user_bad_ports",
		Options: Options{Simulator: verilog.Icarus, Vectors: set, WorkDir: work, CacheDir: filepath.Join(work, "cache")}})
	var ce *ContractError
	if !errors.As(err, &ce) || !errors.Is(err, ErrContract) {
		t.Fatalf("err = %v, want a *ContractError", err)
	}
	want := []string{"missing port input [16:0] in_hop0_qlen", "port ns_w: 31 bits, want 32", "extra port output [3:0] dbg_state"}
	if len(ce.Problems) != len(want) {
		t.Errorf("problems %q, want %d", ce.Problems, len(want))
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error does not say %q:\n%v", w, err)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "cache")); !os.IsNotExist(err) {
		t.Errorf("a build was started before the contract check failed (%v)", err)
	}
}

// TestRTLVerilator runs the top with the ready handshake and idle cycles
// under Verilator (one build), and its one-LSB-bug sibling is left to the
// Icarus test: the flow is the same, the simulator differs.
func TestRTLVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowPorts)
	_, _, n := userRTLSetup(t)
	rep, err := runUser(t, verilog.Verilator, "ready.sv", "user_ready")
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil || rep.Passed != n || rep.Stalls < n {
		t.Fatalf("user_ready under Verilator: %d passed, %d failed of %d, %d stalls: %v", rep.Passed, rep.Failed, n, rep.Stalls, err)
	}
}
