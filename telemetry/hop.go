package telemetry

import (
	"encoding/binary"
	"fmt"
)

// Hop is one switch's telemetry record with the raw wire fields, integers
// exactly as transmitted (no unit conversion, no unwrapping). Fields that the
// selected encoding does not carry must be zero.
//
// IFA hop (32 bytes, eight big-endian 32-bit words; bit 0 = first bit on the
// wire, as in the slides' figure):
//
//	word 0: Ins(4) | DeviceID(20) | rsvd(8)
//	word 1: SpeedCode(4) | rsvd(8) | RxSec(20)
//	word 2: EgressPort(16) | IngressPort(16)
//	word 3: RxNs(32)            ingress time, ns part, < 10^9
//	word 4: ResidenceNs(32)     egress time - ingress time, ns
//	word 5: TxBytes(32)         bytes transmitted by the egress port, wrapping
//	word 6: rsvd(8) | Qlen(24)  egress queue length, bytes
//	word 7: rsvd(32)
//
// The slides give the order of the fields; the exact bit boundaries of words
// 0 and 1 follow the IFA metadata of draft-kumar-ippm-ifa (LNS 4, device ID
// 20; speed 4, 8 bits of flags/queue ID that we treat as reserved, seconds 20).
//
// Compact hop (8 bytes, one big-endian 64-bit word), bit positions as the
// HPCC authors' ns-3 IntHop (bit 0 = least significant):
//
//	bits  2..0  SpeedCode (3)
//	bits 26..3  Ts (24)       egress timestamp, ns, wrapping at 2^24
//	bits 46..27 TxBytes (20)  in 128-byte units, wrapping at 2^20
//	bits 63..47 Qlen (17)     in 80-byte units
//
// Reserved bits are written as zero and ignored on receipt.
type Hop struct {
	SpeedCode   uint8  // egress link speed code (SpeedGbps); 4 bits IFA, 3 bits Compact
	Ins         uint8  // IFA only: "Ins" nibble of word 0 (4 bits), carried opaquely
	DeviceID    uint32 // IFA only: switch identity (20 bits)
	EgressPort  uint16 // IFA only: egress port identity
	IngressPort uint16 // IFA only: ingress port identity
	RxSec       uint32 // IFA only: ingress timestamp seconds (20 bits, wrapping)
	RxNs        uint32 // IFA only: ingress timestamp nanoseconds, < 10^9
	ResidenceNs uint32 // IFA only: residence time in the switch, ns
	Ts          uint32 // Compact only: egress timestamp, ns (24 bits, wrapping)
	TxBytes     uint32 // transmitted-bytes counter: IFA 32 bits in bytes; Compact 20 bits in 128-byte units
	Qlen        uint32 // queue length: IFA 24 bits in bytes; Compact 17 bits in 80-byte units
}

func fitErr(e Encoding, name string, v uint64, bits int) error {
	if v>>uint(bits) != 0 {
		return fmt.Errorf("telemetry: %s hop: %s=%d: does not fit %d bits", e, name, v, bits)
	}
	return nil
}

// Validate checks that every field fits its wire width, that the speed code
// is defined, that RxNs < 10^9 (IFA), and that fields the encoding does not
// carry are zero. The error names the first offending field and its value.
func (h Hop) Validate(e Encoding) error {
	if err := e.Validate(); err != nil {
		return err
	}
	if _, ok := e.SpeedGbps(h.SpeedCode); !ok {
		return fmt.Errorf("telemetry: %s hop: SpeedCode=%d: reserved or out of range (defined speeds %v Gbps)", e, h.SpeedCode, e.supportedSpeeds())
	}
	switch e {
	case IFA:
		for _, c := range []struct {
			name string
			v    uint64
			bits int
		}{
			{"Ins", uint64(h.Ins), IFAInsBits},
			{"DeviceID", uint64(h.DeviceID), IFADeviceIDBits},
			{"RxSec", uint64(h.RxSec), IFARxSecBits},
			{"Qlen", uint64(h.Qlen), IFAQlenBits},
		} {
			if err := fitErr(e, c.name, c.v, c.bits); err != nil {
				return err
			}
		}
		if h.RxNs >= NsPerSecond {
			return fmt.Errorf("telemetry: ifa hop: RxNs=%d: must be < 10^9", h.RxNs)
		}
		if h.Ts != 0 {
			return fmt.Errorf("telemetry: ifa hop: Ts=%d: not carried by ifa (use RxSec/RxNs/ResidenceNs)", h.Ts)
		}
	case Compact:
		for _, c := range []struct {
			name string
			v    uint64
			bits int
		}{
			{"Ts", uint64(h.Ts), CompactTsBits},
			{"TxBytes", uint64(h.TxBytes), CompactTxBits},
			{"Qlen", uint64(h.Qlen), CompactQlenBits},
		} {
			if err := fitErr(e, c.name, c.v, c.bits); err != nil {
				return err
			}
		}
		for _, c := range []struct {
			name string
			v    uint64
		}{
			{"Ins", uint64(h.Ins)}, {"DeviceID", uint64(h.DeviceID)}, {"EgressPort", uint64(h.EgressPort)},
			{"IngressPort", uint64(h.IngressPort)}, {"RxSec", uint64(h.RxSec)}, {"RxNs", uint64(h.RxNs)},
			{"ResidenceNs", uint64(h.ResidenceNs)},
		} {
			if c.v != 0 {
				return fmt.Errorf("telemetry: compact hop: %s=%d: not carried by compact", c.name, c.v)
			}
		}
	}
	return nil
}

