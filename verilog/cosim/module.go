package cosim

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// ModuleOptions configures a co-simulation of hpcc_module.
type ModuleOptions struct {
	Options              // Stages, Simulator, WorkDir, CacheDir, Lint, Synth, Gap, Log (Model unused)
	Config   hpcc.Config // the HPCC++ configuration of the module and its model
	FlowBits int         // flow-table depth 2^FlowBits
	Kinds    []hpccrtl.StreamKind
	Events   int   // events per stream kind
	Seed     int64 // stream seed
}

// ModuleReport is a Report plus the stall cycles the documented handshake
// rule predicts for the stream.
type ModuleReport struct {
	Report
	WantStalls int
}

// Err adds a stall-count mismatch to Report.Err.
func (r *ModuleReport) Err() error {
	if err := r.Report.Err(); err != nil {
		return err
	}
	if r.Stalls != r.WantStalls {
		return fmt.Errorf("%w: %s: %d stall cycles, the handshake rule predicts %d", ErrMismatch, r.Design, r.Stalls, r.WantStalls)
	}
	return nil
}

// RunModule co-simulates hpcc_module on generated event streams (the
// kinds one after the other, written as a stream set into
// WorkDir/module_vectors by WriteModuleSet) against the Go module model;
// or, with opts.Vectors, on an hpcc_module stream set (WriteModuleSet),
// whose configuration, stages, flow bits and predicted stall count come
// from its manifest (opts' must be zero or equal, and Gap 0: the stall
// count is for events offered back to back).
//
// Under the Verilator C++ harness the set is split over Jobs simulator
// processes (0: one per CPU from 2*50,000 events) where that is sound: at
// the start of a stream kind (a class of the set) whose every flow's first
// event has ev_init set, so that the events after the cut do not depend on
// the flow table the events before it left; each process starts from
// reset at such a cut. The processes' results are merged in event order,
// and the stall cycles predicted for each from its own events.
func RunModule(ctx context.Context, opts ModuleOptions) (*ModuleReport, error) {
	if err := opts.Options.check(); err != nil {
		return nil, err
	}
	tools, err := opts.tools()
	if err != nil {
		return nil, err
	}
	if opts.Vectors != "" {
		if opts.Gap != 0 {
			return nil, fmt.Errorf("cosim: Gap=%d: a stream set records the stall count of its events offered back to back (Gap 0)", opts.Gap)
		}
		return runModuleSet(ctx, opts, tools)
	}
	dir := filepath.Join(opts.WorkDir, "module_vectors")
	if _, err := WriteModuleSet(ctx, dir, opts); err != nil {
		return nil, err
	}
	opts.logf("hpcc_module: %d events per kind (%v), %d flows, update stages %d", opts.Events, opts.Kinds, 1<<uint(opts.FlowBits), opts.Stages)
	opts.Vectors = dir
	return runModuleSet(ctx, opts, tools)
}

// runModuleSet is RunModule on the stream set opts.Vectors, with one idle
// cycle after every opts.Gap events (0: back to back).
func runModuleSet(ctx context.Context, opts ModuleOptions, tools verilog.Tools) (*ModuleReport, error) {
	so, man, err := ModuleSetOptions(opts.Vectors)
	if err != nil {
		return nil, err
	}
	if opts.FlowBits != 0 && opts.FlowBits != so.FlowBits || opts.Stages != 0 && opts.Stages != so.Stages {
		return nil, fmt.Errorf("cosim: FlowBits=%d, Stages=%d: the set %s was made for %d and %d", opts.FlowBits, opts.Stages, opts.Vectors, so.FlowBits, so.Stages)
	}
	mo := hpccrtl.ModuleOptions{Stages: so.Stages, FlowBits: so.FlowBits}
	m, err := hpccrtl.Module(so.Config, mo)
	if err != nil {
		return nil, err
	}
	in, out, err := hpccrtl.ModuleTables(so.Config, mo)
	if err != nil {
		return nil, err
	}
	run0 := opts.Options
	run0.Stages, run0.stream = so.Stages, true
	n := int(man.Count)
	harness := run0.Simulator == verilog.Verilator && !run0.VerilogBench
	jobs := 1
	if harness {
		jobs = run0.Jobs
		if jobs <= 0 {
			jobs = 1
			if n >= minShard*2 {
				jobs = runtime.NumCPU()
			}
		}
	}
	// The events' own stall prediction is needed for a split run and for
	// a gap the manifest's count is not for.
	var plan *modulePlan
	if jobs > 1 || run0.Gap != 0 {
		if plan, err = planModuleRun(opts.Vectors, man, in, mo, run0.Gap, jobs > 1); err != nil {
			return nil, err
		}
		run0.segments, run0.Jobs = plan.segs, min(jobs, len(plan.segs))
	}
	bench := verilog.Bench{DUT: m, In: in, Out: out, ValidIn: hpccrtl.EvValid, ValidOut: hpccrtl.UpdValid, Ready: hpccrtl.EvReady}
	opts.logf("hpcc_module: stream set %s: %d events, %d flows, update stages %d", opts.Vectors, n, 1<<uint(so.FlowBits), so.Stages)
	rep, err := run(ctx, &run0, tools, bench, opts.Vectors, n, man.Classes)
	if err != nil {
		return nil, err
	}
	want := man.Module.WantStalls
	if plan != nil {
		// The processes' predictions, each from reset; with Gap 0, the
		// manifest's count corrected by what the cuts change (nothing when
		// the manifest is the events' own), so that a set recording fewer
		// stalls than its module needs fails in any split.
		want = plan.segStalls()
		if run0.Gap == 0 {
			want += man.Module.WantStalls - plan.whole
		}
	}
	return &ModuleReport{Report: *rep, WantStalls: want}, nil
}

