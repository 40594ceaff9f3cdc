package nicmodel

import (
	"math"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// The CC module of cc=ldcp and cc=dcqcn: one engine component in the place
// of the HPCC++ module (and of the PktSend register), with the same ports
// to the host, the Rx pipeline, the scheduler and the Tx pipeline.
//
// The module owns each QP's send sequence. It releases packets to the
// scheduler one at a time, each as a one-packet doorbell, at most
// Credits per QP that the scheduler has not sent yet; the scheduler
// arbitrates among QPs (rr/dwrr), applies the line-rate limit and paces at
// the QP's rate R; the module takes each scheduler PktSend back, hands the
// Tx pipeline the released packet's PSN, length and A bit, and acknowledges
// the bytes to the scheduler at once (so the scheduler's window, set to its
// maximum, never limits). So the congestion control decides every packet
// and the scheduler only times them:
//
//   - LDCP (docs/ldcp.md): a packet is released when the datapath's Send
//     event allows it (cw >= 1: inflight + 1 <= cw; cw < 1: the sub-packet
//     timer RTT/cw has expired); Send gives its PSN and whether it is
//     ECN-capable (fast start: the first IW-1 packets are not, unless one
//     is the message's last), which the CC port (ccport.go) writes into
//     the frame's IPv4 ECN field. ACKs and NAKs from the Rx pipeline are
//     the datapath's Ack events (per-ACK ECE, Eq. (1)/(2), the fast-start
//     transitions, go-back-N on NAK); the retransmission timer is its
//     Timeout event. R is the line rate.
//   - DCQCN (docs/dcqcn.md): every packet is released (no window); R is the
//     reaction point's current rate RC, updated on CNPs (taken off the port
//     by the CC port) and on the RP's own timers; ACKs advance snd_una and
//     NAKs and timeouts go back to it (RoCE go-back-N).
//
// Per cycle, in order: take one posted message; take one scheduler PktSend
// (needs room in the Tx pipeline's PktSend FIFO, the scheduler's ACK FIFO
// and, under LDCP, the ECN FIFO); take one ACK/NAK event; take one CNP;
// fire every expired timer (retransmission, LDCP sub-packet timer, DCQCN
// RP timers); push one window/rate update; release one packet (round robin
// over the QPs that may have one). Every step updates the QP's state at
// once: the module's latency is the one cycle of its output FIFOs.
//
// PSNs continue across a QP's messages (a RoCE connection), so the
// receiver's expected PSN needs no reset. A message longer than LDCP's
// MsgPkts limit (2^(seq_bits-1) - 1 packets) runs as consecutive chunks of
// ldcpChunk packets, each a datapath message (with its own fast start)
// started when the previous one is fully acknowledged; no built-in
// scenario reaches a chunk boundary (4 GB).

// ldcpChunk is the largest LDCP datapath message the module starts
// (2^22 packets, below the 24-bit PSN's 2^23 - 1 limit).
const ldcpChunk = 1 << 22

// psnMask keeps 24 bits (the BTH PSN).
const psnMask = 1<<24 - 1

// CCCounters are the status registers of the CC module and the CC port
// (cc=ldcp, cc=dcqcn); all wrap modulo 2^64 and count events.
type CCCounters struct {
	Posts, Completions uint64 // messages taken, messages completely acknowledged
	Releases           uint64 // packets released to the scheduler
	Retransmits        uint64 // of which retransmissions (a PSN below the highest released before)
	PktSends           uint64 // scheduler PktSends passed to the Tx pipeline
	BadSends           uint64 // scheduler PktSends that matched no released packet (dropped; a model error)
	AckEvents          uint64 // ACKs taken from the Rx pipeline
	NAKEvents          uint64 // NAKs (PSN sequence error) taken
	OtherEvents        uint64 // other events (RNR NAKs, notifications, probe replies): ignored
	AcksAdvanced       uint64 // ACKs/NAKs that advanced snd_una
	AckStale           uint64 // ACKs/NAKs before snd_una, or for a QP with no message
	AckInvalid         uint64 // ACKs/NAKs beyond snd_nxt (ignored)
	ECNEchoes          uint64 // ACKs with BECN (ECN-Echo)
	GoBackN            uint64 // snd_nxt set back to snd_una (NAK or timeout)
	Timeouts           uint64 // retransmission timer expirations
	FastStartLoss      uint64 // LDCP transition 1 (loss in fast start)
	FastStartFull      uint64 // LDCP transition 2 (a full IW acknowledged)
	TimerWaits         uint64 // LDCP Send refused by the sub-packet timer (cw < 1)
	WindowWaits        uint64 // LDCP Send refused by the window
	CNPs               uint64 // DCQCN CNPs received
	RateCuts           uint64 // DCQCN rate cuts
	RateIncreases      uint64 // DCQCN increase steps
	RateUpdates        uint64 // rate or window updates pushed to the scheduler
	// CC port (receiver role and port filters).
	RxAccepted    uint64 // data packets in order (delivered, acknowledged by the Tx pipeline)
	RxOutOfOrder  uint64 // data packets after a gap (dropped: go-back-N)
	RxDuplicates  uint64 // data packets already received (acknowledged again)
	NAKsSent      uint64 // NAKs sent (one per gap)
	CNPsSent      uint64 // CNPs sent by the DCQCN notification point
	CNPsTaken     uint64 // CNPs taken off the port for the CC module
	CNPDrops      uint64 // CNPs dropped because the CC module's CNP FIFO was full
	NotECTPackets uint64 // data packets sent ECN-incapable (LDCP fast start)
}

// grant is a packet released to the scheduler and not yet sent.
type grant struct {
	psn    uint32
	bytes  uint32
	offset uint64 // byte offset in its message
	ect    bool
	first  bool
	last   bool
}

// ccMsg is a posted message.
type ccMsg struct {
	flow          FlowID
	bytes, pkts   uint64
	start, posted engine.Cycle
}

// ccQP is the module's entry for one QP (plain data).
type ccQP struct {
	msgs    ring[ccMsg] // posted, front = the message in progress
	active  bool        // a message is in progress
	nextPSN uint32      // PSN of the next message's first packet
	base    uint32      // PSN of the current message's first packet
	// LDCP: the current chunk (packets [chunk, chunk+chunkLen) of the
	// message) and the datapath state of the model in use.
	chunk, chunkLen uint64
	fx              ldcp.State
	fl              ldcp.RefState
	// DCQCN: snd_una and snd_nxt as packet indices in the message, and
	// the reaction point.
	una, nxt uint64
	rp       dcqcn.RPState
	// highest is one past the highest packet index released (for counting
	// retransmissions).
	highest uint64
	grants  ring[grant]
	// schedSent is the payload bytes the scheduler sent on the QP (its
	// acknowledged bytes, pushed back at once).
	schedSent uint64
	// Timers (engine.Never when not armed).
	rtoAt, timerAt, rpAt engine.Cycle
	inCand, dirty        bool
	schedInit            bool   // the scheduler's window and rate have been set
	rateRaw              uint64 // the rate last pushed
}

// timerKind names a timer of the heap.
type timerKind uint8

const (
	tmRTO timerKind = iota
	tmSub
	tmRP
)

type ccTimer struct {
	at   engine.Cycle
	qpn  wire.QPN
	kind timerKind
}

// ccModule is the CC module component (see the comment above).
type ccModule struct {
	kind    CCMode
	freq    engine.Freq
	mtu     uint64
	credits int
	rto     engine.Cycle
	ackReq  bool
	ldFix   *ldcp.Datapath
	ldRef   *ldcp.Reference
	ldCfg   ldcp.Config
	rp      *dcqcn.RP
	// byteCounter: the RP counts bytes sent (DCQCN paper variant).
	byteCounter bool
	rateF       int    // fraction bits of the scheduler's rate register (bytes per ns)
	rateMax     uint64 // largest rate register value
	lineRaw     uint64 // the line rate as a rate register value
	winMax      uint64 // largest window register value

	qps    []ccQP
	cand   ring[wire.QPN] // QPs that may release a packet
	dirtyQ ring[wire.QPN] // QPs with a rate/window update to push
	timers []ccTimer      // min-heap by (at, qpn, kind)

	events *engine.FIFO[pipeline.Event]
	posts  *engine.FIFO[post]
	sends  *engine.FIFO[scheduler.PktSend]
	cnps   *engine.FIFO[wire.QPN]
	bells  *engine.FIFO[scheduler.Doorbell]
	upd    *engine.FIFO[scheduler.Update]
	sacks  *engine.FIFO[scheduler.Ack]
	pkts   *engine.FIFO[pipeline.PktSend]
	ect    *engine.FIFO[bool]

	complete func(FlowRecord)
	tr       *tracer
	cnt      *CCCounters
}

// Tick executes cycle now (engine.Component).
func (m *ccModule) Tick(now engine.Cycle) bool {
	p := m.takePost(now)
	p = m.takeSend(now) || p
	p = m.takeEvent(now) || p
	p = m.takeCNP(now) || p
	p = m.fireTimers(now) || p
	p = m.pushUpdate(now) || p
	p = m.release(now) || p
	return p
}

// NextWake returns the earliest armed timer, or the next cycle while QPs
// wait to release a packet or to push an update.
func (m *ccModule) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	w, ok := engine.Never, false
	for len(m.timers) > 0 && !m.timerLive(m.timers[0]) {
		m.popTimer()
	}
	if len(m.timers) > 0 {
		w, ok = max(m.timers[0].at, now+1), true
	}
	if m.cand.len() > 0 || m.dirtyQ.len() > 0 {
		w, ok = now+1, true
	}
	return w, ok
}

