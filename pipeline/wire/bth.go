package wire

import (
	"encoding/binary"
	"fmt"
)

// InfiniBand Base Transport Header layout (IBTA Vol. 1 rel. 1.4, 9.2; carried
// after UDP in RoCEv2, Annex A17). 12 bytes, big-endian:
//
//	byte 0      OpCode
//	byte 1      SE(7) | M(6) | PadCnt(5:4) | TVer(3:0)
//	bytes 2-3   P_Key
//	byte 4      FECN(7) | BECN(6) | Resv6(5:0)      (the whole byte is "resv8a" in the ICRC mask)
//	bytes 5-7   DestQP (24 bits)
//	byte 8      A(7) | Resv7(6:0); hpccgold uses bit 6 as T (INT shim follows), see docs/wire.md
//	bytes 9-11  PSN (24 bits)
const (
	BTHOpcodeOffset = 0
	BTHFlagsOffset  = 1 // SE | M | PadCnt | TVer
	BTHPKeyOffset   = 2
	BTHCNOffset     = 4 // FECN | BECN | Resv6
	BTHDestQPOffset = 5 // 24-bit destination QP number
	BTHAckOffset    = 8 // AckReq | T | Resv6
	BTHPSNOffset    = 9 // 24-bit packet sequence number
	BTHLen          = 12

	bthSE       = 0x80 // solicited event, byte 1
	bthMigReq   = 0x40 // migration request, byte 1
	bthPadShift = 4    // PadCnt position in byte 1
	bthPadMask  = 0x30
	bthTVerMask = 0x0F
	bthFECN     = 0x80 // byte 4
	bthBECN     = 0x40 // byte 4
	bthAckReq   = 0x80 // byte 8

	// BTHINTFlag is the bit of BTH byte 8 (IBTA Resv7, bit 6) that hpccgold
	// sets to say an INT shim (telemetry request or echo) follows the
	// transport headers. It is the telemetry-request indication of HPCC++
	// section 7.2 ("the TX pipeline may add indications/headers that
	// triggers the network elements to add telemetry data").
	BTHINTFlag = 0x40

	// DefaultPKey is the default full-membership partition key.
	DefaultPKey = 0xFFFF
)

// QPN is a 24-bit InfiniBand queue-pair number (BTH DestQP). The NIC model
// uses the destination QPN as the flow identifier (HPCC++ section 7.2:
// "Flow can be defined by ... destination QP").
type QPN uint32

// QPNMask keeps the 24 significant bits of a QPN.
const QPNMask = 1<<24 - 1

// Opcode is the 8-bit BTH opcode: transport service in bits 7:5, operation
// in bits 4:0 (IBTA Vol. 1, 9.2.1, Table 38).
type Opcode uint8

// Opcodes built and accepted by this package. RC SEND opcodes carry data;
// ACKNOWLEDGE carries ACKs and Rx-HPCC notifications; the two
// manufacturer-specific opcodes (0xC0-0xFF are reserved for manufacturer use
// by Table 38) carry probes.
const (
	OpRCSendFirst  Opcode = 0x00 // RC SEND First
	OpRCSendMiddle Opcode = 0x01 // RC SEND Middle
	OpRCSendLast   Opcode = 0x02 // RC SEND Last
	OpRCSendOnly   Opcode = 0x04 // RC SEND Only
	OpRCAck        Opcode = 0x11 // RC ACKNOWLEDGE (BTH + AETH)
	OpCNP          Opcode = 0x81 // RoCEv2 CNP (recognised, never built; Decode classes it Malformed/ReasonOpcode)
	OpProbe        Opcode = 0xC0 // hpccgold telemetry probe (manufacturer-specific)
	OpProbeReply   Opcode = 0xC1 // hpccgold telemetry probe reply (manufacturer-specific)
)

// String names the opcode.
func (o Opcode) String() string {
	switch o {
	case OpRCSendFirst:
		return "RC_SEND_FIRST"
	case OpRCSendMiddle:
		return "RC_SEND_MIDDLE"
	case OpRCSendLast:
		return "RC_SEND_LAST"
	case OpRCSendOnly:
		return "RC_SEND_ONLY"
	case OpRCAck:
		return "RC_ACKNOWLEDGE"
	case OpCNP:
		return "CNP"
	case OpProbe:
		return "HPCC_PROBE"
	case OpProbeReply:
		return "HPCC_PROBE_REPLY"
	}
	return fmt.Sprintf("Opcode(0x%02x)", uint8(o))
}

