package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors/coverage"
	"github.com/hpccgold/hpccgold/vectors/registry"
	"github.com/hpccgold/hpccgold/verilog/cosim"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/hpccgold/hpccgold/atomicfile"

	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/scenario/simvec"
	"github.com/hpccgold/hpccgold/vectors"
)

const vectorsUsage = `vectors <gen|check|verify|cover|show> [flags]

  gen     generate golden HPCC++ vectors, or LDCP ones with --cc ldcp (stimulus.hex,
          expected.hex, fields.vh, layout.json, manifest.json; vectors.jsonl with --jsonl) and print
          their coverage; with --from-sim SCENARIO, capture them from a closed-loop run
          on the NIC model
  check   compare a DUT output file (expected.hex layout or JSON Lines) with a golden set
  verify  re-hash a set against its manifest and re-run the model on its stimulus
  cover   print the coverage of a set (tables, JSON or CSV), or of a merge of its shards
  show    print one vector of a set field by field (DIR --index K)

Run 'hpccgold vectors <sub> -h' for its flags. File formats: docs/vectors.md.`

// runVectors dispatches the vectors subcommands.
func runVectors(env *Env) error {
	if len(env.Args) == 0 || env.Args[0] == "-h" || env.Args[0] == "--help" {
		fmt.Fprintf(env.Stderr, "Usage: hpccgold %s\n", vectorsUsage)
		if len(env.Args) == 0 {
			return errors.New("missing subcommand")
		}
		return flag.ErrHelp
	}
	sub := env.sub(env.Args[1:])
	switch env.Args[0] {
	case "gen":
		return runVectorsGen(sub)
	case "check":
		return runVectorsCheck(sub)
	case "verify":
		return runVectorsVerify(sub)
	case "cover":
		return runVectorsCover(sub)
	case "show":
		return runVectorsShow(sub)
	}
	return fmt.Errorf("unknown subcommand %q (want gen, check, verify, cover or show)", env.Args[0])
}

