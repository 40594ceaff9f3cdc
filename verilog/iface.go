package verilog

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// Port is one port of a DUT as a testbench connects it: its name, width in
// bits and direction.
type Port struct {
	Name   string
	Width  int
	Output bool
}

// Interface is a DUT's module name and ports in declaration order: all a
// testbench needs to instantiate it. ModuleInterface derives it from an rtl
// module; ReadInterface (package verilog, Yosys) reads it from RTL that
// hpccgold did not write.
type Interface struct {
	Name  string
	Ports []Port
}

// The clock and reset port names a testbench connects by convention:
// ClockPort (rising edge), ResetPort (synchronous, active high) or
// ResetNPort (active low). The printer emits clk and rst.
const (
	ClockPort  = "clk"
	ResetPort  = "rst"
	ResetNPort = "rst_n"
)

// ModuleInterface returns the ports of m exactly as Print declares them, in
// the same order: clk and rst first when m holds state (rst only when a
// register has a reset), then the inputs, then the outputs.
func ModuleInterface(m *rtl.Module) Interface {
	it := Interface{Name: m.Name}
	if m.Clocked() {
		it.Ports = append(it.Ports, Port{Name: ClockPort, Width: 1})
		if needsReset(m) {
			it.Ports = append(it.Ports, Port{Name: ResetPort, Width: 1})
		}
	}
	for _, in := range m.Inputs {
		it.Ports = append(it.Ports, Port{Name: in.Name, Width: in.Width})
	}
	for _, o := range m.Outputs {
		it.Ports = append(it.Ports, Port{Name: o.Name, Width: o.Node.Width, Output: true})
	}
	return it
}

// Port returns the named port, or false.
func (it Interface) Port(name string) (Port, bool) {
	for _, p := range it.Ports {
		if p.Name == name {
			return p, true
		}
	}
	return Port{}, false
}

// String returns the direction, width and name, e.g. "input [31:0] st_w".
func (p Port) String() string {
	dir := "input"
	if p.Output {
		dir = "output"
	}
	return fmt.Sprintf("%s %s%s", dir, rng(p.Width), p.Name)
}
