// Package testtool applies the team rule for tests that need an external
// program (g++ with SystemC, verilator, iverilog/vvp, yosys, clang/opt,
// tshark, vcd2fst/fst2vcd, make): when the environment variable
// HPCCGOLD_REQUIRE_TOOLS is "1" (CI and scripts/test.sh set it) a missing
// tool FAILS the test; otherwise the test is skipped. The message names the
// missing tool and the Debian package that installs it.
//
// Need looks programs up on PATH; Require judges the error of a package's
// own lookup (verilog.FindTools, llvmir.FindTools); Missing applies the rule
// to a tool found unusable some other way (a library that does not link).
// The package is for tests only.
package testtool
