package nicmodel

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// RxHPCCCounters are the receiver-side HPCC++ status registers (wrapping
// modulo 2^64).
type RxHPCCCounters struct {
	Calls       uint64 // data packets with telemetry processed (NewINT, section 6.2 line 28)
	Notifies    uint64 // notifications requested (line 31: more than P, default T, since the last)
	FirstEvents uint64 // a QP's first telemetry (recorded only)
	MISteps     uint64 // multiplicative steps (line 12 true)
	AISteps     uint64 // additive steps
	BadQP       uint64 // calls for a QPN >= qps (ignored)
	// NoHops counts data packets whose stack holds no hop record (left
	// unstamped by sampling switches, network.SampleConfig): they update
	// nothing and notify nothing (as the sender's NoTelemetry ACKs; see
	// hpccCC).
	NoHops uint64
}

// rxHPCC is receiver-based HPCC (HPCC++ section 6.2, lines 28-34), the
// pipeline.RxCC the Rx pipeline calls for every data packet carrying
// telemetry, at the cycle the packet enters its dispatch stage (so its
// timing is the dispatch stage's). It keeps one flow state per QP, runs the
// receiver-mode datapath (or the float reference) with now = the cycle's
// start in ns (engine.Freq.NS, truncated, wrapping at hpcc.time_bits) and,
// with hpcc.dynamic_w_ai, N = the QPs that received telemetry in the last
// rx_hpcc.flow_window_ns; it requests a notification carrying floor(W) bytes
// when the datapath commits (line 29: now > lastUpdateTime + P, the
// notification period hpcc.notify_period_ns, T by default). With
// Config.Guard the telemetry integrity guard checks each packet's hops
// before the update, as on the sender's path (hpccCC).
type rxHPCC struct {
	core *ccCore
	freq engine.Freq
	fx   []hpcc.State
	fl   []hpcc.RefState
	in   hpcc.Input
	// Concurrent-flow count for the dynamic W_ai: lastSeen[q] is the ns of
	// q's latest telemetry plus one (0: never); seen holds (ns, q) of every
	// call within the window, oldest first; active counts QPs whose
	// lastSeen is within the window.
	dyn      bool
	windowNs uint64
	lastSeen []uint64
	seen     ring[seenEntry]
	active   uint32
	cnt      RxHPCCCounters
	onUpdate func(*HPCCUpdate) // Options.OnHPCCUpdate (fixed model only)
	captured HPCCUpdate        // its argument's storage
	guard    *intguard.Guard   // the telemetry guard (Config.Guard; nil: none; fixed model only)
	gcnt     GuardCounters     // its registers
}

type seenEntry struct {
	ns  uint64
	qpn wire.QPN
}

func newRxHPCC(core *ccCore, freq engine.Freq, qps int, windowNs uint64) *rxHPCC {
	r := &rxHPCC{core: core, freq: freq, dyn: core.cfg.DynamicWAI, windowNs: windowNs}
	if core.model == Fixed {
		r.fx = make([]hpcc.State, qps)
	} else {
		r.fl = make([]hpcc.RefState, qps)
		for i := range r.fl {
			r.fl[i] = core.ref.InitialState()
		}
	}
	if r.dyn {
		r.lastSeen = make([]uint64, qps)
	}
	return r
}

// flows updates the concurrent-flow count for a call of QP q at nowNs and
// returns N, the current packet's QP included.
func (r *rxHPCC) flows(q wire.QPN, nowNs uint64) uint32 {
	for r.seen.len() > 0 && nowNs-r.seen.front().ns >= r.windowNs {
		e := r.seen.pop()
		if r.lastSeen[e.qpn] == e.ns+1 {
			r.lastSeen[e.qpn] = 0
			r.active--
		}
	}
	if r.lastSeen[q] == 0 {
		r.active++
	}
	r.lastSeen[q] = nowNs + 1
	r.seen.push(seenEntry{ns: nowNs, qpn: q})
	return r.active
}

// OnTelemetry implements pipeline.RxCC.
func (r *rxHPCC) OnTelemetry(now engine.Cycle, flow wire.QPN, psn wire.PSN, enc telemetry.Encoding, hops []telemetry.Hop) (bool, uint32) {
	q := int(flow)
	if q >= len(r.fx)+len(r.fl) {
		r.cnt.BadQP++
		return false, 0
	}
	if len(hops) == 0 {
		r.cnt.NoHops++
		return false, 0
	}
	r.cnt.Calls++
	in := &r.in
	in.NowNs = r.freq.NS(now)
	in.NFlows = 0
	if r.dyn {
		in.NFlows = r.flows(flow, in.NowNs)
	}
	in.NHops = uint8(min(len(hops), hpcc.MaxHopsLimit))
	in.Hops = [hpcc.MaxHopsLimit]telemetry.Hop{}
	copy(in.Hops[:], hops)
	var out ccOut
	if r.fx != nil {
		st := r.fx[q]
		if r.guard != nil {
			// The guard (docs/guard.md) rewrites the stored records and
			// the packet's hop fields the update reads, or drops the
			// event: no update is written back and nothing is notified.
			var v intguard.Verdict
			st, *in, v = r.guard.Apply(st, *in)
			r.gcnt.count(&v)
			if v.DropEvent {
				return false, 0
			}
		}
		next, o := r.core.d.Update(st, *in)
		r.fx[q] = next
		out = fromFixed(o)
		if r.onUpdate != nil {
			r.captureReceiver(now, flow, st, in, next, o)
		}
	} else {
		next, o := r.core.ref.Update(r.fl[q], *in)
		r.fl[q] = next
		out = r.core.fromFloat(o)
	}
	switch {
	case out.first:
		r.cnt.FirstEvents++
	case out.mi:
		r.cnt.MISteps++
	default:
		r.cnt.AISteps++
	}
	if !out.notify {
		return false, 0
	}
	r.cnt.Notifies++
	return true, r.core.windowBytes(out.w)
}

// hpccRxCC is the sender's side of receiver-based HPCC++ (cc=hpcc-rx) as
// the HPCC++ module's hpccAlgorithm: the receiver's Rx-HPCC (rxHPCC above)
// computes W and notifies it; the sender applies each notification's W
// with R = W/T through the same multiplier as the datapath's line 27
// (core is a sender-mode copy of the configuration). The sender keeps no
// flow state.
type hpccRxCC struct {
	core *ccCore
	cnt  *ModuleCounters
}

func (h *hpccRxCC) work(ev *pipeline.Event) bool { return ev.Kind == pipeline.EventNotify }

func (h *hpccRxCC) skipped(*pipeline.Event) {}

func (h *hpccRxCC) issue(_ engine.Cycle, _ wire.QPN, _ uint32, _, _ uint64, ev *pipeline.Event, e *inflight) {
	w := h.core.windowFromBytes(ev.Window)
	if h.core.model == Float {
		e.out = ccOut{w: w, r: quantize(float64(ev.Window)/float64(h.core.cfg.BaseRTTNs), h.core.fR.F(), h.core.rMax)}
	} else {
		e.out = ccOut{w: w, r: h.core.rate(w)}
	}
	h.cnt.NotifyApply++
}

func (h *hpccRxCC) commit(*inflight) {}
func (h *hpccRxCC) reset(wire.QPN)   {}
func (h *hpccRxCC) state(wire.QPN) (hpcc.State, hpcc.RefState) {
	return hpcc.State{}, hpcc.RefState{}
}
