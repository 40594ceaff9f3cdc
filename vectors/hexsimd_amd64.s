//go:build !purego

#include "textflag.h"

// The 16 lowercase hex digits, indexed by nibble (PSHUFB table).
DATA hexDigits<>+0(SB)/8, $"01234567"
DATA hexDigits<>+8(SB)/8, $"89abcdef"
GLOBL hexDigits<>(SB), RODATA|NOPTR, $16

// PSHUFB control that reverses 16 bytes: result byte k = source byte 15-k.
DATA hexReverse<>+0(SB)/8, $0x08090a0b0c0d0e0f
DATA hexReverse<>+8(SB)/8, $0x0001020304050607
GLOBL hexReverse<>(SB), RODATA|NOPTR, $16

// The low nibble of every byte.
DATA hexNibble<>+0(SB)/8, $0x0f0f0f0f0f0f0f0f
DATA hexNibble<>+8(SB)/8, $0x0f0f0f0f0f0f0f0f
GLOBL hexNibble<>(SB), RODATA|NOPTR, $16

// func hexPairsSSSE3(dst *byte, src *uint64, pairs int)
//
// For p = 0 .. pairs-1, writes the 32 hex digits of the word pair
// src[2q+1], src[2q] (q = pairs-1-p; most significant digit first) to
// dst[32p : 32p+32]: the 16 bytes of the pair, little endian in memory,
// reversed by PSHUFB, split into high and low nibbles, interleaved
// (high first) and mapped to digits by a PSHUFB table lookup.
TEXT ·hexPairsSSSE3(SB), NOSPLIT, $0-24
	MOVQ   dst+0(FP), DI
	MOVQ   src+8(FP), SI
	MOVQ   pairs+16(FP), CX
	MOVOU  hexDigits<>(SB), X4
	MOVOU  hexReverse<>(SB), X5
	MOVOU  hexNibble<>(SB), X6
	MOVQ   CX, AX
	SHLQ   $4, AX
	ADDQ   AX, SI // one past the last pair

loop:
	TESTQ  CX, CX
	JZ     done
	SUBQ   $16, SI
	MOVOU  (SI), X0
	PSHUFB X5, X0 // byte k = source byte 15-k: most significant first
	MOVO   X0, X1
	PSRLW  $4, X1
	PAND   X6, X1 // high nibbles
	PAND   X6, X0 // low nibbles
	MOVO   X1, X2
	PUNPCKLBW X0, X2 // bytes 0-7: high, low, high, low, ...
	PUNPCKHBW X0, X1 // bytes 8-15
	MOVO   X4, X3
	PSHUFB X2, X3 // digits of bytes 0-7
	MOVO   X4, X7
	PSHUFB X1, X7 // digits of bytes 8-15
	MOVOU  X3, (DI)
	MOVOU  X7, 16(DI)
	ADDQ   $32, DI
	DECQ   CX
	JMP    loop

done:
	RET
