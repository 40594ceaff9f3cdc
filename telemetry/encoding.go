package telemetry

import (
	"fmt"
	"strings"
)

// Encoding selects one of the two per-hop telemetry wire formats. The zero
// value is not a valid encoding, so a forgotten setting is an error rather
// than a silent default.
type Encoding uint8

const (
	// IFA is the 32-byte per-hop IFA metadata of the HPCC++ slides
	// (seeds 002_..., "IFA meta data format for HPCC++").
	IFA Encoding = 1
	// Compact is the 8-byte per-hop INT of the HPCC paper (the authors' ns-3
	// IntHop: 3-bit speed, 24-bit ts, 20-bit txBytes, 17-bit qlen).
	Compact Encoding = 2
)

// Encodings lists the valid encodings in a fixed order (for tests and
// generators that cover both).
func Encodings() []Encoding { return []Encoding{IFA, Compact} }

// String returns "ifa" or "compact" (the names used in config files and
// flags), or "Encoding(n)" for an invalid value.
func (e Encoding) String() string {
	switch e {
	case IFA:
		return "ifa"
	case Compact:
		return "compact"
	}
	return fmt.Sprintf("Encoding(%d)", uint8(e))
}

// Validate reports whether e is one of the defined encodings.
func (e Encoding) Validate() error {
	if e != IFA && e != Compact {
		return fmt.Errorf("telemetry: Encoding=%d: must be ifa or compact", uint8(e))
	}
	return nil
}

// ParseEncoding parses "ifa" or "compact" (case-insensitive).
func ParseEncoding(s string) (Encoding, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "ifa":
		return IFA, nil
	case "compact":
		return Compact, nil
	}
	return 0, fmt.Errorf("telemetry: encoding %q: must be ifa or compact", s)
}

