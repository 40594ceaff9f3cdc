package ldcp

import (
	"fmt"
	"math"
)

// RefState is the float reference's per-flow state: the draft's cw in
// float64 and the sender's sequence registers as integers.
type RefState struct {
	Stage Stage
	Cw    float64 // congestion window, packets
	Start uint32  // PSN of the message's first packet
	Una   uint32  // snd_una: oldest unacknowledged PSN
	Nxt   uint32  // snd_nxt: next PSN to send
	End   uint32  // PSN after the message's last packet
	// NextSendNs is the sub-packet timer's deadline in ns, in
	// [0, 2^TimeBits): when cw < 1 a packet may leave at or after it.
	NextSendNs float64
}

// RefOutput is what the float reference reports for one event.
type RefOutput struct {
	Cw    float64 // cw after the event, packets
	Stage Stage   // stage after the event
	Rule  Rule    // window rule applied by an Ack (NoRule otherwise)
	N     uint32  // packets the Ack acknowledged, clamped to NMax (the n of Eq. (2))

	Allowed bool   // Send: the packet may leave now
	Block   Block  // Send: why not
	PSN     uint32 // Send: the PSN transmitted
	ECT     bool   // Send: the packet is ECN-capable (false: ECN-incapable, WRED-droppable)
	Last    bool   // Send: the packet is the message's last

	Done    bool // snd_una reached the message end (every packet acknowledged)
	Invalid bool // the event was ignored: Start with MsgPkts = 0, an event in stage Idle, or an Ack beyond snd_nxt
	Stale   bool // an Ack older than snd_una, ignored
	FullAck bool // transition 2: a full IW acknowledged in fast start, cw = IW
	Loss    bool // transition 1: loss (NAK or timeout) in fast start, cw = packets acknowledged
	GoBackN bool // snd_nxt went back to snd_una (NAK or timeout)

	Sub        bool    // cw < 1 after the event
	TimerArmed bool    // the sub-packet timer was (re)armed: NextSendNs = now + RTT/cw
	IntervalNs float64 // RTT/cw when TimerArmed, ns
}

// Reference is the float64 model of the LDCP sender: the draft's rules
// written directly, with the same decisions as the golden datapath where
// the draft is silent. It is the oracle of the property tests, not a
// hardware model.
type Reference struct {
	cfg      Config
	seqMask  uint32
	msgMask  uint32
	timeMod  float64 // 2^TimeBits
	timeMask uint64
}

// NewReference validates cfg and returns the float reference for it.
func NewReference(cfg Config) (*Reference, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reference{
		cfg:      cfg,
		seqMask:  uint32(mask64(cfg.SeqBits)),
		msgMask:  uint32(mask64(cfg.MsgPktsBits())),
		timeMod:  math.Ldexp(1, cfg.TimeBits),
		timeMask: mask64(cfg.TimeBits),
	}, nil
}

// Config returns the reference's configuration.
func (r *Reference) Config() Config { return r.cfg }

// InitialState returns the state of a flow before its first Start (stage
// Idle, everything zero).
func (r *Reference) InitialState() RefState { return RefState{} }