// AppendHop appends the wire bytes of h (HopSize bytes) to dst. It returns an
// error (and dst unchanged) if h is not valid for e (see Validate).
func AppendHop(dst []byte, e Encoding, h Hop) ([]byte, error) {
	if err := h.Validate(e); err != nil {
		return dst, err
	}
	if e == Compact {
		w := uint64(h.SpeedCode) | uint64(h.Ts)<<3 | uint64(h.TxBytes)<<27 | uint64(h.Qlen)<<47
		return binary.BigEndian.AppendUint64(dst, w), nil
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.Ins)<<28|h.DeviceID<<8)
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.SpeedCode)<<28|h.RxSec)
	dst = binary.BigEndian.AppendUint32(dst, uint32(h.EgressPort)<<16|uint32(h.IngressPort))
	dst = binary.BigEndian.AppendUint32(dst, h.RxNs)
	dst = binary.BigEndian.AppendUint32(dst, h.ResidenceNs)
	dst = binary.BigEndian.AppendUint32(dst, h.TxBytes)
	dst = binary.BigEndian.AppendUint32(dst, h.Qlen)
	dst = binary.BigEndian.AppendUint32(dst, 0)
	return dst, nil
}

// ParseHop decodes one hop from the first HopSize bytes of b. Bytes after the
// hop are ignored; reserved bits are ignored. It returns an error if b is
// shorter than HopSize, if the speed code is reserved, or (IFA) if
// rxTimeStampNs is not below 10^9.
func ParseHop(b []byte, e Encoding) (Hop, error) {
	if err := e.Validate(); err != nil {
		return Hop{}, err
	}
	if len(b) < e.HopSize() {
		return Hop{}, fmt.Errorf("telemetry: %s hop: %d bytes: need %d", e, len(b), e.HopSize())
	}
	var h Hop
	if e == Compact {
		w := binary.BigEndian.Uint64(b)
		h.SpeedCode = uint8(w & 7)
		h.Ts = uint32(w>>3) & (1<<CompactTsBits - 1)
		h.TxBytes = uint32(w>>27) & (1<<CompactTxBits - 1)
		h.Qlen = uint32(w >> 47)
	} else {
		w0 := binary.BigEndian.Uint32(b[0:])
		w1 := binary.BigEndian.Uint32(b[4:])
		w2 := binary.BigEndian.Uint32(b[8:])
		h.Ins = uint8(w0 >> 28)
		h.DeviceID = w0 >> 8 & (1<<IFADeviceIDBits - 1)
		h.SpeedCode = uint8(w1 >> 28)
		h.RxSec = w1 & (1<<IFARxSecBits - 1)
		h.EgressPort = uint16(w2 >> 16)
		h.IngressPort = uint16(w2)
		h.RxNs = binary.BigEndian.Uint32(b[12:])
		h.ResidenceNs = binary.BigEndian.Uint32(b[16:])
		h.TxBytes = binary.BigEndian.Uint32(b[20:])
		h.Qlen = binary.BigEndian.Uint32(b[24:]) & (1<<IFAQlenBits - 1)
	}
	if err := h.Validate(e); err != nil {
		return Hop{}, err
	}
	return h, nil
}

// AppendStack appends the wire bytes of a stack of hops given in path order
// (hops[0] = first switch after the sender). The byte order of the stack
// follows each protocol: IFA pushes each hop's metadata on top of the stack,
// so the last switch comes first in the packet (hops[len-1] first); the
// Compact INT appends, so hops[0] comes first (as the ns-3 IntHeader). On
// error dst is returned unchanged and the error names the hop index.
func AppendStack(dst []byte, e Encoding, hops []Hop) ([]byte, error) {
	if err := e.Validate(); err != nil {
		return dst, err
	}
	out := dst
	n := len(hops)
	for k := 0; k < n; k++ {
		i := k
		if e == IFA {
			i = n - 1 - k
		}
		var err error
		out, err = AppendHop(out, e, hops[i])
		if err != nil {
			return dst, fmt.Errorf("telemetry: stack hop %d: %w", i, err)
		}
	}
	return out, nil
}

// ParseStack decodes a stack of hops occupying all of b (len(b) must be a
// multiple of HopSize) and appends them to dst in path order (see
// AppendStack). It allocates nothing when dst has room. On error dst is
// returned unchanged and the error names the hop index.
func ParseStack(b []byte, e Encoding, dst []Hop) ([]Hop, error) {
	if err := e.Validate(); err != nil {
		return dst, err
	}
	sz := e.HopSize()
	if len(b)%sz != 0 {
		return dst, fmt.Errorf("telemetry: %s stack: %d bytes: not a multiple of the %d-byte hop", e, len(b), sz)
	}
	n := len(b) / sz
	base := len(dst)
	out := dst
	for k := 0; k < n; k++ {
		out = append(out, Hop{})
	}
	for k := 0; k < n; k++ {
		i := k // path index of the k-th record on the wire
		if e == IFA {
			i = n - 1 - k
		}
		h, err := ParseHop(b[k*sz:], e)
		if err != nil {
			return dst, fmt.Errorf("telemetry: stack hop %d: %w", i, err)
		}
		out[base+i] = h
	}
	return out, nil
}
