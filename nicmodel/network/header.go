package network

import (
	"encoding/binary"

	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// What a switch reads from a frame, as a forwarding ASIC's parser does:
// Ethernet (with at most one 802.1Q tag), the IPv4 addresses and ECN
// field, the UDP ports, and, for RoCEv2 (UDP 4791), the BTH opcode and T
// bit. It does not verify checksums or the ICRC (switches do not; the
// receiving NIC does); wire.PushHop, called only for frames that request
// telemetry, fully decodes and validates the frame it edits.

const roceUDPPort = 4791

// hdr is the parsed forwarding view of a frame.
type hdr struct {
	ipOff   int
	src     uint32
	dst     uint32
	sport   uint16
	dport   uint16
	ecn     wire.ECN
	wantINT bool // RoCEv2 SEND or probe with the T bit set (a candidate for PushHop)
	probe   bool // of those, a probe (always stamped, also under sampling)
}

// parse reads the forwarding fields of f; ok is false for a frame that is
// not IPv4 with a 20-byte header (such a frame cannot be routed and is
// counted as malformed and dropped).
func parse(f []byte) (h hdr, ok bool) {
	if len(f) < wire.EthernetHeaderLen+wire.IPv4HeaderLen {
		return h, false
	}
	off := wire.EthernetHeaderLen
	et := binary.BigEndian.Uint16(f[wire.EthernetTypeOffset:])
	if et == wire.EtherTypeVLAN {
		if len(f) < wire.EthernetHeaderLen+wire.VLANTagLen+wire.IPv4HeaderLen {
			return h, false
		}
		et = binary.BigEndian.Uint16(f[wire.VLANInnerTypeOffset:])
		off += wire.VLANTagLen
	}
	if et != wire.EtherTypeIPv4 || f[off] != 0x45 {
		return h, false
	}
	ip := f[off:]
	h.ipOff = off
	h.src = binary.BigEndian.Uint32(ip[wire.IPv4SrcOffset:])
	h.dst = binary.BigEndian.Uint32(ip[wire.IPv4DstOffset:])
	h.ecn = wire.ECN(ip[wire.IPv4TOSOffset] & 3)
	if ip[wire.IPv4ProtocolOffset] != 17 || len(ip) < wire.IPv4HeaderLen+wire.UDPHeaderLen {
		return h, true
	}
	u := ip[wire.IPv4HeaderLen:]
	h.sport = binary.BigEndian.Uint16(u[wire.UDPSrcPortOffset:])
	h.dport = binary.BigEndian.Uint16(u[wire.UDPDstPortOffset:])
	if h.dport == roceUDPPort && len(u) >= wire.UDPHeaderLen+wire.BTHLen {
		b := u[wire.UDPHeaderLen:]
		op := wire.Opcode(b[wire.BTHOpcodeOffset])
		t := b[wire.BTHAckOffset]&0x40 != 0
		h.wantINT = t && (op.IsSend() || op == wire.OpProbe)
		h.probe = h.wantINT && op == wire.OpProbe
	}
	return h, true
}

// flowHash is the ECMP hash of a frame's 5-tuple (IPv4 source and
// destination, protocol UDP, source and destination port): 32-bit FNV-1a
// over those 13 bytes in network order, starting from the FNV offset basis
// XOR salt (each switch has its own salt), then the MurmurHash3 32-bit
// finalizer (fmix32). FNV-1a alone is not enough: its low bits depend
// only on the low bits of the salt and the bytes, so two tiers that both
// take the hash modulo a power of two made correlated choices (ECMP
// polarization: on the HPCC paper's fat tree, flows across pods reached
// only 12 of the 16 cores); the finalizer makes every output bit depend
// on every input bit. RoCEv2 puts per-QP entropy in the UDP source port
// (IBTA Annex A17.2.2), so all packets of a flow take one path.
func flowHash(salt uint32, src, dst uint32, sport, dport uint16) uint32 {
	const prime = 16777619
	h := uint32(2166136261) ^ salt
	var b [13]byte
	binary.BigEndian.PutUint32(b[0:], src)
	binary.BigEndian.PutUint32(b[4:], dst)
	b[8] = 17
	binary.BigEndian.PutUint16(b[9:], sport)
	binary.BigEndian.PutUint16(b[11:], dport)
	for _, c := range b {
		h ^= uint32(c)
		h *= prime
	}
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}