func (m *ccModule) nowNs(now engine.Cycle) uint64 { return m.freq.NS(now) }

// pktBytes returns the payload of packet idx of message g.
func (m *ccModule) pktBytes(g *ccMsg, idx uint64) uint32 {
	return uint32(min(m.mtu, g.bytes-idx*m.mtu))
}

func (m *ccModule) addCand(q wire.QPN) {
	s := &m.qps[q]
	if !s.inCand {
		s.inCand = true
		m.cand.push(q)
	}
}

func (m *ccModule) markDirty(q wire.QPN) {
	s := &m.qps[q]
	if !s.dirty {
		s.dirty = true
		m.dirtyQ.push(q)
	}
}

func (m *ccModule) takePost(now engine.Cycle) bool {
	p, ok := m.posts.Pop(now)
	if !ok {
		return false
	}
	if int(p.qpn) >= len(m.qps) {
		return true
	}
	m.cnt.Posts++
	s := &m.qps[p.qpn]
	s.msgs.push(ccMsg{flow: p.flow, bytes: p.bytes, pkts: (p.bytes + m.mtu - 1) / m.mtu, start: p.start, posted: now})
	if !s.active {
		// A message on an idle QP: a new connection for the rate
		// controller (DCQCN starts at line rate); PSNs continue.
		if m.rp != nil {
			s.rp = m.rp.InitialState()
			s.rpAt = engine.Never
		}
		m.startMessage(now, p.qpn)
	}
	return true
}