// ModuleModelName is the manifest model name of an hpcc_module stream set.
const ModuleModelName = "hpcc_module"

// MaxModuleEvents bounds ModuleOptions.Events, the events per stream kind
// (2^30): a set's event indexes then stay below 2^32 for any number of
// kinds up to 4, which the manifest's counts, the harness's +first and +n
// and the stall arithmetic hold with room. Memory does not bound it (a set
// is written event by event); disk does: about 290 bytes an event with
// the default configuration, 0.9 TB for 3 kinds at the bound.
const MaxModuleEvents = 1 << 30

// WriteModuleSet writes the event streams opts selects (Config, Stages,
// FlowBits, Kinds, Events, Seed) as an hpcc_module stream set in dir
// (vectors.WriteStreamSetFunc): one class per stream kind, and the stall
// cycles the handshake rule predicts for the stream offered back to back,
// so that a co-simulation of a module that stalls more fails. WorkDir,
// Simulator and the run options are not used. The events are generated,
// applied to the module model, formatted and written one at a time: the
// memory does not grow with Events.
func WriteModuleSet(ctx context.Context, dir string, opts ModuleOptions) (*vectors.Manifest, error) {
	if opts.Events < 1 || opts.Events > MaxModuleEvents {
		return nil, fmt.Errorf("cosim: Events=%d: must be in [1,%d] (events per stream kind)", opts.Events, MaxModuleEvents)
	}
	if len(opts.Kinds) == 0 {
		return nil, fmt.Errorf("cosim: no events (Kinds and Events)")
	}
	mo := hpccrtl.ModuleOptions{Stages: opts.Stages, FlowBits: opts.FlowBits}
	mm, err := hpccrtl.NewModuleModel(opts.Config, mo)
	if err != nil {
		return nil, err
	}
	gens := make([]*hpccrtl.StreamGen, len(opts.Kinds))
	var kinds []string
	var classes []vectors.ClassCount
	for i, k := range opts.Kinds {
		if gens[i], err = hpccrtl.NewStreamGen(opts.Config, mo, k, opts.Seed+int64(i)); err != nil {
			return nil, err
		}
		kinds = append(kinds, string(k))
		classes = append(classes, vectors.ClassCount{Name: "stream_" + string(k), Level: 0,
			Doc: fmt.Sprintf("hpcc_module event stream of kind %s (seeded)", k), Count: int64(opts.Events)})
	}
	in, out := mm.Tables()
	stim, exp := make([]uint64, in.Words()), make([]uint64, out.Words())
	sched := mo.NewScheduler(0)
	return vectors.WriteStreamSetFunc(ctx, dir, vectors.StreamSet{Model: ModuleModelName, Config: opts.Config, In: in, Out: out, Classes: classes},
		func(emit func(stim, exp []uint64) error) (vectors.ModuleInfo, error) {
			for i, g := range gens {
				for j := 0; j < opts.Events; j++ {
					ev := g.Next()
					if err := mm.Step(ev, stim, exp); err != nil {
						return vectors.ModuleInfo{}, fmt.Errorf("cosim: stream %s event %d: %w", opts.Kinds[i], j, err)
					}
					sched.Offer(ev.Flow)
					if err := emit(stim, exp); err != nil {
						return vectors.ModuleInfo{}, err
					}
				}
			}
			return vectors.ModuleInfo{FlowBits: opts.FlowBits, Stages: opts.Stages, Kinds: kinds, EventsPerKind: opts.Events,
				Seed: opts.Seed, WantStalls: sched.Stalls()}, nil
		})
}

