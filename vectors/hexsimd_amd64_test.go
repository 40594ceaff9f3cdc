//go:build !purego

package vectors

import (
	"strings"
	"testing"
)

// TestHexPairsSSSE3 runs the SSSE3 kernel itself (whichever path hexPairs
// picks on this CPU) against fmt's %016x per word, when the CPU has SSSE3.
func TestHexPairsSSSE3(t *testing.T) {
	if !hexSIMD {
		t.Skip("no SSSE3 on this CPU: hexPairs runs the portable code (TestHexPairs)")
	}
	for _, src := range hexPairsCases() {
		if len(src) == 0 {
			continue
		}
		buf := []byte(strings.Repeat("#", 16*len(src)+64))
		hexPairsSSSE3(&buf[32], &src[0], len(src)/2)
		if got, want := string(buf[32:32+16*len(src)]), wantHexPairs(src); got != want {
			t.Fatalf("hexPairsSSSE3(%d words) = %s, want %s", len(src), got, want)
		}
		if g := string(buf[:32]) + string(buf[32+16*len(src):]); g != strings.Repeat("#", 64) {
			t.Fatalf("hexPairsSSSE3(%d words) wrote outside its digits: %q", len(src), g)
		}
	}
}
