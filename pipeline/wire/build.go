package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// Transport holds the BTH fields every packet kind sets except the opcode
// (each builder writes its own) and PadCnt (computed) and TVer (always 0).
type Transport struct {
	PKey   uint16 // partition key; DefaultPKey when unsure
	DestQP QPN    // 24-bit destination QP: the flow identifier
	PSN    PSN    // 24-bit packet sequence number
	SE     bool   // solicited event
	MigReq bool   // migration request (RoCE NICs send 1, "migrated")
	AckReq bool   // A bit: ask the responder to acknowledge this packet
	FECN   bool   // forward ECN (IBTA Annex A17.9)
	BECN   bool   // backward ECN
}

func (t *Transport) bth(op Opcode) BTHFields {
	return BTHFields{Opcode: op, SE: t.SE, MigReq: t.MigReq, PKey: t.PKey, FECN: t.FECN, BECN: t.BECN,
		DestQP: t.DestQP, AckReq: t.AckReq, PSN: t.PSN}
}

// INTRequest asks switches to push hop records (HPCC++ section 7.2: the Tx
// pipeline "may add indications/headers that triggers the network elements
// to add telemetry data"). The zero value requests nothing (no shim, T bit
// clear).
type INTRequest struct {
	Enabled  bool
	Encoding telemetry.Encoding // record format switches must use
	MaxHops  int                // in [1, MaxHops]
}

func (r *INTRequest) validate() error {
	if !r.Enabled {
		return nil
	}
	if err := r.Encoding.Validate(); err != nil {
		return fmt.Errorf("INT.Encoding: %w", err)
	}
	if r.MaxHops < 1 || r.MaxHops > MaxHops {
		return fmt.Errorf("INT.MaxHops=%d: must be in [1,%d]", r.MaxHops, MaxHops)
	}
	return nil
}

// Echo is the telemetry an ACK or probe reply carries back to the sender:
// the forward packet's hop records in path order (Hops[0] = first switch)
// with the shim fields they arrived with. The zero value echoes nothing.
type Echo struct {
	Enabled  bool
	Encoding telemetry.Encoding
	MaxHops  int             // copied from the request, in [1, MaxHops]
	Exceeded bool            // copied E flag
	Hops     []telemetry.Hop // len <= MaxHops
}

func (e *Echo) validate() error {
	if !e.Enabled {
		if len(e.Hops) != 0 {
			return fmt.Errorf("Echo.Enabled=false with %d hops: hops need Enabled", len(e.Hops))
		}
		return nil
	}
	if err := e.Encoding.Validate(); err != nil {
		return fmt.Errorf("Echo.Encoding: %w", err)
	}
	if e.MaxHops < 1 || e.MaxHops > MaxHops {
		return fmt.Errorf("Echo.MaxHops=%d: must be in [1,%d]", e.MaxHops, MaxHops)
	}
	if len(e.Hops) > e.MaxHops {
		return fmt.Errorf("Echo.Hops: %d records: must be <= MaxHops=%d", len(e.Hops), e.MaxHops)
	}
	return nil
}

// Data is a data packet: an RC SEND carrying Payload, optionally with an INT
// request (shim of kind Request, empty stack).
type Data struct {
	Path      Path
	Opcode    Opcode // one of the RC SEND opcodes (Opcode.IsSend)
	Transport Transport
	INT       INTRequest
	Payload   []byte // message bytes; padded on the wire to a multiple of 4
}

// Ack is an RC ACKNOWLEDGE: BTH (PSN = the acknowledged PSN) and AETH,
// optionally echoing the telemetry of the acknowledged packet.
type Ack struct {
	Path      Path
	Transport Transport
	Syndrome  Syndrome // MakeSyndrome(AckTypeACK, CreditsInvalid) for a plain ACK
	MSN       MSN      // 24-bit message sequence number
	Echo      Echo
}

