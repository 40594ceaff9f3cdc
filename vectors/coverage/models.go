package coverage

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// ForLDCP builds the coverage model of ldcp_update for cfg: the structural
// points of its description (ldcprtl.UpdateComb). Functional field points
// are declared for hpcc_update only.
func ForLDCP(cfg ldcp.Config) (*Model, error) {
	rm, err := ldcprtl.UpdateComb(cfg)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	m, err := newModel(rm)
	if err != nil {
		return nil, err
	}
	m.addStructural()
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// ForModel builds the coverage model of a vector model's datapath (its
// configuration read from Config): hpcc_update or ldcp_update.
func ForModel(vm vectors.Model) (*Model, error) {
	switch cfg := vm.Config().(type) {
	case hpcc.Config:
		return ForHPCC(cfg)
	case ldcp.Config:
		return ForLDCP(cfg)
	}
	return nil, fmt.Errorf("coverage: model %s: no functional coverage model (hpcc_update and ldcp_update have one)", vm.Name())
}
