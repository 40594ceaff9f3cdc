package cosim

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestModuleCosim co-simulates hpcc_module (16 flows) under Verilator and
// Icarus on same-flow back-to-back, interleaved and mixed event streams;
// every update must equal the Go module model's (golden datapath per flow,
// in order) and the stall cycles must equal the documented handshake rule.
// Verilator runs update pipelines of 0 and 2 stages (forwarding only, and
// forwarding plus stalls); Icarus a shorter stream with 1 stage.
func TestModuleCosim(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowIcarus, verilog.FlowLint)
	all := []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}
	cases := []struct {
		sim    verilog.Simulator
		stages int
		events int
		lint   bool
	}{
		{verilog.Verilator, 0, 4000, true},
		{verilog.Verilator, 2, 4000, false},
		{verilog.Icarus, 1, 300, false},
	}
	for _, c := range cases {
		rep, err := RunModule(context.Background(), ModuleOptions{
			Config: hpcc.DefaultConfig(), Options: Options{Stages: c.stages, Simulator: c.sim, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: c.lint},
			FlowBits: 4, Kinds: all, Events: c.events, Seed: 9})
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Err(); err != nil {
			t.Fatalf("%s, %d stages: %v", c.sim, c.stages, err)
		}
		t.Logf("%s, %d stages: %d events passed, %d stall cycles, %.0f events/s simulated, build %v",
			c.sim, c.stages, rep.Vectors, rep.Stalls, rep.SimRate, rep.BuildTime)
	}
}

// moduleSetPins are the SHA-256 of the files of `vectors gen --design
// module` with its defaults (1024 flows, 3 stages, 3000 events per kind,
// seed 1), as the buffered writer of commit 781bc8b wrote them: the
// streaming writer must write the same bytes.
var moduleSetPins = map[string]string{
	"classes.txt":   "d7ce9e1a1de887c848145173d64c07416268811a786888fe093759c76482bd24",
	"expected.hex":  "882df07f779cfeb3aa861d8885e99ac14ae89a419b2e6fc2badd70ce2538a04f",
	"fields.vh":     "78008acba2d2b1c78cf29b08dc0188244b107f3c8222aa18d1d1776698bff126",
	"layout.json":   "2e44bbad16a8ac5a8e834542ce92b1b37d7b0e1ace12b98e5ea431f6234663c1",
	"manifest.json": "fbda9e2ef12b27878071a07159864a75e6dd1706e138efab057c14555765dda6",
	"stimulus.hex":  "774b914191b63f28f61f189badcf044f90fb8b9590cc4556ed6d458f4877d7c2",
}

var allKinds = []hpccrtl.StreamKind{hpccrtl.SameFlow, hpccrtl.Interleaved, hpccrtl.Mixed}

