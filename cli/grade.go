package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
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

func runGrade(env *Env) error {
	fs := newFlagSet(env, "grade", "grade [--cc hpcc|ldcp] [--vectors DIR] [--config FILE] [--mutants N] [--seed S] [--out DIR] [--shard i/n] [--min-score PCT] [--workers N]")
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
	var aw *artefact.Writer
	if *out != "" {
		if aw, err = artefact.Create(*out, "grade"); err != nil {
			return err
		}
		defer aw.Close()
	}
	ctx := env.context()
	rep, err := grade.Grade(ctx, m, v, opts, *minScore/100)
	if err != nil {
		return err
	}
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
		if err := aw.Commit(ctx); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprint(env.Stdout, text.String()); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	fmt.Fprintf(env.Stderr, "graded %d mutants over %d vectors in %.1fs\n", rep.Mutants, rep.Vectors, time.Since(start).Seconds())
	if err := rep.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return nil
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
