package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Environment variables of `hpccgold bench` (docs/scenarios.md, Speed).
const (
	// envNS3 names the HPCC authors' ns-3 build: its simulation/ directory
	// or its build/ directory (holding scratch/third).
	envNS3 = "HPCCGOLD_NS3"
	// envNS3Cases names the directory of ns-3 case directories (such as
	// ../shared/ns3-cases with C16, D60, E2).
	envNS3Cases = "HPCCGOLD_NS3_CASES"
)

// ns3Cases maps built-in scenarios to the shared ns-3 cases
// (../shared/ns3-cases/README.md) that model them; any other bench entry
// uses the case directory named like the entry (bench
// --write-ns3-cases writes them).
var ns3Cases = map[string]string{
	"hpcc-incast-16to1": "C16",
	"hpcc-incast-60to1": "D60",
	"hpcc-two-flows":    "E2",
}

// benchEntry is one scenario of a bench: a built-in name and an optional
// overlay file; label names it in the table and names its ns-3 case.
type benchEntry struct {
	label, name, config string
}

// parseBenchEntries reads "NAME" or "NAME+FILE.json" items (the overlay
// file as sim --config); the label of NAME+dir/short.json is NAME+short.
func parseBenchEntries(list string) ([]benchEntry, error) {
	var out []benchEntry
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("--scenarios=%q: empty item", list)
		}
		e := benchEntry{label: item, name: item}
		if i := strings.IndexByte(item, '+'); i >= 0 {
			e.name, e.config = item[:i], item[i+1:]
			if e.config == "" {
				return nil, fmt.Errorf("--scenarios: %q: no overlay file after '+'", item)
			}
			e.label = e.name + "+" + strings.TrimSuffix(filepath.Base(e.config), filepath.Ext(e.config))
		}
		if _, err := scenario.Lookup(e.name); err != nil {
			return nil, fmt.Errorf("--scenarios: %w", err)
		}
		out = append(out, e)
	}
	return out, nil
}

// measure is one timed run: wall and CPU time (user + system) and the
// peak resident set size, bytes (0 when unknown).
type measure struct {
	wall, cpu time.Duration
	rss       int64
}

// runProcess runs cmd and measures it as a whole process. The last 4 KB of
// its output are kept for an error message.
func runProcess(ctx context.Context, cmd *exec.Cmd) (measure, error) {
	var tail tailBuffer
	cmd.Stdout, cmd.Stderr = &tail, &tail
	t0 := time.Now()
	err := cmd.Run()
	m := measure{wall: time.Since(t0)}
	if ps := cmd.ProcessState; ps != nil {
		m.cpu = ps.UserTime() + ps.SystemTime()
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
			m.rss = int64(ru.Maxrss) * 1024 // Linux: kilobytes
		}
	}
	if ctx.Err() != nil {
		return m, ctx.Err()
	}
	if err != nil {
		return m, fmt.Errorf("%s: %w; output ends:\n%s", strings.Join(cmd.Args, " "), err, tail.String())
	}
	return m, nil
}

