// Package trace records what a NIC model's blocks exchange: the frames at
// its port (pcap with nanosecond stamps, and a hex stream), the
// transactions between its blocks as vector streams (Rx -> module events,
// module -> scheduler acks, updates and doorbells, scheduler -> Tx PktSend
// commands) in the fieldtable conventions of package vectors, and every
// HPCC++ datapath transaction in the hpcc_update layout.
//
// The NIC's blocks do not know the recorder: each reports at its hook
// points through the Hooks interface, which is Nop (does nothing) unless
// tracing is on, so no block carries a tracer or tests for one. The
// datapath transactions reach the Recorder through the NIC's update
// observer (nicmodel.Options.OnHPCCUpdate's hook), not through Hooks.
package trace

import (
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/scheduler"
)

// Hooks are the points at which a NIC's blocks report what crosses between
// them. Every method is called from inside the engine's cycle now (for a
// frame leaving the Tx port, at is its departure cycle); pointers are valid
// only during the call.
type Hooks interface {
	// RxFrame: a frame entered the Rx port (the MAC took it) in cycle at.
	RxFrame(at engine.Cycle, data []byte)
	// TxFrame: a frame leaves the Tx port in cycle at.
	TxFrame(at engine.Cycle, data []byte)
	// Event: the CC module took a telemetry response event (ACK, NAK,
	// notification, probe reply) from the Rx pipeline.
	Event(now engine.Cycle, ev *pipeline.Event)
	// Ack: the module pushed acknowledged bytes to the scheduler.
	Ack(now engine.Cycle, a scheduler.Ack)
	// Update: the module pushed a window/rate update to the scheduler.
	Update(now engine.Cycle, u scheduler.Update)
	// Doorbell: the module pushed a doorbell to the scheduler.
	Doorbell(now engine.Cycle, d scheduler.Doorbell)
	// PktSend: a PktSend command went to the Tx pipeline, with the BTH A
	// bit it was given.
	PktSend(now engine.Cycle, c scheduler.PktSend, ackReq bool)
}

// Nop is the Hooks of a NIC that records nothing.
type Nop struct{}

// RxFrame does nothing.
func (Nop) RxFrame(engine.Cycle, []byte) {}

// TxFrame does nothing.
func (Nop) TxFrame(engine.Cycle, []byte) {}

// Event does nothing.
func (Nop) Event(engine.Cycle, *pipeline.Event) {}

// Ack does nothing.
func (Nop) Ack(engine.Cycle, scheduler.Ack) {}

// Update does nothing.
func (Nop) Update(engine.Cycle, scheduler.Update) {}

// Doorbell does nothing.
func (Nop) Doorbell(engine.Cycle, scheduler.Doorbell) {}

// PktSend does nothing.
func (Nop) PktSend(engine.Cycle, scheduler.PktSend, bool) {}

var (
	_ Hooks = Nop{}
	_ Hooks = (*Recorder)(nil)
)

// Stream returns the layout and the hex lines recorded so far of the
// vector stream name ("events", "acks", "updates", "doorbells",
// "pktsend"), and false if the recorder has no such stream (vectors off).
func (t *Recorder) Stream(name string) (fieldtable.Table, string, bool) {
	for _, s := range t.streams {
		if s.name == name {
			return s.table, s.hex.String(), true
		}
	}
	return fieldtable.Table{}, "", false
}
