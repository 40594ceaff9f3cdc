package nicmodel

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// HPCCUpdate is one HPCC++ datapath transaction of the fixed model, as
// Options.OnHPCCUpdate receives it: the flow state the datapath read, the
// event it was given, and the state and outputs it produced
// (hpcc.Datapath.Update(State, Input) = (Next, Output)), exactly what the
// hpcc_update vector layout (Datapath.InputTable / OutputTable) holds.
type HPCCUpdate struct {
	// Cycle is the cycle of the update: the cycle the sender's HPCC++
	// module took the event (sender), or the cycle the Rx pipeline's
	// dispatch stage called Rx-HPCC for a data packet (receiver).
	Cycle engine.Cycle
	// QPN is the local QP (flow state table entry).
	QPN wire.QPN
	// Receiver is true for Rx-HPCC (receiver-mode datapath, draft section
	// 6.2, cc=hpcc-rx) and false for the sender's module (section 4.2,
	// cc=hpcc).
	Receiver bool
	// Conn is the sender QP's connection number: incremented by each QP
	// reset (a message posted on an idle QP), which zeroes the flow state.
	// Within one (QPN, Conn) every update reads the state the previous one
	// wrote, the first reads the zero state (the module's read-after-write
	// hazard stall makes this exact). Always 0 for the receiver, whose
	// flow state is per QP and persists across connections.
	Conn uint32
	// Datapath is the golden datapath that computed the update (one per
	// NIC and role); its Config is the update's configuration.
	Datapath *hpcc.Datapath
	// State, Input: the datapath's operands; Next, Output: its results.
	State  hpcc.State
	Input  hpcc.Input
	Next   hpcc.State
	Output hpcc.Output
}

// captureReceiver hands a receiver datapath update to Rx-HPCC's observer.
func (r *rxHPCC) captureReceiver(now engine.Cycle, qpn wire.QPN, st hpcc.State, in *hpcc.Input, next hpcc.State, out hpcc.Output) {
	u := &r.captured
	*u = HPCCUpdate{Cycle: now, QPN: qpn, Receiver: true, Datapath: r.core.d, State: st, Input: *in, Next: next, Output: out}
	r.onUpdate(u)
}