// startMessage starts the message at the front of QP q's queue.
func (m *ccModule) startMessage(now engine.Cycle, q wire.QPN) {
	s := &m.qps[q]
	s.active = true
	s.base = s.nextPSN
	s.highest = 0
	if m.kind == CCLDCP {
		s.chunk = 0
		m.startChunk(now, s)
	} else {
		s.una, s.nxt = 0, 0
	}
	if !s.schedInit {
		m.markDirty(q)
	}
	m.addCand(q)
}

// startChunk starts the LDCP datapath message of the chunk at s.chunk.
func (m *ccModule) startChunk(now engine.Cycle, s *ccQP) {
	g := s.msgs.front()
	s.chunkLen = min(g.pkts-s.chunk, ldcpChunk)
	ev := ldcp.Event{Kind: ldcp.Start, NowNs: m.nowNs(now), Seq: (s.base + uint32(s.chunk)) & psnMask, MsgPkts: uint32(s.chunkLen)}
	m.ldcpStep(s, ev)
}

// ldcpOut is what the module reads from either LDCP model's output.
type ldcpOut struct {
	allowed                                      bool
	block                                        ldcp.Block
	psn                                          uint32
	ect                                          bool
	done, invalid, stale, fullAck, loss, goBackN bool
}

// ldcpStep runs one event through the configured LDCP model (golden
// datapath or float reference) and stores the next state.
func (m *ccModule) ldcpStep(s *ccQP, ev ldcp.Event) ldcpOut {
	if m.ldFix != nil {
		next, o := m.ldFix.Update(s.fx, ev)
		s.fx = next
		return ldcpOut{o.Allowed, o.Block, o.PSN, o.ECT, o.Done, o.Invalid, o.Stale, o.FullAck, o.Loss, o.GoBackN}
	}
	next, o := m.ldRef.Update(s.fl, ev)
	s.fl = next
	return ldcpOut{o.Allowed, o.Block, o.PSN, o.ECT, o.Done, o.Invalid, o.Stale, o.FullAck, o.Loss, o.GoBackN}
}

