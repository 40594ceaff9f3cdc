// Package verilog prints rtl hardware descriptions as synthesizable,
// deterministic Verilog-2005 and runs them through the open-source tools:
// Verilator lint, Yosys synthesis (cell counts, no latches, no undriven
// nets, logic depth), and co-simulation of generated testbenches that read
// stimulus.hex / expected.hex with $readmemh under Verilator (--binary) and
// Icarus Verilog.
//
// Printing rules (so Verilog's context-dependent width and signedness rules
// can never change a result): every rtl node becomes its own explicitly
// sized wire; every operation's operands already have the result's width
// (products get operands explicitly extended to the full product width);
// wires are unsigned and read as signed only through $signed() where the
// operation needs it (signed compares, arithmetic right shift, signed
// products); constants are sized hex literals; constant shifts are printed
// as concatenations. Files carry a DO NOT EDIT header with the tool version
// and the module's configuration, wrap the module in `default_nettype none,
// and hold one module each, named after it.
package verilog
