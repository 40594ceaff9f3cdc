package synthtest

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestLDCPLintAndSynth prints ldcp_update for the default configuration
// with 0 and 3 pipeline stages, lints both with verilator --lint-only -Wall
// (must be clean), and runs the full Yosys synthesis with the latch,
// undriven-net and loop checks on the 3-stage module (about 15 s; the
// figures are in docs/rtl.md).
func TestLDCPLintAndSynth(t *testing.T) {
	tools := verilog.LookupTools()
	testtool.Require(t, tools.Need(verilog.FlowLint, verilog.FlowSynth), verilog.ErrToolMissing, "verilator", "yosys")
	ctx := context.Background()
	for _, stages := range []int{0, 3} {
		m, _, err := ldcprtl.Update(ldcp.DefaultConfig(), stages)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		files, err := verilog.PrintAll(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := verilog.WriteFiles(dir, files); err != nil {
			t.Fatal(err)
		}
		names := verilog.ModuleFiles(m)
		if err := tools.Lint(ctx, dir, m.Name, names); err != nil {
			t.Fatalf("stages=%d: %v", stages, err)
		}
		if stages == 0 {
			continue
		}
		rep, err := tools.Synth(ctx, dir, m.Name, names)
		if err != nil {
			t.Fatal(err)
		}
		// A 1/cw unit with a 1024-entry ROM and four multipliers cannot fit
		// in fewer cells; the flip-flops hold at least the 3 output ranks.
		if rep.Cells < 5000 || rep.FlipFlops < 3*243 || rep.LongestPath == 0 {
			t.Fatalf("synth: %d cells, %d flip-flops, longest path %d: implausibly small", rep.Cells, rep.FlipFlops, rep.LongestPath)
		}
		t.Logf("yosys, %d stages: %d cells, %d flip-flops, longest path %d cells", stages, rep.Cells, rep.FlipFlops, rep.LongestPath)
	}
}
