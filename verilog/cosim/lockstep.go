package cosim

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// LockstepReport is the outcome of a lockstep run.
type LockstepReport struct {
	Vectors    int    // transactions compared
	Diverged   bool   // a transaction differed
	Index      int    // its index in the vector set
	Divergence string // both states and outputs, field by field
}

// RunLockstep drives the update RTL of opts.Model (any model of package
// vectors/registry) under the chosen simulator one transaction at a time
// (a line protocol over the simulator's stdin and stdout), compares each
// result with the golden one, and stops at the first divergence, printing
// the state before, the event, and both next states and outputs field by
// field.
func RunLockstep(ctx context.Context, opts Options) (*LockstepReport, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	bench, _, err := updateBench(opts.Model, opts.Stages)
	if err != nil {
		return nil, err
	}
	return lockstep(ctx, &opts, bench, opts.Model)
}

// lockstep runs bench's DUT in lockstep on a vector set of model.
func lockstep(ctx context.Context, opts *Options, bench verilog.Bench, model vectors.Model) (*LockstepReport, error) {
	// Lockstep neither lints nor synthesizes: only the simulator's flow.
	tools := verilog.LookupTools()
	if err := tools.Need(opts.Simulator.Flow()); err != nil {
		return nil, fmt.Errorf("cosim: lockstep: %w", err)
	}
	dir, n, _, err := vectorSetFor(opts, model)
	if err != nil {
		return nil, err
	}
	m, in, out := bench.DUT, bench.In, bench.Out
	src := filepath.Join(opts.WorkDir, "rtl")
	files, err := verilog.PrintAll(m)
	if err != nil {
		return nil, err
	}
	tb, err := bench.LockstepTestbench()
	if err != nil {
		return nil, err
	}
	files = append(files, verilog.File{Name: bench.LockstepName() + ".v", Data: tb})
	if err := verilog.WriteFiles(src, files); err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	cache := opts.CacheDir
	if cache == "" {
		cache = filepath.Join(opts.WorkDir, "build")
	}
	opts.logf("build: %s (lockstep)", opts.Simulator)
	b, err := tools.Compile(ctx, opts.Simulator, src, cache, bench.LockstepName(), names, 0)
	if err != nil {
		return nil, err
	}
	stimPath, expPath, err := vectorFiles(opts, dir, false)
	if err != nil {
		return nil, err
	}
	stim, err := verilog.ReadVectors(stimPath, in, n)
	if err != nil {
		return nil, err
	}
	exp, err := verilog.ReadVectors(expPath, out, n)
	if err != nil {
		return nil, err
	}
	ls, err := verilog.StartLockstep(ctx, b, in, out)
	if err != nil {
		return nil, err
	}
	defer ls.Close()
	rep := &LockstepReport{}
	for k := 0; k < n; k++ {
		got, err := ls.Step(stim[k])
		if err != nil {
			return nil, fmt.Errorf("cosim: lockstep vector %d: %w", k, err)
		}
		rep.Vectors++
		if !equalWords(got, exp[k]) {
			rep.Diverged, rep.Index = true, k
			rep.Divergence = describe(in, out, stim[k], exp[k], got)
			break
		}
	}
	return rep, nil
}

func equalWords(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// describe prints the transaction's inputs and both outputs field by field,
// marking differing fields.
func describe(in, out fieldtable.Table, stim, want, got []uint64) string {
	var s strings.Builder
	s.WriteString("inputs (state before and event):\n")
	for _, f := range in.Fields {
		fmt.Fprintf(&s, "  %-24s %#x\n", f.Name, fieldtable.Get(stim, f))
	}
	s.WriteString("outputs (state after and outputs):       golden            RTL\n")
	for _, f := range out.Fields {
		w, g := fieldtable.Get(want, f), fieldtable.Get(got, f)
		mark := ""
		if w != g {
			mark = "  <-- differs"
		}
		fmt.Fprintf(&s, "  %-24s %#18x %#18x%s\n", f.Name, w, g, mark)
	}
	return s.String()
}

// Write prints the report.
func (r *LockstepReport) Write(w io.Writer) {
	if !r.Diverged {
		fmt.Fprintf(w, "lockstep: %d transactions, no divergence\n", r.Vectors)
		return
	}
	fmt.Fprintf(w, "lockstep: divergence at vector %d (after %d equal transactions)\n%s", r.Index, r.Index, r.Divergence)
}
