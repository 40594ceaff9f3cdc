package ldcpvec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/vectors"
)

// Name is the manifest model name, ldcp.ModelName ("ldcp_update").
const Name = ldcp.ModelName

// Model is the vector model of the LDCP sender update (draft
// 001_..., sections 2.2, 2.3, 3.1; docs/ldcp.md).
type Model struct {
	cfg     ldcp.Config
	d       *ldcp.Datapath
	in, out fieldtable.Table

	classes []vectors.Class
	gens    []func(emit func(ldcp.State, ldcp.Event) error) error
	detect  []func(o *obs) bool
	points  []vectors.CoverPoint
	bins    struct{ kind, rule, block, stage, n, recip, scale, limit int }

	// constants, raw Formats.Cw unless noted
	one, gammaCw, cwMax, iw uint64
	cwMask                  uint64
	cwF                     uint
	nMax                    uint64
	seqMask                 uint32
	half                    uint32
	timeMask                uint64
	recipW, recipK          int

	recip      *fixedpoint.Reciprocal // the datapath's 1/cw unit (RecipUnit)
	recipTable []uint64               // its table entries (raw, Entry format)
	alphaRaw   uint64                 // alpha (raw, in its constant's format)
	alphaF     int                    // alpha's fraction bits
	rttRaw     uint64                 // T, the base RTT (raw, in its constant's format)
	rttF       int                    // T's fraction bits
	recipMax   uint64                 // its output format's maximum (raw)
	edge       edges                  // solved edge points (edges.go)
}

// New builds the vector model for cfg (validated by ldcp.NewDatapath).
func New(cfg ldcp.Config) (*Model, error) {
	d, err := ldcp.NewDatapath(cfg)
	if err != nil {
		return nil, fmt.Errorf("ldcpvec: %w", err)
	}
	m := &Model{cfg: cfg, d: d, in: d.InputTable(), out: d.OutputTable()}
	fc := cfg.Formats.Cw
	m.cwF = uint(fc.F())
	m.cwMask = fieldtable.Mask(fc.W)
	m.nMax = cfg.NMax()
	m.seqMask = uint32(fieldtable.Mask(cfg.SeqBits))
	m.half = 1 << uint(cfg.SeqBits-1)
	m.timeMask = fieldtable.Mask(cfg.TimeBits)
	for _, k := range d.Constants() {
		switch k.Name {
		case "one":
			m.one = k.Raw
		case "cw_max":
			m.cwMax = k.Raw
		case "iw":
			m.iw = k.Raw
		case "gamma":
			m.gammaCw = k.Raw << uint(fc.F()-k.Format.F())
		case "alpha":
			m.alphaRaw, m.alphaF = k.Raw, k.Format.F()
		case "t":
			m.rttRaw, m.rttF = k.Raw, k.Format.F()
		}
	}
	u := d.RecipUnit()
	m.recipW, m.recipK = u.Config.In.W, u.Config.TableBits
	if m.recip, err = fixedpoint.NewReciprocal(u.Config); err != nil {
		return nil, fmt.Errorf("ldcpvec: 1/cw unit: %w", err)
	}
	m.recipMax = uint64(1)<<uint(u.Config.Out.W) - 1
	m.recipTable = u.Table
	if err := m.solveEdges(); err != nil {
		return nil, err
	}
	if err := m.solveSeeds(); err != nil {
		return nil, err
	}
	m.solveExact()
	m.buildClasses()
	m.buildPoints()
	return m, nil
}

