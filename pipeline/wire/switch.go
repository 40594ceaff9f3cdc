package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// ErrMalformed is wrapped by the errors of the switch-side edits when the
// frame does not decode; the message names the Reason.
var ErrMalformed = errors.New("wire: malformed frame")

// PushResult says what PushHop did.
type PushResult uint8

// Push outcomes.
const (
	Pushed        PushResult = iota // the record was inserted
	NotRequesting                   // no INT request in the frame (not data/probe with a Request shim): unchanged
	HopLimit                        // HopCount == MaxHops: E flag set, no record
	FrameLimit                      // the record would make the frame longer than maxFrameLen: E flag set, no record
)

// String names the outcome.
func (r PushResult) String() string {
	switch r {
	case Pushed:
		return "pushed"
	case NotRequesting:
		return "not-requesting"
	case HopLimit:
		return "hop-limit"
	case FrameLimit:
		return "frame-limit"
	}
	return fmt.Sprintf("PushResult(%d)", uint8(r))
}

// PushHop is what an INT-capable switch does at its egress port (HPCC++
// section 3: "each switch along the path inserts inband telemetry"): it
// decodes frame and, if it is a data or probe packet whose shim requests
// telemetry in encoding e, inserts h's record where the encoding puts the
// newest hop (IFA: top of stack, right after the shim; Compact: end of
// stack, as telemetry.AppendStack orders them), increments HopCount, and
// fixes the IPv4 total length and checksum (RFC 1624 incremental update),
// the UDP length (and the UDP checksum if the sender set one) and the ICRC. If the hop limit or maxFrameLen (the egress
// MTU as a frame length without FCS; 0 = no limit) stops it, it sets the E
// flag instead (recomputing the ICRC). The returned slice reuses frame's
// array when its capacity allows.
//
// Errors: the frame does not decode (wraps ErrMalformed), the shim's
// encoding differs from e, or h is not a valid record for e.
func PushHop(frame []byte, e telemetry.Encoding, h telemetry.Hop, maxFrameLen int) ([]byte, PushResult, error) {
	var p Packet
	Decode(frame, &p)
	if p.Class == ClassMalformed {
		return frame, NotRequesting, fmt.Errorf("%w: %v", ErrMalformed, p.Reason)
	}
	if !p.HasINT || p.INT.Kind != KindRequest {
		return frame, NotRequesting, nil
	}
	if p.INT.Encoding != e {
		return frame, NotRequesting, fmt.Errorf("wire: PushHop: frame requests %v records, switch stamps %v", p.INT.Encoding, e)
	}
	var rec [telemetry.IFAHopSize]byte
	b, err := telemetry.AppendHop(rec[:0], e, h)
	if err != nil {
		return frame, NotRequesting, fmt.Errorf("wire: PushHop: %w", err)
	}
	ipEnd := p.IPOff + int(p.IPv4().TotalLength())
	var res PushResult
	switch {
	case p.INT.HopCount >= p.INT.MaxHops:
		res = HopLimit
	case maxFrameLen > 0 && ipEnd+len(b) > maxFrameLen, ipEnd-p.IPOff+len(b) > 0xFFFF:
		res = FrameLimit
	}
	if res != Pushed {
		frame[p.INTOff+INTFlagsOffset] |= INTFlagExceeded
		refreshChecks(frame[p.IPOff:ipEnd])
		return frame, res, nil
	}
	at := p.INTOff + INTShimLen // IFA: newest on top
	if e == telemetry.Compact {
		at += p.StackLen // Compact: newest at the end
	}
	n := len(b)
	frame = frame[:ipEnd]      // drop any Ethernet padding; re-added below if needed
	out := append(frame, b...) // grow by n (contents fixed below)
	copy(out[at+n:], out[at:ipEnd])
	copy(out[at:], b)
	ipEnd += n
	out[p.INTOff+INTHopCountOffset]++
	ip := IPv4(out[p.IPOff:])
	ip.setTotalLength(ip.TotalLength() + uint16(n))
	u := UDP(out[p.UDPOff:])
	binary.BigEndian.PutUint16(u[UDPLengthOffset:], u.Length()+uint16(n))
	refreshChecks(out[p.IPOff:ipEnd])
	for len(out) < EthernetMinFrameLen {
		out = append(out, 0)
	}
	return out, Pushed, nil
}

// MarkCE sets the IPv4 ECN field of frame to CE if the packet is
// ECN-capable (ECT(0) or ECT(1)), as an ECN-marking switch does (RFC 3168
// section 5), updating the header checksum incrementally. The ICRC masks the
// TOS byte, so it stays valid. It reports whether it marked; Not-ECT and
// already-CE packets are left unchanged. The frame must decode.
func MarkCE(frame []byte) (bool, error) {
	var p Packet
	Decode(frame, &p)
	if p.Class == ClassMalformed {
		return false, fmt.Errorf("%w: %v", ErrMalformed, p.Reason)
	}
	ip := p.IPv4()
	if e := ip.ECN(); e != ECT0 && e != ECT1 {
		return false, nil
	}
	ip.SetECN(CE)
	return true, nil
}

// refreshChecks recomputes the ICRC of the IPv4 datagram dgram after its
// IBA part changed, then the UDP checksum if the sender set one (it covers
// the ICRC, so it comes last; the ICRC masks it, so the order is safe).
func refreshChecks(dgram []byte) {
	putICRC(dgram)
	ip := IPv4(dgram)
	u := UDP(dgram[IPv4HeaderLen:])
	if u.Checksum() != 0 {
		binary.BigEndian.PutUint16(u[UDPChecksumOffset:], UDPChecksum(ip.Src(), ip.Dst(), u))
	}
}
