// Package synthtest holds the slow check of the emitted LDCP RTL: Verilator
// lint of ldcp_update (combinational and pipelined) and the full Yosys
// synthesis flow (no latches, no undriven nets, no loops) of the default
// configuration. It is a package of its own so that its Yosys time runs
// next to, not inside, the other packages' test budgets. It has no non-test
// code.
package synthtest