func runVectorsGen(env *Env) error {
	fs := newFlagSet(env, "vectors gen", "vectors gen [--cc hpcc|ldcp|guard] [--config FILE] [--seed N] [--count N] [--level 1|2] [--out DIR] [--shard i/n] [--class A,B] [--jsonl] [--format hex|bin] [--compress none|zstd] [--workers N]\n"+
		"       vectors gen --out - [--manifest FILE] [--format hex|bin] [--cc ...] [--config ...] [--seed N] [--count N] [--level 1|2] [--shard i/n] [--class A,B] [--workers N]\n"+
		"       vectors gen --from-sim SCENARIO [--config FILE] [--cc hpcc|hpcc-rx] [--seed N] [--count N] [--out DIR] [--shard i/n] [--jsonl] [--workers N]")
	configFile := fs.String("config", "", "HPCC++ configuration JSON (hpcc.LoadConfig form), or LDCP (ldcp.LoadConfig form) with --cc ldcp, or the telemetry guard (intguard.LoadConfig form) with --cc guard; default: the default configuration. With --from-sim: a JSON file overlaying the scenario (as hpccgold sim --config)")
	seed := fs.Uint64("seed", 1, "seed of the constrained-random vectors. With --from-sim, if given: replaces the scenario's network.seed and traffic.random.seed")
	count := fs.Int64("count", 10000, "number of constrained-random vectors after the directed ones. With --from-sim: the largest number of transactions captured (the first in cycle order); 0 = every transaction of the run")
	fromSim := fs.String("from-sim", "", "capture the HPCC++ datapath transactions of a closed-loop run of this scenario (hpccgold sim --list) instead of generating")
	cc := fs.String("cc", "", "the datapath: hpcc (HPCC++ hpcc_update, the default), ldcp (LDCP ldcp_update) or guard (the telemetry integrity guard int_guard, docs/guard.md). With --from-sim: hpcc or hpcc-rx (default: the scenario's)")
	model := fs.String("model", "", "with --from-sim: fixed (the default and the only choice: vectors come from the golden fixed-point datapath)")
	level := fs.Int("level", 1, "1: every directed corner class; 2: adds the bit-pattern classes")
	out := fs.String("out", "vectors", "output directory; - writes the set as one stream to standard output for a simulator that reads its standard input: per vector its stimulus record, then its expected record (hex lines, or binary records with --format bin); the report goes to standard error")
	manifestFile := fs.String("manifest", "", "with --out -: write the set's manifest (the hashes of the stimulus and expected files as a directory of the set holds them, the stream's size and CRC-32C) to this file once the stream is complete")
	shard := fs.String("shard", "", "generate only shard i/n (0 <= i < n) of the set")
	classes := fs.String("class", "", "comma-separated directed classes to generate (default: all up to --level)")
	design := fs.String("design", "update", "update: per-event vectors of the update datapath; module: an hpcc_module event stream set (flow RAM, hazards, stalls) replayed in order by cosim --design module --vectors")
	flowBits := fs.Int("flow-bits", 10, "--design module: flow table of 2^N flows (the emitted hpcc_module's default)")
	stages := fs.Int("stages", 3, "--design module: update pipeline stages of the module the set is for")
	events := fs.Int("events", 3000, "--design module: events per stream kind (same-flow, interleaved, mixed), at most 2^30; written event by event (memory flat in the count), about 290 bytes an event on disk")
	jsonl := fs.Bool("jsonl", false, "also write vectors.jsonl: every vector with named fields, raw and real values (about 5.5 KB a vector for HPCC++, 30x the hex files; check, verify, show and the testbenches need only the hex files)")
	noJSONL := fs.Bool("no-jsonl", false, "do not write vectors.jsonl (the default; kept for scripts)")
	compress := fs.String("compress", "none", "none: plain stimulus and expected files; zstd: zstd streams stimulus.hex.zst and expected.hex.zst (or .bin.zst), written in the same pass, hashed as on disk, read directly by check, verify, show, cover, grade and cosim")
	format := fs.String("format", "hex", "hex: stimulus.hex and expected.hex ($readmemh lines, every reader); bin: stimulus.bin and expected.bin, binary records of ceil(width/8) bytes (half the bytes, no parsing; read by verify, show and the Verilator cosim harness, converted for Icarus)")
	workers := fs.Int("workers", 0, fmt.Sprintf("evaluating goroutines, 0..%d (0: one per CPU; at most 4 per CPU: more only cost memory); the output does not depend on it", vectors.MaxWorkers()))
	untilCovered := fs.Bool("until-covered", false, "coverage closure: draw random vectors, biased toward the unhit bins of the functional coverage model, until every reachable bin is hit (or --budget); the set holds the directed vectors and the vectors drawn (--count is then the number drawn)")
	budget := fs.Int64("budget", 200000, "--until-covered: most random vectors to draw")
	round := fs.Int64("round", 2048, "--until-covered: random vectors per round (the bias is chosen again after each)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *jsonl && *noJSONL {
		return errors.New("--jsonl and --no-jsonl: choose one")
	}
	*noJSONL = !*jsonl
	if *format != "hex" && *format != "bin" {
		return fmt.Errorf("--format=%q: want hex or bin", *format)
	}
	if err := inRange("count", *count, 0, vectors.MaxCount); err != nil {
		return err
	}
	if err := inRange("workers", int64(*workers), 0, int64(vectors.MaxWorkers())); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	pipe := *out == "-"
	if pipe {
		for _, f := range []string{"jsonl", "compress", "from-sim", "design"} {
			if set[f] {
				return fmt.Errorf("--%s does not apply to --out - (the stream holds the stimulus and expected records of a generated set, plain: pipe it through zstd if wanted)", f)
			}
		}
	} else if set["manifest"] {
		return errors.New("--manifest applies to --out - only (a directory holds its manifest.json)")
	}
	switch *design {
	case "module":
		if set["format"] {
			return errors.New("--format does not apply to --design module (a stream set is written as hex)")
		}
		if set["compress"] {
			return errors.New("--compress does not apply to --design module (a stream set is written as plain hex)")
		}
		return runVectorsModule(env, set, *configFile, *seed, *flowBits, *stages, *events, *out)
	case "update":
		for _, f := range []string{"flow-bits", "stages", "events"} {
			if set[f] {
				return fmt.Errorf("--%s applies to --design module only", f)
			}
		}
	default:
		return fmt.Errorf("--design=%q: must be update or module", *design)
	}
	if *fromSim != "" && set["format"] {
		return errors.New("--format does not apply to --from-sim (a captured set is written as hex)")
	}
	if *fromSim != "" && set["compress"] {
		return errors.New("--compress does not apply to --from-sim (a captured set is written as plain hex)")
	}
	if *fromSim != "" {
		return runVectorsFromSim(env, fs, *fromSim, *configFile, *cc, *model, *seed, *count, *out, *shard, *noJSONL, *workers)
	}
	if *model != "" {
		return errors.New("--model needs --from-sim")
	}
	if *level != 1 && *level != 2 {
		return fmt.Errorf("--level=%d: must be 1 or 2", *level)
	}
	m, err := vectorModel(*cc, *configFile)
	if err != nil {
		return err
	}
	opts := vectors.Options{Level: *level, Seed: *seed, Count: *count, NoJSONL: *noJSONL, Workers: *workers, Binary: *format == "bin"}
	var closure *coverage.CloseResult
	if *untilCovered {
		for _, f := range []string{"count", "shard", "class"} {
			if set[f] {
				return fmt.Errorf("--%s: not with --until-covered (closure draws the count itself, over the whole set and every class)", f)
			}
		}
		if err := inRange("budget", *budget, 1, vectors.MaxCount); err != nil {
			return err
		}
		if err := inRange("round", *round, 1, 1<<24); err != nil {
			return err
		}
		cm, err := coverage.ForModel(m)
		if err != nil {
			return err
		}
		if closure, err = coverage.Close(env.context(), m, cm, coverage.CloseOptions{Level: *level, Seed: *seed, Budget: *budget, Round: *round, Workers: *workers}); err != nil {
			return err
		}
		opts.Count, opts.Bias = closure.Random, closure.Bias
	} else {
		for _, f := range []string{"budget", "round"} {
			if set[f] {
				return fmt.Errorf("--%s needs --until-covered", f)
			}
		}
	}
	switch *compress {
	case "none":
	case "zstd":
		opts.Compress = vectors.CompressZstd
	default:
		return fmt.Errorf("--compress=%q: want none or zstd", *compress)
	}
	if *shard != "" {
		sh, err := vectors.ParseShard(*shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		opts.Shard = sh
	}
	if *classes != "" {
		if opts.Classes, err = parseList("class", *classes); err != nil {
			return err
		}
	}
	if pipe {
		return runVectorsGenPipe(env, m, opts, *manifestFile, closure, *budget)
	}
	opts.Preflight = func(est vectors.SizeEstimate) error { return checkSpace(*out, est) }
	var prog *vectors.Progress
	if f, ok := env.Stderr.(*os.File); ok && vectors.IsTerminal(f) {
		prog = vectors.NewProgress(env.Stderr, "vectors gen")
		opts.Progress = prog.Update
	}
	man, err := vectors.GenerateDirContext(env.context(), *out, m, opts)
	if prog != nil {
		prog.Done()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %d vectors to %s\n", man.Count, *out)
	return reportGen(env.Stdout, man, closure, *budget)
}

// reportGen prints the coverage of a generated set to w and, after
// --until-covered, the closure report; an unclosed coverage is ErrFailed.
func reportGen(w io.Writer, man *vectors.Manifest, closure *coverage.CloseResult, budget int64) error {
	if err := vectors.WriteCoverage(w, man); err != nil {
		return err
	}
	if closure == nil {
		return nil
	}
	fmt.Fprintln(w)
	if err := closure.Report.WriteText(w, 40); err != nil {
		return err
	}
	if !closure.Closed {
		fmt.Fprintf(w, "coverage NOT closed within --budget %d: %d directed + %d random vectors leave %d reachable bins unhit\n",
			budget, closure.Directed, closure.Random, closure.Report.Summary.Holes)
		return fmt.Errorf("%w: coverage not closed within --budget %d (%d holes)", ErrFailed, budget, closure.Report.Summary.Holes)
	}
	fmt.Fprintf(w, "coverage closed: %d directed + %d random vectors (%d rounds, %d biased)\n",
		closure.Directed, closure.Random, len(closure.Rounds), len(closure.Bias))
	return nil
}

// underlyingFile returns the file behind w (the process's standard output
// behind the CLI's errWriter), if there is one.
func underlyingFile(w io.Writer) (*os.File, bool) {
	if e, ok := w.(*errWriter); ok {
		w = e.w
	}
	f, ok := w.(*os.File)
	return f, ok
}

// runVectorsGenPipe implements vectors gen --out -: the set as one stream
// on standard output (vectors.GeneratePipe), the report on standard error,
// the manifest to manifestFile (if set) once the stream is complete. A
// write to a closed pipe fails the command (SIGPIPE is ignored, so the
// write returns EPIPE and the command exits non-zero naming it); the
// manifest is then not written.
func runVectorsGenPipe(env *Env, m vectors.Model, opts vectors.Options, manifestFile string, closure *coverage.CloseResult, budget int64) error {
	if f, ok := underlyingFile(env.Stdout); ok && vectors.IsTerminal(f) {
		return errors.New("--out -: standard output is a terminal; pipe it into the simulator (or redirect it to a file)")
	}
	signal.Ignore(syscall.SIGPIPE)
	man, err := vectors.GeneratePipe(env.context(), env.Stdout, m, opts)
	if err != nil {
		return err
	}
	if manifestFile != "" {
		mb, err := vectors.MarshalManifest(man)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteBytes(manifestFile, 0o644, mb); err != nil {
			return fmt.Errorf("--manifest: %w", err)
		}
	}
	fmt.Fprintf(env.Stderr, "wrote %d vectors to standard output (%s, %d bytes, CRC-32C %s)\n", man.Count, man.Pipe.Format, man.Pipe.Bytes, man.Pipe.CRC32C)
	return reportGen(env.Stderr, man, closure, budget)
}

// runVectorsFromSim implements vectors gen --from-sim: it captures the
// scenario's datapath transactions (package scenario/simvec) into out.
func runVectorsFromSim(env *Env, fs *flag.FlagSet, name, configFile, cc, model string, seed uint64, count int64,
	out, shard string, noJSONL bool, workers int) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, f := range []string{"level", "class"} {
		if set[f] {
			return fmt.Errorf("--%s does not apply to --from-sim: a captured set holds the run's transactions", f)
		}
	}
	if model != "" && model != "fixed" {
		return fmt.Errorf("--model=%s: --from-sim captures the golden fixed-point datapath only (model fixed)", model)
	}
	req := simvec.Request{Scenario: name, ConfigFile: configFile, CC: cc, Limit: count, NoJSONL: noJSONL, Workers: workers}
	if set["seed"] {
		req.Seed = &seed
	}
	if shard != "" {
		sh, err := vectors.ParseShard(shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		req.Shard = sh
	}
	ctx := env.context()
	var prog *vectors.Progress
	writing := false
	f, tty := env.Stderr.(*os.File)
	if tty && vectors.IsTerminal(f) {
		req.RunProgress = func(p scenario.Progress) {
			fmt.Fprintf(env.Stderr, "\r%s: %9.1f of %.1f us simulated, %d/%d flows done   ", name,
				float64(p.SimNs)/1000, float64(p.EndNs)/1000, p.FlowsDone, p.Flows)
		}
		prog = vectors.NewProgress(env.Stderr, "vectors gen")
		req.Progress = func(done, total int64) {
			if !writing { // end the run's progress line
				fmt.Fprintln(env.Stderr)
				writing = true
			}
			prog.Update(done, total)
		}
	}
	man, err := simvec.CaptureDir(ctx, out, req)
	if prog != nil {
		if !writing {
			fmt.Fprintln(env.Stderr)
		}
		prog.Done()
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "wrote %d vectors to %s\n", man.Count, out)
	return vectors.WriteCoverage(env.Stdout, man)
}

func runVectorsCheck(env *Env) error {
	fs := newFlagSet(env, "vectors check", "vectors check --golden DIR --dut FILE [--max-diffs N] [--partial]")
	golden := fs.String("golden", "", "golden vector set directory")
	dut := fs.String("dut", "", "DUT output file: expected.hex layout or JSON Lines")
	maxDiffs := fs.Int("max-diffs", 10, "failing vectors to show field by field (0: none)")
	partial := fs.Bool("partial", false, "accept a DUT file holding only the first vectors of the set (at least one) and compare those")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *golden == "" || *dut == "" {
		return errors.New("--golden and --dut are required")
	}
	if err := inRange("max-diffs", int64(*maxDiffs), 0, math.MaxInt32); err != nil {
		return err
	}
	opts := vectors.CheckOptions{MaxDiffs: *maxDiffs, Partial: *partial}
	if *maxDiffs == 0 {
		opts.MaxDiffs = -1
	}
	rep, err := vectors.Check(*golden, *dut, opts)
	if err != nil {
		return err
	}
	// The verdict does not depend on printing the report: a mismatch is
	// exit 1 even when stdout fails (Run reports the write).
	werr := rep.Write(env.Stdout)
	if !rep.OK() {
		return fmt.Errorf("%w: %d of %d vectors differ", ErrFailed, rep.Failed, rep.Checked)
	}
	return werr
}

func runVectorsVerify(env *Env) error {
	fs := newFlagSet(env, "vectors verify", "vectors verify DIR")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want exactly one directory")
	}
	rep, err := registry.Verify(fs.Arg(0))
	if err != nil {
		return err
	}
	werr := rep.Write(env.Stdout)
	if !rep.OK() {
		return fmt.Errorf("%w: %d problems", ErrFailed, len(rep.Problems))
	}
	return werr
}

func runVectorsCover(env *Env) error {
	fs := newFlagSet(env, "vectors cover", "vectors cover DIR [DIR...] [--merge] [--format text|json|csv|sv|svcount] [--functional=false] [--observed] [--holes N] [--min-coverage PCT]")
	merge := fs.Bool("merge", false, "merge the coverage of the shards of one set (every shard i/n exactly once) into the whole set's")
	format := fs.String("format", "text", "text (tables), json, csv (one row per bin), sv (the functional coverage model as a SystemVerilog covergroup) or svcount (the same bins as a Verilog counter module, for simulators without covergroups)")
	functional := fs.Bool("functional", true, "also sample the functional coverage model (package vectors/coverage) over every vector of the set(s)")
	holes := fs.Int("holes", 40, "text: list at most this many holes (reachable bins not hit; 0: all)")
	minCov := fs.Float64("min-coverage", 0, "exit 1 when the functional coverage (hit / reachable bins, percent) is below this")
	workers := fs.Int("workers", 0, "parallel samplers (0: one per CPU); the counts do not depend on it")
	observed := fs.Bool("observed", false, "also report observed coverage beside the plain figure: a bin hit counts only on vectors where its node is observable at an output (a simulated single-bit flip of it, or a mux's other arm, changes an output; docs/vectors.md \"Observed coverage\")")
	// --observed is a bool (no value to carry): moved in front on its own.
	var args, rest []string
	for _, a := range env.Args {
		if a == "-observed" || a == "--observed" || strings.HasPrefix(a, "-observed=") || strings.HasPrefix(a, "--observed=") {
			args = append(args, a)
		} else {
			rest = append(rest, a)
		}
	}
	if err := fs.Parse(append(args, reorderFlags(rest, "format", "merge", "functional", "holes", "min-coverage", "workers")...)); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("want a directory (several with --merge)")
	}
	if fs.NArg() > 1 && !*merge {
		return fmt.Errorf("%d directories: give --merge to combine the shards of one set", fs.NArg())
	}
	if !map[string]bool{"text": true, "json": true, "csv": true, "sv": true, "svcount": true}[*format] {
		return fmt.Errorf("--format=%q: must be text, json, csv, sv or svcount", *format)
	}
	if err := inRange("holes", int64(*holes), 0, 1<<30); err != nil {
		return err
	}
	if err := inRange("workers", int64(*workers), 0, int64(vectors.MaxWorkers())); err != nil {
		return err
	}
	if math.IsNaN(*minCov) || *minCov < 0 || *minCov > 100 {
		return fmt.Errorf("--min-coverage=%v: must be a percentage in [0,100]", *minCov)
	}
	if *minCov > 0 && !*functional {
		return errors.New("--min-coverage needs the functional coverage (drop --functional=false)")
	}
	if *observed && !*functional {
		return errors.New("--observed needs the functional coverage (drop --functional=false)")
	}
	var mans []*vectors.Manifest
	for _, dir := range fs.Args() {
		man, err := vectors.ReadManifest(dir)
		if err != nil {
			return err
		}
		mans = append(mans, man)
	}
	man := mans[0]
	if *merge {
		var err error
		if man, err = vectors.MergeCoverage(mans); err != nil {
			return err
		}
	}
	if *format == "sv" || *format == "svcount" {
		cm, err := coverModel(man)
		if err != nil {
			return err
		}
		if *format == "svcount" {
			return cm.WriteSVCounters(env.Stdout)
		}
		return cm.WriteSV(env.Stdout)
	}
	var rep *coverage.Report
	binary := false
	for _, m := range mans {
		binary = binary || m.IsBinary()
	}
	if binary && *minCov > 0 {
		return errors.New("--min-coverage: the set holds binary records, and the functional coverage model reads hex sets (generate one without --format bin)")
	}
	if *functional && man.Module == nil && !binary {
		cm, err := coverModel(man)
		if err != nil {
			return err
		}
		total, totalObs := cm.NewCounts(), cm.NewCounts()
		for i, dir := range fs.Args() {
			if err := checkGoldenSet(dir); err != nil {
				return err
			}
			vm, err := registry.Open(mans[i].Model, mans[i].Config)
			if err != nil {
				return fmt.Errorf("%s: %w", dir, err)
			}
			v, _, err := grade.ReadDir(dir, vm.Input(), vm.Output())
			if err != nil {
				return err
			}
			var c, oc *coverage.Counts
			if *observed {
				c, oc, err = cm.RunObserved(env.context(), v, *workers)
			} else {
				c, err = cm.Run(env.context(), v, *workers)
			}
			if err != nil {
				return err
			}
			total.Add(c)
			if oc != nil {
				totalObs.Add(oc)
			}
		}
		rep = cm.Report(total, fs.Args())
		if err := rep.Contradicted(); err != nil {
			return err
		}
		if *observed {
			if err := rep.AddObserved(cm, totalObs); err != nil {
				return err
			}
		}
	}
	var err error
	switch *format {
	case "text":
		if err = vectors.WriteCoverage(env.Stdout, man); err == nil && rep != nil {
			fmt.Fprintln(env.Stdout)
			err = rep.WriteText(env.Stdout, *holes)
		} else if err == nil && binary && *functional {
			_, err = fmt.Fprintln(env.Stdout, "functional coverage: not sampled (binary records; the model reads hex sets)")
		}
	case "json":
		cj := vectors.CoverageJSONOf(man)
		if rep != nil {
			var b strings.Builder
			if err := rep.WriteJSON(&b); err != nil {
				return err
			}
			cj.Functional = []byte(strings.TrimSpace(b.String()))
		}
		js, jerr := json.MarshalIndent(cj, "", "  ")
		if jerr != nil {
			return jerr
		}
		_, err = env.Stdout.Write(append(js, '\n'))
	case "csv":
		if err = vectors.WriteCoverageCSV(env.Stdout, man); err == nil && rep != nil {
			err = rep.WriteCSVRows(env.Stdout)
		}
	}
	if err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	if rep != nil && rep.Summary.Percent < *minCov {
		return fmt.Errorf("%w: functional coverage %.2f%% (%d of %d reachable bins) is below --min-coverage %.2f%%",
			ErrFailed, rep.Summary.Percent, rep.Summary.Hit, rep.Summary.Reachable, *minCov)
	}
	return nil
}

