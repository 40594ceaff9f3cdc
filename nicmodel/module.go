package nicmodel

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// FlowID names a flow (one message of Bytes bytes on a QP) opened with
// NIC.OpenFlow; IDs are 0, 1, 2, ... per NIC in the order flows are opened.
type FlowID uint64

// post is a message the host posts on a QP: the module records where it
// ends in the QP's byte stream (for its completion) and forwards it to the
// scheduler as a doorbell.
type post struct {
	flow  FlowID
	qpn   wire.QPN
	bytes uint64
	start engine.Cycle // the cycle the flow was asked to start
}

// sendRecord is what the PktSend register tells the module about each
// data packet the scheduler issued: the end of its payload in the QP's
// byte stream. The module counts them (snd_nxt, in packets) and maps
// acknowledged PSNs to acknowledged bytes with them.
type sendRecord struct {
	qpn wire.QPN
	end uint64
}

// message is a posted message not yet completed.
type message struct {
	flow   FlowID
	end    uint64 // byte offset of its end in the QP's stream
	bytes  uint64
	start  engine.Cycle
	posted engine.Cycle
}

// FlowRecord is a completed flow: the host's completion record.
type FlowRecord struct {
	ID    FlowID
	QPN   wire.QPN
	Bytes uint64
	// Start is the cycle the flow was asked to start (FlowSpec.Start, or
	// the cycle after OpenFlow was called if later); Posted the cycle the
	// module took its message (forwarding the doorbell to the scheduler);
	// Done the cycle the module processed the ACK that acknowledged its
	// last byte. The flow completion time is Done - Start cycles.
	Start, Posted, Done engine.Cycle
}

// qpState is the module's entry for one QP: the sender-side QP context
// the HPCC++ module needs (packets sent and acknowledged, byte offsets of
// packets in flight, messages) plus the HPCC++ flow state.
type qpState struct {
	epoch  uint32       // incremented by each reset; in-flight updates of an older epoch are discarded
	sndNxt uint64       // data packets sent since the QP's reset (snd_nxt in packets)
	una    uint64       // data packets acknowledged (the next expected: ack.seq in packets)
	acked  uint64       // payload bytes acknowledged
	posted uint64       // payload bytes posted since reset
	ends   ring[uint64] // byte offset after each packet una..sndNxt-1
	msgs   ring[message]
	// busyUntil is the cycle at which this QP's in-flight update retires
	// (writes the flow state back); an event of the QP may be taken from
	// that cycle on (the write-back bypasses into the read of that cycle).
	busyUntil engine.Cycle
	w, r      uint64 // raw W and R last sent to the scheduler (0 before any)
}

// inflight is one update in the HPCC++ pipeline: the QP and connection it
// belongs to, when it retires, and what the algorithm computed at issue
// (the outputs to push and the flow state to write back).
type inflight struct {
	ready engine.Cycle
	qpn   wire.QPN
	epoch uint32
	fx    hpcc.State    // fixed model: the next flow state
	fl    hpcc.RefState // float model: the next flow state
	out   ccOut
	// drop: the telemetry guard dropped the event; it holds its pipeline
	// slot and writes nothing back at retire.
	drop bool
}

