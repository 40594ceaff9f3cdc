package nicmodel

import (
	"math"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// dcqcnCC is DCQCN's reaction point (docs/dcqcn.md) as the CC module's
// ccAlgorithm. There is no window: every packet is released (onSend) and
// R is the reaction point's current rate RC, updated on CNPs (onCNP, taken
// off the port by the CC port), on its own timers (onTimer: the RP's alpha
// and increase timers, dcqcn.RP.NextWake) and, in the paper variant, on
// the bytes sent (onSent: the byte counter). ACKs advance snd_una; NAKs
// and timeouts go back to it (RoCE go-back-N).
type dcqcnCC struct {
	freq engine.Freq
	rp   *dcqcn.RP
	// byteCounter: the RP counts bytes sent (DCQCN paper variant).
	byteCounter bool
	rr          rateReg
	qps         []dcqcnQP
	cnt         *CCCounters
}

// dcqcnQP is DCQCN's state of one QP (plain data): snd_una and snd_nxt as
// packet indices in the message, and the reaction point.
type dcqcnQP struct {
	una, nxt uint64
	rp       dcqcn.RPState
}

// newDCQCNCC builds DCQCN's reaction point of configuration c for qps QPs;
// rr is the scheduler's rate register.
func newDCQCNCC(c dcqcn.Config, freq engine.Freq, qps int, rr rateReg, cnt *CCCounters) (*dcqcnCC, error) {
	rp, err := dcqcn.NewRP(c)
	if err != nil {
		return nil, err
	}
	return &dcqcnCC{freq: freq, rp: rp, byteCounter: c.ByteCounterBytes > 0, rr: rr, qps: make([]dcqcnQP, qps), cnt: cnt}, nil
}

// result stores the reaction point's new state and says what the module
// is to do: check the rate, re-arm the RP's wake-up.
func (d *dcqcnCC) result(now engine.Cycle, s *dcqcnQP, st dcqcn.RPState, up dcqcn.RPUpdate) ccRate {
	s.rp = st
	d.cnt.RateCuts += uint64(up.Cuts)
	d.cnt.RateIncreases += uint64(up.Increases)
	r := ccRate{rate: true, wait: engine.Never}
	if t, ok := d.rp.NextWake(st); ok {
		r.wait = max(d.freq.CyclesNS(t), now+1)
	}
	return r
}

// onConnect restarts the QP's reaction point at line rate: a message on an
// idle QP is a new connection.
func (d *dcqcnCC) onConnect(q wire.QPN) { d.qps[q].rp = d.rp.InitialState() }

func (d *dcqcnCC) onStart(_ engine.Cycle, q wire.QPN, _ uint32, _ uint64) {
	s := &d.qps[q]
	s.una, s.nxt = 0, 0
}

func (d *dcqcnCC) onSend(_ engine.Cycle, q wire.QPN, base uint32, pkts uint64) ccSend {
	s := &d.qps[q]
	if s.nxt >= pkts {
		return ccSend{wait: engine.Never}
	}
	idx := s.nxt
	s.nxt++
	return ccSend{ok: true, idx: idx, psn: (base + uint32(idx)) & psnMask, ect: true}
}

func (d *dcqcnCC) onAck(_ engine.Cycle, q wire.QPN, base uint32, pkts uint64, psn uint32, nak, _ bool) ccAck {
	s := &d.qps[q]
	k := uint64((psn - (base+uint32(s.una))&psnMask) & psnMask)
	switch inflight := s.nxt - s.una; {
	case k >= 1<<23:
		return ccAck{stale: true}
	case k > inflight:
		return ccAck{invalid: true}
	}
	var r ccAck
	if k > 0 {
		s.una += k
		r.advanced, r.inflight = true, s.una != s.nxt
	}
	if nak {
		s.nxt = s.una
		d.cnt.GoBackN++
	}
	r.done = s.una == pkts
	return r
}

func (d *dcqcnCC) onTimeout(_ engine.Cycle, q wire.QPN) {
	s := &d.qps[q]
	s.nxt = s.una
	d.cnt.GoBackN++
}

func (d *dcqcnCC) onTimer(now engine.Cycle, q wire.QPN) ccRate {
	s := &d.qps[q]
	st, up := d.rp.Advance(s.rp, d.freq.NS(now))
	return d.result(now, s, st, up)
}

func (d *dcqcnCC) onCNP(now engine.Cycle, q wire.QPN) ccRate {
	s := &d.qps[q]
	st, up := d.rp.OnCNP(s.rp, d.freq.NS(now))
	return d.result(now, s, st, up)
}

// onSent counts the bytes sent in the paper variant's byte counter (an
// increase event every ByteCounterBytes).
func (d *dcqcnCC) onSent(now engine.Cycle, q wire.QPN, bytes uint32) (ccRate, bool) {
	if !d.byteCounter {
		return ccRate{}, false
	}
	s := &d.qps[q]
	st, up := d.rp.OnSent(s.rp, d.freq.NS(now), uint64(bytes))
	return d.result(now, s, st, up), true
}

// onDone stops the RP's timers when the QP goes idle (a message on an idle
// QP restarts it at line rate, so its recovery meanwhile cannot matter).
func (d *dcqcnCC) onDone(_ wire.QPN, idle bool) bool { return idle }

func (d *dcqcnCC) rate(q wire.QPN) uint64 { return d.rr.raw(d.qps[q].rp.RC) }

func (d *dcqcnCC) seq(q wire.QPN, _ uint32) (una, nxt uint64) {
	s := &d.qps[q]
	return s.una, s.nxt
}

func (d *dcqcnCC) status(q wire.QPN, base uint32, st *CCQPStatus) (w, r float64) {
	s := &d.qps[q]
	st.Una, st.Nxt = (base+uint32(s.una))&psnMask, (base+uint32(s.nxt))&psnMask
	st.RCGbps, st.RTGbps, st.Alpha = dcqcn.Gbps(s.rp.RC), dcqcn.Gbps(s.rp.RT), s.rp.Alpha
	return math.NaN(), st.RCGbps
}
