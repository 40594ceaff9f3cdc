package nicmodel

import (
	"math"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/queue"
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
// The congestion control is a ccAlgorithm (below), one file per algorithm:
// ldcp.go and dcqcn.go; New builds only the one cc names.
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
	// highest is one past the highest packet index released (for counting
	// retransmissions).
	highest uint64
	grants  ring[grant]
	// schedSent is the payload bytes the scheduler sent on the QP (its
	// acknowledged bytes, pushed back at once).
	schedSent uint64
	// Timers (engine.Never when not armed): retransmission, and the
	// algorithm's own (LDCP's sub-packet timer, DCQCN's RP timers).
	rtoAt, ccAt   engine.Cycle
	inCand, dirty bool
	schedInit     bool   // the scheduler's window and rate have been set
	rateRaw       uint64 // the rate last pushed
}

// ccAlgorithm is the congestion control the CC module runs on every QP,
// named after the module's events, as gVisor netstack's TCP sender calls
// its congestionControl: one implementation per file (ldcp.go, dcqcn.go).
// Each owns its per-QP state (plain data, indexed by QPN) and its
// configuration, reaches nothing of the module, and reports what the
// module is to do in its results. q is always a valid QPN; base is the
// PSN of the current message's first packet and pkts its length in
// packets.
type ccAlgorithm interface {
	// onConnect: a message was posted on an idle QP (a new connection;
	// PSNs continue).
	onConnect(q wire.QPN)
	// onStart: the message at the front of q's queue starts.
	onStart(now engine.Cycle, q wire.QPN, base uint32, pkts uint64)
	// onSend asks whether q may release its next packet now.
	onSend(now engine.Cycle, q wire.QPN, base uint32, pkts uint64) ccSend
	// onAck takes an ACK (psn = the next PSN expected) or a NAK (psn =
	// the PSN expected) with its ECN-Echo.
	onAck(now engine.Cycle, q wire.QPN, base uint32, pkts uint64, psn uint32, nak, ece bool) ccAck
	// onTimeout: q's retransmission timer expired (go back to snd_una).
	onTimeout(now engine.Cycle, q wire.QPN)
	// onTimer: q's algorithm timer (ccQP.ccAt) expired.
	onTimer(now engine.Cycle, q wire.QPN) ccRate
	// onCNP: a CNP for q, whose message is in progress.
	onCNP(now engine.Cycle, q wire.QPN) ccRate
	// onSent: the scheduler sent bytes of payload on q; false if the
	// algorithm does not count them.
	onSent(now engine.Cycle, q wire.QPN, bytes uint32) (ccRate, bool)
	// onDone: q's message is completely acknowledged (idle: no other
	// message waits); it reports whether the algorithm timer stops.
	onDone(q wire.QPN, idle bool) bool
	// rate returns q's rate as a scheduler rate register value.
	rate(q wire.QPN) uint64
	// seq returns q's snd_una and snd_nxt as packet indices in the
	// message.
	seq(q wire.QPN, base uint32) (una, nxt uint64)
	// status fills the algorithm's part of st and returns the window W
	// (bytes, NaN without one) and the rate R (Gbit/s) to report.
	status(q wire.QPN, base uint32, st *CCQPStatus) (w, r float64)
}

// ccSend is the answer of ccAlgorithm.onSend: release packet idx of the
// message (PSN psn, ECN-capable or not), or not now (wait: when to try
// again by the algorithm timer, engine.Never for the next event).
type ccSend struct {
	ok   bool
	idx  uint64
	psn  uint32
	ect  bool
	wait engine.Cycle
}

// ccAck is the outcome of ccAlgorithm.onAck: stale (before snd_una) or
// invalid (beyond snd_nxt) and ignored; else whether snd_una advanced,
// packets remain in flight, and the message is completely acknowledged.
type ccAck struct {
	stale, invalid, advanced, inflight, done bool
}

// ccRate is the outcome of a rate event: the rate may have changed (the
// module compares it with the one last pushed), the QP may try to release
// again (cand), and the algorithm timer's new deadline (engine.Never:
// disarmed).
type ccRate struct {
	rate, cand bool
	wait       engine.Cycle
}

// rateReg is the scheduler's rate register: F fraction bits of bytes per
// ns, largest value max, and the line rate (rounded up) in it.
type rateReg struct {
	f         int
	max, line uint64
}

