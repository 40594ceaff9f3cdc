// Package guardrtl is the hardware description of the telemetry integrity
// guard (cc/intguard), module int_guard: one combinational check per hop
// slot between the Rx pipeline's parsed telemetry and hpcc_update, printed
// to Verilog by package verilog and to LLVM IR by package llvmir. Its
// ports are exactly cc/intguard's InputTable and OutputTable fields, in
// order; the operations follow docs/guard.md and are written here,
// independently of cc/intguard's Go code, which is the oracle for its bits
// (TestCombVsGolden here, co-simulation in verilog/cosim).
package guardrtl
