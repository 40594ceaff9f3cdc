package vectors

import (
	"fmt"
	"strings"
	"testing"
)

// hexPairsCases returns word lists for the hex kernels: every even length
// 0..40, words of random bits and the patterns where a nibble-to-digit
// mapping goes wrong (each nibble 0..15 in every position, all ones,
// single bits, the 9/a boundary).
func hexPairsCases() [][]uint64 {
	r := NewRand(7, 7)
	var cases [][]uint64
	for n := 0; n <= 40; n += 2 {
		for rep := 0; rep < 20; rep++ {
			w := make([]uint64, n)
			for k := range w {
				w[k] = r.Uint64()
			}
			cases = append(cases, w)
		}
	}
	var pat []uint64
	for d := uint64(0); d < 16; d++ {
		pat = append(pat, d*0x1111111111111111)
	}
	for b := 0; b < 64; b++ {
		pat = append(pat, 1<<b, ^uint64(1<<b))
	}
	pat = append(pat, 0, ^uint64(0), 0x9a9a9a9a9a9a9a9a, 0xa9a9a9a9a9a9a9a9, 0x0123456789abcdef, 0xfedcba9876543210)
	return append(cases, pat)
}

// wantHexPairs is the oracle: each word as %016x, most significant word
// first (fmt, not our code).
func wantHexPairs(src []uint64) string {
	var sb strings.Builder
	for k := len(src) - 1; k >= 0; k-- {
		fmt.Fprintf(&sb, "%016x", src[k])
	}
	return sb.String()
}

// TestHexPairs checks hexPairs and the portable hexPairsGeneric against
// fmt's %016x per word, on random words and nibble patterns, into a
// buffer with guard bytes on both sides (nothing may be written outside
// the digits).
func TestHexPairs(t *testing.T) {
	for name, f := range map[string]func([]byte, []uint64){"hexPairs": hexPairs, "hexPairsGeneric": hexPairsGeneric} {
		for _, src := range hexPairsCases() {
			want := wantHexPairs(src)
			buf := []byte(strings.Repeat("#", 16*len(src)+64))
			f(buf[32:32+16*len(src)], src)
			got := string(buf[32 : 32+16*len(src)])
			if got != want {
				t.Fatalf("%s(%d words) = %s, want %s", name, len(src), got, want)
			}
			if g := string(buf[:32]) + string(buf[32+16*len(src):]); g != strings.Repeat("#", 64) {
				t.Fatalf("%s(%d words) wrote outside its digits: %q", name, len(src), g)
			}
		}
	}
	t.Logf("hexSIMD = %v", hexSIMD)
}