// ModuleCounters are the HPCC++ module's status registers; all wrap modulo
// 2^64. They count events, never idle cycles, so they are identical with
// and without idle skipping.
type ModuleCounters struct {
	Events       uint64 // telemetry response events taken from the Rx pipeline
	AckEvents    uint64 // of which ACKs (or NAKs)
	NotifyEvents uint64 // of which Rx-HPCC notifications
	ProbeReplies uint64 // of which probe replies
	BadQP        uint64 // events, posts or send records naming a QPN >= qps (dropped)
	AcksAdvanced uint64 // ACKs/notifications that acknowledged new packets
	AckStale     uint64 // ACKs/notifications at or below the acknowledged PSN
	AckBeyond    uint64 // ACKs/notifications for a PSN not sent (ignored)
	NAKs         uint64 // events with a NAK or RNR NAK syndrome (no retransmission is modeled)
	ECNEchoes    uint64 // events with BECN set (counted; HPCC++ does not use ECN)
	CCIssued     uint64 // updates started in the HPCC++ pipeline
	CCRetired    uint64 // updates written back and pushed to the scheduler
	FirstEvents  uint64 // datapath updates that were a flow's first (telemetry recorded only)
	MISteps      uint64 // datapath updates taking the multiplicative step (line 12 true)
	AISteps      uint64 // datapath updates taking the additive step
	WcCommits    uint64 // datapath updates committing Wc (seq > lastUpdateSeq)
	NotifyApply  uint64 // Rx-HPCC notifications applied (W from the receiver)
	NoTelemetry  uint64 // ACKs without telemetry under cc=hpcc (no update)
	Discarded    uint64 // updates discarded at write-back because their QP was reset meanwhile
	// Stalls count events that waited at least one cycle, once per event and
	// reason; HazardCycles is the total delay read-after-write hazards added
	// (for each hazard, the cycles from when the event could otherwise have
	// been taken, visible and II permitting, to its QP's write-back).
	StallII, StallHazard, StallCredit, StallAckFIFO uint64
	HazardCycles                                    uint64
	StallDoorbell                                   uint64 // posts that waited for the scheduler's doorbell FIFO
	Posts, Resets, Completions                      uint64 // messages taken, QP resets (new connections), messages completed
	SendRecords                                     uint64 // data packets recorded from the PktSend register
}

// module is the HPCC++ module of Figure 4 (section 7.2) with the sender's
// QP context: an engine component that takes at most one telemetry
// response event per cycle from the Rx pipeline, acknowledges bytes to the
// scheduler, runs the HPCC++ update with the RTL hpcc_module's timing
// (latency lat from taking an event to pushing its update, spacing space
// between two events of one QP, initiation interval ii), and pushes
// window/rate updates to the scheduler.
//
// Cycle n, in order: (1) retire the pipeline's oldest update if it is due
// (ready <= n): write the flow state back, push the update (room is
// guaranteed by the credit check at issue); (2) take one posted message and
// forward it as a doorbell; (3) take one send record; (4) take the event at
// the head of the event FIFO if every resource it needs is free: the ACK
// FIFO (when it acknowledges new packets), and for an update the II slot,
// the QP (an event of a QP taken in cycle t blocks the QP's next event
// until t + space: the read-after-write stall) and a credit on the update
// FIFO (free slots > updates in flight); events are taken in order, so a
// stalled head blocks the ones behind it. An update taken in cycle n
// retires in cycle n + lat (in cycle n itself for 0, a unit-test setting).
//
// The congestion control is an hpccAlgorithm (below), one file per
// algorithm: hpcc.go (cc=hpcc, the sender's datapath per ACK) and
// rxhpcc.go (cc=hpcc-rx, the window notified by the receiver); cc=none has
// none. The module is the timed component: it owns the RTL's timing and
// calls the algorithm synchronously at issue and at retire.
type module struct {
	algo   hpccAlgorithm
	lat    engine.Cycle // event taken -> update pushed
	space  engine.Cycle // minimum distance between two events of one QP taken
	ii     engine.Cycle
	qps    []qpState
	events *engine.FIFO[pipeline.Event]
	posts  *engine.FIFO[post]
	sent   *engine.FIFO[sendRecord]
	upd    *engine.FIFO[scheduler.Update]
	acks   *engine.FIFO[scheduler.Ack]
	bells  *engine.FIFO[scheduler.Doorbell]
	pipe   ring[inflight]
	// nextIssue is the first cycle the II allows the next update.
	nextIssue engine.Cycle
	// headStall: stall reasons already counted for the event at the head.
	headStall uint8
	postStall bool
	pollFIFO  bool // the head waits for room in a FIFO not known to be full: poll next cycle
	complete  func(FlowRecord)
	probe     *prober // probe generator and connection linger (probe.go); nil: none
	hooks     trace.Hooks
	cnt       ModuleCounters
	taken     pipeline.Event // the event being taken, popped from events
	issuing   inflight       // the update being issued, filled by the algorithm
}

