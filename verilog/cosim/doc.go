// Package cosim runs the HPCC++ RTL end to end: it generates (or reads) a
// golden vector set, emits hpcc_update or hpcc_module with its testbench,
// optionally lints and synthesizes it, builds it with Verilator or Icarus
// Verilog, runs every vector and reports "N passed, M failed" with the
// first mismatches field by field. It is the library behind
// `hpccgold cosim`; the Verilog flows themselves live in package verilog.
package cosim
