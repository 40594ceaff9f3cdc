package wire

import "encoding/binary"

// UDP header layout (RFC 768). Multi-byte fields are big-endian.
const (
	UDPSrcPortOffset  = 0 // source port (RoCEv2: flow entropy, IBTA Annex A17.2.2)
	UDPDstPortOffset  = 2 // destination port (RoCEv2: 4791)
	UDPLengthOffset   = 4 // header plus data length, bytes
	UDPChecksumOffset = 6 // checksum over pseudo-header, header and data; 0 = none (IPv4)
	UDPHeaderLen      = 8 // header length, bytes

	// RoCEv2Port is the IANA-assigned UDP destination port of RoCEv2
	// (IBTA Annex A17, "RoCEv2").
	RoCEv2Port = 4791
)

// UDP is a view of a UDP header. Accessors assume len >= UDPHeaderLen.
type UDP []byte

// SrcPort returns the source port.
func (b UDP) SrcPort() uint16 { return binary.BigEndian.Uint16(b[UDPSrcPortOffset:]) }

// DstPort returns the destination port.
func (b UDP) DstPort() uint16 { return binary.BigEndian.Uint16(b[UDPDstPortOffset:]) }

// Length returns the length field (header plus data), bytes.
func (b UDP) Length() uint16 { return binary.BigEndian.Uint16(b[UDPLengthOffset:]) }

// Checksum returns the checksum field (0: not computed, RFC 768).
func (b UDP) Checksum() uint16 { return binary.BigEndian.Uint16(b[UDPChecksumOffset:]) }

// UDPChecksum returns the RFC 768 checksum of the UDP datagram seg (header
// and data, seg's checksum field taken as zero) under the IPv4
// pseudo-header (src, dst, zero, protocol 17, UDP length). A computed value
// of 0 is transmitted as 0xFFFF (RFC 768).
//
// RoCEv2 senders built here transmit checksum 0 (allowed for IPv4 by
// RFC 768; IBTA Annex A17.3.2 relies on the ICRC instead), and Decode
// verifies a non-zero checksum with this function.
func UDPChecksum(src, dst IPv4Addr, seg []byte) uint16 {
	acc := onesSum(0, src[:])
	acc = onesSum(acc, dst[:])
	acc += IPProtocolUDP + uint32(len(seg))
	acc = onesSum(acc, seg[:UDPChecksumOffset])
	acc = onesSum(acc, seg[UDPChecksumOffset+2:])
	c := ^fold(acc)
	if c == 0 {
		c = 0xFFFF
	}
	return c
}