// hpccAlgorithm is the congestion control the HPCC++ module runs, one
// implementation per file (hpcc.go, rxhpcc.go). The module owns the
// hpcc_module RTL's timing (latency, II, the read-after-write spacing of
// one QP's events, credits on the update FIFO) and the QP context
// (snd_nxt, snd_una, acknowledged bytes, messages); the algorithm owns the
// per-QP flow state (plain data, indexed by QPN) and computes each update
// synchronously when the module issues it, so that an algorithm with a
// multi-cycle datapath is a timed component's datapath rather than a
// per-packet call. It reaches nothing of the module or the NIC.
type hpccAlgorithm interface {
	// work reports whether event ev asks for an update (it then takes a
	// pipeline slot, subject to the II, the hazard and the credits).
	work(ev *pipeline.Event) bool
	// skipped is told of a taken event that asked for no update.
	skipped(ev *pipeline.Event)
	// issue computes the update of ev for QP q, issued in cycle now: una
	// and sndNxt are the QP's acknowledged and sent packets after the
	// event, conn its connection number; it fills e.out and the state to
	// write back.
	issue(now engine.Cycle, q wire.QPN, conn uint32, una, sndNxt uint64, ev *pipeline.Event, e *inflight)
	// commit writes e's state back (at retire, same connection only).
	commit(e *inflight)
	// reset restarts QP q's flow state (a new connection).
	reset(q wire.QPN)
	// state returns QP q's flow state: the golden datapath's (fixed
	// model) or the float reference's (float model), zero without one.
	// (Returned by value: a pointer argument would escape through the
	// interface, an allocation per status read.)
	state(q wire.QPN) (hpcc.State, hpcc.RefState)
}

// noCC is cc=none: no update, no flow state.
type noCC struct{}

func (noCC) work(*pipeline.Event) bool { return false }
func (noCC) skipped(*pipeline.Event)   {}
func (noCC) issue(engine.Cycle, wire.QPN, uint32, uint64, uint64, *pipeline.Event, *inflight) {
}
func (noCC) commit(*inflight) {}
func (noCC) reset(wire.QPN)   {}
func (noCC) state(wire.QPN) (hpcc.State, hpcc.RefState) {
	return hpcc.State{}, hpcc.RefState{}
}

const (
	stallII uint8 = 1 << iota
	stallHazard
	stallCredit
	stallAck
)

// Tick executes cycle now (see the type's doc for the order of work).
func (m *module) Tick(now engine.Cycle) bool {
	progress := m.retire(now)
	progress = m.takePost(now) || progress
	progress = m.takeSent(now) || progress
	progress = m.takeEvent(now) || progress
	progress = m.probe.tick(now, m) || progress
	if m.lat == 0 {
		progress = m.retire(now) || progress
	}
	return progress
}

// NextWake returns the retire cycle of the oldest update in flight, the
// cycle the II or a hazard lets the head event go, or the next cycle when
// the head waits for FIFO room that a pop would not announce (credit).
func (m *module) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	w, ok := engine.Never, false
	if m.pipe.len() > 0 {
		w, ok = m.pipe.front().ready, true
	}
	if m.headStall != 0 {
		if ev := m.events.Front(now); ev != nil && int(ev.Flow) < len(m.qps) {
			if m.nextIssue > now {
				w, ok = min(w, m.nextIssue), true
			}
			if b := m.qps[ev.Flow].busyUntil; b > now {
				w, ok = min(w, b), true
			}
		}
	}
	if m.pollFIFO {
		w, ok = now+1, true
	}
	if pw, pok := m.probe.nextWake(now); pok {
		w, ok = min(w, pw), true
	}
	return w, ok
}

// SleepUntil (engine.Sleeper), asked after a Tick that made progress:
// the next cycle while a post, a send record or an event not yet found
// stalled waits; else NextWake (the oldest update's retire cycle, a stalled
// head's II or hazard end, or polling for FIFO room).
func (m *module) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if m.posts.Len() > 0 || m.sent.Len() > 0 || m.headStall == 0 && m.events.Len() > 0 {
		return now + 1, true
	}
	return m.NextWake(now)
}

