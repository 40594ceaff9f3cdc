package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/hpccgold/hpccgold/artefact"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/registry"
	"github.com/hpccgold/hpccgold/verilog"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

func runCosim(env *Env) error {
	fs := newFlagSet(env, "cosim", "cosim [--cc hpcc|ldcp|guard] [--simulator verilator|icarus] [--design update|module] [--vectors DIR] [--config FILE] [--stages N] [--lockstep] [flags]\n"+
		"       hpccgold cosim --rtl FILE [--rtl FILE...] --top NAME [--simulator verilator|icarus] [--vectors DIR] [--limit N] [--gap N]")
	var rtlFiles fileList
	fs.Var(&rtlFiles, "rtl", "your RTL: a Verilog/SystemVerilog file (repeat the flag for each file); co-simulate --top against a golden set instead of hpccgold's RTL")
	top := fs.String("top", "", "with --rtl: the top module, its ports named after the set's fields (layout.json) plus in_valid, out_valid, optional clk, rst or rst_n, in_ready")
	cc := fs.String("cc", "", "datapath: hpcc (hpcc_update, hpcc_module), ldcp (ldcp_update) or guard (int_guard); default: the vector set's model, else hpcc")
	simName := fs.String("simulator", "verilator", "verilator or icarus")
	design := fs.String("design", "update", "update: the per-event update on a golden vector set; module: hpcc_module on generated event streams (--cc hpcc)")
	vecDir := fs.String("vectors", "", "existing vector set (stimulus.hex, expected.hex, manifest.json); default: generate one")
	configFile := fs.String("config", "", "configuration JSON (HPCC++, or LDCP with --cc ldcp); default: the vector set's manifest, else the default configuration")
	stages := fs.Int("stages", 3, "update pipeline stages")
	level := fs.Int("level", 1, "generated vectors: 1 every directed corner class, 2 adds the bit-pattern classes")
	count := fs.Int64("count", 10000, "generated vectors: constrained-random vectors after the directed ones")
	seed := fs.Uint64("seed", 1, "generated vectors: seed")
	limit := fs.Int("limit", 0, "use only the first N vectors (0: all)")
	gap := fs.Int("gap", 0, "insert an idle cycle after every N transactions (0: back to back)")
	flowBits := fs.Int("flow-bits", 4, "module: flow table of 2^N flows")
	events := fs.Int("events", 3000, "module: events per stream kind (same-flow, interleaved, mixed)")
	work := fs.String("work", "", "working directory for RTL, vectors and builds (default: a temporary directory, removed afterwards)")
	cacheDir := fs.String("cache", "", "simulator build cache (default: the user cache directory, hpccgold/cosim)")
	lint := fs.Bool("lint", true, "lint the emitted modules first (verilator --lint-only -Wall); left at the default, skipped with a note when Verilator is not installed")
	synth := fs.Bool("synth", false, "also run Yosys synthesis checks (minutes for the default configuration)")
	jobs := fs.Int("jobs", 0, "verilator: simulator processes a set is split over (0: one per CPU from 100,000 vectors; the module design is split only at a stream kind's start, each process replaying its kinds from reset)")
	verilogTB := fs.Bool("verilog-tb", false, "verilator: run the $readmemh testbench instead of the C++ harness that streams the files (slower; the testbench users run)")
	lockstep := fs.Bool("lockstep", false, "update: drive the simulator transaction by transaction from Go and stop at the first divergence, printing both states")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *jobs < 0 {
		return fmt.Errorf("--jobs=%d: must be >= 0 (0: one per CPU)", *jobs)
	}
	if *level != 1 && *level != 2 {
		return fmt.Errorf("--level=%d: must be 1 or 2", *level)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if err := cosimFlagsUsed(set, *design); err != nil {
		return err
	}
	if len(rtlFiles) > 0 && *lint && !set["lint"] {
		*lint = false // lint is for hpccgold's RTL; a user's RTL is not held to its waivers
	}
	sim, err := verilog.ParseSimulator(*simName)
	if err != nil {
		return err
	}
	if (set["jobs"] || set["verilog-tb"]) && (sim != verilog.Verilator || *lockstep) {
		return fmt.Errorf("--jobs, --verilog-tb: only for a Verilator run without --lockstep (Icarus always runs the testbench, in one process)")
	}
	if *cc == "" {
		*cc = "hpcc"
		if *vecDir != "" {
			man, err := vectors.ReadManifest(*vecDir)
			if err != nil {
				return err
			}
			switch man.Model {
			case ldcprtl.UpdateName:
				*cc = "ldcp"
			case registry.Guard:
				*cc = "guard"
			}
		}
	}
	if err := parseCC(*cc); err != nil {
		return err
	}
	if *cc != "hpcc" && *design != "update" {
		return fmt.Errorf("--design=%s: --cc %s has the update design only", *design, *cc)
	}
	// cfg configures the module design; model is the vector model of the
	// update design (and of a golden set generated for --rtl).
	var cfg hpcc.Config
	var model vectors.Model
	switch {
	case *design == "module" && *vecDir != "":
		var so cosim.ModuleOptions
		so, _, err = cosim.ModuleSetOptions(*vecDir)
		cfg = so.Config
	case *design == "module":
		cfg, err = loadHPCCConfig(*configFile)
	case *configFile == "" && *vecDir != "":
		if model, err = cosim.ModelFromManifest(*vecDir); err == nil && model.Name() != ccModel(*cc) {
			err = fmt.Errorf("cosim: %s: model %q, want %q", *vecDir, model.Name(), ccModel(*cc))
		}
	default:
		model, err = goldenModel(*cc, *configFile)
	}
	if err != nil {
		return err
	}
	// --lint is on by default; left at its default it runs only when
	// Verilator is installed (an Icarus run does not need it), and says so
	// when it cannot. Asked for explicitly, a missing Verilator is an error.
	if *lint && !set["lint"] {
		if err := verilog.LookupTools().Need(verilog.FlowLint); err != nil {
			fmt.Fprintf(env.Stderr, "lint skipped: %v\n", err)
			*lint = false
		}
	}
	if *vecDir != "" {
		if err := checkGoldenSet(*vecDir); err != nil {
			return err
		}
	}
	ctx := env.context()
	dir := *work
	var aw *artefact.Writer
	if dir == "" {
		if dir, err = os.MkdirTemp("", "hpccgold-cosim-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else {
		// A kept work directory is an output like any other: staged, and
		// committed with its manifest once the run has a verdict.
		if aw, err = artefact.Create(dir, "cosim"); err != nil {
			return err
		}
		defer aw.Close()
		dir = aw.Root()
	}
	err = func() error {
		cache := *cacheDir
		if cache == "" {
			cache = filepath.Join(dir, "build")
			if ucd, err := os.UserCacheDir(); err == nil {
				cache = filepath.Join(ucd, "hpccgold", "cosim")
			}
		}
		opts := cosim.Options{Model: model, Stages: *stages, Simulator: sim, Vectors: *vecDir, Level: *level, Seed: *seed,
			Count: *count, Limit: *limit, WorkDir: dir, CacheDir: cache, Lint: *lint, Synth: *synth, Gap: *gap, Log: env.Stderr,
			Jobs: *jobs, VerilogBench: *verilogTB}
		// Progress on a terminal for runs over 2 s: vectors/s and ETA.
		var prog *vectors.Progress
		if f, ok := env.Stderr.(*os.File); ok && vectors.IsTerminal(f) {
			start := time.Now()
			var first *vectors.Progress // rates count from the first results, after the build and file loading
			opts.Progress = func(done, total int64) {
				if first == nil {
					first = vectors.NewProgress(env.Stderr, "cosim")
				}
				if time.Since(start) >= 2*time.Second || prog != nil {
					prog = first
					prog.Update(done, total)
				}
			}
			defer func() {
				if prog != nil {
					prog.Done()
				}
			}()
		}
		var rep *cosim.Report
		var repErr error
		if len(rtlFiles) > 0 {
			ropts := cosim.RTLOptions{Files: rtlFiles, Top: *top, Options: opts}
			if *vecDir == "" {
				ropts.Model = model
			}
			rep, err := cosim.RunRTL(ctx, ropts)
			if err != nil {
				return err
			}
			return printCosim(env, rep, rep.Err(), "latency from the handshake")
		}
		if *lockstep {
			if *design != "update" {
				return fmt.Errorf("--lockstep: only with --design=update")
			}
			lr, err := cosim.RunLockstep(ctx, opts)
			if err != nil {
				return err
			}
			lr.Write(env.Stdout)
			if lr.Diverged {
				return fmt.Errorf("%w: lockstep divergence at vector %d", ErrFailed, lr.Index)
			}
			return nil
		}
		switch {
		case *design == "update":
			rep, err = cosim.Run(ctx, opts)
			if err != nil {
				return err
			}
			repErr = rep.Err()
		case *design == "module":
			mopts := cosim.ModuleOptions{Options: opts, Config: cfg, FlowBits: *flowBits, Events: *events, Seed: int64(*seed),
				Kinds: []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}}
			if *vecDir != "" { // the stream set fixes them
				mopts.FlowBits, mopts.Stages = 0, 0
			}
			mr, err := cosim.RunModule(ctx, mopts)
			if err != nil {
				return err
			}
			rep, repErr = &mr.Report, mr.Err()
			fmt.Fprintf(env.Stdout, "stall cycles: %d (handshake rule: %d)\n", mr.Stalls, mr.WantStalls)
		default:
			return fmt.Errorf("--design=%q: want update or module", *design)
		}
		return printCosim(env, rep, repErr, fmt.Sprintf("%d stages", rep.Stages))
	}()
	if aw != nil && ctx.Err() == nil && (err == nil || errors.Is(err, ErrFailed)) {
		if cerr := aw.Commit(ctx); cerr != nil {
			return cerr
		}
	}
	return err
}

// printCosim prints a co-simulation report (directed classes, build and
// run times, counts) and turns a mismatch into ErrFailed.
func printCosim(env *Env, rep *cosim.Report, repErr error, timing string) error {
	{
		if rep.Synth != nil {
			fmt.Fprintf(env.Stdout, "synth %s: %d cells (%d flip-flops), longest path %d cells\n", rep.Design, rep.Synth.Cells, rep.Synth.FlipFlops, rep.Synth.LongestPath)
		}
		var directed []string
		for _, c := range rep.Classes {
			if c.Level > 0 && c.Count > 0 {
				directed = append(directed, c.Name)
			}
		}
		if len(directed) > 0 {
			fmt.Fprintf(env.Stdout, "directed classes: %d (%s)\n", len(directed), strings.Join(directed, ", "))
		}
		build := fmt.Sprintf("build %.1fs", rep.BuildTime.Seconds())
		if rep.Cached {
			build = "build cached"
		}
		fmt.Fprintf(env.Stdout, "%s under %s (%s): %s, run %.2fs, %.0f vectors/s simulated\n",
			rep.Design, rep.Simulator, timing, build, rep.RunTime.Seconds(), rep.SimRate)
		if rep.CPUTime > 0 {
			fmt.Fprintf(env.Stdout, "end to end: %.0f vectors/s wall, %.0f vectors per CPU-second (%d process(es), %.2f CPU-s)\n",
				rep.VectorsPerSecond(), rep.VectorsPerCPUSecond(), max(rep.Jobs, 1), rep.CPUTime.Seconds())
		}
		if rep.Stalls > 0 {
			fmt.Fprintf(env.Stdout, "stall cycles (ready low): %d\n", rep.Stalls)
		}
		fmt.Fprintf(env.Stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed)
		if repErr != nil {
			if errors.Is(repErr, cosim.ErrMismatch) {
				return fmt.Errorf("%w: %v", ErrFailed, repErr)
			}
			return repErr
		}
		return nil
	}
}

// fileList is a repeatable flag of file names.
type fileList []string

func (l *fileList) String() string { return strings.Join(*l, ",") }

// Set adds one file; an empty name is an error.
func (l *fileList) Set(s string) error {
	if s == "" {
		return errors.New("empty file name")
	}
	*l = append(*l, s)
	return nil
}

// cosimFlags says which cosim flags each kind of run uses; a flag given to
// a run that does not use it is refused, never ignored.
var cosimFlags = map[string][]string{
	// hpccgold's hpcc_update / ldcp_update on a golden set
	"update": {"cc", "simulator", "design", "vectors", "config", "stages", "level", "count", "seed", "limit", "gap", "work", "cache", "lint", "synth", "lockstep", "jobs", "verilog-tb"},
	// hpccgold's hpcc_module on generated event streams
	"module": {"cc", "simulator", "design", "vectors", "config", "stages", "seed", "gap", "flow-bits", "events", "work", "cache", "lint", "synth", "jobs", "verilog-tb"},
	// the user's RTL (--rtl) on a golden set
	"rtl": {"rtl", "top", "cc", "simulator", "design", "vectors", "config", "level", "count", "seed", "limit", "gap", "work", "cache", "jobs", "verilog-tb"},
}

// cosimFlagsUsed refuses flags the run does not use: those outside the
// run's list, the generation flags (--count, --level, --seed) next to
// --vectors (the set exists), and with --rtl and --vectors also --config
// and --cc (the set carries its configuration and model).
func cosimFlagsUsed(set map[string]bool, design string) error {
	kind := design
	switch {
	case set["rtl"]:
		kind = "rtl"
		if design != "update" {
			return fmt.Errorf("--design=%s: with --rtl the design is the user's top module (--top); --design applies to hpccgold's RTL", design)
		}
		if !set["top"] {
			return errors.New("--rtl: --top NAME (the module to verify) is required")
		}
	case set["top"]:
		return errors.New("--top: only with --rtl (the user's RTL files)")
	}
	uses, ok := cosimFlags[kind]
	if !ok {
		return fmt.Errorf("--design=%q: want update or module", design)
	}
	what := map[string]string{"update": "--design=update", "module": "--design=module", "rtl": "--rtl"}[kind]
	var bad []string
	byVectors := false
	for _, name := range []string{"cc", "simulator", "design", "vectors", "config", "stages", "level", "count", "seed", "limit", "gap",
		"flow-bits", "events", "work", "cache", "lint", "synth", "lockstep", "rtl", "top", "jobs", "verilog-tb"} {
		if !set[name] {
			continue
		}
		used := false
		for _, u := range uses {
			used = used || u == name
		}
		if used && set["vectors"] && (name == "count" || name == "level" || name == "seed" ||
			kind == "rtl" && (name == "config" || name == "cc") ||
			kind == "module" && (name == "config" || name == "stages" || name == "flow-bits" || name == "events")) {
			used, byVectors = false, true
		}
		if !used {
			bad = append(bad, "--"+name)
		}
	}
	if len(bad) > 0 {
		why := ""
		if byVectors {
			why = " with --vectors (the set's manifest fixes its model, configuration and vectors)"
		}
		return fmt.Errorf("%s: not used by a %s run%s; remove %s", strings.Join(bad, ", "), what, why, map[bool]string{true: "them", false: "it"}[len(bad) > 1])
	}
	return nil
}

// ccModel returns the vector model name (package vectors/registry) of a
// --cc datapath.
func ccModel(cc string) string {
	switch cc {
	case "ldcp":
		return registry.LDCP
	case "guard":
		return registry.Guard
	}
	return registry.HPCC
}

// goldenModel returns the vector model of a --cc datapath (hpcc, ldcp or
// guard) with the configuration in configFile (default: the default one).
func goldenModel(cc, configFile string) (vectors.Model, error) {
	if cc == "guard" {
		gcfg, err := loadGuardConfig(configFile)
		if err != nil {
			return nil, err
		}
		return guardvec.New(gcfg)
	}
	if cc == "ldcp" {
		lcfg, err := loadLDCPConfig(configFile)
		if err != nil {
			return nil, err
		}
		return ldcpvec.New(lcfg)
	}
	cfg, err := loadHPCCConfig(configFile)
	if err != nil {
		return nil, err
	}
	return vectors.NewHPCC(cfg)
}

// checkGoldenSet verifies a golden set's files against its manifest (sizes
// and SHA-256, no file missing or extra) before a co-simulation: a damaged
// set is bad input (exit 2), never a mismatch blamed on the RTL.
func checkGoldenSet(dir string) error {
	rep, err := artefact.Verify(dir)
	if err != nil {
		return fmt.Errorf("--vectors: %w", err)
	}
	if !rep.OK() {
		return fmt.Errorf("--vectors %s: golden set damaged (%s); run `hpccgold vectors verify %s`", dir, strings.Join(rep.Problems, "; "), dir)
	}
	return nil
}
