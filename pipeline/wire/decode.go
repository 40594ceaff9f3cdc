package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// Class is what Decode found a frame to be.
type Class uint8

// Packet classes (HPCC++ section 7.2: the Rx pipeline "identifies whether
// telemetry is embedded in the parsed packet").
const (
	ClassMalformed  Class = iota // not a packet this NIC accepts; Packet.Reason says why
	ClassData                    // RC SEND; with telemetry when Packet.HasINT (kind Request)
	ClassAck                     // RC ACKNOWLEDGE; echoed telemetry when Packet.HasINT (kind Echo)
	ClassNotify                  // Rx-HPCC notification carrying W (ACKNOWLEDGE + Notify shim)
	ClassProbe                   // telemetry probe (opcode OpProbe, kind Request)
	ClassProbeReply              // telemetry probe reply (opcode OpProbeReply, kind Echo)
	numClasses
)

// NumClasses is the number of classes, for per-class counter arrays.
const NumClasses = int(numClasses)

// String names the class.
func (c Class) String() string {
	switch c {
	case ClassMalformed:
		return "malformed"
	case ClassData:
		return "data"
	case ClassAck:
		return "ack"
	case ClassNotify:
		return "notify"
	case ClassProbe:
		return "probe"
	case ClassProbeReply:
		return "probe-reply"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Reason says why a frame is ClassMalformed. Checks run outside-in (L2, L3,
// L4, transport, INT, ICRC); the first failing check is reported.
type Reason uint8

// Malformed reasons, in check order.
const (
	ReasonNone          Reason = iota // not malformed
	ReasonEthernetShort               // frame shorter than the Ethernet (and VLAN) header
	ReasonEtherType                   // EtherType is not IPv4 (after at most one 802.1Q tag)
	ReasonIPv4Short                   // fewer than 20 bytes after the Ethernet header
	ReasonIPv4Version                 // version nibble is not 4
	ReasonIPv4Options                 // IHL != 5 (RoCEv2 ICRC masks a fixed 20-byte header)
	ReasonIPv4Length                  // total length below the header or beyond the frame
	ReasonIPv4Checksum                // header checksum does not verify
	ReasonIPv4Fragment                // MF set or fragment offset non-zero
	ReasonIPv4Protocol                // protocol is not UDP
	ReasonUDPLength                   // UDP length does not match the IPv4 payload
	ReasonUDPPort                     // destination port is not 4791
	ReasonUDPChecksum                 // non-zero UDP checksum does not verify
	ReasonBTHShort                    // UDP payload shorter than BTH + ICRC
	ReasonBTHVersion                  // TVer is not 0
	ReasonOpcode                      // opcode not accepted by this NIC
	ReasonAETHShort                   // ACKNOWLEDGE without room for the AETH
	ReasonPadCount                    // PadCnt non-zero where no payload may be, or larger than the payload
	ReasonINTMissing                  // probe, probe reply or a packet type that needs a shim has T clear
	ReasonINTShort                    // T set but no room for the shim
	ReasonINTVersion                  // shim version is not INTVersion
	ReasonINTKind                     // shim kind undefined or not allowed with this opcode
	ReasonINTEncoding                 // encoding code is not a telemetry.Encoding
	ReasonINTHopLen                   // HopLen does not match the encoding's record size
	ReasonINTMaxHops                  // MaxHops outside [1, MaxHops]
	ReasonINTHopCount                 // HopCount > MaxHops
	ReasonINTStack                    // stack (or notify body) runs past the end of the packet
	ReasonHopRecord                   // a hop record does not parse (telemetry.ParseHop)
	ReasonTrailing                    // bytes after the last header of a packet that carries no payload
	ReasonICRC                        // ICRC does not verify
	numReasons
)

// NumReasons is the number of reasons (including ReasonNone), for
// per-reason counter arrays.
const NumReasons = int(numReasons)

var reasonNames = [...]string{
	"none", "ethernet-short", "ethertype", "ipv4-short", "ipv4-version", "ipv4-options",
	"ipv4-length", "ipv4-checksum", "ipv4-fragment", "ipv4-protocol", "udp-length", "udp-port",
	"udp-checksum", "bth-short", "bth-version", "opcode", "aeth-short", "pad-count", "int-missing",
	"int-short", "int-version", "int-kind", "int-encoding", "int-hop-len", "int-max-hops",
	"int-hop-count", "int-stack", "hop-record", "trailing", "icrc",
}

// String returns the reason's short name (used in counter names).
func (r Reason) String() string {
	if int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("Reason(%d)", uint8(r))
}

// Packet is a decoded frame: its class, the header fields the NIC uses, the
// offsets of each header inside Frame, and the hop records in path order.
// Offsets of absent headers are -1. Decode fills every field; fields after
// the failing check of a malformed frame are left zero (offsets -1).
type Packet struct {
	Frame  []byte // the decoded bytes (not copied)
	Class  Class
	Reason Reason // ReasonNone unless Class == ClassMalformed

	VLAN VLAN // 802.1Q tag, zero if untagged

	// Offsets into Frame, or -1.
	IPOff, UDPOff, BTHOff, AETHOff, INTOff, StackOff, PayloadOff, ICRCOff int
	PayloadLen                                                            int // SEND payload bytes, pad excluded
	StackLen                                                              int // hop stack bytes

	ECN        ECN
	UDPSrcPort uint16
	Opcode     Opcode
	PKey       uint16
	DestQP     QPN
	PSN        PSN
	AckReq     bool
	FECN, BECN bool
	Syndrome   Syndrome // ACKNOWLEDGE only
	MSN        MSN      // ACKNOWLEDGE only

	HasINT bool      // T bit set and shim valid
	INT    INTHeader // valid when HasINT
	Window uint32    // ClassNotify: W, bytes
	Hops   [MaxHops]telemetry.Hop
}

// HopList returns the decoded hop records in path order (a slice of p.Hops).
func (p *Packet) HopList() []telemetry.Hop { return p.Hops[:p.INT.HopCount] }

// IPv4 returns the IPv4 header view (valid when IPOff >= 0).
func (p *Packet) IPv4() IPv4 { return IPv4(p.Frame[p.IPOff:]) }

// BTH returns the BTH view (valid when BTHOff >= 0).
func (p *Packet) BTH() BTH { return BTH(p.Frame[p.BTHOff:]) }

// Payload returns the SEND payload (nil for other classes).
func (p *Packet) Payload() []byte {
	if p.PayloadOff < 0 {
		return nil
	}
	return p.Frame[p.PayloadOff : p.PayloadOff+p.PayloadLen]
}

// Stack returns the raw hop stack bytes (nil without a stack).
func (p *Packet) Stack() []byte {
	if p.StackOff < 0 {
		return nil
	}
	return p.Frame[p.StackOff : p.StackOff+p.StackLen]
}

func (p *Packet) fail(r Reason) {
	p.Class, p.Reason = ClassMalformed, r
}

// Decode parses frame (an Ethernet II frame without FCS) into p and
// classifies it. It never panics on any input: every length is checked
// before a view is built, and a frame that fails a check is ClassMalformed
// with the first failing Reason. It allocates nothing. Bytes after the IPv4
// datagram (Ethernet padding) are ignored. Checks, outside-in: Ethernet and
// at most one 802.1Q tag; IPv4 version, IHL = 5, lengths, checksum, no
// fragmentation, protocol UDP; UDP length and destination port 4791, and
// the checksum when non-zero; BTH TVer and an accepted opcode; AETH for
// ACKNOWLEDGE; the INT shim when the T bit is set (version, kind allowed for
// the opcode, encoding, HopLen, MaxHops, HopCount, stack inside the packet,
// each hop record parses); no stray bytes in packets without payload; ICRC.
func Decode(frame []byte, p *Packet) {
	*p = Packet{Frame: frame, IPOff: -1, UDPOff: -1, BTHOff: -1, AETHOff: -1, INTOff: -1,
		StackOff: -1, PayloadOff: -1, ICRCOff: -1}
	if len(frame) < EthernetHeaderLen {
		p.fail(ReasonEthernetShort)
		return
	}
	off := EthernetHeaderLen
	et := binary.BigEndian.Uint16(frame[EthernetTypeOffset:])
	if et == EtherTypeVLAN {
		if len(frame) < EthernetHeaderLen+VLANTagLen {
			p.fail(ReasonEthernetShort)
			return
		}
		p.VLAN = VLANFromTCI(binary.BigEndian.Uint16(frame[VLANTCIOffset:]))
		et = binary.BigEndian.Uint16(frame[VLANInnerTypeOffset:])
		off += VLANTagLen
	}
	if et != EtherTypeIPv4 {
		p.fail(ReasonEtherType)
		return
	}
	// IPv4.
	if len(frame)-off < IPv4HeaderLen {
		p.fail(ReasonIPv4Short)
		return
	}
	ip := IPv4(frame[off:])
	if ip.Version() != 4 {
		p.fail(ReasonIPv4Version)
		return
	}
	if ip.HeaderLen() != IPv4HeaderLen {
		p.fail(ReasonIPv4Options)
		return
	}
	tl := int(ip.TotalLength())
	if tl < IPv4HeaderLen || tl > len(frame)-off {
		p.fail(ReasonIPv4Length)
		return
	}
	if !ip.ChecksumValid() {
		p.fail(ReasonIPv4Checksum)
		return
	}
	if ff := ip.FlagsFragment(); ff&IPv4FlagMF != 0 || ff&IPv4FragOffsetMask != 0 {
		p.fail(ReasonIPv4Fragment)
		return
	}
	if ip.Protocol() != IPProtocolUDP {
		p.fail(ReasonIPv4Protocol)
		return
	}
	p.IPOff, p.ECN = off, ip.ECN()
	dgram := frame[off : off+tl] // IPv4 datagram; Ethernet padding dropped
	// UDP.
	if tl < IPv4HeaderLen+UDPHeaderLen {
		p.fail(ReasonUDPLength)
		return
	}
	udp := UDP(dgram[IPv4HeaderLen:])
	if int(udp.Length()) != tl-IPv4HeaderLen {
		p.fail(ReasonUDPLength)
		return
	}
	if udp.DstPort() != RoCEv2Port {
		p.fail(ReasonUDPPort)
		return
	}
	if c := udp.Checksum(); c != 0 && UDPChecksum(ip.Src(), ip.Dst(), udp) != c {
		p.fail(ReasonUDPChecksum)
		return
	}
	p.UDPOff, p.UDPSrcPort = off+IPv4HeaderLen, udp.SrcPort()
	// BTH. ib is the IBA part: BTH .. end of ICRC.
	ib := dgram[IPv4HeaderLen+UDPHeaderLen:]
	ibOff := off + IPv4HeaderLen + UDPHeaderLen
	if len(ib) < BTHLen+ICRCLen {
		p.fail(ReasonBTHShort)
		return
	}
	bth := BTH(ib)
	if bth.TVer() != 0 {
		p.fail(ReasonBTHVersion)
		return
	}
	p.BTHOff = ibOff
	p.Opcode, p.PKey, p.DestQP, p.PSN = bth.Opcode(), bth.PKey(), bth.DestQP(), bth.PSN()
	p.AckReq, p.FECN, p.BECN = bth.AckReq(), bth.FECN(), bth.BECN()
	end := len(ib) - ICRCLen // end of the covered bytes (pad included)
	pos := BTHLen
	var class Class
	switch op := p.Opcode; {
	case op.IsSend():
		class = ClassData
	case op == OpRCAck:
		if end-pos < AETHLen {
			p.fail(ReasonAETHShort)
			return
		}
		a := AETH(ib[pos:])
		p.AETHOff, p.Syndrome, p.MSN = ibOff+pos, a.Syndrome(), a.MSN()
		pos += AETHLen
		class = ClassAck
	case op == OpProbe:
		class = ClassProbe
	case op == OpProbeReply:
		class = ClassProbeReply
	default:
		p.fail(ReasonOpcode)
		return
	}
	pad := bth.PadCount()
	if class != ClassData && pad != 0 {
		p.fail(ReasonPadCount)
		return
	}
	if bth.INT() {
		if r := p.decodeINT(ib, ibOff, &pos, end, &class); r != ReasonNone {
			p.fail(r)
			return
		}
	} else if class == ClassProbe || class == ClassProbeReply {
		p.fail(ReasonINTMissing)
		return
	}
	if class == ClassData {
		if end-pos < pad {
			p.fail(ReasonPadCount)
			return
		}
		p.PayloadOff, p.PayloadLen = ibOff+pos, end-pos-pad
	} else if pos != end {
		p.fail(ReasonTrailing)
		return
	}
	if !icrcValid(dgram) {
		p.fail(ReasonICRC)
		return
	}
	p.ICRCOff = ibOff + end
	p.Class = class
}

// decodeINT parses the shim at ib[*pos:] and what follows it (stack or notify
// body), advancing *pos past them, and refines the class (ACKNOWLEDGE with a
// Notify shim is ClassNotify).
func (p *Packet) decodeINT(ib []byte, ibOff int, pos *int, end int, class *Class) Reason {
	if end-*pos < INTShimLen {
		return ReasonINTShort
	}
	s := INTShim(ib[*pos:])
	if s.Version() != INTVersion {
		return ReasonINTVersion
	}
	k := s.Kind()
	switch *class {
	case ClassData, ClassProbe:
		if k != KindRequest {
			return ReasonINTKind
		}
	case ClassAck:
		switch k {
		case KindEcho:
		case KindNotify:
			*class = ClassNotify
		default:
			return ReasonINTKind
		}
	case ClassProbeReply:
		if k != KindEcho {
			return ReasonINTKind
		}
	}
	p.INTOff = ibOff + *pos
	*pos += INTShimLen
	if k == KindNotify {
		// A notify shim carries no stack: encoding, counts and HopLen are zero.
		if s.Encoding() != 0 || s.HopCount() != 0 || s.MaxHops() != 0 || s.HopLen() != 0 {
			return ReasonINTEncoding
		}
		if end-*pos < NotifyBodyLen {
			return ReasonINTStack
		}
		p.Window = notifyWindow(ib[*pos:])
		*pos += NotifyBodyLen
		p.HasINT, p.INT = true, INTHeader{Kind: k}
		return ReasonNone
	}
	e := s.Encoding()
	if e.Validate() != nil {
		return ReasonINTEncoding
	}
	size := e.HopSize()
	if s.HopLen()*4 != size {
		return ReasonINTHopLen
	}
	mh, n := s.MaxHops(), s.HopCount()
	if mh < 1 || mh > MaxHops {
		return ReasonINTMaxHops
	}
	if n > mh {
		return ReasonINTHopCount
	}
	if end-*pos < n*size {
		return ReasonINTStack
	}
	stack := ib[*pos : *pos+n*size]
	for j := 0; j < n; j++ {
		i := j // path index of the j-th record on the wire (telemetry.AppendStack order)
		if e == telemetry.IFA {
			i = n - 1 - j
		}
		if !parseHop(stack[j*size:], e, &p.Hops[i]) {
			return ReasonHopRecord
		}
	}
	p.StackOff, p.StackLen = ibOff+*pos, n*size
	*pos += n * size
	p.HasINT = true
	p.INT = INTHeader{Kind: k, Encoding: e, HopCount: n, MaxHops: mh, Exceeded: s.Exceeded()}
	return ReasonNone
}

// parseHop decodes one hop record of encoding e (a valid encoding, with
// len(b) >= e.HopSize()) into *h, exactly as telemetry.ParseHop does, and
// reports whether ParseHop would accept it. It is Decode's inline form of
// ParseHop: every field is read from a bit field of exactly its wire
// width, so of ParseHop's checks (Hop.Validate) only two can fail on wire
// bytes: a reserved speed code, and (IFA) RxNs >= 10^9. On failure *h is
// the zero Hop, as ParseHop returns. TestParseHopMatches
// checks it against telemetry.ParseHop on random and edge records.
func parseHop(b []byte, e telemetry.Encoding, h *telemetry.Hop) bool {
	if e == telemetry.Compact {
		w := binary.BigEndian.Uint64(b)
		*h = telemetry.Hop{SpeedCode: uint8(w & 7), Ts: uint32(w>>3) & (1<<telemetry.CompactTsBits - 1),
			TxBytes: uint32(w>>27) & (1<<telemetry.CompactTxBits - 1), Qlen: uint32(w >> 47)}
	} else {
		w0 := binary.BigEndian.Uint32(b[0:])
		w1 := binary.BigEndian.Uint32(b[4:])
		w2 := binary.BigEndian.Uint32(b[8:])
		*h = telemetry.Hop{Ins: uint8(w0 >> 28), DeviceID: w0 >> 8 & (1<<telemetry.IFADeviceIDBits - 1),
			SpeedCode: uint8(w1 >> 28), RxSec: w1 & (1<<telemetry.IFARxSecBits - 1),
			EgressPort: uint16(w2 >> 16), IngressPort: uint16(w2),
			RxNs: binary.BigEndian.Uint32(b[12:]), ResidenceNs: binary.BigEndian.Uint32(b[16:]),
			TxBytes: binary.BigEndian.Uint32(b[20:]), Qlen: binary.BigEndian.Uint32(b[24:]) & (1<<telemetry.IFAQlenBits - 1)}
		if h.RxNs >= telemetry.NsPerSecond {
			*h = telemetry.Hop{}
			return false
		}
	}
	if _, ok := e.SpeedGbps(h.SpeedCode); !ok {
		*h = telemetry.Hop{}
		return false
	}
	return true
}
