package rtl

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// UpdateSpec describes a per-event congestion-control update datapath (such
// as hpcc_update or ldcp_update) to CombUpdate and PipelinedUpdate, which
// share the wrapper every such generator needs: build the combinational
// module, optionally pipeline it with a valid handshake, and stamp the
// generated-file header parameters.
type UpdateSpec struct {
	// Comb builds the combinational module (its ports and body). Its Name
	// and Doc become the pipelined module's name and doc.
	Comb func() (*Module, error)
	// ValidIn and ValidOut name the 1-bit handshake ports the pipeliner
	// adds (PipelineOptions.ValidIn/ValidOut).
	ValidIn, ValidOut string
	// Pkg prefixes pipeliner errors, e.g. "hpccrtl".
	Pkg string
	// ConfigSource names the package of the configuration in the Config
	// header parameter, e.g. "cc/hpcc".
	ConfigSource string
	// ConfigJSON returns the configuration as JSON for the header.
	ConfigJSON func() ([]byte, error)
}

// CombUpdate returns the combinational update (no clock, no handshake) of
// s, with header parameters for Stages = 0.
func CombUpdate(s UpdateSpec) (*Module, error) {
	m, err := s.Comb()
	if err != nil {
		return nil, err
	}
	AddConfigParams(m, 0, s.ConfigSource, s.ConfigJSON)
	return m, nil
}

// PipelinedUpdate returns the update of s pipelined into stages register
// stages (latency = stages cycles, initiation interval 1) with the
// s.ValidIn/s.ValidOut handshake, and the pipeliner's per-stage report.
// stages = 0 gives a combinational module with ValidOut = ValidIn. The
// combinational module's parameters are replaced by those of
// AddConfigParams for the given depth.
func PipelinedUpdate(s UpdateSpec, stages int) (*Module, []StageReport, error) {
	comb, err := s.Comb()
	if err != nil {
		return nil, nil, err
	}
	p, rep, err := Pipeline(comb, PipelineOptions{Name: comb.Name, Doc: comb.Doc, Stages: stages,
		ValidIn: s.ValidIn, ValidOut: s.ValidOut})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", s.Pkg, err)
	}
	p.Params = nil
	AddConfigParams(p, stages, s.ConfigSource, s.ConfigJSON)
	return p, rep, nil
}

// AddConfigParams records, for generated-file headers, the generator
// (buildinfo.String()), the pipeline depth stages and the configuration
// returned by configJSON, one parameter per JSON line after a "Config"
// line naming source (e.g. "cc/hpcc"). A configuration that fails to
// marshal is left out of the header.
func AddConfigParams(m *Module, stages int, source string, configJSON func() ([]byte, error)) {
	m.AddParam("Generator", buildinfo.String())
	m.AddParam("Stages", fmt.Sprint(stages))
	js, err := configJSON()
	if err != nil {
		return
	}
	m.AddParam("Config", "("+source+" JSON below)")
	for line := range strings.Lines(string(js)) {
		m.AddParam("", strings.TrimSuffix(line, "\n"))
	}
}
