package wire

import (
	"encoding/binary"
	"hash/crc32"
)

// ICRCLen is the length of the RoCEv2 invariant CRC that ends the UDP
// payload, bytes.
const ICRCLen = 4

// RoCEv2 ICRC (IBTA Vol. 1, 7.8.1 and Annex A17.3.3): a CRC-32 with the
// Ethernet polynomial (IEEE 802.3, reflected, initial value all ones, final
// complement) over
//
//	8 bytes of 0xFF        (stands for the masked LRH of native InfiniBand)
//	IPv4 header            with TOS (DSCP+ECN), TTL and header checksum set to all ones
//	UDP header             with the checksum set to all ones
//	BTH                    with byte 4 (FECN, BECN, Resv6: "resv8a") set to all ones
//	every byte after BTH up to the ICRC (extension headers, payload, pad)
//
// The 32-bit CRC is transmitted least-significant byte first, as the Linux
// rdma_rxe driver stores it (drivers/infiniband/sw/rxe/rxe_icrc.c) and as a
// ConnectX-4 Lx capture shows (see TestICRCKnownPackets). The masked fields
// are exactly those a router or switch may rewrite (ECN marking, TTL
// decrement, checksum update, FECN marking), so the CRC survives them.
//
// An INT-stamping switch changes the covered bytes (it inserts hop records
// after the BTH) and must recompute the ICRC; PushHop does so.

// icrcSeed is the raw (uncomplemented) CRC-32 register after the eight
// 0xFF bytes, starting from all ones: the constant Linux rdma_rxe starts
// from (checked by TestICRCSeed).
const icrcSeed = 0xdebb20e3

// icrcMaskedHeader is the length of the header part whose fields are
// masked: IPv4 (20) + UDP (8) + BTH (12).
const icrcMaskedHeader = IPv4HeaderLen + UDPHeaderLen + BTHLen

// icrcMask has bit i set when byte i of the masked header part is replaced
// by 0xFF: IPv4 TOS (1), TTL (8), checksum (10, 11); UDP checksum (26, 27);
// BTH byte 4 (32).
const icrcMask = 1<<IPv4TOSOffset | 1<<IPv4TTLOffset | 1<<IPv4ChecksumOffset | 1<<(IPv4ChecksumOffset+1) |
	1<<(IPv4HeaderLen+UDPChecksumOffset) | 1<<(IPv4HeaderLen+UDPChecksumOffset+1) |
	1<<(IPv4HeaderLen+UDPHeaderLen+BTHCNOffset)

// ICRC returns the invariant CRC of a RoCEv2 packet given l3, which starts at
// the IPv4 header (20 bytes, no options) and ends just before the ICRC.
// Precondition: len(l3) >= IPv4HeaderLen + UDPHeaderLen + BTHLen.
//
// The 40 header bytes go through the CRC register eight at a time
// (slicing-by-8, Kounavis and Berry 2005, the method of hash/crc32's
// generic path) with the masked bytes forced to 0xFF by OR-ing each
// little-endian 64-bit word with icrcWordMask (no copy, so nothing escapes
// to the heap); the rest uses hash/crc32's accelerated update (PCLMULQDQ
// folding on amd64 for 64 bytes and more). TestICRCMatchesBytewise checks
// it against the byte-at-a-time definition.
func ICRC(l3 []byte) uint32 {
	h := l3[:icrcMaskedHeader]
	t := &icrcSlicing8
	r := uint32(icrcSeed)
	for k := range icrcWordMask {
		v := binary.LittleEndian.Uint64(h[8*k:]) | icrcWordMask[k]
		r ^= uint32(v)
		hi := uint32(v >> 32)
		r = t[0][hi>>24] ^ t[1][hi>>16&0xFF] ^ t[2][hi>>8&0xFF] ^ t[3][hi&0xFF] ^
			t[4][r>>24] ^ t[5][r>>16&0xFF] ^ t[6][r>>8&0xFF] ^ t[7][r&0xFF]
	}
	return crc32.Update(^r, crc32.IEEETable, l3[icrcMaskedHeader:])
}

// icrcWordMask[k] has 0xFF in each byte of the k-th little-endian 64-bit
// word of the masked header part whose byte is replaced by 0xFF (icrcMask).
var icrcWordMask = func() (m [icrcMaskedHeader / 8]uint64) {
	for i := 0; i < icrcMaskedHeader; i++ {
		if icrcMask>>uint(i)&1 != 0 {
			m[i/8] |= 0xFF << (8 * uint(i%8))
		}
	}
	return m
}()

// icrcSlicing8 is the slicing-by-8 table of the reflected IEEE 802.3
// CRC-32: row 0 is crc32.IEEETable (the register after one byte b from
// state 0), row k the register after byte b followed by k zero bytes. It is
// computed once and never written afterwards.
var icrcSlicing8 = func() (t [8][256]uint32) {
	t[0] = *crc32.IEEETable
	for b := 0; b < 256; b++ {
		for k := 1; k < 8; k++ {
			p := t[k-1][b]
			t[k][b] = p>>8 ^ t[0][byte(p)]
		}
	}
	return t
}()

// putICRC writes the ICRC of l3[:len(l3)-ICRCLen] into its last 4 bytes.
func putICRC(l3 []byte) {
	n := len(l3) - ICRCLen
	binary.LittleEndian.PutUint32(l3[n:], ICRC(l3[:n]))
}

// icrcValid reports whether the last 4 bytes of l3 hold the ICRC of the rest.
func icrcValid(l3 []byte) bool {
	n := len(l3) - ICRCLen
	return binary.LittleEndian.Uint32(l3[n:]) == ICRC(l3[:n])
}