// ldcpSeq returns the LDCP state's chunk start, snd_una and snd_nxt PSNs.
func (m *ccModule) ldcpSeq(s *ccQP) (start, una, nxt uint32) {
	if m.ldFix != nil {
		return s.fx.Start, s.fx.Una, s.fx.Nxt
	}
	return s.fl.Start, s.fl.Una, s.fl.Nxt
}

// CwPackets returns QP s's LDCP window in packets.
func (m *ccModule) cwPackets(s *ccQP) float64 {
	if m.ldFix != nil {
		return m.ldFix.CwPackets(s.fx.Cw)
	}
	return s.fl.Cw
}

// timerCycle converts the LDCP sub-packet deadline of s into the first
// cycle at which a Send is allowed: the deadline is TimeBits-wide and
// compared as a serial number with now (ns, floor of the cycle's time).
func (m *ccModule) timerCycle(now engine.Cycle, s *ccQP) engine.Cycle {
	nowNs := m.nowNs(now)
	mod := uint64(1) << uint(m.ldCfg.TimeBits)
	var d uint64
	if m.ldFix != nil {
		d = (s.fx.NextSend - nowNs) & (mod - 1)
	} else {
		d = uint64(math.Ceil(math.Mod(s.fl.NextSendNs-float64(nowNs&(mod-1))+float64(mod), float64(mod))))
	}
	return max(m.freq.CyclesNS(nowNs+d), now+1)
}

// release lets one QP release one packet (round robin over candidates).
func (m *ccModule) release(now engine.Cycle) bool {
	progress := false
	for m.cand.len() > 0 {
		q := *m.cand.front()
		s := &m.qps[q]
		if !s.active || s.grants.len() >= m.credits || !s.schedInit {
			m.cand.pop()
			s.inCand = false
			progress = true
			continue
		}
		if !m.bells.CanPush(now) {
			return progress
		}
		m.cand.pop()
		s.inCand = false
		progress = true
		if m.releaseOne(now, q, s) {
			if s.grants.len() < m.credits {
				m.addCand(q)
			}
			return true
		}
	}
	return progress
}