// tailBuffer keeps the last 4 KB written to it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 4096 {
		t.b = append(t.b[:0], t.b[len(t.b)-4096:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// cpuSelf returns the process's user + system CPU time and its peak RSS
// (getrusage RUSAGE_SELF).
func cpuSelf() (time.Duration, int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Maxrss) * 1024
}

// hpccgoldRun runs one bench entry: as a child process (`hpccgold sim`,
// whole process, the same executable) or in this process. Either fails
// when the run fails its verdict.
func hpccgoldRun(ctx context.Context, e benchEntry, inProcess bool) (measure, error) {
	if !inProcess {
		exe, err := os.Executable()
		if err != nil {
			return measure{}, fmt.Errorf("bench: %w", err)
		}
		args := []string{"sim", "--scenario", e.name, "--quiet"}
		if e.config != "" {
			args = append(args, "--config", e.config)
		}
		return runProcess(ctx, exec.CommandContext(ctx, exe, args...))
	}
	runtime.GC()
	c0, _ := cpuSelf()
	t0 := time.Now()
	r, _, err := scenario.RunNamed(ctx, scenario.Request{Scenario: e.name, ConfigFile: e.config})
	m := measure{wall: time.Since(t0)}
	c1, rss := cpuSelf()
	m.cpu, m.rss = c1-c0, rss
	if err != nil {
		return m, err
	}
	return m, r.Verdict()
}

// ns3Build locates the simulator (scratch/third under the build
// directory) from dir: the build directory itself or simulation/ above
// it. The optimized profile names the program third or third-optimized.
func ns3Build(dir string) (build, prog string, err error) {
	for _, b := range []string{filepath.Join(dir, "build"), dir} {
		for _, p := range []string{"third", "third-optimized"} {
			f := filepath.Join(b, "scratch", p)
			if st, err := os.Stat(f); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
				abs, err := filepath.Abs(b)
				if err != nil {
					return "", "", err
				}
				return abs, filepath.Join(abs, "scratch", p), nil
			}
		}
	}
	return "", "", fmt.Errorf("--ns3=%q: no executable scratch/third under it or under its build/ (build the simulator as ../shared/ns3-cases/README.md says)", dir)
}

// ns3Run copies case dir src into a fresh temporary directory, runs the
// simulator on it from there (as the cases' README does) and checks that
// it exited 0 and wrote one fct.txt line per flow of flow.txt.
func ns3Run(ctx context.Context, build, prog, src string) (measure, error) {
	tmp, err := os.MkdirTemp("", "hpccgold-bench-ns3-")
	if err != nil {
		return measure{}, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	name := filepath.Base(src)
	if err := copyDir(src, filepath.Join(tmp, name)); err != nil {
		return measure{}, fmt.Errorf("bench: ns-3 case %s: %w", src, err)
	}
	flows, err := firstLineInt(filepath.Join(tmp, name, "flow.txt"))
	if err != nil {
		return measure{}, fmt.Errorf("bench: ns-3 case %s: flow.txt: %w", src, err)
	}
	cmd := exec.CommandContext(ctx, prog, filepath.Join(name, "config.txt"))
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "LD_LIBRARY_PATH="+build+string(os.PathListSeparator)+os.Getenv("LD_LIBRARY_PATH"))
	m, err := runProcess(ctx, cmd)
	if err != nil {
		return m, fmt.Errorf("ns-3 case %s: %w", name, err)
	}
	got, err := countLines(filepath.Join(tmp, name, "fct.txt"))
	if err != nil {
		return m, fmt.Errorf("ns-3 case %s: %w", name, err)
	}
	if got != flows {
		return m, fmt.Errorf("ns-3 case %s: fct.txt has %d completed flows, flow.txt has %d (raise SIMULATOR_STOP_TIME?)", name, got, flows)
	}
	return m, nil
}

func copyDir(src, dst string) error {
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func firstLineInt(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return 0, errors.New("empty")
	}
	n, err := strconv.Atoi(strings.TrimSpace(s.Text()))
	if err != nil || n < 0 {
		return 0, fmt.Errorf("first line %q: not a flow count", s.Text())
	}
	return n, nil
}

func countLines(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) > 0 {
			n++
		}
	}
	return n, nil
}