func (m *module) retire(now engine.Cycle) bool {
	if m.pipe.len() == 0 || m.pipe.front().ready > now {
		return false
	}
	e := m.pipe.front() // read in place (popped below): an entry is large
	q := &m.qps[e.qpn]
	if e.drop {
		m.pipe.pop() // counted by the guard (GuardCounters.EventsDropped)
		return true
	}
	if e.epoch != q.epoch {
		m.pipe.pop()
		m.cnt.Discarded++
		return true
	}
	m.algo.commit(e)
	q.w, q.r = e.out.w, e.out.r
	u := scheduler.Update{Flow: scheduler.FlowID(e.qpn), Window: e.out.w, Rate: e.out.r, SetWindow: true, SetRate: true}
	m.pipe.pop()
	m.upd.Push(now, u) // room guaranteed by the credit check at issue
	m.cnt.CCRetired++
	m.hooks.Update(now, u)
	return true
}

func (m *module) takePost(now engine.Cycle) bool {
	p, ok := m.posts.Peek(now)
	if !ok {
		return false
	}
	if int(p.qpn) >= len(m.qps) {
		m.posts.Pop(now)
		m.cnt.BadQP++
		return true
	}
	if !m.bells.CanPush(now) {
		if m.postStall {
			return false
		}
		m.postStall = true
		m.cnt.StallDoorbell++
		return true
	}
	m.posts.Pop(now)
	m.postStall = false
	q := &m.qps[p.qpn]
	// A message posted on an idle QP (every posted byte acknowledged)
	// opens a new connection: the scheduler's entry and the module's
	// entry (HPCC++ state included) restart.
	reset := q.acked == q.posted && !m.probe.continues(p.qpn, now)
	if reset {
		m.resetQP(p.qpn)
		m.cnt.Resets++
		m.probe.opened(p.qpn, now)
	}
	q.posted += p.bytes
	q.msgs.push(message{flow: p.flow, end: q.posted, bytes: p.bytes, start: p.start, posted: now})
	d := scheduler.Doorbell{Flow: scheduler.FlowID(p.qpn), Bytes: p.bytes, Reset: reset}
	m.bells.Push(now, d)
	m.cnt.Posts++
	m.hooks.Doorbell(now, d)
	return true
}

// resetQP restarts QP q's entry: counters, byte offsets and flow state.
func (m *module) resetQP(q wire.QPN) {
	s := &m.qps[q]
	s.epoch++
	s.sndNxt, s.una, s.acked, s.posted = 0, 0, 0, 0
	s.ends.clear()
	s.w, s.r = 0, 0
	m.algo.reset(q)
}

func (m *module) takeSent(now engine.Cycle) bool {
	r, ok := m.sent.Pop(now)
	if !ok {
		return false
	}
	if int(r.qpn) >= len(m.qps) {
		m.cnt.BadQP++
		return true
	}
	q := &m.qps[r.qpn]
	q.ends.push(r.end)
	q.sndNxt++
	m.cnt.SendRecords++
	m.probe.sent(r.qpn, now)
	return true
}

// ackTarget returns the number of packets acknowledged after an ACK of
// psn on QP q (una' = the extended PSN + 1) and whether it advances una.
// beyond reports a PSN that was never sent.
func ackTarget(q *qpState, psn wire.PSN) (una uint64, advance, beyond bool) {
	if q.sndNxt == 0 {
		return q.una, false, true
	}
	last := wire.PSN(uint32(q.sndNxt-1) & wire.PSNMask)
	d := uint64(last.Sub(psn)) // packets between psn and the last sent, modulo 2^24
	if d >= 1<<23 {
		return q.una, false, true // psn is after the last packet sent
	}
	if d >= q.sndNxt-q.una {
		return q.una, false, false // at or below what was acknowledged
	}
	return q.sndNxt - d, true, false
}