func mask64(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// Window is the per-ACK window adjustment of the stable stage for an ACK
// acknowledging n >= 1 packets (n is clamped to NMax), draft section 2.2:
//
//	cw >= 1, ECE = 0:  cw = min(cw + n*alpha/cw, CwMax)     Eq. (1), (2)
//	cw >= 1, ECE = 1:  cw = max(cw - n*beta, gamma)          Eq. (1), (2)
//	cw <  1, ECE = 0:  cw = min(cw + n*gamma, CwMax)         sub-packet increase
//	cw <  1, ECE = 1:  cw = max(gamma, eta*cw)               sub-packet decrease
//
// The floor gamma on the MD rule is the draft's minimum window; the
// sub-packet increase takes n steps (one per acknowledged packet, as Eq.
// (2) scales Eq. (1)); the sub-packet decrease is applied once per marked
// ACK (with immediate ACKs on CE only the last packet is marked).
func (r *Reference) Window(cw float64, ece bool, n uint64) (float64, Rule) {
	c := &r.cfg
	nf := float64(min(n, c.NMax()))
	switch {
	case cw >= 1 && !ece:
		return math.Min(cw+nf*c.Alpha/cw, c.CwMaxPkts), RuleAI
	case cw >= 1:
		return math.Max(cw-nf*c.Beta, c.Gamma), RuleMD
	case !ece:
		return math.Min(cw+nf*c.Gamma, c.CwMaxPkts), RuleSubAI
	}
	return math.Max(c.Gamma, c.Eta*cw), RuleSubMD
}

// serialDiff returns a - b for TimeBits-wide wrapping times, read as a
// signed difference in [-2^(TimeBits-1), 2^(TimeBits-1)).
func (r *Reference) serialDiff(a, b float64) float64 {
	d := math.Mod(a-b, r.timeMod)
	if d < 0 {
		d += r.timeMod
	}
	if d >= r.timeMod/2 {
		d -= r.timeMod
	}
	return d
}

// lossCw is the window after a fast-start loss (transition 1): the packets
// acknowledged before the loss, at least 1 (the draft gives no value for
// zero; one packet is the smallest window the ACK clock can run on) and at
// most CwMax.
func (r *Reference) lossCw(acked uint32) float64 {
	return math.Min(math.Max(float64(acked), 1), r.cfg.CwMaxPkts)
}

// Update processes one event and returns the new state and what happened.
// The rules (draft sections 2.2, 2.3, 3.1; decisions where the draft is
// silent are marked and listed in docs/ldcp.md):
//
//   - Start: stage FastStart, cw = IW, start = una = nxt = Seq,
//     end = Seq + MsgPkts.
//   - Send: refused in Idle, when nxt = end, when cw >= 1 and
//     inflight + 1 > cw (a whole packet must fit), or when cw < 1 and now
//     is before the sub-packet deadline. A packet leaves ECN-capable in the
//     stable stage, and in fast start when it is the IW-th packet or later
//     or the message's last (the last fast-start packet, section 3.1);
//     otherwise ECN-incapable. With cw < 1 the timer is re-armed:
//     deadline = now + RTT/cw.
//   - Ack: AckSeq must lie in [una, nxt] (serial); older is Stale, beyond
//     nxt is Invalid, both ignored. n = AckSeq - una. In fast start cw stays
//     IW; a NAK ends the stage with cw = acknowledged packets (transition 1)
//     and go-back-N; una - start >= IW ends it with cw = IW (transition 2).
//     In the stable stage an ACK with n >= 1 applies Window (the ECE of a
//     NAK included); an ACK that takes cw from >= 1 to < 1 arms the timer;
//     a NAK sets nxt = una (go-back-N).
//   - Timeout: go-back-N (nxt = una); in fast start transition 1; in the
//     stable stage cw = min(cw, 1) (RFC 5681's response to a timeout; the
//     draft is silent).
func (r *Reference) Update(st RefState, ev Event) (RefState, RefOutput) {
	c := &r.cfg
	sm := r.seqMask
	now := ev.NowNs & r.timeMask
	next := st
	var out RefOutput
	switch ev.Kind & 3 {
	case Start:
		msg := ev.MsgPkts & r.msgMask
		if msg == 0 {
			out.Invalid = true
			break
		}
		seq := ev.Seq & sm
		next = RefState{Stage: FastStart, Cw: float64(c.IWPkts), Start: seq, Una: seq, Nxt: seq, End: (seq + msg) & sm, NextSendNs: float64(now)}
	case Send:
		inflight := (st.Nxt - st.Una) & sm
		switch {
		case st.Stage == Idle:
			out.Block = BlockIdle
		case st.Nxt&sm == st.End&sm:
			out.Block = BlockNoData
		case st.Cw >= 1 && float64(inflight)+1 > st.Cw:
			out.Block = BlockWindow
		case st.Cw < 1 && r.serialDiff(float64(now), st.NextSendNs) < 0:
			out.Block = BlockTimer
		}
		if out.Block != NotBlocked {
			break
		}
		psn := st.Nxt & sm
		out.Allowed, out.PSN = true, psn
		out.Last = (psn+1)&sm == st.End&sm
		off := (psn - st.Start) & sm
		out.ECT = st.Stage == Stable || off >= c.IWPkts-1 || out.Last
		next.Nxt = (psn + 1) & sm
		if st.Cw < 1 {
			r.arm(&next, &out, now)
		}
	case Ack:
		if st.Stage == Idle {
			out.Invalid = true
			break
		}
		ack := ev.AckSeq & sm
		d := (ack - st.Una) & sm
		inflight := (st.Nxt - st.Una) & sm
		if d > inflight {
			if d >= 1<<uint(c.SeqBits-1) {
				out.Stale = true
			} else {
				out.Invalid = true
			}
			break
		}
		next.Una = ack
		out.N = uint32(min(uint64(d), c.NMax()))
		if st.Stage == FastStart {
			acked := (ack - st.Start) & sm
			switch {
			case ev.NAK:
				next.Stage, next.Cw, next.Nxt = Stable, r.lossCw(acked), ack
				out.Loss, out.GoBackN = true, true
			case acked >= c.IWPkts:
				next.Stage, next.Cw = Stable, float64(c.IWPkts)
				out.FullAck = true
			}
			break
		}
		if d > 0 {
			next.Cw, out.Rule = r.Window(st.Cw, ev.ECE, uint64(d))
			if st.Cw >= 1 && next.Cw < 1 {
				r.arm(&next, &out, now)
			}
		}
		if ev.NAK {
			next.Nxt = ack
			out.GoBackN = true
		}
	case Timeout:
		switch st.Stage {
		case Idle:
			out.Invalid = true
		case FastStart:
			next.Stage, next.Cw = Stable, r.lossCw((st.Una-st.Start)&sm)
			out.Loss = true
		default:
			next.Cw = math.Min(st.Cw, 1)
		}
		if st.Stage != Idle {
			next.Nxt = st.Una & sm
			out.GoBackN = true
		}
	}
	out.Cw, out.Stage = next.Cw, next.Stage
	out.Sub = next.Cw < 1
	out.Done = next.Stage != Idle && next.Una&sm == next.End&sm
	return next, out
}

// arm re-arms the sub-packet timer: deadline = now + RTT/cw (draft section
// 2.2: "ticked out by a timer, whose timeout is set as RTT/cw").
func (r *Reference) arm(next *RefState, out *RefOutput, now uint64) {
	iv := float64(r.cfg.BaseRTTNs) / next.Cw
	out.TimerArmed, out.IntervalNs = true, iv
	next.NextSendNs = math.Mod(float64(now)+iv, r.timeMod)
}

// String renders a RefOutput for logs and counterexamples.
func (o RefOutput) String() string {
	return fmt.Sprintf("{cw:%.9g stage:%s rule:%s n:%d allowed:%v block:%s psn:%d ect:%v last:%v done:%v inv:%v stale:%v full:%v loss:%v gbn:%v sub:%v armed:%v iv:%.6g}",
		o.Cw, o.Stage, o.Rule, o.N, o.Allowed, o.Block, o.PSN, o.ECT, o.Last, o.Done, o.Invalid, o.Stale, o.FullAck, o.Loss, o.GoBackN, o.Sub, o.TimerArmed, o.IntervalNs)
}