func median(v []time.Duration) time.Duration {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func medianF(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// runBench implements `hpccgold bench`: it times hpccgold's scenarios
// (whole process by default: `hpccgold sim` as a child, CPU = user +
// system time, peak RSS from the kernel) and, where the HPCC authors'
// ns-3 simulator is built (--ns3 or HPCCGOLD_NS3) and a case models the
// scenario (--ns3-cases or HPCCGOLD_NS3_CASES), the same scenario there,
// in N paired runs (the order alternates within each pair), and prints a
// table of medians and of the median paired ratios ns-3/hpccgold (above 1:
// hpccgold is faster). A run that fails (non-zero exit, a scenario
// verdict, an ns-3 run that did not complete every flow) fails the bench
// (exit 1). --write-ns3-cases DIR writes ns-3 cases of the scenarios
// instead (scenario.MakeNS3Case).
func runBench(env *Env) error {
	fs := newFlagSet(env, "bench", "bench [--scenarios NAME[+OVERLAY.json],...] [--runs N] [--ns3 DIR] [--ns3-cases DIR] [--in-process] | bench --write-ns3-cases DIR [--scenarios ...] [--ns3-stop-ns N]")
	list := fs.String("scenarios", "hpcc-incast-16to1,hpcc-incast-60to1,hpcc-two-flows",
		"comma-separated built-in scenarios, each optionally NAME+FILE with a JSON overlay (as sim --config)")
	runs := fs.Int("runs", 3, "paired runs per scenario (medians are reported)")
	ns3 := fs.String("ns3", os.Getenv(envNS3), "the ns-3 simulator's simulation/ or build/ directory (default $"+envNS3+"; empty: ns-3 not run)")
	cases := fs.String("ns3-cases", os.Getenv(envNS3Cases), "directory of ns-3 case directories (default $"+envNS3Cases+")")
	inProc := fs.Bool("in-process", false, "time hpccgold's runs inside this process (CPU from getrusage deltas) instead of as child processes")
	write := fs.String("write-ns3-cases", "", "write an ns-3 case directory per scenario into DIR and exit")
	stop := fs.Uint64("ns3-stop-ns", 0, "with --write-ns3-cases: simulated time after the 2 s flow epoch at which ns-3 stops, ns (0: the scenario's run.duration_ns, else its run.limit_ns)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	entries, err := parseBenchEntries(*list)
	if err != nil {
		return err
	}
	if *write != "" {
		return writeNS3Cases(env, *write, entries, *stop)
	}
	if *runs < 1 || *runs > 1000 {
		return fmt.Errorf("--runs=%d: must be in [1,1000]", *runs)
	}
	var build, prog string
	if *ns3 != "" {
		if build, prog, err = ns3Build(*ns3); err != nil {
			return err
		}
		if *cases == "" {
			return fmt.Errorf("--ns3=%q needs --ns3-cases (or $%s): the directory of case directories", *ns3, envNS3Cases)
		}
		if st, err := os.Stat(*cases); err != nil || !st.IsDir() {
			return fmt.Errorf("--ns3-cases=%q: not a directory", *cases)
		}
	}
	ctx := env.context()
	mode := "whole process (hpccgold sim as a child)"
	if *inProc {
		mode = "in process (getrusage deltas; RSS is the process's peak so far)"
	}
	fmt.Fprintf(env.Stdout, "hpccgold bench: %d paired runs per scenario, hpccgold timed %s; %d CPUs, GOMAXPROCS %d\n",
		*runs, mode, runtime.NumCPU(), runtime.GOMAXPROCS(0))
	if build == "" {
		fmt.Fprintf(env.Stdout, "ns-3: not available (no build given: --ns3 or $%s)\n", envNS3)
	} else {
		fmt.Fprintf(env.Stdout, "ns-3: %s, cases from %s\n", prog, *cases)
	}
	t := tablewriter.NewTable(env.Stdout, tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight,
			tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}}))
	t.Header("scenario", "hpccgold wall", "hpccgold CPU", "hpccgold max RSS", "ns-3 case", "ns-3 wall", "ns-3 CPU",
		"ns-3 max RSS", "ns-3/hpccgold wall", "ns-3/hpccgold CPU")
	var failures []string
	for _, e := range entries {
		caseDir, caseNote := "", "not available"
		if build != "" {
			name := e.label
			if c, ok := ns3Cases[e.label]; ok {
				name = c
			}
			d := filepath.Join(*cases, name)
			if st, err := os.Stat(filepath.Join(d, "config.txt")); err == nil && st.Mode().IsRegular() {
				caseDir, caseNote = d, name
			} else {
				caseNote = "no case " + name
			}
		}
		var hw, hc, nw, nc []time.Duration
		var rw, rc []float64
		var hr, nr int64
		failed := false
		for i := 0; i < *runs && !failed; i++ {
			var h, n measure
			var herr, nerr error
			first := func() { h, herr = hpccgoldRun(ctx, e, *inProc) }
			second := func() {
				if caseDir != "" {
					n, nerr = ns3Run(ctx, build, prog, caseDir)
				}
			}
			if i%2 == 1 {
				first, second = second, first
			}
			first()
			second()
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("bench: interrupted: %w", err)
			}
			if herr != nil {
				failures = append(failures, fmt.Sprintf("%s: hpccgold run %d: %v", e.label, i+1, herr))
				failed = true
			}
			if nerr != nil {
				failures = append(failures, fmt.Sprintf("%s: ns-3 run %d: %v", e.label, i+1, nerr))
				failed = true
			}
			if failed {
				break
			}
			hw, hc = append(hw, h.wall), append(hc, h.cpu)
			hr = max(hr, h.rss)
			if caseDir != "" {
				nw, nc = append(nw, n.wall), append(nc, n.cpu)
				nr = max(nr, n.rss)
				rw = append(rw, n.wall.Seconds()/h.wall.Seconds())
				rc = append(rc, n.cpu.Seconds()/max(h.cpu.Seconds(), 1e-9))
			}
		}
		row := []string{e.label, "failed", "", "", caseNote, "", "", "", "", ""}
		if !failed {
			row = []string{e.label, secs(median(hw)), secs(median(hc)), mib(hr), caseNote, "n/a", "n/a", "n/a", "n/a", "n/a"}
			if caseDir != "" {
				row[5], row[6], row[7] = secs(median(nw)), secs(median(nc)), mib(nr)
				row[8], row[9] = fmt.Sprintf("%.2fx", medianF(rw)), fmt.Sprintf("%.2fx", medianF(rc))
			}
		}
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, "times are medians of the runs; ratios are medians of the paired ratios (above 1: hpccgold is faster); CPU = user + system")
	if len(failures) > 0 {
		for _, f := range failures {
			fmt.Fprintln(env.Stderr, f)
		}
		return fmt.Errorf("%w: %d of %d scenarios had a failed run", ErrFailed, len(failures), len(entries))
	}
	return nil
}

