package wire

// PSN is an InfiniBand packet sequence number: a 24-bit counter carried in
// the low 24 bits of BTH bytes 9-11 (IBTA Vol. 1, 9.2 "Base Transport
// Header"). It wraps from 0xFFFFFF to 0. Values of type PSN are always kept
// reduced to 24 bits by the methods below; a PSN built by conversion from a
// wider integer must be reduced with [PSN.Wrap] (or checked with
// [PSN.Valid]) before use.
//
// Comparisons are serial-number arithmetic over 2^24, as gvisor's
// pkg/tcpip/seqnum does over 2^32: a is "less than" b when the forward
// distance from a to b, taken modulo 2^24, lies in [1, 2^23-1]. Two PSNs
// exactly 2^23 apart are incomparable; LessThan reports false both ways for
// them (the IBTA limits the outstanding PSN window to 2^23 for exactly this
// reason, 9.7.5.1.1).
type PSN uint32

// PSNMask keeps the 24 significant bits of a PSN.
const PSNMask = 1<<24 - 1

// psnHalf is 2^23, the serial-arithmetic horizon.
const psnHalf = 1 << 23

// Wrap reduces p to 24 bits (p mod 2^24).
func (p PSN) Wrap() PSN { return p & PSNMask }

// Valid reports whether p fits 24 bits.
func (p PSN) Valid() bool { return p <= PSNMask }

// Add returns p + n modulo 2^24.
func (p PSN) Add(n uint32) PSN { return (p + PSN(n)) & PSNMask }

// Sub returns the forward distance from q to p modulo 2^24: the n with
// q.Add(n) == p.
func (p PSN) Sub(q PSN) uint32 { return uint32(p-q) & PSNMask }

// LessThan reports whether p precedes q in serial-number order: the forward
// distance from p to q is in [1, 2^23-1].
func (p PSN) LessThan(q PSN) bool {
	d := q.Sub(p)
	return d != 0 && d < psnHalf
}

// LessThanEq reports p == q (both reduced) or p.LessThan(q).
func (p PSN) LessThanEq(q PSN) bool { return p.Wrap() == q.Wrap() || p.LessThan(q) }

// InWindow reports whether p lies in the window of size PSNs starting at
// first: p.Sub(first) < size. A size of 0 is an empty window; sizes above
// 2^23 are clamped to 2^23 (the comparable horizon).
func (p PSN) InWindow(first PSN, size uint32) bool {
	if size > psnHalf {
		size = psnHalf
	}
	return p.Sub(first) < size
}

// InRange reports whether p lies in the half-open range [a, b) walking
// forward from a, modulo 2^24 (b.Sub(a) is the range length).
func (p PSN) InRange(a, b PSN) bool { return p.Sub(a) < b.Sub(a) }
