package cosim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/registry"
	"github.com/hpccgold/hpccgold/verilog"
)

// ErrMismatch is wrapped by Report.Err when co-simulation found a failing
// vector (as opposed to a setup or tool error).
var ErrMismatch = errors.New("co-simulation mismatch")

// Options configures a co-simulation run.
type Options struct {
	// Model is the vector model whose update RTL is simulated (built by
	// package vectors/registry for the model's configuration, which is
	// also the golden set's); RunModule and RunRTL do not use it.
	Model     vectors.Model
	Stages    int               // update pipeline stages
	Simulator verilog.Simulator // verilator or icarus
	// Vectors is an existing vector set directory (stimulus.hex,
	// expected.hex, manifest.json); empty: generate one into WorkDir/vectors
	// with Level, Seed and Count.
	Vectors string
	Level   int
	Seed    uint64
	Count   int64
	// Limit uses only the first Limit vectors of the set (0: all).
	Limit    int
	WorkDir  string // emitted RTL, testbench and generated vectors go here
	CacheDir string // simulator builds (default WorkDir/build), reused when unchanged
	Lint     bool   // run verilator --lint-only -Wall on the emitted modules first
	Synth    bool   // run the Yosys checks and report cells and depth
	Gap      int    // an idle cycle after every Gap transactions (0: back to back)
	// MaxVectors is the testbench's vector array depth (its MAXVEC
	// parameter, part of the build's cache key); 0: the next power of two
	// >= max(1024, vectors). Runs on sets of different sizes share one
	// build when they give the same MaxVectors. Smaller than the vectors
	// used is an error.
	MaxVectors int
	Log        io.Writer
	// VerilogBench runs the $readmemh testbench under Verilator too (by
	// default Verilator runs the C++ harness, verilog.Bench.HarnessFiles,
	// which streams the files; Icarus always runs the testbench).
	VerilogBench bool
	// Jobs is the number of simulator processes the C++ harness splits a
	// per-vector set over (0: one per CPU when there are at least
	// 2*50,000 vectors); a stream set (the module design) is split only
	// where a process can start from reset (RunModule).
	Jobs int
	// stream marks a stream set (events in order, state across vectors):
	// split only into segments, each replayed from reset.
	stream bool
	// segments are the stream set's ranges that one process each can
	// replay from reset (RunModule), run Jobs at a time; nil: one.
	segments []segment
	// Progress, when set, is called as the simulator compares results
	// (done of total vectors; see verilog.Build.Progress).
	Progress func(done, total int64)
}

// Report is the outcome of a co-simulation run.
type Report struct {
	Design    string
	Simulator verilog.Simulator
	Stages    int
	Vectors   int
	Passed    int
	Failed    int
	Stalls    int
	Classes   []vectors.ClassCount // classes of the vector set (directed first, then random)
	BuildTime time.Duration
	Cached    bool
	RunTime   time.Duration // the simulator processes (wall), including reading the vector files
	Jobs      int           // simulator processes run at once (shards of the set)
	CPUTime   time.Duration // CPU time (user and system) of the simulator processes, summed
	SimTime   time.Duration // the simulation after $readmemh
	SimRate   float64       // vectors per second of SimTime
	Synth     *verilog.SynthReport
	Output    string // the simulator's output
	Dir       string // the emitted RTL
}

// VectorsPerSecond is the end-to-end throughput (whole simulator process,
// including reading the vector files); SimRate excludes the file loading.
func (r *Report) VectorsPerSecond() float64 {
	if r.RunTime <= 0 {
		return 0
	}
	return float64(r.Vectors) / r.RunTime.Seconds()
}

// VectorsPerCPUSecond is the end-to-end throughput per CPU-second of the
// simulator processes (reading the files, simulating, comparing): the
// measure that does not depend on the machine's other load.
func (r *Report) VectorsPerCPUSecond() float64 {
	if r.CPUTime <= 0 {
		return 0
	}
	return float64(r.Vectors) / r.CPUTime.Seconds()
}

// Err returns nil when every vector passed, else an error wrapping
// ErrMismatch with the counts and the first mismatches.
func (r *Report) Err() error {
	if r.Failed == 0 && r.Passed == r.Vectors && r.Vectors > 0 {
		return nil
	}
	return fmt.Errorf("%w: %s under %s: %d passed, %d failed\n%s", ErrMismatch, r.Design, r.Simulator, r.Passed, r.Failed, mismatchLines(r.Output, 40))
}

// mismatchLines returns up to n lines of the simulator output that report
// mismatches.
func mismatchLines(out string, n int) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		field := strings.HasPrefix(l, "  ") && strings.Contains(l, ": got ")
		if strings.HasPrefix(l, "MISMATCH") || field || strings.HasPrefix(l, "TIMEOUT") {
			keep = append(keep, l)
			if len(keep) == n {
				break
			}
		}
	}
	return strings.Join(keep, "\n")
}

