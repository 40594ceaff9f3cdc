package explore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/verilog"
)

// cacheSchema versions the cache entries: bump it when what an entry holds
// or how it is computed changes, so stale entries are not reused.
const cacheSchema = "hpccgold-explore-cache-1"

// Stats counts an evaluation's work: parts computed and parts reused from
// the cache (a point is a synthesis and two runs per scenario).
type Stats struct {
	SynthRun, SynthCached int
	SimRun, SimCached     int
}

// Evaluator computes points of one spec, caching syntheses and scenario
// runs in CacheDir (keyed by the SHA-256 of everything they depend on:
// the printed Verilog, the scenario's full configuration) so that a rerun
// or an extended sweep computes only what is new.
type Evaluator struct {
	Spec Spec
	// CacheDir holds the cache entries (created if missing); "" disables
	// the cache.
	CacheDir string
	// Tools are the external programs (Yosys with synth "yosys").
	Tools verilog.Tools
	// Stats accumulates over Evaluate calls.
	Stats Stats
}

// key hashes the parts of a cache entry's inputs.
func key(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range [][]byte{[]byte(cacheSchema), []byte(buildinfo.String())} {
		fmt.Fprintf(h, "%d:%s", len(p), p)
	}
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// cached loads the entry kind/k into v; false when absent or unreadable
// (a damaged entry is recomputed and overwritten).
func (e *Evaluator) cached(kind, k string, v any) bool {
	if e.CacheDir == "" {
		return false
	}
	b, err := os.ReadFile(filepath.Join(e.CacheDir, "explore", kind, k+".json"))
	if err != nil {
		return false
	}
	return json.Unmarshal(b, v) == nil
}

// store writes the entry kind/k atomically.
func (e *Evaluator) store(kind, k string, v any) error {
	if e.CacheDir == "" {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("explore: cache: %w", err)
	}
	dir := filepath.Join(e.CacheDir, "explore", kind)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("explore: cache: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, k+".json"), 0o644, b); err != nil {
		return fmt.Errorf("explore: cache: %w", err)
	}
	return nil
}

// invalidError marks a configuration a point cannot be built or run with.
type invalidError struct{ err error }

func (e invalidError) Error() string { return e.err.Error() }

// Evaluate computes one point. A point whose configuration fails
// validation (the synthesized configuration's Validate, including the
// range analysis, or a scenario's NIC configuration) is returned as an
// invalid Record with the reason; err is only for failures of the
// evaluation itself (a tool that fails, ctx done).
func (e *Evaluator) Evaluate(ctx context.Context, pt Point) (Record, error) {
	rec := Record{Index: pt.Index, Values: pt.Values, Stages: pt.Stages, Valid: true,
		Area: Area{Cells: -1, FlipFlops: -1, LongestPath: -1}, Scenarios: []ScenarioResult{}}
	invalid := func(err error) (Record, error) {
		var ie invalidError
		if !errors.As(err, &ie) {
			return Record{}, err
		}
		return Record{Index: pt.Index, Values: pt.Values, Stages: pt.Stages, Invalid: err.Error(),
			Area: Area{Cells: -1, FlipFlops: -1, LongestPath: -1}, Scenarios: []ScenarioResult{}}, nil
	}
	if err := pt.RTL.Validate(); err != nil {
		return invalid(invalidError{err})
	}
	for _, name := range e.Spec.Scenarios {
		fx, err := e.run(ctx, name, false, pt.Fixed)
		if err != nil {
			return invalid(err)
		}
		fl, err := e.run(ctx, name, true, pt.Float)
		if err != nil {
			return invalid(err)
		}
		rec.Accuracy.WRelBound = math.Max(rec.Accuracy.WRelBound, fx.WRelBound)
		rec.Accuracy.WRelErr = math.Max(rec.Accuracy.WRelErr, fx.WRelErr)
		rec.Accuracy.Steps += fx.Steps
		rec.Accuracy.Flips += fx.Flips
		rec.Scenarios = append(rec.Scenarios, ScenarioResult{Name: name, Verdict: fx.Verdict, Fixed: fx.Metrics, Float: fl.Metrics, Dev: devOf(fx.Metrics, fl.Metrics)})
	}
	area, err := e.area(ctx, pt)
	if err != nil {
		return invalid(err)
	}
	rec.Area = area
	fi := metricIndex(e.Spec.FrontMetric)
	rec.WithinTol = true
	for _, s := range rec.Scenarios {
		for i, m := range metricDefs {
			d := m.get(s.Dev)
			rec.MaxDev = math.Max(rec.MaxDev, d)
			if i == fi {
				rec.FrontDev = math.Max(rec.FrontDev, d)
			}
		}
		if s.Verdict != "" {
			rec.WithinTol = false
		}
	}
	if rec.MaxDev > e.Spec.Tolerance {
		rec.WithinTol = false
	}
	return rec, nil
}

// area builds hpcc_update for the point and, with synth "yosys",
// synthesizes it (cached by the printed Verilog).
func (e *Evaluator) area(ctx context.Context, pt Point) (Area, error) {
	a := Area{Cells: -1, FlipFlops: -1, LongestPath: -1}
	m, reps, err := hpccrtl.Update(pt.RTL, pt.Stages)
	if err != nil {
		return a, invalidError{fmt.Errorf("hpcc_update: %w", err)}
	}
	a.RegBits, a.Ops, a.Depth = stageTotals(reps)
	if e.Spec.Synth != SynthYosys {
		return a, nil
	}
	files, err := verilog.PrintAll(m)
	if err != nil {
		return a, fmt.Errorf("explore: point %d: %w", pt.Index, err)
	}
	var parts [][]byte
	for _, f := range files {
		parts = append(parts, []byte(f.Name), f.Data)
	}
	k := key(append([][]byte{[]byte("synth"), []byte(m.Name)}, parts...)...)
	var s synthEntry
	if e.cached("synth", k, &s) {
		e.Stats.SynthCached++
	} else {
		dir, err := os.MkdirTemp("", "hpccgold-explore-synth-")
		if err != nil {
			return a, fmt.Errorf("explore: %w", err)
		}
		defer os.RemoveAll(dir)
		if err := verilog.WriteFiles(dir, files); err != nil {
			return a, err
		}
		rep, err := e.Tools.Synth(ctx, dir, m.Name, verilog.ModuleFiles(m))
		if err != nil {
			return a, fmt.Errorf("explore: point %d: %w", pt.Index, err)
		}
		s = synthEntry{Cells: rep.Cells, FlipFlops: rep.FlipFlops, LongestPath: rep.LongestPath}
		if err := e.store("synth", k, s); err != nil {
			return a, err
		}
		e.Stats.SynthRun++
	}
	a.Cells, a.FlipFlops, a.LongestPath = s.Cells, s.FlipFlops, s.LongestPath
	return a, nil
}

// stageTotals sums the pipeliner's report: register bits, operators, and
// the deepest stage's delay.
func stageTotals(reps []rtl.StageReport) (regBits, ops int, depth float64) {
	for _, r := range reps {
		regBits += r.RegBits
		ops += r.Ops
		depth = math.Max(depth, r.Delay)
	}
	return regBits, ops, depth
}

// synthEntry is a cached synthesis.
type synthEntry struct {
	Cells       int `json:"cells"`
	FlipFlops   int `json:"flip_flops"`
	LongestPath int `json:"longest_path"`
}

// runEntry is a cached scenario run.
type runEntry struct {
	Metrics   Metrics `json:"metrics"`
	Verdict   string  `json:"verdict"`
	WRelBound float64 `json:"w_rel_bound"`
	WRelErr   float64 `json:"w_rel_err"`
	Steps     int     `json:"steps"`
	Flips     int     `json:"flips"`
}

// run runs a built-in scenario with the fixed model (float false; the
// accuracy is measured on its updates) or the float reference, with frag
// merged over the scenario's NIC overrides; cached by the scenario's full
// configuration.
func (e *Evaluator) run(ctx context.Context, name string, float bool, frag []byte) (runEntry, error) {
	var r runEntry
	sc, err := scenario.Lookup(name)
	if err != nil {
		return r, err
	}
	sc.Model = nicmodel.Fixed
	if float {
		sc.Model = nicmodel.Float
	}
	ov, err := mergeObjects(sc.NIC.Overrides, frag)
	if err != nil {
		return r, err
	}
	sc.NIC.Overrides = ov
	if err := sc.Validate(); err != nil {
		return r, invalidError{fmt.Errorf("scenario %s (%s): %w", name, sc.Model, err)}
	}
	cj, err := sc.JSON()
	if err != nil {
		return r, err
	}
	k := key([]byte("run"), cj)
	if e.cached("run", k, &r) {
		e.Stats.SimCached++
		return r, nil
	}
	acc := newAccuracy()
	opts := scenario.Options{}
	if !float {
		opts.OnHPCCUpdate = acc.observe
	}
	res, err := scenario.Run(ctx, sc, opts)
	if err != nil {
		if ctx.Err() != nil {
			return r, err
		}
		return r, invalidError{fmt.Errorf("scenario %s (%s): %w", name, sc.Model, err)}
	}
	if acc.err != nil {
		return r, fmt.Errorf("explore: scenario %s: %w", name, acc.err)
	}
	r.Metrics = metricsOf(res.Summary)
	if v := res.Verdict(); v != nil {
		r.Verdict = v.Error()
	}
	r.WRelBound, r.WRelErr, r.Steps, r.Flips = acc.bound, acc.maxRel, acc.steps, acc.flips
	if err := e.store("run", k, r); err != nil {
		return r, err
	}
	e.Stats.SimRun++
	return r, nil
}

// accuracy compares every fixed-model update with the float reference
// stepped from the same state.
type accuracy struct {
	refs map[*hpcc.Datapath]*hpcc.Reference
	// bounds holds ErrorBounds().WRel per configuration (JSON): the NICs
	// of a run share one, and deriving it checks every reciprocal table
	// entry.
	bounds        map[string]float64
	bound, maxRel float64
	steps, flips  int
	err           error
}

func newAccuracy() *accuracy {
	return &accuracy{refs: map[*hpcc.Datapath]*hpcc.Reference{}, bounds: map[string]float64{}}
}

func (a *accuracy) observe(_ int, u *nicmodel.HPCCUpdate) {
	if a.err != nil {
		return
	}
	d := u.Datapath
	ref, ok := a.refs[d]
	if !ok {
		var err error
		if ref, err = hpcc.NewReference(d.Config()); err != nil {
			a.err = err
			return
		}
		a.refs[d] = ref
		cj, err := d.Config().JSON()
		if err != nil {
			a.err = err
			return
		}
		b, ok := a.bounds[string(cj)]
		if !ok {
			b = d.ErrorBounds().WRel
			a.bounds[string(cj)] = b
		}
		a.bound = math.Max(a.bound, b)
	}
	_, ro := ref.Update(d.RefState(u.State), u.Input)
	o := u.Output
	a.steps++
	if o.First != ro.First || o.MI != ro.MI || o.SelHop != ro.SelHop || int(o.IncStage) != ro.IncStage ||
		o.UpdateWc != ro.UpdateWc || o.Notify != ro.Notify || o.HopValid != ro.HopValid {
		a.flips++
		return
	}
	w := d.WBytes(u.Next.W)
	if ro.W > 0 {
		a.maxRel = math.Max(a.maxRel, math.Abs(w-ro.W)/ro.W)
	}
}
