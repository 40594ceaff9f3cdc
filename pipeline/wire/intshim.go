package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// INT shim layout (hpccgold, docs/wire.md "INT shim"). 8 bytes, big-endian,
// right after the IBA transport headers (BTH, plus AETH in ACKNOWLEDGE
// packets) when the BTH T bit (BTHINTFlag) is set:
//
//	byte 0     Version(7:4) = 1 | Kind(3:0)
//	byte 1     Encoding: telemetry.Encoding code (1 = IFA, 2 = Compact)
//	byte 2     HopCount: hop records in the stack
//	byte 3     MaxHops: hop records the sender allows (<= MaxHops)
//	byte 4     HopLen: 32-bit words per hop record (IFA 8, Compact 2)
//	byte 5     Flags: E(7) = a switch could not push its record; 6:0 reserved
//	bytes 6-7  reserved (sent as zero, ignored on receipt)
//
// The hop stack follows the shim (HopCount*HopLen*4 bytes); its record order
// is the encoding's (telemetry.AppendStack: IFA newest first, Compact oldest
// first). A Notify shim has HopCount 0 and is followed by the 8-byte notify
// body instead of a stack.
const (
	INTVerKindOffset  = 0
	INTEncodingOffset = 1
	INTHopCountOffset = 2
	INTMaxHopsOffset  = 3
	INTHopLenOffset   = 4
	INTFlagsOffset    = 5
	INTShimLen        = 8

	// INTVersion is the shim version this package writes and accepts.
	INTVersion = 1

	// INTFlagExceeded is the E flag: set by a switch that had a record to
	// push but could not (HopCount == MaxHops, or the frame would exceed the
	// egress MTU). The sender then knows its telemetry is incomplete.
	INTFlagExceeded = 0x80

	// MaxHops is the largest hop stack this implementation builds or accepts
	// (the MaxHops field must be in [1, MaxHops]). The HPCC++ draft, section
	// 7.1, notes data-center paths are "often no more than 5 hops"; 8 leaves
	// room for a 3-tier Clos with a spare and bounds the fixed-size hop arrays
	// of decoded packets and pipeline events.
	MaxHops = 8

	// Notify body layout (after a Notify shim): W, the window the
	// receiver-based algorithm computed, then a reserved word.
	NotifyWindowOffset = 0 // uint32, bytes
	NotifyBodyLen      = 8
)

// Kind is the 4-bit INT shim kind: who writes the stack and who may add to it.
type Kind uint8

// Shim kinds.
const (
	// KindRequest: a data or probe packet asking switches to push a hop
	// record (the telemetry-request indication of HPCC++ section 7.2).
	KindRequest Kind = 1
	// KindEcho: an ACK or probe reply carrying the stack collected on the
	// forward path back to the sender; switches must not push.
	KindEcho Kind = 2
	// KindNotify: an Rx-HPCC notification (HPCC++ section 6.2, line 31,
	// send_ack(W)); no stack, a notify body with W follows.
	KindNotify Kind = 3
)

// String names the kind.
func (k Kind) String() string {
	switch k {
	case KindRequest:
		return "request"
	case KindEcho:
		return "echo"
	case KindNotify:
		return "notify"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// INTShim is a view of an INT shim. Accessors assume len >= INTShimLen.
type INTShim []byte

// Version returns the version nibble.
func (b INTShim) Version() uint8 { return b[INTVerKindOffset] >> 4 }

// Kind returns the kind nibble.
func (b INTShim) Kind() Kind { return Kind(b[INTVerKindOffset] & 0x0F) }

// Encoding returns the telemetry encoding code.
func (b INTShim) Encoding() telemetry.Encoding { return telemetry.Encoding(b[INTEncodingOffset]) }

// HopCount returns the number of hop records in the stack.
func (b INTShim) HopCount() int { return int(b[INTHopCountOffset]) }

// MaxHops returns the hop limit the sender set.
func (b INTShim) MaxHops() int { return int(b[INTMaxHopsOffset]) }

// HopLen returns the hop record length in 32-bit words.
func (b INTShim) HopLen() int { return int(b[INTHopLenOffset]) }

// Flags returns the flags byte.
func (b INTShim) Flags() uint8 { return b[INTFlagsOffset] }

// Exceeded returns the E flag.
func (b INTShim) Exceeded() bool { return b[INTFlagsOffset]&INTFlagExceeded != 0 }

// INTHeader holds the decoded shim fields.
type INTHeader struct {
	Kind     Kind
	Encoding telemetry.Encoding
	HopCount int  // records present
	MaxHops  int  // sender's limit
	Exceeded bool // E flag
}

// appendShim appends a shim with the given fields and zero reserved bytes.
func appendShim(dst []byte, k Kind, e telemetry.Encoding, hopCount, maxHops int, exceeded bool) []byte {
	var fl uint8
	if exceeded {
		fl = INTFlagExceeded
	}
	return append(dst, INTVersion<<4|uint8(k), uint8(e), uint8(hopCount), uint8(maxHops),
		uint8(e.HopSize()/4), fl, 0, 0)
}

// NotifyWindow reads W from a notify body.
func notifyWindow(b []byte) uint32 { return binary.BigEndian.Uint32(b[NotifyWindowOffset:]) }
