// Package demo runs hpccgold end to end on built-in defaults, as
// `hpccgold demo` (README's main command): a small closed-loop scenario on
// the cycle-stepped NIC model and network, golden vectors captured from that
// run plus the directed corner classes, the Verilog of the HPCC++ datapath,
// the LLVM IR model compiled with clang and checked on both vector sets, and,
// when a simulator is installed, co-simulation of the RTL on both
// vector sets. It writes everything under one directory and returns a short
// report of what it wrote where. Every file is written atomically by the
// packages it calls; the same options give byte-identical vectors and RTL.
package demo
