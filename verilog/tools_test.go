package verilog

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeedPerFlow checks that each flow asks only for the programs it runs
// (docs/rtl.md, "Tool flows"): on a PATH holding only verilator, make and
// g++ (empty scripts), lint and the Verilator flow are ready while Icarus
// and Yosys are reported missing with their install commands, and a
// missing Yosys does not fail the flows that do not use it. Expected
// messages are written by hand from the Debian package of each program.
func TestNeedPerFlow(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"verilator", "make", "g++"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	tools := LookupTools()
	if tools.Verilator != filepath.Join(dir, "verilator") || tools.Yosys != "" || tools.Iverilog != "" {
		t.Fatalf("LookupTools = %+v", tools)
	}
	for _, tc := range []struct {
		flows []Flow
		want  string // "" for nil
	}{
		{[]Flow{FlowLint}, ""},
		{[]Flow{FlowVerilator}, ""},
		{[]Flow{FlowLint, FlowVerilator}, ""},
		{nil, ""},
		{[]Flow{FlowIcarus}, "verilog: icarus: iverilog, vvp: tool not found (install with: apt-get install -y iverilog)"},
		{[]Flow{FlowSynth}, "verilog: synth: yosys: tool not found (install with: apt-get install -y yosys)"},
		{[]Flow{FlowVerilator, FlowSynth, FlowIcarus},
			"verilog: verilator, synth, icarus: yosys, iverilog, vvp: tool not found (install with: apt-get install -y yosys iverilog)"},
		{[]Flow{Icarus.Flow()}, "verilog: icarus: iverilog, vvp: tool not found (install with: apt-get install -y iverilog)"},
	} {
		err := tools.Need(tc.flows...)
		got := ""
		if err != nil {
			got = err.Error()
			if !errors.Is(err, ErrToolMissing) {
				t.Errorf("Need(%v) = %v: does not wrap ErrToolMissing", tc.flows, err)
			}
		}
		if got != tc.want {
			t.Errorf("Need(%v) = %q, want %q", tc.flows, got, tc.want)
		}
	}
	if err := tools.Need("modelsim"); err == nil || !strings.Contains(err.Error(), `flow "modelsim"`) {
		t.Errorf("Need(modelsim) = %v, want an unknown-flow error", err)
	}
	if _, err := FindTools(); !errors.Is(err, ErrToolMissing) {
		t.Errorf("FindTools = %v, want a missing-tool error (it needs every flow)", err)
	}
	// Without g++ the Verilator flow cannot build (verilated.mk: CXX = g++).
	t.Setenv("PATH", t.TempDir())
	if err := LookupTools().Need(FlowVerilator); err == nil ||
		err.Error() != "verilog: verilator: verilator, make, g++: tool not found (install with: apt-get install -y verilator make g++)" {
		t.Errorf("Need(verilator) on an empty PATH = %v", err)
	}
}
