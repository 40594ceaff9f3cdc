package cosim

import (
	"context"
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// LDCPOptions configures a co-simulation of ldcp_update: the run settings
// of Options (Stages, Simulator, Vectors, Level, Seed, Count, Limit,
// WorkDir, CacheDir, Lint, Synth, Gap, Log; its HPCC++ Config is not used)
// and the LDCP configuration of both the RTL and the golden vectors.
type LDCPOptions struct {
	Options
	LDCP ldcp.Config
}

// ldcpBench builds ldcp_update pipelined into stages and its testbench
// description, with the vector model whose field tables are its ports.
func ldcpBench(cfg ldcp.Config, stages int) (verilog.Bench, *ldcpvec.Model, []rtl.StageReport, error) {
	m, rep, err := ldcprtl.Update(cfg, stages)
	if err != nil {
		return verilog.Bench{}, nil, nil, err
	}
	model, err := ldcpvec.New(cfg)
	if err != nil {
		return verilog.Bench{}, nil, nil, err
	}
	b := verilog.Bench{DUT: m, In: model.Input(), Out: model.Output(), ValidIn: ldcprtl.ValidIn, ValidOut: ldcprtl.ValidOut}
	return b, model, rep, nil
}

// RunLDCP co-simulates ldcp_update on a golden LDCP vector set (package
// cc/ldcp/ldcpvec; generated into WorkDir/vectors unless opts.Vectors
// names one made with the same configuration): emit, optionally lint and
// synthesize, build, run every vector, and report passes and failures.
func RunLDCP(ctx context.Context, opts LDCPOptions) (*Report, error) {
	if err := opts.Options.check(); err != nil {
		return nil, err
	}
	tools, err := opts.tools()
	if err != nil {
		return nil, err
	}
	bench, model, _, err := ldcpBench(opts.LDCP, opts.Stages)
	if err != nil {
		return nil, err
	}
	dir, n, classes, err := vectorSetFor(&opts.Options, model)
	if err != nil {
		return nil, err
	}
	return run(ctx, &opts.Options, tools, bench, dir, n, classes)
}

// RunLDCPLockstep drives ldcp_update under the chosen simulator one
// transaction at a time and stops at the first divergence from the golden
// outputs (as RunLockstep does for hpcc_update).
func RunLDCPLockstep(ctx context.Context, opts LDCPOptions) (*LockstepReport, error) {
	if err := opts.Options.check(); err != nil {
		return nil, err
	}
	bench, model, _, err := ldcpBench(opts.LDCP, opts.Stages)
	if err != nil {
		return nil, err
	}
	return lockstep(ctx, &opts.Options, bench, model)
}

// LDCPConfigFromManifest returns the configuration an LDCP vector set was
// generated with (its manifest's "config").
func LDCPConfigFromManifest(dir string) (ldcp.Config, error) {
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		return ldcp.Config{}, err
	}
	if man.Model != ldcpvec.Name {
		return ldcp.Config{}, fmt.Errorf("cosim: %s: model %q, want %q", dir, man.Model, ldcpvec.Name)
	}
	return ldcp.LoadConfig(strings.NewReader(string(man.Config)))
}

// LDCPEmitted is what EmitLDCP wrote and the timing of ldcp_update.
type LDCPEmitted struct {
	Files  []string          // file names written into the directory, in write order
	Update *rtl.Module       // ldcp_update (pipelined)
	Stages []rtl.StageReport // per pipeline stage: ops, depth estimate, register bits
}

// EmitLDCP writes the LDCP RTL for cfg into dir: ldcp_update.v with the
// given number of pipeline stages (latency in cycles, II 1), its testbench
// tb_ldcp_update.v, and the field layouts as Verilog includes
// (ldcp_update_in.vh, _out.vh) and JSON (_in.json, _out.json). Every file
// is written atomically. It is the library form of
// `hpccgold emit verilog --cc ldcp`.
func EmitLDCP(dir string, cfg ldcp.Config, stages int) (*LDCPEmitted, error) {
	bench, _, rep, err := ldcpBench(cfg, stages)
	if err != nil {
		return nil, err
	}
	e := &LDCPEmitted{Update: bench.DUT, Stages: rep}
	if err := emitBench(dir, bench, nil, &e.Files); err != nil {
		return nil, err
	}
	return e, nil
}
