package explore

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/verilog"
)

func mustSpec(t *testing.T, js string) (Spec, []Point) {
	t.Helper()
	s, err := LoadSpec(strings.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return s, pts
}

// TestEvaluate: a sweep over the width of U on demo-incast-4to1 (no
// synthesis). An invalid width (W holding less than W_max overflows:
// the range analysis refuses it) is reported invalid with the reason and
// nothing measured; every valid point's measured per-step W error stays
// within the range analysis' bound (the oracle: hpcc ErrorBounds, proved
// in cc/hpcc's property tests for the defaults and here checked on the
// narrow formats), compares thousands of updates, and has the network
// metrics of both runs. A second evaluator on the same cache computes
// nothing and returns identical records.
func TestEvaluate(t *testing.T) {
	s, pts := mustSpec(t, `{"encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "none",
	  "params": [{"name": "formats.w", "values": ["u12.4", "u24.16"]}, {"name": "formats.u", "values": ["u12.8", "u32.8"]}]}`)
	cache := t.TempDir()
	ev := &Evaluator{Spec: s, CacheDir: cache}
	ctx := context.Background()
	recs, err := Sweep(ctx, ev, pts, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[:2] {
		if r.Valid || !strings.Contains(r.Invalid, "w_max") || len(r.Scenarios) != 0 || r.Area.RegBits != 0 {
			t.Fatalf("point %d (%v): valid %v, invalid %q, %d scenarios: want invalid naming w_max", r.Index, r.Values, r.Valid, r.Invalid, len(r.Scenarios))
		}
	}
	for _, r := range recs[2:] {
		a := r.Accuracy
		if !r.Valid || len(r.Scenarios) != 1 || a.Steps < 100 || r.Area.RegBits == 0 || r.Area.Cells != -1 {
			t.Fatalf("point %d (%v): valid %v (%s), %d scenarios, %d steps, reg bits %d, cells %d", r.Index, r.Values, r.Valid, r.Invalid, len(r.Scenarios), a.Steps, r.Area.RegBits, r.Area.Cells)
		}
		if !(a.WRelBound > 0) || a.WRelErr > a.WRelBound {
			t.Fatalf("point %d (%v): measured W error %g above the range analysis' bound %g", r.Index, r.Values, a.WRelErr, a.WRelBound)
		}
		sc := r.Scenarios[0]
		if sc.Fixed.PeakQueueBytes <= 0 || sc.Float.PeakQueueBytes <= 0 || sc.Fixed.SlowP99 < 1 || sc.Verdict != "" {
			t.Fatalf("point %d: metrics %+v float %+v verdict %q", r.Index, sc.Fixed, sc.Float, sc.Verdict)
		}
	}
	// The narrower U has the larger bound (fewer fraction bits).
	if recs[2].Accuracy.WRelBound <= recs[3].Accuracy.WRelBound {
		t.Fatalf("bound of u12.8 %g not above that of u32.8 %g", recs[2].Accuracy.WRelBound, recs[3].Accuracy.WRelBound)
	}
	if ev.Stats.SimRun != 3 || ev.Stats.SimCached != 1 {
		t.Fatalf("stats %+v: want 3 runs (2 fixed, 1 float) and 1 float run reused", ev.Stats)
	}
	ev2 := &Evaluator{Spec: s, CacheDir: cache}
	recs2, err := Sweep(ctx, ev2, pts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ev2.Stats.SimRun != 0 || !reflect.DeepEqual(recs, recs2) {
		t.Fatalf("cached rerun: stats %+v, records equal %v", ev2.Stats, reflect.DeepEqual(recs, recs2))
	}
}

// TestEvaluateYosys synthesizes one reduced point (Compact telemetry, one
// hop slot, one stage, as the hpcc_update synthesis test does) and checks
// plausible Yosys figures, that the pipeline register bits show up as
// flip-flops, and that a second evaluation reuses the cached synthesis.
// Needs yosys (skipped without it unless HPCCGOLD_REQUIRE_TOOLS=1); takes
// about a minute of CPU time.
func TestEvaluateYosys(t *testing.T) {
	tools := verilog.LookupTools()
	testtool.Require(t, tools.Need(verilog.FlowSynth), verilog.ErrToolMissing, "yosys")
	if testing.Short() {
		t.Skip("synthesis takes about a minute (-short)")
	}
	s, pts := mustSpec(t, `{"encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "yosys",
	  "params": [{"name": "formats.u", "values": ["u16.8"]}, {"name": "recip_u_unit.nr_steps", "values": [0]}]}`)
	cache := t.TempDir()
	ev := &Evaluator{Spec: s, CacheDir: cache, Tools: tools}
	r, err := ev.Evaluate(context.Background(), pts[0])
	if err != nil {
		t.Fatal(err)
	}
	a := r.Area
	if !r.Valid || a.Cells < 1000 || a.FlipFlops < a.RegBits/2 || a.LongestPath < 10 {
		t.Fatalf("synth: valid %v (%s), %d cells, %d flip-flops (pipeliner: %d register bits), longest path %d", r.Valid, r.Invalid, a.Cells, a.FlipFlops, a.RegBits, a.LongestPath)
	}
	t.Logf("yosys: %d cells, %d flip-flops, longest path %d", a.Cells, a.FlipFlops, a.LongestPath)
	ev2 := &Evaluator{Spec: s, CacheDir: cache, Tools: verilog.Tools{}} // no Yosys: must come from the cache
	r2, err := ev2.Evaluate(context.Background(), pts[0])
	if err != nil || ev2.Stats.SynthCached != 1 || r2.Area != r.Area {
		t.Fatalf("cached: %v, stats %+v, area %+v want %+v", err, ev2.Stats, r2.Area, r.Area)
	}
}

// TestFront: the Pareto front of hand-made records. Oracle: dominance
// worked out by hand.
func TestFront(t *testing.T) {
	s := Spec{Synth: SynthYosys, Tolerance: 0.01}
	mk := func(cells int, werr, dev float64, valid bool) Record {
		return Record{Valid: valid, Area: Area{Cells: cells}, Accuracy: Accuracy{WRelErr: werr}, FrontDev: dev, MaxDev: dev, WithinTol: valid && dev <= 0.01}
	}
	recs := []Record{
		mk(100, 1e-3, 0.02, true),  // smallest: on
		mk(200, 1e-4, 0.001, true), // on
		mk(250, 1e-4, 0.001, true), // dominated by #1
		mk(300, 1e-5, 0.001, true), // on (best error)
		mk(300, 1e-5, 0.001, true), // equal to #3: on too
		mk(50, 0, 0, false),        // invalid: never on
		mk(400, 1e-3, 0.02, true),  // dominated by #0
	}
	s.MarkFront(recs)
	want := []bool{true, true, false, true, true, false, false}
	for i, r := range recs {
		if r.OnFront != want[i] {
			t.Errorf("record %d: on front %v, want %v", i, r.OnFront, want[i])
		}
	}
	if n := s.Narrowest(recs); n != 1 {
		t.Errorf("Narrowest = %d, want 1 (the smallest within 1%%)", n)
	}
}

// BenchmarkEvaluateNoSynth measures one point without Yosys and without
// the cache: building hpcc_update for the pipeliner's estimates, and the
// fixed and float runs of demo-incast-4to1 with the accuracy comparison
// of every update.
func BenchmarkEvaluateNoSynth(b *testing.B) {
	s, err := LoadSpec(strings.NewReader(`{"encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "none",
	  "params": [{"name": "formats.u", "values": ["u20.8"]}]}`))
	if err != nil {
		b.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		ev := &Evaluator{Spec: s}
		if _, err := ev.Evaluate(context.Background(), pts[0]); err != nil {
			b.Fatal(err)
		}
	}
}
