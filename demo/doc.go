// Package demo runs hpccgold end to end on built-in defaults, as
// `hpccgold demo` (README's main command): a small closed-loop scenario on
// the cycle-stepped NIC model and network, golden vectors captured from that
// run plus the directed corner classes, the Verilog of the HPCC++ datapath,
// the LLVM IR model (verified with opt, compiled with clang and checked on
// both vector sets), and co-simulation of the RTL on both vector sets under
// Verilator or Icarus. A step whose program is not installed is reported as
// skipped with the command that installs it (Step.Skipped) and is not an
// error. It writes everything under one directory and returns a short
// report of what it wrote where. Every file is written atomically by the
// packages it calls; the same options give byte-identical vectors and RTL.
package demo
