package synthtest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/llvmir"
	"github.com/hpccgold/hpccgold/rtl/guardrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestGuardLintAndSynth prints int_guard for each check configuration
// with 0 and 2 pipeline stages, lints each with verilator --lint-only
// -Wall (must be clean), and runs the full Yosys synthesis with the latch,
// undriven-net and loop checks on the 2-stage module (figures in
// docs/guard.md).
func TestGuardLintAndSynth(t *testing.T) {
	tools := verilog.LookupTools()
	testtool.Require(t, tools.Need(verilog.FlowLint, verilog.FlowSynth), verilog.ErrToolMissing, "verilator", "yosys")
	ctx := context.Background()
	for name, cfg := range guardvec.CheckConfigs() {
		for _, stages := range []int{0, 2} {
			m, _, err := guardrtl.Pipelined(cfg, stages)
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
				t.Fatalf("%s stages=%d: %v", name, stages, err)
			}
			if stages == 0 {
				continue
			}
			rep, err := tools.Synth(ctx, dir, m.Name, names)
			if err != nil {
				t.Fatal(err)
			}
			// Five hop slots, each with a 51x19 (IFA) or 24x19 (Compact)
			// multiplier and wide compares, cannot fit in fewer cells.
			if rep.Cells < 1000 || rep.FlipFlops == 0 || rep.LongestPath == 0 {
				t.Fatalf("%s synth: %d cells, %d flip-flops, longest path %d: implausibly small", name, rep.Cells, rep.FlipFlops, rep.LongestPath)
			}
			t.Logf("yosys, %s, %d stages: %d cells, %d flip-flops, longest path %d cells", name, stages, rep.Cells, rep.FlipFlops, rep.LongestPath)
		}
	}
}

// TestGuardLLVM lowers the combinational int_guard to LLVM IR, builds the
// check program with clang and runs it over a golden set (every directed
// class plus 5000 random vectors) of each check configuration: zero
// mismatches.
func TestGuardLLVM(t *testing.T) {
	tools := llvmir.LookupTools()
	testtool.Require(t, tools.NeedBuild(), llvmir.ErrToolMissing, "clang")
	ctx := context.Background()
	for name, cfg := range guardvec.CheckConfigs() {
		model, err := guardvec.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		set := t.TempDir()
		if _, err := vectors.GenerateDir(set, model, vectors.Options{Level: 1, Seed: 9, Count: 5000, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		m, err := guardrtl.Comb(cfg)
		if err != nil {
			t.Fatal(err)
		}
		md, err := llvmir.Lower(m, llvmir.Options{Fields: []fieldtable.Table{model.Input(), model.Output()}})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := llvmir.Emit(dir, md); err != nil {
			t.Fatal(err)
		}
		prog, err := tools.Build(ctx, dir, md, "-O2")
		if err != nil {
			t.Fatal(err)
		}
		res, err := llvmir.Check(ctx, prog, filepath.Join(set, "stimulus.hex"), filepath.Join(set, "expected.hex"))
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 0 || res.Passed < 5000 {
			t.Fatalf("%s: llvm model: %d passed, %d failed\n%s", name, res.Passed, res.Failed, res.Report)
		}
		t.Logf("%s: llvm model: %d vectors passed, %d rtl ops", name, res.Passed, md.Ops)
	}
}
