package cli

import (
	"errors"
	"flag"
	"fmt"
	"github.com/hpccgold/hpccgold/artefact"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

func runCosim(env *Env) error {
	fs := newFlagSet(env, "cosim", "cosim [--cc hpcc|ldcp] [--simulator verilator|icarus] [--design update|module] [--vectors DIR] [--config FILE] [--stages N] [--lockstep] [flags]")
	cc := fs.String("cc", "", "datapath: hpcc (hpcc_update, hpcc_module) or ldcp (ldcp_update); default: the vector set's model, else hpcc")
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
	lockstep := fs.Bool("lockstep", false, "update: drive the simulator transaction by transaction from Go and stop at the first divergence, printing both states")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *level != 1 && *level != 2 {
		return fmt.Errorf("--level=%d: must be 1 or 2", *level)
	}
	sim, err := verilog.ParseSimulator(*simName)
	if err != nil {
		return err
	}
	if *cc == "" {
		*cc = "hpcc"
		if *vecDir != "" {
			man, err := vectors.ReadManifest(*vecDir)
			if err != nil {
				return err
			}
			if man.Model == ldcprtl.UpdateName {
				*cc = "ldcp"
			}
		}
	}
	if err := parseCC(*cc); err != nil {
		return err
	}
	if *cc == "ldcp" && *design != "update" {
		return fmt.Errorf("--design=%s: LDCP has the update design only", *design)
	}
	var cfg hpcc.Config
	var lcfg ldcp.Config
	switch {
	case *cc == "ldcp" && *configFile == "" && *vecDir != "":
		lcfg, err = cosim.LDCPConfigFromManifest(*vecDir)
	case *cc == "ldcp":
		lcfg, err = loadLDCPConfig(*configFile)
	case *configFile == "" && *vecDir != "":
		cfg, err = cosim.ConfigFromManifest(*vecDir)
	default:
		cfg, err = loadHPCCConfig(*configFile)
	}
	if err != nil {
		return err
	}
	// --lint is on by default; left at its default it runs only when
	// Verilator is installed (an Icarus run does not need it), and says so
	// when it cannot. Asked for explicitly, a missing Verilator is an error.
	lintSet := false
	fs.Visit(func(f *flag.Flag) { lintSet = lintSet || f.Name == "lint" })
	if *lint && !lintSet {
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
		opts := cosim.Options{Config: cfg, Stages: *stages, Simulator: sim, Vectors: *vecDir, Level: *level, Seed: *seed,
			Count: *count, Limit: *limit, WorkDir: dir, CacheDir: cache, Lint: *lint, Synth: *synth, Gap: *gap, Log: env.Stderr}
		var rep *cosim.Report
		var repErr error
		lopts := cosim.LDCPOptions{Options: opts, LDCP: lcfg}
		if *lockstep {
			if *design != "update" {
				return fmt.Errorf("--lockstep: only with --design=update")
			}
			var lr *cosim.LockstepReport
			if *cc == "ldcp" {
				lr, err = cosim.RunLDCPLockstep(ctx, lopts)
			} else {
				lr, err = cosim.RunLockstep(ctx, opts)
			}
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
		case *cc == "ldcp":
			rep, err = cosim.RunLDCP(ctx, lopts)
			if err != nil {
				return err
			}
			repErr = rep.Err()
		case *design == "update":
			rep, err = cosim.RunUpdate(ctx, opts)
			if err != nil {
				return err
			}
			repErr = rep.Err()
		case *design == "module":
			mr, err := cosim.RunModule(ctx, cosim.ModuleOptions{Options: opts, FlowBits: *flowBits, Events: *events, Seed: int64(*seed),
				Kinds: []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}})
			if err != nil {
				return err
			}
			rep, repErr = &mr.Report, mr.Err()
			fmt.Fprintf(env.Stdout, "stall cycles: %d (handshake rule: %d)\n", mr.Stalls, mr.WantStalls)
		default:
			return fmt.Errorf("--design=%q: want update or module", *design)
		}
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
		fmt.Fprintf(env.Stdout, "%s under %s (%d stages): %s, run %.2fs, %.0f vectors/s simulated\n",
			rep.Design, rep.Simulator, rep.Stages, build, rep.RunTime.Seconds(), rep.SimRate)
		fmt.Fprintf(env.Stdout, "%d passed, %d failed\n", rep.Passed, rep.Failed)
		if repErr != nil {
			if errors.Is(repErr, cosim.ErrMismatch) {
				return fmt.Errorf("%w: %v", ErrFailed, repErr)
			}
			return repErr
		}
		return nil
	}()
	if aw != nil && ctx.Err() == nil && (err == nil || errors.Is(err, ErrFailed)) {
		if cerr := aw.Commit(ctx); cerr != nil {
			return cerr
		}
	}
	return err
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
