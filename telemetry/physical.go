package telemetry

import "fmt"

// EgressTime returns the egress timestamp of an IFA hop, ts = rx +
// residenceTime, normalized to (sec, ns) with ns < 10^9 and sec wrapping at
// 2^20 like rxTimestampSec. The residence time (< 2^32 ns, about 4.3 s) may
// carry up to 5 seconds into sec. For a Compact hop it returns (0, Ts).
//
// Why egress: HPCC++ draft section 6.1 asks for txBytes, qlen and ts to be
// one snapshot at the egress port; the IFA metadata carries the ingress time
// and the residence time, whose sum is that egress instant.
func EgressTime(e Encoding, h Hop) (sec, ns uint32) {
	if e == Compact {
		return 0, h.Ts
	}
	t := uint64(h.RxNs) + uint64(h.ResidenceNs)
	carry := t / NsPerSecond
	return uint32((uint64(h.RxSec) + carry) & (1<<IFARxSecBits - 1)), uint32(t % NsPerSecond)
}

// DeltaTsNs returns the egress-timestamp difference cur - prev in ns, modulo
// the encoding's wrap period TsWrapNs (IFA: seconds wrap at 2^20 with the ns
// part borrowing at 10^9; Compact: 24-bit ns wrap). It is exact integer
// arithmetic, the same as the hardware counter difference.
func DeltaTsNs(e Encoding, cur, prev Hop) uint64 {
	if e == Compact {
		return uint64(cur.Ts-prev.Ts) & (1<<CompactTsBits - 1)
	}
	cs, cn := EgressTime(e, cur)
	ps, pn := EgressTime(e, prev)
	ds := uint64(cs-ps) & (1<<IFARxSecBits - 1)
	if cn < pn {
		ds = (ds - 1) & (1<<IFARxSecBits - 1)
		return ds*NsPerSecond + uint64(cn) + NsPerSecond - uint64(pn)
	}
	return ds*NsPerSecond + uint64(cn-pn)
}

// DeltaTxBytes returns the txBytes difference cur - prev in bytes: the
// counter difference modulo 2^TxBytesBits, times TxBytesUnit.
func DeltaTxBytes(e Encoding, cur, prev Hop) uint64 {
	m := uint64(1)<<e.TxBytesBits() - 1
	return ((uint64(cur.TxBytes) - uint64(prev.TxBytes)) & m) * e.TxBytesUnit()
}

// QlenBytes returns the queue length of h in bytes (Qlen * QlenUnit).
func QlenBytes(e Encoding, h Hop) uint64 { return uint64(h.Qlen) * e.QlenUnit() }

// Identity returns the link identity carried by an IFA hop, DeviceID<<16 |
// EgressPort (36 bits), or 0 for Compact, which carries none.
func Identity(e Encoding, h Hop) uint64 {
	if e != IFA {
		return 0
	}
	return uint64(h.DeviceID)<<IFAPortBits | uint64(h.EgressPort)
}

// IdentityBits is the width of Identity: 36 for IFA, 0 for Compact.
func (e Encoding) IdentityBits() int {
	if e == IFA {
		return IFADeviceIDBits + IFAPortBits
	}
	return 0
}

// Physical is a hop's telemetry in physical units, as a network model or a
// trace file states it: absolute (unwrapped) counters, bytes and ns.
type Physical struct {
	SwitchID  uint32 // switch identity (IFA deviceID, < 2^20); not carried by Compact
	PortID    uint32 // egress port identity (< 2^16); not carried by Compact
	SpeedGbps uint32 // egress link speed, Gbps; must have a speed code
	TsNs      uint64 // egress timestamp, ns since an arbitrary epoch
	TxBytes   uint64 // bytes transmitted by the egress port since an arbitrary epoch
	QlenBytes uint64 // egress queue length, bytes
}

// FromPhysical quantizes physical telemetry into the wire fields of e, as a
// switch stamping that encoding would:
//
//   - IFA: RxSec = (TsNs / 10^9) mod 2^20, RxNs = TsNs mod 10^9,
//     ResidenceNs = 0 (TsNs is the egress time, so it is carried as an
//     ingress time with zero residence), TxBytes = TxBytes mod 2^32,
//     Qlen = min(QlenBytes, 2^24-1), DeviceID = SwitchID, EgressPort = PortID.
//   - Compact: Ts = TsNs mod 2^24, TxBytes = floor(TxBytes/128) mod 2^20,
//     Qlen = min(floor(QlenBytes/80), 2^17-1); identity is not carried.
//
// A queue deeper than the field saturates at the field's maximum (a switch
// cannot report more). Errors: a speed without a code, or (IFA) a SwitchID or
// PortID too wide for its field.
func FromPhysical(e Encoding, p Physical) (Hop, error) {
	if err := e.Validate(); err != nil {
		return Hop{}, err
	}
	code, err := e.SpeedCode(p.SpeedGbps)
	if err != nil {
		return Hop{}, err
	}
	h := Hop{SpeedCode: code}
	switch e {
	case IFA:
		if p.SwitchID>>IFADeviceIDBits != 0 {
			return Hop{}, fmt.Errorf("telemetry: ifa hop: switch=%d: does not fit the %d-bit deviceID", p.SwitchID, IFADeviceIDBits)
		}
		if p.PortID>>IFAPortBits != 0 {
			return Hop{}, fmt.Errorf("telemetry: ifa hop: port=%d: does not fit the %d-bit egressPort", p.PortID, IFAPortBits)
		}
		h.DeviceID = p.SwitchID
		h.EgressPort = uint16(p.PortID)
		h.RxSec = uint32((p.TsNs / NsPerSecond) & (1<<IFARxSecBits - 1))
		h.RxNs = uint32(p.TsNs % NsPerSecond)
		h.TxBytes = uint32(p.TxBytes)
		h.Qlen = uint32(min(p.QlenBytes, 1<<IFAQlenBits-1))
	case Compact:
		h.Ts = uint32(p.TsNs & (1<<CompactTsBits - 1))
		h.TxBytes = uint32((p.TxBytes / CompactTxUnit) & (1<<CompactTxBits - 1))
		h.Qlen = uint32(min(p.QlenBytes/CompactQlenUnit, 1<<CompactQlenBits-1))
	}
	return h, nil
}

// ToPhysical returns what the wire fields of h say in physical units. The
// counters are the wrapped values as carried: TsNs is the egress time within
// one wrap period (IFA: sec*10^9 + ns of EgressTime; Compact: Ts), TxBytes is
// the counter times its unit, QlenBytes the queue length times its unit.
func ToPhysical(e Encoding, h Hop) (Physical, error) {
	if err := h.Validate(e); err != nil {
		return Physical{}, err
	}
	g, _ := e.SpeedGbps(h.SpeedCode)
	p := Physical{SpeedGbps: g, TxBytes: uint64(h.TxBytes) * e.TxBytesUnit(), QlenBytes: QlenBytes(e, h)}
	if e == IFA {
		s, ns := EgressTime(e, h)
		p.TsNs = uint64(s)*NsPerSecond + uint64(ns)
		p.SwitchID = h.DeviceID
		p.PortID = uint32(h.EgressPort)
	} else {
		p.TsNs = uint64(h.Ts)
	}
	return p, nil
}
