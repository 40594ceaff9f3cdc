// Package rtl is hpccgold's hardware description: a typed netlist of
// single-operation nodes from which the Verilog printer (package verilog)
// and the LLVM IR printer emit code, plus a cycle-based Go evaluator (Sim)
// that serves as a third, independent check next to the RTL simulators and
// the golden model.
//
// # Model
//
// A Module has input ports, output ports, nodes, registers, RAMs and
// instances of other modules, one implicit clock (clk, rising edge) and one
// implicit synchronous active-high reset (rst). Every Node is the single
// result of one Op with an explicit Width (1..MaxWidth bits) and signedness.
// The operand rules are strict so that each op maps 1:1 onto a Verilog
// expression whose width cannot be changed by Verilog's context rules, and
// onto LLVM instructions on iN:
//
//   - add, sub, and, or, xor, not, mux: operands have the result's width
//     (and, for arithmetic, its signedness); results wrap modulo 2^W;
//   - mul: the exact product, W = Wa + Wb, operands of one signedness;
//   - shifts by a constant (shlc, lshrc, ashrc) and by an unsigned signal
//     (shl, lshr, ashr; an amount >= W gives 0 or all sign bits);
//   - compares (eq..ge): same width and signedness, 1-bit result;
//   - slice, concat, zext, sext (top bit replicated), as (reinterpret the
//     signedness): pure wiring;
//   - rom: a combinational table lookup (addresses past the table read 0);
//   - reg: a register with optional reset value and enable; memread: the
//     registered, read-first port of a Mem (synchronous RAM); instout: an
//     output of an instance.
//
// Node IDs follow creation order, which is a topological order of the
// combinational graph (registers and RAM read ports are sources); names are
// deterministic (ports keep theirs; other nodes are n_<id> or a readable
// hint made unique). Builders never panic: the first misuse is kept and
// returned by Module.Err / Module.Check, naming the operands.
//
// # Fixed point
//
// Fx pairs a node with a fixedpoint.Format. FxAdd, FxSub, FxMul and FxNeg
// are exact in fixedpoint's result formats; FxCast lowers every fixedpoint
// Quantization (Trn, TrnZero, Rnd, RndZero, RndInf, RndMinInf, RndConv) and
// Overflow (Wrap, Sat, SatZero, SatSym) mode to an explicit rounding
// increment and saturation muxes, bit-exact with fixedpoint.Cast (tested on
// random formats up to 120 bits, every mode pair).
//
// # Time
//
// Sim evaluates a module in two phases per clock edge (all next values from
// settled combinational values, then commit). Pipeline cuts a flat
// combinational module into a configurable number of register stages with
// initiation interval 1 and a valid bit alongside.
package rtl
