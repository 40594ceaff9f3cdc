package nicmodel

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// hpccCC is sender-based HPCC++ (cc=hpcc, draft section 4.2) as the HPCC++
// module's hpccAlgorithm: per QP the flow state of the golden datapath
// (hpcc.Datapath, model fixed) or of the float reference (model float).
// Every ACK carrying the path's telemetry (and every probe reply) is a
// datapath update (NewAck, lines 21-27): ack.seq is una in packets (the
// next PSN the receiver expects), snd_nxt the packets sent; the update's W
// and R = W/T go to the scheduler when the module retires it. An ACK
// without telemetry, or whose echoed stack holds no hop record (a packet
// that sampling switches left unstamped, network.SampleConfig; HPCC++
// draft section 6), updates nothing: W, U, Wc, the stored telemetry L and
// the round (lastUpdateSeq) stay as they are, and the ACK still advances
// una (counted NoTelemetry). Issuing it would be wrong: the datapath would
// store the empty stack as L, so the next ACK with telemetry would see a
// path change (hop count differs from L's) and measure nothing, and it
// would run ComputeWind on the stale U. The draft's update is per
// telemetry event (section 4.2, NewAck(ack.L)); the next ACK with
// telemetry differences against the last telemetry received, over the
// longer interval. NAKs update nothing.
type hpccCC struct {
	core     *ccCore
	fx       []hpcc.State    // model fixed, else nil
	fl       []hpcc.RefState // model float, else nil
	in       hpcc.Input
	onUpdate func(*HPCCUpdate) // the NIC's update observer (fixed model only; nil: none)
	captured HPCCUpdate        // its argument's storage
	cnt      *ModuleCounters
	guard    *intguard.Guard // the telemetry guard (nil: none)
	// MultiQ traffic classes (Config.MultiQClassWeights; nil: none):
	// classCores[j] runs class j's update, class[q] is QP q's class.
	classCores []*ccCore
	class      []uint8
	gcnt       GuardCounters
}

// newHPCCCC builds sender HPCC++ on core for qps QPs; onUpdate observes
// the fixed model's updates (nil: none).
func newHPCCCC(core *ccCore, qps int, onUpdate func(*HPCCUpdate), cnt *ModuleCounters) *hpccCC {
	h := &hpccCC{core: core, cnt: cnt}
	if core.model == Fixed {
		h.fx = make([]hpcc.State, qps)
		h.onUpdate = onUpdate
	} else {
		h.fl = make([]hpcc.RefState, qps)
		for i := range h.fl {
			h.fl[i] = core.ref.InitialState()
		}
	}
	return h
}

func (h *hpccCC) work(ev *pipeline.Event) bool {
	// An ACK (not a NAK) or a probe reply carrying the path's telemetry.
	return ev.HasINT && ev.NHops > 0 && (ev.Kind == pipeline.EventProbeReply || ev.Kind == pipeline.EventAck && ev.Syndrome.Type() == wire.AckTypeACK)
}

func (h *hpccCC) skipped(ev *pipeline.Event) {
	if ev.Kind == pipeline.EventAck && (!ev.HasINT || ev.NHops == 0) {
		h.cnt.NoTelemetry++
	}
}

func (h *hpccCC) issue(now engine.Cycle, qpn wire.QPN, conn uint32, una, sndNxt uint64, ev *pipeline.Event, e *inflight) {
	in := &h.in
	in.Seq, in.SndNxt = una, sndNxt
	in.NHops = uint8(min(ev.NHops, hpcc.MaxHopsLimit))
	in.Hops = ev.Hops
	if h.fx != nil {
		st := h.fx[qpn]
		if h.guard != nil {
			// The guard (docs/guard.md) rewrites the stored records and
			// the event's hop fields the update reads, or drops the event.
			var v intguard.Verdict
			st, *in, v = h.guard.Apply(st, *in)
			h.gcnt.count(&v)
			if v.DropEvent {
				e.drop = true
				return
			}
		}
		d := h.coreOf(qpn).d
		next, out := d.Update(st, *in)
		e.fx, e.out = next, fromFixed(out)
		if h.onUpdate != nil {
			h.capture(now, qpn, conn, d, st, in, next, out)
		}
	} else {
		c := h.coreOf(qpn)
		next, out := c.ref.Update(h.fl[qpn], *in)
		e.fl, e.out = next, c.fromFloat(out)
	}
	switch {
	case e.out.first:
		h.cnt.FirstEvents++
	case e.out.mi:
		h.cnt.MISteps++
	default:
		h.cnt.AISteps++
	}
	if e.out.updateWc {
		h.cnt.WcCommits++
	}
}

// capture hands a sender datapath update to the observer. The HPCCUpdate
// is scratch: valid only during the call.
func (h *hpccCC) capture(now engine.Cycle, qpn wire.QPN, conn uint32, d *hpcc.Datapath, st hpcc.State, in *hpcc.Input, next hpcc.State, out hpcc.Output) {
	u := &h.captured
	*u = HPCCUpdate{Cycle: now, QPN: qpn, Conn: conn, Datapath: d, State: st, Input: *in, Next: next, Output: out}
	h.onUpdate(u)
}

func (h *hpccCC) commit(e *inflight) {
	if h.fx != nil {
		h.fx[e.qpn] = e.fx
	} else {
		h.fl[e.qpn] = e.fl
	}
}

func (h *hpccCC) reset(q wire.QPN) {
	if h.fx != nil {
		h.fx[q] = hpcc.State{}
	} else {
		h.fl[q] = h.core.ref.InitialState()
	}
}

func (h *hpccCC) state(q wire.QPN) (hpcc.State, hpcc.RefState) {
	if h.fx != nil {
		return h.fx[q], hpcc.RefState{}
	}
	return hpcc.State{}, h.fl[q]
}
