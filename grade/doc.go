// Package grade measures how well a golden vector set finds bugs in a
// hardware description: mutation analysis in the manner of mcy (Yosys'
// mutation cover tool), at the level of the rtl description rather than
// the printed Verilog.
//
// Sites enumerates every single-point mutant of a combinational
// rtl.Module (operator swaps add/sub and and/or/xor, comparison flips,
// constant +1/-1/bit flips, ROM entry +1/-1, shift amounts, mux select
// inversion, sign and zero extension, signedness of products and
// compares, bit-slice offsets, dropped inverters), deterministically from
// a seed; Apply rebuilds the module with one mutant through rtl's
// builders, so the mutant obeys every operand rule and prints as
// Verilog like the original. Grade runs each sampled mutant under the Go
// evaluator (rtl.Sim) over a vector set and calls it killed when any
// output field of any vector differs from the golden expected output.
//
// A surviving mutant is "equivalent" only with a proof: the bits in which
// the mutated node can differ from the original node (the exact
// difference for constants and ROM entries, an enumeration of every
// operand value for operands of at most 16 bits in all, or a rule such
// as "a+b and a-b share bit 0") never meet the bits of that node that
// any output can observe (a backward demanded-bits analysis through
// slices, constant shifts, extensions, concatenations and constant
// masks). Every other survivor is a "gap": a real bug the vectors do
// not find. Random simulation is never counted as a proof.
//
// The mutation score is killed / (mutants - proved equivalent). Reports
// are deterministic: the same module, vectors, seed and mutant count give
// byte-identical JSON and text whatever the number of workers.
package grade
