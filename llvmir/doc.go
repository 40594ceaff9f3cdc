// Package llvmir prints an rtl hardware description as LLVM IR (built with
// github.com/llir/llvm v0.3.6) together with the C and SystemVerilog glue
// that makes it a reference model: a C header, a C wrapper holding the
// pointer-based C and DPI-C entries, a vector check program and a DPI-C
// import declaration. The HPCC++ per-ACK update (rtl module hpcc_update) is
// the intended input; any combinational rtl.Module works.
//
// # What is emitted (module M)
//
//   - M.ll: three pointer-free functions.
//     @M_core takes one argument per input port of exactly the port's width
//     (iN) and returns %M_core_ret, a struct of one iN per output port. Its
//     body is the rtl netlist, one LLVM instruction (or a tiny fixed
//     sequence, below) per live rtl node, in node order, named after the
//     node. It is marked alwaysinline.
//     @M_abi is the C-callable form behind the plain C entry: one i64
//     argument per input port (a port wider than 64 bits takes ceil(W/64)
//     arguments, least significant word first), a call of @M_core, and a
//     %M_abi_ret return of i64 fields in output-port order. Unsigned ports
//     are zero-extended into their i64, signed ports up to 64 bits
//     sign-extended; input bits above a port's width are ignored.
//     @M_packed is the form behind the DPI-C entry: the packed input vector
//     (below) as i64 words, least significant first, in; the packed output
//     vector's words out (bits above the output width are 0).
//   - M.h: the C types and prototypes: one struct per port group with
//     fixed-width integer fields (uint8_t..uint64_t by width, intN_t for
//     signed ports up to 64 bits, uint64_t[k] raw words above 64 bits), the
//     plain C entry M(state in, event in, state out, outputs out), the DPI-C
//     entry M_dpi(packed in, packed out) and the pointer-free M_abi and
//     M_packed.
//   - M_wrap.c: the pointer-based C entry (calls M_abi) and DPI-C entry
//     (copies the svBitVecVal words into M_packed's arguments: on the
//     little-endian target two 32-bit words are one 64-bit word).
//   - M_check.c: a program that runs stimulus.hex through both entries and
//     compares with expected.hex ("N passed, M failed"), prints the outputs
//     (-eval), or measures updates per second (-bench).
//   - M_dpi.svh: `defines of the packed widths and the SystemVerilog
//     import "DPI-C" declaration of M_dpi.
//   - M_dpi_tb.sv: an example testbench that runs stimulus.hex through
//     M_dpi and compares with expected.hex (tested under Verilator).
//
// The packed layout of M_dpi (and of the check program's hex files) is the
// field-table layout: ports LSB-first in declaration order, inputs in one
// vector and outputs in another, as in package fieldtable and the vector
// files, so a line of stimulus.hex is a DPI input vector.
//
// # Lowering (rtl op -> LLVM)
//
// Every rtl value of width W is an LLVM iW holding its bit pattern;
// signedness only selects instructions. add, sub, and, or, xor map 1:1; not
// is xor with all ones; mul extends both operands to the product width (sext
// when signed, zext when not) and multiplies there, which is exact;
// compares are icmp with the signed or unsigned predicate; mux is select;
// slice is lshr+trunc; concat is zext, shl and or per part; zext/sext are
// themselves; as is no instruction. Constant shifts by the full width, which
// LLVM makes poison, are folded to rtl's result (0, or ashr by W-1).
// Variable shifts guard the amount so that no instruction ever produces
// poison: ovf = amount >= W; amt = select ovf, 0, amount; then shl/lshr
// followed by select ovf, 0, result (rtl gives 0), or for ashr the amount
// clamped to W-1 (rtl gives W copies of the sign bit).
//
// ROMs are pointer-free. A ROM whose whole address space fits 64 bits
// (2^addrWidth entries of W bits) is a constant bitmap read as
// trunc(lshr(table, zext(addr)*W)). Larger ROMs are a switch on the address
// into one empty block per distinct entry value and, in a join block, a
// phi per 64-bit word of the entries typed i8, i16, i32 or i64 (then trunc,
// or zext/shl/or for wider entries); the most frequent value (0 when the
// table is shorter than its address space, since addresses past the table
// read 0) is the default. ROMs reading the same address node (in the same
// guarded cone, below) share one switch with one phi each. This is the
// form clang emits for a C switch; at -O2 LLVM's SimplifyCFG turns it into
// constant-table loads, and an HLS flow sees a multiplexer. Three details
// decide whether it does: tables are built only of those four integer
// types (an i20 phi, or an i1 that InstCombine narrows a phi to, leaves a
// branch tree: 2x slower on hpcc_update); one switch per address keeps
// jump threading from duplicating the logic between two switches on the
// same value into per-case copies behind unpredictable branches; and
// 1-bit ROMs are bitmaps. A private constant array read through
// getelementptr would put pointers in the update function, which llir
// v0.3.6 prints typed (i32*), a form LLVM 15 and later read only with extra
// flags; the emitted .ll contains no pointer type at all.
//
// # Guarded cones
//
// A mux computes both arms in hardware; in software, an arm whose cone is
// needed by nothing else can be skipped when the select does not pick it.
// For each mux arm, Lower finds the maximal fanout-free cone of the arm's
// node (the nodes whose every use lies inside it; ports and sources
// excluded). When the cone holds at least Options.GuardMin operations that
// cost an instruction (DefaultGuardMin = 16; wiring is free), the mux
// becomes a conditional branch on the select, the cone's nodes move into
// the arm's block, and a phi in a join block replaces the select. Cones
// nest or are disjoint, so guarded muxes inside a cone guard their own
// arms. For hpcc_update this skips each invalid hop slot's reciprocal
// unit and products and the multiplicative-decrease path when the update
// is additive (the golden Go datapath skips the same work with "continue"
// and an if), which is what makes the compiled model faster than the Go
// model; GuardMin < 0 gives straight-line select code, identical results.
//
// # ABI
//
// The target is x86_64-pc-linux-gnu (System V AMD64 ABI) with LLVM's data
// layout for it; both are named in the module (llir leaves them empty).
// @M_abi's and @M_packed's i64 arguments are C uint64_t arguments. Their
// struct returns are returned like C structs of the same uint64_t fields: in
// RAX (one field) or RAX:RDX (two fields), and through a hidden result
// pointer in RDI (returned in RAX) from five fields on, where LLVM demotes
// the return to memory exactly as the C ABI does for structs over 16 bytes.
// LLVM would return three or four i64 fields in RAX, RDX, RCX and R8, which
// C does not, so such returns are padded to five fields (pad fields are 0).
// The tests compile every case (1 to 9 fields) and check it bit-exact.
//
// # Determinism
//
// Output depends only on the module and options: names come from rtl node
// names, blocks and instructions follow node order, ROM value blocks follow
// first occurrence, and headers carry the tool version and the module's
// parameters, no time or path.
package llvmir
