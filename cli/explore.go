package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/explore"
	"github.com/hpccgold/hpccgold/explore/plan"
	"github.com/hpccgold/hpccgold/scenario/sweep"
	"github.com/hpccgold/hpccgold/verilog"
)

const exploreUsage = `explore SPEC|--example --out DIR [--shard i/n] [--cache DIR]
       explore merge --out DIR SHARD_DIR...
       explore plan --engine kubernetes|slurm SPEC|--example --shards N --out DIR [flags]

  (run)  expand a sweep spec (docs/explore.md) into points and measure each: Yosys
         area/timing of hpcc_update, W error against the float reference, network
         metrics of the spec's scenarios against float; writes points.csv,
         points.json, front.txt (Pareto front) and plots; --shard i/n computes one
         slice (shard.json) for explore merge
  merge  combine the outputs of every shard of one sweep into the single run's result
  plan   write the batch job that runs the shards and the merge (Kubernetes Indexed
         Job or Slurm array); --command sim or grade plans a sim --sweep or a grade
         run's shards the same way`

// runExplore dispatches explore, explore merge and explore plan.
func runExplore(env *Env) error {
	if len(env.Args) > 0 {
		switch env.Args[0] {
		case "merge":
			return runExploreMerge(env.sub(env.Args[1:]))
		case "plan":
			return runExplorePlan(env.sub(env.Args[1:]))
		}
	}
	return runExploreSweep(env)
}

// parseWithSpec parses flags with one optional positional SPEC anywhere
// among them; a second positional argument is an error.
func parseWithSpec(fs *flag.FlagSet, args []string) (string, error) {
	var spec string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			return spec, nil
		}
		if spec != "" {
			return "", fmt.Errorf("unexpected argument %q", strings.Join(fs.Args(), " "))
		}
		spec, args = fs.Arg(0), fs.Args()[1:]
	}
}