// check refuses options no run can use: no WorkDir, and negative
// Count, Limit or Gap (the CLI's --count, --limit, --gap).
func (o *Options) check() error {
	switch {
	case o.WorkDir == "":
		return fmt.Errorf("cosim: WorkDir is required")
	case o.Count < 0:
		return fmt.Errorf("cosim: Count=%d: must be >= 0 (random vectors)", o.Count)
	case o.Limit < 0:
		return fmt.Errorf("cosim: Limit=%d: must be >= 0 (0: every vector)", o.Limit)
	case o.Gap < 0:
		return fmt.Errorf("cosim: Gap=%d: must be >= 0 (0: back to back)", o.Gap)
	}
	return nil
}

func (o *Options) logf(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, format+"\n", args...)
	}
}

// ModelFromManifest returns the vector model a set was generated with,
// rebuilt from its manifest's "model" and "config" (package
// vectors/registry), whatever the model.
func ModelFromManifest(dir string) (vectors.Model, error) {
	m, err := registry.OpenSet(dir)
	if err != nil {
		return nil, fmt.Errorf("cosim: %w", err)
	}
	return m, nil
}

// vectorSetFor makes sure opts names a vector set of model (generating one
// into WorkDir/vectors when opts.Vectors is empty) made with model's
// configuration, and returns its directory, the number of vectors to use,
// and its class counts.
func vectorSetFor(opts *Options, model vectors.Model) (string, int, []vectors.ClassCount, error) {
	dir := opts.Vectors
	if dir == "" {
		dir = filepath.Join(opts.WorkDir, "vectors")
		opts.logf("generating %s vectors (level %d, %d random, seed %d) into %s", model.Name(), max(opts.Level, 1), opts.Count, opts.Seed, dir)
		if _, err := vectors.GenerateDir(dir, model, vectors.Options{Level: opts.Level, Seed: opts.Seed, Count: opts.Count, NoJSONL: true}); err != nil {
			return "", 0, nil, err
		}
	}
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		return "", 0, nil, err
	}
	if man.Model != model.Name() {
		return "", 0, nil, fmt.Errorf("cosim: %s: model %q, the RTL is %q", dir, man.Model, model.Name())
	}
	cfgJSON, err := json.Marshal(model.Config())
	if err != nil {
		return "", 0, nil, fmt.Errorf("cosim: %s configuration: %w", model.Name(), err)
	}
	if !sameJSON(man.Config, cfgJSON) {
		return "", 0, nil, fmt.Errorf("cosim: %s was generated with another configuration than the RTL's", dir)
	}
	n := int(man.Count)
	if opts.Limit > 0 && opts.Limit < n {
		n = opts.Limit
	}
	if n == 0 {
		return "", 0, nil, fmt.Errorf("cosim: %s holds no vectors", dir)
	}
	return dir, n, man.Classes, nil
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

// maxVec is the testbench array depth for n vectors: the next power of two
// (at least 1024), so nearby counts share one build.
func maxVec(n int) int {
	m := 1024
	for m < n {
		m <<= 1
	}
	return m
}

// Run co-simulates the update RTL of opts.Model (hpcc_update,
// ldcp_update: any model of package vectors/registry) on a golden vector
// set of that model (generated into WorkDir/vectors unless opts.Vectors
// names one made with the same configuration): emit, optionally lint and
// synthesize, build, run every vector, and report passes and failures.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	tools, err := opts.tools()
	if err != nil {
		return nil, err
	}
	bench, _, err := updateBench(opts.Model, opts.Stages)
	if err != nil {
		return nil, err
	}
	dir, n, classes, err := vectorSetFor(&opts, opts.Model)
	if err != nil {
		return nil, err
	}
	return run(ctx, &opts, tools, bench, dir, n, classes)
}

// updateBench builds model's update RTL pipelined into stages (package
// vectors/registry) and its testbench description, whose field tables
// are the model's.
func updateBench(model vectors.Model, stages int) (verilog.Bench, []rtl.StageReport, error) {
	if model == nil {
		return verilog.Bench{}, nil, fmt.Errorf("cosim: Model is required (the vector model whose RTL is simulated)")
	}
	d, err := registry.Update(model, stages)
	if err != nil {
		return verilog.Bench{}, nil, fmt.Errorf("cosim: %w", err)
	}
	b := verilog.Bench{DUT: d.Module, In: model.Input(), Out: model.Output(), ValidIn: d.ValidIn, ValidOut: d.ValidOut}
	return b, d.Stages, nil
}

