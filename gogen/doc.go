// Package gogen prints a flat combinational rtl description as one
// straight-line Go function: the third printer of the rtl description, next
// to verilog (Verilog for simulators and synthesis) and llvmir (LLVM IR for
// a C or DPI-C model). Its output is a Go model of the hardware that runs at
// the speed of plain integer code, because every width in the description is
// known when the source is printed: nothing is looked up, carried or checked
// at run time.
//
// # What is printed
//
// Print(m, opts) returns gofmt-formatted Go source holding one function,
// opts.Func, whose parameters the caller names (opts.Params), and the ROM
// tables it reads. The body is the netlist, in node order (a topological
// order), one local per node that reaches an output:
//
//   - a node of at most 64 bits is a uint64 holding its canonical pattern
//     (zero above the width, whatever the signedness); a signed operand is
//     sign-extended to int64 where its op reads it as a number (signed
//     multiply, compare, arithmetic shift, sign extension);
//   - a node of 65..128 bits is a pair of uint64 locals (low word, high
//     word masked to W-64 bits), with carries through math/bits.Add64 and
//     Sub64; a product wider than 64 bits (operands of at most 64 bits)
//     is math/bits.Mul64, with the two correction terms of a signed
//     product;
//   - a compare is a Go bool (a mux selects on it directly; a uint64 copy
//     is made only where it is used as data); a mux is an assignment of the
//     false arm and a conditional assignment of the true arm, which the Go
//     compiler turns into conditional moves;
//   - a constant is a literal at each use; a ROM is a package-level array
//     of the narrowest unsigned type that holds its entries, padded with
//     zeros to 2^(address width) entries when that is at most 2^16, so that
//     the lookup is one masked index with no bounds check and the
//     description's "addresses past the table read 0" holds;
//   - wiring ops (zext, as, slices at bit 0) are copies the compiler removes.
//
// A forward value analysis (bounds.go: an unsigned interval per node, each
// rule sound) lets the printer drop what the hardware needs and a CPU does
// not: a node the intervals prove constant is a literal (and a mux on it is
// its chosen arm, the other arm not computed), a mask is left out where the
// exact result is below 2^W, and a node wider than 64 bits whose values
// stay below 2^63 is held in one uint64. Inputs are read just before their
// first use, so fewer values are live at once.
//
// One idiom: the count of rtl's priority encoder (Module.CLZ, a tree of
// compares and muxes) is recognised by its exact structure and printed as
// one bits.LeadingZeros64. A node whose operands the analysis proves
// constant is folded through rtl's own builder (rtl's one definition of
// the ops).
//
// Guarded cones, as llvmir prints them: when a mux arm is used by nothing
// else, its fanout-free cone (the nodes whose every use is inside it) of at
// least minCone nodes is computed inside the if/else branch that selects
// it, so an update skips the work of the arm it does not take (a hop slot
// beyond the path, an invalid hop's measurement), as the golden model's
// loops do.
//
// Input ports are read through opts.Input, which gives a Go expression for
// each port (masked to the port's width by the printer), and output ports are
// written through opts.Output, which gives the statements that store a
// port's value; both are at most 64 bits wide. So the caller binds the
// ports to its own types (the hpcc model binds them to cc/hpcc's State,
// Input and Output), and the function reads every input before it writes
// any output: the outputs may overwrite the inputs' storage (in-place
// update).
//
// Unsupported, with an error naming the node: sequential modules
// (registers, RAMs, instances; Flatten first and print the combinational
// form), signals wider than 128 bits, products with an operand wider than
// 64 bits (unless the analysis holds the operand in one word), ROMs wider
// than 64 bits. None occurs in hpcc_update.
//
// # Determinism
//
// TestPrintMatchesEvaluator checks printed functions of random modules
// (every op, widths 1..128) against rtl's Go evaluator, bit for bit.
//
// Names are the node IDs (v<ID>, ROMs <prefix>rom<ID>), with the rtl
// node's readable name as a trailing comment; the order is the node order;
// the output is gofmt-formatted. The same description and options give the
// same bytes.
package gogen