// loadExploreSpec reads the spec file, or the built-in example.
func loadExploreSpec(path string, example bool) (explore.Spec, []byte, error) {
	switch {
	case path != "" && example:
		return explore.Spec{}, nil, errors.New("give a spec file or --example, not both")
	case example:
		data := explore.ExampleSpecJSON()
		s, err := explore.LoadSpec(bytes.NewReader(data))
		return s, data, err
	case path == "":
		return explore.Spec{}, nil, errors.New("missing SPEC (a sweep spec file, docs/explore.md) or --example")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return explore.Spec{}, nil, err
	}
	s, err := explore.LoadSpec(bytes.NewReader(data))
	if err != nil {
		return explore.Spec{}, nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, data, nil
}

func runExploreSweep(env *Env) error {
	fs := newFlagSet(env, "explore", exploreUsage)
	out := fs.String("out", "", "output directory (required)")
	shardFlag := fs.String("shard", "", "compute only slice i/n of the points (0 <= i < n) and write shard.json for explore merge")
	cache := fs.String("cache", "", "cache of syntheses and scenario runs (default: OUT/.hpccgold-cache, kept across runs)")
	example := fs.Bool("example", false, "run the built-in example sweep (docs/explore.md)")
	printSpec := fs.Bool("print-spec", false, "print the spec with every default filled in and the point count, and exit")
	specPath, err := parseWithSpec(fs, env.Args)
	if err != nil {
		return err
	}
	spec, _, err := loadExploreSpec(specPath, *example)
	if err != nil {
		return err
	}
	pts, err := spec.Expand()
	if err != nil {
		return err
	}
	if *printSpec {
		b, err := spec.JSON()
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "%s%d points\n", b, len(pts))
		return nil
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	var sh *explore.Shard
	if *shardFlag != "" {
		s, err := explore.ParseShard(*shardFlag)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		if first, last := s.Range(len(pts)); first == last {
			return fmt.Errorf("--shard=%s: the sweep has %d points, so this shard holds none: want n <= %d", s, len(pts), len(pts))
		}
		sh = &s
	}
	tools := verilog.LookupTools()
	if spec.Synth == explore.SynthYosys {
		if err := tools.Need(verilog.FlowSynth); err != nil {
			return fmt.Errorf("spec synth=yosys: %w (or set \"synth\": \"none\" in the spec)", err)
		}
	}
	kind := "explore"
	if sh != nil {
		kind = "explore-shard"
	}
	aw, err := artefact.Create(*out, kind)
	if err != nil {
		return err
	}
	defer aw.Close()
	ev := &explore.Evaluator{Spec: spec, Tools: tools, CacheDir: *cache}
	if ev.CacheDir == "" {
		if ev.CacheDir, err = aw.Cache(); err != nil {
			return err
		}
	}
	sel := pts
	if sh != nil {
		first, last := sh.Range(len(pts))
		sel = pts[first:last]
	}
	ctx := env.context()
	start := time.Now()
	last := start
	recs, err := explore.Sweep(ctx, ev, sel, func(r explore.Record, done int) {
		now := time.Now()
		state := "valid"
		if !r.Valid {
			state = "invalid: " + r.Invalid
		}
		fmt.Fprintf(env.Stderr, "explore: point %d (%d of %d) %.1f s: %s\n", r.Index, done, len(sel), now.Sub(last).Seconds(), state)
		last = now
	})
	if err != nil {
		return err
	}
	var files []explore.File
	if sh != nil {
		b, err := explore.EncodeShard(spec, *sh, len(pts), recs)
		if err != nil {
			return err
		}
		files = []explore.File{{Name: explore.ShardFile, Data: b}}
	} else if files, err = explore.Report(spec, recs); err != nil {
		return err
	}
	if err := writeExploreFiles(aw, files); err != nil {
		return err
	}
	if err := aw.Commit(ctx); err != nil {
		return err
	}
	st := ev.Stats
	fmt.Fprintf(env.Stdout, "explore %s: %d of %d points in %.1f s wall (syntheses %d run, %d cached; scenario runs %d run, %d cached)\n",
		spec.Name, len(recs), len(pts), time.Since(start).Seconds(), st.SynthRun, st.SynthCached, st.SimRun, st.SimCached)
	if sh != nil {
		fmt.Fprintf(env.Stdout, "shard %s written to %s; combine every shard with: hpccgold explore merge --out DIR SHARD_DIR...\n", sh, *out)
		return nil
	}
	return printFront(env, *out, files)
}

// writeExploreFiles stages files in the writer.
func writeExploreFiles(aw *artefact.Writer, files []explore.File) error {
	for _, f := range files {
		if err := aw.WriteFile(f.Name, f.Data); err != nil {
			return err
		}
	}
	return nil
}

// printFront prints front.txt and where the files went.
func printFront(env *Env, out string, files []explore.File) error {
	for _, f := range files {
		if f.Name == "front.txt" {
			if _, err := env.Stdout.Write(f.Data); err != nil {
				return err
			}
		}
	}
	fmt.Fprintf(env.Stdout, "wrote %d files to %s (manifest.json lists them)\n", len(files)+1, out)
	return nil
}

func runExploreMerge(env *Env) error {
	fs := newFlagSet(env, "explore merge", "explore merge --out DIR SHARD_DIR...")
	out := fs.String("out", "", "output directory of the merged result (required)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if fs.NArg() == 0 {
		return errors.New("missing SHARD_DIR: give the output directory of every shard")
	}
	var names []string
	var data [][]byte
	for _, d := range fs.Args() {
		rep, err := artefact.Verify(d)
		if err != nil {
			return err
		}
		if !rep.OK() {
			return fmt.Errorf("%s: %w: the shard directory does not match its manifest (hpccgold verify %s)", d, ErrFailed, d)
		}
		if rep.Kind != "explore-shard" {
			return fmt.Errorf("%s: a %q directory, not an explore --shard output", d, rep.Kind)
		}
		b, err := os.ReadFile(filepath.Join(d, explore.ShardFile))
		if err != nil {
			return fmt.Errorf("%s: not an explore --shard output: %w", d, err)
		}
		names = append(names, d)
		data = append(data, b)
	}
	spec, recs, err := explore.Merge(names, data)
	if err != nil {
		return err
	}
	files, err := explore.Report(spec, recs)
	if err != nil {
		return err
	}
	aw, err := artefact.Create(*out, "explore")
	if err != nil {
		return err
	}
	defer aw.Close()
	if err := writeExploreFiles(aw, files); err != nil {
		return err
	}
	if err := aw.Commit(env.context()); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "explore merge: %d shards, %d points\n", len(names), len(recs))
	return printFront(env, *out, files)
}