// raw converts a rate in bytes per ns to the register (round down, at
// least 1, at most the register's largest value).
func (rr rateReg) raw(r float64) uint64 {
	x := math.Floor(math.Ldexp(r, rr.f))
	if !(x >= 1) {
		return 1
	}
	if x >= float64(rr.max) {
		return rr.max
	}
	return uint64(x)
}

// gbps converts a register value to Gbit/s.
func (rr rateReg) gbps(raw uint64) float64 { return float64(raw) * math.Ldexp(1, -rr.f) * 8 }

// timerKind names a timer of the heap.
type timerKind uint8

const (
	tmRTO timerKind = iota // retransmission
	tmCC                   // the algorithm's (ccQP.ccAt)
)

// timerTie orders the timers of one cycle by (QPN, kind).
func timerTie(q wire.QPN, k timerKind) uint64 { return uint64(q)<<8 | uint64(k) }

// ccModule is the CC module component (see the comment above).
type ccModule struct {
	algo    ccAlgorithm
	freq    engine.Freq
	mtu     uint64
	credits int
	rto     engine.Cycle
	ackReq  bool
	winMax  uint64 // largest window register value

	qps    []ccQP
	cand   ring[wire.QPN]       // QPs that may release a packet
	dirtyQ ring[wire.QPN]       // QPs with a rate/window update to push
	timers queue.Heap[struct{}] // Key = cycle, Tie = timerTie(qpn, kind)

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
	hooks    trace.Hooks
	cnt      *CCCounters
	status1  CCQPStatus // status's scratch
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
	for m.timers.Len() > 0 && !m.timerLive(m.timers.Min()) {
		m.timers.Pop()
	}
	if m.timers.Len() > 0 {
		w, ok = max(engine.Cycle(m.timers.Min().Key), now+1), true
	}
	if m.cand.len() > 0 || m.dirtyQ.len() > 0 {
		w, ok = now+1, true
	}
	return w, ok
}

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
		m.algo.onConnect(p.qpn)
		s.ccAt = engine.Never
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
	m.algo.onStart(now, q, s.base, s.msgs.front().pkts)
	if !s.schedInit {
		m.markDirty(q)
	}
	m.addCand(q)
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
	r := m.algo.onSend(now, q, s.base, g.pkts)
	if !r.ok {
		if r.wait != engine.Never {
			s.ccAt = r.wait
			m.timers.Push(uint64(s.ccAt), timerTie(q, tmCC), struct{}{})
		}
		return false
	}
	idx, psn, ect := r.idx, r.psn, r.ect
	if idx < s.highest {
		m.cnt.Retransmits++
	} else {
		s.highest = idx + 1
	}
	gr := grant{psn: psn, bytes: m.pktBytes(g, idx), offset: idx * m.mtu, ect: ect, first: idx == 0, last: idx+1 == g.pkts}
	s.grants.push(gr)
	d := scheduler.Doorbell{Flow: scheduler.FlowID(q), Bytes: uint64(gr.bytes)}
	m.bells.Push(now, d)
	m.hooks.Doorbell(now, d)
	m.cnt.Releases++
	if s.rtoAt == engine.Never {
		m.armRTO(now, q, s)
	}
	return true
}

func (m *ccModule) armRTO(now engine.Cycle, q wire.QPN, s *ccQP) {
	s.rtoAt = now + m.rto
	m.timers.Push(uint64(s.rtoAt), timerTie(q, tmRTO), struct{}{})
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
	if r, ok := m.algo.onSent(now, q, g.bytes); ok {
		m.rated(q, s, r)
	}
	a := scheduler.Ack{Flow: c.Flow, AckedBytes: s.schedSent}
	m.sacks.Push(now, a)
	m.cnt.PktSends++
	m.hooks.PktSend(now, scheduler.PktSend{Flow: c.Flow, Bytes: g.bytes, Offset: g.offset, PSN: g.psn, First: g.first, Last: g.last}, p.AckReq)
	m.hooks.Ack(now, a)
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
	m.hooks.Event(now, ev)
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
	o := m.algo.onAck(now, q, s.base, s.msgs.front().pkts, psn, nak, ece)
	switch {
	case o.stale:
		m.cnt.AckStale++
		return true
	case o.invalid:
		m.cnt.AckInvalid++
		return true
	}
	if o.advanced {
		m.cnt.AcksAdvanced++
		m.progress(now, q, s, o.inflight)
	}
	if o.done {
		m.messageDone(now, q, s)
		return true
	}
	m.addCand(q)
	return true
}