// IsSend reports whether o is one of the RC SEND opcodes without immediate
// data or invalidate (First, Middle, Last, Only), the data opcodes this NIC
// sends and accepts.
func (o Opcode) IsSend() bool {
	return o == OpRCSendFirst || o == OpRCSendMiddle || o == OpRCSendLast || o == OpRCSendOnly
}

// BTH is a view of a Base Transport Header. Accessors assume len >= BTHLen.
type BTH []byte

// Opcode returns the opcode.
func (b BTH) Opcode() Opcode { return Opcode(b[BTHOpcodeOffset]) }

// SolicitedEvent returns the SE bit.
func (b BTH) SolicitedEvent() bool { return b[BTHFlagsOffset]&bthSE != 0 }

// MigReq returns the M bit.
func (b BTH) MigReq() bool { return b[BTHFlagsOffset]&bthMigReq != 0 }

// PadCount returns the number of pad bytes (0-3) after the payload.
func (b BTH) PadCount() int { return int(b[BTHFlagsOffset]&bthPadMask) >> bthPadShift }

// TVer returns the transport header version (0 in IBTA 1.x).
func (b BTH) TVer() uint8 { return b[BTHFlagsOffset] & bthTVerMask }

// PKey returns the partition key.
func (b BTH) PKey() uint16 { return binary.BigEndian.Uint16(b[BTHPKeyOffset:]) }

// FECN returns the forward ECN bit (RoCEv2 Annex A17.9).
func (b BTH) FECN() bool { return b[BTHCNOffset]&bthFECN != 0 }

// BECN returns the backward ECN bit (RoCEv2 Annex A17.9).
func (b BTH) BECN() bool { return b[BTHCNOffset]&bthBECN != 0 }

// DestQP returns the 24-bit destination queue pair number.
func (b BTH) DestQP() QPN { return QPN(uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7])) }

// AckReq returns the A (acknowledge request) bit.
func (b BTH) AckReq() bool { return b[BTHAckOffset]&bthAckReq != 0 }

// INT returns the hpccgold T bit: an INT shim follows the transport headers.
func (b BTH) INT() bool { return b[BTHAckOffset]&BTHINTFlag != 0 }

// Reserved returns the IBTA reserved bits of byte 8 other than the T bit
// (must be zero).
func (b BTH) Reserved() uint8 { return b[BTHAckOffset] &^ (bthAckReq | BTHINTFlag) }

// PSN returns the 24-bit packet sequence number.
func (b BTH) PSN() PSN { return PSN(uint32(b[9])<<16 | uint32(b[10])<<8 | uint32(b[11])) }

// BTHFields are the BTH fields a builder sets. PadCnt is computed by the
// builder from the payload length; TVer is always 0.
type BTHFields struct {
	Opcode Opcode
	SE     bool   // solicited event
	MigReq bool   // migration request; RoCE NICs send 1 ("migrated" state)
	PKey   uint16 // partition key; DefaultPKey when unsure
	FECN   bool
	BECN   bool
	DestQP QPN  // 24 bits
	AckReq bool // ask the responder for an ACK
	PSN    PSN  // 24 bits
}

func (f *BTHFields) validate() error {
	if f.DestQP > QPNMask {
		return fmt.Errorf("DestQP=%#x: must fit 24 bits", uint32(f.DestQP))
	}
	if !f.PSN.Valid() {
		return fmt.Errorf("PSN=%#x: must fit 24 bits", uint32(f.PSN))
	}
	return nil
}

// appendBTH appends a BTH with the given pad count and T bit.
func appendBTH(dst []byte, f *BTHFields, pad int, intFlag bool) []byte {
	b1 := uint8(pad&3) << bthPadShift
	if f.SE {
		b1 |= bthSE
	}
	if f.MigReq {
		b1 |= bthMigReq
	}
	var b4 uint8
	if f.FECN {
		b4 |= bthFECN
	}
	if f.BECN {
		b4 |= bthBECN
	}
	var b8 uint8
	if f.AckReq {
		b8 |= bthAckReq
	}
	if intFlag {
		b8 |= BTHINTFlag
	}
	q, p := uint32(f.DestQP), uint32(f.PSN)
	return append(dst, uint8(f.Opcode), b1, uint8(f.PKey>>8), uint8(f.PKey), b4,
		uint8(q>>16), uint8(q>>8), uint8(q), b8, uint8(p>>16), uint8(p>>8), uint8(p))
}
