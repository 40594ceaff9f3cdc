package verilog

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/internal/exttool"
)

// ErrToolMissing is wrapped when an external program a flow runs is not
// installed (the error is a *exttool.MissingError naming the programs and
// the install command).
var ErrToolMissing = exttool.ErrMissing

// Tools holds the paths of the external programs the flows run; an empty
// path is a program that is not installed. Each flow asks only for its own
// programs (Need), so a missing Yosys does not stop a Verilator build.
type Tools struct {
	Verilator string
	Make      string // Verilator's --binary build runs make ...
	CXX       string // ... which compiles with g++ (verilated.mk: CXX = g++)
	Iverilog  string
	Vvp       string
	Yosys     string
}

// Flow is one of the tool flows; Need says what each runs.
type Flow string

// The flows.
const (
	FlowLint      Flow = "lint"      // verilator --lint-only: verilator
	FlowSynth     Flow = "synth"     // Yosys checks: yosys
	FlowVerilator Flow = "verilator" // build and run a testbench under Verilator: verilator, make, g++
	FlowIcarus    Flow = "icarus"    // build and run a testbench under Icarus: iverilog, vvp
	FlowPorts     Flow = "ports"     // read the port list of RTL hpccgold did not write (ReadInterface): yosys
)

// Flow returns the flow that builds and runs testbenches under s.
func (s Simulator) Flow() Flow {
	if s == Icarus {
		return FlowIcarus
	}
	return FlowVerilator
}

// LookupTools looks every program up on PATH; missing ones are left empty.
// It never fails: each flow checks its own programs (Need).
func LookupTools() Tools {
	return Tools{
		Verilator: exttool.Look("verilator"),
		Make:      exttool.Look("make"),
		CXX:       exttool.Look("g++"),
		Iverilog:  exttool.Look("iverilog"),
		Vvp:       exttool.Look("vvp"),
		Yosys:     exttool.Look("yosys"),
	}
}

// FindTools is LookupTools for callers that need every flow (lint, synth
// and both simulators): the error names every missing program and its
// install command and wraps ErrToolMissing; the programs found are still
// usable. A caller running one flow should call LookupTools and Need.
func FindTools() (Tools, error) {
	t := LookupTools()
	return t, t.Need(FlowLint, FlowSynth, FlowVerilator, FlowIcarus)
}

// Need returns nil when every program the flows run is installed, else an
// error (a *exttool.MissingError wrapping ErrToolMissing) naming the
// missing programs, each once, and the command that installs them.
func (t Tools) Need(flows ...Flow) error {
	var progs []exttool.Program
	add := func(name, path string) {
		for _, p := range progs {
			if p.Name == name {
				return
			}
		}
		progs = append(progs, exttool.Program{Name: name, Path: path})
	}
	var names []string
	for _, f := range flows {
		names = append(names, string(f))
		switch f {
		case FlowLint:
			add("verilator", t.Verilator)
		case FlowSynth, FlowPorts:
			add("yosys", t.Yosys)
		case FlowVerilator:
			add("verilator", t.Verilator)
			add("make", t.Make)
			add("g++", t.CXX)
		case FlowIcarus:
			add("iverilog", t.Iverilog)
			add("vvp", t.Vvp)
		default:
			return fmt.Errorf("verilog: flow %q: want lint, synth, verilator, icarus or ports", f)
		}
	}
	return exttool.Need("verilog: "+strings.Join(names, ", "), progs...)
}

// WriteFiles writes files into dir (created if needed), each atomically.
func WriteFiles(dir string, files []File) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("verilog: %w", err)
	}
	for _, f := range files {
		if err := atomicfile.WriteBytes(filepath.Join(dir, f.Name), 0o644, f.Data); err != nil {
			return fmt.Errorf("verilog: write %s: %w", f.Name, err)
		}
	}
	return nil
}

