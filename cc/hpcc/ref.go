package hpcc

import (
	"fmt"
	"math"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// RefState is the float reference's per-flow state: the variables of the
// HPCC++ draft's pseudo-code (section 4.2) in float64, and the last
// telemetry L as raw wire records.
type RefState struct {
	Valid      bool    // false for a flow that has seen no telemetry yet
	NHops      int     // hop count of the stored telemetry
	W          float64 // window, bytes
	Wc         float64 // reference window, bytes
	U          float64 // normalized inflight bytes (EWMA)
	IncStage   int     // additive-increase stages since the last multiplicative step
	LastUpdate uint64  // lastUpdateSeq (sender) or lastUpdateTime (receiver)
	Hops       [MaxHopsLimit]telemetry.Hop
}

// RefOutput is what the float reference reports for one event.
type RefOutput struct {
	W, Wc, U       float64 // after the event (bytes, bytes, dimensionless)
	IncStage       int
	RateBytesPerNs float64 // R = W/T (line 27), bytes per ns
	First          bool    // the flow's first event: telemetry recorded, nothing measured
	MI             bool    // line 12's condition: multiplicative step
	UpdateWc       bool    // Wc (and incStage) committed this event
	Notify         bool    // receiver: a notification carrying W is sent (line 31)
	SelHop         uint8   // hop whose u' set U's target (NoHop if none)
	HopValid       uint8   // bit i: hop i produced a measurement
	Tau            float64 // tau after line 8, ns
	UTarget        float64 // u = max_i u'_i (line 6-7), before the EWMA
	HopU           [MaxHopsLimit]float64
}

// Reference is the float64 model of HPCC++: the draft's pseudo-code line by
// line, with the same edge-case rules as the golden datapath. It is the
// oracle of the property tests, not a hardware model.
type Reference struct {
	cfg  Config
	t    float64 // T, ns
	uMax float64 // u' clamp: the largest value of the U format
}

// NewReference validates cfg and returns the float reference for it.
func NewReference(cfg Config) (*Reference, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Reference{cfg: cfg, t: float64(cfg.BaseRTTNs), uMax: cfg.UMax()}, nil
}

// Config returns the reference's configuration.
func (r *Reference) Config() Config { return r.cfg }

// UMax is the clamp applied to u' (and therefore U) by both models: the
// largest value of Formats.U. The drafts do not bound U; a register does, so
// the float reference clamps at the same point to stay comparable.
func (c Config) UMax() float64 {
	f := c.Formats.U
	return math.Ldexp(1, f.I) - math.Ldexp(1, -f.F())
}

// InitialState returns the state of a flow that has seen no telemetry
// (Valid false; W = Wc = W_init, U = U_init, incStage = 0).
func (r *Reference) InitialState() RefState {
	return RefState{W: r.cfg.WInitBytes, Wc: r.cfg.WInitBytes, U: r.cfg.UInit}
}

// seqAfter reports a > b for serial numbers modulo 2^n (RFC 1982 style: a is
// after b when (a - b) mod 2^n is in [1, 2^(n-1))): the signed wrapping
// distance of fixedpoint.WrapDiffSigned is positive.
func seqAfter(a, b uint64, n int) bool { return fixedpoint.WrapDiffSigned(a, b, uint(n)) > 0 }

// timeElapsed returns (now - last) mod 2^n (fixedpoint.WrapDiff).
func timeElapsed(now, last uint64, n int) uint64 { return fixedpoint.WrapDiff(now, last, uint(n)) }

// hopValid applies the validity rule shared by both models (see the
// comment on NoHop) and returns the hop's dts when valid.
func (c Config) hopValid(cur, prev telemetry.Hop) (dts uint64, ok bool) {
	g, okSpeed := c.Encoding.SpeedGbps(cur.SpeedCode)
	if !okSpeed || g > c.MaxLinkSpeedGbps {
		return 0, false
	}
	if c.HopIDBits() > 0 && telemetry.Identity(c.Encoding, cur) != telemetry.Identity(c.Encoding, prev) {
		return 0, false
	}
	dts = telemetry.DeltaTsNs(c.Encoding, cur, prev)
	return dts, dts != 0 && dts <= c.MaxDeltaTsNs
}

// hopU is line 4-5 of MeasureInflight for one valid hop: txRate from the
// counter differences and u' = min(qlen, last qlen)/(B*T) + txRate/B, or
// the MultiQ three-case U of the slides, or with Sojourn (draft 9.4)
// min(sojourn, last sojourn)/T + txRate/B. Clamped at UMax.
func (r *Reference) hopU(cur, prev telemetry.Hop, dts uint64) float64 {
	e := r.cfg.Encoding
	g, _ := e.SpeedGbps(cur.SpeedCode)
	b := float64(g) / 8 // bytes per ns
	txRate := float64(telemetry.DeltaTxBytes(e, cur, prev)) / float64(dts)
	qlen := float64(min(telemetry.QlenBytes(e, cur), telemetry.QlenBytes(e, prev)))
	var u float64
	if r.cfg.Sojourn {
		// Draft 9.4: the queueing delay measured as the sojourn time
		// (egress - ingress timestamp, ns) in place of qlen/B.
		u = float64(min(cur.ResidenceNs, prev.ResidenceNs))/r.t + txRate/b
	} else if mq := r.cfg.MultiQ; mq.Enabled {
		wb := mq.ClassWeight * b
		switch {
		case txRate <= wb: // the class sends within its guaranteed rate
			u = qlen/(wb*r.t) + txRate/wb
		case qlen > mq.BacklogBytes: // above its guarantee and backlogged
			u = qlen/(txRate*r.t) + 1
		default: // above its guarantee, no backlog: halfway to B
			u = txRate / ((txRate + b) / 2)
		}
	} else {
		u = qlen/(b*r.t) + txRate/b
	}
	return math.Min(u, r.uMax)
}

// Update processes one event: NewAck (sender) or NewINT (receiver) with
// MeasureInflight and ComputeWind, and returns the new state and what
// happened. Edge cases (documented in docs/datapath.md): the first event of
// a flow only records telemetry and opens the first round; invalid hops
// produce no measurement; the first valid hop is selected even when its u'
// is 0; with no valid hop tau = 0 and U is unchanged; W is clamped to
// [W_min, W_max].
func (r *Reference) Update(st RefState, in Input) (RefState, RefOutput) {
	c := r.cfg
	nh := int(in.NHops)
	out := RefOutput{SelHop: NoHop}
	next := st
	if !st.Valid {
		// First event: nothing to difference against (HPCC authors'
		// simulator): record L, open the first round.
		next = r.InitialState()
		next.Valid = true
		if c.Mode == Sender {
			next.LastUpdate = in.SndNxt & mask64(c.SeqBits)
		} else {
			next.LastUpdate = in.NowNs & mask64(c.TimeBits)
		}
		next.NHops = nh
		next.Hops = storeHops(in, c.MaxHops)
		out.First = true
		out.W, out.Wc, out.U, out.IncStage = next.W, next.Wc, next.U, next.IncStage
		out.RateBytesPerNs = next.W / r.t
		return next, out
	}

	// MeasureInflight (lines 1-10).
	pathOK := nh == st.NHops && nh <= c.MaxHops
	u, tau := 0.0, 0.0
	for i := 0; i < c.MaxHops; i++ {
		if !pathOK || i >= nh {
			continue
		}
		dts, ok := c.hopValid(in.Hops[i], st.Hops[i])
		if !ok {
			continue
		}
		out.HopValid |= 1 << uint(i)
		up := r.hopU(in.Hops[i], st.Hops[i], dts)
		out.HopU[i] = up
		// Line 6: strictly greater, so ties keep the earlier hop; the first
		// valid hop is taken even at u' = 0 (the draft leaves tau unset when
		// no u' exceeds 0; taking it keeps U monotone in u' and lets an idle
		// path pull U down).
		if out.SelHop == NoHop || up > u {
			u, tau = up, float64(dts)
			out.SelHop = uint8(i)
		}
	}
	tau = math.Min(tau, r.t)          // line 8
	U := (1-tau/r.t)*st.U + tau/r.t*u // line 9
	out.Tau, out.UTarget = tau, u

	// NewAck line 22 / NewINT line 29: commit Wc this event?
	var updateWc bool
	if c.Mode == Sender {
		updateWc = seqAfter(in.Seq, st.LastUpdate, c.SeqBits)
	} else {
		updateWc = timeElapsed(in.NowNs, st.LastUpdate, c.TimeBits) > uint64(c.NotifyPeriod())
	}

	// ComputeWind (lines 11-20).
	wai := r.wai(in)
	mi := U >= c.Eta || st.IncStage >= c.MaxStage
	var w float64
	if mi {
		w = st.Wc/(U/c.Eta) + wai // line 13 (U = 0 gives +Inf, clamped below)
	} else {
		w = st.Wc + wai // line 17
	}
	w = math.Min(math.Max(w, c.WMinBytes), c.WMaxBytes)
	next.W, next.U = w, U
	if updateWc {
		next.Wc = w
		if mi {
			next.IncStage = 0 // line 15
		} else {
			next.IncStage = st.IncStage + 1 // line 19
		}
		if c.Mode == Sender {
			next.LastUpdate = in.SndNxt & mask64(c.SeqBits) // line 24
		} else {
			next.LastUpdate = in.NowNs & mask64(c.TimeBits) // line 32
			out.Notify = true                               // line 31
		}
	}
	// Line 27: R = W/T; L = ack.L.
	next.NHops = nh
	next.Hops = storeHops(in, c.MaxHops)
	out.W, out.Wc, out.U, out.IncStage = next.W, next.Wc, next.U, next.IncStage
	out.RateBytesPerNs = next.W / r.t
	out.MI, out.UpdateWc = mi, updateWc
	return next, out
}

// storeHops is line 27's L = ack.L: the records of the hops on the path
// (slots below NHops and MaxHops); other slots are cleared.
func storeHops(in Input, maxHops int) [MaxHopsLimit]telemetry.Hop {
	var l [MaxHopsLimit]telemetry.Hop
	for i := 0; i < maxHops && i < int(in.NHops); i++ {
		l[i] = in.Hops[i]
	}
	return l
}

// wai is W_ai for an event: WAIBytes, or with DynamicWAI the rule of
// thumb W_init*(1-eta)/N (draft section 5) with N = max(NFlows, 1).
func (r *Reference) wai(in Input) float64 {
	c := r.cfg
	if !c.DynamicWAI {
		return c.WAIBytes
	}
	n := max(in.NFlows&uint32(mask64(c.FlowCountBits)), 1)
	return c.WInitBytes * (1 - c.Eta) / float64(n)
}

func mask64(n int) uint64 {
	if n >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(n) - 1
}

// String renders a RefOutput for logs and counterexamples.
func (o RefOutput) String() string {
	return fmt.Sprintf("{W:%.6g Wc:%.6g U:%.9g inc:%d R:%.6g mi:%v upd:%v sel:%d valid:%#x tau:%g u:%.9g}",
		o.W, o.Wc, o.U, o.IncStage, o.RateBytesPerNs, o.MI, o.UpdateWc, o.SelHop, o.HopValid, o.Tau, o.UTarget)
}