// progress re-arms the retransmission timer after snd_una advanced.
func (m *ccModule) progress(now engine.Cycle, q wire.QPN, s *ccQP, inflight bool) {
	if inflight {
		m.armRTO(now, q, s)
	} else {
		s.rtoAt = engine.Never
	}
}

// messageDone completes the message at the front of QP q's queue and
// starts the next one.
func (m *ccModule) messageDone(now engine.Cycle, q wire.QPN, s *ccQP) {
	g := s.msgs.pop()
	s.nextPSN = (s.base + uint32(g.pkts)) & psnMask
	s.active = false
	s.rtoAt = engine.Never
	if m.algo.onDone(q, s.msgs.len() == 0) {
		s.ccAt = engine.Never
	}
	m.cnt.Completions++
	if m.complete != nil {
		m.complete(FlowRecord{ID: g.flow, QPN: q, Bytes: g.bytes, Start: g.start, Posted: g.posted, Done: now})
	}
	if s.msgs.len() > 0 {
		m.startMessage(now, q)
	}
}

// timeout is the retransmission timer of QP q expiring.
func (m *ccModule) timeout(now engine.Cycle, q wire.QPN, s *ccQP) {
	m.cnt.Timeouts++
	m.algo.onTimeout(now, q)
	s.rtoAt = engine.Never
	m.addCand(q)
}

// takeCNP passes one CNP to the algorithm (DCQCN's reaction point).
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
	m.rated(q, s, m.algo.onCNP(now, q))
	return true
}

// rated applies the outcome of a rate event of QP q: a rate that differs
// from the one last pushed is marked for an update, the algorithm timer
// takes its new deadline, and the QP may become a candidate.
func (m *ccModule) rated(q wire.QPN, s *ccQP, r ccRate) {
	if r.rate && m.algo.rate(q) != s.rateRaw {
		m.markDirty(q)
	}
	s.ccAt = r.wait
	if r.wait != engine.Never {
		m.timers.Push(uint64(s.ccAt), timerTie(q, tmCC), struct{}{})
	}
	if r.cand {
		m.addCand(q)
	}
}

// pushUpdate pushes one pending window/rate update to the scheduler.
func (m *ccModule) pushUpdate(now engine.Cycle) bool {
	if m.dirtyQ.len() == 0 || !m.upd.CanPush(now) {
		return false
	}
	q := m.dirtyQ.pop()
	s := &m.qps[q]
	s.dirty = false
	rate := m.algo.rate(q)
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
	m.hooks.Update(now, u)
	return true
}

// fireTimers runs every timer due at or before now.
func (m *ccModule) fireTimers(now engine.Cycle) bool {
	p := false
	for m.timers.Len() > 0 && engine.Cycle(m.timers.Min().Key) <= now {
		t := m.timers.Pop()
		if !m.timerLive(&t) {
			continue
		}
		p = true
		q := wire.QPN(t.Tie >> 8)
		s := &m.qps[q]
		switch timerKind(t.Tie) {
		case tmRTO:
			m.timeout(now, q, s)
		case tmCC:
			s.ccAt = engine.Never
			m.rated(q, s, m.algo.onTimer(now, q))
		}
	}
	return p
}

// timerLive reports whether a heap entry is still the QP's armed timer.
func (m *ccModule) timerLive(t *queue.Item[struct{}]) bool {
	s := &m.qps[t.Tie>>8]
	if timerKind(t.Tie) == tmRTO {
		return s.rtoAt == engine.Cycle(t.Key)
	}
	return s.ccAt == engine.Cycle(t.Key)
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
	// The algorithm fills the module's scratch (a pointer to a local would
	// escape through the interface: an allocation per status read).
	st := &m.status1
	*st = CCQPStatus{Active: s.active, Released: s.grants.len()}
	w, r := m.algo.status(q, s.base, st)
	return *st, w, r
}

var _ engine.Component = (*ccModule)(nil)