// ModuleSetOptions returns the options an hpcc_module stream set in dir was
// written with (its manifest's config and module section).
func ModuleSetOptions(dir string) (ModuleOptions, *vectors.Manifest, error) {
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		return ModuleOptions{}, nil, err
	}
	if man.Model != ModuleModelName || man.Module == nil {
		return ModuleOptions{}, nil, fmt.Errorf("cosim: %s: model %q, want an %s stream set (vectors gen --design module)", dir, man.Model, ModuleModelName)
	}
	cfg, err := hpcc.LoadConfig(strings.NewReader(string(man.Config)))
	if err != nil {
		return ModuleOptions{}, nil, fmt.Errorf("cosim: %s: %w", dir, err)
	}
	var kinds []hpccrtl.StreamKind
	for _, k := range man.Module.Kinds {
		kinds = append(kinds, hpccrtl.StreamKind(k))
	}
	o := ModuleOptions{FlowBits: man.Module.FlowBits, Kinds: kinds, Events: man.Module.EventsPerKind, Seed: man.Module.Seed}
	o.Config, o.Stages = cfg, man.Module.Stages
	return o, man, nil
}

// segment is a range of a stream set's events that one simulator process
// replays from reset.
type segment struct{ first, n int }

// modulePlan is how a stream set is split over simulator processes, with
// the stall cycles the handshake rule predicts.
type modulePlan struct {
	segs   []segment
	stalls []int // per segment, offered from reset with the run's gap
	whole  int   // the whole set offered back to back from reset (the manifest's count when it is the events' own)
}

// segStalls is the prediction for a run of the plan's segments, each in
// its own process.
func (p *modulePlan) segStalls() int {
	s := 0
	for _, v := range p.stalls {
		s += v
	}
	return s
}

// planModuleRun reads the ev_flow and ev_init fields of every event of the
// stream set in dir (its stimulus file; in is the event layout) and
// returns the set cut at those class starts (stream kinds) where a
// process starting from reset replays the events after the cut as the
// whole stream does: no event after the cut without ev_init set whose
// flow's previous event is before it (with ev_init set the flow table's
// entry is not read; a flow's first event of the whole set reads the
// entry reset left, in either run). split false: one segment. The stall
// predictions are Scheduler's, per segment with gap, and for the whole set
// back to back.
func planModuleRun(dir string, man *vectors.Manifest, in fieldtable.Table, mo hpccrtl.ModuleOptions, gap int, split bool) (*modulePlan, error) {
	n := int(man.Count)
	starts := []int{0} // 0, then the candidate cuts, increasing, in (0, n)
	if split {
		for _, c := range man.Classes {
			if c.First > 0 && c.First < int64(n) && int(c.First) > starts[len(starts)-1] {
				starts = append(starts, int(c.First))
			}
		}
	}
	sound := make([]bool, len(starts))
	for i := range sound {
		sound[i] = true
	}
	// sched[a] runs from starts[a] to the end; cum[a][b] is its count
	// when event starts[b] is offered (b > a; len(starts): the end).
	sched := make([]*hpccrtl.Scheduler, len(starts))
	cum := make([][]int, len(starts))
	for a := range cum {
		cum[a] = make([]int, len(starts)+1)
	}
	fi, ii := in.Index("ev_flow"), in.Index("ev_init")
	if fi < 0 || ii < 0 {
		return nil, fmt.Errorf("cosim: %s: the event layout %s has no ev_flow or ev_init", dir, in.Name)
	}
	ff, fInit := in.Fields[fi], in.Fields[ii]
	low := max(ff.Offset+ff.Width, fInit.Offset+fInit.Width) // bits to parse, from bit 0
	if low > 64 {
		return nil, fmt.Errorf("cosim: %s: ev_flow and ev_init lie above bit 64 of %s", dir, in.Name)
	}
	if man.IsBinary() {
		return nil, fmt.Errorf("cosim: %s: a stream set of binary records: want hex lines (vectors gen --design module)", dir)
	}
	stimName, _ := man.VectorFiles()
	r, err := vectors.OpenData(dir, stimName)
	if err != nil {
		return nil, fmt.Errorf("cosim: %w", err)
	}
	defer r.Close()
	D := in.HexDigits()
	rec, digits := D+1, (low+3)/4
	last := make([]int, 1<<uint(mo.FlowBits)) // index + 1 of each flow's last event (0: none)
	whole := mo.NewScheduler(0)
	buf := make([]byte, rec*4096)
	word := make([]uint64, 1)
	next := 0 // index into starts of the next start to reach
	for k := 0; k < n; {
		m := min(n-k, len(buf)/rec)
		if _, err := io.ReadFull(r, buf[:m*rec]); err != nil {
			return nil, fmt.Errorf("cosim: %s: reading event %d: %w", stimName, k, err)
		}
		for j := 0; j < m; j, k = j+1, k+1 {
			line := buf[j*rec : (j+1)*rec]
			if line[D] != '\n' {
				return nil, fmt.Errorf("cosim: %s: line %d: want %d hex digits and a newline", stimName, k+1, D)
			}
			var v uint64
			for _, c := range line[D-digits : D] {
				d, ok := hexDigit(c)
				if !ok {
					return nil, fmt.Errorf("cosim: %s: line %d: %q is not a hex digit", stimName, k+1, c)
				}
				v = v<<4 | d
			}
			word[0] = v
			flow, init := fieldtable.Get(word, ff), fieldtable.Get(word, fInit) == 1
			if int(flow) >= len(last) {
				return nil, fmt.Errorf("cosim: %s: line %d: ev_flow %d: the set's flow table has %d flows", stimName, k+1, flow, len(last))
			}
			if next < len(starts) && starts[next] == k {
				for a := 0; a < next; a++ {
					cum[a][next] = sched[a].Stalls()
				}
				sched[next] = mo.NewScheduler(gap)
				next++
			}
			if prev := last[flow] - 1; !init && prev >= 0 {
				for c := 1; c < next; c++ {
					if starts[c] > prev {
						sound[c] = false // the event needs its flow's entry from before the cut
					}
				}
			}
			last[flow] = k + 1
			whole.Offer(uint32(flow))
			for a := 0; a < next; a++ {
				sched[a].Offer(uint32(flow))
			}
		}
	}
	for a := range starts {
		cum[a][len(starts)] = sched[a].Stalls()
	}
	p := &modulePlan{whole: whole.Stalls()}
	var keep []int // indexes into starts of the sound starts
	for a := range starts {
		if sound[a] {
			keep = append(keep, a)
		}
	}
	for i, a := range keep {
		b, end := len(starts), n
		if i+1 < len(keep) {
			b = keep[i+1]
			end = starts[b]
		}
		p.segs = append(p.segs, segment{first: starts[a], n: end - starts[a]})
		p.stalls = append(p.stalls, cum[a][b])
	}
	return p, nil
}