// Notify is an Rx-HPCC notification packet (HPCC++ section 6.2, lines
// 29-32; the slides' "np"): an RC ACKNOWLEDGE (it also acknowledges data up
// to Transport.PSN, as the slides say notifications do) with a Notify shim
// and W.
type Notify struct {
	Path      Path
	Transport Transport
	Syndrome  Syndrome
	MSN       MSN
	Window    uint32 // W computed by the receiver, bytes
}

// Probe is a dedicated telemetry-request packet (HPCC++ section 6.1: "a probe
// packet to query the inband telemetry"; section 7.2). It uses the flow's
// Path so it takes the data packets' route and queue, and does not consume a
// PSN (Transport.PSN is the flow's next PSN, informational).
type Probe struct {
	Path      Path
	Transport Transport
	INT       INTRequest // must be Enabled
}

// ProbeReply is the dedicated telemetry response to a Probe (section 7.2:
// "a dedicated telemetry response prob packet").
type ProbeReply struct {
	Path      Path
	Transport Transport // PSN echoes the probe's PSN
	Echo      Echo      // must be Enabled
}

// frameBuilder assembles one packet. Lengths are computed first so that the
// IPv4 and UDP length fields and the IPv4 checksum can be written in order,
// then the ICRC is computed over the finished bytes.
type frameBuilder struct {
	path    *Path
	bth     BTHFields
	aeth    bool
	syn     Syndrome
	msn     MSN
	shim    bool
	kind    Kind
	enc     telemetry.Encoding
	maxHops int
	exceed  bool
	hops    []telemetry.Hop
	notifyW uint32
	payload []byte
}

func (f *frameBuilder) build(dst []byte) ([]byte, error) {
	if err := f.path.Validate(); err != nil {
		return dst, err
	}
	if err := f.bth.validate(); err != nil {
		return dst, fmt.Errorf("wire: Transport.%w", err)
	}
	if f.aeth && !f.msn.Valid() {
		return dst, fmt.Errorf("wire: MSN=%#x: must fit 24 bits", uint32(f.msn))
	}
	if f.aeth && f.syn.Reserved() {
		return dst, fmt.Errorf("wire: Syndrome=%#02x: reserved bit 7 must be zero", uint8(f.syn))
	}
	pad := -len(f.payload) & 3
	ib := BTHLen + len(f.payload) + pad + ICRCLen
	if f.aeth {
		ib += AETHLen
	}
	if f.shim {
		ib += INTShimLen
		if f.kind == KindNotify {
			ib += NotifyBodyLen
		} else {
			ib += len(f.hops) * f.enc.HopSize()
		}
	}
	total := IPv4HeaderLen + UDPHeaderLen + ib
	if total > 0xFFFF {
		return dst, fmt.Errorf("wire: Payload: %d bytes: IPv4 datagram would be %d bytes, above 65535", len(f.payload), total)
	}
	start := len(dst)
	out := appendEthernet(dst, f.path.SrcMAC, f.path.DstMAC, f.path.VLAN)
	l3 := len(out)
	out = appendIPv4(out, f.path, uint16(total))
	out = binary.BigEndian.AppendUint16(out, f.path.UDPSrcPort)
	out = binary.BigEndian.AppendUint16(out, RoCEv2Port)
	out = binary.BigEndian.AppendUint16(out, uint16(UDPHeaderLen+ib))
	out = binary.BigEndian.AppendUint16(out, 0) // UDP checksum: none (ICRC protects the payload)
	out = appendBTH(out, &f.bth, pad, f.shim)
	if f.aeth {
		out = appendAETH(out, f.syn, f.msn)
	}
	if f.shim {
		if f.kind == KindNotify {
			out = appendShim(out, KindNotify, 0, 0, 0, false) // encoding 0: HopLen 0
			out = binary.BigEndian.AppendUint32(out, f.notifyW)
			out = binary.BigEndian.AppendUint32(out, 0)
		} else {
			out = appendShim(out, f.kind, f.enc, len(f.hops), f.maxHops, f.exceed)
			var err error
			out, err = telemetry.AppendStack(out, f.enc, f.hops)
			if err != nil {
				return dst[:start], fmt.Errorf("wire: Echo.Hops: %w", err)
			}
		}
	}
	out = append(out, f.payload...)
	for i := 0; i < pad; i++ {
		out = append(out, 0)
	}
	out = append(out, 0, 0, 0, 0)
	putICRC(out[l3:])
	for len(out)-start < EthernetMinFrameLen {
		out = append(out, 0)
	}
	return out, nil
}

