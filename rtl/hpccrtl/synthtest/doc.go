// Package synthtest holds the slow check of the emitted HPCC++ RTL: Verilator
// lint of hpcc_update and hpcc_module and the full Yosys synthesis flow
// (no latches, no undriven nets, no loops) on a reduced configuration. It is
// a package of its own so that its minute of Yosys time runs next to, not
// inside, the other packages' test budgets. It has no non-test code.
package synthtest
