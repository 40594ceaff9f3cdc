package cosim

import (
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// UpdateEmitted is what EmitUpdate wrote and the timing of the update
// module.
type UpdateEmitted struct {
	Files  []string          // file names written into the directory, in write order
	Update *rtl.Module       // the update module (pipelined)
	Stages []rtl.StageReport // per pipeline stage: ops, depth estimate, register bits
}

// EmitUpdate writes model's update RTL (package vectors/registry) into
// dir: <name>.v with the given number of pipeline stages (latency in
// cycles, II 1), its testbench tb_<name>.v, and the field layouts as
// Verilog includes (<name>_in.vh, _out.vh) and JSON (_in.json, _out.json)
// with the other interface files of emitBench. Every file is written
// atomically. It is the library form of `hpccgold emit verilog --cc ldcp`.
func EmitUpdate(dir string, model vectors.Model, stages int) (*UpdateEmitted, error) {
	bench, rep, err := updateBench(model, stages)
	if err != nil {
		return nil, err
	}
	var enums []fieldtable.Enum
	if en, ok := model.(vectors.Enumer); ok {
		enums = en.Enums()
	}
	e := &UpdateEmitted{Update: bench.DUT, Stages: rep}
	if err := emitBench(dir, bench, enums, &e.Files); err != nil {
		return nil, err
	}
	return e, nil
}
