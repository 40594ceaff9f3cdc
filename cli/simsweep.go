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

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/scenario/sweep"
	"github.com/hpccgold/hpccgold/vectors"
)

// Artefact kinds of sweep output directories.
const (
	simSweepKind      = "sim-sweep"
	simSweepShardKind = "sim-sweep-shard"
)

// simSweepOpts are sim's sweep flags.
type simSweepOpts struct {
	spec, shard string
	workers     int
}

func simSweepFlags(fs *flag.FlagSet) *simSweepOpts {
	o := &simSweepOpts{}
	fs.StringVar(&o.spec, "sweep", "", "run a sweep spec (a scenario and a grid of configuration keys and values; docs/scenarios.md) instead of one scenario")
	fs.StringVar(&o.shard, "shard", "", "with --sweep: run only slice i/n of the points (0 <= i < n) and write shard.json for sim merge")
	fs.IntVar(&o.workers, "workers", 0, "with --sweep: runs at a time (0: one per CPU); the outputs do not depend on it")
	return o
}

// runSimSweep implements `sim --sweep SPEC --out DIR [--shard i/n]`: every
// point (or the shard's slice) runs, its data files go to points/NNNN/, and
// the sweep's table (sweep.Report) or, for a shard, shard.json. A sweep in
// which a point's flows did not complete exits 1 after writing; a shard
// exits 0 once written (the merge judges the whole sweep).
func runSimSweep(env *Env, fs *flag.FlagSet, o *simSweepOpts, out string) error {
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "scenario", "cc", "model", "config", "trace-hosts", "print-config", "list":
			clash = append(clash, "--"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("%s: not with --sweep (the spec names the scenario, its base overlay and the swept keys)", strings.Join(clash, ", "))
	}
	if out == "" {
		return errors.New("--sweep needs --out")
	}
	if err := inRange("workers", int64(o.workers), 0, int64(vectors.MaxWorkers())); err != nil {
		return err
	}
	data, err := os.ReadFile(o.spec)
	if err != nil {
		return err
	}
	spec, err := sweep.LoadSpec(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: %w", o.spec, err)
	}
	pts, err := spec.Expand()
	if err != nil {
		return fmt.Errorf("%s: %w", o.spec, err)
	}
	var sh *vectors.Shard
	sel := pts
	if o.shard != "" {
		s, err := vectors.ParseShard(o.shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		first, last := s.Range(int64(len(pts)))
		if first == last {
			return fmt.Errorf("--shard=%s: the sweep has %d points, so this shard holds none: want n <= %d", o.shard, len(pts), len(pts))
		}
		sh, sel = &s, pts[first:last]
	}
	kind := simSweepKind
	if sh != nil {
		kind = simSweepShardKind
	}
	aw, err := artefact.Create(out, kind)
	if err != nil {
		return err
	}
	defer aw.Close()
	ctx := env.context()
	recs, files, err := sweep.Run(ctx, sel, o.workers, nil)
	if err != nil {
		return err
	}
	for i, fs := range files {
		for _, f := range fs {
			if err := aw.WriteFile(sweep.PointDir(sel[i].Index)+"/"+f.Name, f.Data); err != nil {
				return err
			}
		}
	}
	var own []sweep.File
	if sh != nil {
		b, err := sweep.EncodeShard(spec, *sh, len(pts), recs)
		if err != nil {
			return err
		}
		own = []sweep.File{{Name: sweep.ShardFile, Data: b}}
	} else if own, err = sweep.Report(spec, recs); err != nil {
		return err
	}
	for _, f := range own {
		if err := aw.WriteFile(f.Name, f.Data); err != nil {
			return err
		}
	}
	if err := aw.Commit(ctx); err != nil {
		return err
	}
	if sh != nil {
		fmt.Fprintf(env.Stdout, "sweep %s: shard %d/%d, points %d..%d of %d written to %s; combine every shard with: hpccgold sim merge --out DIR SHARD_DIR...\n",
			spec.Name, sh.Index, sh.Count, sel[0].Index, sel[len(sel)-1].Index, len(pts), out)
		return nil
	}
	return simSweepDone(env, own, len(pts), out, recs)
}

// simSweepDone prints points.txt and where the files went, and judges the
// sweep: exit 1 when a point's flows did not complete.
func simSweepDone(env *Env, own []sweep.File, points int, out string, recs []sweep.Record) error {
	for _, f := range own {
		if f.Name == sweep.TableFile {
			if _, err := env.Stdout.Write(f.Data); err != nil {
				return fmt.Errorf("write stdout: %w", err)
			}
		}
	}
	if _, err := fmt.Fprintf(env.Stdout, "wrote %d points to %s (points.csv, points.txt, points/NNNN/, manifest.json)\n", points, out); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	if err := sweep.Failed(recs); err != nil {
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	return nil
}

// runSimMerge implements `sim merge --out DIR SHARD_DIR...`: the shard
// directories (each checked against its manifest) merged into the single
// sweep's directory, byte for byte (sweep.Merge for the records, the
// points' files copied from the shard that ran them).
func runSimMerge(env *Env) error {
	fs := newFlagSet(env, "sim merge", "sim merge --out DIR SHARD_DIR...")
	out := fs.String("out", "", "output directory of the merged sweep (required)")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	if fs.NArg() == 0 {
		return errors.New("missing SHARD_DIR: give the output directory of every shard (sim --sweep SPEC --shard i/n --out DIR)")
	}
	dirs := fs.Args()
	var data [][]byte
	for _, d := range dirs {
		rep, err := artefact.Verify(d)
		if err != nil {
			return err
		}
		if !rep.OK() {
			return fmt.Errorf("%s: %w: the shard directory does not match its manifest (hpccgold verify %s)", d, ErrFailed, d)
		}
		if rep.Kind != simSweepShardKind {
			return fmt.Errorf("%s: a %q directory, not a sim --sweep --shard output", d, rep.Kind)
		}
		b, err := os.ReadFile(filepath.Join(d, sweep.ShardFile))
		if err != nil {
			return fmt.Errorf("%s: not a sim --sweep --shard output: %w", d, err)
		}
		data = append(data, b)
	}
	spec, recs, order, err := sweep.Merge(dirs, data)
	if err != nil {
		return err
	}
	aw, err := artefact.Create(*out, simSweepKind)
	if err != nil {
		return err
	}
	defer aw.Close()
	for i, k := range order {
		lo, hi := vectors.Shard{Index: i, Count: len(order)}.Range(int64(len(recs)))
		if err := copyShardPoints(aw, dirs[k], int(lo), int(hi)); err != nil {
			return err
		}
	}
	own, err := sweep.Report(spec, recs)
	if err != nil {
		return err
	}
	for _, f := range own {
		if err := aw.WriteFile(f.Name, f.Data); err != nil {
			return err
		}
	}
	if err := aw.Commit(env.context()); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "sim merge: %d shards, %d points\n", len(dirs), len(recs))
	return simSweepDone(env, own, len(recs), *out, recs)
}

// copyShardPoints copies the point directories of a verified shard
// directory into aw, refusing any other file than shard.json and points
// [lo, hi), and a point of that range without files.
func copyShardPoints(aw *artefact.Writer, dir string, lo, hi int) error {
	files, err := artefact.List(dir)
	if err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, f := range files {
		if f.Name == sweep.ShardFile {
			continue
		}
		rest, ok := strings.CutPrefix(f.Name, "points/")
		num, _, ok2 := strings.Cut(rest, "/")
		k, err := strconv.Atoi(num)
		if !ok || !ok2 || err != nil || sweep.PointDir(k) != "points/"+num || k < lo || k >= hi {
			return fmt.Errorf("%s: %s: not a file of the shard's points %d..%d", dir, f.Name, lo, hi-1)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		if err != nil {
			return err
		}
		if err := aw.WriteFile(f.Name, b); err != nil {
			return err
		}
		seen[k] = true
	}
	for k := lo; k < hi; k++ {
		if !seen[k] {
			return fmt.Errorf("%s: point %d has no files (%s)", dir, k, sweep.PointDir(k))
		}
	}
	return nil
}
