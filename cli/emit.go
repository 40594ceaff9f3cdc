package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/verilog"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

const emitUsage = `emit <verilog|llvm> [flags]

  verilog  write the HPCC++ RTL (hpcc_update.v, hpcc_module.v), or with --cc ldcp the
           LDCP RTL (ldcp_update.v), or with --cc guard the telemetry integrity guard
           (int_guard.v, docs/guard.md), their testbenches, field-layout includes and JSON
           layouts; optionally lint and synthesize
  llvm     write the HPCC++ per-ACK update as LLVM IR (hpcc_update.ll), its C header,
           the DPI-C wrapper and a SystemVerilog import (docs/llvm.md)

Run 'hpccgold emit <target> -h' for its flags. Interfaces and timing: docs/rtl.md, docs/llvm.md.`

// runEmit dispatches the emit targets.
func runEmit(env *Env) error {
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" {
		fmt.Fprintf(env.Stderr, "Usage: hpccgold %s\n", emitUsage)
		if len(env.Args) == 0 {
			return errors.New("missing target")
		}
		return flag.ErrHelp
	}
	sub := env.sub(env.Args[1:])
	switch env.Args[0] {
	case "verilog":
		return runEmitVerilog(sub)
	case "llvm":
		return runEmitLLVM(sub, sub.Args)
	}
	return fmt.Errorf("unknown target %q (want verilog or llvm)", env.Args[0])
}

// parseCC checks a --cc value of emit verilog and cosim: hpcc or ldcp.
func parseCC(cc string) error {
	if cc != "hpcc" && cc != "ldcp" && cc != "guard" {
		return fmt.Errorf("--cc=%q: want hpcc, ldcp or guard", cc)
	}
	return nil
}

func runEmitVerilog(env *Env) error {
	fs := newFlagSet(env, "emit verilog", "emit verilog [--cc hpcc|ldcp|guard] [--config FILE] [--stages N] [--flow-bits N] --out DIR [--lint] [--synth]")
	cc := fs.String("cc", "hpcc", "datapath: hpcc (hpcc_update, hpcc_module) or ldcp (ldcp_update)")
	configFile := fs.String("config", "", "configuration JSON (hpcc.LoadConfig form, or ldcp.LoadConfig form with --cc ldcp); default: the default configuration")
	stages := fs.Int("stages", 3, "update pipeline stages (latency in cycles, II = 1)")
	flowBits := fs.Int("flow-bits", 10, "hpcc_module flow table of 2^N flows (--cc hpcc)")
	out := fs.String("out", "", "output directory (required)")
	lint := fs.Bool("lint", false, "run verilator --lint-only -Wall on the emitted modules")
	synth := fs.Bool("synth", false, "run Yosys synthesis checks and print cells and logic depth (minutes for the default configuration)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if err := parseCC(*cc); err != nil {
		return err
	}
	// The tools of the requested checks, before anything is written.
	tools, err := checkTools(*lint, *synth)
	if err != nil {
		return err
	}
	if *cc != "hpcc" {
		set := map[string]bool{}
		fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if set["flow-bits"] {
			return errors.New("--flow-bits applies to hpcc_module (--cc hpcc) only")
		}
		return emitUpdateOnly(env, tools, *cc, *configFile, *stages, *out, *lint, *synth)
	}
	cfg, err := loadHPCCConfig(*configFile)
	if err != nil {
		return err
	}
	aw, err := artefact.Create(*out, "verilog")
	if err != nil {
		return err
	}
	defer aw.Close()
	dir := aw.Root()
	em, err := cosim.EmitHPCC(dir, cfg, *stages, *flowBits)
	if err != nil {
		return err
	}
	upd, mod, mopts, stageRep, written := em.Update, em.Module, em.Opts, em.Stages, em.Files
	for _, n := range written {
		fmt.Fprintln(env.Stdout, filepath.Join(*out, n))
	}
	fmt.Fprintf(env.Stdout, "hpcc_update: %d stages, latency %d, II 1; hpcc_module: %d flows, latency %d, same-flow spacing %d cycles\n",
		*stages, *stages, 1<<uint(*flowBits), mopts.Latency(), mopts.SameFlowSpacing())
	for _, r := range stageRep {
		fmt.Fprintf(env.Stdout, "  stage %d: %d ops, estimated depth %.0f gate levels, %d register bits\n", r.Stage, r.Ops, r.Delay, r.RegBits)
	}
	ctx := env.context()
	checks := func() error {
		if *lint {
			for _, m := range []*rtl.Module{upd, mod} {
				if err := tools.Lint(ctx, dir, m.Name, verilog.ModuleFiles(m)); err != nil {
					return fmt.Errorf("%w: %v", ErrFailed, err)
				}
				fmt.Fprintf(env.Stdout, "lint %s: clean (verilator --lint-only -Wall)\n", m.Name)
			}
		}
		if *synth {
			rep, err := tools.Synth(ctx, dir, hpccrtl.UpdateName, verilog.ModuleFiles(upd))
			if err != nil {
				return fmt.Errorf("%w: %v", ErrFailed, err)
			}
			fmt.Fprintf(env.Stdout, "synth %s: %d cells (%d flip-flops), longest path %d cells; no latches, no undriven nets\n",
				hpccrtl.UpdateName, rep.Cells, rep.FlipFlops, rep.LongestPath)
		}
		return nil
	}
	return commitAfter(ctx, aw, checks())
}

