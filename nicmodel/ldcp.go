package nicmodel

import (
	"math"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// ldcpCC is LDCP (docs/ldcp.md) as the CC module's ccAlgorithm: per QP the
// state of the golden datapath (ldcp.Datapath, model fixed) or of the float
// reference (ldcp.Reference, model float), driven by the module's events:
//
//   - onStart: a datapath message (ldcp.Start) per chunk of at most
//     ldcpChunk packets;
//   - onSend: the datapath's Send event decides (cw >= 1: inflight + 1 <=
//     cw; cw < 1: the sub-packet timer RTT/cw has expired) and gives the
//     PSN and whether the packet is ECN-capable (fast start, LDCP draft
//     section 2.3); refused by the timer, it asks for the algorithm timer
//     at the deadline;
//   - onAck: the datapath's Ack event (per-ACK ECE, Eq. (1)/(2), the
//     fast-start transitions, go-back-N on NAK);
//   - onTimeout: its Timeout event (retransmission timer);
//   - onTimer: the sub-packet timer expired: the QP may try again.
//
// R is the line rate; CNPs and bytes sent do not concern it.
type ldcpCC struct {
	freq engine.Freq
	cfg  ldcp.Config
	fix  *ldcp.Datapath  // model fixed, else nil
	ref  *ldcp.Reference // model float, else nil
	line uint64          // the line rate as a rate register value
	gbps float64         // the same in Gbit/s (R reported by status)
	mtu  uint64          // payload bytes per full packet
	qps  []ldcpQP
	cnt  *CCCounters
}

// ldcpQP is LDCP's state of one QP (plain data): the current chunk
// (packets [chunk, chunk+chunkLen) of the message) and the datapath state
// of the model in use.
type ldcpQP struct {
	chunk, chunkLen uint64
	fx              ldcp.State
	fl              ldcp.RefState
}

// newLDCPCC builds LDCP of configuration c for qps QPs on the model m;
// rr is the scheduler's rate register, mtu the full packet's payload.
func newLDCPCC(c ldcp.Config, m Model, freq engine.Freq, qps int, rr rateReg, mtu uint64, cnt *CCCounters) (*ldcpCC, error) {
	l := &ldcpCC{freq: freq, cfg: c, line: rr.line, gbps: rr.gbps(rr.line), mtu: mtu, qps: make([]ldcpQP, qps), cnt: cnt}
	var err error
	if m == Fixed {
		l.fix, err = ldcp.NewDatapath(c)
	} else {
		l.ref, err = ldcp.NewReference(c)
	}
	return l, err
}

// ldcpOut is what the module reads from either LDCP model's output.
type ldcpOut struct {
	allowed                                      bool
	block                                        ldcp.Block
	psn                                          uint32
	ect                                          bool
	done, invalid, stale, fullAck, loss, goBackN bool
}

// step runs one event through the configured LDCP model (golden datapath
// or float reference) and stores the next state.
func (l *ldcpCC) step(s *ldcpQP, ev ldcp.Event) ldcpOut {
	if l.fix != nil {
		next, o := l.fix.Update(s.fx, ev)
		s.fx = next
		return ldcpOut{o.Allowed, o.Block, o.PSN, o.ECT, o.Done, o.Invalid, o.Stale, o.FullAck, o.Loss, o.GoBackN}
	}
	next, o := l.ref.Update(s.fl, ev)
	s.fl = next
	return ldcpOut{o.Allowed, o.Block, o.PSN, o.ECT, o.Done, o.Invalid, o.Stale, o.FullAck, o.Loss, o.GoBackN}
}

// seqPSN returns the LDCP state's chunk start, snd_una and snd_nxt PSNs.
func (l *ldcpCC) seqPSN(s *ldcpQP) (start, una, nxt uint32) {
	if l.fix != nil {
		return s.fx.Start, s.fx.Una, s.fx.Nxt
	}
	return s.fl.Start, s.fl.Una, s.fl.Nxt
}

// cwPackets returns the QP's window in packets.
func (l *ldcpCC) cwPackets(s *ldcpQP) float64 {
	if l.fix != nil {
		return l.fix.CwPackets(s.fx.Cw)
	}
	return s.fl.Cw
}

// timerCycle converts the sub-packet deadline of s into the first cycle at
// which a Send is allowed: the deadline is TimeBits-wide and compared as a
// serial number with now (ns, floor of the cycle's time).
func (l *ldcpCC) timerCycle(now engine.Cycle, s *ldcpQP) engine.Cycle {
	nowNs := l.freq.NS(now)
	mod := uint64(1) << uint(l.cfg.TimeBits)
	var d uint64
	if l.fix != nil {
		d = (s.fx.NextSend - nowNs) & (mod - 1)
	} else {
		d = uint64(math.Ceil(math.Mod(s.fl.NextSendNs-float64(nowNs&(mod-1))+float64(mod), float64(mod))))
	}
	return max(l.freq.CyclesNS(nowNs+d), now+1)
}

// count adds the output's transitions to the counters.
func (l *ldcpCC) count(o ldcpOut) {
	if o.goBackN {
		l.cnt.GoBackN++
	}
	if o.loss {
		l.cnt.FastStartLoss++
	}
	if o.fullAck {
		l.cnt.FastStartFull++
	}
}

// startChunk starts the datapath message of the chunk at s.chunk of the
// message of pkts packets whose first PSN is base.
func (l *ldcpCC) startChunk(now engine.Cycle, s *ldcpQP, base uint32, pkts uint64) {
	s.chunkLen = min(pkts-s.chunk, ldcpChunk)
	l.step(s, ldcp.Event{Kind: ldcp.Start, NowNs: l.freq.NS(now), Seq: (base + uint32(s.chunk)) & psnMask, MsgPkts: uint32(s.chunkLen)})
}

func (l *ldcpCC) onConnect(wire.QPN) {}

func (l *ldcpCC) onStart(now engine.Cycle, q wire.QPN, base uint32, pkts uint64) {
	s := &l.qps[q]
	s.chunk = 0
	l.startChunk(now, s, base, pkts)
}

func (l *ldcpCC) onSend(now engine.Cycle, q wire.QPN, _ uint32, _ uint64) ccSend {
	s := &l.qps[q]
	o := l.step(s, ldcp.Event{Kind: ldcp.Send, NowNs: l.freq.NS(now)})
	if !o.allowed {
		r := ccSend{wait: engine.Never}
		switch o.block {
		case ldcp.BlockTimer:
			l.cnt.TimerWaits++
			r.wait = l.timerCycle(now, s)
		case ldcp.BlockWindow:
			l.cnt.WindowWaits++
		}
		return r
	}
	start, _, _ := l.seqPSN(s)
	return ccSend{ok: true, idx: s.chunk + uint64((o.psn-start)&psnMask), psn: o.psn, ect: o.ect}
}

func (l *ldcpCC) onAck(now engine.Cycle, q wire.QPN, base uint32, pkts uint64, psn uint32, nak, ece bool) ccAck {
	s := &l.qps[q]
	_, una0, _ := l.seqPSN(s)
	o := l.step(s, ldcp.Event{Kind: ldcp.Ack, NowNs: l.freq.NS(now), AckSeq: psn, ECE: ece, NAK: nak})
	switch {
	case o.stale:
		return ccAck{stale: true}
	case o.invalid:
		return ccAck{invalid: true}
	}
	l.count(o)
	_, una, nxt := l.seqPSN(s)
	r := ccAck{advanced: una != una0, inflight: una != nxt}
	if o.done {
		// The chunk is acknowledged: start the next one, or the message
		// is done.
		s.chunk += s.chunkLen
		if s.chunk < pkts {
			l.startChunk(now, s, base, pkts)
		} else {
			r.done = true
		}
	}
	return r
}

func (l *ldcpCC) onTimeout(now engine.Cycle, q wire.QPN) {
	l.count(l.step(&l.qps[q], ldcp.Event{Kind: ldcp.Timeout, NowNs: l.freq.NS(now)}))
}

func (l *ldcpCC) onTimer(engine.Cycle, wire.QPN) ccRate {
	return ccRate{cand: true, wait: engine.Never}
}

func (l *ldcpCC) onCNP(engine.Cycle, wire.QPN) ccRate { return ccRate{wait: engine.Never} }

func (l *ldcpCC) onSent(engine.Cycle, wire.QPN, uint32) (ccRate, bool) { return ccRate{}, false }

func (l *ldcpCC) onDone(wire.QPN, bool) bool { return true }

func (l *ldcpCC) rate(wire.QPN) uint64 { return l.line }

func (l *ldcpCC) seq(q wire.QPN, _ uint32) (una, nxt uint64) {
	s := &l.qps[q]
	start, u, x := l.seqPSN(s)
	return s.chunk + uint64((u-start)&psnMask), s.chunk + uint64((x-start)&psnMask)
}

func (l *ldcpCC) status(q wire.QPN, _ uint32, st *CCQPStatus) (w, r float64) {
	s := &l.qps[q]
	_, st.Una, st.Nxt = l.seqPSN(s)
	st.CwPkts = l.cwPackets(s)
	if l.fix != nil {
		st.Stage = s.fx.Stage
	} else {
		st.Stage = s.fl.Stage
	}
	return st.CwPkts * float64(l.mtu), l.gbps
}