func runExplorePlan(env *Env) error {
	fs := newFlagSet(env, "explore plan", "explore plan --engine kubernetes|slurm SPEC|--example --shards N --out DIR [--parallelism P] [--image IMAGE] [--results PATH] [--name NAME]\n"+
		"       explore plan --command sim SWEEP_SPEC ... | --command grade --grade-args 'FLAGS' ...")
	engine := fs.String("engine", "", "batch engine: kubernetes (Indexed Job) or slurm (job array) (required)")
	command := fs.String("command", "explore", "the sharded command: explore (SPEC: an explore spec), sim (SPEC: a sim --sweep spec) or grade (--grade-args)")
	gradeArgs := fs.String("grade-args", "", "--command grade: grade's flags, space-separated (no --shard, --out; --mutants N > 0 sets the point count, default 300)")
	example := fs.Bool("example", false, "plan the built-in example sweep")
	shards := fs.Int("shards", 0, "number of shards (required; at most the number of points)")
	par := fs.Int("parallelism", 0, "shards running at once (0: all)")
	out := fs.String("out", "", "output directory of the job files (required)")
	image := fs.String("image", plan.DefaultImage, "kubernetes: container image with hpccgold and its tools (deploy/Containerfile)")
	results := fs.String("results", "", "directory the shards and the merge write to, shared by every node (default: /results on kubernetes, ./explore-results on slurm)")
	claim := fs.String("claim", "hpccgold-results", "kubernetes: PersistentVolumeClaim (ReadWriteMany) mounted at --results")
	name := fs.String("name", "", "job name (default: hpccgold-explore-<spec name>)")
	specPath, err := parseWithSpec(fs, env.Args)
	if err != nil {
		return err
	}
	var data []byte
	var points int
	var args []string
	defName := ""
	switch *command {
	case "explore":
		spec, d, err := loadExploreSpec(specPath, *example)
		if err != nil {
			return err
		}
		pts, err := spec.Expand()
		if err != nil {
			return err
		}
		data, points, defName = d, len(pts), plan.JobName(spec.Name)
	case "sim":
		if *example || specPath == "" {
			return errors.New("--command sim: give a sim --sweep spec file (docs/scenarios.md)")
		}
		d, err := os.ReadFile(specPath)
		if err != nil {
			return err
		}
		spec, err := sweep.LoadSpec(bytes.NewReader(d))
		if err != nil {
			return fmt.Errorf("%s: %w", specPath, err)
		}
		if _, err := spec.Expand(); err != nil {
			return fmt.Errorf("%s: %w", specPath, err)
		}
		data, points, defName = d, spec.Count(), strings.Replace(plan.JobName(spec.Name), "-explore-", "-sim-", 1)
	case "grade":
		if *example || specPath != "" {
			return errors.New("--command grade: takes --grade-args, not a spec")
		}
		args = strings.Fields(*gradeArgs)
		points = 300
		for i, a := range args {
			v, ok := strings.CutPrefix(strings.TrimLeft(a, "-"), "mutants")
			if !ok || !strings.HasPrefix(a, "-") || (v != "" && v[0] != '=') {
				continue
			}
			if v == "" && i+1 < len(args) {
				v = args[i+1]
			}
			n, err := strconv.Atoi(strings.TrimPrefix(v, "="))
			if err != nil || n < 1 {
				return fmt.Errorf("--grade-args: --mutants %q: a plan needs a sample of N > 0 mutants", strings.TrimPrefix(v, "="))
			}
			points = n
		}
		defName = "hpccgold-grade"
	default:
		return fmt.Errorf("--command=%q: want explore, sim or grade", *command)
	}
	if *gradeArgs != "" && *command != "grade" {
		return errors.New("--grade-args: only with --command grade")
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if *shards < 1 || *shards > points {
		return fmt.Errorf("--shards=%d: must be in [1,%d] (the sweep's points)", *shards, points)
	}
	if *par < 0 || *par > *shards {
		return fmt.Errorf("--parallelism=%d: must be in [0,%d] (0: all shards at once)", *par, *shards)
	}
	opts := plan.Options{Name: *name, Command: *command, Args: args, SpecJSON: data, Shards: *shards, Parallelism: *par, Image: *image, Results: *results, Claim: *claim, Points: points}
	if opts.Name == "" {
		opts.Name = defName
	}
	var files []plan.File
	switch *engine {
	case "kubernetes":
		files, err = plan.Kubernetes(opts)
	case "slurm":
		files, err = plan.Slurm(opts)
	default:
		return fmt.Errorf("--engine=%q: want kubernetes or slurm", *engine)
	}
	if err != nil {
		return err
	}
	aw, err := artefact.Create(*out, "explore-plan")
	if err != nil {
		return err
	}
	defer aw.Close()
	for _, f := range files {
		if err := aw.WriteFile(f.Name, f.Data); err != nil {
			return err
		}
	}
	if err := aw.Commit(env.context()); err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(env.Stdout, filepath.Join(*out, f.Name))
	}
	fmt.Fprintf(env.Stdout, "%s plan of %s: %d points in %d shards; run %s\n", *engine, *command, points, *shards, filepath.Join(*out, plan.RunScript(*engine)))
	return nil
}
