package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/exttool"
	"github.com/hpccgold/hpccgold/llvmir"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/scenario/simvec"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

// DefaultScenario is the built-in scenario the demo runs: 4 senders x 200 KB
// into one host through a 100 Gbps switch.
const DefaultScenario = "demo-incast-4to1"

// Simulator choices for Options.Simulator.
const (
	SimAuto      = "auto" // Verilator if installed, else Icarus if installed, else none
	SimVerilator = "verilator"
	SimIcarus    = "icarus"
	SimNone      = "none" // skip co-simulation
)

// Options configures a demo run. The zero value of each field but OutDir
// selects the built-in default.
type Options struct {
	OutDir    string // directory receiving every output (required)
	Scenario  string // built-in scenario name; default DefaultScenario
	Simulator string // SimAuto (default), SimVerilator, SimIcarus or SimNone
	Stages    int    // hpcc_update pipeline stages; default 3
	Seed      uint64 // seed of the constrained-random vectors; default 1
	Random    int64  // constrained-random vectors after the directed classes; default 2000
	Limit     int64  // largest number of transactions captured from the run; default 20000
	// CacheDir holds the simulator builds, reused when the RTL is
	// unchanged; default OutDir/.hpccgold-cache (artefact.CacheDir: kept
	// across runs, not an output).
	CacheDir string
	Log      io.Writer
}

// Step is one stage of the demo and what it produced.
type Step struct {
	Name    string        // "scenario", "vectors-sim", ...
	Dir     string        // where its files are, relative to OutDir
	Summary string        // one or more lines for people; deterministic (no times, no absolute paths)
	Timing  string        // measured speeds (simulated vectors/s, packets/s); varies run to run
	Elapsed time.Duration // wall time
	// Skipped, when not empty, says why the step did not run: the
	// programs it needs that are not installed and the command that
	// installs them, or the option that turned it off.
	Skipped string
}

// Report is the outcome of a demo run.
type Report struct {
	OutDir string
	Steps  []Step
}

// String renders the report for a terminal: one block per step, with wall
// times and measured speeds.
func (r *Report) String() string { return r.render(true) }

