package nicmodel

import (
	"encoding/binary"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// ccPort is the CC port of cc=ldcp and cc=dcqcn: one engine component on
// three paths of the NIC, each one cycle (a FIFO) long.
//
//   - Ingress (DCQCN only), between MAC Rx and the Rx pipeline: a RoCEv2
//     CNP (wire.ParseCNP) is taken off the port and its QP handed to the CC
//     module (the Rx pipeline's decoder does not accept CNPs); every other
//     frame goes on to the Rx pipeline, one per cycle.
//   - Receiver, between the Rx pipeline's replies and the Tx pipeline:
//     RoCE go-back-N acceptance (ldcp.Receiver, the LDCP draft's section
//     2.2 ACK policy and 3.1 reliability). An in-order data packet goes on
//     to the Tx pipeline, which acknowledges it (per packet, or one ACK per
//     m with tx.ack_every = m) with BECN = CE; under LDCP a CE-marked packet
//     also sets the A bit, so that a delayed-ACK receiver acknowledges it at
//     once with ECE (section 2.2); under DCQCN the CE bit is cleared (RoCE
//     ACKs do not echo ECN; the CNP does). A packet after a gap is dropped,
//     and the first one for a given expected PSN is answered by a NAK (AETH
//     NAK, PSN sequence error, PSN = the expected one); a duplicate is
//     acknowledged again (an ACK of the last in-order PSN). Under DCQCN the
//     notification point (dcqcn.NP) sees every data packet and sends a CNP
//     for a CE-marked one, at most one per flow per cnp_interval_ns.
//   - Egress, between the Tx pipeline and MAC Tx: NAKs and CNPs the port
//     built go first, then the Tx pipeline's frames; under LDCP each data
//     frame takes the next ECN decision the CC module made when it released
//     the packet (in order: the Tx pipeline keeps PktSend order) and a
//     not-ECN-capable packet gets Not-ECT in its IPv4 ECN field (RFC 1624
//     checksum update; the ICRC masks the field), the other packets keep
//     the QP's ECT(0).
type ccPort struct {
	kind CCMode
	freq engine.Freq
	tab  *pipeline.FlowTable

	rawRx *engine.FIFO[pipeline.Frame] // from MAC Rx (DCQCN)
	rxOut *engine.FIFO[pipeline.Frame] // to the Rx pipeline (DCQCN)
	cnps  *engine.FIFO[wire.QPN]       // to the CC module (DCQCN)

	repIn  *engine.FIFO[pipeline.Reply] // from the Rx pipeline
	repOut *engine.FIFO[pipeline.Reply] // to the Tx pipeline
	recv   *ldcp.Receiver
	np     *dcqcn.NP
	rs     []portQP
	fb     ring[[]byte] // NAK and CNP frames waiting for the egress
	fbMax  int

	txIn  *engine.FIFO[pipeline.Frame] // from the Tx pipeline
	txOut *engine.FIFO[pipeline.Frame] // to MAC Tx
	ect   *engine.FIFO[bool]           // from the CC module (LDCP)

	bufs        *engine.Buffers // frame buffers (nil before Register: allocated)
	releaseRx   bool            // diverted input frames are released to bufs
	cnt         *CCCounters
	replyStall  bool
	ingressWait bool
}

// portQP is the receiver state of one QP.
type portQP struct {
	rx  ldcp.RxState
	msn wire.MSN
	np  dcqcn.NPState
}

// Tick executes cycle now: egress, receiver, ingress (engine.Component).
func (p *ccPort) Tick(now engine.Cycle) bool {
	prog := p.egress(now)
	prog = p.receiver(now) || prog
	prog = p.ingress(now) || prog
	return prog
}

// NextWake: input FIFOs and freed output room wake the port; feedback
// frames built in a cycle in which the egress was busy go the next cycle.
func (p *ccPort) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if p.fb.len() > 0 && p.txOut.CanPush(now+1) {
		return now + 1, true
	}
	return engine.Never, false
}

func (p *ccPort) ingress(now engine.Cycle) bool {
	if p.rawRx == nil {
		return false
	}
	f := p.rawRx.Front(now)
	if f == nil {
		return false
	}
	if q, ok := wire.ParseCNP(f.Data); ok {
		if p.cnps.Push(now, q) {
			p.cnt.CNPsTaken++
		} else {
			p.cnt.CNPDrops++
		}
		if p.releaseRx && p.bufs != nil {
			p.bufs.Put(f.Data)
		}
		p.rawRx.Discard(now)
		p.ingressWait = false
		return true
	}
	if !p.rxOut.Push(now, *f) {
		if p.ingressWait {
			return false
		}
		p.ingressWait = true
		return true
	}
	p.rawRx.Discard(now)
	p.ingressWait = false
	return true
}