// Open rebuilds the model from a manifest's model name and configuration
// (a vectors.OpenFunc).
func Open(name string, config json.RawMessage) (vectors.Model, error) {
	if name != Name {
		return nil, fmt.Errorf("ldcpvec: unknown model %q", name)
	}
	cfg, err := ldcp.LoadConfig(bytes.NewReader(config))
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

// Datapath returns the golden datapath the model evaluates.
func (m *Model) Datapath() *ldcp.Datapath { return m.d }

// Name implements vectors.Model.
func (m *Model) Name() string { return Name }

// Input implements vectors.Model: ldcp.Datapath.InputTable.
func (m *Model) Input() fieldtable.Table { return m.in }

// Output implements vectors.Model: ldcp.Datapath.OutputTable.
func (m *Model) Output() fieldtable.Table { return m.out }

// Config implements vectors.Model: the full ldcp.Config.
func (m *Model) Config() any { return m.cfg }

// Classes implements vectors.Model.
func (m *Model) Classes() []vectors.Class { return m.classes }

// CoverPoints implements vectors.Model.
func (m *Model) CoverPoints() []vectors.CoverPoint { return m.points }

// obs is one evaluated transaction.
type obs struct {
	st, next ldcp.State
	ev       ldcp.Event
	out      ldcp.Output
}

func (m *Model) add(name, doc string, gen func(emit func(ldcp.State, ldcp.Event) error) error, detect func(o *obs) bool) {
	m.classes = append(m.classes, vectors.Class{Name: name, Doc: doc, Level: 1, Detected: detect != nil})
	m.gens = append(m.gens, gen)
	m.detect = append(m.detect, detect)
}

// cw returns the raw register of a window in packets.
func (m *Model) cw(pkts float64) uint64 { return m.d.CwRaw(pkts) }

// stable is a stable-stage state with the given cw register, una, inflight
// packets and plenty of data left.
func (m *Model) stable(cw uint64, una, inflight uint32) ldcp.State {
	return ldcp.State{Stage: ldcp.Stable, Cw: cw, Start: (una - 500) & m.seqMask, Una: una & m.seqMask, Nxt: (una + inflight) & m.seqMask, End: (una + 100000) & m.seqMask, NextSend: 7000}
}

// fastStart is a fast-start state: acked packets acknowledged, sent packets
// sent since start, msg packets in the message.
func (m *Model) fastStart(start, acked, sent, msg uint32) ldcp.State {
	sm := m.seqMask
	return ldcp.State{Stage: ldcp.FastStart, Cw: m.iw, Start: start & sm, Una: (start + acked) & sm, Nxt: (start + sent) & sm, End: (start + msg) & sm}
}

func ackEv(st ldcp.State, n uint32, ece, nak bool) ldcp.Event {
	return ldcp.Event{Kind: ldcp.Ack, NowNs: 50000, AckSeq: st.Una + n, ECE: ece, NAK: nak}
}

func each(emit func(ldcp.State, ldcp.Event) error, vs ...struct {
	st ldcp.State
	ev ldcp.Event
}) error {
	for _, v := range vs {
		if err := emit(v.st, v.ev); err != nil {
			return err
		}
	}
	return nil
}

type sv = struct {
	st ldcp.State
	ev ldcp.Event
}

// buildClasses defines the directed corner classes. Each generator emits a
// few (state, event) pairs; each detector recognises the class from the
// transaction's inputs and outputs alone.
func (m *Model) buildClasses() {
	iw := m.cfg.IWPkts
	sm := m.seqMask
	fix := func(st ldcp.State, ev ldcp.Event) ldcp.Event {
		ev.AckSeq &= sm
		return ev
	}
	m.add("start", "a Start: fast start with cw = IW", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Start, Seq: 10, MsgPkts: 1}},
			sv{m.stable(m.cw(3), 77, 2), ldcp.Event{Kind: ldcp.Start, Seq: sm, MsgPkts: 1<<uint(m.cfg.MsgPktsBits()) - 1}},
			sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Start, Seq: 5, MsgPkts: iw}})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Start && !o.out.Invalid })
	m.add("start_empty", "a Start of 0 packets: invalid, ignored", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Start, Seq: 10}})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Start && o.out.Invalid })
	m.add("send_first_rtt", "a fast-start packet before the IW-th: ECN-incapable", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.fastStart(0, 0, 0, 1000), ldcp.Event{Kind: ldcp.Send}}, sv{m.fastStart(sm-2, 0, 5, 1000), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool { return o.out.Allowed && !o.out.ECT })
	m.add("send_iw_th", "the IW-th fast-start packet: ECN-capable", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.fastStart(0, 0, iw-1, 1000), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool {
		return o.out.Allowed && o.st.Stage == ldcp.FastStart && (o.st.Nxt-o.st.Start)&sm == iw-1 && !o.out.Last
	})
	m.add("send_short_last", "the last packet of a message shorter than IW: ECN-capable", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.fastStart(0, 0, 2, 3), ldcp.Event{Kind: ldcp.Send}}, sv{m.fastStart(sm, 0, 0, 1), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool {
		return o.out.Allowed && o.st.Stage == ldcp.FastStart && o.out.Last && (o.st.Nxt-o.st.Start)&sm < iw-1
	})
	m.add("send_after_first_rtt", "fast start, beyond the IW-th packet: ECN-capable", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.fastStart(0, 1, iw, 1000), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool {
		return o.out.Allowed && o.st.Stage == ldcp.FastStart && (o.st.Nxt-o.st.Start)&sm >= iw
	})
	m.add("send_stable", "a stable-stage packet within the window", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.stable(m.cw(5), 100, 3), ldcp.Event{Kind: ldcp.Send}}, sv{m.stable(m.cw(1), 100, 0), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool { return o.out.Allowed && o.st.Stage == ldcp.Stable && !o.out.TimerArmed })
	m.add("send_window_full", "inflight + 1 > cw: refused", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.stable(m.cw(2.5), 100, 2), ldcp.Event{Kind: ldcp.Send}}, sv{m.fastStart(0, 0, iw, 1000), ldcp.Event{Kind: ldcp.Send}},
			sv{m.stable(m.one, 100, 1), ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool { return o.out.Block == ldcp.BlockWindow })
	m.add("send_timer_wait", "cw < 1, before the deadline: refused", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.stable(m.cw(0.5), 100, 0)
		st.NextSend = 20000
		st2 := st
		st2.NextSend = 5
		return each(emit, sv{st, ldcp.Event{Kind: ldcp.Send, NowNs: 19999}}, sv{st2, ldcp.Event{Kind: ldcp.Send, NowNs: m.timeMask - 3}})
	}, func(o *obs) bool { return o.out.Block == ldcp.BlockTimer })
	m.add("send_timer_due", "cw < 1, at or after the deadline: sent, timer re-armed RTT/cw", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.stable(m.cw(0.5), 100, 0)
		st.NextSend = 20000
		st2 := m.stable(m.gammaCw, 100, 3)
		st2.NextSend = m.timeMask - 1
		return each(emit, sv{st, ldcp.Event{Kind: ldcp.Send, NowNs: 20000}}, sv{st2, ldcp.Event{Kind: ldcp.Send, NowNs: 2}})
	}, func(o *obs) bool { return o.out.Allowed && o.out.TimerArmed })
	m.add("send_no_data", "every packet sent: refused", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.stable(m.cw(5), 100, 2)
		st.End = st.Nxt
		return each(emit, sv{st, ldcp.Event{Kind: ldcp.Send}})
	}, func(o *obs) bool { return o.out.Block == ldcp.BlockNoData })
	m.add("idle", "an event on a flow that has not started: ignored", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Send}}, sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Ack, AckSeq: 1}}, sv{ldcp.State{}, ldcp.Event{Kind: ldcp.Timeout}})
	}, func(o *obs) bool { return o.st.Stage == ldcp.Idle && o.ev.Kind != ldcp.Start })
	m.add("ack_first_rtt", "an ACK in fast start before IW is acknowledged: cw stays IW", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.fastStart(0, 3, iw, 1000)
		return each(emit, sv{st, fix(st, ackEv(st, 1, true, false))})
	}, func(o *obs) bool {
		return o.ev.Kind == ldcp.Ack && o.st.Stage == ldcp.FastStart && o.next.Stage == ldcp.FastStart && o.out.N > 0
	})
	m.add("full_iw", "transition 2: IW acknowledged, stable with cw = IW", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.fastStart(0, iw-1, iw+5, 1000)
		st2 := m.fastStart(sm-10, iw-4, iw+5, 1000)
		return each(emit, sv{st, fix(st, ackEv(st, 1, false, false))}, sv{st2, fix(st2, ackEv(st2, 6, true, false))})
	}, func(o *obs) bool { return o.out.FullAck })
	m.add("fast_start_loss", "transition 1: NAK in fast start, cw = packets acknowledged, go-back-N", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.fastStart(0, 10, iw, 1000)
		return each(emit, sv{st, fix(st, ackEv(st, 2, false, true))})
	}, func(o *obs) bool { return o.out.Loss && o.ev.Kind == ldcp.Ack && (o.ev.AckSeq-o.st.Start)&sm > 0 })
	m.add("fast_start_loss_first", "NAK of the first packet: cw = 1", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.fastStart(0, 0, iw, 1000)
		return each(emit, sv{st, fix(st, ackEv(st, 0, false, true))})
	}, func(o *obs) bool { return o.out.Loss && o.ev.Kind == ldcp.Ack && o.ev.AckSeq&sm == o.st.Start })
	m.add("rule_ai", "cw >= 1, ECE = 0: cw += n*alpha/cw", func(emit func(ldcp.State, ldcp.Event) error) error {
		a, b := m.stable(m.one, 200, 1), m.stable(m.cw(37.3), 200, 20)
		return each(emit, sv{a, ackEv(a, 1, false, false)}, sv{b, ackEv(b, 1, false, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleAI && o.next.Cw < m.cwMax })
	m.add("rule_ai_clamp", "AI reaching CwMax", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cwMax-1, 200, 20)
		return each(emit, sv{a, ackEv(a, 4, false, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleAI && o.next.Cw == m.cwMax })
	m.add("rule_md", "cw >= 1, ECE = 1: cw -= n*beta", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(20), 300, 10)
		return each(emit, sv{a, ackEv(a, 1, true, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleMD && o.next.Cw > m.gammaCw && o.next.Cw >= m.one })
	m.add("enter_sub", "MD taking cw below 1: timer armed RTT/cw", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.one, 300, 1)
		return each(emit, sv{a, ackEv(a, 1, true, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleMD && o.out.TimerArmed && o.next.Cw > m.gammaCw })
	m.add("rule_md_floor", "MD floored at gamma", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(2), 300, 10)
		return each(emit, sv{a, ackEv(a, 8, true, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleMD && o.next.Cw == m.gammaCw })
	m.add("rule_sub_ai", "cw < 1, ECE = 0: cw += n*gamma", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.gammaCw, 300, 1)
		return each(emit, sv{a, ackEv(a, 1, false, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleSubAI && o.next.Cw < m.one })
	m.add("leave_sub", "SubAI taking cw to 1 or above", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.one-1, 300, 1)
		return each(emit, sv{a, ackEv(a, 1, false, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleSubAI && o.next.Cw >= m.one })
	m.add("rule_sub_md", "cw < 1, ECE = 1: cw = eta*cw", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.one-1, 300, 1)
		return each(emit, sv{a, ackEv(a, 1, true, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleSubMD && o.next.Cw > m.gammaCw })
	m.add("rule_sub_md_floor", "sub-packet decrease floored at gamma", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.gammaCw, 300, 1)
		return each(emit, sv{a, ackEv(a, 1, true, false)})
	}, func(o *obs) bool { return o.out.Rule == ldcp.RuleSubMD && o.next.Cw == m.gammaCw })
	m.add("delayed_ack", "an ACK of n > 1 packets (Eq. (2))", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 400, 8)
		return each(emit, sv{a, ackEv(a, 4, false, false)}, sv{a, ackEv(a, 4, true, false)})
	}, func(o *obs) bool { return o.out.Rule != ldcp.NoRule && o.out.N > 1 })
	if m.nMax < uint64(m.cfg.CwMaxPkts) {
		m.add("n_clamp", "an ACK of more than 2^AckPktsBits-1 packets: n saturates", func(emit func(ldcp.State, ldcp.Event) error) error {
			a := m.stable(m.cwMax, 400, uint32(m.nMax)+1)
			return each(emit, sv{a, ackEv(a, uint32(m.nMax)+1, true, false)})
		}, func(o *obs) bool {
			return o.ev.Kind == ldcp.Ack && o.out.Rule != ldcp.NoRule && uint64((o.ev.AckSeq-o.st.Una)&sm) > m.nMax
		})
	}
	m.add("stable_nak", "a NAK in the stable stage: go-back-N", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 400, 8)
		return each(emit, sv{a, ackEv(a, 3, true, true)}, sv{a, ackEv(a, 0, false, true)})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Ack && o.st.Stage == ldcp.Stable && o.out.GoBackN })
	m.add("ack_duplicate", "an ACK of 0 new packets: no change", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 400, 8)
		return each(emit, sv{a, ackEv(a, 0, true, false)})
	}, func(o *obs) bool {
		return o.ev.Kind == ldcp.Ack && o.st.Stage == ldcp.Stable && !o.out.Invalid && !o.out.Stale && o.out.N == 0 && !o.ev.NAK
	})
	m.add("ack_stale", "an ACK older than snd_una: ignored", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 3, 8)
		return each(emit, sv{a, ldcp.Event{Kind: ldcp.Ack, AckSeq: (a.Una - 5) & sm}})
	}, func(o *obs) bool { return o.out.Stale })
	m.add("ack_beyond", "an ACK beyond snd_nxt: invalid, ignored", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 3, 8)
		return each(emit, sv{a, ackEv(a, 9, false, false)})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Ack && o.out.Invalid && o.st.Stage != ldcp.Idle })
	m.add("psn_wrap", "an ACK across the PSN wrap", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), sm-2, 8)
		return each(emit, sv{a, fix(a, ackEv(a, 5, false, false))})
	}, func(o *obs) bool {
		return o.ev.Kind == ldcp.Ack && o.out.N > 0 && o.next.Una < o.st.Una && o.st.Stage != ldcp.Idle
	})
	m.add("timeout_fast_start", "a timeout in fast start: transition 1 from snd_una", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.fastStart(0, 20, iw, 1000), ldcp.Event{Kind: ldcp.Timeout}})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Timeout && o.out.Loss })
	m.add("timeout_stable", "a timeout in the stable stage: cw = min(cw, 1), go-back-N", func(emit func(ldcp.State, ldcp.Event) error) error {
		return each(emit, sv{m.stable(m.cw(30), 10, 20), ldcp.Event{Kind: ldcp.Timeout}}, sv{m.stable(m.cw(0.25), 10, 2), ldcp.Event{Kind: ldcp.Timeout}})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Timeout && o.st.Stage == ldcp.Stable })
	m.add("done", "the ACK that completes the message", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(10), 400, 8)
		a.End = a.Nxt
		b := m.fastStart(0, 0, 3, 3)
		return each(emit, sv{a, ackEv(a, 8, false, false)}, sv{b, ackEv(b, 3, false, false)})
	}, func(o *obs) bool { return o.ev.Kind == ldcp.Ack && o.out.Done && o.st.Una != o.st.End })
	m.add("time_wrap", "a timer deadline that wraps 2^TimeBits", func(emit func(ldcp.State, ldcp.Event) error) error {
		a := m.stable(m.cw(0.5), 100, 0)
		a.NextSend = m.timeMask - 100
		return each(emit, sv{a, ldcp.Event{Kind: ldcp.Send, NowNs: m.timeMask - 50}})
	}, func(o *obs) bool { return o.out.TimerArmed && o.next.NextSend < o.ev.NowNs&m.timeMask })
	m.buildEdgeClasses()
	// Level 2: cw register bit patterns x ACK sizes, both ECE values, from
	// a stable state with enough packets in flight.
	m.classes = append(m.classes, vectors.Class{Name: "pattern_cw_n", Doc: "cw bit patterns x packets acknowledged, ECE 0 and 1", Level: 2})
	m.gens = append(m.gens, func(emit func(ldcp.State, ldcp.Event) error) error {
		for _, cw := range vectors.Patterns(m.cfg.Formats.Cw.W, m.cwMask) {
			for _, n := range []uint32{1, 2, 3, uint32(min(m.nMax, 200))} {
				for _, ece := range []bool{false, true} {
					a := m.stable(cw, 1000, n)
					if err := emit(a, ackEv(a, n, ece, false)); err != nil {
						return err
					}
				}
			}
			a := m.stable(cw, 1000, 0)
			a.NextSend = 0
			if err := emit(a, ldcp.Event{Kind: ldcp.Send, NowNs: 1}); err != nil {
				return err
			}
		}
		return nil
	})
	m.detect = append(m.detect, nil)
}

