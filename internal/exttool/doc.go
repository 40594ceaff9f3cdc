// Package exttool finds the external programs hpccgold's flows run
// (Verilator, make and g++, Icarus Verilog, Yosys, clang, opt) and starts
// them safely.
//
// A flow asks only for the programs it runs: Need names the missing ones in
// a *MissingError that wraps ErrMissing and carries the exact Debian install
// command ("apt-get install -y iverilog"), so a missing Yosys never sinks a
// Verilator build and a user learns what to install.
//
// Command starts a program in a working directory of its own with that
// directory and the program path made absolute: a relative path given by a
// user (`--out hpccgold-demo`) is relative to the caller's working
// directory, not to the directory the program runs in. Paths inside the
// arguments are the caller's to make absolute (Abs).
package exttool