func (m *module) takeEvent(now engine.Cycle) bool {
	m.pollFIFO = false
	ev := m.events.Front(now) // read in place: an Event is large
	if ev == nil {
		return false
	}
	if int(ev.Flow) >= len(m.qps) {
		m.events.Discard(now)
		m.cnt.BadQP++
		m.headStall = 0
		return true
	}
	q := &m.qps[ev.Flow]
	acks := ev.Kind != pipeline.EventProbeReply && ev.Syndrome.Type() == wire.AckTypeACK
	var una uint64
	var advance, beyond bool
	if acks {
		una, advance, beyond = ackTarget(q, ev.PSN)
	}
	work := m.algo.work(ev)
	// Resources, checked in a fixed order; each reason is counted once per
	// event.
	var wait uint8
	if advance && !m.acks.CanPush(now) {
		wait |= stallAck
	}
	if work {
		if now < m.nextIssue {
			wait |= stallII
		}
		if now < q.busyUntil {
			wait |= stallHazard
		}
		if m.upd.Free(now) <= m.pipe.len() {
			wait |= stallCredit
		}
	}
	if wait != 0 {
		newly := wait &^ m.headStall
		m.headStall |= wait
		if wait&(stallCredit|stallAck) != 0 {
			m.pollFIFO = true
		}
		if newly == 0 {
			return false
		}
		if newly&stallII != 0 {
			m.cnt.StallII++
		}
		if newly&stallHazard != 0 {
			m.cnt.StallHazard++
			// The cycles the hazard adds beyond the II: busyUntil -
			// max(now, nextIssue).
			m.cnt.HazardCycles += uint64(q.busyUntil - max(now, m.nextIssue))
		}
		if newly&stallCredit != 0 {
			m.cnt.StallCredit++
		}
		if newly&stallAck != 0 {
			m.cnt.StallAckFIFO++
		}
		return true
	}
	// Take it: pop it into m.taken first, so that everything it causes (a
	// completion callback that reads the FIFO levels) sees it taken.
	m.taken = *ev
	ev = &m.taken
	m.events.Discard(now)
	m.headStall = 0
	m.cnt.Events++
	switch ev.Kind {
	case pipeline.EventAck:
		m.cnt.AckEvents++
	case pipeline.EventNotify:
		m.cnt.NotifyEvents++
	case pipeline.EventProbeReply:
		m.cnt.ProbeReplies++
		m.probe.reply(ev.Flow, now, q.acked != q.posted)
	}
	if ev.ECNEcho {
		m.cnt.ECNEchoes++
	}
	m.hooks.Event(now, ev)
	if ev.Kind != pipeline.EventProbeReply && ev.Syndrome.Type() != wire.AckTypeACK {
		m.cnt.NAKs++
	}
	switch {
	case advance:
		m.cnt.AcksAdvanced++
		m.ack(now, ev.Flow, q, una)
	case beyond:
		m.cnt.AckBeyond++
	case acks:
		m.cnt.AckStale++
	}
	if work {
		// The algorithm fills the module's scratch entry (a pointer to a
		// local would escape through the interface: an allocation per
		// update).
		e := &m.issuing
		*e = inflight{ready: now + m.lat, qpn: ev.Flow, epoch: q.epoch}
		m.algo.issue(now, ev.Flow, q.epoch, q.una, q.sndNxt, ev, e)
		m.issue(now, q, *e)
	} else {
		m.algo.skipped(ev)
	}
	return true
}

// ack acknowledges QP q's packets up to una (exclusive): their bytes go to
// the scheduler and completed messages to the host.
func (m *module) ack(now engine.Cycle, qpn wire.QPN, q *qpState, una uint64) {
	var end uint64
	for q.una < una {
		end = q.ends.pop()
		q.una++
	}
	q.acked = end
	a := scheduler.Ack{Flow: scheduler.FlowID(qpn), AckedBytes: end}
	m.acks.Push(now, a)
	m.hooks.Ack(now, a)
	for q.msgs.len() > 0 && q.msgs.front().end <= q.acked {
		msg := q.msgs.pop()
		m.cnt.Completions++
		if m.complete != nil {
			m.complete(FlowRecord{ID: msg.flow, QPN: qpn, Bytes: msg.bytes, Start: msg.start, Posted: msg.posted, Done: now})
		}
	}
	if q.acked == q.posted {
		m.probe.done(qpn, now)
	}
}

func (m *module) issue(now engine.Cycle, q *qpState, e inflight) {
	m.pipe.push(e)
	q.busyUntil = now + m.space
	m.nextIssue = now + m.ii
	m.cnt.CCIssued++
}
