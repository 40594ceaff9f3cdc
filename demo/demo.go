package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/llvmir"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/simvec"
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
	Log       io.Writer
}

// Step is one stage of the demo and what it produced.
type Step struct {
	Name    string        // "scenario", "vectors-sim", ...
	Dir     string        // where its files are, relative to OutDir
	Summary string        // one or more lines for people; deterministic (no times, no absolute paths)
	Timing  string        // measured speeds (simulated vectors/s, packets/s); varies run to run
	Elapsed time.Duration // wall time
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
// LLVM IR model, co-simulation. It stops at the first failing step; a co-simulation
// or LLVM-model mismatch is returned as an error wrapping cosim.ErrMismatch, after the
// report of the steps done so far.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("demo: %w", err)
	}
	rep := &Report{OutDir: opts.OutDir}
	// timing collects a step's run-dependent figures (speeds), kept out of
	// its deterministic summary.
	var timing []string
	step := func(name, dir string, f func(abs string) (string, error)) error {
		opts.logf("demo: %s ...", name)
		t0 := time.Now()
		timing = nil
		sum, err := f(filepath.Join(opts.OutDir, dir))
		if err != nil {
			return fmt.Errorf("demo: %s: %w", name, err)
		}
		rep.Steps = append(rep.Steps, Step{Name: name, Dir: dir, Summary: sum, Timing: strings.Join(timing, "\n"), Elapsed: time.Since(t0)})
		return nil
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
	cfg, err := cosim.ConfigFromManifest(filepath.Join(opts.OutDir, simDir))
	if err != nil {
		return rep, fmt.Errorf("demo: %w", err)
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
	// compiled and run on both vector sets when clang is installed.
	var mismatch error
	if err := step("llvm", "llvm", func(dir string) (string, error) {
		return llvmStep(ctx, dir, cfg, []string{filepath.Join(opts.OutDir, simDir), filepath.Join(opts.OutDir, dirDir)}, &mismatch)
	}); err != nil {
		return rep, err
	}

	// 6. Co-simulation of the RTL on both vector sets.
	sim, why := pickSimulator(opts.Simulator)
	if sim == "" {
		rep.Steps = append(rep.Steps, Step{Name: "cosim", Dir: "cosim", Summary: "skipped: " + why})
		return rep, mismatch
	}
	for _, set := range []string{simDir, dirDir} {
		work := filepath.Join("cosim", set)
		if err := step("cosim "+set, work, func(dir string) (string, error) {
			r, err := cosim.RunUpdate(ctx, cosim.Options{
				Config: cfg, Stages: opts.Stages, Simulator: sim,
				Vectors: filepath.Join(opts.OutDir, set), WorkDir: dir,
				CacheDir: filepath.Join(opts.OutDir, "cosim", "build"),
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
	return rep, mismatch
}

// llvmStep emits hpcc_update.ll with its C header and DPI-C wrapper into
// dir and, when clang and opt are installed, verifies the IR, compiles the
// check program and runs every vector of each set through it. A mismatch is
// recorded in *mismatch (the demo goes on and reports it at the end).
func llvmStep(ctx context.Context, dir string, cfg hpcc.Config, sets []string, mismatch *error) (string, error) {
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		return "", err
	}
	md, err := llvmir.Lower(m, llvmir.Options{Groups: llvmir.FlowUpdateGroups()})
	if err != nil {
		return "", err
	}
	names, err := llvmir.Emit(dir, md)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d rtl ops, %d input bits, %d output bits): %s\n", md.Name, md.Ops, md.InBits, md.OutBits, strings.Join(names, ", "))
	tools, err := llvmir.FindTools()
	if err != nil {
		fmt.Fprintf(&b, "compile and check skipped: %v", err)
		return b.String(), nil
	}
	if err := tools.Verify(ctx, dir, md); err != nil {
		return "", err
	}
	prog, err := tools.Build(ctx, dir, md, "")
	if err != nil {
		return "", err
	}
	fmt.Fprintf(&b, "opt -verify clean; compiled with clang into %s", filepath.Base(prog))
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

// pickSimulator resolves the Simulator option against what is installed;
// it returns "" and the reason when co-simulation is skipped.
func pickSimulator(choice string) (verilog.Simulator, string) {
	has := func(p string) bool { _, err := exec.LookPath(p); return err == nil }
	switch choice {
	case SimNone:
		return "", "--simulator none"
	case SimVerilator:
		return verilog.Verilator, ""
	case SimIcarus:
		return verilog.Icarus, ""
	}
	if has("verilator") {
		return verilog.Verilator, ""
	}
	if has("iverilog") && has("vvp") {
		return verilog.Icarus, ""
	}
	return "", "neither verilator nor iverilog is installed (bash scripts/test.sh installs them)"
}

// WriteReport writes the deterministic form of the report (no wall times or
// speeds, paths relative to OutDir) to OutDir/REPORT.txt atomically.
func (r *Report) WriteReport() error {
	return atomicfile.WriteBytes(filepath.Join(r.OutDir, "REPORT.txt"), 0o644, []byte(r.render(false)))
}
