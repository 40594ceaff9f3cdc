package nicmodel

import (
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// MACCounters are the MAC's status registers (wrapping modulo 2^64).
type MACCounters struct {
	RxFrames uint64 // frames that arrived at the port
	RxBytes  uint64 // their bytes (without FCS)
	RxDrops  uint64 // arrivals dropped because the MAC Rx FIFO was full
	TxFrames uint64 // frames serialized onto the port
	TxBytes  uint64 // their bytes (without FCS)
	TxBusy   uint64 // cycles the transmitter was busy serializing (sum of serialization times)
}

// macRx is the receive side of the port: it takes every frame in the cycle
// it arrives (the network's TimedQueue wakes it then) and puts it into the
// bounded MAC Rx FIFO the Rx pipeline reads; a frame that finds the FIFO
// full is dropped and counted (a port cannot push back on the wire).
type macRx struct {
	in  *engine.TimedQueue[pipeline.Frame]
	out *engine.FIFO[pipeline.Frame]
	cnt *MACCounters
	tr  *tracer
}

func (m *macRx) Tick(now engine.Cycle) bool {
	p := false
	for {
		f, ok := m.in.Pop(now)
		if !ok {
			return p
		}
		p = true
		m.cnt.RxFrames++
		m.cnt.RxBytes += uint64(len(f.Data))
		if m.tr != nil {
			m.tr.rxFrame(now, f.Data)
		}
		if !m.out.Push(now, f) {
			m.cnt.RxDrops++
		}
	}
}

func (m *macRx) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// macTx is the transmit side of the port: it serializes one frame at a
// time at the line rate. A frame taken in cycle n occupies the port for
// ceil((len + mac_overhead_bytes) * 8 * f / LineRateBps) cycles and is
// pushed into the output TimedQueue visible at its departure cycle, the
// cycle after its last bit; the next frame can start then.
type macTx struct {
	in       *engine.FIFO[pipeline.Frame]
	out      *engine.TimedQueue[pipeline.Frame]
	freq     engine.Freq
	bps      uint64
	overhead uint64
	free     engine.Cycle // first cycle the port can start a frame
	cnt      *MACCounters
	tr       *tracer
}

func (m *macTx) Tick(now engine.Cycle) bool {
	if now < m.free {
		return false
	}
	f, ok := m.in.Pop(now)
	if !ok {
		return false
	}
	n := uint64(len(f.Data))
	x := m.freq.TransferCycles((n+m.overhead)*8, m.bps)
	x = max(x, 1)
	m.free = now + x
	m.out.Push(now, m.free, f)
	m.cnt.TxFrames++
	m.cnt.TxBytes += n
	m.cnt.TxBusy += uint64(x)
	if m.tr != nil {
		m.tr.txFrame(m.free, f.Data)
	}
	return true
}

func (m *macTx) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if m.free > now && m.in.CanPop(now) {
		return m.free, true
	}
	return engine.Never, false
}

// SendRegCounters are the PktSend register's status registers.
type SendRegCounters struct {
	Commands uint64 // PktSend commands passed from the scheduler to the Tx pipeline
	Stalls   uint64 // commands that waited for room in the Tx PktSend FIFO or the send log
}

// sendReg is the register between the scheduler and the Tx pipeline: it
// takes one scheduler.PktSend per cycle, hands the Tx pipeline its
// pipeline.PktSend (flow = QPN, PSN, payload bytes, AckReq on a message's
// last packet when tx.ack_req_last) and logs the packet's end offset for the
// module (snd_nxt and the PSN-to-bytes map). It adds one cycle between the
// scheduler and the Tx pipeline.
type sendReg struct {
	in         *engine.FIFO[scheduler.PktSend]
	out        *engine.FIFO[pipeline.PktSend]
	log        *engine.FIFO[sendRecord]
	ackReqLast bool
	stalled    bool
	tr         *tracer
	cnt        SendRegCounters
}

func (s *sendReg) Tick(now engine.Cycle) bool {
	c, ok := s.in.Peek(now)
	if !ok {
		return false
	}
	if !s.out.CanPush(now) || !s.log.CanPush(now) {
		if s.stalled {
			return false
		}
		s.stalled = true
		s.cnt.Stalls++
		return true
	}
	s.in.Pop(now)
	s.stalled = false
	p := pipeline.PktSend{Kind: pipeline.SendData, Flow: wire.QPN(c.Flow), PSN: wire.PSN(c.PSN), Bytes: c.Bytes,
		AckReq: s.ackReqLast && c.Last}
	s.out.Push(now, p)
	s.log.Push(now, sendRecord{qpn: wire.QPN(c.Flow), end: c.Offset + uint64(c.Bytes)})
	s.cnt.Commands++
	if s.tr != nil {
		s.tr.pktSend(now, &c, p.AckReq)
	}
	return true
}

func (s *sendReg) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// HostCounters count the flow API's work.
type HostCounters struct {
	Opened uint64 // flows opened (OpenFlow)
	Posted uint64 // flows posted to the module
	Stalls uint64 // posts that waited for room in the post FIFO
}

// opening is a flow waiting for its start cycle.
type opening struct {
	at engine.Cycle
	p  post
}

// host is the driver side of the flow API (not hardware): it posts each
// opened flow's message to the module at its start cycle, in (start, id)
// order, as many per cycle as the post FIFO takes.
type host struct {
	pending []opening // min-heap by (at, flow id)
	posts   *engine.FIFO[post]
	stalled bool
	cnt     HostCounters
}

func (h *host) less(i, j int) bool {
	a, b := &h.pending[i], &h.pending[j]
	return a.at < b.at || (a.at == b.at && a.p.flow < b.p.flow)
}

func (h *host) push(o opening) {
	h.pending = append(h.pending, o)
	i := len(h.pending) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.pending[i], h.pending[p] = h.pending[p], h.pending[i]
		i = p
	}
}

func (h *host) pop() opening {
	o := h.pending[0]
	last := len(h.pending) - 1
	h.pending[0] = h.pending[last]
	h.pending = h.pending[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(h.pending) {
			break
		}
		m := l
		if r := l + 1; r < len(h.pending) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.pending[i], h.pending[m] = h.pending[m], h.pending[i]
		i = m
	}
	return o
}

func (h *host) Tick(now engine.Cycle) bool {
	p := false
	for len(h.pending) > 0 && h.pending[0].at <= now {
		if !h.posts.CanPush(now) {
			if !h.stalled {
				h.stalled = true
				h.cnt.Stalls++
				p = true
			}
			return p
		}
		o := h.pop()
		h.posts.Push(now, o.p)
		h.stalled = false
		h.cnt.Posted++
		p = true
	}
	return p
}

func (h *host) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if len(h.pending) > 0 && h.pending[0].at > now {
		return h.pending[0].at, true
	}
	return engine.Never, false
}
