package cosim

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/verilog"
)

// checkGuardClasses fails the test if a reachable directed class of the
// guard's vector model has no vector in the co-simulated set.
func checkGuardClasses(t *testing.T, rep *Report) {
	t.Helper()
	directed := 0
	for _, c := range rep.Classes {
		if c.Level != 1 || c.Unreachable != "" {
			continue
		}
		directed++
		if c.Count == 0 {
			t.Errorf("directed class %s has no vectors in the set", c.Name)
		}
	}
	if directed < 20 {
		t.Errorf("only %d reachable directed classes in the set", directed)
	}
}

// TestGuardVerilator lints int_guard (2 stages; verilator --lint-only
// -Wall must be clean) and co-simulates it under Verilator on every
// directed class of the guard's vector model plus 20000 constrained-random
// vectors, in each check configuration (guardvec.CheckConfigs: IFA with
// identity tracking, Compact); expected outputs are cc/intguard's.
func TestGuardVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowLint)
	for name, cfg := range guardvec.CheckConfigs() {
		m, err := guardvec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Run(context.Background(), Options{Model: m, Stages: 2, Simulator: verilog.Verilator, Level: 1, Seed: 5,
			Count: 20000, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := rep.Err(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkGuardClasses(t, rep)
		t.Logf("%s: verilator: %d vectors, %d mismatches", name, rep.Vectors, rep.Failed)
	}
}

// TestGuardIcarus co-simulates int_guard (combinational and 1 stage) under
// Icarus Verilog on the same classes plus 3000 random vectors per
// configuration.
func TestGuardIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	for name, cfg := range guardvec.CheckConfigs() {
		m, err := guardvec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, stages := range []int{0, 1} {
			rep, err := Run(context.Background(), Options{Model: m, Stages: stages, Simulator: verilog.Icarus, Level: 1, Seed: 6,
				Count: 3000, WorkDir: t.TempDir()})
			if err != nil {
				t.Fatalf("%s stages=%d: %v", name, stages, err)
			}
			if err := rep.Err(); err != nil {
				t.Fatalf("%s stages=%d: %v", name, stages, err)
			}
			checkGuardClasses(t, rep)
			t.Logf("%s stages=%d: icarus: %d vectors, %d mismatches", name, stages, rep.Vectors, rep.Failed)
		}
	}
}
