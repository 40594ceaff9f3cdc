package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// workersCase is a configuration run with several partitions and the hosts
// whose NICs trace.
type workersCase struct {
	name  string
	cfg   Config
	trace []int
}

// writeRun runs c with run.workers = workers and writes its output
// directory; it returns every file's bytes by relative path.
func writeRun(t *testing.T, c Config, workers int, trace []int) map[string][]byte {
	t.Helper()
	c.Run.Workers = workers
	r, err := Run(context.Background(), c, Options{TraceHosts: trace})
	if err != nil {
		t.Fatalf("workers=%d: %v", workers, err)
	}
	dir := t.TempDir()
	if _, err := r.Write(context.Background(), dir); err != nil {
		t.Fatalf("workers=%d: %v", workers, err)
	}
	files := map[string][]byte{}
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err // the lock file (pid, time) is not output
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles reports every file that differs between the one-engine run
// (want) and a partitioned one (got), is missing or is extra.
func sameFiles(t *testing.T, what string, want, got map[string][]byte) {
	t.Helper()
	var names []string
	for n := range want {
		names = append(names, n)
	}
	for n := range got {
		if _, ok := want[n]; !ok {
			t.Errorf("%s: %s written, not by the one-engine run", what, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		g, ok := got[n]
		switch {
		case !ok:
			t.Errorf("%s: %s not written", what, n)
		case !bytes.Equal(g, want[n]):
			t.Errorf("%s: %s differs from the one-engine run's", what, n)
		}
	}
}

// workersCases are every built-in scenario, cut short where long (a
// fixed duration, or fewer arrivals), run to completion where they are,
// the small incast under each congestion control with every NIC tracing,
// the probe study's configuration with probes, and the forged-INT study's
// replay under the guard. With short, only the small cases.
func workersCases(t *testing.T, short bool) []workersCase {
	t.Helper()
	var cs []workersCase
	for _, cc := range []string{"hpcc", "hpcc-rx", "ldcp", "dcqcn"} {
		c := small(t)
		if err := c.CC.UnmarshalText([]byte(cc)); err != nil {
			t.Fatal(err)
		}
		cs = append(cs, workersCase{"small incast, cc=" + cc, c, []int{0, 1, 2, 3, 4}})
	}
	ws, err := Lookup("websearch-30")
	if err != nil {
		t.Fatal(err)
	}
	ws.Traffic.Random.DurationNs = 100_000 // to completion
	cs = append(cs, workersCase{"websearch-30, 100 us of arrivals, to completion", ws, []int{3, 17}})
	if short {
		return cs
	}
	for _, name := range Names() {
		c, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasPrefix(name, "fattree-"):
			c.Traffic.Random.DurationNs = 30_000
			c.Run.DurationNs = 200_000
		case c.Traffic.Random != nil:
			c.Traffic.Random.DurationNs = 200_000
			c.Run.DurationNs = 400_000
		case c.Run.DurationNs > 600_000:
			// 200 us after the last flow's start, at least 600 us; when
			// that is beyond 2 ms, 600 us of the flows that start by
			// 400 us.
			last := uint64(0)
			for _, f := range c.Traffic.Flows {
				last = max(last, f.StartNs)
			}
			if end := max(600_000, last+200_000); end <= 2_000_000 {
				c.Run.DurationNs = min(c.Run.DurationNs, end)
				break
			}
			c.Run.DurationNs = 600_000
			c.Traffic.Flows = slices.DeleteFunc(slices.Clone(c.Traffic.Flows), func(f network.Flow) bool { return f.StartNs > 400_000 })
		}
		cs = append(cs, workersCase{name, c, nil})
	}
	pc := probeConfigs(t)
	cs = append(cs, workersCase{"probes (come-and-go with probes after T)", pc[len(pc)-1], []int{0}})
	fc, err := ForgeStudyConfig("replay", true)
	if err != nil {
		t.Fatal(err)
	}
	fc.Run.DurationNs = min(fc.Run.DurationNs, 600_000)
	cs = append(cs, workersCase{"forged-int replay, guard on", fc, nil})
	return cs
}

// TestWorkersIdentical is the parallel run's contract: every case written
// with run.workers 2 and 4 (the network split into partitions on their own
// engines and goroutines, frames crossing at window barriers) gives the
// same files, byte for byte, as the one-engine run (the oracle; workers 1
// is checked too, the same path as 0). It covers every built-in scenario
// (star, dumbbell, leaf-spine and fat-tree; QoS, MultiQ, sojourn, sampled
// INT), every congestion control, Rx-HPCC, probes, forged INT under the
// guard, NIC traces, and runs that end when their last flow completes (the
// partitioned stop). go test -race -short runs the small cases.
func TestWorkersIdentical(t *testing.T) {
	for _, c := range workersCases(t, testing.Short()) {
		t.Run(c.name, func(t *testing.T) {
			want := writeRun(t, c.cfg, 0, c.trace)
			for _, w := range []int{1, 2, 4} {
				sameFiles(t, c.name+", workers="+fmt.Sprint(w), want, writeRun(t, c.cfg, w, c.trace))
			}
		})
	}
}

// TestWorkersRefused: run.workers out of range is a field+value error, and
// the HPCC++ update capture, whose cross-host order partitions do not
// keep, is refused with more than one worker instead of diverging.
func TestWorkersRefused(t *testing.T) {
	for _, w := range []int{-1, MaxWorkers + 1} {
		c := small(t)
		c.Run.Workers = w
		err := c.Validate()
		if want := fmt.Sprintf("run.workers=%d:", w); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("workers=%d: Validate = %v, want a run.workers error", w, err)
		}
	}
	c := small(t)
	c.Run.Workers = 2
	_, err := Run(context.Background(), c, Options{OnHPCCUpdate: func(int, *nicmodel.HPCCUpdate) {}})
	if err == nil || !strings.Contains(err.Error(), "run.workers") {
		t.Errorf("workers=2 with OnHPCCUpdate: %v, want a run.workers error", err)
	}
}