// releaseOne asks the congestion control whether QP q may release its
// next packet now and, if so, releases it as a one-packet doorbell.
func (m *ccModule) releaseOne(now engine.Cycle, q wire.QPN, s *ccQP) bool {
	g := s.msgs.front()
	var idx uint64
	var ect bool
	var psn uint32
	if m.kind == CCLDCP {
		o := m.ldcpStep(s, ldcp.Event{Kind: ldcp.Send, NowNs: m.nowNs(now)})
		if !o.allowed {
			switch o.block {
			case ldcp.BlockTimer:
				m.cnt.TimerWaits++
				s.timerAt = m.timerCycle(now, s)
				m.pushTimer(ccTimer{at: s.timerAt, qpn: q, kind: tmSub})
			case ldcp.BlockWindow:
				m.cnt.WindowWaits++
			}
			return false
		}
		start, _, _ := m.ldcpSeq(s)
		idx = s.chunk + uint64((o.psn-start)&psnMask)
		psn, ect = o.psn, o.ect
	} else {
		if s.nxt >= g.pkts {
			return false
		}
		idx = s.nxt
		s.nxt++
		psn, ect = (s.base+uint32(idx))&psnMask, true
	}
	if idx < s.highest {
		m.cnt.Retransmits++
	} else {
		s.highest = idx + 1
	}
	gr := grant{psn: psn, bytes: m.pktBytes(g, idx), offset: idx * m.mtu, ect: ect, first: idx == 0, last: idx+1 == g.pkts}
	s.grants.push(gr)
	d := scheduler.Doorbell{Flow: scheduler.FlowID(q), Bytes: uint64(gr.bytes)}
	m.bells.Push(now, d)
	if m.tr != nil {
		m.tr.doorbell(now, d)
	}
	m.cnt.Releases++
	if s.rtoAt == engine.Never {
		m.armRTO(now, q, s)
	}
	return true
}

func (m *ccModule) armRTO(now engine.Cycle, q wire.QPN, s *ccQP) {
	s.rtoAt = now + m.rto
	m.pushTimer(ccTimer{at: s.rtoAt, qpn: q, kind: tmRTO})
}

// takeSend passes one scheduler PktSend to the Tx pipeline as the QP's
// oldest released packet, and acknowledges its bytes to the scheduler.
func (m *ccModule) takeSend(now engine.Cycle) bool {
	c, ok := m.sends.Peek(now)
	if !ok {
		return false
	}
	if !m.pkts.CanPush(now) || !m.sacks.CanPush(now) || (m.ect != nil && !m.ect.CanPush(now)) {
		return false // the FIFO's pop wakes the module
	}
	m.sends.Pop(now)
	q := wire.QPN(c.Flow)
	if int(q) >= len(m.qps) || m.qps[q].grants.len() == 0 || m.qps[q].grants.front().bytes != c.Bytes {
		m.cnt.BadSends++
		return true
	}
	s := &m.qps[q]
	g := s.grants.pop()
	p := pipeline.PktSend{Kind: pipeline.SendData, Flow: q, PSN: wire.PSN(g.psn), Bytes: g.bytes, AckReq: m.ackReq && g.last}
	m.pkts.Push(now, p)
	if m.ect != nil {
		m.ect.Push(now, g.ect)
	}
	s.schedSent += uint64(c.Bytes)
	if m.byteCounter {
		// DCQCN paper variant: the byte counter counts every payload byte
		// sent (an increase event every ByteCounterBytes).
		st, up := m.rp.OnSent(s.rp, m.nowNs(now), uint64(g.bytes))
		m.rpResult(now, q, s, st, up)
	}
	a := scheduler.Ack{Flow: c.Flow, AckedBytes: s.schedSent}
	m.sacks.Push(now, a)
	m.cnt.PktSends++
	if m.tr != nil {
		tc := scheduler.PktSend{Flow: c.Flow, Bytes: g.bytes, Offset: g.offset, PSN: g.psn, First: g.first, Last: g.last}
		m.tr.pktSend(now, &tc, p.AckReq)
		m.tr.ack(now, a)
	}
	if s.active {
		m.addCand(q)
	}
	return true
}

