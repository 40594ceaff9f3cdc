package scenario

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/nicmodel"
)

// digestDir returns "path sha256" lines of every file Result.Write put in
// dir (hidden files aside), in walk order.
func digestDir(t *testing.T, dir string) []string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(b)
		lines = append(lines, filepath.ToSlash(rel)+" "+hex.EncodeToString(sum[:]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// resultDigest writes r and returns the digests of its files and its
// summary table.
func resultDigest(t *testing.T, r *Result) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := r.Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := r.WriteSummary(&b); err != nil {
		t.Fatal(err)
	}
	return strings.Join(digestDir(t, dir), "\n") + "\n" + b.String()
}

// sweep is a set of independent runs: the small incast under every
// congestion control and model, and a sweep of its flow size.
func sweep(t *testing.T) []Config {
	var cs []Config
	for _, cc := range CCs {
		c := small(t)
		c.CC = cc
		cs = append(cs, c)
	}
	c := small(t)
	c.Model = nicmodel.Float
	cs = append(cs, c)
	for _, kb := range []uint64{20, 35, 80} {
		c := small(t)
		c.Traffic.Incast[0].Bytes = kb * 1000
		c.Name = fmt.Sprintf("small-%dKB", kb)
		cs = append(cs, c)
	}
	return cs
}

// Runs in parallel are byte-identical to the same runs one after another
// (oracle: Run on each Config alone): every file Result.Write produces and
// the summary table, for 2 and more workers than runs, results in the
// order given.
func TestRunParallelMatchesSequential(t *testing.T) {
	cs := sweep(t)
	want := make([]string, len(cs))
	for i, c := range cs {
		r, err := Run(context.Background(), c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want[i] = resultDigest(t, r)
	}
	for _, w := range []int{2, 16} {
		calls := 0
		rs, err := RunParallel(context.Background(), cs, ParallelOptions{Workers: w,
			OnProgress: func(i int, p Progress) { calls++ }})
		if err != nil {
			t.Fatalf("workers=%d: %v", w, err)
		}
		if len(rs) != len(cs) {
			t.Fatalf("workers=%d: %d results for %d runs", w, len(rs), len(cs))
		}
		for i, r := range rs {
			if got := resultDigest(t, r); got != want[i] {
				t.Errorf("workers=%d: run %d (%s cc=%s) differs from the sequential run:\n%s\nwant\n%s", w, i, cs[i].Name, cs[i].CC, got, want[i])
			}
		}
		if calls < len(cs) {
			t.Errorf("workers=%d: %d progress calls, want at least one per run (%d)", w, calls, len(cs))
		}
	}
}

// RunParallel refuses an invalid configuration before running anything
// (the lowest index is named), a negative worker count, and reports a
// cancelled context as ErrInterrupted.
func TestRunParallelErrors(t *testing.T) {
	cs := sweep(t)
	cs[3].HPCC.Eta = 1.5
	cs[5].HPCC.Eta = 2
	_, err := RunParallel(context.Background(), cs, ParallelOptions{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "run 3") || !strings.Contains(err.Error(), "hpcc.eta=1.5") {
		t.Errorf("invalid config: err = %v, want run 3 and hpcc.eta=1.5 named", err)
	}
	if _, err := RunParallel(context.Background(), sweep(t), ParallelOptions{Workers: -1}); err == nil || !strings.Contains(err.Error(), "workers=-1") {
		t.Errorf("workers=-1: err = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := RunParallel(ctx, sweep(t), ParallelOptions{Workers: 2}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled: err = %v, want ErrInterrupted", err)
	}
}
