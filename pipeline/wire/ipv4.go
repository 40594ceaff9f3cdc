package wire

import (
	"encoding/binary"
	"fmt"
)

// IPv4 header layout (RFC 791 section 3.1; DSCP/ECN split of the TOS byte
// from RFC 2474 and RFC 3168 section 5). Multi-byte fields are big-endian.
const (
	IPv4VersionIHLOffset = 0  // version (4 bits) | IHL in 32-bit words (4 bits)
	IPv4TOSOffset        = 1  // DSCP (6 bits) | ECN (2 bits)
	IPv4TotalLenOffset   = 2  // total datagram length, bytes
	IPv4IDOffset         = 4  // identification
	IPv4FlagsFragOffset  = 6  // flags (3 bits: reserved, DF, MF) | fragment offset (13 bits, 8-byte units)
	IPv4TTLOffset        = 8  // time to live
	IPv4ProtocolOffset   = 9  // next protocol (17 = UDP)
	IPv4ChecksumOffset   = 10 // header checksum (RFC 1071 over the header)
	IPv4SrcOffset        = 12 // source address
	IPv4DstOffset        = 16 // destination address

	// IPv4HeaderLen is the header length without options, bytes. RoCEv2
	// packets built here never carry options, and Decode rejects options
	// (ReasonIPv4Options): the RoCEv2 ICRC masks a fixed 20-byte header.
	IPv4HeaderLen = 20

	// IPProtocolUDP is the IPv4 protocol number of UDP.
	IPProtocolUDP = 17

	// IPv4FlagDF is the don't-fragment bit in the 16-bit flags/fragment word.
	IPv4FlagDF = 0x4000
	// IPv4FlagMF is the more-fragments bit in the 16-bit flags/fragment word.
	IPv4FlagMF = 0x2000
	// IPv4FragOffsetMask keeps the 13-bit fragment offset.
	IPv4FragOffsetMask = 0x1FFF
)

// IPv4Addr is an IPv4 address in wire order.
type IPv4Addr [4]byte

// String formats a in dotted-quad notation.
func (a IPv4Addr) String() string { return fmt.Sprintf("%d.%d.%d.%d", a[0], a[1], a[2], a[3]) }

// ECN is the 2-bit Explicit Congestion Notification codepoint in the low
// bits of the IPv4 TOS byte (RFC 3168 section 5).
type ECN uint8

// ECN codepoints (RFC 3168 section 5).
const (
	NotECT ECN = 0 // not ECN-capable transport
	ECT1   ECN = 1 // ECN-capable transport, codepoint ECT(1)
	ECT0   ECN = 2 // ECN-capable transport, codepoint ECT(0)
	CE     ECN = 3 // congestion experienced
)

// String returns the RFC 3168 name of e.
func (e ECN) String() string {
	switch e {
	case NotECT:
		return "Not-ECT"
	case ECT1:
		return "ECT(1)"
	case ECT0:
		return "ECT(0)"
	case CE:
		return "CE"
	}
	return fmt.Sprintf("ECN(%d)", uint8(e))
}

// IPv4 is a view of an IPv4 header. Accessors assume len >= IPv4HeaderLen.
type IPv4 []byte

// Version returns the version nibble (4 for IPv4).
func (b IPv4) Version() uint8 { return b[IPv4VersionIHLOffset] >> 4 }

// HeaderLen returns the header length in bytes (IHL * 4).
func (b IPv4) HeaderLen() int { return int(b[IPv4VersionIHLOffset]&0x0F) * 4 }

// TOS returns the whole TOS byte (DSCP << 2 | ECN).
func (b IPv4) TOS() uint8 { return b[IPv4TOSOffset] }

// DSCP returns the 6-bit differentiated services codepoint.
func (b IPv4) DSCP() uint8 { return b[IPv4TOSOffset] >> 2 }

// ECN returns the 2-bit ECN codepoint.
func (b IPv4) ECN() ECN { return ECN(b[IPv4TOSOffset] & 3) }