// takeEvent processes one ACK or NAK from the Rx pipeline.
func (m *ccModule) takeEvent(now engine.Cycle) bool {
	ev := m.events.Front(now)
	if ev == nil {
		return false
	}
	q, kind, syn, psn, ece := ev.Flow, ev.Kind, ev.Syndrome, uint32(ev.PSN), ev.ECNEcho
	if m.tr != nil {
		m.tr.event(now, ev)
	}
	m.events.Discard(now)
	if int(q) >= len(m.qps) || kind != pipeline.EventAck || (syn.Type() != wire.AckTypeACK && syn.Type() != wire.AckTypeNAK) {
		m.cnt.OtherEvents++
		return true
	}
	nak := syn.Type() == wire.AckTypeNAK
	if nak {
		m.cnt.NAKEvents++
	} else {
		m.cnt.AckEvents++
		psn = (psn + 1) & psnMask // RoCE ACKs carry the last PSN received in order
	}
	if ece {
		m.cnt.ECNEchoes++
	}
	s := &m.qps[q]
	if !s.active {
		m.cnt.AckStale++
		return true
	}
	if m.kind == CCLDCP {
		_, una0, _ := m.ldcpSeq(s)
		o := m.ldcpStep(s, ldcp.Event{Kind: ldcp.Ack, NowNs: m.nowNs(now), AckSeq: psn, ECE: ece, NAK: nak})
		switch {
		case o.stale:
			m.cnt.AckStale++
			return true
		case o.invalid:
			m.cnt.AckInvalid++
			return true
		}
		m.countLDCP(o)
		_, una, nxt := m.ldcpSeq(s)
		if una != una0 {
			m.cnt.AcksAdvanced++
			m.progress(now, q, s, una != nxt)
		}
		if o.done {
			m.chunkDone(now, q, s)
			return true
		}
	} else {
		d := uint64((psn - (s.base+uint32(s.una))&psnMask) & psnMask)
		switch inflight := s.nxt - s.una; {
		case d >= 1<<23:
			m.cnt.AckStale++
			return true
		case d > inflight:
			m.cnt.AckInvalid++
			return true
		}
		if d > 0 {
			s.una += d
			m.cnt.AcksAdvanced++
			m.progress(now, q, s, s.una != s.nxt)
		}
		if nak {
			s.nxt = s.una
			m.cnt.GoBackN++
		}
		if s.una == s.msgs.front().pkts {
			m.messageDone(now, q, s)
			return true
		}
	}
	m.addCand(q)
	return true
}

func (m *ccModule) countLDCP(o ldcpOut) {
	if o.goBackN {
		m.cnt.GoBackN++
	}
	if o.loss {
		m.cnt.FastStartLoss++
	}
	if o.fullAck {
		m.cnt.FastStartFull++
	}
}

// progress re-arms the retransmission timer after snd_una advanced.
func (m *ccModule) progress(now engine.Cycle, q wire.QPN, s *ccQP, inflight bool) {
	if inflight {
		m.armRTO(now, q, s)
	} else {
		s.rtoAt = engine.Never
	}
}

// chunkDone follows an LDCP chunk whose every packet is acknowledged.
func (m *ccModule) chunkDone(now engine.Cycle, q wire.QPN, s *ccQP) {
	s.chunk += s.chunkLen
	if s.chunk < s.msgs.front().pkts {
		m.startChunk(now, s)
		m.addCand(q)
		return
	}
	m.messageDone(now, q, s)
}

