// The 4-bit LFSR of ready.sv (x^4 + x^3 + 1): how long each transaction is
// held. Included by ready.sv from its own directory.
`define READY_LFSR_SEED 4'b1001
`define READY_LFSR_NEXT(s) {s[2:0], s[3] ^ s[2]}