// render prints the report; without timing it is deterministic (the same
// options give the same text, wherever OutDir is), as REPORT.txt must be.
func (r *Report) render(timing bool) string {
	var b strings.Builder
	if timing {
		fmt.Fprintf(&b, "%s demo: outputs under %s\n", buildinfo.String(), r.OutDir)
	} else {
		fmt.Fprintf(&b, "%s demo: outputs in the directory of this report\n", buildinfo.String())
	}
	for _, s := range r.Steps {
		if s.Skipped != "" {
			fmt.Fprintf(&b, "\n[%s] skipped: %s\n", s.Name, s.Skipped)
			continue
		}
		if timing {
			fmt.Fprintf(&b, "\n[%s] %s/ (%.1f s)\n", s.Name, s.Dir, s.Elapsed.Seconds())
		} else {
			fmt.Fprintf(&b, "\n[%s] %s/\n", s.Name, s.Dir)
		}
		text := strings.TrimRight(s.Summary, "\n")
		if timing && s.Timing != "" {
			text += "\n" + strings.TrimRight(s.Timing, "\n")
		}
		for _, l := range strings.Split(text, "\n") {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	return b.String()
}

func (o *Options) defaults() error {
	if o.OutDir == "" {
		return errors.New("demo: OutDir is required")
	}
	if o.Scenario == "" {
		o.Scenario = DefaultScenario
	}
	if o.Simulator == "" {
		o.Simulator = SimAuto
	}
	switch o.Simulator {
	case SimAuto, SimVerilator, SimIcarus, SimNone:
	default:
		return fmt.Errorf("demo: Simulator=%q: must be auto, verilator, icarus or none", o.Simulator)
	}
	// A simulator asked for by name must be installed: fail before
	// anything runs, with the install command.
	if o.Simulator == SimVerilator || o.Simulator == SimIcarus {
		sim := verilog.Simulator(o.Simulator)
		if err := verilog.LookupTools().Need(sim.Flow()); err != nil {
			return fmt.Errorf("demo: Simulator=%s: %w", o.Simulator, err)
		}
	}
	if o.Stages == 0 {
		o.Stages = 3
	}
	if o.Stages < 0 {
		return fmt.Errorf("demo: Stages=%d: must be >= 1", o.Stages)
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
	if o.Random == 0 {
		o.Random = 2000
	}
	if o.Random < 0 {
		return fmt.Errorf("demo: Random=%d: must be >= 0", o.Random)
	}
	if o.Limit == 0 {
		o.Limit = 20000
	}
	if o.Limit < 0 {
		return fmt.Errorf("demo: Limit=%d: must be >= 0", o.Limit)
	}
	return nil
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// Run executes the demo: scenario, captured vectors, directed vectors, RTL,
// LLVM IR model (emitted; verified with opt and compiled with clang and run
// on both vector sets when those are installed), co-simulation (under the
// simulator of Options.Simulator). A step whose programs are not installed
// is reported as skipped, naming the install command, and is not an error;
// with SimVerilator or SimIcarus the simulator must be installed (an error
// wrapping verilog.ErrToolMissing before anything runs). It stops at the
// first failing step; a co-simulation or LLVM-model mismatch is returned as
// an error wrapping cosim.ErrMismatch, after the report of the steps done
// so far.
//
// OutDir is written through package artefact: every step writes into a
// staging directory, and only a complete run (successful, or whose checks
// found a mismatch) replaces OutDir's content, with REPORT.txt and
// manifest.json; a failed or interrupted run leaves OutDir as it was.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	aw, err := artefact.Create(opts.OutDir, "demo")
	if err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	defer aw.Close()
	if opts.CacheDir == "" {
		if opts.CacheDir, err = aw.Cache(); err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
	}
	// Every step writes under root (the staging directory); finish moves
	// it into OutDir.
	root := aw.Root()
	rep := &Report{OutDir: opts.OutDir}
	// finish writes REPORT.txt and commits the outputs when the run is
	// complete: it succeeded, or its checks ran and found a mismatch (the
	// outputs are what a mismatch is debugged with). Any other failure, an
	// interruption included, leaves OutDir as it was.
	finish := func(runErr error) (*Report, error) {
		if runErr != nil && !errors.Is(runErr, cosim.ErrMismatch) {
			return rep, runErr
		}
		if err := aw.WriteFile("REPORT.txt", []byte(rep.render(false))); err != nil {
			return rep, fmt.Errorf("demo: %w", err)
		}
		if err := aw.Commit(ctx); err != nil {
			return rep, fmt.Errorf("demo: %w", err)
		}
		return rep, runErr
	}
	// timing collects a step's run-dependent figures (speeds), kept out of
	// its deterministic summary.
	var timing []string
	step := func(name, dir string, f func(abs string) (string, error)) error {
		opts.logf("demo: %s ...", name)
		t0 := time.Now()
		timing = nil
		sum, err := f(filepath.Join(root, dir))
		if err != nil {
			return fmt.Errorf("demo: %s: %w", name, err)
		}
		rep.Steps = append(rep.Steps, Step{Name: name, Dir: dir, Summary: sum, Timing: strings.Join(timing, "\n"), Elapsed: time.Since(t0)})
		return nil
	}
	skip := func(name, dir, why string) {
		opts.logf("demo: %s skipped: %s", name, why)
		rep.Steps = append(rep.Steps, Step{Name: name, Dir: dir, Skipped: why})
	}

	// 1. The closed-loop scenario on the NIC model and network.
	if err := step("scenario", "sim", func(dir string) (string, error) {
		r, files, err := scenario.RunNamed(ctx, scenario.Request{Scenario: opts.Scenario, OutDir: dir})
		if err != nil {
			return "", err
		}
		// The scenario's report names the directory as given (here relative
		// to OutDir) and has one line of run cost, which is timing.
		var keep []string
		for _, l := range strings.Split(strings.TrimRight(r.Report(files, "sim"), "\n"), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "cost:") {
				timing = append(timing, strings.TrimSpace(l))
				continue
			}
			keep = append(keep, l)
		}
		return strings.Join(keep, "\n"), nil
	}); err != nil {
		return rep, err
	}

	// 2. Golden vectors captured from the same run (the HPCC++ module's
	// transactions), and 3. the directed corner classes plus random.
	simDir, dirDir := "vectors-sim", "vectors-directed"
	if err := step("vectors-sim", simDir, func(dir string) (string, error) {
		man, err := simvec.CaptureDir(ctx, dir, simvec.Request{Scenario: opts.Scenario, Limit: opts.Limit})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d transactions captured from %s (class %s%s); stimulus.hex, expected.hex, vectors.jsonl, manifest.json",
			man.Total, opts.Scenario, simvec.ClassPrefix, opts.Scenario), nil
	}); err != nil {
		return rep, err
	}
	simModel, err := cosim.ModelFromManifest(filepath.Join(root, simDir))
	if err != nil {
		return rep, fmt.Errorf("demo: %w", err)
	}
	cfg, ok := simModel.Config().(hpcc.Config)
	if !ok {
		return rep, fmt.Errorf("demo: %s: model %s, want %s", filepath.Join(root, simDir), simModel.Name(), vectors.HPCCModelName)
	}
	if err := step("vectors-directed", dirDir, func(dir string) (string, error) {
		m, err := vectors.NewHPCC(cfg)
		if err != nil {
			return "", err
		}
		man, err := vectors.GenerateDir(dir, m, vectors.Options{Level: 1, Seed: opts.Seed, Count: opts.Random})
		if err != nil {
			return "", err
		}
		directed := 0
		for _, c := range man.Classes {
			if c.Level > 0 && c.Count > 0 {
				directed++
			}
		}
		return fmt.Sprintf("%d vectors: every level-1 directed corner class (%d classes) and %d constrained-random (seed %d)",
			man.Total, directed, opts.Random, opts.Seed), nil
	}); err != nil {
		return rep, err
	}

	// 4. The Verilog of the datapath, from the scenario's configuration.
	if err := step("rtl", "rtl", func(dir string) (string, error) {
		em, err := cosim.EmitHPCC(dir, cfg, opts.Stages, 10)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("hpcc_update (%d stages, II 1) and hpcc_module (%d flows, latency %d): %s",
			opts.Stages, 1<<uint(em.Opts.FlowBits), em.Opts.Latency(), strings.Join(em.Files, ", ")), nil
	}); err != nil {
		return rep, err
	}

	// 5. The LLVM IR of the same datapath (a C-callable, DPI-C-ready model),
	// 6. verified with opt and 7. compiled with clang and run on both
	// vector sets, each when its program is installed.
	var md *emittedModel
	if err := step("llvm", "llvm", func(dir string) (string, error) {
		var err error
		md, err = llvmEmit(dir, cfg)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%s (%d rtl ops, %d input bits, %d output bits): %s", md.Name, md.Ops, md.InBits, md.OutBits, strings.Join(md.files, ", ")), nil
	}); err != nil {
		return rep, err
	}
	llvmTools := llvmir.LookupTools()
	if err := llvmTools.NeedVerify(); err != nil {
		skip("llvm-verify", "llvm", skipReason(err))
	} else if err := step("llvm-verify", "llvm", func(dir string) (string, error) {
		if err := llvmTools.Verify(ctx, dir, md.Model); err != nil {
			return "", err
		}
		return fmt.Sprintf("opt -verify: %s.ll clean", md.Name), nil
	}); err != nil {
		return rep, err
	}
	var mismatch error
	if err := llvmTools.NeedBuild(); err != nil {
		skip("llvm-check", "llvm", skipReason(err))
	} else if err := step("llvm-check", "llvm", func(dir string) (string, error) {
		return llvmCheck(ctx, llvmTools, dir, md.Model, []string{filepath.Join(root, simDir), filepath.Join(root, dirDir)}, &mismatch)
	}); err != nil {
		return rep, err
	}

	// 8. Co-simulation of the RTL on both vector sets.
	sim, why := pickSimulator(opts.Simulator)
	if sim == "" {
		skip("cosim", "cosim", why)
		return finish(mismatch)
	}
	// One testbench depth for both sets, so the second run reuses the
	// first one's build (a Verilator build is most of the demo's time).
	depth := 1024
	for _, set := range []string{simDir, dirDir} {
		man, err := vectors.ReadManifest(filepath.Join(root, set))
		if err != nil {
			return rep, fmt.Errorf("demo: %w", err)
		}
		for depth < int(man.Count) {
			depth <<= 1
		}
	}
	for _, set := range []string{simDir, dirDir} {
		work := filepath.Join("cosim", set)
		if err := step("cosim "+set, work, func(dir string) (string, error) {
			r, err := cosim.Run(ctx, cosim.Options{
				Model: simModel, Stages: opts.Stages, Simulator: sim,
				Vectors: filepath.Join(root, set), WorkDir: dir,
				CacheDir: opts.CacheDir, MaxVectors: depth,
			})
			if err != nil {
				return "", err
			}
			if e := r.Err(); e != nil && mismatch == nil {
				mismatch = e
			}
			timing = append(timing, fmt.Sprintf("%.0f vectors/s simulated", r.SimRate))
			return fmt.Sprintf("hpcc_update under %s: %d passed, %d failed", r.Simulator, r.Passed, r.Failed), nil
		}); err != nil {
			return rep, err
		}
	}
	return finish(mismatch)
}

// emittedModel is the LLVM IR model and the names of the files written.
type emittedModel struct {
	*llvmir.Model
	files []string
}

// llvmEmit writes hpcc_update.ll with its C header, DPI-C wrapper and
// check program source into dir.
func llvmEmit(dir string, cfg hpcc.Config) (*emittedModel, error) {
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		return nil, err
	}
	fields, err := vectors.NewHPCC(cfg)
	if err != nil {
		return nil, err
	}
	md, err := llvmir.Lower(m, llvmir.Options{Groups: llvmir.FlowUpdateGroups(),
		Fields: []fieldtable.Table{fields.Input(), fields.Output()}, Enums: fields.Enums()})
	if err != nil {
		return nil, err
	}
	names, err := llvmir.Emit(dir, md)
	if err != nil {
		return nil, err
	}
	return &emittedModel{Model: md, files: names}, nil
}

