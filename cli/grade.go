package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/registry"
)

// Files of a grade --out directory.
const (
	gradeJSONFile = "grade.json"
	gradeTextFile = "grade.txt"
)

const gradeUsage = `grade [--cc hpcc|ldcp] [--vectors DIR] [--config FILE] [--mutants N] [--seed S] [--out DIR] [--shard i/n] [--min-score PCT] [--workers N]
       grade merge [--out DIR] SHARD_DIR...

  (run)  mutation-grade a vector set; --shard i/n grades one slice of the mutant sample
         (its grade.json in --out is a shard for grade merge)
  merge  combine the --out directories of every shard of one grading into the report,
         text and exit status of the unsharded run`

// runGrade dispatches grade and grade merge.
func runGrade(env *Env) error {
	if len(env.Args) > 0 && env.Args[0] == "merge" {
		return runGradeMerge(env.sub(env.Args[1:]))
	}
	return runGradeRun(env)
}

func runGradeRun(env *Env) error {
	fs := newFlagSet(env, "grade", gradeUsage)
	cc := fs.String("cc", "", "datapath: hpcc (hpcc_update) or ldcp (ldcp_update); default: the vector set's model, else hpcc")
	vecDir := fs.String("vectors", "", "vector set to grade (stimulus.hex, expected.hex, manifest.json); default: the level-1 set generated in memory")
	configFile := fs.String("config", "", "configuration JSON of the generated set (HPCC++, or LDCP with --cc ldcp); default: the default configuration")
	level := fs.Int("level", 1, "generated set: 1 every directed corner class, 2 adds the bit-pattern classes")
	count := fs.Int64("count", 10000, "generated set: constrained-random vectors after the directed ones")
	vecSeed := fs.Uint64("vectors-seed", 1, "generated set: seed of its random vectors")
	mutants := fs.Int("mutants", 300, "mutants sampled from every single-point mutant of the description (0: all of them)")
	seed := fs.Uint64("seed", 1, "seed of the mutant sample and of the ROM entries mutated")
	out := fs.String("out", "", "write grade.json and grade.txt into this directory (an artefact directory)")
	shard := fs.String("shard", "", "grade only part i/n of the sample (0 <= i < n)")
	minScore := fs.Float64("min-score", 100*grade.DefaultMinScore, "goal for the mutation score, percent: exit 1 below it")
	workers := fs.Int("workers", 0, "parallel evaluators (0: one per CPU); the report does not depend on it")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if err := inRange("mutants", int64(*mutants), 0, 1<<20); err != nil {
		return err
	}
	if err := inRange("workers", int64(*workers), 0, int64(vectors.MaxWorkers())); err != nil {
		return err
	}
	if math.IsNaN(*minScore) || *minScore < 0 || *minScore > 100 {
		return fmt.Errorf("--min-score=%v: must be a percentage in [0,100]", *minScore)
	}
	opts := grade.Options{Mutants: *mutants, Seed: *seed, Workers: *workers}
	if *shard != "" {
		sh, err := vectors.ParseShard(*shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		opts.Shard = sh
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *vecDir != "" {
		for _, f := range []string{"config", "level", "count", "vectors-seed"} {
			if set[f] {
				return fmt.Errorf("--%s: applies to the generated set, not to --vectors (the set's manifest holds its configuration)", f)
			}
		}
	} else if *level != 1 && *level != 2 {
		return fmt.Errorf("--level=%d: must be 1 or 2", *level)
	} else if err := inRange("count", *count, 0, 1<<24); err != nil {
		return err
	}

	start := time.Now()
	m, v, hcfg, err := gradeTarget(*cc, *vecDir, *configFile, vectors.Options{Level: *level, Seed: *vecSeed, Count: *count, NoJSONL: true, Workers: *workers})
	if err != nil {
		return err
	}
	if hcfg != nil { // hpcc_update: the facts its configuration's range analysis proves
		if opts.Assume, err = grade.HPCCAssumptions(m, *hcfg); err != nil {
			return err
		}
	}
	aw, err := gradeOut(*out)
	if err != nil {
		return err
	}
	if aw != nil {
		defer aw.Close()
	}
	rep, err := grade.Grade(env.context(), m, v, opts, *minScore/100)
	if err != nil {
		return err
	}
	if err := writeGradeReport(env, rep, aw); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "graded %d mutants over %d vectors in %.1fs\n", rep.Mutants, rep.Vectors, time.Since(start).Seconds())
	if opts.Shard.Count > 1 {
		// A shard's score is of its slice only: the grading's verdict (and
		// exit status) is grade merge's, so a batch engine runs the merge
		// after every shard that computed its slice.
		fmt.Fprintf(env.Stderr, "shard %s of the sample (the verdict is grade merge's); combine every shard's --out with: hpccgold grade merge --out DIR SHARD_DIR...\n", rep.Shard)
		return nil
	}
	return gradeVerdict(rep)
}

// gradeOut opens the --out directory (nil when out is empty), so that a
// busy or foreign directory is refused before any work.
func gradeOut(out string) (*artefact.Writer, error) {
	if out == "" {
		return nil, nil
	}
	return artefact.Create(out, "grade")
}

// writeGradeReport writes rep's text to stdout and, with aw set, grade.json
// and grade.txt into aw's directory.
func writeGradeReport(env *Env, rep *grade.Report, aw *artefact.Writer) error {
	var text strings.Builder
	if err := rep.WriteText(&text); err != nil {
		return err
	}
	if aw != nil {
		js, err := rep.JSON()
		if err != nil {
			return err
		}
		if err := aw.WriteFile(gradeJSONFile, js); err != nil {
			return err
		}
		if err := aw.WriteFile(gradeTextFile, []byte(text.String())); err != nil {
			return err
		}
		if err := aw.Commit(env.context()); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprint(env.Stdout, text.String()); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}

// gradeVerdict is the exit status of a report: ErrFailed below the goal.
func gradeVerdict(rep *grade.Report) error {
	if err := rep.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return nil
}

// runGradeMerge implements `grade merge`: the --out directories of every
// shard of one grading (each checked against its manifest) merged into the
// unsharded run's report (grade.Merge), printed, written to --out and
// judged as the unsharded run is (exit 1 below the goal).
func runGradeMerge(env *Env) error {
	fs := newFlagSet(env, "grade merge", "grade merge [--out DIR] SHARD_DIR...")
	out := fs.String("out", "", "write the merged grade.json and grade.txt into this directory (an artefact directory)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("missing SHARD_DIR: give the --out directory of every shard (grade --shard i/n --out DIR)")
	}
	var names []string
	var reps []*grade.Report
	for _, d := range fs.Args() {
		vr, err := artefact.Verify(d)
		if err != nil {
			return err
		}
		if !vr.OK() {
			return fmt.Errorf("%s: %w: the shard directory does not match its manifest (hpccgold verify %s)", d, ErrFailed, d)
		}
		if vr.Kind != "grade" {
			return fmt.Errorf("%s: a %q directory, not a grade --out directory", d, vr.Kind)
		}
		b, err := os.ReadFile(filepath.Join(d, gradeJSONFile))
		if err != nil {
			return fmt.Errorf("%s: not a grade --out directory: %w", d, err)
		}
		rep, err := grade.ParseReport(b)
		if err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
		names = append(names, d)
		reps = append(reps, rep)
	}
	rep, err := grade.Merge(names, reps)
	if err != nil {
		return err
	}
	aw, err := gradeOut(*out)
	if err != nil {
		return err
	}
	if aw != nil {
		defer aw.Close()
	}
	if err := writeGradeReport(env, rep, aw); err != nil {
		return err
	}
	fmt.Fprintf(env.Stderr, "grade merge: %d shards, %d mutants\n", len(names), rep.Mutants)
	return gradeVerdict(rep)
}

// gradeTarget returns the combinational update to grade and its vector
// set: read from vecDir (configuration from its manifest) or generated in
// memory with opts from the configuration file.
func gradeTarget(cc, vecDir, configFile string, opts vectors.Options) (*rtl.Module, *grade.Vectors, *hpcc.Config, error) {
	if vecDir == "" {
		if cc == "" {
			cc = "hpcc"
		}
		if err := parseCC(cc); err != nil {
			return nil, nil, nil, err
		}
		var m *rtl.Module
		var model vectors.Model
		var hc *hpcc.Config
		if cc == "ldcp" {
			cfg, err := loadLDCPConfig(configFile)
			if err != nil {
				return nil, nil, nil, err
			}
			if m, err = ldcprtl.UpdateComb(cfg); err != nil {
				return nil, nil, nil, err
			}
			if model, err = ldcpvec.New(cfg); err != nil {
				return nil, nil, nil, err
			}
		} else {
			cfg, err := loadHPCCConfig(configFile)
			if err != nil {
				return nil, nil, nil, err
			}
			hc = &cfg
			if m, err = hpccrtl.UpdateComb(cfg); err != nil {
				return nil, nil, nil, err
			}
			if model, err = vectors.NewHPCC(cfg); err != nil {
				return nil, nil, nil, err
			}
		}
		set, err := vectors.Generate(model, opts)
		if err != nil {
			return nil, nil, nil, err
		}
		src := fmt.Sprintf("generated: level %d, seed %d, %d random", opts.Level, opts.Seed, opts.Count)
		return m, grade.FromSet(set, src), hc, nil
	}
	if err := checkGoldenSet(vecDir); err != nil {
		return nil, nil, nil, err
	}
	man, err := vectors.ReadManifest(vecDir)
	if err != nil {
		return nil, nil, nil, err
	}
	if man.IsBinary() {
		return nil, nil, nil, fmt.Errorf("--vectors %s: binary records (%s); grade reads hex sets: generate one without --format bin", vecDir, vectors.StimulusBinFile)
	}
	want := "hpcc"
	if man.Model == ldcprtl.UpdateName {
		want = "ldcp"
	}
	if cc != "" && cc != want {
		if err := parseCC(cc); err != nil {
			return nil, nil, nil, err
		}
		return nil, nil, nil, fmt.Errorf("--cc=%s: the set %s holds model %s", cc, vecDir, man.Model)
	}
	model, err := registry.Open(man.Model, man.Config)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("--vectors %s: %w", vecDir, err)
	}
	m, err := registry.Comb(model)
	if err != nil {
		return nil, nil, nil, err
	}
	var hc *hpcc.Config
	if c, ok := model.Config().(hpcc.Config); ok {
		hc = &c
	}
	v, _, err := grade.ReadDir(vecDir, model.Input(), model.Output())
	if err != nil {
		return nil, nil, nil, err
	}
	if v.Len() == 0 {
		return nil, nil, nil, errors.New("--vectors " + vecDir + ": the set holds no vector")
	}
	return m, v, hc, nil
}
