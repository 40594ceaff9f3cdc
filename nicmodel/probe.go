package nicmodel

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/queue"
)

// ProbeConfig configures telemetry probes (HPCC++ draft section 6.1: "HPCC++
// can use a probe packet to query the inband telemetry information. Thereby,
// the probe packets should take the same routing path and QoS queueing with
// the data packets"; section 7.2: "The telemetry can be collected by the data
// packet or by dedicated prob packets generated in the TX pipeline") and the
// connection linger that gives an idle flow telemetry worth refreshing. The
// section is absent (nil) by default: no probe is sent and a message posted
// on an idle QP starts a new connection, as without it. cc=hpcc only.
//
// A QP's connection opens with the first message posted on an idle QP (the
// module's reset). It stays open while it has messages outstanding and,
// with LingerNs > 0, for LingerNs after its last message completed: a
// message posted meanwhile continues the connection (the scheduler's W, R
// and PSN and the HPCC++ flow state carry over, stale if nothing refreshed
// them) instead of starting a new one.
//
// With Enable, the HPCC++ module's probe generator asks the PktSend
// register for a probe on QP q when the connection is open, no probe of q
// is outstanding, and q has been quiet for IdleNs: no data packet sent and
// no probe reply received for IdleNs (an idle flow, between messages or
// within one whose window is full or whose pacing gap exceeds IdleNs). A
// probe is outstanding from its request until its reply reaches the module
// or TimeoutNs passes (then it is given up, counted, and another may go).
// The probe is a RoCEv2 frame with the QP's addressing (same 5-tuple, so
// the same ECMP path, and the same DSCP, so the same QoS queue as the
// data) and the INT request; switches stamp it as they stamp data; the
// receiver's Rx pipeline answers with a probe reply echoing the stack, and
// the reply feeds the HPCC++ module as an ACK does (a datapath update with
// ack.seq = una, snd_nxt unchanged) without acknowledging bytes.
type ProbeConfig struct {
	// Enable turns the probe generator on.
	Enable bool `json:"enable"`
	// IdleNs is how long a QP must be quiet before it is probed, ns; 0:
	// T (hpcc.base_rtt_ns).
	IdleNs uint32 `json:"idle_ns"`
	// TimeoutNs is how long a probe stays outstanding without a reply, ns;
	// 0: 4T.
	TimeoutNs uint32 `json:"timeout_ns"`
	// LingerNs is how long a connection stays open after its last message
	// completed, ns (0: it closes at once, as without this section).
	LingerNs uint32 `json:"linger_ns"`
}

// ProbeCounters are the probe generator's status registers (present in
// Counters only with a probe section); all wrap modulo 2^64.
type ProbeCounters struct {
	Requests  uint64 // probes requested from the PktSend register
	Sent      uint64 // probes the PktSend register passed to the Tx pipeline
	Replies   uint64 // probe replies received while the probe was outstanding
	Late      uint64 // probe replies received after their probe was given up (still an update)
	Timeouts  uint64 // probes given up after timeout_ns without a reply
	Continued uint64 // messages posted on a lingering connection (no reset)
	Stalls    uint64 // requests that waited for room in the probe FIFO
}

// probeFIFODepth is the depth of the probe request FIFO between the
// module's probe generator and the PktSend register.
const probeFIFODepth = 4

// validate checks the section for configuration c.
func (p *ProbeConfig) validate(c *Config) error {
	if c.CC != CCHPCC {
		return fmt.Errorf("nicmodel: probe: cc=%s: probes and connection linger are for cc=hpcc (the sender's HPCC++ module takes the replies)", c.CC)
	}
	return nil
}

// probeState is one QP's probe generator entry.
type probeState struct {
	open        bool         // connection open (module reset seen, not yet closed)
	outstanding bool         // a probe requested and neither answered nor given up
	live        bool         // the timer heap holds this QP's live entry (generation gen, due at)
	gen         uint32       // generation of the live timer entry (older entries are ignored)
	at          engine.Cycle // the live entry's due cycle
	quiet       engine.Cycle // last data packet sent, probe reply received, or connection opened
	sentAt      engine.Cycle // when the outstanding probe was requested
	doneAt      engine.Cycle // when the last message completed (meaningful while idle)
}

// probeTimer is a timer heap entry: a QP and the generation it was armed
// with.
type probeTimer struct {
	q   wire.QPN
	gen uint32
}

// prober is the HPCC++ module's probe generator and connection linger
// (ProbeConfig). It is part of the module: the module tells it of every
// connection opened, data packet sent, probe reply taken and last message
// completed, with whether the QP still has messages outstanding (busy). It
// keeps one timer per QP in a heap (an entry made stale by a later one is
// skipped when it fires) and pushes probe requests into the FIFO the
// PktSend register takes them from.
type prober struct {
	enable                bool
	idle, timeout, linger engine.Cycle
	qps                   []probeState
	timers                queue.Heap[probeTimer] // Key = due cycle, Tie = QPN<<32 | generation
	out                   *engine.FIFO[pipeline.PktSend]
	stalled               bool
	cnt                   ProbeCounters
}

// newProber builds the generator for cfg (its Probe section set); out is
// the probe request FIFO (nil without Enable).
func newProber(cfg *Config, out *engine.FIFO[pipeline.PktSend]) *prober {
	p := cfg.Probe
	t := uint64(cfg.HPCC.BaseRTTNs)
	idle, timeout := uint64(p.IdleNs), uint64(p.TimeoutNs)
	if idle == 0 {
		idle = t
	}
	if timeout == 0 {
		timeout = 4 * t
	}
	return &prober{enable: p.Enable, idle: cfg.ClockHz.CyclesNS(idle), timeout: cfg.ClockHz.CyclesNS(timeout),
		linger: cfg.ClockHz.CyclesNS(uint64(p.LingerNs)), qps: make([]probeState, cfg.QPs), out: out}
}

