// Package fieldtable describes the bit layout of a hardware transaction: an
// ordered list of named fields, each with a width in bits and a bit offset
// inside one wide word. It is the single source of truth shared by the vector
// files (stimulus.hex / expected.hex lines), the generated RTL ports, the
// fields.vh include and the JSON layout description, so they cannot drift.
//
// Conventions: bit 0 is the least significant bit of the word. Fields are laid
// out in declaration order starting at bit 0 (the first field occupies the
// lowest bits). A field is at most 64 bits wide and holds an unsigned raw bit
// pattern; its Format string says how to read it (fixedpoint notation such as
// "s16.8" or "u32.32", or "uint"/"bool"). A packed word is a little-endian
// []uint64 (word 0 holds bits 63..0). Its hex form is ceil(Width/4) hex
// digits, most significant first, as Verilog's $readmemh reads a
// `reg [Width-1:0]` memory.
package fieldtable
