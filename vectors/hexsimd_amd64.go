//go:build !purego

package vectors

import "golang.org/x/sys/cpu"

// hexSIMD reports whether hexPairs uses the SSSE3 code (PSHUFB): every
// x86-64 CPU since 2006 has it; without it hexPairs is the portable SWAR.
var hexSIMD = cpu.X86.HasSSSE3

// hexPairsSSSE3 writes the hex digits of pairs word pairs of src to dst
// (hexPairs' contract), 16 bytes of words per iteration. Implemented in
// hexsimd_amd64.s.
//
//go:noescape
func hexPairsSSSE3(dst *byte, src *uint64, pairs int)

// hexPairs writes the 32*len(src)/2 hex digits of the even number of words
// src to dst, most significant word first and each word most significant
// digit first: what a table's hex line holds for those words.
func hexPairs(dst []byte, src []uint64) {
	if len(src) == 0 {
		return
	}
	_ = dst[16*len(src)-1] // the digits fit
	if hexSIMD {
		hexPairsSSSE3(&dst[0], &src[0], len(src)/2)
		return
	}
	hexPairsGeneric(dst, src)
}
