package wire

import "encoding/binary"

// onesSum adds b to the 32-bit accumulator as big-endian 16-bit words
// (RFC 1071 section 4.1); an odd trailing byte is padded with a zero byte.
func onesSum(acc uint32, b []byte) uint32 {
	for len(b) >= 2 {
		acc += uint32(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		acc += uint32(b[0]) << 8
	}
	return acc
}

// fold reduces a 32-bit ones'-complement accumulator to 16 bits by
// end-around carry (RFC 1071).
func fold(acc uint32) uint16 {
	for acc>>16 != 0 {
		acc = acc&0xFFFF + acc>>16
	}
	return uint16(acc)
}

// InternetChecksum returns the RFC 1071 Internet checksum of b: the ones'
// complement of the ones'-complement sum of its 16-bit big-endian words. A
// header whose checksum field holds this value sums to 0xFFFF.
func InternetChecksum(b []byte) uint16 { return ^fold(onesSum(0, b)) }

// updateChecksum returns the checksum after one 16-bit word of the covered
// data changed from old to new: HC' = ~(~HC + ~m + m') (RFC 1624 eqn. 3).
func updateChecksum(hc, old, new uint16) uint16 {
	acc := uint32(^hc) + uint32(^old) + uint32(new)
	return ^fold(acc)
}
