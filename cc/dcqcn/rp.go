package dcqcn

import (
	"fmt"
	"math"
)

// Phase is a rate increase phase.
type Phase uint8

const (
	// NoPhase: no increase step.
	NoPhase Phase = 0
	// FastRecovery: RC = (RT + RC)/2, RT unchanged.
	FastRecovery Phase = 1
	// AdditiveIncrease: RT += R_AI, then RC = (RT + RC)/2.
	AdditiveIncrease Phase = 2
	// HyperIncrease: RT += i*R_HAI (paper; i = 1 in the Mellanox variant),
	// then RC = (RT + RC)/2.
	HyperIncrease Phase = 3
)

// String returns the phase's name.
func (p Phase) String() string {
	switch p {
	case NoPhase:
		return "none"
	case FastRecovery:
		return "fast_recovery"
	case AdditiveIncrease:
		return "additive_increase"
	case HyperIncrease:
		return "hyper_increase"
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// RPState is one flow's reaction-point state. The zero value is not a
// valid state; start from RP.InitialState.
type RPState struct {
	RC    float64 // current rate, bytes per ns
	RT    float64 // target rate, bytes per ns
	Alpha float64 // congestion estimate in [0,1]
	// Active: a CNP has been received; the timers run from the first CNP
	// (before it the flow is at line rate and an increase could change
	// nothing).
	Active bool
	// CNPSeen (Mellanox): a CNP arrived since the last alpha update.
	CNPSeen bool
	// DecPending (Mellanox): a CNP arrived since the last decrease check.
	DecPending bool
	// T and BC count the timer and byte-counter expirations since the last
	// cut (Mellanox: T is the timer stage counter).
	T, BC int
	// Bytes is the byte counter's accumulator (paper variant).
	Bytes uint64
	// Deadlines, ns (valid when Active; NextDecNs in the Mellanox variant,
	// NextIncNs once a cut armed the increase timer).
	NextAlphaNs, NextDecNs, NextIncNs uint64
	IncArmed                          bool
}

// RPUpdate is what one RP call did.
type RPUpdate struct {
	RateBytesPerNs float64 // RC after the call
	Changed        bool    // RC differs from before the call
	Cuts           int     // rate cuts applied
	Increases      int     // increase steps applied (timer and byte counter)
	Phase          Phase   // phase of the last increase step, NoPhase if none
	AlphaUpdates   int     // alpha EWMA updates (CNP or timer)
}

// RP is the DCQCN reaction point (the sender's rate controller) for one
// configuration. It is immutable; the per-flow state is RPState.
type RP struct {
	cfg              Config
	line, min        float64 // bytes per ns
	rai, rhai        float64 // bytes per ns
	alphaIv, decIv   uint64
	incIv            uint64
	f                int
	oneMinusG, gGain float64
}

// NewRP validates cfg and returns the reaction point.
func NewRP(cfg Config) (*RP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &RP{
		cfg: cfg, line: cfg.LineRateGbps / 8, min: cfg.MinRateGbps / 8,
		rai: cfg.RAIMbps / 8000, rhai: cfg.RHAIMbps / 8000,
		alphaIv: cfg.AlphaTimerNs, decIv: cfg.RateDecreaseIntervalNs, incIv: cfg.IncreaseTimerNs, f: cfg.F,
		oneMinusG: 1 - cfg.G, gGain: cfg.G,
	}, nil
}

// Config returns the configuration.
func (r *RP) Config() Config { return r.cfg }

// InitialState is a new flow: RC = RT = line rate, alpha = 1, no timers.
func (r *RP) InitialState() RPState { return RPState{RC: r.line, RT: r.line, Alpha: 1} }

// Gbps converts a rate in bytes per ns to Gbps.
func Gbps(bytesPerNs float64) float64 { return bytesPerNs * 8 }

// OnCNP processes a CNP received at now: first every timer due at or before
// now (Advance), then the CNP. Paper: cut RT = RC (if clamping), RC =
// max(MinRate, RC*(1 - alpha/2)), then alpha = (1-g)*alpha + g, counters and
// byte counter reset, increase timer re-armed to now + T, alpha timer to
// now + K. Mellanox: the first CNP sets alpha = 1 and starts the alpha and
// decrease-check timers (first ticks at now + their periods); every CNP sets
// the CNP-arrived bits that the next alpha update and decrease check read.
func (r *RP) OnCNP(st RPState, now uint64) (RPState, RPUpdate) {
	rc0 := st.RC
	st, up := r.advance(st, now)
	if r.cfg.Variant == Paper {
		st.Active = true
		r.cut(&st, now)
		st.Alpha = r.oneMinusG*st.Alpha + r.gGain
		st.NextAlphaNs = now + r.alphaIv
		up.Cuts++
		up.AlphaUpdates++
	} else {
		if !st.Active {
			st.Active = true
			st.Alpha = 1
			st.CNPSeen = false
			st.NextAlphaNs = now + r.alphaIv
			st.NextDecNs = now + r.decIv
		} else {
			st.CNPSeen = true
		}
		st.DecPending = true
	}
	return st, r.finish(st, up, rc0)
}

// cut applies a rate cut at time now.
func (r *RP) cut(st *RPState, now uint64) {
	if r.cfg.ClampTargetRate || st.T+st.BC > 0 {
		st.RT = st.RC
	}
	st.RC = math.Max(r.min, st.RC*(1-st.Alpha/2))
	st.T, st.BC, st.Bytes = 0, 0, 0
	st.NextIncNs, st.IncArmed = now+r.incIv, true
}

// OnSent counts bytes transmitted at now into the byte counter (paper
// variant, ByteCounterBytes > 0, after the first CNP): every B bytes is an
// increase event. Timers due at or before now are processed first.
func (r *RP) OnSent(st RPState, now, bytes uint64) (RPState, RPUpdate) {
	rc0 := st.RC
	st, up := r.advance(st, now)
	b := r.cfg.ByteCounterBytes
	if b == 0 || !st.Active {
		return st, r.finish(st, up, rc0)
	}
	st.Bytes += bytes
	for st.Bytes >= b {
		st.Bytes -= b
		st.BC++
		r.increase(&st, &up)
	}
	return st, r.finish(st, up, rc0)
}

// Advance processes every timer deadline at or before now, in time order
// (at equal times: alpha update, then decrease check, then increase timer),
// and returns the state at now.
func (r *RP) Advance(st RPState, now uint64) (RPState, RPUpdate) {
	rc0 := st.RC
	st, up := r.advance(st, now)
	return st, r.finish(st, up, rc0)
}

func (r *RP) finish(st RPState, up RPUpdate, rc0 float64) RPUpdate {
	up.RateBytesPerNs = st.RC
	up.Changed = st.RC != rc0
	return up
}

// NextWake returns the earliest deadline at which the rate can change
// without a CNP or a send (an increase tick, or a decrease check with a
// pending CNP), and false when there is none. Alpha updates alone never
// change the rate; Advance applies them when it runs.
func (r *RP) NextWake(st RPState) (uint64, bool) {
	if !st.Active {
		return 0, false
	}
	t, ok := uint64(math.MaxUint64), false
	if st.IncArmed && (st.RC < r.line || st.RT < r.line) {
		t, ok = st.NextIncNs, true
	}
	if r.cfg.Variant == Mellanox && st.DecPending && st.NextDecNs < t {
		t, ok = st.NextDecNs, true
	}
	return t, ok
}

// advance runs the timers. Runs of ticks that provably change nothing but
// a deadline or a saturating counter (alpha at a fixed point of the decay
// without a CNP;
// decrease checks without a pending CNP; increases with RC = RT = line
// rate) are skipped arithmetically, which gives the same state as ticking
// them one by one.
func (r *RP) advance(st RPState, now uint64) (RPState, RPUpdate) {
	var up RPUpdate
	if !st.Active {
		return st, up
	}
	mel := r.cfg.Variant == Mellanox
	for {
		// Pick the earliest due timer: alpha, decrease check, increase.
		const none = -1
		which, t := none, uint64(0)
		if st.NextAlphaNs <= now {
			which, t = 0, st.NextAlphaNs
		}
		if mel && st.NextDecNs <= now && (which == none || st.NextDecNs < t) {
			which, t = 1, st.NextDecNs
		}
		if st.IncArmed && st.NextIncNs <= now && (which == none || st.NextIncNs < t) {
			which, t = 2, st.NextIncNs
		}
		switch which {
		case none:
			return st, up
		case 0:
			if !st.CNPSeen && st.Alpha*r.oneMinusG == st.Alpha {
				// A fixed point of the decay (0, or the smallest
				// subnormal, which (1-g)*alpha rounds back to).
				k := (now-t)/r.alphaIv + 1
				st.NextAlphaNs += k * r.alphaIv
				continue
			}
			if mel && st.CNPSeen {
				st.Alpha = r.oneMinusG*st.Alpha + r.gGain
			} else {
				st.Alpha *= r.oneMinusG
			}
			st.CNPSeen = false
			st.NextAlphaNs += r.alphaIv
			up.AlphaUpdates++
		case 1:
			if !st.DecPending {
				k := (now-t)/r.decIv + 1
				st.NextDecNs += k * r.decIv
				continue
			}
			r.cut(&st, t)
			st.DecPending = false
			st.NextDecNs += r.decIv
			up.Cuts++
		case 2:
			if st.RC == r.line && st.RT == r.line && !(mel && st.DecPending) {
				// Every phase leaves RC = RT = line rate and only T
				// counts; no cut can come before now (no CNP is pending
				// and CNPs arrive only after Advance returns).
				k := (now-t)/r.incIv + 1
				st.T = satAdd(st.T, k)
				st.NextIncNs += k * r.incIv
				continue
			}
			st.T++
			st.NextIncNs += r.incIv
			r.increase(&st, &up)
		}
	}
}

func satAdd(a int, k uint64) int {
	if k > uint64(math.MaxInt32) || a > math.MaxInt32-int(k) {
		return math.MaxInt32
	}
	return a + int(k)
}

// increase applies one increase step after a counter was incremented.
// Paper (QCN phases, on the counts after the increment): both T and BC
// above F: hyper increase by (min(T, BC) - F)*R_HAI; one above F: additive
// increase; otherwise fast recovery. Mellanox (on the stage count before
// the increment, T - 1): below F fast recovery, equal additive, above
// hyper increase by R_HAI.
func (r *RP) increase(st *RPState, up *RPUpdate) {
	var ph Phase
	if r.cfg.Variant == Paper {
		switch {
		case st.T > r.f && st.BC > r.f:
			ph = HyperIncrease
			st.RT += float64(min(st.T, st.BC)-r.f) * r.rhai
		case st.T > r.f || st.BC > r.f:
			ph = AdditiveIncrease
			st.RT += r.rai
		default:
			ph = FastRecovery
		}
	} else {
		switch stage := st.T - 1; {
		case stage < r.f:
			ph = FastRecovery
		case stage == r.f:
			ph = AdditiveIncrease
			st.RT += r.rai
		default:
			ph = HyperIncrease
			st.RT += r.rhai
		}
	}
	st.RT = math.Min(st.RT, r.line)
	st.RC = math.Min((st.RT+st.RC)/2, r.line)
	up.Increases++
	up.Phase = ph
}

// NP is the DCQCN notification point (the receiver's CNP generator).
type NP struct{ intervalNs uint64 }

// NPState is one flow's notification-point state.
type NPState struct {
	Sent   bool   // a CNP has been sent for the flow
	LastNs uint64 // when the last CNP was sent
}

// NewNP validates cfg and returns the notification point.
func NewNP(cfg Config) (*NP, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &NP{intervalNs: cfg.CNPIntervalNs}, nil
}

// OnPacket processes a data packet of the flow arriving at now with its CE
// bit and reports whether a CNP is sent now: "if a marked packet arrives
// for a flow, and no CNP has been sent for the flow in the last N
// microseconds, a CNP is sent immediately" (DCQCN paper, NP algorithm).
func (n *NP) OnPacket(st NPState, now uint64, ce bool) (NPState, bool) {
	if !ce || st.Sent && now-st.LastNs < n.intervalNs {
		return st, false
	}
	return NPState{Sent: true, LastNs: now}, true
}