// MarshalText implements encoding.TextMarshaler (JSON config files).
func (e Encoding) MarshalText() ([]byte, error) {
	if err := e.Validate(); err != nil {
		return nil, err
	}
	return []byte(e.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (e *Encoding) UnmarshalText(b []byte) error {
	v, err := ParseEncoding(string(b))
	if err != nil {
		return err
	}
	*e = v
	return nil
}

// Wire sizes of one hop record in bytes.
const (
	IFAHopSize     = 32 // eight 32-bit words
	CompactHopSize = 8  // one 64-bit word
)

// HopSize is the number of bytes one hop occupies on the wire: 32 for IFA,
// 8 for Compact, 0 for an invalid encoding.
func (e Encoding) HopSize() int {
	switch e {
	case IFA:
		return IFAHopSize
	case Compact:
		return CompactHopSize
	}
	return 0
}

// Field widths (bits) of the raw wire fields.
const (
	IFAInsBits        = 4  // "Ins" (IFA local namespace) nibble
	IFADeviceIDBits   = 20 // deviceID (switch identity)
	IFASpeedBits      = 4  // egress port speed code
	IFARxSecBits      = 20 // rxTimestampSec, wraps at 2^20 s
	IFAPortBits       = 16 // egressPort, ingressPort
	IFARxNsBits       = 32 // rxTimeStampNs, always < 10^9
	IFAResidenceBits  = 32 // residenceTime in ns
	IFATxBytesBits    = 32 // txBytes, bytes, wraps at 2^32
	IFAQlenBits       = 24 // Queue Length in bytes (unit 1 byte), saturates on encode
	CompactSpeedBits  = 3  // line-rate code
	CompactTsBits     = 24 // timestamp in ns, wraps at 2^24 ns (16.8 ms)
	CompactTxBits     = 20 // txBytes in 128-byte units, wraps at 2^20 units
	CompactQlenBits   = 17 // qlen in 80-byte units, saturates on encode
	CompactTxUnit     = 128
	CompactQlenUnit   = 80
	IFATxUnit         = 1
	IFAQlenUnit       = 1
	NsPerSecond       = 1_000_000_000
	IFAEgressNsBits   = 30 // bits of a normalized egress ns value (< 10^9 < 2^30)
	ifaMaxResidenceNs = 1<<IFAResidenceBits - 1
)

// SpeedBits is the width of the speed code field: 4 (IFA) or 3 (Compact).
func (e Encoding) SpeedBits() int {
	if e == Compact {
		return CompactSpeedBits
	}
	return IFASpeedBits
}

// TxBytesBits is the width of the txBytes field: 32 (IFA) or 20 (Compact).
func (e Encoding) TxBytesBits() int {
	if e == Compact {
		return CompactTxBits
	}
	return IFATxBytesBits
}

// TxBytesUnit is the number of bytes one txBytes count stands for: 1 (IFA)
// or 128 (Compact).
func (e Encoding) TxBytesUnit() uint64 {
	if e == Compact {
		return CompactTxUnit
	}
	return IFATxUnit
}

// QlenBits is the width of the queue-length field: 24 (IFA) or 17 (Compact).
func (e Encoding) QlenBits() int {
	if e == Compact {
		return CompactQlenBits
	}
	return IFAQlenBits
}

// QlenUnit is the number of bytes one queue-length count stands for: 1 (IFA;
// the slides leave the unit open, we choose bytes, so 24 bits cover 16 MiB per
// queue) or 80 (Compact, as the HPCC authors' ns-3 IntHop::qlenUnit).
func (e Encoding) QlenUnit() uint64 {
	if e == Compact {
		return CompactQlenUnit
	}
	return IFAQlenUnit
}

// TsWrapNs is the period (ns) after which the egress timestamp as carried on
// the wire repeats: 2^20 s (about 12.1 days) for IFA, 2^24 ns (16.8 ms) for
// Compact. Two samples further apart than this cannot be told apart.
func (e Encoding) TsWrapNs() uint64 {
	if e == Compact {
		return 1 << CompactTsBits
	}
	return (1 << IFARxSecBits) * NsPerSecond
}

// TxWrapBytes is the number of bytes after which the txBytes counter repeats:
// 2^32 bytes (IFA) or 2^20 * 128 = 2^27 bytes (Compact).
func (e Encoding) TxWrapBytes() uint64 {
	return (uint64(1) << e.TxBytesBits()) * e.TxBytesUnit()
}

// CarriesIdentity reports whether the encoding carries the switch and port
// identity of a hop (IFA: deviceID and egressPort; Compact: none), which the
// datapath needs to detect a path change at a single hop.
func (e Encoding) CarriesIdentity() bool { return e == IFA }

// speed tables, code -> Gbps, 0 = reserved code.
//
// IFA: the 4-bit egress port speed code of the IFA metadata (IFA 2.0,
// draft-kumar-ippm-ifa); the slides name the field "Speed" without a table,
// so we use 0=10G, 1=25G, 2=40G, 3=50G, 4=100G, 5=200G, 6=400G, 7..15
// reserved.
// Compact: IntHop::lineRateValues of the HPCC authors' ns-3 code: 0=25G,
// 1=50G, 2=100G, 3=200G, 4=400G, 5..7 reserved.
var (
	ifaSpeeds     = [16]uint32{10, 25, 40, 50, 100, 200, 400}
	compactSpeeds = [8]uint32{25, 50, 100, 200, 400}
)

// SpeedCodes is the number of speed codes (2^SpeedBits): 16 or 8.
func (e Encoding) SpeedCodes() int { return 1 << e.SpeedBits() }

// SpeedGbps returns the link speed in Gbps of a speed code, and false for a
// reserved or out-of-range code (or an invalid encoding).
func (e Encoding) SpeedGbps(code uint8) (uint32, bool) {
	var g uint32
	switch e {
	case IFA:
		if int(code) < len(ifaSpeeds) {
			g = ifaSpeeds[code]
		}
	case Compact:
		if int(code) < len(compactSpeeds) {
			g = compactSpeeds[code]
		}
	}
	return g, g != 0
}

// SpeedTable returns the speed of every code (index = code), 0 for reserved
// codes. The slice is a fresh copy; its length is SpeedCodes().
func (e Encoding) SpeedTable() []uint32 {
	switch e {
	case IFA:
		t := ifaSpeeds
		return t[:]
	case Compact:
		t := compactSpeeds
		return t[:]
	}
	return nil
}

// SpeedCode returns the code of a speed given in Gbps, or an error if the
// encoding has no code for it.
func (e Encoding) SpeedCode(gbps uint32) (uint8, error) {
	for c, g := range e.SpeedTable() {
		if g != 0 && g == gbps {
			return uint8(c), nil
		}
	}
	return 0, fmt.Errorf("telemetry: speed_gbps=%d: no %s speed code (supported: %v)", gbps, e, e.supportedSpeeds())
}

func (e Encoding) supportedSpeeds() []uint32 {
	var s []uint32
	for _, g := range e.SpeedTable() {
		if g != 0 {
			s = append(s, g)
		}
	}
	return s
}

// MaxSpeedGbps returns the highest speed any code of the encoding denotes.
func (e Encoding) MaxSpeedGbps() uint32 {
	var m uint32
	for _, g := range e.SpeedTable() {
		m = max(m, g)
	}
	return m
}
