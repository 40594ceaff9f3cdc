package wire

import "fmt"

// Path is the L2-L4 addressing of one direction of a flow: everything in the
// Ethernet, IPv4 and UDP headers that is not a length or a checksum. A
// reply path is the forward path with source and destination swapped
// ([Path.Reverse]).
type Path struct {
	SrcMAC, DstMAC MAC
	VLAN           VLAN // zero value: untagged
	SrcIP, DstIP   IPv4Addr
	DSCP           uint8  // 6-bit DSCP (RoCE traffic class)
	ECN            ECN    // ECN codepoint the sender transmits (ECT(0) for ECN-capable RoCE)
	TTL            uint8  // initial time to live, must be non-zero
	IPID           uint16 // IPv4 identification (DF is always set, so any value is legal)
	// UDPSrcPort is the RoCEv2 entropy port (IBTA Annex A17.2.2: the source
	// port carries flow entropy for ECMP, and is the same for every packet
	// of a QP so the path does not change). Conventionally in [49152,65535].
	UDPSrcPort uint16
}

// Validate checks every field's range and names the first bad one.
func (p *Path) Validate() error {
	if p.DSCP > 63 {
		return fmt.Errorf("wire: Path.DSCP=%d: must be in [0,63]", p.DSCP)
	}
	if p.ECN > CE {
		return fmt.Errorf("wire: Path.ECN=%d: must be in [0,3]", uint8(p.ECN))
	}
	if p.TTL == 0 {
		return fmt.Errorf("wire: Path.TTL=0: must be in [1,255]")
	}
	if err := p.VLAN.validate(); err != nil {
		return fmt.Errorf("wire: Path.%w", err)
	}
	return nil
}

// Reverse returns the path of the opposite direction: MACs and IPs swapped,
// everything else kept (the responder of a RoCE connection uses the same
// UDP source-port entropy in this model).
func (p Path) Reverse() Path {
	p.SrcMAC, p.DstMAC = p.DstMAC, p.SrcMAC
	p.SrcIP, p.DstIP = p.DstIP, p.SrcIP
	return p
}