// hexDigit returns the value of the hex digit c.
func hexDigit(c byte) (uint64, bool) {
	switch {
	case c >= '0' && c <= '9':
		return uint64(c - '0'), true
	case c >= 'a' && c <= 'f':
		return uint64(c-'a') + 10, true
	case c >= 'A' && c <= 'F':
		return uint64(c-'A') + 10, true
	}
	return 0, false
}

// runSegments runs the set's segments in simulator processes, at most jobs
// at once, and merges their results in event order: counts and CPU time
// summed, outputs concatenated, Duration the longest process's, SimTime
// from the first process's "loaded" line to the last one's end. Progress
// is summed over the segments.
func runSegments(ctx context.Context, b *verilog.Build, stim, exp string, segs []segment, jobs, gap int) (verilog.Result, error) {
	results := make([]verilog.Result, len(segs))
	errs := make([]error, len(segs))
	done := make([]atomic.Int64, len(segs))
	ends := make([]time.Time, len(segs))
	var total int64
	for _, s := range segs {
		total += int64(s.n)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(jobs, 1))
	for j, s := range segs {
		bj := *b
		if b.Progress != nil {
			bj.Progress = func(k, _ int64) {
				done[j].Store(k)
				var sum int64
				for i := range done {
					sum += done[i].Load()
				}
				mu.Lock()
				b.Progress(sum, total)
				mu.Unlock()
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if err := ctx.Err(); err != nil {
				errs[j] = err
				return
			}
			start := time.Now()
			results[j], errs[j] = bj.RunRange(ctx, stim, exp, s.first, s.n, gap)
			ends[j] = time.Now()
			if results[j].SimTime <= 0 { // no "loaded" line: the whole run
				results[j].SimTime = ends[j].Sub(start)
			}
		}()
	}
	wg.Wait()
	var r verilog.Result
	var out strings.Builder
	var loaded, end time.Time // the first process's files loaded, the last one's end
	for j, res := range results {
		if errs[j] != nil {
			return r, fmt.Errorf("cosim: events %d..%d: %w", segs[j].first, segs[j].first+segs[j].n-1, errs[j])
		}
		r.Passed += res.Passed
		r.Failed += res.Failed
		r.Stalls += res.Stalls
		r.Duration = max(r.Duration, res.Duration)
		r.CPUTime += res.CPUTime
		if l := ends[j].Add(-res.SimTime); j == 0 || l.Before(loaded) {
			loaded = l
		}
		if j == 0 || ends[j].After(end) {
			end = ends[j]
		}
		out.WriteString(res.Output)
	}
	r.SimTime = end.Sub(loaded)
	r.Output = out.String()
	return r, nil
}