// messageDone completes the message at the front of QP q's queue and
// starts the next one.
func (m *ccModule) messageDone(now engine.Cycle, q wire.QPN, s *ccQP) {
	g := s.msgs.pop()
	s.nextPSN = (s.base + uint32(g.pkts)) & psnMask
	s.active = false
	s.rtoAt, s.timerAt = engine.Never, engine.Never
	m.cnt.Completions++
	if m.complete != nil {
		m.complete(FlowRecord{ID: g.flow, QPN: q, Bytes: g.bytes, Start: g.start, Posted: g.posted, Done: now})
	}
	if s.msgs.len() > 0 {
		m.startMessage(now, q)
	} else {
		// Idle: the RP's timers stop (a message on an idle QP restarts
		// it at line rate, so its recovery meanwhile cannot matter).
		s.rpAt = engine.Never
	}
}

// timeout is the retransmission timer of QP q expiring.
func (m *ccModule) timeout(now engine.Cycle, q wire.QPN, s *ccQP) {
	m.cnt.Timeouts++
	if m.kind == CCLDCP {
		o := m.ldcpStep(s, ldcp.Event{Kind: ldcp.Timeout, NowNs: m.nowNs(now)})
		m.countLDCP(o)
	} else {
		s.nxt = s.una
		m.cnt.GoBackN++
	}
	s.rtoAt = engine.Never
	m.addCand(q)
}

// takeCNP applies one CNP to the QP's reaction point (DCQCN).
func (m *ccModule) takeCNP(now engine.Cycle) bool {
	if m.cnps == nil {
		return false
	}
	q, ok := m.cnps.Pop(now)
	if !ok {
		return false
	}
	if int(q) >= len(m.qps) {
		m.cnt.OtherEvents++
		return true
	}
	m.cnt.CNPs++
	s := &m.qps[q]
	if !s.active {
		return true // for a message already complete: the QP's next message restarts its RP
	}
	st, up := m.rp.OnCNP(s.rp, m.nowNs(now))
	m.rpResult(now, q, s, st, up)
	return true
}

// rpResult stores the reaction point's new state, marks a rate change and
// re-arms its wake-up.
func (m *ccModule) rpResult(now engine.Cycle, q wire.QPN, s *ccQP, st dcqcn.RPState, up dcqcn.RPUpdate) {
	s.rp = st
	m.cnt.RateCuts += uint64(up.Cuts)
	m.cnt.RateIncreases += uint64(up.Increases)
	if m.rateRaw(st.RC) != s.rateRaw {
		m.markDirty(q)
	}
	s.rpAt = engine.Never
	if t, ok := m.rp.NextWake(st); ok {
		s.rpAt = max(m.freq.CyclesNS(t), now+1)
		m.pushTimer(ccTimer{at: s.rpAt, qpn: q, kind: tmRP})
	}
}

// rateRaw converts a rate in bytes per ns to the scheduler's rate register
// (round down, at least 1, at most the register's largest value).
func (m *ccModule) rateRaw(r float64) uint64 {
	x := math.Floor(math.Ldexp(r, m.rateF))
	if !(x >= 1) {
		return 1
	}
	if x >= float64(m.rateMax) {
		return m.rateMax
	}
	return uint64(x)
}

// pushUpdate pushes one pending window/rate update to the scheduler.
func (m *ccModule) pushUpdate(now engine.Cycle) bool {
	if m.dirtyQ.len() == 0 || !m.upd.CanPush(now) {
		return false
	}
	q := m.dirtyQ.pop()
	s := &m.qps[q]
	s.dirty = false
	rate := m.lineRaw
	if m.rp != nil {
		rate = m.rateRaw(s.rp.RC)
	}
	u := scheduler.Update{Flow: scheduler.FlowID(q), Rate: rate, SetRate: true}
	if !s.schedInit {
		u.Window, u.SetWindow = m.winMax, true
		s.schedInit = true
		if s.active {
			m.addCand(q)
		}
	} else if rate == s.rateRaw {
		return true
	}
	s.rateRaw = rate
	m.upd.Push(now, u)
	m.cnt.RateUpdates++
	if m.tr != nil {
		m.tr.update(now, u)
	}
	return true
}

