package scheduler

import (
	"errors"
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/queue"
)

// Ports are the scheduler's queues (engine FIFOs, one cycle of latency each).
// Sends is required; an input left nil is simply not read.
type Ports struct {
	Updates   *engine.FIFO[Update]   // from the HPCC++ module: window and rate updates
	Acks      *engine.FIFO[Ack]      // from the Rx pipeline: acknowledged bytes
	Doorbells *engine.FIFO[Doorbell] // from the host: messages to send
	Sends     *engine.FIFO[PktSend]  // to the Tx pipeline: PktSend commands
}

// flow is one flow table entry (plain data).
type flow struct {
	windowRaw uint64 // W, raw
	window    uint64 // floor(W), bytes
	rateRaw   uint64 // R, raw
	gap       uint64 // G, raw cycles/byte; 0 = paused
	msgLeft   uint64 // payload bytes left in the current message; 0 = none
	msgFirst  bool   // the next packet is the first of its message
	msgs      []uint64
	backlog   uint64 // payload bytes posted, not sent
	sent      uint64
	acked     uint64
	next      fixTime // pacer: earliest send time of the next packet
	base      fixTime // pacer: start of the last packet's interval
	lastWire  uint64  // wire bytes of the last packet (0 before any)
	deficit   uint64
	packets   uint64
	waitAt    engine.Cycle // cycle of this flow's valid calendar entry; Never if none
	state     FlowState
}

// Scheduler is the NIC scheduler of the HPCC++ draft's Figure 4 (section
// 7.2): per-flow window enforcement, pacing at rate R, arbitration among
// eligible flows (round robin or DWRR) under a line-rate limit, and PktSend
// commands to the Tx pipeline. It implements engine.Component.
//
// Timing: in cycle n the scheduler (1) moves flows whose pacing time has come
// from the calendar to the eligible set, (2) makes at most one decision from
// the state at the start of cycle n, pushing one PktSend, then (3) pops at
// most one element from each input port (doorbell, update, ack), which take
// effect from cycle n+1. An update pushed by the HPCC++ module in cycle n is
// therefore first seen by the decision of cycle n+2.
type Scheduler struct {
	cfg      Config
	ports    Ports
	conv     gapConv
	gf       uint
	lineGap  uint64
	initGap  uint64
	initWRaw uint64
	maxWire  uint64

	flows []flow
	ready flowSet
	cal   calendar

	rrNext   uint32 // RR: the search for the next grant starts here
	cur      int    // DWRR: current flow, -1 none
	lineNext fixTime
	stall    uint8 // 0 none, 1 line-rate stall episode, 2 output stall episode
	cnt      Counters
}

// New returns a scheduler with every flow reset (idle, initial window and
// rate).
func New(cfg Config, ports Ports) (*Scheduler, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if ports.Sends == nil {
		return nil, errors.New("scheduler: Ports.Sends: nil: the PktSend FIFO is required")
	}
	cfg.Quanta = append([]uint32(nil), cfg.Quanta...)
	s := &Scheduler{
		cfg:     cfg,
		ports:   ports,
		gf:      uint(cfg.GapFracBits),
		maxWire: cfg.maxWire(),
		flows:   make([]flow, cfg.Flows),
		ready:   newFlowSet(cfg.Flows),
		cur:     -1,
	}
	s.conv = gapConv{rateConv: cfg.conversion(), maxGap: maxGap(cfg.GapBits)}
	s.lineGap, _ = cfg.lineGap()
	s.initGap = s.lineGap
	if cfg.InitRateBps != 0 {
		g, ok := bpsGap(uint64(cfg.ClockHz), cfg.InitRateBps, cfg.GapFracBits, cfg.GapBits)
		if !ok {
			return nil, fmt.Errorf("scheduler: InitRateBps=%d: too slow: gap per byte exceeds GapBits=%d", cfg.InitRateBps, cfg.GapBits)
		}
		s.initGap = g
	}
	s.initWRaw = cfg.InitWindowBytes << uint(cfg.WindowFormat.F())
	for i := range s.flows {
		s.resetFlow(&s.flows[i])
	}
	return s, nil
}

func maxGap(gapBits int) uint64 {
	if gapBits >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(gapBits) - 1
}

// Config returns the configuration.
func (s *Scheduler) Config() Config {
	c := s.cfg
	c.Quanta = append([]uint32(nil), c.Quanta...)
	return c
}

// Counters returns the status counters.
func (s *Scheduler) Counters() Counters { return s.cnt }

// LineGap returns the gap-per-byte register value of the line-rate limiter
// (cycles per byte, GapFracBits fraction bits).
func (s *Scheduler) LineGap() uint64 { return s.lineGap }