func (m *Model) buildPoints() {
	k := m.recipK
	m.points = []vectors.CoverPoint{
		{Name: "kind", Doc: "event kind", Bins: 4, Labels: []string{"start", "send", "ack", "timeout"}},
		{Name: "rule", Doc: "window rule applied", Bins: 5, Labels: []string{"none", "ai", "md", "sub_ai", "sub_md"}},
		{Name: "block", Doc: "send decision", Bins: 5, Labels: []string{"sent", "idle", "no_data", "window", "timer"}},
		{Name: "stage", Doc: "stage after the event", Bins: 3, Labels: []string{"idle", "fast_start", "stable"}},
		{Name: "n", Doc: "packets acknowledged by an ACK", Bins: 4, Labels: []string{"zero", "one", "two_to_seven", "eight_or_more"}},
		{Name: "recip_cw", Doc: "1/cw table entry read (AI ACKs and timer arms)", Bins: 1 << uint(k)},
		{Name: "timer_cw_scale", Doc: "bit length of the cw a timer arm reads 1/cw of (0 .. F(Cw): every leading-zero count of the 1/cw normalizer below 1 packet)", Bins: m.cfg.Formats.Cw.F() + 1},
		{Name: "limits", Doc: "a limit of the datapath reached: n clamped to NMax, MD floored at gamma, AI clamped to CwMax, 1/cw saturated on a timer arm, loss window clamped to CwMax",
			Bins: 5, Labels: []string{"n_clamped", "md_floored", "ai_clamped", "recip_saturated", "loss_clamped"}},
	}
	offs, _ := vectors.PointOffsets(m.points)
	m.bins.kind, m.bins.rule, m.bins.block, m.bins.stage, m.bins.n, m.bins.recip = offs[0], offs[1], offs[2], offs[3], offs[4], offs[5]
	m.bins.scale, m.bins.limit = offs[6], offs[7]
}

