package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hpccgold/hpccgold/vectors/registry"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/hpccgold/hpccgold/artefact"
)

// runVerify checks any output directory hpccgold wrote (vector set, sim,
// compare, demo, emitted RTL or LLVM IR): every file against the manifest's
// size and SHA-256, files the manifest does not list, and, for every vector
// set in the tree, what `vectors verify` checks (the model re-run).
func runVerify(env *Env) error {
	fs := newFlagSet(env, "verify", "verify DIR")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want exactly one directory")
	}
	dir := fs.Arg(0)
	// As for vectors verify: a directory with no manifest is not an output
	// to check (exit 2); everything wrong inside one is a problem (exit 1).
	if _, err := os.Stat(filepath.Join(dir, artefact.ManifestFile)); errors.Is(err, os.ErrNotExist) {
		if st, serr := os.Stat(dir); serr == nil && st.IsDir() {
			return fmt.Errorf("%s holds no %s: not an hpccgold output, or one whose run was interrupted", dir, artefact.ManifestFile)
		}
	}
	rep, err := artefact.Verify(dir)
	if err != nil {
		return err
	}
	problems := len(rep.Problems)
	// A failed write does not decide the verdict: problems are exit 1
	// whether or not printing them worked (Run reports the write).
	werr := rep.Write(env.Stdout)
	if rep.OK() {
		sets, err := vectorSets(dir)
		if err != nil {
			return err
		}
		for _, set := range sets {
			vr, err := registry.Verify(set)
			if err != nil {
				return err
			}
			if err := vr.Write(env.Stdout); err != nil && werr == nil {
				werr = err
			}
			problems += len(vr.Problems)
		}
	}
	if problems > 0 {
		return fmt.Errorf("%w: %d problems", ErrFailed, problems)
	}
	return werr
}

// vectorSets returns dir and every directory under it whose manifest.json
// is a vector set's (it records a shard and coverage), in name order.
func vectorSets(dir string) ([]string, error) {
	var sets []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(p, artefact.ManifestFile))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) != nil {
			return nil // the generic check reports a damaged manifest
		}
		_, shard := m["shard"]
		_, cov := m["coverage"]
		if shard && cov {
			sets = append(sets, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	sort.Strings(sets)
	return sets, nil
}