// fireTimers runs every timer due at or before now.
func (m *ccModule) fireTimers(now engine.Cycle) bool {
	p := false
	for len(m.timers) > 0 && m.timers[0].at <= now {
		t := m.popTimer()
		if !m.timerLive(t) {
			continue
		}
		p = true
		s := &m.qps[t.qpn]
		switch t.kind {
		case tmRTO:
			m.timeout(now, t.qpn, s)
		case tmSub:
			s.timerAt = engine.Never
			m.addCand(t.qpn)
		case tmRP:
			s.rpAt = engine.Never
			st, up := m.rp.Advance(s.rp, m.nowNs(now))
			m.rpResult(now, t.qpn, s, st, up)
		}
	}
	return p
}

// timerLive reports whether a heap entry is still the QP's armed timer.
func (m *ccModule) timerLive(t ccTimer) bool {
	s := &m.qps[t.qpn]
	switch t.kind {
	case tmRTO:
		return s.rtoAt == t.at
	case tmSub:
		return s.timerAt == t.at
	}
	return s.rpAt == t.at
}

func (m *ccModule) timerLess(i, j int) bool {
	a, b := &m.timers[i], &m.timers[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.qpn != b.qpn {
		return a.qpn < b.qpn
	}
	return a.kind < b.kind
}

func (m *ccModule) pushTimer(t ccTimer) {
	m.timers = append(m.timers, t)
	i := len(m.timers) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !m.timerLess(i, p) {
			break
		}
		m.timers[i], m.timers[p] = m.timers[p], m.timers[i]
		i = p
	}
}

func (m *ccModule) popTimer() ccTimer {
	t := m.timers[0]
	last := len(m.timers) - 1
	m.timers[0] = m.timers[last]
	m.timers = m.timers[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(m.timers) {
			break
		}
		c := l
		if r := l + 1; r < len(m.timers) && m.timerLess(r, l) {
			c = r
		}
		if !m.timerLess(c, i) {
			break
		}
		m.timers[i], m.timers[c] = m.timers[c], m.timers[i]
		i = c
	}
	return t
}

// CCQPStatus is the CC module's view of one QP (cc=ldcp, cc=dcqcn).
type CCQPStatus struct {
	Active bool   // a message is in progress
	Una    uint32 // snd_una, PSN
	Nxt    uint32 // snd_nxt, PSN
	// LDCP: the stage and the window in packets (the datapath's cw as a
	// real number); Stage is ldcp.Idle under DCQCN.
	Stage  ldcp.Stage
	CwPkts float64
	// DCQCN: the reaction point's current and target rates (Gbit/s) and
	// alpha; 0 under LDCP.
	RCGbps, RTGbps, Alpha float64
	Released              int // packets released to the scheduler and not yet sent
}

// status returns QP q's CC view and the window (bytes, NaN without one)
// and rate (Gbit/s) to report as W and R.
func (m *ccModule) status(q wire.QPN) (CCQPStatus, float64, float64) {
	s := &m.qps[q]
	st := CCQPStatus{Active: s.active, Released: s.grants.len()}
	line := float64(m.lineRaw) * math.Ldexp(1, -m.rateF) * 8
	if m.kind == CCLDCP {
		_, una, nxt := m.ldcpSeq(s)
		st.Una, st.Nxt = una, nxt
		st.CwPkts = m.cwPackets(s)
		if m.ldFix != nil {
			st.Stage = s.fx.Stage
		} else {
			st.Stage = s.fl.Stage
		}
		return st, st.CwPkts * float64(m.mtu), line
	}
	st.Una, st.Nxt = (s.base+uint32(s.una))&psnMask, (s.base+uint32(s.nxt))&psnMask
	st.RCGbps, st.RTGbps, st.Alpha = dcqcn.Gbps(s.rp.RC), dcqcn.Gbps(s.rp.RT), s.rp.Alpha
	return st, math.NaN(), st.RCGbps
}

var _ engine.Component = (*ccModule)(nil)
