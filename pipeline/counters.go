package pipeline

import (
	"fmt"

	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// DropReason says where and why a pipeline discarded something. Every drop
// increments exactly one DropReason counter.
type DropReason uint8

// Drop reasons.
const (
	DropMalformed   DropReason = iota // Rx: wire.Decode rejected the frame (RxCounters.Malformed has the wire.Reason)
	DropUnknownFlow                   // Rx: DestQP is not a flow in the FlowTable; Tx: PktSend for an unknown flow
	DropIngressFull                   // Rx: parse stage full, IngressFull = Drop
	DropEventFull                     // Rx: HPCC++ module event FIFO full, OutputFull = Drop
	DropReplyFull                     // Rx: Tx reply FIFO full, OutputFull = Drop
	DropEgressFull                    // Tx: MAC FIFO full, EgressFull = Drop
	DropBadCommand                    // Tx: PktSend with Bytes > MTU, a probe with Bytes != 0, or an unknown kind
	numDropReasons
)

// NumDropReasons is the number of drop reasons, for counter arrays.
const NumDropReasons = int(numDropReasons)

var dropNames = [...]string{"malformed", "unknown-flow", "ingress-full", "event-full", "reply-full", "egress-full", "bad-command"}

// String returns the reason's short name (used in counter names).
func (r DropReason) String() string {
	if int(r) < len(dropNames) {
		return dropNames[r]
	}
	return fmt.Sprintf("DropReason(%d)", uint8(r))
}

// StallPoint says where a BackPressure stall happened.
type StallPoint uint8

// Stall points. A stall is counted once per entry that had to wait (the
// first cycle it could not move), so the count is the same whether or not
// the engine skips idle cycles.
const (
	StallIngress StallPoint = iota // Rx: a frame waited in the input queue for the parse stage
	StallParse                     // Rx: a parsed frame waited for the dispatch stage
	StallEvent                     // Rx: an event waited for the HPCC++ module FIFO
	StallReply                     // Rx: a reply waited for the Tx reply FIFO
	StallBuild                     // Tx: a built frame waited for the egress stage
	StallEgress                    // Tx: a frame waited for the MAC FIFO
	StallCommand                   // Tx: a reply or PktSend waited for the build stage
	numStallPoints
)

// NumStallPoints is the number of stall points.
const NumStallPoints = int(numStallPoints)

var stallNames = [...]string{"ingress", "parse", "event", "reply", "build", "egress", "command"}

// String returns the stall point's short name.
func (s StallPoint) String() string {
	if int(s) < len(stallNames) {
		return stallNames[s]
	}
	return fmt.Sprintf("StallPoint(%d)", uint8(s))
}

// RxCounters are the Rx pipeline's status registers. All counters are
// uint64 and wrap modulo 2^64.
type RxCounters struct {
	Frames    uint64                  // frames taken from the input queue (including those dropped at ingress)
	Bytes     uint64                  // their bytes (frame length without FCS)
	Class     [wire.NumClasses]uint64 // frames parsed, by class (ClassMalformed included)
	Malformed [wire.NumReasons]uint64 // malformed frames by wire.Reason
	WithINT   uint64                  // parsed frames that carried an INT shim
	Drops     [NumDropReasons]uint64  // discards, by reason
	Stalls    [NumStallPoints]uint64  // entries that waited at least one cycle, by point
	Events    uint64                  // events pushed to the HPCC++ module
	Replies   uint64                  // replies pushed to the Tx pipeline
	CCCalls   uint64                  // RxCC.OnTelemetry calls
	Notifies  uint64                  // notifications requested by RxCC
}

// TxCounters are the Tx pipeline's status registers. All counters are
// uint64 and wrap modulo 2^64.
type TxCounters struct {
	Commands    uint64                 // PktSend commands taken
	Replies     uint64                 // replies taken from the Rx pipeline
	Frames      [NumFrameKinds]uint64  // frames handed to the MAC FIFO, by kind
	Bytes       uint64                 // their bytes
	Coalesced   uint64                 // data replies absorbed without a frame (acknowledged by a later ACK or notification)
	AckTimeouts uint64                 // ACKs sent by the delayed-ACK timer
	Drops       [NumDropReasons]uint64 // discards, by reason
	Stalls      [NumStallPoints]uint64 // entries that waited at least one cycle, by point
}

// FrameKind is the kind of a frame the Tx pipeline built.
type FrameKind uint8

// Frame kinds.
const (
	FrameData FrameKind = iota
	FrameAck
	FrameNotify
	FrameProbe
	FrameProbeReply
	numFrameKinds
)

// NumFrameKinds is the number of frame kinds.
const NumFrameKinds = int(numFrameKinds)

var frameKindNames = [...]string{"data", "ack", "notify", "probe", "probe-reply"}

// String names the kind.
func (k FrameKind) String() string {
	if int(k) < len(frameKindNames) {
		return frameKindNames[k]
	}
	return fmt.Sprintf("FrameKind(%d)", uint8(k))
}
