package verilog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/internal/exttool"
)

// ReadInterface reads the port list of module top from Verilog or
// SystemVerilog files that hpccgold did not write, with Yosys
// (`read_verilog -sv` of every file, `hierarchy -check -top top`,
// `write_json`): the names, directions and widths of top's ports in
// declaration order, with the module elaborated at its default parameters,
// so a width written as an expression or a parameter is read as the design
// has it. workDir receives the JSON netlist (ports.json) and the Yosys log.
// Files may be relative to the working directory. It needs the ports flow
// (Yosys). A file Yosys cannot read, a top it cannot find or an inout port
// is an error quoting Yosys or naming the port.
func (t Tools) ReadInterface(ctx context.Context, workDir string, files []string, top string) (Interface, error) {
	if err := t.Need(FlowPorts); err != nil {
		return Interface{}, err
	}
	if len(files) == 0 {
		return Interface{}, fmt.Errorf("verilog: ports of %s: no RTL files", top)
	}
	if top == "" || strings.ContainsAny(top, " \t\n;\"'") {
		return Interface{}, fmt.Errorf("verilog: top module %q: not a module name", top)
	}
	wd, err := exttool.Abs(workDir)
	if err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s: %w", top, err)
	}
	if err := os.MkdirAll(wd, 0o755); err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s: %w", top, err)
	}
	var quoted []string
	for _, f := range files {
		a, err := exttool.Abs(f)
		if err != nil {
			return Interface{}, fmt.Errorf("verilog: ports of %s: %w", top, err)
		}
		if _, err := os.Stat(a); err != nil {
			return Interface{}, fmt.Errorf("verilog: ports of %s: RTL file %w", top, err)
		}
		if strings.ContainsAny(a, "\"\n;") {
			return Interface{}, fmt.Errorf("verilog: RTL file %q: a path with a quote, newline or ';' cannot be passed to Yosys", f)
		}
		quoted = append(quoted, `"`+a+`"`)
	}
	jsonPath := filepath.Join(wd, "ports.json")
	script := fmt.Sprintf("read_verilog -sv %s; hierarchy -check -top %s; proc; write_json %q", strings.Join(quoted, " "), top, jsonPath)
	if _, err := run(ctx, wd, t.Yosys, "-q", "-l", "ports.log", "-p", script); err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s (yosys): %w", top, err)
	}
	data, err := os.ReadFile(jsonPath)
	if err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s: %w", top, err)
	}
	return parseYosysPorts(data, top)
}

// parseYosysPorts returns the ports of module top from a Yosys JSON
// netlist, in the order the netlist lists them (the declaration order:
// Yosys writes a module's ports in port-list order, and encoding/json's
// token stream keeps it).
func parseYosysPorts(data []byte, top string) (Interface, error) {
	var doc struct {
		Modules map[string]json.RawMessage `json:"modules"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s: Yosys JSON: %w", top, err)
	}
	raw, ok := doc.Modules[top]
	if !ok {
		return Interface{}, fmt.Errorf("verilog: ports of %s: no module %s in the Yosys netlist", top, top)
	}
	var mod struct {
		Ports json.RawMessage `json:"ports"`
	}
	if err := json.Unmarshal(raw, &mod); err != nil {
		return Interface{}, fmt.Errorf("verilog: ports of %s: %w", top, err)
	}
	it := Interface{Name: top}
	if len(mod.Ports) == 0 {
		return it, nil
	}
	dec := json.NewDecoder(bytes.NewReader(mod.Ports))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return Interface{}, fmt.Errorf("verilog: ports of %s: Yosys JSON: ports is not an object", top)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return Interface{}, fmt.Errorf("verilog: ports of %s: Yosys JSON: %w", top, err)
		}
		name, _ := tok.(string)
		var p struct {
			Direction string `json:"direction"`
			Bits      []any  `json:"bits"`
		}
		if err := dec.Decode(&p); err != nil {
			return Interface{}, fmt.Errorf("verilog: ports of %s: port %s: %w", top, name, err)
		}
		switch p.Direction {
		case "input", "output":
		default:
			return Interface{}, fmt.Errorf("verilog: ports of %s: port %s: direction %q: only input and output ports can be driven and compared", top, name, p.Direction)
		}
		it.Ports = append(it.Ports, Port{Name: name, Width: len(p.Bits), Output: p.Direction == "output"})
	}
	return it, nil
}