// Directed implements vectors.Model: every class's generator in class
// order, up to level.
func (m *Model) Directed(level int, emit func(class int, in []uint64) error) error {
	word := make([]uint64, m.in.Words())
	for c, cl := range m.classes {
		if cl.Level > level {
			continue
		}
		err := m.gens[c](func(st ldcp.State, ev ldcp.Event) error {
			if err := m.d.PackInput(st, ev, word); err != nil {
				return fmt.Errorf("ldcpvec: class %s: %w", cl.Name, err)
			}
			return emit(c, word)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Random implements vectors.Model: constrained-random transactions. One in
// eight is every field uniformly random within its width; the others are a
// reachable-looking state (stage weighted to stable, cw log-uniform in
// [gamma, CwMax] or near 1, sequence registers consistent, PSNs anywhere)
// and an event of a random kind with its fields near the state's (ACKs
// around [una - 2, nxt + 2], deadlines near now).
func (m *Model) Random(r *vectors.Rand, in []uint64) error {
	if r.Chance(1, 8) {
		for _, f := range m.in.Fields {
			fieldtable.PutBits(in, f.Offset, f.Width, r.Bits(f.Width))
		}
		return nil
	}
	sm := m.seqMask
	var st ldcp.State
	switch r.Below(8) {
	case 0:
		st.Stage = ldcp.Idle
	case 1, 2:
		st.Stage = ldcp.FastStart
	default:
		st.Stage = ldcp.Stable
	}
	switch r.Below(4) {
	case 0:
		st.Cw = m.gammaCw + r.Below(m.one-m.gammaCw+64)
	case 1:
		st.Cw = m.one - 32 + r.Below(64)
	default:
		st.Cw = m.gammaCw + r.LogUniform(m.cwMax-m.gammaCw)
	}
	if st.Stage == ldcp.FastStart {
		st.Cw = m.iw
	}
	iw := m.cfg.IWPkts
	st.Start = uint32(r.Bits(m.cfg.SeqBits))
	acked := uint32(r.LogUniform(uint64(iw) * 4))
	if st.Stage == ldcp.FastStart {
		acked = uint32(r.Below(uint64(iw)))
	}
	inflight := uint32(r.LogUniform(uint64(m.cfg.CwMaxPkts) + 4))
	st.Una = (st.Start + acked) & sm
	st.Nxt = (st.Una + inflight) & sm
	st.End = (st.Nxt + uint32(r.LogUniform(1000))) & sm
	now := r.Bits(m.cfg.TimeBits)
	st.NextSend = (now + r.Range(0, 2*uint64(m.cfg.BaseRTTNs)*8) - uint64(m.cfg.BaseRTTNs)*8) & m.timeMask
	ev := ldcp.Event{Kind: ldcp.Kind(r.Below(4)), NowNs: now}
	if r.Chance(1, 16) {
		ev.Kind = ldcp.Start
	} else if ev.Kind == ldcp.Start {
		ev.Kind = ldcp.Ack
	}
	switch ev.Kind {
	case ldcp.Start:
		ev.Seq, ev.MsgPkts = uint32(r.Bits(m.cfg.SeqBits)), uint32(r.LogUniform(fieldtable.Mask(m.cfg.MsgPktsBits())))
	case ldcp.Ack:
		ev.AckSeq = (st.Una + uint32(r.Range(0, uint64(inflight)+4)) - 2) & sm
		ev.ECE, ev.NAK = r.Chance(1, 2), r.Chance(1, 8)
	}
	return m.d.PackInput(st, ev, in)
}

// NewEvaluator implements vectors.Model.
func (m *Model) NewEvaluator() (vectors.Evaluator, error) { return &eval{m: m}, nil }

type eval struct {
	m *Model
	o obs
}

// Eval implements vectors.Evaluator: unpack, run the golden datapath, pack,
// detect the classes and count the cover bins.
func (e *eval) Eval(in, out []uint64, h *vectors.Hits) error {
	m := e.m
	o := &e.o
	var err error
	if o.st, o.ev, err = m.d.UnpackInput(in); err != nil {
		return err
	}
	o.next, o.out = m.d.Update(o.st, o.ev)
	if err := m.d.PackOutput(o.next, o.out, out); err != nil {
		return err
	}
	for c, det := range m.detect {
		if det != nil && det(o) {
			h.Hit(c)
		}
	}
	b := m.bins
	h.Count(b.kind + int(o.ev.Kind&3))
	h.Count(b.rule + int(o.out.Rule))
	if o.ev.Kind&3 == ldcp.Send {
		h.Count(b.block + int(o.out.Block))
	}
	h.Count(b.stage + int(min(o.next.Stage, ldcp.Stable)))
	if o.ev.Kind&3 == ldcp.Ack && !o.out.Invalid && !o.out.Stale && o.st.Stage != ldcp.Idle {
		switch n := o.out.N; {
		case n == 0:
			h.Count(b.n)
		case n == 1:
			h.Count(b.n + 1)
		case n < 8:
			h.Count(b.n + 2)
		default:
			h.Count(b.n + 3)
		}
	}
	// The 1/cw unit is read by an AI ACK (on the cw before) and by a timer
	// arm (on the cw after).
	if o.out.Rule == ldcp.RuleAI {
		h.Count(b.recip + m.recipIndex(o.st.Cw))
	}
	if o.out.TimerArmed {
		h.Count(b.recip + m.recipIndex(o.next.Cw))
		if l := bits.Len64(o.next.Cw & m.cwMask); l <= int(m.cwF) {
			h.Count(b.scale + l)
		}
		if m.recipOf(o.next.Cw) == m.recipMax {
			h.Count(b.limit + 3)
		}
	}
	if o.ev.Kind&3 == ldcp.Ack && !o.out.Invalid && !o.out.Stale && o.st.Stage != ldcp.Idle &&
		uint64((o.ev.AckSeq-o.st.Una)&m.seqMask) > m.nMax {
		h.Count(b.limit)
	}
	switch {
	case o.out.Rule == ldcp.RuleMD && o.next.Cw == m.gammaCw:
		h.Count(b.limit + 1)
	case o.out.Rule == ldcp.RuleAI && o.next.Cw == m.cwMax:
		h.Count(b.limit + 2)
	case o.out.Loss && o.next.Cw == m.cwMax:
		h.Count(b.limit + 4)
	}
	return nil
}

// recipIndex is the table index the 1/cw unit reads for cw: the TableBits
// bits after the leading one (0 for cw = 0).
func (m *Model) recipIndex(cw uint64) int {
	cw &= m.cwMask
	if cw == 0 {
		return 0
	}
	p := bits.Len64(cw) - 1
	mant := cw << uint(m.recipW-1-p)
	return int(mant >> uint(m.recipW-1-m.recipK) & (1<<uint(m.recipK) - 1))
}