// run runs a program in dir (both made absolute by exttool.Command) and
// returns its combined output.
func run(ctx context.Context, dir string, name string, args ...string) (string, error) {
	cmd, err := exttool.Command(ctx, dir, name, args...)
	if err != nil {
		return "", fmt.Errorf("verilog: %w", err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.String(), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// Lint runs `verilator --lint-only -Wall` on files (paths relative to dir)
// with top as the top module. Any diagnostic is an error that quotes it.
func (t Tools) Lint(ctx context.Context, dir, top string, files []string) error {
	if err := t.Need(FlowLint); err != nil {
		return err
	}
	args := append([]string{"--lint-only", "-Wall", "--top-module", top}, files...)
	out, err := run(ctx, dir, t.Verilator, args...)
	if err != nil {
		return fmt.Errorf("verilog: lint %s: %w", top, err)
	}
	if strings.TrimSpace(out) != "" {
		return fmt.Errorf("verilog: lint %s: diagnostics:\n%s", top, out)
	}
	return nil
}

// SynthReport is what Yosys says about a synthesized module (generic gate
// library, `synth -flatten`).
type SynthReport struct {
	Top         string
	Cells       int            // total cells after synthesis
	CellTypes   map[string]int // cells per type ($_AND_, $_DFF_P_, ...)
	FlipFlops   int            // cells whose type contains DFF
	LongestPath int            // `ltp -noff`: longest register-to-register/port path, in cells
	Log         string         // the full Yosys log
}

// SortedTypes returns the cell types in name order.
func (r SynthReport) SortedTypes() []string {
	var ks []string
	for k := range r.CellTypes {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var (
	reCells = regexp.MustCompile(`(?m)^\s+Number of cells:\s+(\d+)`)
	reType  = regexp.MustCompile(`(?m)^\s+(\$\S+)\s+(\d+)$`)
	reLTP   = regexp.MustCompile(`Longest topological path in \S+ \(length=(\d+)\)`)
)

// Synth runs Yosys: read the files, `synth -flatten -top top`, then checks
// that fail the run on any latch ($dlatch/$_DLATCH_* cells), any undriven
// or multiply driven net, or combinational loop (`check -assert`), and
// reports the cell count and `ltp -noff` (the longest path between flip-flops
// and ports, in cells: the logic depth of the slowest pipeline stage).
func (t Tools) Synth(ctx context.Context, dir, top string, files []string) (SynthReport, error) {
	r := SynthReport{Top: top, CellTypes: map[string]int{}}
	if err := t.Need(FlowSynth); err != nil {
		return r, err
	}
	script := fmt.Sprintf("read_verilog %s; hierarchy -check -top %s; synth -flatten -top %s; check -assert; "+
		"select -assert-none t:$dlatch t:$adlatch t:$_DLATCH_* t:$_DLATCHSR_*; stat; ltp -noff",
		strings.Join(files, " "), top, top)
	out, err := run(ctx, dir, t.Yosys, "-q", "-l", "yosys.log", "-p", script)
	logb, _ := os.ReadFile(filepath.Join(dir, "yosys.log"))
	r.Log = string(logb)
	if err != nil {
		return r, fmt.Errorf("verilog: synth %s: %w", top, err)
	}
	_ = out
	stat := r.Log
	if i := strings.LastIndex(stat, "Printing statistics."); i >= 0 {
		stat = stat[i:]
	}
	if m := reCells.FindStringSubmatch(stat); m != nil {
		r.Cells, _ = strconv.Atoi(m[1])
	} else {
		return r, fmt.Errorf("verilog: synth %s: no cell count in the Yosys log", top)
	}
	for _, m := range reType.FindAllStringSubmatch(stat, -1) {
		n, _ := strconv.Atoi(m[2])
		r.CellTypes[m[1]] += n
		if strings.Contains(m[1], "DFF") {
			r.FlipFlops += n
		}
	}
	if m := reLTP.FindStringSubmatch(r.Log); m != nil {
		r.LongestPath, _ = strconv.Atoi(m[1])
	} else {
		return r, fmt.Errorf("verilog: synth %s: no ltp result in the Yosys log", top)
	}
	return r, nil
}

// Simulator names a co-simulation back end.
type Simulator string

// The supported simulators.
const (
	Verilator Simulator = "verilator"
	Icarus    Simulator = "icarus"
)

// ParseSimulator accepts "verilator" or "icarus".
func ParseSimulator(s string) (Simulator, error) {
	switch Simulator(s) {
	case Verilator, Icarus:
		return Simulator(s), nil
	}
	return "", fmt.Errorf("verilog: simulator %q: want verilator or icarus", s)
}

// Build is a compiled testbench, ready to run.
type Build struct {
	Sim      Simulator
	Dir      string
	Top      string
	Cmd      []string      // program and fixed arguments
	Duration time.Duration // compile time (0 when reused from the cache)
	Cached   bool
	// Progress, when set, is called from Run as results arrive (done of
	// total vectors compared, at least every ProgressStep(total) vectors):
	// the testbench prints "progress N" lines (+progress=K), which Run
	// keeps out of Result.Output.
	Progress func(done, total int64)
	// Classes, when set, is the set's class ranges (vectors.ClassesFile),
	// passed as +classes so that the testbench names each failing
	// vector's class.
	Classes string
}

// ProgressStep is the number of results between two progress lines of a
// run of n vectors: about a thousand lines per run, at least every 64.
func ProgressStep(n int) int { return max(64, n/1000) }

// Compile builds the testbench top from files (already written in srcDir)
// with the given simulator, in a directory under cacheDir named after a hash
// of the simulator (name, binary path with symbolic links resolved, size
// and modification time), top,
// maxVec, every file's contents and every header (*.vh, *.svh) in the
// files' directories (the flags are fixed here): an unchanged design is
// compiled once and reused. The directory of each file is on the include
// path (-I), and a .sv file among them makes Icarus read SystemVerilog
// (-g2012 instead of -g2005); a .cpp file among them is Verilator's C++
// main (Bench.HarnessFiles; --cc --exe --build instead of --binary). maxVec > 0 sets the
// testbench's MAXVEC parameter. srcDir and cacheDir may be relative to the
// working directory: Compile makes them absolute before handing them to
// the simulator, which runs in the build directory, and the Build it
// returns holds absolute paths only. It needs the simulator's flow
// (Simulator.Flow) and says which programs are missing otherwise.
func (t Tools) Compile(ctx context.Context, sim Simulator, srcDir, cacheDir, top string, files []string, maxVec int) (*Build, error) {
	if sim != Verilator && sim != Icarus {
		return nil, fmt.Errorf("verilog: compile: simulator %q: want verilator or icarus", sim)
	}
	if err := t.Need(sim.Flow()); err != nil {
		return nil, err
	}
	srcDir, err := exttool.Abs(srcDir)
	if err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	cacheDir, err = exttool.Abs(cacheDir)
	if err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", sim, top, maxVec)
	// The simulator binary itself (path, size, modification time): a
	// persistent cache must not reuse a build made by another version.
	// Symbolic links are resolved: a link to the same binary is the same
	// simulator.
	tool := t.Verilator
	if sim == Icarus {
		tool = t.Iverilog
	}
	if real, err := filepath.EvalSymlinks(tool); err == nil {
		tool = real
	}
	if fi, err := os.Stat(tool); err == nil {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", tool, fi.Size(), fi.ModTime().UnixNano())
	}
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i] = f
		if !filepath.IsAbs(f) {
			abs[i] = filepath.Join(srcDir, f)
		}
		data, err := os.ReadFile(abs[i])
		if err != nil {
			return nil, fmt.Errorf("verilog: compile: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	// Headers next to the files (`include'd through the -I<dir> flags of
	// incDirs) are part of the design too.
	for _, inc := range incDirs(abs) {
		d := strings.TrimPrefix(inc, "-I")
		ents, err := os.ReadDir(d)
		if err != nil {
			return nil, fmt.Errorf("verilog: compile: %w", err)
		}
		for _, e := range ents { // sorted by name
			if n := e.Name(); !e.IsDir() && (strings.HasSuffix(n, ".vh") || strings.HasSuffix(n, ".svh")) {
				data, err := os.ReadFile(filepath.Join(d, n))
				if err != nil {
					return nil, fmt.Errorf("verilog: compile: %w", err)
				}
				fmt.Fprintf(h, "inc\x00%s\x00%d\x00", filepath.Join(d, n), len(data))
				h.Write(data)
			}
		}
	}
	key := hex.EncodeToString(h.Sum(nil))[:20]
	dir := filepath.Join(cacheDir, string(sim)+"-"+key)
	b := &Build{Sim: sim, Dir: dir, Top: top}
	var exe string
	if sim == Icarus {
		exe = filepath.Join(dir, top+".vvp")
		b.Cmd = []string{t.Vvp, "-n", exe}
	} else {
		exe = filepath.Join(dir, "V"+top)
		b.Cmd = []string{exe}
	}
	if _, err := os.Stat(filepath.Join(dir, "built.ok")); err == nil {
		b.Cached = true
		return b, nil
	}
	// Build in a private directory and rename it into place when complete,
	// so that concurrent builds of one key (two processes sharing the user
	// cache) never write into one directory, and a killed build leaves only
	// a ".tmp-" directory that no later run reads (and that the next build
	// of the key removes).
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	final := dir
	if err := removeStaleBuilds(cacheDir, filepath.Base(final)); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(cacheDir, filepath.Base(final)+".tmp-")
	if err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	dir = tmp
	if sim == Icarus {
		exe = filepath.Join(dir, top+".vvp")
	} else {
		exe = filepath.Join(dir, "V"+top)
	}
	start := time.Now()
	switch sim {
	case Verilator:
		mode := []string{"--binary"}
		for _, f := range abs {
			if strings.HasSuffix(f, ".cpp") {
				mode = []string{"--cc", "--exe", "--build"} // a C++ main (Bench.HarnessFiles)
			}
		}
		args := append(mode, "-O3", "--x-assign", "fast", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-TIMESCALEMOD",
			"-j", "2", "--top-module", top, "--Mdir", dir, "-o", "V"+top)
		if maxVec > 0 {
			args = append(args, "-GMAXVEC="+strconv.Itoa(maxVec))
		}
		args = append(args, incDirs(abs)...)
		if _, err := run(ctx, dir, t.Verilator, append(args, abs...)...); err != nil {
			return nil, fmt.Errorf("verilog: compile %s with verilator: %w", top, err)
		}
	case Icarus:
		gen := "-g2005"
		for _, f := range abs {
			if strings.HasSuffix(f, ".sv") {
				gen = "-g2012" // SystemVerilog sources (a user's RTL); Verilog-2005 is a subset
			}
		}
		args := []string{gen, "-Wall", "-s", top, "-o", exe}
		args = append(args, incDirs(abs)...)
		if maxVec > 0 {
			args = append(args, "-P", top+".MAXVEC="+strconv.Itoa(maxVec))
		}
		if _, err := run(ctx, dir, t.Iverilog, append(args, abs...)...); err != nil {
			return nil, fmt.Errorf("verilog: compile %s with iverilog: %w", top, err)
		}
	}
	b.Duration = time.Since(start)
	if err := atomicfile.WriteBytes(filepath.Join(dir, "built.ok"), 0o644, []byte(top+"\n")); err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	if err := os.Rename(dir, final); err != nil {
		// Another process finished the same build first: use its.
		if _, serr := os.Stat(filepath.Join(final, "built.ok")); serr != nil {
			return nil, fmt.Errorf("verilog: compile: move the build into the cache: %w", err)
		}
		b.Cached = true
	}
	return b, nil
}

// removeStaleBuilds removes the temporary directories of builds of key that
// were killed (older than an hour: a live build of the same key in another
// process is younger) from cacheDir.
func removeStaleBuilds(cacheDir, key string) error {
	old, err := filepath.Glob(filepath.Join(cacheDir, key+".tmp-*"))
	if err != nil {
		return fmt.Errorf("verilog: compile: %w", err)
	}
	for _, d := range old {
		if fi, err := os.Stat(d); err == nil && time.Since(fi.ModTime()) > time.Hour {
			if err := os.RemoveAll(d); err != nil {
				return fmt.Errorf("verilog: compile: remove a killed build: %w", err)
			}
		}
	}
	return nil
}

// incDirs returns an include-path flag (-I<dir>, as Verilator and Icarus
// both read it) for the directory of each file, each directory once, in
// file order: an `include in a user's RTL is found next to the file, as in
// the user's own build.
func incDirs(files []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, f := range files {
		d := filepath.Dir(f)
		if !seen[d] {
			seen[d] = true
			out = append(out, "-I"+d)
		}
	}
	return out
}

// Result is the outcome of one testbench run.
type Result struct {
	Passed, Failed int
	Stalls         int           // cycles a transaction waited for ready
	Output         string        // the simulator's full output
	Duration       time.Duration // wall time of the whole run
	// CPUTime is the CPU time (user and system) of the simulator process:
	// the measure of its cost on a shared machine.
	CPUTime time.Duration
	// SimTime is the wall time from the testbench's "loaded" line (after
	// $readmemh) to the end: the simulation proper, without parsing the
	// vector files. Zero if the line was not seen.
	SimTime time.Duration
}

// VectorsPerSecond is the simulation throughput, excluding file loading
// when SimTime is known.
func (r Result) VectorsPerSecond() float64 {
	t := r.SimTime
	if t <= 0 {
		t = r.Duration
	}
	if t <= 0 {
		return 0
	}
	return float64(r.Passed+r.Failed) / t.Seconds()
}

// OK reports whether every vector passed.
func (r Result) OK() bool { return r.Failed == 0 && r.Passed > 0 }

var (
	reSummary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)
	reStalls  = regexp.MustCompile(`(?m)^stall cycles: (\d+)`)
)

// Run runs the testbench on n vectors from the stimulus and expected files
// (absolute, or relative to the working directory: Run makes them absolute,
// since the simulator runs in the build directory) with one idle cycle after
// every gap transactions (0: none). A run that does not print the summary
// line is an error; mismatches are not (inspect Result).
func (b *Build) Run(ctx context.Context, stim, exp string, n, gap int) (Result, error) {
	return b.RunRange(ctx, stim, exp, 0, n, gap)
}

// RunRange is Run on the n vectors starting at vector first of the files
// (+first, which the C++ harness of Bench.HarnessFiles reads; the Verilog
// testbench has no +first, so first must be 0 with it).
func (b *Build) RunRange(ctx context.Context, stim, exp string, first, n, gap int) (Result, error) {
	stim, err := exttool.Abs(stim)
	if err != nil {
		return Result{}, fmt.Errorf("verilog: run %s: %w", b.Top, err)
	}
	exp, err = exttool.Abs(exp)
	if err != nil {
		return Result{}, fmt.Errorf("verilog: run %s: %w", b.Top, err)
	}
	args := append(append([]string(nil), b.Cmd[1:]...),
		"+stim="+stim, "+exp="+exp, "+n="+strconv.Itoa(n), "+gap="+strconv.Itoa(gap))
	if first > 0 {
		args = append(args, "+first="+strconv.Itoa(first))
	}
	if b.Classes != "" {
		c, err := exttool.Abs(b.Classes)
		if err != nil {
			return Result{}, fmt.Errorf("verilog: run %s: %w", b.Top, err)
		}
		args = append(args, "+classes="+c)
	}
	var onLine func(string) bool
	if b.Progress != nil {
		args = append(args, "+progress="+strconv.Itoa(ProgressStep(n)))
		onLine = func(l string) bool {
			v, ok := strings.CutPrefix(l, "progress ")
			if !ok {
				return false
			}
			if k, err := strconv.ParseInt(v, 10, 64); err == nil {
				b.Progress(k, int64(n))
			}
			return true
		}
	}
	start := time.Now()
	out, loaded, cpu, err := runTimed(ctx, b.Dir, "loaded ", onLine, b.Cmd[0], args...)
	end := time.Now()
	r := Result{Output: out, Duration: end.Sub(start), CPUTime: cpu}
	if !loaded.IsZero() {
		r.SimTime = end.Sub(loaded)
	}
	m := reSummary.FindStringSubmatch(out)
	if m == nil {
		if err == nil {
			err = errors.New("no summary line")
		}
		return r, fmt.Errorf("verilog: run %s (%s): %w\n%s", b.Top, b.Sim, err, tail(out, 4000))
	}
	r.Passed, _ = strconv.Atoi(m[1])
	r.Failed, _ = strconv.Atoi(m[2])
	if s := reStalls.FindStringSubmatch(out); s != nil {
		r.Stalls, _ = strconv.Atoi(s[1])
	}
	return r, nil
}

// runTimed runs a program like run and also returns when its output first
// had a line starting with marker (zero time if never).
// It also returns the CPU time (user and system) the program used.
func runTimed(ctx context.Context, dir, marker string, onLine func(string) bool, name string, args ...string) (string, time.Time, time.Duration, error) {
	cmd, err := exttool.Command(ctx, dir, name, args...)
	if err != nil {
		return "", time.Time{}, 0, fmt.Errorf("verilog: %w", err)
	}
	var buf bytes.Buffer
	cmd.Stderr = &buf
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return "", time.Time{}, 0, err
	}
	if err := cmd.Start(); err != nil {
		return "", time.Time{}, 0, fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	var at time.Time
	var out strings.Builder
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if onLine != nil && onLine(line) {
			continue // consumed (a progress line)
		}
		if at.IsZero() && strings.HasPrefix(line, marker) {
			at = time.Now()
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	err = cmd.Wait()
	var cpu time.Duration
	if ps := cmd.ProcessState; ps != nil {
		cpu = ps.UserTime() + ps.SystemTime()
	}
	out.WriteString(buf.String())
	if err != nil {
		return out.String(), at, cpu, fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.String(), at, cpu, nil
}
