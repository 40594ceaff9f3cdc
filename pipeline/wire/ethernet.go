package wire

import (
	"encoding/binary"
	"fmt"
)

// Ethernet II header layout (IEEE 802.3 clause 3.2, Ethernet II framing):
// destination MAC, source MAC, EtherType, all big-endian. Frames in this
// package exclude the preamble and the 4-byte FCS, as pcap captures do; the
// MAC appends the FCS.
const (
	EthernetDstOffset  = 0  // 6-byte destination MAC
	EthernetSrcOffset  = 6  // 6-byte source MAC
	EthernetTypeOffset = 12 // 2-byte EtherType (or TPID 0x8100 of a VLAN tag)
	EthernetHeaderLen  = 14 // header length without VLAN tag, bytes

	// VLANTagLen is the length of one IEEE 802.1Q tag (TPID + TCI), bytes.
	VLANTagLen = 4
	// VLANTCIOffset is the TCI offset inside a tagged frame (after the TPID
	// that sits at EthernetTypeOffset).
	VLANTCIOffset = 14
	// VLANInnerTypeOffset is the offset of the EtherType that follows one
	// 802.1Q tag.
	VLANInnerTypeOffset = 16

	// EthernetMinFrameLen is the minimum Ethernet frame length without FCS
	// (64 bytes on the wire minus the 4-byte FCS). Builders pad shorter
	// frames with zero bytes after the IP datagram.
	EthernetMinFrameLen = 60
)

// EtherType values understood by this package.
const (
	EtherTypeIPv4 = 0x0800 // IPv4 (RoCEv2 over IPv4)
	EtherTypeVLAN = 0x8100 // IEEE 802.1Q customer VLAN tag TPID
)

// MAC is a 48-bit IEEE 802 MAC address in wire order.
type MAC [6]byte

// String formats m as six colon-separated lower-case hex bytes.
func (m MAC) String() string {
	return fmt.Sprintf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5])
}

// VLAN is an IEEE 802.1Q tag. RoCE deployments with PFC carry the traffic
// class in PCP. The zero VLAN means "untagged".
type VLAN struct {
	Present bool   // a tag is present on the wire
	PCP     uint8  // priority code point, 3 bits
	DEI     bool   // drop eligible indicator
	VID     uint16 // VLAN identifier, 12 bits
}

// TCI returns the 16-bit tag control information PCP(3) | DEI(1) | VID(12).
func (v VLAN) TCI() uint16 {
	t := uint16(v.PCP&7)<<13 | v.VID&0x0FFF
	if v.DEI {
		t |= 1 << 12
	}
	return t
}

// VLANFromTCI splits a tag control information word.
func VLANFromTCI(tci uint16) VLAN {
	return VLAN{Present: true, PCP: uint8(tci >> 13), DEI: tci&(1<<12) != 0, VID: tci & 0x0FFF}
}

func (v VLAN) validate() error {
	if !v.Present {
		if v.PCP != 0 || v.DEI || v.VID != 0 {
			return fmt.Errorf("VLAN.Present=false with PCP=%d DEI=%t VID=%d: fields must be zero when untagged", v.PCP, v.DEI, v.VID)
		}
		return nil
	}
	if v.PCP > 7 {
		return fmt.Errorf("VLAN.PCP=%d: must be in [0,7]", v.PCP)
	}
	if v.VID > 0x0FFF {
		return fmt.Errorf("VLAN.VID=%d: must be in [0,4095]", v.VID)
	}
	return nil
}

// Ethernet is a view of an Ethernet II header at the start of a frame. The
// caller guarantees len >= EthernetHeaderLen before calling accessors
// (Decode checks lengths before building views).
type Ethernet []byte

// Dst returns the destination MAC.
func (b Ethernet) Dst() (m MAC) { copy(m[:], b[EthernetDstOffset:]); return m }

// Src returns the source MAC.
func (b Ethernet) Src() (m MAC) { copy(m[:], b[EthernetSrcOffset:]); return m }

// Type returns the first EtherType/TPID field.
func (b Ethernet) Type() uint16 { return binary.BigEndian.Uint16(b[EthernetTypeOffset:]) }

// appendEthernet appends the Ethernet header (with the VLAN tag when
// present) for an IPv4 payload.
func appendEthernet(dst []byte, src, dstMAC MAC, vlan VLAN) []byte {
	dst = append(dst, dstMAC[:]...)
	dst = append(dst, src[:]...)
	if vlan.Present {
		dst = binary.BigEndian.AppendUint16(dst, EtherTypeVLAN)
		dst = binary.BigEndian.AppendUint16(dst, vlan.TCI())
	}
	return binary.BigEndian.AppendUint16(dst, EtherTypeIPv4)
}
