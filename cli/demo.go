package cli

import (
	"errors"
	"fmt"

	"github.com/hpccgold/hpccgold/demo"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

func runDemo(env *Env) error {
	fs := newFlagSet(env, "demo", "demo [--out DIR] [--simulator auto|verilator|icarus|none] [--scenario NAME] [--cache DIR]")
	out := fs.String("out", "hpccgold-demo", "output directory (relative paths are relative to the working directory)")
	cache := fs.String("cache", "", "simulator build cache, reused when the RTL is unchanged (default: OUT/.hpccgold-cache, kept across runs)")
	sim := fs.String("simulator", demo.SimAuto, "co-simulator: auto (Verilator if installed, else Icarus), verilator, icarus, none")
	scen := fs.String("scenario", demo.DefaultScenario, "built-in scenario to run (see hpccgold sim --list)")
	quiet := fs.Bool("quiet", false, "do not print progress lines on stderr")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	ctx := env.context()
	opts := demo.Options{OutDir: *out, Scenario: *scen, Simulator: *sim, CacheDir: *cache}
	if !*quiet {
		opts.Log = env.Stderr
	}
	rep, err := demo.Run(ctx, opts)
	if rep != nil {
		fmt.Fprint(env.Stdout, rep.String())
	}
	if errors.Is(err, cosim.ErrMismatch) {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return err
}
