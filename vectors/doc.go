// Package vectors generates, checks and verifies golden test vectors for the
// hpccgold datapaths: the files a hardware team's testbench consumes without
// our code (Verilog $readmemh, a UVM scoreboard, a C++ Verilator harness), and
// a checker that names exactly where a design disagrees. The model is Berkeley
// TestFloat (testfloat_gen / testfloat_ver): directed corner cases by level,
// then constrained-random vectors from a seed, then a verifier.
//
// The machinery is generic over a small Model interface (an input and an
// output fieldtable.Table, a pure evaluator of one packed transaction, a list
// of directed corner classes and coverage points); the HPCC++ per-ACK update
// is one such model (hpcc.go), LDCP will be another.
//
// A vector set is a directory:
//
//	stimulus.hex   one input transaction per line, Input().HexDigits() hex digits, MSB first
//	expected.hex   the golden outputs, same line order, Output().HexDigits() digits
//	vectors.jsonl  the same transactions with named fields, raw hex and real values
//	fields.vh      Verilog `defines of both layouts (fieldtable.VerilogHeader)
//	layout.json    both layouts as JSON (fieldtable.Table.JSON)
//	manifest.json  tool version, model, full configuration, seed, level, shard,
//	               class ranges and counts, coverage, SHA-256 of every file
//	capture.jsonl  captured sets only: each vector's origin in the run
//
// Besides generated sets (Generate, GenerateDir), a set can be captured
// from a run (Capture: transactions recorded from hardware or the NIC
// model, re-evaluated by the model; package scenario/simvec captures
// closed-loop scenario runs, hpccgold vectors gen --from-sim). A captured
// set has one class, a "capture" section in its manifest, and is checked
// by Verify through its flows' state chains (Stateful) instead of by
// regenerating its stimulus.
//
// Conventions: vector indices are 0-based positions in the unsharded set;
// shard i/n (0 <= i < n) holds indices [total*i/n, total*(i+1)/n), so shards
// concatenate to exactly the unsharded files. Every file is written
// atomically (package atomicfile) and manifest.json is written last, so a
// directory whose manifest does not hash-match its files was interrupted or
// altered. Outputs contain no timestamps, absolute paths or map-order
// dependence: the same model configuration, options and tool version give
// byte-identical files. The file formats are documented in docs/vectors.md.
package vectors