// coverModel builds the functional coverage model of a set's manifest.
func coverModel(man *vectors.Manifest) (*coverage.Model, error) {
	if man.Module != nil {
		return nil, fmt.Errorf("model %s: a module stream set has no functional coverage model (hpcc_update and ldcp_update sets have one)", man.Model)
	}
	vm, err := registry.Open(man.Model, man.Config)
	if err != nil {
		return nil, err
	}
	return coverage.ForModel(vm)
}

// checkSpace refuses a set whose estimated size est does not fit the free
// space of the file system that holds dir (statfs; skipped where unknown).
func checkSpace(dir string, est vectors.SizeEstimate) error {
	free, ok := diskFree(dir)
	if !ok || uint64(est.Bytes) <= free {
		return nil
	}
	return fmt.Errorf("--count: the set needs about %s (%d vectors x %d bytes), but the file system of %s has %s free",
		humanBytes(uint64(est.Bytes)), est.Vectors, est.BytesPerVector, dir, humanBytes(free))
}

// humanBytes prints n bytes with a binary unit (1.5 GiB).
func humanBytes(n uint64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := uint64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// vectorModel returns the vector model of datapath cc ("" or "hpcc":
// HPCC++ hpcc_update; "ldcp": LDCP ldcp_update; "guard": the telemetry
// integrity guard int_guard, docs/guard.md) built from configFile (the
// default configuration when empty).
func vectorModel(cc, configFile string) (vectors.Model, error) {
	switch cc {
	case "", "hpcc":
		cfg, err := loadHPCCConfig(configFile)
		if err != nil {
			return nil, err
		}
		return vectors.NewHPCC(cfg)
	case "ldcp":
		cfg, err := loadLDCPConfig(configFile)
		if err != nil {
			return nil, err
		}
		return ldcpvec.New(cfg)
	case "guard":
		cfg, err := loadGuardConfig(configFile)
		if err != nil {
			return nil, err
		}
		return guardvec.New(cfg)
	}
	return nil, fmt.Errorf("--cc=%q: want hpcc, ldcp or guard (hpcc-rx only with --from-sim)", cc)
}

func runVectorsShow(env *Env) error {
	fs := newFlagSet(env, "vectors show", "vectors show DIR --index K")
	index := fs.Int64("index", -1, "global index of the vector (as vectors check reports it)")
	if err := fs.Parse(reorderFlags(env.Args, "index")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want exactly one directory")
	}
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == "index" })
	if !set {
		return errors.New("--index is required")
	}
	if *index < 0 {
		return fmt.Errorf("--index=%d: must be >= 0", *index)
	}
	v, err := vectors.Show(fs.Arg(0), *index)
	if err != nil {
		return err
	}
	return v.Write(env.Stdout)
}

