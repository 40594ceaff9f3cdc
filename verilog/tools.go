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
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/atomicfile"
)

// ErrToolMissing is wrapped when an external program is not installed.
var ErrToolMissing = errors.New("tool not found")

// Tools holds the paths of the external programs the flows run.
type Tools struct {
	Verilator string
	Iverilog  string
	Vvp       string
	Yosys     string
}

// FindTools looks the programs up on PATH. Missing ones are left empty and
// named in the returned error (which wraps ErrToolMissing); the others are
// still usable.
func FindTools() (Tools, error) {
	var t Tools
	var missing []string
	for _, x := range []struct {
		name string
		dst  *string
	}{{"verilator", &t.Verilator}, {"iverilog", &t.Iverilog}, {"vvp", &t.Vvp}, {"yosys", &t.Yosys}} {
		p, err := exec.LookPath(x.name)
		if err != nil {
			missing = append(missing, x.name)
			continue
		}
		*x.dst = p
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("verilog: %s: %w", strings.Join(missing, ", "), ErrToolMissing)
	}
	return t, nil
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

func run(ctx context.Context, dir string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
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
	if t.Verilator == "" {
		return fmt.Errorf("verilog: lint: verilator: %w", ErrToolMissing)
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
	if t.Yosys == "" {
		return r, fmt.Errorf("verilog: synth: yosys: %w", ErrToolMissing)
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
}

// Compile builds the testbench top from files (already written in srcDir)
// with the given simulator, in a directory under cacheDir named after a hash
// of the simulator (name, binary path, size and modification time), top,
// maxVec and every file's contents (the flags are fixed here): an
// unchanged design is compiled once and reused. maxVec > 0 sets the
// testbench's MAXVEC parameter.
func (t Tools) Compile(ctx context.Context, sim Simulator, srcDir, cacheDir, top string, files []string, maxVec int) (*Build, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", sim, top, maxVec)
	// The simulator binary itself (path, size, modification time): a
	// persistent cache must not reuse a build made by another version.
	tool := t.Verilator
	if sim == Icarus {
		tool = t.Iverilog
	}
	if fi, err := os.Stat(tool); err == nil {
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", tool, fi.Size(), fi.ModTime().UnixNano())
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(srcDir, f))
		if err != nil {
			return nil, fmt.Errorf("verilog: compile: %w", err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	key := hex.EncodeToString(h.Sum(nil))[:20]
	dir := filepath.Join(cacheDir, string(sim)+"-"+key)
	abs := make([]string, len(files))
	for i, f := range files {
		abs[i] = filepath.Join(srcDir, f)
		if a, err := filepath.Abs(abs[i]); err == nil {
			abs[i] = a
		}
	}
	b := &Build{Sim: sim, Dir: dir, Top: top}
	var exe string
	switch sim {
	case Verilator:
		exe = filepath.Join(dir, "V"+top)
	case Icarus:
		exe = filepath.Join(dir, top+".vvp")
	default:
		return nil, fmt.Errorf("verilog: compile: simulator %q", sim)
	}
	if sim == Icarus {
		b.Cmd = []string{t.Vvp, "-n", exe}
	} else {
		b.Cmd = []string{exe}
	}
	if _, err := os.Stat(filepath.Join(dir, "built.ok")); err == nil {
		b.Cached = true
		return b, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("verilog: compile: %w", err)
	}
	start := time.Now()
	switch sim {
	case Verilator:
		if t.Verilator == "" {
			return nil, fmt.Errorf("verilog: compile: verilator: %w", ErrToolMissing)
		}
		args := []string{"--binary", "-O3", "--x-assign", "fast", "-Wno-fatal", "-Wno-lint", "-Wno-style", "-Wno-TIMESCALEMOD",
			"-j", "2", "--top-module", top, "--Mdir", dir, "-o", "V" + top}
		if maxVec > 0 {
			args = append(args, "-GMAXVEC="+strconv.Itoa(maxVec))
		}
		if _, err := run(ctx, dir, t.Verilator, append(args, abs...)...); err != nil {
			return nil, fmt.Errorf("verilog: compile %s with verilator: %w", top, err)
		}
	case Icarus:
		if t.Iverilog == "" || t.Vvp == "" {
			return nil, fmt.Errorf("verilog: compile: iverilog/vvp: %w", ErrToolMissing)
		}
		args := []string{"-g2005", "-Wall", "-s", top, "-o", exe}
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
	return b, nil
}

// Result is the outcome of one testbench run.
type Result struct {
	Passed, Failed int
	Stalls         int           // cycles a transaction waited for ready
	Output         string        // the simulator's full output
	Duration       time.Duration // wall time of the whole run
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
// (absolute or relative to the build directory) with one idle cycle after
// every gap transactions (0: none). A run that does not print the summary
// line is an error; mismatches are not (inspect Result).
func (b *Build) Run(ctx context.Context, stim, exp string, n, gap int) (Result, error) {
	args := append(append([]string(nil), b.Cmd[1:]...),
		"+stim="+stim, "+exp="+exp, "+n="+strconv.Itoa(n), "+gap="+strconv.Itoa(gap))
	start := time.Now()
	out, loaded, err := runTimed(ctx, b.Dir, "loaded ", b.Cmd[0], args...)
	end := time.Now()
	r := Result{Output: out, Duration: end.Sub(start)}
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
func runTimed(ctx context.Context, dir, marker, name string, args ...string) (string, time.Time, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stderr = &buf
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return "", time.Time{}, err
	}
	if err := cmd.Start(); err != nil {
		return "", time.Time{}, fmt.Errorf("%s: %w", filepath.Base(name), err)
	}
	var at time.Time
	var out strings.Builder
	sc := bufio.NewScanner(pipe)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if at.IsZero() && strings.HasPrefix(line, marker) {
			at = time.Now()
		}
		out.WriteString(line)
		out.WriteByte('\n')
	}
	err = cmd.Wait()
	out.WriteString(buf.String())
	if err != nil {
		return out.String(), at, fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out.String(), 4000))
	}
	return out.String(), at, nil
}
