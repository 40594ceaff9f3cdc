package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/scenario"
)

// runSim implements `hpccgold sim`: it runs a built-in scenario (the seeds'
// and the HPCC paper's experiments) on the NIC model inside the network
// model, optionally overlaid with a JSON configuration, and writes CSV,
// plots, a summary table and a manifest into --out. Ctrl-C stops the run;
// files already written stay complete and the manifest is written last. A
// run whose flows did not complete (scenario.Result.Verdict) exits 1 after
// printing and writing its results.
func runSim(env *Env) error {
	if len(env.Args) > 0 && env.Args[0] == "merge" {
		return runSimMerge(env.sub(env.Args[1:]))
	}
	fs := newFlagSet(env, "sim", "sim --scenario NAME [--cc hpcc|hpcc-rx|ldcp|dcqcn] [--config FILE] [--model fixed|float] [--out DIR] | sim --list\n"+
		"       sim --sweep SPEC --out DIR [--shard i/n] [--workers N] | sim merge --out DIR SHARD_DIR... (docs/scenarios.md, Sweeps)")
	name := fs.String("scenario", "", "built-in scenario (see --list)")
	cc := fs.String("cc", "", "congestion control: hpcc, hpcc-rx, ldcp or dcqcn (default: the scenario's)")
	model := fs.String("model", "", "HPCC++ and LDCP arithmetic: fixed or float (default: the scenario's)")
	config := fs.String("config", "", "JSON file overlaying the scenario's parameters (unknown keys rejected)")
	out := fs.String("out", "", "output directory (default: print the summary only)")
	list := fs.Bool("list", false, "list the scenarios and the configuration keys")
	printCfg := fs.Bool("print-config", false, "print the resolved configuration as JSON and exit")
	traces := fs.String("trace-hosts", "", "comma-separated hosts whose NIC traces (pcap, vectors) are written under --out/traces")
	quiet := fs.Bool("quiet", false, "no progress display")
	sw := simSweepFlags(fs)
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if sw.spec != "" {
		return runSimSweep(env, fs, sw, *out)
	}
	if *list {
		return simList(env.Stdout)
	}
	if *name == "" {
		return fmt.Errorf("--scenario is required (see --list)")
	}
	req := scenario.Request{Scenario: *name, CC: *cc, Model: *model, ConfigFile: *config, OutDir: *out}
	if *traces != "" {
		for _, s := range strings.Split(*traces, ",") {
			h, err := strconv.Atoi(strings.TrimSpace(s))
			if err != nil {
				return fmt.Errorf("--trace-hosts=%q: %q is not a host number", *traces, s)
			}
			req.TraceHosts = append(req.TraceHosts, h)
		}
		if *out == "" {
			return fmt.Errorf("--trace-hosts needs --out")
		}
	}
	if *printCfg {
		c, err := scenario.Resolve(req)
		if err != nil {
			return err
		}
		b, err := c.JSON()
		if err != nil {
			return err
		}
		_, err = env.Stdout.Write(b)
		return err
	}
	ctx := env.context()
	tty := isTerminal(env.Stderr) && !*quiet
	if tty {
		req.Progress = func(p scenario.Progress) {
			fmt.Fprintf(env.Stderr, "\r%s: %9.1f of %.1f us simulated, %d/%d flows done, %.1f s", *name,
				float64(p.SimNs)/1000, float64(p.EndNs)/1000, p.FlowsDone, p.Flows, p.Wall.Seconds())
		}
	}
	r, files, err := scenario.RunNamed(ctx, req)
	if tty {
		fmt.Fprintln(env.Stderr)
	}
	if err != nil {
		if errors.Is(err, scenario.ErrInterrupted) {
			if r == nil {
				return fmt.Errorf("%w: nothing written", err)
			}
			return fmt.Errorf("%w: %d files written to %s are complete; manifest.json (written last) is absent", err, len(files), *out)
		}
		return err
	}
	if err := r.WriteSummary(env.Stdout); err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, r.Report(files, *out))
	// A run that was to complete its flows and did not is a failed check
	// (exit 1; docs/cli.md), its results written all the same.
	if err := r.Verdict(); err != nil {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return nil
}

func simList(w io.Writer) error {
	fmt.Fprintln(w, "Scenarios:")
	for _, n := range scenario.Names() {
		c, err := scenario.Lookup(n)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  %-20s %s\n", n, c.Description)
	}
	fmt.Fprintln(w, "\nConfiguration keys (--config FILE overlays the scenario; --print-config shows its values):")
	for _, p := range scenario.Parameters() {
		fmt.Fprintf(w, "  %-40s %s\n", p.Key, p.Doc)
	}
	return nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