// Eligible returns the number of flows eligible for arbitration (the width of
// the request vector; a waveform signal).
func (s *Scheduler) Eligible() int { return s.ready.n }

// Pacing returns the number of flows waiting in the pacing calendar.
func (s *Scheduler) Pacing() int { return s.cal.live }

// LineNext returns the first cycle at which the line-rate limiter allows the
// next packet.
func (s *Scheduler) LineNext() engine.Cycle { return s.lineNext.ceil() }

// Flow returns a snapshot of flow id's table entry.
func (s *Scheduler) Flow(id FlowID) (FlowStatus, error) {
	if int(id) >= len(s.flows) {
		return FlowStatus{}, fmt.Errorf("scheduler: Flow(%d): must be < Flows=%d", id, len(s.flows))
	}
	f := &s.flows[id]
	msgs := len(f.msgs)
	if f.msgLeft != 0 {
		msgs++
	}
	return FlowStatus{
		Window: f.windowRaw, WindowBytes: f.window, Rate: f.rateRaw, Gap: f.gap,
		Backlog: f.backlog, Messages: msgs, Sent: f.sent, Acked: f.acked, Inflight: f.sent - f.acked,
		Deficit: f.deficit, Packets: f.packets, NextSend: uint64(f.next.ceil()), State: f.state,
	}, nil
}

func (s *Scheduler) resetFlow(f *flow) {
	*f = flow{
		windowRaw: s.initWRaw,
		window:    s.cfg.InitWindowBytes,
		gap:       s.initGap,
		msgs:      f.msgs[:0],
		waitAt:    engine.Never,
	}
}

func (s *Scheduler) quantum(id uint32) uint64 {
	if len(s.cfg.Quanta) != 0 {
		return uint64(s.cfg.Quanta[id])
	}
	return uint64(s.cfg.Quantum)
}

// payload is the payload bytes of flow f's next packet.
func (s *Scheduler) payload(f *flow) uint64 { return min(f.msgLeft, uint64(s.cfg.MTU)) }

// windowOK applies the window test to f's next packet.
func (s *Scheduler) windowOK(f *flow) bool {
	inflight := f.sent - f.acked
	if s.cfg.WindowMode == WindowOvershoot {
		return inflight < f.window
	}
	p := s.payload(f)
	return inflight <= f.window && p <= f.window-inflight
}

// reevaluate recomputes flow id's state after anything about it changed and
// files it in the eligible set or the pacing calendar. now is the cycle of
// the next decision the state applies to: the current cycle for calendar
// entries (handled before the decision), the next one for changes made by
// the decision or by inputs (handled after it).
func (s *Scheduler) reevaluate(id uint32, now engine.Cycle) {
	f := &s.flows[id]
	var st FlowState
	switch {
	case f.msgLeft == 0:
		st = FlowIdle
	case f.gap == 0:
		st = FlowPaused
	case !s.windowOK(f):
		st = FlowWindow
	case f.next.ceil() > now:
		st = FlowPacing
	default:
		st = FlowReady
	}
	if st == FlowReady {
		s.ready.add(id)
	} else {
		s.ready.remove(id)
	}
	if st == FlowPacing {
		at := f.next.ceil()
		if f.waitAt != at {
			if f.waitAt == engine.Never {
				s.cal.live++
			}
			f.waitAt = at
			s.cal.h.Push(uint64(at), uint64(id), struct{}{})
		}
	} else if f.waitAt != engine.Never {
		f.waitAt = engine.Never // its calendar entry is now stale
		s.cal.live--
	}
	if st != f.state {
		switch st {
		case FlowWindow:
			s.cnt.WindowBlocks++
		case FlowPacing:
			s.cnt.PaceWaits++
		}
		f.state = st
	}
}