// TotalLength returns the total datagram length field, bytes.
func (b IPv4) TotalLength() uint16 { return binary.BigEndian.Uint16(b[IPv4TotalLenOffset:]) }

// ID returns the identification field.
func (b IPv4) ID() uint16 { return binary.BigEndian.Uint16(b[IPv4IDOffset:]) }

// FlagsFragment returns the 16-bit flags/fragment-offset word.
func (b IPv4) FlagsFragment() uint16 { return binary.BigEndian.Uint16(b[IPv4FlagsFragOffset:]) }

// TTL returns the time-to-live.
func (b IPv4) TTL() uint8 { return b[IPv4TTLOffset] }

// Protocol returns the next-protocol number.
func (b IPv4) Protocol() uint8 { return b[IPv4ProtocolOffset] }

// Checksum returns the header checksum field.
func (b IPv4) Checksum() uint16 { return binary.BigEndian.Uint16(b[IPv4ChecksumOffset:]) }

// Src returns the source address.
func (b IPv4) Src() (a IPv4Addr) { copy(a[:], b[IPv4SrcOffset:]); return a }

// Dst returns the destination address.
func (b IPv4) Dst() (a IPv4Addr) { copy(a[:], b[IPv4DstOffset:]); return a }

// CalculateChecksum returns the RFC 791 header checksum of the first
// HeaderLen bytes with the checksum field taken as zero.
func (b IPv4) CalculateChecksum() uint16 {
	hl := b.HeaderLen()
	acc := onesSum(0, b[:IPv4ChecksumOffset])
	acc = onesSum(acc, b[IPv4ChecksumOffset+2:hl])
	return ^fold(acc)
}

// ChecksumValid reports whether the header (HeaderLen bytes, checksum field
// included) sums to 0xFFFF in ones'-complement arithmetic (RFC 1071
// section 1, verification rule).
func (b IPv4) ChecksumValid() bool { return fold(onesSum(0, b[:b.HeaderLen()])) == 0xFFFF }

// SetChecksum writes the header checksum field.
func (b IPv4) SetChecksum(c uint16) { binary.BigEndian.PutUint16(b[IPv4ChecksumOffset:], c) }

// SetECN rewrites the ECN codepoint and updates the header checksum
// incrementally (RFC 1624 eqn. 3), as a switch marking CE does. The rest of
// the header is untouched. It returns the previous codepoint.
func (b IPv4) SetECN(e ECN) ECN {
	old := b.ECN()
	oldWord := binary.BigEndian.Uint16(b[0:])
	b[IPv4TOSOffset] = b[IPv4TOSOffset]&^3 | uint8(e&3)
	newWord := binary.BigEndian.Uint16(b[0:])
	b.SetChecksum(updateChecksum(b.Checksum(), oldWord, newWord))
	return old
}

// setTotalLength rewrites the total length and updates the checksum
// incrementally (RFC 1624).
func (b IPv4) setTotalLength(n uint16) {
	old := b.TotalLength()
	binary.BigEndian.PutUint16(b[IPv4TotalLenOffset:], n)
	b.SetChecksum(updateChecksum(b.Checksum(), old, n))
}

// appendIPv4 appends a 20-byte IPv4 header carrying UDP with the given total
// length and computes its checksum.
func appendIPv4(dst []byte, p *Path, totalLen uint16) []byte {
	start := len(dst)
	dst = append(dst,
		0x45, p.DSCP<<2|uint8(p.ECN&3))
	dst = binary.BigEndian.AppendUint16(dst, totalLen)
	dst = binary.BigEndian.AppendUint16(dst, p.IPID)
	dst = binary.BigEndian.AppendUint16(dst, IPv4FlagDF)
	dst = append(dst, p.TTL, IPProtocolUDP, 0, 0)
	dst = append(dst, p.SrcIP[:]...)
	dst = append(dst, p.DstIP[:]...)
	h := IPv4(dst[start:])
	h.SetChecksum(h.CalculateChecksum())
	return dst
}