func (p *ccPort) receiver(now engine.Cycle) bool {
	r := p.repIn.Front(now)
	if r == nil {
		return false
	}
	if r.Kind != pipeline.ReplyData || int(r.Flow) >= len(p.rs) {
		if !p.repOut.Push(now, *r) {
			return p.stallReply()
		}
		p.repIn.Discard(now)
		p.replyStall = false
		return true
	}
	st := &p.rs[r.Flow]
	rx, a := p.recv.OnData(st.rx, uint32(r.PSN), r.CE, r.AckReq)
	var cnp bool
	var nps dcqcn.NPState
	if p.np != nil {
		nps, cnp = p.np.OnPacket(st.np, p.freq.NS(now), r.CE)
	}
	forward := a.Accepted || (a.Send && !a.NAK)
	frames := 0
	if a.NAK {
		frames++
	}
	if cnp {
		frames++
	}
	if (forward && !p.repOut.CanPush(now)) || p.fb.len()+frames > p.fbMax {
		return p.stallReply()
	}
	ctx, _ := p.tab.Lookup(r.Flow)
	switch {
	case a.Accepted:
		out := *r
		if p.kind == CCLDCP {
			out.AckReq = out.AckReq || out.CE
		} else {
			out.CE = false
		}
		if out.EndMsg {
			st.msn = st.msn.Add(1)
		}
		p.repOut.Push(now, out)
		p.cnt.RxAccepted++
	case forward: // a duplicate: acknowledge the last in-order PSN again
		out := pipeline.Reply{Kind: pipeline.ReplyData, Flow: r.Flow, PSN: wire.PSN((a.AckSeq - 1) & psnMask), AckReq: true,
			Arrival: r.Arrival}
		p.repOut.Push(now, out)
		p.cnt.RxDuplicates++
	default:
		p.cnt.RxOutOfOrder++
	}
	if a.NAK {
		ack := wire.Ack{Path: ctx.Path, Transport: wire.Transport{PKey: ctx.PKey, DestQP: ctx.RemoteQPN, PSN: wire.PSN(a.AckSeq),
			MigReq: true}, Syndrome: wire.MakeSyndrome(wire.AckTypeNAK, 0), MSN: st.msn}
		if b, err := wire.AppendAck(p.alloc(), &ack); err == nil {
			p.fb.push(b)
			p.cnt.NAKsSent++
		}
	}
	if cnp {
		if b, err := wire.AppendCNP(p.alloc(), &wire.CNP{Path: ctx.Path, PKey: ctx.PKey, DestQP: ctx.RemoteQPN}); err == nil {
			p.fb.push(b)
			p.cnt.CNPsSent++
		}
	}
	st.rx = rx
	if p.np != nil {
		st.np = nps
	}
	p.repIn.Discard(now)
	p.replyStall = false
	return true
}

func (p *ccPort) stallReply() bool {
	if p.replyStall {
		return false
	}
	p.replyStall = true
	return true
}

// alloc returns an empty buffer for a NAK or CNP frame.
func (p *ccPort) alloc() []byte {
	const n = 128 // Ethernet + VLAN + IPv4 + UDP + BTH + AETH or 16 reserved bytes + ICRC, padded
	if p.bufs != nil {
		return p.bufs.Get(n)
	}
	return make([]byte, 0, n)
}

func (p *ccPort) egress(now engine.Cycle) bool {
	if !p.txOut.CanPush(now) {
		return false
	}
	if p.fb.len() > 0 {
		p.txOut.Push(now, pipeline.Frame{Data: p.fb.pop()})
		return true
	}
	f := p.txIn.Front(now)
	if f == nil {
		return false
	}
	if p.ect != nil {
		if ip, ok := dataIPOffset(f.Data); ok {
			ect, have := p.ect.Peek(now)
			if !have {
				return false // its decision arrives with the ECN FIFO's push, which wakes the port
			}
			p.ect.Pop(now)
			if !ect {
				wire.IPv4(f.Data[ip:]).SetECN(wire.NotECT)
				p.cnt.NotECTPackets++
			}
		}
	}
	p.txOut.Push(now, *f)
	p.txIn.Discard(now)
	return true
}

// dataIPOffset returns the IPv4 header offset of a RoCEv2 data frame (an
// RC SEND) built by the Tx pipeline, and false for any other frame.
func dataIPOffset(f []byte) (int, bool) {
	off := wire.EthernetHeaderLen
	if len(f) < off {
		return 0, false
	}
	et := binary.BigEndian.Uint16(f[wire.EthernetTypeOffset:])
	if et == wire.EtherTypeVLAN {
		if len(f) < wire.VLANInnerTypeOffset+2 {
			return 0, false
		}
		et = binary.BigEndian.Uint16(f[wire.VLANInnerTypeOffset:])
		off += wire.VLANTagLen
	}
	bth := off + wire.IPv4HeaderLen + wire.UDPHeaderLen
	if et != wire.EtherTypeIPv4 || len(f) < bth+wire.BTHLen || f[off]&0x0F != 5 || f[off+wire.IPv4ProtocolOffset] != wire.IPProtocolUDP {
		return 0, false
	}
	if binary.BigEndian.Uint16(f[off+wire.IPv4HeaderLen+wire.UDPDstPortOffset:]) != wire.RoCEv2Port {
		return 0, false
	}
	return off, wire.BTH(f[bth:]).Opcode().IsSend()
}

var _ engine.Component = (*ccPort)(nil)
