package vectors

import (
	"crypto/sha256"
	"encoding/binary"
	"hash"
)

// sha256Pair computes the SHA-256 (FIPS 180-4) of two byte streams written
// in step, the stimulus and expected files of a set: where the CPU has the
// SHA extensions (sha2Fast) the blocks of both streams go through one
// interleaved SHA-NI loop (sha256x2Blocks), which hashes the pair in about
// two thirds of the time of hashing them one after the other (SHA256RNDS2's
// latency, not its throughput, bounds one stream); elsewhere each stream is
// a crypto/sha256 hash. The digests are SHA-256's, byte for byte.
type sha256Pair struct {
	a, b   sha256State
	ha, hb hash.Hash // crypto/sha256 (when !sha2Fast); nil: a and b
}

// sha256State is one stream's SHA-256 state: the chaining value, the
// bytes of a block not yet complete and the stream's length.
type sha256State struct {
	h   [8]uint32
	x   [64]byte
	nx  int
	len uint64
}

// sha256IV is SHA-256's initial hash value H(0), FIPS 180-4 section 5.3.3.
var sha256IV = [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}

func newSHA256Pair() *sha256Pair {
	if !sha2Fast {
		return &sha256Pair{ha: sha256.New(), hb: sha256.New()}
	}
	return &sha256Pair{a: sha256State{h: sha256IV}, b: sha256State{h: sha256IV}}
}

// fill completes s's pending block from p: it returns the rest of p and
// the completed block (nil if the block is still incomplete, or if there
// was none pending).
func (s *sha256State) fill(p []byte) (rest, blk []byte) {
	s.len += uint64(len(p))
	if s.nx == 0 {
		return p, nil
	}
	k := copy(s.x[s.nx:], p)
	s.nx += k
	if s.nx < 64 {
		return p[k:], nil
	}
	s.nx = 0
	return p[k:], s.x[:]
}

// keep adds the tail p (less than a block, and empty when fill left a
// block incomplete) to s's pending bytes.
func (s *sha256State) keep(p []byte) { s.nx += copy(s.x[s.nx:], p) }

// write hashes pa into the first stream and pb into the second.
func (h *sha256Pair) write(pa, pb []byte) {
	if h.ha != nil {
		h.ha.Write(pa)
		h.hb.Write(pb)
		return
	}
	pa, ba := h.a.fill(pa)
	pb, bb := h.b.fill(pb)
	h.blocks(ba, bb)
	na, nb := len(pa)&^63, len(pb)&^63
	n := min(na, nb)
	h.blocks(pa[:n], pb[:n])
	h.blocks(pa[n:na], pb[n:nb])
	h.a.keep(pa[na:])
	h.b.keep(pb[nb:])
}

// blocks runs the compression function over whole blocks of both streams
// (either may be empty): the common count interleaved, the rest of the
// longer alone.
func (h *sha256Pair) blocks(pa, pb []byte) {
	n := min(len(pa), len(pb)) / 64
	if n > 0 {
		sha256x2Blocks(&h.a.h, &h.b.h, &pa[0], &pb[0], n)
	}
	if k := len(pa)/64 - n; k > 0 {
		sha256x1Blocks(&h.a.h, &pa[64*n], k)
	}
	if k := len(pb)/64 - n; k > 0 {
		sha256x1Blocks(&h.b.h, &pb[64*n], k)
	}
}

// sums returns the two streams' digests (the state is left as it was).
func (h *sha256Pair) sums() (a, b [32]byte) {
	if h.ha != nil {
		h.ha.Sum(a[:0])
		h.hb.Sum(b[:0])
		return a, b
	}
	return h.a.sum(), h.b.sum()
}

// sum pads a copy of the state (a 1 bit, zeros, the length in bits as a
// 64-bit big-endian number, to a whole block; FIPS 180-4 section 5.1.1)
// and returns its digest.
func (s *sha256State) sum() [32]byte {
	var pad [128]byte
	copy(pad[:], s.x[:s.nx])
	pad[s.nx] = 0x80
	n := 64
	if s.nx >= 56 {
		n = 128
	}
	binary.BigEndian.PutUint64(pad[n-8:n], s.len*8)
	h := s.h
	sha256x1Blocks(&h, &pad[0], n/64)
	var d [32]byte
	for i, v := range h {
		binary.BigEndian.PutUint32(d[4*i:], v)
	}
	return d
}
