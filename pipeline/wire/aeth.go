package wire

import "fmt"

// ACK Extended Transport Header layout (IBTA Vol. 1, 9.3.5): a syndrome byte
// then a 24-bit message sequence number, big-endian. It follows the BTH in
// RC ACKNOWLEDGE packets.
const (
	AETHSyndromeOffset = 0
	AETHMSNOffset      = 1
	AETHLen            = 4
)

// AckType is the 2-bit type in syndrome bits 6:5 (IBTA Vol. 1, 9.3.5,
// Table 43).
type AckType uint8

// Syndrome types.
const (
	AckTypeACK      AckType = 0 // ACK; bits 4:0 carry a credit count
	AckTypeRNRNAK   AckType = 1 // receiver-not-ready NAK; bits 4:0 carry a timer
	AckTypeReserved AckType = 2 // reserved
	AckTypeNAK      AckType = 3 // NAK; bits 4:0 carry the NAK code
)

// CreditsInvalid is the ACK credit-count code 0b11111, "credit count not
// valid" (IBTA Vol. 1, 9.7.7.2.5): what a responder without end-to-end
// credits sends.
const CreditsInvalid = 0x1F

// Syndrome is the AETH syndrome byte: bit 7 reserved (0), type in 6:5,
// value (credits, timer or NAK code) in 4:0.
type Syndrome uint8

// MakeSyndrome builds a syndrome from a type and a 5-bit value.
func MakeSyndrome(t AckType, v uint8) Syndrome { return Syndrome(uint8(t&3)<<5 | v&0x1F) }

// Type returns the syndrome type.
func (s Syndrome) Type() AckType { return AckType(s>>5) & 3 }

// Value returns the 5-bit credit count, timer or NAK code.
func (s Syndrome) Value() uint8 { return uint8(s) & 0x1F }

// Reserved reports whether the reserved bit 7 is set (must be zero).
func (s Syndrome) Reserved() bool { return s&0x80 != 0 }

// String formats s as type and value.
func (s Syndrome) String() string {
	names := [...]string{"ACK", "RNR_NAK", "RESERVED", "NAK"}
	return fmt.Sprintf("%s/%d", names[s.Type()], s.Value())
}

// MSN is the 24-bit message sequence number of an AETH, wrapping like a PSN.
type MSN = PSN

// AETH is a view of an AETH. Accessors assume len >= AETHLen.
type AETH []byte

// Syndrome returns the syndrome byte.
func (b AETH) Syndrome() Syndrome { return Syndrome(b[AETHSyndromeOffset]) }

// MSN returns the 24-bit message sequence number.
func (b AETH) MSN() MSN { return MSN(uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) }

func appendAETH(dst []byte, s Syndrome, msn MSN) []byte {
	m := uint32(msn)
	return append(dst, uint8(s), uint8(m>>16), uint8(m>>8), uint8(m))
}