// Tick executes cycle now (see the Scheduler doc for the order of work).
func (s *Scheduler) Tick(now engine.Cycle) bool {
	progress := false
	// 1. Pacing calendar: flows whose time has come.
	for s.cal.h.Len() > 0 && engine.Cycle(s.cal.h.Min().Key) <= now {
		e := s.cal.h.Pop()
		id := uint32(e.Tie)
		if f := &s.flows[id]; f.waitAt == engine.Cycle(e.Key) {
			f.waitAt = engine.Never
			s.cal.live--
			s.reevaluate(id, now)
			progress = true
		}
	}
	// 2. One decision.
	if s.ready.n > 0 {
		switch {
		case now < s.lineNext.ceil():
			if s.stall != 1 {
				s.stall = 1
				s.cnt.LineRateStalls++
				progress = true
			}
		case !s.ports.Sends.CanPush(now):
			if s.stall != 2 {
				s.stall = 2
				s.cnt.OutputStalls++
				progress = true
			}
		default:
			s.stall = 0
			s.send(s.arbitrate(), now)
			progress = true
		}
	} else if s.stall != 0 {
		s.stall = 0
		progress = true
	}
	// 3. Inputs, one per port; they take effect from cycle now+1.
	if p := s.ports.Doorbells; p != nil {
		if d, ok := p.Pop(now); ok {
			s.doorbell(d, now)
			progress = true
		}
	}
	if p := s.ports.Updates; p != nil {
		if u, ok := p.Pop(now); ok {
			s.update(u, now)
			progress = true
		}
	}
	if p := s.ports.Acks; p != nil {
		if a, ok := p.Pop(now); ok {
			s.ack(a, now)
			progress = true
		}
	}
	return progress
}

// NextWake returns the earliest cycle after now at which the passage of time
// alone lets the scheduler act: the head of the pacing calendar, or the
// line-rate limiter's next slot when flows are eligible. Input (a push into
// a port, room in Sends) wakes it through the engine.
func (s *Scheduler) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	w := engine.Never
	if s.cal.h.Len() > 0 {
		w = engine.Cycle(s.cal.h.Min().Key)
	}
	if l := s.lineNext.ceil(); s.ready.n > 0 && l > now {
		// Eligible flows wait for the line-rate limiter. (If they wait for
		// room in Sends instead, the FIFO's pop wakes the scheduler.)
		w = min(w, l)
	}
	if w == engine.Never {
		return 0, false
	}
	return max(w, now+1), true
}

// SleepUntil (engine.Sleeper), asked after a Tick that made progress: the
// next cycle in which a Tick would do something without new input. That is
// the next cycle while an input port holds a command, or while eligible
// flows can be decided on or a stall episode starts or ends (a stall is
// counted once per episode, and that counts as progress); otherwise the
// earlier of the line-rate limiter's next slot (eligible flows waiting for
// it) and the head of the pacing calendar.
func (s *Scheduler) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	n1 := now + 1
	if p := s.ports.Doorbells; p != nil && p.Len() > 0 {
		return n1, true
	}
	if p := s.ports.Updates; p != nil && p.Len() > 0 {
		return n1, true
	}
	if p := s.ports.Acks; p != nil && p.Len() > 0 {
		return n1, true
	}
	w := engine.Never
	switch l := s.lineNext.ceil(); {
	case s.ready.n > 0 && s.stall == 1 && n1 < l:
		w = l // waiting for the line-rate limiter, episode counted
	case s.ready.n > 0 || s.stall != 0:
		return n1, true
	}
	if s.cal.h.Len() > 0 {
		w = min(w, max(engine.Cycle(s.cal.h.Min().Key), n1))
	}
	if w == engine.Never {
		return 0, false
	}
	return w, true
}

// arbitrate picks the flow to grant among the eligible ones (ready.n > 0).
func (s *Scheduler) arbitrate() uint32 {
	if s.cfg.Arbiter == RoundRobin {
		id := uint32(s.ready.next(s.rrNext))
		s.rrNext = id + 1
		if int(s.rrNext) == len(s.flows) {
			s.rrNext = 0
		}
		return id
	}
	// DWRR: the current flow keeps the grant while eligible and its deficit
	// covers its next packet; otherwise the next eligible flow in ID order
	// (possibly the same one, starting a new round) gets its quantum.
	if c := s.cur; c >= 0 && s.ready.has(uint32(c)) {
		f := &s.flows[c]
		if f.deficit >= s.payload(f)+uint64(s.cfg.OverheadBytes) {
			return uint32(c)
		}
	}
	from := uint32(s.cur + 1)
	if int(from) >= len(s.flows) {
		from = 0
	}
	id := uint32(s.ready.next(from))
	q := s.quantum(id)
	f := &s.flows[id]
	// The deficit is bounded by quantum + largest packet - 1: a flow that
	// left its turn early (paced or window-blocked) banks at most one packet.
	f.deficit = min(f.deficit+q, q+s.maxWire-1)
	s.cur = int(id)
	return id
}