// continues reports whether a message posted on idle QP q in cycle now
// continues its connection (it lingers) rather than opening a new one.
func (p *prober) continues(q wire.QPN, now engine.Cycle) bool {
	if p == nil {
		return false
	}
	s := &p.qps[q]
	if s.open && p.linger > 0 && now <= s.doneAt+p.linger {
		p.cnt.Continued++
		return true
	}
	return false
}

// opened: QP q's connection opened (the module reset it) in cycle now.
func (p *prober) opened(q wire.QPN, now engine.Cycle) {
	if p == nil {
		return
	}
	s := &p.qps[q]
	*s = probeState{open: true, quiet: now, gen: s.gen + 1}
	p.arm(q, true)
}

// sent: QP q sent a data packet (recorded in cycle now; the QP is busy).
func (p *prober) sent(q wire.QPN, now engine.Cycle) {
	if p == nil {
		return
	}
	p.qps[q].quiet = now // the live entry fires early and is re-armed then
}

// done: QP q's last outstanding message completed in cycle now.
func (p *prober) done(q wire.QPN, now engine.Cycle) {
	if p == nil {
		return
	}
	s := &p.qps[q]
	s.doneAt = now
	if p.linger == 0 {
		s.open = false
		return
	}
	p.arm(q, false)
}

// reply: a probe reply of QP q reached the module in cycle now.
func (p *prober) reply(q wire.QPN, now engine.Cycle, busy bool) {
	if p == nil {
		return
	}
	s := &p.qps[q]
	if s.outstanding {
		s.outstanding = false
		p.cnt.Replies++
	} else {
		p.cnt.Late++
	}
	s.quiet = max(s.quiet, now)
	p.arm(q, busy)
}

// due returns when QP q next needs the generator's attention (a probe, a
// timeout, or an idle connection's close), and false when never (probes
// off, connection closed).
func (p *prober) due(q wire.QPN, busy bool) (engine.Cycle, bool) {
	s := &p.qps[q]
	if !s.open {
		return 0, false
	}
	if !busy && p.linger > 0 {
		end := s.doneAt + p.linger
		if !p.enable || s.quiet+p.idle > end {
			return end, true // closes before another probe would go
		}
	}
	if !p.enable {
		return 0, false
	}
	if s.outstanding {
		return s.sentAt + p.timeout, true
	}
	return s.quiet + p.idle, true
}

// arm makes sure QP q's live timer entry is due no later than due(q).
func (p *prober) arm(q wire.QPN, busy bool) {
	s := &p.qps[q]
	d, ok := p.due(q, busy)
	if !ok || s.live && s.at <= d {
		return
	}
	s.gen++
	s.live, s.at = true, d
	p.timers.Push(uint64(d), uint64(q)<<32|uint64(s.gen), probeTimer{q, s.gen})
}

// tick fires the due timers (m's QP context tells which QPs have messages
// outstanding): closes lingering connections that expired, gives up
// timed-out probes, and requests at most one probe per cycle. It reports
// progress.
func (p *prober) tick(now engine.Cycle, m *module) bool {
	if p == nil {
		return false
	}
	progress := false
	for p.timers.Len() > 0 && engine.Cycle(p.timers.Min().Key) <= now {
		t := p.timers.Min().Val
		s := &p.qps[t.q]
		if !s.live || t.gen != s.gen {
			p.timers.Pop() // made stale by a later arm
			continue
		}
		qs := &m.qps[t.q]
		busy := qs.acked != qs.posted
		d, ok := p.due(t.q, busy)
		switch {
		case !ok:
			p.timers.Pop()
			s.live = false
			continue
		case d > now:
			p.timers.Pop()
			s.live = false
			p.arm(t.q, busy)
			continue
		case !busy && p.linger > 0 && now >= s.doneAt+p.linger && (!p.enable || s.quiet+p.idle > s.doneAt+p.linger):
			// The lingering connection expired: close it.
			p.timers.Pop()
			s.live, s.open = false, false
			progress = true
			continue
		case s.outstanding:
			// Timed out: give the probe up; another may go at once.
			p.timers.Pop()
			s.live, s.outstanding = false, false
			p.cnt.Timeouts++
			p.arm(t.q, busy)
			progress = true
			continue
		}
		// A probe is due.
		if !p.out.CanPush(now) {
			if !p.stalled {
				p.stalled = true
				p.cnt.Stalls++
				progress = true
			}
			return progress
		}
		p.stalled = false
		p.timers.Pop()
		s.live = false
		p.out.Push(now, pipeline.PktSend{Kind: pipeline.SendProbe, Flow: t.q, PSN: wire.PSN(uint32(qs.sndNxt) & wire.PSNMask)})
		s.outstanding, s.sentAt = true, now
		p.cnt.Requests++
		p.arm(t.q, busy)
		return true // one request per cycle
	}
	return progress
}

// nextWake returns the earliest timer, at least the next cycle (false:
// none).
func (p *prober) nextWake(now engine.Cycle) (engine.Cycle, bool) {
	if p == nil || p.timers.Len() == 0 {
		return engine.Never, false
	}
	return max(engine.Cycle(p.timers.Min().Key), now+1), true
}
