package nicmodel

import (
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/queue"
	"github.com/hpccgold/hpccgold/scheduler"
)

// MACCounters are the MAC's status registers (wrapping modulo 2^64).
type MACCounters struct {
	RxFrames uint64 // frames that arrived at the port
	RxBytes  uint64 // their bytes (without FCS)
	RxDrops  uint64 // arrivals dropped because the MAC Rx FIFO was full
	TxFrames uint64 // frames serialized onto the port
	TxBytes  uint64 // their bytes (without FCS)
	TxBusyPS uint64 // picoseconds the transmitter was busy serializing (line utilization = TxBusyPS / elapsed)
}

// macRx is the receive side of the port: it takes every frame in the cycle
// it arrives (the network's TimedQueue wakes it then) and puts it into the
// bounded MAC Rx FIFO the Rx pipeline reads; a frame that finds the FIFO
// full is dropped and counted (a port cannot push back on the wire).
type macRx struct {
	in    *engine.TimedQueue[pipeline.Frame]
	out   *engine.FIFO[pipeline.Frame]
	cnt   *MACCounters
	hooks trace.Hooks
	bufs  *engine.Buffers // where dropped frames are released; nil: not released
}

// Tick takes every frame arriving in cycle now (engine.Component).
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
		m.hooks.RxFrame(now, f.Data)
		if !m.out.Push(now, f) {
			m.cnt.RxDrops++
			if m.bufs != nil {
				m.bufs.Put(f.Data)
			}
		}
	}
}

// NextWake: only arrivals wake the MAC Rx (the TimedQueue arms them).
func (m *macRx) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// SleepUntil (engine.Sleeper): Tick took every frame visible, and the
// TimedQueue wakes the MAC Rx when the next one arrives.
func (m *macRx) SleepUntil(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// macTx is the transmit side of the port: it serializes one frame at a
// time at the line rate, exactly. Its transmitter time is kept in
// picoseconds: a frame of n bytes started at start_ps = max(PS(now),
// free_ps) ends at end_ps = start_ps + ceil((n + mac_overhead_bytes) * 8 *
// 10^12 / LineRateBps) and is pushed into the output TimedQueue visible at
// its departure cycle, the first cycle starting at or after end_ps
// (CyclesPS, ceiling); the next frame can be taken in the cycle containing
// end_ps. So back-to-back frames leave at the line rate with no per-frame
// rounding to whole cycles (a 1090-byte frame at 100 Gbit/s takes 87.2 ns,
// not 88).
type macTx struct {
	in       *engine.FIFO[pipeline.Frame]
	out      *engine.TimedQueue[pipeline.Frame]
	freq     engine.Freq
	bps      uint64
	overhead uint64
	freePS   uint64       // the transmitter's end of the last frame, ps
	free     engine.Cycle // the cycle containing freePS: the first cycle a frame can be taken
	cnt      *MACCounters
	hooks    trace.Hooks
}

// Tick starts the next frame if the transmitter is free (engine.Component).
func (m *macTx) Tick(now engine.Cycle) bool {
	if now < m.free {
		return false
	}
	f, ok := m.in.Pop(now)
	if !ok {
		return false
	}
	n := uint64(len(f.Data))
	start := max(m.freq.PS(now), m.freePS)
	end := start + engine.MulDiv((n+m.overhead)*8, 1_000_000_000_000, m.bps, true)
	m.freePS = end
	m.free = m.freq.CycleAtPS(end)
	dep := max(m.freq.CyclesPS(end), now+1)
	m.out.Push(now, dep, f)
	m.cnt.TxFrames++
	m.cnt.TxBytes += n
	m.cnt.TxBusyPS += end - start
	m.hooks.TxFrame(dep, f.Data)
	return true
}

// SleepUntil (engine.Sleeper), after starting a frame: the cycle the
// transmitter frees when another frame waits; else only input wakes it.
func (m *macTx) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if m.in.Len() > 0 {
		return max(m.free, now+1), true
	}
	return engine.Never, false
}

// NextWake returns the cycle the transmitter frees when a frame waits.
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
	hooks      trace.Hooks
	cnt        SendRegCounters
	// probes, if set, are the probe generator's requests (probe.go),
	// passed on when no data command waits; probeCnt counts them.
	probes   *engine.FIFO[pipeline.PktSend]
	probeCnt *ProbeCounters
}

// Tick passes one PktSend command (engine.Component).
func (s *sendReg) Tick(now engine.Cycle) bool {
	c, ok := s.in.Peek(now)
	if !ok {
		return s.passProbe(now)
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
	s.hooks.PktSend(now, c, p.AckReq)
	return true
}

// NextWake: only input and freed output room wake the register.
func (s *sendReg) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// SleepUntil (engine.Sleeper): the next cycle while a command waits.
func (s *sendReg) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if s.in.Len() > 0 || s.probes != nil && s.probes.Len() > 0 {
		return now + 1, true
	}
	return engine.Never, false
}

// passProbe passes one probe request to the Tx pipeline when there is room
// (data commands go first: it is called only when none waits).
func (s *sendReg) passProbe(now engine.Cycle) bool {
	if s.probes == nil {
		return false
	}
	p, ok := s.probes.Peek(now)
	if !ok || !s.out.CanPush(now) {
		return false
	}
	s.probes.Pop(now)
	s.out.Push(now, p)
	s.probeCnt.Sent++
	return true
}

// HostCounters count the flow API's work.
type HostCounters struct {
	Opened uint64 // flows opened (OpenFlow)
	Posted uint64 // flows posted to the module
	Stalls uint64 // posts that waited for room in the post FIFO
}

// host is the driver side of the flow API (not hardware): it posts each
// opened flow's message to the module at its start cycle, in (start, id)
// order, as many per cycle as the post FIFO takes.
type host struct {
	pending queue.Heap[post] // Key = start cycle, Tie = flow id
	posts   *engine.FIFO[post]
	stalled bool
	cnt     HostCounters
}

// open schedules flow p.flow's message to be posted at cycle at.
func (h *host) open(at engine.Cycle, p post) { h.pending.Push(uint64(at), uint64(p.flow), p) }

// nextAt returns the start cycle of the next flow to post; there must be one.
func (h *host) nextAt() engine.Cycle { return engine.Cycle(h.pending.Min().Key) }

// Tick posts every flow whose start cycle has come (engine.Component).
func (h *host) Tick(now engine.Cycle) bool {
	p := false
	for h.pending.Len() > 0 && h.nextAt() <= now {
		if !h.posts.CanPush(now) {
			if !h.stalled {
				h.stalled = true
				h.cnt.Stalls++
				p = true
			}
			return p
		}
		o := h.pending.Pop()
		h.posts.Push(now, o.Val)
		h.stalled = false
		h.cnt.Posted++
		p = true
	}
	return p
}

// SleepUntil (engine.Sleeper): the next flow's start cycle, at least the
// next cycle.
func (h *host) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if h.pending.Len() > 0 {
		return max(h.nextAt(), now+1), true
	}
	return engine.Never, false
}

// NextWake returns the next flow's start cycle.
func (h *host) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if h.pending.Len() > 0 && h.nextAt() > now {
		return h.nextAt(), true
	}
	return engine.Never, false
}
