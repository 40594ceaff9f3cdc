package cosim

import (
	"fmt"
	"path/filepath"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// Emitted is what EmitHPCC wrote and the timing of the emitted modules.
type Emitted struct {
	Files  []string    // file names written into the directory, in write order
	Update *rtl.Module // hpcc_update (pipelined)
	Module *rtl.Module // hpcc_module (flow table around hpcc_update)
	Opts   hpccrtl.ModuleOptions
	Stages []rtl.StageReport // per pipeline stage of hpcc_update: ops, depth estimate, register bits
}

// EmitHPCC writes the HPCC++ RTL for cfg into dir: hpcc_update.v with the
// given number of pipeline stages (latency in cycles, II 1), hpcc_module.v
// with a flow table of 2^flowBits flows, their testbenches, and each
// module's field layouts as Verilog includes (<module>_in.vh, _out.vh) and
// JSON (_in.json, _out.json). Every file is written atomically. It is the
// library form of `hpccgold emit verilog`.
func EmitHPCC(dir string, cfg hpcc.Config, stages, flowBits int) (*Emitted, error) {
	upd, stageRep, err := hpccrtl.Update(cfg, stages)
	if err != nil {
		return nil, err
	}
	mopts := hpccrtl.ModuleOptions{Stages: stages, FlowBits: flowBits}
	mod, err := hpccrtl.Module(cfg, mopts)
	if err != nil {
		return nil, err
	}
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	modIn, modOut, err := hpccrtl.ModuleTables(cfg, mopts)
	if err != nil {
		return nil, err
	}
	benches := []verilog.Bench{
		{DUT: upd, In: d.InputTable(), Out: d.OutputTable(), ValidIn: hpccrtl.ValidIn, ValidOut: hpccrtl.ValidOut},
		{DUT: mod, In: modIn, Out: modOut, ValidIn: hpccrtl.EvValid, ValidOut: hpccrtl.UpdValid, Ready: hpccrtl.EvReady},
	}
	e := &Emitted{Update: upd, Module: mod, Opts: mopts, Stages: stageRep}
	vm, err := vectors.NewHPCC(cfg)
	if err != nil {
		return nil, err
	}
	for _, b := range benches {
		if err := emitBench(dir, b, vm.Enums(), &e.Files); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// emitBench writes b's modules and testbench (verilog.Emit) and its field
// layouts as Verilog includes (<module>_in.vh, _out.vh), JSON (_in.json,
// _out.json), a SystemVerilog package of packed structs and enums
// (<module>_pkg.sv), Verilog-2005 pack/unpack modules (<module>_bus.v) and
// the module's named port connections for an instance (<module>_connect.vh)
// into dir, atomically, appending the names of the files written to *files
// (each name once).
func emitBench(dir string, b verilog.Bench, enums []fieldtable.Enum, files *[]string) error {
	add := func(n string) {
		for _, f := range *files {
			if f == n {
				return
			}
		}
		*files = append(*files, n)
	}
	names, err := verilog.Emit(dir, b)
	if err != nil {
		return err
	}
	for _, n := range names {
		add(n)
	}
	for _, t := range []struct {
		suffix string
		data   func() ([]byte, error)
	}{
		{"_in.vh", func() ([]byte, error) { return []byte(b.In.VerilogHeader(b.In.Name)), nil }},
		{"_out.vh", func() ([]byte, error) { return []byte(b.Out.VerilogHeader(b.Out.Name)), nil }},
		{"_in.json", b.In.JSON},
		{"_out.json", b.Out.JSON},
		{"_pkg.sv", func() ([]byte, error) {
			return verilog.Package(b.DUT.Name, []fieldtable.Table{b.In, b.Out}, enums), nil
		}},
		{"_bus.v", func() ([]byte, error) { return verilog.BusModules(b.DUT.Name, []fieldtable.Table{b.In, b.Out}), nil }},
		{"_connect.vh", func() ([]byte, error) { return verilog.PortConnections(b.DUT), nil }},
	} {
		data, err := t.data()
		if err != nil {
			return fmt.Errorf("cosim: layout of %s: %w", b.DUT.Name, err)
		}
		name := b.DUT.Name + t.suffix
		if err := atomicfile.WriteBytes(filepath.Join(dir, name), 0o644, data); err != nil {
			return err
		}
		add(name)
	}
	return nil
}
