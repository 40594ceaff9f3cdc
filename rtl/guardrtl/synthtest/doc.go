// Package synthtest holds the slow checks of the emitted int_guard:
// Verilator lint (combinational and pipelined), the full Yosys synthesis
// flow (no latches, no undriven nets, no loops), and the LLVM IR model
// compiled with clang and run over a golden vector set. It has no
// non-test code.
package synthtest