// reorderFlags moves the flags named (each with its value, "--name V" or
// "--name=V") in front of the positional arguments, so that "DIR --index K"
// parses as the usage shows it.
func reorderFlags(args []string, names ...string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		matched := false
		for _, n := range names {
			if a == "-"+n || a == "--"+n {
				flags = append(flags, a)
				if i+1 < len(args) {
					flags = append(flags, args[i+1])
					i++
				}
				matched = true
			} else if strings.HasPrefix(a, "-"+n+"=") || strings.HasPrefix(a, "--"+n+"=") {
				flags = append(flags, a)
				matched = true
			}
		}
		if !matched {
			rest = append(rest, a)
		}
	}
	return append(flags, rest...)
}

// runVectorsModule implements vectors gen --design module: the three
// hpcc_module stream kinds as a stream set (cosim.WriteModuleSet).
func runVectorsModule(env *Env, set map[string]bool, configFile string, seed uint64, flowBits, stages, events int, out string) error {
	for _, f := range []string{"cc", "from-sim", "model", "level", "count", "shard", "class", "jsonl", "no-jsonl", "workers"} {
		if set[f] {
			return fmt.Errorf("--%s does not apply to --design module (a stream set of hpcc_module events)", f)
		}
	}
	if err := inRange("flow-bits", int64(flowBits), 1, 16); err != nil {
		return err
	}
	if err := inRange("stages", int64(stages), 1, 16); err != nil {
		return err
	}
	if err := inRange("events", int64(events), 1, cosim.MaxModuleEvents); err != nil {
		return err
	}
	cfg, err := loadHPCCConfig(configFile)
	if err != nil {
		return err
	}
	opts := cosim.ModuleOptions{FlowBits: flowBits, Events: events, Seed: int64(seed),
		Kinds: []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}}
	opts.Config, opts.Stages = cfg, stages
	man, err := cosim.WriteModuleSet(env.context(), out, opts)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.Stdout, "wrote %d hpcc_module events (%d flows, %d update stages; %d stall cycles predicted back to back) to %s\n",
		man.Count, 1<<uint(flowBits), stages, man.Module.WantStalls, out)
	return err
}
