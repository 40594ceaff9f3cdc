package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/scenario"
)

// runCompare implements `hpccgold compare`: it runs one built-in scenario
// under HPCC++, Rx-HPCC, LDCP and DCQCN (or the --ccs list) on the same
// NICs and network, prints one table (bottleneck queue, utilization, FCT
// slowdown by flow size, feedback packets, drops) and, with --out, writes
// the table, a CSV, the configuration and the queue and utilization plots
// of every run overlaid (PNG and SVG), each file atomically and the
// manifest last. The table on stdout is deterministic; wall-clock times go
// to stderr.
func runCompare(env *Env) error {
	fs := newFlagSet(env, "compare", "compare --scenario NAME [--config FILE] [--model fixed|float] [--ccs hpcc,hpcc-rx,ldcp,dcqcn] [--out DIR]")
	name := fs.String("scenario", "", "built-in scenario (see sim --list)")
	config := fs.String("config", "", "JSON file overlaying the scenario's parameters (its cc is ignored)")
	model := fs.String("model", "", "HPCC++ and LDCP arithmetic: fixed or float (default: the scenario's)")
	ccs := fs.String("ccs", "hpcc,hpcc-rx,ldcp,dcqcn", "congestion controls to run, in order")
	out := fs.String("out", "", "output directory (default: print the table only)")
	quiet := fs.Bool("quiet", false, "no progress display and no wall-clock times")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *name == "" {
		return fmt.Errorf("--scenario is required (see sim --list)")
	}
	list, err := scenario.ParseCCs(*ccs)
	if err != nil {
		return fmt.Errorf("--ccs: %w", err)
	}
	ctx := env.context()
	tty := isTerminal(env.Stderr) && !*quiet
	o := scenario.CompareOptions{CCs: list}
	start := time.Now()
	var cur nicmodel.CCMode
	started := false
	if tty {
		o.Progress = func(cc nicmodel.CCMode, p scenario.Progress) {
			if started && cc != cur {
				fmt.Fprintln(env.Stderr)
			}
			started, cur = true, cc
			fmt.Fprintf(env.Stderr, "\r%s cc=%s: %9.1f of %.1f us simulated, %d/%d flows done, %.1f s", *name, cc,
				float64(p.SimNs)/1000, float64(p.EndNs)/1000, p.FlowsDone, p.Flows, p.Wall.Seconds())
		}
	}
	cmp, err := scenario.CompareNamed(ctx, scenario.Request{Scenario: *name, Model: *model, ConfigFile: *config}, o)
	if tty {
		fmt.Fprintln(env.Stderr)
	}
	if err != nil {
		if errors.Is(err, scenario.ErrInterrupted) {
			return fmt.Errorf("%w: nothing written", err)
		}
		return err
	}
	if err := cmp.WriteTable(env.Stdout); err != nil {
		return err
	}
	if !*quiet {
		for _, r := range cmp.Results {
			fmt.Fprintf(env.Stderr, "cc=%s: %.3f s wall, %d data packets simulated in %.1f us\n", r.Config.CC,
				r.Stats.Wall.Seconds(), r.Stats.DataPackets, float64(r.Stats.SimNs)/1000)
		}
		fmt.Fprintf(env.Stderr, "total %.3f s wall\n", time.Since(start).Seconds())
	}
	if *out == "" {
		return compareVerdict(cmp)
	}
	files, err := cmp.Write(ctx, *out)
	if err != nil {
		if errors.Is(err, scenario.ErrInterrupted) {
			return fmt.Errorf("%w: %d files written to %s are complete; manifest.json (written last) is absent", err, len(files), *out)
		}
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %d files to %s (manifest.json lists them)\n", len(files), *out)
	return compareVerdict(cmp)
}

// compareVerdict is ErrFailed naming every run whose flows did not
// complete (scenario.Result.Verdict), or nil.
func compareVerdict(cmp *scenario.Comparison) error {
	var bad []string
	for _, r := range cmp.Results {
		if err := r.Verdict(); err != nil {
			bad = append(bad, fmt.Sprintf("cc=%s: %v", r.Config.CC, err))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: %s", ErrFailed, strings.Join(bad, "; "))
	}
	return nil
}