func secs(d time.Duration) string { return fmt.Sprintf("%.3f s", d.Seconds()) }

func mib(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
}

// writeNS3Cases writes one ns-3 case directory per entry under dir (each
// through the artefact writer: manifest last, nothing half-written).
func writeNS3Cases(env *Env, dir string, entries []benchEntry, stopNs uint64) error {
	ctx := env.context()
	for _, e := range entries {
		c, err := scenario.Resolve(scenario.Request{Scenario: e.name, ConfigFile: e.config})
		if err != nil {
			return err
		}
		stop := stopNs
		if stop == 0 {
			stop = c.Run.DurationNs
		}
		if stop == 0 {
			stop = c.Run.LimitNs
		}
		k, err := scenario.MakeNS3Case(c, e.label, stop)
		if err != nil {
			return fmt.Errorf("%s: %w", e.label, err)
		}
		w, err := artefact.Create(filepath.Join(dir, e.label), "ns3-case")
		if err != nil {
			return err
		}
		names := make([]string, 0, len(k.Files))
		for n := range k.Files {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			if err := w.WriteFile(n, k.Files[n]); err != nil {
				w.Close()
				return err
			}
		}
		if err := w.Commit(ctx); err != nil {
			w.Close()
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s: %d flows -> %s (run: cd %s && LD_LIBRARY_PATH=BUILD BUILD/scratch/third %s/config.txt)\n",
			e.label, k.Flows, filepath.Join(dir, e.label), dir, e.label)
	}
	return nil
}