// AppendData appends the frame of d to dst and returns the extended slice.
// On error dst is returned unchanged and the error names the field.
func AppendData(dst []byte, d *Data) ([]byte, error) {
	if !d.Opcode.IsSend() {
		return dst, fmt.Errorf("wire: Data.Opcode=%v: must be an RC SEND opcode (First, Middle, Last, Only)", d.Opcode)
	}
	if err := d.INT.validate(); err != nil {
		return dst, fmt.Errorf("wire: Data.%w", err)
	}
	f := frameBuilder{path: &d.Path, bth: d.Transport.bth(d.Opcode), payload: d.Payload}
	if d.INT.Enabled {
		f.shim, f.kind, f.enc, f.maxHops = true, KindRequest, d.INT.Encoding, d.INT.MaxHops
	}
	return f.build(dst)
}

// AppendAck appends the frame of a to dst.
func AppendAck(dst []byte, a *Ack) ([]byte, error) {
	if err := a.Echo.validate(); err != nil {
		return dst, fmt.Errorf("wire: Ack.%w", err)
	}
	f := frameBuilder{path: &a.Path, bth: a.Transport.bth(OpRCAck), aeth: true, syn: a.Syndrome, msn: a.MSN}
	if a.Echo.Enabled {
		f.shim, f.kind, f.enc, f.maxHops, f.exceed, f.hops = true, KindEcho, a.Echo.Encoding, a.Echo.MaxHops, a.Echo.Exceeded, a.Echo.Hops
	}
	return f.build(dst)
}

// AppendNotify appends the frame of n to dst.
func AppendNotify(dst []byte, n *Notify) ([]byte, error) {
	f := frameBuilder{path: &n.Path, bth: n.Transport.bth(OpRCAck), aeth: true, syn: n.Syndrome, msn: n.MSN,
		shim: true, kind: KindNotify, notifyW: n.Window}
	return f.build(dst)
}

// AppendProbe appends the frame of p to dst.
func AppendProbe(dst []byte, p *Probe) ([]byte, error) {
	if !p.INT.Enabled {
		return dst, fmt.Errorf("wire: Probe.INT.Enabled=false: a probe must request telemetry")
	}
	if err := p.INT.validate(); err != nil {
		return dst, fmt.Errorf("wire: Probe.%w", err)
	}
	f := frameBuilder{path: &p.Path, bth: p.Transport.bth(OpProbe), shim: true, kind: KindRequest,
		enc: p.INT.Encoding, maxHops: p.INT.MaxHops}
	return f.build(dst)
}

// AppendProbeReply appends the frame of r to dst.
func AppendProbeReply(dst []byte, r *ProbeReply) ([]byte, error) {
	if !r.Echo.Enabled {
		return dst, fmt.Errorf("wire: ProbeReply.Echo.Enabled=false: a probe reply must carry telemetry")
	}
	if err := r.Echo.validate(); err != nil {
		return dst, fmt.Errorf("wire: ProbeReply.%w", err)
	}
	f := frameBuilder{path: &r.Path, bth: r.Transport.bth(OpProbeReply), shim: true, kind: KindEcho,
		enc: r.Echo.Encoding, maxHops: r.Echo.MaxHops, exceed: r.Echo.Exceeded, hops: r.Echo.Hops}
	return f.build(dst)
}
