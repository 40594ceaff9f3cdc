package wire

import "encoding/binary"

// CNPReservedLen is the length of the reserved field that follows the BTH
// of a RoCEv2 CNP (IBTA Vol. 1 Annex A17.9.4: BTH, 16 reserved bytes, ICRC).
const CNPReservedLen = 16

// CNP is a RoCEv2 Congestion Notification Packet (IBTA Annex A17.9.4), the
// feedback of DCQCN's notification point (Zhu et al., SIGCOMM 2015): BTH
// opcode OpCNP, DestQP the QP of the flow whose packets were CE-marked (the
// reaction point's QP), BECN set, PSN 0, then 16 reserved zero bytes and the
// ICRC. It carries no payload, AETH or telemetry.
type CNP struct {
	Path   Path   // addressing of the CNP (the receiver's reply path)
	PKey   uint16 // partition key
	DestQP QPN    // the notified flow's QP at the reaction point (24 bits)
}

// AppendCNP appends the frame of c to dst and returns the extended slice.
// On error dst is returned unchanged and the error names the field.
func AppendCNP(dst []byte, c *CNP) ([]byte, error) {
	var reserved [CNPReservedLen]byte
	t := Transport{PKey: c.PKey, DestQP: c.DestQP, MigReq: true, BECN: true}
	f := frameBuilder{path: &c.Path, bth: t.bth(OpCNP), payload: reserved[:]}
	return f.build(dst)
}

// ParseCNP reports whether frame is a RoCEv2 CNP and returns its DestQP. A
// CNP here is an Ethernet frame (at most one 802.1Q tag) carrying IPv4
// without options, UDP to port 4791, a BTH with opcode OpCNP and header
// version 0, the 16 reserved bytes and a valid ICRC, with the IPv4 total
// length covering exactly those. Anything else returns false and is left to
// Decode (which classes a CNP as malformed, ReasonOpcode: the Rx pipeline
// does not accept CNPs, so a NIC that runs DCQCN takes them off the port
// before it). It reads frame and never modifies it.
func ParseCNP(frame []byte) (QPN, bool) {
	off := EthernetHeaderLen
	if len(frame) < off {
		return 0, false
	}
	et := binary.BigEndian.Uint16(frame[EthernetTypeOffset:])
	if et == EtherTypeVLAN {
		if len(frame) < VLANInnerTypeOffset+2 {
			return 0, false
		}
		et = binary.BigEndian.Uint16(frame[VLANInnerTypeOffset:])
		off += VLANTagLen
	}
	const dgramLen = IPv4HeaderLen + UDPHeaderLen + BTHLen + CNPReservedLen + ICRCLen
	if et != EtherTypeIPv4 || len(frame) < off+dgramLen {
		return 0, false
	}
	ip := IPv4(frame[off:])
	if ip.Version() != 4 || ip.HeaderLen() != IPv4HeaderLen || ip.Protocol() != IPProtocolUDP ||
		int(ip.TotalLength()) != dgramLen {
		return 0, false
	}
	u := UDP(frame[off+IPv4HeaderLen:])
	if u.DstPort() != RoCEv2Port || int(u.Length()) != dgramLen-IPv4HeaderLen {
		return 0, false
	}
	bth := BTH(frame[off+IPv4HeaderLen+UDPHeaderLen:])
	if bth.Opcode() != OpCNP || bth.TVer() != 0 {
		return 0, false
	}
	if !icrcValid(frame[off : off+dgramLen]) {
		return 0, false
	}
	return bth.DestQP(), true
}
