package scenario

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hpccgold/hpccgold/artefact"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// small returns the demo incast shrunk to 50 KB per sender (a few ms of
// wall time).
func small(t *testing.T) Config {
	t.Helper()
	c, err := Lookup("demo-incast-4to1")
	if err != nil {
		t.Fatal(err)
	}
	c.Traffic.Incast[0].Bytes = 50_000
	return c
}

func readManifest(t *testing.T, dir string) manifest {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// Two runs of one scenario write byte-identical files (no timestamps,
// paths or map order in outputs): the manifests, which hold every file's
// SHA-256, are equal; every expected file is listed.
func TestOutputsDeterministic(t *testing.T) {
	var ms [2]manifest
	for i := range ms {
		r, err := Run(context.Background(), small(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if _, err := r.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		ms[i] = readManifest(t, dir)
	}
	if !reflect.DeepEqual(ms[0], ms[1]) {
		t.Errorf("manifests differ:\n%+v\n%+v", ms[0], ms[1])
	}
	var names []string
	for _, f := range ms[0].Files {
		names = append(names, f.Name)
	}
	for _, want := range []string{"config.json", "nic-config.json", "timeseries.csv", "flows.csv", "flow_series.csv", "summary.txt",
		"summary.json", "queue.png", "queue.svg", "utilization.png", "rates.svg", "windows.png", "fairness.png", "fct.svg"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("manifest lacks %s: %v", want, names)
		}
	}
}

// countdown is a context whose Err turns non-nil after n calls: it
// interrupts Write between two files deterministically.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	if c.n <= 0 {
		return context.Canceled
	}
	c.n--
	return nil
}

// An interrupted write leaves the directory as it was: empty (but for the
// lock file) when it was new, the earlier complete run, still verifying,
// when there was one; an interrupted run returns ErrInterrupted and writes
// nothing.
func TestInterrupt(t *testing.T) {
	r, err := Run(context.Background(), small(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 3, 9} {
		fresh := t.TempDir()
		if _, err := r.Write(&countdown{context.Background(), n}, fresh); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("n=%d: err = %v, want ErrInterrupted", n, err)
		}
		if ents, _ := os.ReadDir(fresh); len(ents) != 1 || ents[0].Name() != artefact.LockFile {
			t.Errorf("n=%d: a new directory holds %v after an interrupted write, want only %s", n, ents, artefact.LockFile)
		}

		earlier := t.TempDir()
		if _, err := r.Write(context.Background(), earlier); err != nil {
			t.Fatal(err)
		}
		before, err := artefact.HashTree(earlier)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Write(&countdown{context.Background(), n}, earlier); !errors.Is(err, ErrInterrupted) {
			t.Fatalf("n=%d: err = %v, want ErrInterrupted", n, err)
		}
		after, err := artefact.HashTree(earlier)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(before) != fmt.Sprint(after) {
			t.Errorf("n=%d: an interrupted write changed the earlier run", n)
		}
		if rep, err := artefact.Verify(earlier); err != nil || !rep.OK() {
			t.Errorf("n=%d: the earlier run no longer verifies: %v %+v", n, err, rep)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := small(t)
	c.Traffic.Incast[0].Bytes = 5_000_000
	if _, err := Run(ctx, c, Options{}); !errors.Is(err, ErrInterrupted) {
		t.Errorf("cancelled run: err = %v, want ErrInterrupted", err)
	}
}

// Bad inputs to a run: errors name the field and value.
func TestRunErrors(t *testing.T) {
	cases := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Network.Encoding = 1 }, "network.encoding=ifa: must equal hpcc.encoding=compact"},
		{func(c *Config) { c.Traffic.Incast[0].Receiver = 9 }, "traffic.incast[0].receiver=9"},
		{func(c *Config) { c.Traffic.Incast = nil }, "traffic: no flows"},
		{func(c *Config) { c.Topology.HostLink.Gbps = 30 }, "gbps=30"},
		{func(c *Config) { c.NIC.Overrides = []byte(`{"qps_typo": 3}`) }, `nic.overrides: key qps_typo: unknown field "qps_typo"`},
		{func(c *Config) { c.NIC.Overrides = []byte(`{"scheduler": {"gap_bits": 0}}`) }, "nic:"},
		{func(c *Config) {
			c.Traffic.Random = &network.RandomLoad{CDF: "no-such-cdf-file", Load: 0.3, DurationNs: 1000}
		}, "traffic.random.cdf"},
	}
	for _, k := range cases {
		c := small(t)
		k.mod(&c)
		_, err := Run(context.Background(), c, Options{})
		if err == nil || !strings.Contains(err.Error(), k.want) {
			t.Errorf("err = %v, want it to contain %q", err, k.want)
		}
	}
}

// Skipping idle cycles changes nothing: the demo incast (50 KB per
// sender) and a two-hop leaf-spine run give identical flows, time series
// and summaries with the engine ticking every component in every cycle,
// and no component makes progress in a cycle it was not due in
// (engine.Stats.UnexpectedProgress = 0).
func TestSkipEquivalence(t *testing.T) {
	ls, err := Lookup("seeds-incast-2to1")
	if err != nil {
		t.Fatal(err)
	}
	ls.Run.DurationNs = 60_000
	for _, c := range []Config{small(t), ls} {
		a, err := Run(context.Background(), c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(context.Background(), c, Options{NoSkip: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.Stats.UnexpectedProgress != 0 {
			t.Errorf("%s: UnexpectedProgress = %d", c.Name, b.Stats.UnexpectedProgress)
		}
		// fmt prints NaN (no sample, fewer than two active flows) as NaN
		// on both sides; reflect.DeepEqual would call NaN != NaN.
		if !reflect.DeepEqual(a.Flows, b.Flows) || fmt.Sprint(a.Series) != fmt.Sprint(b.Series) {
			t.Errorf("%s: results differ with and without idle skipping", c.Name)
		}
		sa, sb := a.Summary, b.Summary
		if sa.PeakQueueBytes != sb.PeakQueueBytes || sa.Feedback != sb.Feedback || sa.DataPackets != sb.DataPackets {
			t.Errorf("%s: summaries differ: %+v\n%+v", c.Name, sa, sb)
		}
		if a.Stats.BusyCycles >= b.Stats.BusyCycles {
			t.Errorf("%s: skipping executed %d cycles, NoSkip %d", c.Name, a.Stats.BusyCycles, b.Stats.BusyCycles)
		}
	}
}

// TestWriteOwnsItsDirectory checks that a run with traces verifies as a
// whole (every trace file and each NIC's trace manifest listed), and that a
// later run without traces leaves none of the earlier traces behind.
func TestWriteOwnsItsDirectory(t *testing.T) {
	dir := t.TempDir()
	traced, err := Run(context.Background(), small(t), Options{TraceHosts: []int{0}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := traced.Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	rep, err := artefact.Verify(dir)
	if err != nil || !rep.OK() {
		t.Fatalf("run with traces does not verify: %v %+v", err, rep)
	}
	if _, err := os.Stat(filepath.Join(dir, "traces")); err != nil {
		t.Fatalf("no traces written: %v", err)
	}
	plain, err := Run(context.Background(), small(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.Write(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "traces")); !os.IsNotExist(err) {
		t.Errorf("traces of the earlier run survived a run without traces: %v", err)
	}
	if rep, err := artefact.Verify(dir); err != nil || !rep.OK() {
		t.Fatalf("second run does not verify: %v %+v", err, rep)
	}
}