// tools looks up the programs the run uses and checks that those of its
// flows are installed: the simulator's, lint's when Lint is set and
// Yosys when Synth is. A missing program of another flow does not matter.
func (o *Options) tools() (verilog.Tools, error) {
	flows := []verilog.Flow{o.Simulator.Flow()}
	if o.Lint {
		flows = append(flows, verilog.FlowLint)
	}
	if o.Synth {
		flows = append(flows, verilog.FlowSynth)
	}
	t := verilog.LookupTools()
	if err := t.Need(flows...); err != nil {
		return t, fmt.Errorf("cosim: %w", err)
	}
	return t, nil
}

// run emits, checks, builds and runs bench on n vectors of dir.
func run(ctx context.Context, opts *Options, tools verilog.Tools, bench verilog.Bench, dir string, n int, classes []vectors.ClassCount) (*Report, error) {
	rep := &Report{Design: bench.DUT.Name, Simulator: opts.Simulator, Stages: opts.Stages, Vectors: n, Classes: classes}
	src := filepath.Join(opts.WorkDir, "rtl")
	rep.Dir = src
	bench.MaxVectors = maxVec(n)
	if opts.MaxVectors > 0 {
		if opts.MaxVectors < n {
			return nil, fmt.Errorf("cosim: MaxVectors=%d: below the %d vectors used", opts.MaxVectors, n)
		}
		bench.MaxVectors = opts.MaxVectors
	}
	files, err := verilog.Emit(src, bench)
	if err != nil {
		return nil, err
	}
	dut := files[:len(files)-1]
	if opts.Lint {
		opts.logf("lint: verilator --lint-only -Wall %s", strings.Join(dut, " "))
		if err := tools.Lint(ctx, src, bench.DUT.Name, dut); err != nil {
			return nil, err
		}
	}
	if opts.Synth {
		opts.logf("synth: yosys %s", strings.Join(dut, " "))
		sr, err := tools.Synth(ctx, src, bench.DUT.Name, dut)
		if err != nil {
			return nil, err
		}
		rep.Synth = &sr
	}
	if err := buildRun(ctx, opts, tools, bench, src, files, dir, n, rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// buildRun compiles bench's testbench with files (relative to src or
// absolute, the testbench last) and runs n vectors of the set in dir,
// filling rep's counts, times and output (failing vectors annotated with
// their class when dir has a manifest).
func buildRun(ctx context.Context, opts *Options, tools verilog.Tools, bench verilog.Bench, src string, files []string, dir string, n int, rep *Report) error {
	cache := opts.CacheDir
	if cache == "" {
		cache = filepath.Join(opts.WorkDir, "build")
	}
	top, maxVec := bench.Name(), bench.MaxVectors
	harness := opts.Simulator == verilog.Verilator && !opts.VerilogBench
	if harness {
		// The C++ harness streams the vector files and compares in C++ in
		// place of the $readmemh testbench (the last file).
		hf, err := bench.HarnessFiles()
		if err != nil {
			return err
		}
		if err := verilog.WriteFiles(src, hf); err != nil {
			return err
		}
		files = append([]string(nil), files[:len(files)-1]...)
		for _, f := range hf {
			files = append(files, f.Name)
		}
		top, maxVec = bench.HarnessName(), 0
	}
	opts.logf("build: %s", opts.Simulator)
	b, err := tools.Compile(ctx, opts.Simulator, src, cache, top, files, maxVec)
	if err != nil {
		return err
	}
	rep.BuildTime, rep.Cached = b.Duration, b.Cached
	b.Progress = opts.Progress
	if cl := filepath.Join(dir, vectors.ClassesFile); fileExists(cl) {
		b.Classes = cl // the testbench names failing vectors' classes
	}
	stim, exp, err := vectorFiles(opts, dir, harness)
	if err != nil {
		return err
	}
	jobs := 1
	if harness && !opts.stream {
		jobs = opts.Jobs
		if jobs <= 0 {
			jobs = 1
			if n >= minShard*2 {
				jobs = runtime.NumCPU()
			}
		}
		jobs = max(1, min(jobs, n/minShard))
	}
	var res verilog.Result
	start := time.Now()
	if harness && opts.stream && len(opts.segments) > 1 {
		jobs = max(1, min(opts.Jobs, len(opts.segments)))
		opts.logf("run: %d events in %d segments replayed from reset, %d process(es) at a time", n, len(opts.segments), jobs)
		res, err = runSegments(ctx, b, stim, exp, opts.segments, jobs, opts.Gap)
	} else {
		opts.logf("run: %d vectors in %d process(es)", n, jobs)
		res, err = runShards(ctx, b, stim, exp, n, jobs, opts.Gap)
	}
	if err != nil {
		return err
	}
	rep.Passed, rep.Failed, rep.Stalls, rep.RunTime, rep.Output = res.Passed, res.Failed, res.Stalls, time.Since(start), res.Output
	rep.SimTime, rep.SimRate, rep.Jobs, rep.CPUTime = res.SimTime, res.VectorsPerSecond(), jobs, res.CPUTime
	if man, err := vectors.ReadManifest(dir); err == nil {
		rep.Output = annotateClasses(rep.Output, man)
	}
	return nil
}

// vectorFiles returns the absolute paths of the set's stimulus and
// expected files for the run: binary records as they are for the C++
// harness, which reads them; for a $readmemh testbench, hex copies
// written into WorkDir/hex (vectors.WriteHexCopy, which checks the
// records against the manifest's hashes first). A compressed set's files
// are decompressed into WorkDir/plain first (vectors.WritePlainCopy, which
// checks the compressed files' hashes and the decoded size), or, for a
// testbench given a compressed binary set, converted straight to hex.
func vectorFiles(opts *Options, dir string, harness bool) (stim, exp string, err error) {
	stimName, expName := vectors.StimulusFile, vectors.ExpectedFile
	man, merr := vectors.ReadManifest(dir)
	if merr == nil && man.IsCompressed() && (harness || !man.IsBinary()) {
		plain := filepath.Join(opts.WorkDir, "plain")
		opts.logf("decompressing the set %s into %s", dir, plain)
		if stim, exp, err = vectors.WritePlainCopy(dir, plain); err != nil {
			return "", "", err
		}
		if stim, err = filepath.Abs(stim); err != nil {
			return "", "", err
		}
		if exp, err = filepath.Abs(exp); err != nil {
			return "", "", err
		}
		return stim, exp, nil
	}
	if merr == nil && man.IsBinary() {
		if harness {
			stimName, expName = vectors.StimulusBinFile, vectors.ExpectedBinFile
		} else {
			hex := filepath.Join(opts.WorkDir, "hex")
			opts.logf("hex copy of the binary set %s into %s for the testbench", dir, hex)
			if _, err := vectors.WriteHexCopy(dir, hex); err != nil {
				return "", "", err
			}
			dir = hex
		}
	}
	if stim, err = filepath.Abs(filepath.Join(dir, stimName)); err != nil {
		return "", "", err
	}
	if exp, err = filepath.Abs(filepath.Join(dir, expName)); err != nil {
		return "", "", err
	}
	return stim, exp, nil
}

// minShard is the fewest vectors a shard of a parallel run gets: below
// it a simulator process's start-up outweighs the split.
const minShard = 50000

// runShards runs n vectors of the set in jobs simulator processes at once,
// each on a contiguous range (+first), and sums their results: outputs
// concatenated in vector order, SimTime the longest shard's. Progress is
// summed over the shards.
func runShards(ctx context.Context, b *verilog.Build, stim, exp string, n, jobs, gap int) (verilog.Result, error) {
	if jobs <= 1 {
		return b.Run(ctx, stim, exp, n, gap)
	}
	results := make([]verilog.Result, jobs)
	errs := make([]error, jobs)
	done := make([]atomic.Int64, jobs)
	var mu sync.Mutex
	var wg sync.WaitGroup
	for j := 0; j < jobs; j++ {
		first, last := n*j/jobs, n*(j+1)/jobs
		bj := *b
		if b.Progress != nil {
			bj.Progress = func(k, _ int64) {
				done[j].Store(k)
				var sum int64
				for i := range done {
					sum += done[i].Load()
				}
				mu.Lock()
				b.Progress(sum, int64(n))
				mu.Unlock()
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[j], errs[j] = bj.RunRange(ctx, stim, exp, first, last-first, gap)
		}()
	}
	wg.Wait()
	var r verilog.Result
	var out strings.Builder
	for j, res := range results {
		if errs[j] != nil {
			return r, errs[j]
		}
		r.Passed += res.Passed
		r.Failed += res.Failed
		r.Stalls += res.Stalls
		r.Duration = max(r.Duration, res.Duration)
		r.CPUTime += res.CPUTime
		r.SimTime = max(r.SimTime, res.SimTime)
		out.WriteString(res.Output)
	}
	r.Output = out.String()
	return r, nil
}

// fileExists reports whether path names an existing regular file.
func fileExists(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

var reMismatch = regexp.MustCompile(`(?m)^MISMATCH vector (\d+):$`)

// annotateClasses names the class of each failing vector in the
// testbench's "MISMATCH vector K:" lines, from the set's class ranges (K
// counts from the first vector of the directory, a shard's included): for
// a set without classes.txt (written before it), whose failures the
// testbench could not name.
func annotateClasses(out string, man *vectors.Manifest) string {
	return reMismatch.ReplaceAllStringFunc(out, func(l string) string {
		k, err := strconv.ParseInt(reMismatch.FindStringSubmatch(l)[1], 10, 64)
		if err != nil {
			return l
		}
		c := man.ClassAt(man.Shard.First + k)
		if c == "" {
			return l
		}
		return fmt.Sprintf("MISMATCH vector %d (class %s):", k, c)
	})
}