// send issues flow id's next packet in cycle now.
func (s *Scheduler) send(id uint32, now engine.Cycle) {
	f := &s.flows[id]
	p := s.payload(f)
	wire := p + uint64(s.cfg.OverheadBytes)
	f.base = pacerBase(f.next, now, wireGap(uint64(s.cfg.BurstBytes), f.gap), s.gf)
	f.lastWire = wire
	f.next = f.base.add(wireGap(wire, f.gap), s.gf)
	// Line-rate limiter: the same rule with no burst credit.
	s.lineNext = pacerBase(s.lineNext, now, 0, s.gf).add(wireGap(wire, s.lineGap), s.gf)

	cmd := PktSend{Flow: FlowID(id), Bytes: uint32(p), Offset: f.sent, PSN: uint32(f.packets) & (1<<PSNBits - 1), First: f.msgFirst}
	f.sent += p
	f.backlog -= p
	f.msgLeft -= p
	f.msgFirst = false
	f.packets++
	if f.msgLeft == 0 {
		cmd.Last = true
		s.nextMessage(f)
	}
	if f.backlog == 0 {
		f.deficit = 0
	}
	if s.cfg.Arbiter == DWRR {
		f.deficit -= min(f.deficit, wire)
	}
	s.ports.Sends.Push(now, cmd)
	s.cnt.PktSends++
	s.cnt.PayloadBytes += p
	s.cnt.WireBytes += wire
	s.reevaluate(id, now+1)
}

func (s *Scheduler) nextMessage(f *flow) {
	if len(f.msgs) == 0 {
		return
	}
	f.msgLeft, f.msgFirst = f.msgs[0], true
	copy(f.msgs, f.msgs[1:])
	f.msgs = f.msgs[:len(f.msgs)-1]
}

func (s *Scheduler) doorbell(d Doorbell, now engine.Cycle) {
	if int(d.Flow) >= len(s.flows) {
		s.cnt.BadFlowID++
		return
	}
	f := &s.flows[d.Flow]
	if d.Reset {
		s.cnt.FlowResets++
		if uint32(s.cur) == uint32(d.Flow) {
			s.cur = -1
		}
		if f.waitAt != engine.Never {
			s.cal.live--
		}
		s.ready.remove(uint32(d.Flow))
		s.resetFlow(f)
	}
	if d.Bytes != 0 {
		pending := len(f.msgs)
		if f.msgLeft != 0 {
			pending++
		}
		if pending >= s.cfg.MaxMessages || f.backlog+d.Bytes < f.backlog {
			s.cnt.DoorbellDrops++
		} else {
			s.cnt.Doorbells++
			f.backlog += d.Bytes
			if f.msgLeft == 0 {
				f.msgLeft, f.msgFirst = d.Bytes, true
			} else {
				f.msgs = append(f.msgs, d.Bytes)
			}
		}
	}
	s.reevaluate(uint32(d.Flow), now+1)
}

func (s *Scheduler) update(u Update, now engine.Cycle) {
	if int(u.Flow) >= len(s.flows) {
		s.cnt.BadFlowID++
		return
	}
	s.cnt.Updates++
	f := &s.flows[u.Flow]
	if u.SetWindow {
		s.cnt.WindowUpdates++
		f.windowRaw = u.Window
		f.window = 0
		if wf := uint(s.cfg.WindowFormat.F()); wf < 64 {
			f.window = u.Window >> wf
		}
	}
	if u.SetRate {
		s.cnt.RateUpdates++
		f.rateRaw = u.Rate
		g, clamped := s.conv.gap(u.Rate)
		if clamped {
			s.cnt.RateClamped++
		}
		if u.Rate == 0 {
			s.cnt.RatePauses++
		}
		f.gap = g
		// The new rate applies to the interval of the last packet too, so a
		// rate increase takes effect at once.
		if f.lastWire != 0 && g != 0 {
			f.next = f.base.add(wireGap(f.lastWire, g), s.gf)
		}
	}
	s.reevaluate(uint32(u.Flow), now+1)
}

func (s *Scheduler) ack(a Ack, now engine.Cycle) {
	if int(a.Flow) >= len(s.flows) {
		s.cnt.BadFlowID++
		return
	}
	f := &s.flows[a.Flow]
	v := a.AckedBytes
	if v > f.sent {
		s.cnt.AckBeyondSent++
		v = f.sent
	}
	if v <= f.acked {
		s.cnt.AckStale++
		return
	}
	s.cnt.Acks++
	f.acked = v
	s.reevaluate(uint32(a.Flow), now+1)
}

// calendar is the pacing calendar: a min-heap of (cycle, flow id) entries
// (Key = the cycle from which the flow may send, Tie = its id). Entries
// superseded by a later reevaluation stay in the heap and are skipped when
// they surface (the flow's waitAt no longer matches); live counts the valid
// ones. It gives the same eligibility times as an exact timing wheel.
type calendar struct {
	h    queue.Heap[struct{}]
	live int
}
