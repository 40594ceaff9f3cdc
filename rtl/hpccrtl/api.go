package hpccrtl

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
)

// UpdateComb returns the combinational hpcc_update (no clock, no
// handshake): the form the LLVM IR printer lowers. Its ports are exactly
// the golden datapath's InputTable and OutputTable fields, in order.
func UpdateComb(cfg hpcc.Config) (*rtl.Module, error) {
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	return rtl.CombUpdate(updateSpec(d, cfg))
}

// Update returns hpcc_update pipelined into stages register stages
// (latency = stages cycles, one update accepted per cycle) with the
// in_valid/out_valid handshake, and the pipeliner's per-stage report.
// stages = 0 gives a combinational module with out_valid = in_valid.
func Update(cfg hpcc.Config, stages int) (*rtl.Module, []rtl.StageReport, error) {
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, nil, err
	}
	return rtl.PipelinedUpdate(updateSpec(d, cfg), stages)
}

// updateSpec describes hpcc_update of datapath d (built from cfg) to the
// shared rtl update wrapper.
func updateSpec(d *hpcc.Datapath, cfg hpcc.Config) rtl.UpdateSpec {
	return rtl.UpdateSpec{
		Comb:         func() (*rtl.Module, error) { return buildComb(d) },
		ValidIn:      ValidIn,
		ValidOut:     ValidOut,
		Pkg:          "hpccrtl",
		ConfigSource: "cc/hpcc",
		ConfigJSON:   cfg.JSON,
	}
}

// addParams records the configuration in the module for generated-file
// headers: the pipeline depth and the full cc/hpcc Config as JSON lines.
func addParams(m *rtl.Module, cfg hpcc.Config, stages int) {
	rtl.AddConfigParams(m, stages, "cc/hpcc", cfg.JSON)
}
