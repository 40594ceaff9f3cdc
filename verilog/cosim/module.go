package cosim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/verilog"
)

// ModuleOptions configures a co-simulation of hpcc_module.
type ModuleOptions struct {
	Options      // Config, Stages, Simulator, WorkDir, CacheDir, Lint, Synth, Gap, Log
	FlowBits int // flow-table depth 2^FlowBits
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
// kinds one after the other, in one run) against the Go module model.
func RunModule(ctx context.Context, opts ModuleOptions) (*ModuleReport, error) {
	if err := opts.Options.check(); err != nil {
		return nil, err
	}
	if opts.Events < 1 {
		return nil, fmt.Errorf("cosim: Events=%d: must be at least 1 (events per stream kind)", opts.Events)
	}
	tools, err := opts.tools()
	if err != nil {
		return nil, err
	}
	mo := hpccrtl.ModuleOptions{Stages: opts.Stages, FlowBits: opts.FlowBits}
	m, err := hpccrtl.Module(opts.Config, mo)
	if err != nil {
		return nil, err
	}
	mm, err := hpccrtl.NewModuleModel(opts.Config, mo)
	if err != nil {
		return nil, err
	}
	var events []hpccrtl.Event
	for i, k := range opts.Kinds {
		ev, err := hpccrtl.Stream(opts.Config, mo, k, opts.Events, opts.Seed+int64(i))
		if err != nil {
			return nil, err
		}
		events = append(events, ev...)
	}
	if len(events) == 0 {
		return nil, fmt.Errorf("cosim: no events (Kinds and Events)")
	}
	stim, exp, err := mm.Vectors(events)
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
	rep, err := run(ctx, &opts.Options, tools, bench, dir, len(events), nil)
	if err != nil {
		return nil, err
	}
	return &ModuleReport{Report: *rep, WantStalls: mo.Schedule(flows, opts.Gap)}, nil
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
