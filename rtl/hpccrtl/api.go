package hpccrtl

import (
	"fmt"

	"github.com/hpccgold/hpccgold/buildinfo"
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
	m, err := buildComb(d)
	if err != nil {
		return nil, err
	}
	addParams(m, cfg, 0)
	return m, nil
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
	comb, err := buildComb(d)
	if err != nil {
		return nil, nil, err
	}
	p, rep, err := rtl.Pipeline(comb, rtl.PipelineOptions{Name: UpdateName, Doc: comb.Doc, Stages: stages,
		ValidIn: ValidIn, ValidOut: ValidOut})
	if err != nil {
		return nil, nil, fmt.Errorf("hpccrtl: %w", err)
	}
	p.Params = nil
	addParams(p, cfg, stages)
	return p, rep, nil
}

// addParams records the configuration in the module for generated-file
// headers: the pipeline depth and the full cc/hpcc Config as JSON lines.
func addParams(m *rtl.Module, cfg hpcc.Config, stages int) {
	m.AddParam("Generator", buildinfo.String())
	m.AddParam("Stages", fmt.Sprint(stages))
	js, err := cfg.JSON()
	if err != nil {
		return
	}
	m.AddParam("Config", "(cc/hpcc JSON below)")
	for _, line := range splitLines(string(js)) {
		m.AddParam("", line)
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