// TestModuleSetPins writes the default stream set with WriteModuleSet and
// checks every file's SHA-256 against moduleSetPins. Oracle: the files of
// the earlier, buffered implementation.
func TestModuleSetPins(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	opts := ModuleOptions{Config: hpcc.DefaultConfig(), FlowBits: 10, Kinds: allKinds, Events: 3000, Seed: 1}
	opts.Stages = 3
	man, err := WriteModuleSet(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if man.Count != 9000 || man.Module.WantStalls != 11446 {
		t.Errorf("%d events, %d stall cycles predicted; want 9000 and 11446", man.Count, man.Module.WantStalls)
	}
	for name, want := range moduleSetPins {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%x", sha256.Sum256(b)); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
	}
}

// TestWriteModuleSetRefuses: Events outside [1,MaxModuleEvents], no kinds
// and an unknown kind are errors naming them, and write no set.
func TestWriteModuleSetRefuses(t *testing.T) {
	for _, c := range []struct {
		events int
		kinds  []hpccrtl.StreamKind
		want   string
	}{
		{0, allKinds, "Events=0: must be in [1,1073741824]"},
		{MaxModuleEvents + 1, allKinds, "Events=1073741825"},
		{10, nil, "no events"},
		{10, []hpccrtl.StreamKind{"bursty"}, `stream kind "bursty"`},
	} {
		dir := filepath.Join(t.TempDir(), "set")
		opts := ModuleOptions{Config: hpcc.DefaultConfig(), FlowBits: 4, Kinds: c.kinds, Events: c.events, Seed: 1}
		if _, err := WriteModuleSet(context.Background(), dir, opts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Events %d, kinds %v: %v, want an error containing %q", c.events, c.kinds, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, vectors.ManifestFile)); err == nil {
			t.Errorf("Events %d, kinds %v: a set was written", c.events, c.kinds)
		}
	}
}

// kindStalls returns, per stream kind of opts, the stall cycles the
// handshake rule predicts for that kind's events alone offered from reset
// with gap. Oracle of the split runs' predictions: hpccrtl.Schedule on
// hpccrtl.Stream.
func kindStalls(t *testing.T, opts ModuleOptions, gap int) []int {
	t.Helper()
	mo := hpccrtl.ModuleOptions{Stages: opts.Stages, FlowBits: opts.FlowBits}
	var out []int
	for i, k := range opts.Kinds {
		evs, err := hpccrtl.Stream(opts.Config, mo, k, opts.Events, opts.Seed+int64(i))
		if err != nil {
			t.Fatal(err)
		}
		flows := make([]uint32, len(evs))
		for j, ev := range evs {
			flows[j] = ev.Flow
		}
		out = append(out, mo.Schedule(flows, gap))
	}
	return out
}

// TestPlanModuleRun checks how a stream set is split: at every kind's start
// (each flow's first event of a kind has ev_init set), with each
// segment's stall prediction that of its kind alone (kindStalls) for gaps
// 0 and 3, and the whole set's that of the manifest; a cut inside a kind
// (a class boundary where flows carry state across) is dropped; split
// false gives one segment.
func TestPlanModuleRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	opts := ModuleOptions{Config: hpcc.DefaultConfig(), FlowBits: 4, Kinds: allKinds, Events: 700, Seed: 4}
	opts.Stages = 2
	man, err := WriteModuleSet(context.Background(), dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	mo := hpccrtl.ModuleOptions{Stages: 2, FlowBits: 4}
	in, _, err := hpccrtl.ModuleTables(opts.Config, mo)
	if err != nil {
		t.Fatal(err)
	}
	for _, gap := range []int{0, 3} {
		p, err := planModuleRun(dir, man, in, mo, gap, true)
		if err != nil {
			t.Fatal(err)
		}
		want := kindStalls(t, opts, gap)
		if len(p.segs) != 3 || !slices.Equal(p.stalls, want) || p.whole != man.Module.WantStalls {
			t.Fatalf("gap %d: segments %v, stalls %v, whole %d; want 3 of 700, %v, %d", gap, p.segs, p.stalls, p.whole, want, man.Module.WantStalls)
		}
		for i, s := range p.segs {
			if s.first != 700*i || s.n != 700 {
				t.Errorf("gap %d: segment %d = %+v, want events %d..%d", gap, i, s, 700*i, 700*i+699)
			}
		}
	}
	p, err := planModuleRun(dir, man, in, mo, 0, false)
	if err != nil || len(p.segs) != 1 || p.segs[0].n != 2100 || p.stalls[0] != man.Module.WantStalls {
		t.Fatalf("split false: %+v, %v; want one segment of 2100 events, %d stall cycles", p, err, man.Module.WantStalls)
	}
	// Cut the same-flow kind in the middle of a burst: its flows' next
	// events do not start them again, so the cut cannot be a process start.
	inner := *man
	inner.Classes = append([]vectors.ClassCount{{Name: "a", First: 0, Count: 350}, {Name: "b", First: 350, Count: 350}}, man.Classes[1:]...)
	p, err = planModuleRun(dir, &inner, in, mo, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.segs) != 3 || p.segs[0] != (segment{0, 700}) || p.stalls[0] != want0(t, opts) {
		t.Errorf("a cut inside a kind: segments %v, stalls %v; want the cut at 350 dropped", p.segs, p.stalls)
	}
}

func want0(t *testing.T, opts ModuleOptions) int { return kindStalls(t, opts, 0)[0] }

// TestModuleCosimSplit co-simulates an hpcc_module stream set under
// Verilator split over 2 processes (3 segments, one per stream kind, each
// from reset): every event must pass and the stall cycles equal the sum of
// the kinds' predictions (kindStalls); then the lowest digit of one expected line of an event
// of the third kind is flipped: the run fails naming that event (its index
// in the whole set), its class and the field.
func TestModuleCosimSplit(t *testing.T) {
	needTools(t, verilog.FlowVerilator)
	dir := filepath.Join(t.TempDir(), "set")
	opts := ModuleOptions{Config: hpcc.DefaultConfig(), FlowBits: 4, Kinds: allKinds, Events: 4000, Seed: 9}
	opts.Stages = 2
	if _, err := WriteModuleSet(context.Background(), dir, opts); err != nil {
		t.Fatal(err)
	}
	want := 0
	for _, s := range kindStalls(t, opts, 0) {
		want += s
	}
	run := func() *ModuleReport {
		rep, err := RunModule(context.Background(), ModuleOptions{Config: hpcc.DefaultConfig(),
			Options: Options{Simulator: verilog.Verilator, Vectors: dir, Jobs: 2, WorkDir: t.TempDir(), CacheDir: buildCache}})
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	rep := run()
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Jobs != 2 || rep.Passed != 12000 || rep.Stalls != want || rep.WantStalls != want {
		t.Fatalf("%d processes, %d passed, %d stall cycles (predicted %d); want 2, 12000, %d", rep.Jobs, rep.Passed, rep.Stalls, rep.WantStalls, want)
	}
	t.Logf("%d events in %d processes: %.2f CPU-s, %.0f events/s wall", rep.Vectors, rep.Jobs, rep.CPUTime.Seconds(), rep.VectorsPerSecond())
	ep := filepath.Join(dir, vectors.ExpectedFile)
	b, err := os.ReadFile(ep)
	if err != nil {
		t.Fatal(err)
	}
	const bad = 8000 + 123 // an event of the mixed kind
	lines := strings.SplitAfter(string(b), "\n")
	l := []byte(lines[bad])
	if l[len(l)-2] == '0' { // the lowest digit of upd_flow
		l[len(l)-2] = '1'
	} else {
		l[len(l)-2] = '0'
	}
	lines[bad] = string(l)
	if err := os.WriteFile(ep, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	rep = run()
	err = rep.Err()
	if !errors.Is(err, ErrMismatch) || rep.Failed != 1 || rep.Passed != 11999 ||
		!strings.Contains(err.Error(), fmt.Sprintf("MISMATCH vector %d (class stream_mixed):", bad)) || !strings.Contains(err.Error(), "  upd_flow: got ") {
		t.Fatalf("a changed expected digit: %d passed, %d failed, %v", rep.Passed, rep.Failed, err)
	}
}
