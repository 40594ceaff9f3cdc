package pipeline

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Frame is one Ethernet frame on a NIC port (without FCS; see pipeline/wire).
// The Tx pipeline makes a new Data buffer per frame (allocated, or taken
// from an engine.Buffers free list with Tx.UseBuffers), which the consumer
// then owns. The Rx pipeline only reads Data; with Rx.ReleaseTo it also
// takes ownership of the frames of its input and releases their buffers
// for reuse once parsed.
type Frame struct {
	Data []byte
}

// FrameSource is the Rx pipeline's input: an engine.FIFO[Frame] (a MAC
// FIFO) or an engine.TimedQueue[Frame] (a link) both implement it.
type FrameSource interface {
	CanPop(now engine.Cycle) bool
	Pop(now engine.Cycle) (Frame, bool)
}

// EventKind says what an [Event] reports to the HPCC++ module.
type EventKind uint8

// Event kinds (section 7.2: "A telemetry response packet can be an ACK
// containing inband telemetry, or a dedicated telemetry response prob
// packet"; section 6.2: notifications carrying W).
const (
	EventAck        EventKind = iota + 1 // an ACK (or NAK), with echoed telemetry when HasINT
	EventNotify                          // an Rx-HPCC notification: Window is W; it also acknowledges PSN
	EventProbeReply                      // a probe reply with echoed telemetry; acknowledges nothing
)

// String names the kind.
func (k EventKind) String() string {
	switch k {
	case EventAck:
		return "ack"
	case EventNotify:
		return "notify"
	case EventProbeReply:
		return "probe-reply"
	}
	return fmt.Sprintf("EventKind(%d)", uint8(k))
}

// Event is the telemetry response event the Rx pipeline hands to the HPCC++
// module for one received ACK, notification or probe reply (section 7.2,
// "telemetry response event"; the module runs NewAck, section 4.2 line 21,
// or applies W).
type Event struct {
	Kind     EventKind
	Flow     wire.QPN      // local QPN of the flow (the packet's BTH DestQP)
	PSN      wire.PSN      // ACK/notify: the acknowledged PSN (ack.seq); probe reply: the probe's PSN
	MSN      wire.MSN      // ACK/notify: AETH message sequence number
	Syndrome wire.Syndrome // ACK/notify: AETH syndrome (ACK, RNR NAK or NAK)
	ECNEcho  bool          // BTH BECN: the receiver saw CE on data this ACK covers
	Window   uint32        // EventNotify: W from the receiver, bytes
	Arrival  engine.Cycle  // cycle the frame left the Rx input queue

	HasINT   bool                        // telemetry present (ACK with echo, probe reply)
	Encoding telemetry.Encoding          // record encoding when HasINT
	Exceeded bool                        // a switch could not add its record (shim E flag)
	NHops    int                         // records in Hops
	Hops     [wire.MaxHops]telemetry.Hop // path order, Hops[:NHops] valid
}

// HopList returns the valid hop records (a slice of e.Hops).
func (e *Event) HopList() []telemetry.Hop { return e.Hops[:e.NHops] }

// ReplyKind says what the receiver side must send back.
type ReplyKind uint8

// Reply kinds.
const (
	ReplyData  ReplyKind = iota + 1 // a data packet was received: ACK policy applies; Notify asks for a notification
	ReplyProbe                      // a probe was received: send a probe reply now
)

// String names the kind.
func (k ReplyKind) String() string {
	switch k {
	case ReplyData:
		return "data"
	case ReplyProbe:
		return "probe"
	}
	return fmt.Sprintf("ReplyKind(%d)", uint8(k))
}

// Reply is what the Rx pipeline passes to the Tx pipeline on the receiver
// side (section 7.2, receiver side flow: "the RX pipeline extracts the
// network status, and the flow parameters from the packet and passes it to
// the TX pipeline").
type Reply struct {
	Kind    ReplyKind
	Flow    wire.QPN // local QPN (the received packet's DestQP)
	PSN     wire.PSN // the received packet's PSN
	AckReq  bool     // the data packet's A bit: acknowledge now
	EndMsg  bool     // the data packet ends a message (SEND Last/Only): the MSN advances
	CE      bool     // the data packet arrived with ECN CE
	Notify  bool     // Rx-HPCC: send a notification carrying Window (replaces the ACK)
	Window  uint32   // W for the notification, bytes
	Arrival engine.Cycle

	HasINT   bool
	Encoding telemetry.Encoding
	MaxHops  int  // the request's MaxHops, copied into the echo
	Exceeded bool // the request's E flag, copied into the echo
	NHops    int
	Hops     [wire.MaxHops]telemetry.Hop
}

// SendKind selects what a PktSend asks the Tx pipeline to build.
type SendKind uint8

// Send kinds.
const (
	SendData  SendKind = iota // an RC SEND Only data packet of Bytes payload bytes
	SendProbe                 // a telemetry probe (section 6.1); Bytes must be 0
)

// PktSend is the scheduler's command to the Tx pipeline (section 7.2:
// "the scheduler invokes for the flow a PktSend command to TX pipeline").
// The scheduler owns the send sequence state, so it supplies the PSN.
type PktSend struct {
	Kind   SendKind
	Flow   wire.QPN // local QPN
	PSN    wire.PSN // BTH PSN (data: consumed; probe: informational, the flow's next PSN)
	Bytes  uint32   // payload bytes, <= TxConfig.MTU
	AckReq bool     // set the BTH A bit (ask for an immediate ACK)
}

// RxCC is the receiver-based HPCC hook (HPCC++ section 6.2, lines 28-34):
// the Rx pipeline calls OnTelemetry for every data or probe packet that
// carries telemetry, in arrival order, at the cycle the packet enters the
// dispatch stage. The implementation owns its per-flow state
// (lastUpdateTime, W, Wc, ...) and returns notify = true, with the window w
// in bytes, when a notification must be sent (line 29-31: at most once per
// T); otherwise it updates W locally (line 34). hops is in path order and
// valid only during the call. Implementations must not retain it, must be
// deterministic, and must not panic.
type RxCC interface {
	OnTelemetry(now engine.Cycle, flow wire.QPN, psn wire.PSN, enc telemetry.Encoding, hops []telemetry.Hop) (notify bool, w uint32)
}
