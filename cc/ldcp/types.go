package ldcp

import "fmt"

// Kind is the kind of event the sender state machine processes.
type Kind uint8

const (
	// Start begins a message of MsgPkts packets at PSN Seq: the flow enters
	// the fast-start stage with cw = IW (draft section 2.3). Any previous
	// state is discarded.
	Start Kind = 0
	// Send asks whether packet snd_nxt may be transmitted at NowNs. If so,
	// the output says which PSN and ECN codepoint it carries and snd_nxt
	// advances; if not, the state is unchanged and Block says why.
	Send Kind = 1
	// Ack processes an ACK (or, with NAK, a go-back-N NAK) whose AckSeq is
	// the receiver's next expected PSN (cumulative) and whose ECE bit echoes
	// CE (draft section 2.2).
	Ack Kind = 2
	// Timeout is the NIC's retransmission timer: go-back-N from snd_una; in
	// fast start it also ends the stage as a detected loss.
	Timeout Kind = 3
)

// String returns "start", "send", "ack" or "timeout".
func (k Kind) String() string {
	switch k {
	case Start:
		return "start"
	case Send:
		return "send"
	case Ack:
		return "ack"
	case Timeout:
		return "timeout"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Stage is the per-flow stage (2 bits in the flow table).
type Stage uint8

const (
	// Idle: no message has started (the zero state).
	Idle Stage = 0
	// FastStart: the first-RTT stage of zero-RTT bandwidth acquisition
	// (draft section 2.3): cw = IW, ACKs do not adjust cw.
	FastStart Stage = 1
	// Stable: the congestion-avoidance stage (section 2.2), per-ACK window
	// adjustment.
	Stable Stage = 2
)

// String returns "idle", "fast_start" or "stable".
func (s Stage) String() string {
	switch s {
	case Idle:
		return "idle"
	case FastStart:
		return "fast_start"
	case Stable:
		return "stable"
	}
	return fmt.Sprintf("Stage(%d)", uint8(s))
}

// Rule is the window rule an ACK applied (2 bits plus "none").
type Rule uint8

const (
	// NoRule: cw was not adjusted (not an ACK, fast start, or n = 0).
	NoRule Rule = 0
	// RuleAI: cw >= 1, ECE = 0: cw = min(cw + n*alpha/cw, CwMax) (Eq. (2)).
	RuleAI Rule = 1
	// RuleMD: cw >= 1, ECE = 1: cw = max(cw - n*beta, gamma) (Eq. (2)).
	RuleMD Rule = 2
	// RuleSubAI: cw < 1, ECE = 0: cw = min(cw + n*gamma, CwMax).
	RuleSubAI Rule = 3
	// RuleSubMD: cw < 1, ECE = 1: cw = max(gamma, eta*cw).
	RuleSubMD Rule = 4
)

// String returns the rule's name.
func (r Rule) String() string {
	switch r {
	case NoRule:
		return "none"
	case RuleAI:
		return "ai"
	case RuleMD:
		return "md"
	case RuleSubAI:
		return "sub_ai"
	case RuleSubMD:
		return "sub_md"
	}
	return fmt.Sprintf("Rule(%d)", uint8(r))
}

// Block says why a Send was refused.
type Block uint8

const (
	// NotBlocked: the packet may be sent.
	NotBlocked Block = 0
	// BlockIdle: no message (stage Idle).
	BlockIdle Block = 1
	// BlockNoData: snd_nxt = end, every packet has been sent.
	BlockNoData Block = 2
	// BlockWindow: cw >= 1 and inflight + 1 > cw.
	BlockWindow Block = 3
	// BlockTimer: cw < 1 and the sub-packet timer has not expired.
	BlockTimer Block = 4
)

// String returns the reason's name.
func (b Block) String() string {
	switch b {
	case NotBlocked:
		return "none"
	case BlockIdle:
		return "idle"
	case BlockNoData:
		return "no_data"
	case BlockWindow:
		return "window"
	case BlockTimer:
		return "timer"
	}
	return fmt.Sprintf("Block(%d)", uint8(b))
}

// Event is one input of the sender state machine. Both models take the same
// Event; fields a kind does not use are ignored. Integer fields are masked
// to their widths (SeqBits, TimeBits, MsgPktsBits) as hardware ports would.
type Event struct {
	Kind Kind
	// NowNs is the event time, ns (TimeBits wide, wrapping). Send reads it
	// (the sub-packet timer) and so does an Ack that takes cw below 1.
	NowNs uint64
	// Seq is a Start's first PSN.
	Seq uint32
	// MsgPkts is a Start's message length in packets (1..2^MsgPktsBits-1;
	// 0 is an invalid event).
	MsgPkts uint32
	// AckSeq is an Ack's cumulative PSN: the receiver's next expected PSN.
	AckSeq uint32
	// ECE is an Ack's ECN-Echo bit.
	ECE bool
	// NAK marks an Ack as a sequence-error NAK: the receiver saw a gap at
	// AckSeq and the sender goes back to it (go-back-N).
	NAK bool
}
