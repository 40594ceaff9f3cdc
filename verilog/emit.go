package verilog

import (
	"fmt"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
)

// Emit writes the DUT's modules (one file per module, see PrintAll) and its
// testbench (tb_<dut>.v) into dir and returns the file names in compile
// order, the testbench last.
func Emit(dir string, b Bench) ([]string, error) {
	if b.DUT == nil {
		return nil, errorf("emit %s: no rtl module to print (Bench.DUT is nil)", b.Name())
	}
	files, err := PrintAll(b.DUT)
	if err != nil {
		return nil, err
	}
	tb, err := b.Testbench()
	if err != nil {
		return nil, err
	}
	files = append(files, File{Name: b.Name() + ".v", Data: tb})
	if err := WriteFiles(dir, files); err != nil {
		return nil, err
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = f.Name
	}
	return names, nil
}

// ModuleFiles returns the file names of m and its submodules (callees first).
func ModuleFiles(m *rtl.Module) []string {
	var out []string
	for _, s := range rtl.Submodules(m) {
		out = append(out, s.Name+".v")
	}
	return out
}

// errorf prefixes package errors uniformly.
func errorf(format string, args ...any) error { return fmt.Errorf("verilog: "+format, args...) }

// PortTables derives stimulus and expected field tables from m's ports, in
// port order, leaving out the named handshake ports. Ports wider than 64
// bits cannot be fields. Field formats are "s<W>" / "u<W>" (raw integers).
func PortTables(m *rtl.Module, exclude ...string) (in, out fieldtable.Table, err error) {
	skip := map[string]bool{}
	for _, e := range exclude {
		skip[e] = true
	}
	var is, os []fieldtable.Spec
	for _, n := range m.Inputs {
		if !skip[n.Name] {
			is = append(is, fieldtable.Spec{Name: n.Name, Width: n.Width, Format: n.Type(), Doc: n.Doc})
		}
	}
	for _, p := range m.Outputs {
		if !skip[p.Name] {
			os = append(os, fieldtable.Spec{Name: p.Name, Width: p.Node.Width, Format: p.Node.Type(), Doc: p.Doc})
		}
	}
	if in, err = fieldtable.New(m.Name+"_in", is); err != nil {
		return in, out, errorf("%w", err)
	}
	if out, err = fieldtable.New(m.Name+"_out", os); err != nil {
		return in, out, errorf("%w", err)
	}
	return in, out, nil
}
