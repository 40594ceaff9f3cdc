package synthtest

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestEmittedRTLLintAndSynth prints hpcc_module (with its hpcc_update
// instance), lints both with verilator -Wall, and runs the full Yosys
// synthesis with the latch, undriven-net and loop checks. Full-size
// synthesis of the default configuration takes minutes (figures in
// docs/rtl.md, from `hpccgold emit verilog --synth`), so CI synthesizes a
// reduced configuration through the same generator: Compact telemetry, one
// hop slot, a two-entry flow table, one update stage.
func TestEmittedRTLLintAndSynth(t *testing.T) {
	cfg := hpcc.DefaultConfigFor(telemetry.Compact)
	cfg.MaxHops = 1
	lintAndSynth(t, cfg)
}

// TestEmittedRTLMultiQLintAndSynth is TestEmittedRTLLintAndSynth for a
// MultiQ configuration (issue 17: the slides' per-class U, with its
// per-hop reciprocal unit and ROMs), reduced the same way.
func TestEmittedRTLMultiQLintAndSynth(t *testing.T) {
	cfg := hpcc.DefaultConfigFor(telemetry.Compact)
	cfg.MaxHops = 1
	cfg.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	lintAndSynth(t, cfg)
}

// TestEmittedRTLSojournLintAndSynth is TestEmittedRTLLintAndSynth for a
// Sojourn configuration (issue 17, draft 9.4: the queue term from the IFA
// residence time, docs/datapath.md section 5b). Sojourn needs the IFA
// encoding (Compact carries no ingress timestamp), so it is reduced
// otherwise the same way: IFA telemetry, one hop slot, a two-entry flow
// table, one update stage.
func TestEmittedRTLSojournLintAndSynth(t *testing.T) {
	cfg := hpcc.DefaultConfigFor(telemetry.IFA)
	cfg.MaxHops = 1
	cfg.Sojourn = true
	lintAndSynth(t, cfg)
}

// lintAndSynth prints hpcc_module of cfg (one update stage, a two-entry
// flow table), lints hpcc_update and hpcc_module, and synthesizes the
// module with Yosys's checks.
func lintAndSynth(t *testing.T, cfg hpcc.Config) {
	tools := verilog.LookupTools()
	testtool.Require(t, tools.Need(verilog.FlowLint, verilog.FlowSynth), verilog.ErrToolMissing, "verilator", "yosys")
	m, err := hpccrtl.Module(cfg, hpccrtl.ModuleOptions{Stages: 1, FlowBits: 1})
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
	ctx := context.Background()
	names := verilog.ModuleFiles(m)
	for _, top := range []string{hpccrtl.UpdateName, hpccrtl.ModuleName} {
		fs := names
		if top == hpccrtl.UpdateName {
			fs = names[:1]
		}
		if err := tools.Lint(ctx, dir, top, fs); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := tools.Synth(ctx, dir, hpccrtl.ModuleName, names)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cells < 1000 || rep.FlipFlops == 0 || rep.LongestPath == 0 {
		t.Fatalf("synth: %d cells, %d flip-flops, longest path %d: implausibly small", rep.Cells, rep.FlipFlops, rep.LongestPath)
	}
	t.Logf("yosys: %d cells, %d flip-flops, longest path %d", rep.Cells, rep.FlipFlops, rep.LongestPath)
}
