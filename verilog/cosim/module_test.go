package cosim

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestModuleCosim co-simulates hpcc_module (16 flows) under Verilator and
// Icarus on same-flow back-to-back, interleaved and mixed event streams;
// every update must equal the Go module model's (golden datapath per flow,
// in order) and the stall cycles must equal the documented handshake rule.
// Verilator runs update pipelines of 0 and 2 stages (forwarding only, and
// forwarding plus stalls); Icarus a shorter stream with 1 stage.
func TestModuleCosim(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowIcarus, verilog.FlowLint)
	all := []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}
	cases := []struct {
		sim    verilog.Simulator
		stages int
		events int
		lint   bool
	}{
		{verilog.Verilator, 0, 4000, true},
		{verilog.Verilator, 2, 4000, false},
		{verilog.Icarus, 1, 300, false},
	}
	for _, c := range cases {
		rep, err := RunModule(context.Background(), ModuleOptions{
			Config: hpcc.DefaultConfig(), Options: Options{Stages: c.stages, Simulator: c.sim, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: c.lint},
			FlowBits: 4, Kinds: all, Events: c.events, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Err(); err != nil {
			t.Fatalf("%s, %d stages: %v", c.sim, c.stages, err)
		}
		t.Logf("%s, %d stages: %d events passed, %d stall cycles, %.0f events/s simulated, build %v",
			c.sim, c.stages, rep.Vectors, rep.Stalls, rep.SimRate, rep.BuildTime)
	}
}
