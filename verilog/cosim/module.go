package cosim

import (
	"context"
	"fmt"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/vectors"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
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
// kinds one after the other, in one run) against the Go module model; or,
// with opts.Vectors, on an hpcc_module stream set (WriteModuleSet), whose
// configuration, stages, flow bits and predicted stall count come from its
// manifest (opts' must be zero or equal, and Gap 0: the stall count is for
// events offered back to back).
func RunModule(ctx context.Context, opts ModuleOptions) (*ModuleReport, error) {
	if err := opts.Options.check(); err != nil {
		return nil, err
	}
	tools, err := opts.tools()
	if err != nil {
		return nil, err
	}
	if opts.Vectors != "" {
		return runModuleSet(ctx, opts, tools)
	}
	mo, mm, events, stim, exp, err := moduleStream(opts)
	if err != nil {
		return nil, err
	}
	m, err := hpccrtl.Module(opts.Config, mo)
	if err != nil {
		return nil, err
	}
	in, out := mm.Tables()
	dir := filepath.Join(opts.WorkDir, "module_vectors")
	if err := writeHex(dir, in, out, stim, exp); err != nil {
		return nil, err
	}
	flows := make([]uint32, len(events))
	for i, ev := range events {
		flows[i] = ev.Flow
	}
	bench := verilog.Bench{DUT: m, In: in, Out: out, ValidIn: hpccrtl.EvValid, ValidOut: hpccrtl.UpdValid, Ready: hpccrtl.EvReady}
	opts.logf("hpcc_module: %d events (%v), %d flows, update stages %d", len(events), opts.Kinds, 1<<uint(opts.FlowBits), opts.Stages)
	opts.stream = true // events in order: one process
	rep, err := run(ctx, &opts.Options, tools, bench, dir, len(events), nil)
	if err != nil {
		return nil, err
	}
	return &ModuleReport{Report: *rep, WantStalls: mo.Schedule(flows, opts.Gap)}, nil
}

// runModuleSet is RunModule on the stream set opts.Vectors.
func runModuleSet(ctx context.Context, opts ModuleOptions, tools verilog.Tools) (*ModuleReport, error) {
	so, man, err := ModuleSetOptions(opts.Vectors)
	if err != nil {
		return nil, err
	}
	if opts.Gap != 0 {
		return nil, fmt.Errorf("cosim: Gap=%d: a stream set records the stall count of its events offered back to back (Gap 0)", opts.Gap)
	}
	if opts.FlowBits != 0 && opts.FlowBits != so.FlowBits || opts.Stages != 0 && opts.Stages != so.Stages {
		return nil, fmt.Errorf("cosim: FlowBits=%d, Stages=%d: the set %s was made for %d and %d", opts.FlowBits, opts.Stages, opts.Vectors, so.FlowBits, so.Stages)
	}
	mo := hpccrtl.ModuleOptions{Stages: so.Stages, FlowBits: so.FlowBits}
	m, err := hpccrtl.Module(so.Config, mo)
	if err != nil {
		return nil, err
	}
	mm, err := hpccrtl.NewModuleModel(so.Config, mo)
	if err != nil {
		return nil, err
	}
	in, out := mm.Tables()
	run0 := opts.Options
	run0.Stages, run0.stream = so.Stages, true
	bench := verilog.Bench{DUT: m, In: in, Out: out, ValidIn: hpccrtl.EvValid, ValidOut: hpccrtl.UpdValid, Ready: hpccrtl.EvReady}
	opts.logf("hpcc_module: stream set %s: %d events, %d flows, update stages %d", opts.Vectors, man.Count, 1<<uint(so.FlowBits), so.Stages)
	rep, err := run(ctx, &run0, tools, bench, opts.Vectors, int(man.Count), nil)
	if err != nil {
		return nil, err
	}
	return &ModuleReport{Report: *rep, WantStalls: man.Module.WantStalls}, nil
}

// writeHex writes stimulus.hex and expected.hex.
func writeHex(dir string, in, out fieldtable.Table, stim, exp [][]uint64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cosim: %w", err)
	}
	var sb, eb []byte
	for i := range stim {
		sb = append(in.AppendHex(sb, stim[i]), '\n')
		eb = append(out.AppendHex(eb, exp[i]), '\n')
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "stimulus.hex"), 0o644, sb); err != nil {
		return fmt.Errorf("cosim: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "expected.hex"), 0o644, eb); err != nil {
		return fmt.Errorf("cosim: %w", err)
	}
	return nil
}

// ModuleModelName is the manifest model name of an hpcc_module stream set.
const ModuleModelName = "hpcc_module"

// moduleStream generates the events opts selects (the kinds one after the
// other) and their expected updates.
func moduleStream(opts ModuleOptions) (mo hpccrtl.ModuleOptions, mm *hpccrtl.ModuleModel, events []hpccrtl.Event, stim, exp [][]uint64, err error) {
	if opts.Events < 1 {
		return mo, nil, nil, nil, nil, fmt.Errorf("cosim: Events=%d: must be at least 1 (events per stream kind)", opts.Events)
	}
	mo = hpccrtl.ModuleOptions{Stages: opts.Stages, FlowBits: opts.FlowBits}
	if mm, err = hpccrtl.NewModuleModel(opts.Config, mo); err != nil {
		return mo, nil, nil, nil, nil, err
	}
	for i, k := range opts.Kinds {
		ev, err := hpccrtl.Stream(opts.Config, mo, k, opts.Events, opts.Seed+int64(i))
		if err != nil {
			return mo, nil, nil, nil, nil, err
		}
		events = append(events, ev...)
	}
	if len(events) == 0 {
		return mo, nil, nil, nil, nil, fmt.Errorf("cosim: no events (Kinds and Events)")
	}
	stim, exp, err = mm.Vectors(events)
	return mo, mm, events, stim, exp, err
}

// WriteModuleSet writes the event streams opts selects (Config, Stages,
// FlowBits, Kinds, Events, Seed) as an hpcc_module stream set in dir
// (vectors.WriteStreamSet): one class per stream kind, and the stall cycles
// the handshake rule predicts for the stream offered back to back, so that
// a co-simulation of a module that stalls more fails. WorkDir, Simulator
// and the run options are not used.
func WriteModuleSet(ctx context.Context, dir string, opts ModuleOptions) (*vectors.Manifest, error) {
	mo, mm, events, stim, exp, err := moduleStream(opts)
	if err != nil {
		return nil, err
	}
	flows := make([]uint32, len(events))
	for i, ev := range events {
		flows[i] = ev.Flow
	}
	in, out := mm.Tables()
	var kinds []string
	var classes []vectors.ClassCount
	for _, k := range opts.Kinds {
		kinds = append(kinds, string(k))
		classes = append(classes, vectors.ClassCount{Name: "stream_" + string(k), Level: 0,
			Doc: fmt.Sprintf("hpcc_module event stream of kind %s (seeded)", k), Count: int64(opts.Events)})
	}
	return vectors.WriteStreamSet(ctx, dir, vectors.StreamSet{Model: ModuleModelName, Config: opts.Config, In: in, Out: out,
		Stim: stim, Exp: exp, Classes: classes,
		Module: vectors.ModuleInfo{FlowBits: opts.FlowBits, Stages: opts.Stages, Kinds: kinds, EventsPerKind: opts.Events,
			Seed: opts.Seed, WantStalls: mo.Schedule(flows, 0)}})
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
