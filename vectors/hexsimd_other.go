//go:build !amd64 || purego

package vectors

// hexSIMD is false: only amd64 has the SIMD hexPairs (and -tags purego
// leaves it out there too).
const hexSIMD = false

// hexPairs writes the 32*len(src)/2 hex digits of the even number of words
// src to dst, most significant word first and each word most significant
// digit first: what a table's hex line holds for those words.
func hexPairs(dst []byte, src []uint64) { hexPairsGeneric(dst, src) }
