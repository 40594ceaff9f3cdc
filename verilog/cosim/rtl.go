package cosim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// The handshake of a user's DUT (RunRTL): a transaction is offered with
// RTLValidIn high, a result is collected on each cycle with RTLValidOut
// high, and, when the top has an RTLReady output, an offer is held until
// RTLReady is high.
const (
	RTLValidIn  = "in_valid"
	RTLValidOut = "out_valid"
	RTLReady    = "in_ready"
)

// ErrContract is wrapped when the user's top module's ports do not fit the
// golden set's field tables (a *ContractError lists every problem).
var ErrContract = errors.New("port contract")

// ContractError lists every port of the top module that is missing, extra,
// of the wrong width or of the wrong direction.
type ContractError struct {
	Top      string
	Set      string // the golden set's directory
	Problems []string
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("cosim: top %s does not fit the field tables of %s (layout.json), %d problem(s):\n  %s",
		e.Top, e.Set, len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Unwrap makes errors.Is(err, ErrContract) true.
func (e *ContractError) Unwrap() error { return ErrContract }

// RTLOptions configures a co-simulation of RTL hpccgold did not write.
type RTLOptions struct {
	// Files are the user's Verilog/SystemVerilog files (relative to the
	// working directory or absolute); Top names the module to verify.
	Files []string
	Top   string
	// Model makes the golden set when Vectors is empty: generated into
	// WorkDir/vectors with Level, Seed and Count.
	Model vectors.Model
	// Vectors is the golden set (layout.json gives the ports' names and
	// widths). The run settings Simulator, Limit, Gap, WorkDir, CacheDir,
	// MaxVectors and Log are those of Options; its other fields are unused.
	Options
}

// ReadLayout returns the input and output field tables of the golden set
// in dir, from its layout.json.
func ReadLayout(dir string) (in, out fieldtable.Table, model string, err error) {
	data, err := os.ReadFile(filepath.Join(dir, vectors.LayoutFile))
	if err != nil {
		return in, out, "", fmt.Errorf("cosim: %w", err)
	}
	var lf struct {
		Model  string           `json:"model"`
		Input  fieldtable.Table `json:"input"`
		Output fieldtable.Table `json:"output"`
	}
	if err := json.Unmarshal(data, &lf); err != nil {
		return in, out, "", fmt.Errorf("cosim: %s: %w", filepath.Join(dir, vectors.LayoutFile), err)
	}
	if len(lf.Input.Fields) == 0 || len(lf.Output.Fields) == 0 {
		return in, out, "", fmt.Errorf("cosim: %s: no input or no output fields", filepath.Join(dir, vectors.LayoutFile))
	}
	return lf.Input, lf.Output, lf.Model, nil
}

// RTLBench reads the top module's ports (verilog.Tools.ReadInterface,
// Yosys) and returns the testbench description binding them by name to
// the set's field tables, after the port contract check: every field of
// the set's input table an input of its width, every output field an
// output of its width, in_valid and out_valid (1 bit), optionally clk,
// rst or rst_n (active low) and in_ready; anything else is a
// *ContractError listing every missing, extra or mis-sized port.
func RTLBench(ctx context.Context, tools verilog.Tools, workDir string, files []string, top, set string) (verilog.Bench, error) {
	in, out, _, err := ReadLayout(set)
	if err != nil {
		return verilog.Bench{}, err
	}
	it, err := tools.ReadInterface(ctx, filepath.Join(workDir, "ports"), files, top)
	if err != nil {
		return verilog.Bench{}, err
	}
	var abs []string
	for _, f := range files {
		a, err := filepath.Abs(f)
		if err != nil {
			return verilog.Bench{}, fmt.Errorf("cosim: %w", err)
		}
		abs = append(abs, a)
	}
	b := verilog.Bench{Ports: &it, Files: abs, In: in, Out: out, ValidIn: RTLValidIn, ValidOut: RTLValidOut}
	if p, ok := it.Port(RTLReady); ok && p.Output {
		b.Ready = RTLReady
	}
	if probs := b.Contract(); len(probs) > 0 {
		return b, &ContractError{Top: top, Set: set, Problems: probs}
	}
	return b, nil
}

// RunRTL co-simulates the user's top module against a golden vector set:
// it checks the port contract (RTLBench) before building anything, writes
// the testbench (tb_<top>.v) into WorkDir/rtl, builds it with the user's
// files under the simulator and runs every vector. Results are compared in
// order as out_valid presents them, so any latency and any number of idle
// cycles work; a DUT that stops producing results fails after
// verilog.Timeout idle cycles. The Report names each failing vector's
// class and differing fields.
func RunRTL(ctx context.Context, opts RTLOptions) (*Report, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	if opts.Vectors == "" {
		if opts.Model == nil {
			return nil, fmt.Errorf("cosim: RTL %s: Vectors (a golden set) or Model (to generate one) is required", opts.Top)
		}
		dir, _, _, err := vectorSetFor(&opts.Options, opts.Model)
		if err != nil {
			return nil, err
		}
		opts.Vectors = dir
	}
	if len(opts.Files) == 0 {
		return nil, fmt.Errorf("cosim: RTL %s: no files", opts.Top)
	}
	if opts.Lint || opts.Synth {
		return nil, fmt.Errorf("cosim: RTL %s: Lint and Synth apply to hpccgold's RTL only", opts.Top)
	}
	t := verilog.LookupTools()
	if err := t.Need(verilog.FlowPorts, opts.Simulator.Flow()); err != nil {
		return nil, fmt.Errorf("cosim: %w", err)
	}
	b, err := RTLBench(ctx, t, opts.WorkDir, opts.Files, opts.Top, opts.Vectors)
	if err != nil {
		return nil, err
	}
	man, err := vectors.ReadManifest(opts.Vectors)
	if err != nil {
		return nil, err
	}
	opts.stream = man.Module != nil // a stream set runs in order, in one process
	n := int(man.Count)
	if opts.Limit > 0 && opts.Limit < n {
		n = opts.Limit
	}
	if n == 0 {
		return nil, fmt.Errorf("cosim: %s holds no vectors", opts.Vectors)
	}
	b.MaxVectors = maxVec(n)
	if opts.MaxVectors > 0 {
		if opts.MaxVectors < n {
			return nil, fmt.Errorf("cosim: MaxVectors=%d: below the %d vectors used", opts.MaxVectors, n)
		}
		b.MaxVectors = opts.MaxVectors
	}
	tb, err := b.Testbench()
	if err != nil {
		return nil, err
	}
	src := filepath.Join(opts.WorkDir, "rtl")
	if err := verilog.WriteFiles(src, []verilog.File{{Name: b.Name() + ".v", Data: tb}}); err != nil {
		return nil, err
	}
	files := append(append([]string(nil), b.Files...), b.Name()+".v")
	opts.logf("%s: ports fit %s (%d inputs, %d outputs); handshake in_valid/out_valid%s", opts.Top, opts.Vectors,
		len(b.In.Fields), len(b.Out.Fields), map[bool]string{true: "/in_ready", false: ""}[b.Ready != ""])
	rep := &Report{Design: opts.Top, Simulator: opts.Simulator, Stages: -1, Vectors: n, Classes: man.Classes, Dir: src}
	if err := buildRun(ctx, &opts.Options, t, b, src, files, opts.Vectors, n, rep); err != nil {
		return nil, err
	}
	return rep, nil
}
