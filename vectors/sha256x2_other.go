//go:build !amd64 || purego

package vectors

// sha2Fast is false: only amd64 has the two-stream SHA-256 code (and
// -tags purego leaves it out there too), and sha256Pair uses
// crypto/sha256 for each stream.
const sha2Fast = false

func sha256x2Blocks(ha, hb *[8]uint32, pa, pb *byte, n int) {
	panic("vectors: sha256x2Blocks without amd64")
}

func sha256x1Blocks(h *[8]uint32, p *byte, n int) {
	panic("vectors: sha256x1Blocks without amd64")
}