// commitAfter commits an emitted directory whose files are complete, also
// when a check of them (lint, synth) failed: the files are what the failure
// is debugged with; the check's error is returned. An interrupted check
// (ctx done) commits nothing.
func commitAfter(ctx context.Context, aw *artefact.Writer, checkErr error) error {
	if ctx.Err() != nil {
		if checkErr != nil {
			return checkErr
		}
		return ctx.Err()
	}
	if err := aw.Commit(ctx); err != nil {
		return err
	}
	return checkErr
}

// checkTools looks up the programs of the requested flows (lint: Verilator,
// synth: Yosys) and fails, naming the missing ones and their install
// command, when one is not installed; a flow not requested needs nothing.
func checkTools(lint, synth bool) (verilog.Tools, error) {
	var flows []verilog.Flow
	if lint {
		flows = append(flows, verilog.FlowLint)
	}
	if synth {
		flows = append(flows, verilog.FlowSynth)
	}
	t := verilog.LookupTools()
	return t, t.Need(flows...)
}

// emitUpdateOnly implements emit verilog --cc ldcp (ldcp_update) and --cc
// guard (int_guard): one update module; tools are checkTools' for lint and
// synth.
func emitUpdateOnly(env *Env, tools verilog.Tools, cc, configFile string, stages int, out string, lint, synth bool) error {
	model, err := goldenModel(cc, configFile)
	if err != nil {
		return err
	}
	aw, err := artefact.Create(out, "verilog")
	if err != nil {
		return err
	}
	defer aw.Close()
	dir := aw.Root()
	em, err := cosim.EmitUpdate(dir, model, stages)
	if err != nil {
		return err
	}
	for _, n := range em.Files {
		fmt.Fprintln(env.Stdout, filepath.Join(out, n))
	}
	fmt.Fprintf(env.Stdout, "%s: %d stages, latency %d, II 1\n", em.Update.Name, stages, stages)
	for _, r := range em.Stages {
		fmt.Fprintf(env.Stdout, "  stage %d: %d ops, estimated depth %.0f gate levels, %d register bits\n", r.Stage, r.Ops, r.Delay, r.RegBits)
	}
	ctx := env.context()
	files := verilog.ModuleFiles(em.Update)
	checks := func() error {
		if lint {
			if err := tools.Lint(ctx, dir, em.Update.Name, files); err != nil {
				return fmt.Errorf("%w: %v", ErrFailed, err)
			}
			fmt.Fprintf(env.Stdout, "lint %s: clean (verilator --lint-only -Wall)\n", em.Update.Name)
		}
		if synth {
			rep, err := tools.Synth(ctx, dir, em.Update.Name, files)
			if err != nil {
				return fmt.Errorf("%w: %v", ErrFailed, err)
			}
			fmt.Fprintf(env.Stdout, "synth %s: %d cells (%d flip-flops), longest path %d cells; no latches, no undriven nets\n",
				em.Update.Name, rep.Cells, rep.FlipFlops, rep.LongestPath)
		}
		return nil
	}
	return commitAfter(ctx, aw, checks())
}