// llvmCheck compiles the check program of the model in dir with clang and
// runs every vector of each set through it. A mismatch is recorded in
// *mismatch (the demo goes on and reports it at the end).
func llvmCheck(ctx context.Context, tools llvmir.Tools, dir string, md *llvmir.Model, sets []string, mismatch *error) (string, error) {
	prog, err := tools.Build(ctx, dir, md, "")
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "compiled with clang into %s", filepath.Base(prog))
	for _, set := range sets {
		r, err := llvmir.Check(ctx, prog, filepath.Join(set, "stimulus.hex"), filepath.Join(set, "expected.hex"))
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n%s: %d passed, %d failed", filepath.Base(set), r.Passed, r.Failed)
		if (r.Failed > 0 || r.Passed == 0) && *mismatch == nil {
			*mismatch = fmt.Errorf("%w: LLVM model on %s: %d passed, %d failed\n%s", cosim.ErrMismatch, set, r.Passed, r.Failed, r.Report)
		}
	}
	return b.String(), nil
}

// skipReason renders a missing-tool error for the report: the programs
// that are not installed and the command that installs them.
func skipReason(err error) string {
	var me *exttool.MissingError
	if !errors.As(err, &me) {
		return err.Error()
	}
	s := strings.Join(me.Programs, ", ") + " not installed"
	if c := me.InstallCommand(); c != "" {
		s += " (install with: " + c + ")"
	}
	return s
}

// pickSimulator resolves the Simulator option against what is installed;
// it returns "" and the reason, with the install command, when
// co-simulation is skipped. An explicit choice was checked by defaults.
func pickSimulator(choice string) (verilog.Simulator, string) {
	switch choice {
	case SimNone:
		return "", "--simulator none"
	case SimVerilator:
		return verilog.Verilator, ""
	case SimIcarus:
		return verilog.Icarus, ""
	}
	t := verilog.LookupTools()
	verr := t.Need(verilog.FlowVerilator)
	if verr == nil {
		return verilog.Verilator, ""
	}
	ierr := t.Need(verilog.FlowIcarus)
	if ierr == nil {
		return verilog.Icarus, ""
	}
	return "", "no simulator: Verilator: " + skipReason(verr) + "; Icarus: " + skipReason(ierr)
}
