package ldcp

// RxState is the receiver's per-flow state for LDCP's ACK policy.
type RxState struct {
	Expected uint32 // next expected PSN (SeqBits wide)
	Pending  uint32 // in-order packets received but not yet acknowledged
	NAKed    bool   // a NAK for Expected was sent (one NAK per gap)
}

// AckDecision is what the receiver does for one data packet.
type AckDecision struct {
	Accepted bool   // the packet was the expected one and is delivered
	Send     bool   // send an ACK (or NAK) now
	AckSeq   uint32 // its cumulative PSN: the next expected
	ECE      bool   // its ECN-Echo bit
	NAK      bool   // it is a sequence-error NAK (go-back-N)
	N        uint32 // packets it newly acknowledges
}

// Receiver is LDCP's receiver ACK policy (draft section 2.2): echo CE in
// ACKs, per-packet ACKs (DelayedAckPkts = 1) or an ACK for at most m
// unmarked packets and an immediate ACK with ECE on a CE-marked one; with
// RoCE's go-back-N reliability (section 3.1): an out-of-order packet is
// dropped and answered by one NAK carrying the expected PSN, a duplicate by
// an ACK. It is pure integer logic shared by both sender models' users.
type Receiver struct {
	m       uint32
	seqMask uint32
	half    uint32
}

// NewReceiver validates cfg and returns the receiver policy.
func NewReceiver(cfg Config) (*Receiver, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	return &Receiver{m: cfg.DelayedAckPkts, seqMask: uint32(mask64(cfg.SeqBits)), half: 1 << uint(cfg.SeqBits-1)}, nil
}

// Start returns the state of a flow whose first packet is PSN first.
func (r *Receiver) Start(first uint32) RxState { return RxState{Expected: first & r.seqMask} }

// OnData processes a data packet with PSN psn and its CE mark; ackReq is
// the packet's AckReq bit (RoCE sets it on a message's last packet), which
// flushes a delayed ACK. Rules:
//
//   - psn = expected: delivered; ACK now with ECE if CE-marked, or without
//     when m in-order packets are pending or ackReq is set.
//   - psn after expected (a gap): dropped; the first time for this
//     expected PSN, a NAK with ECE = 0 acknowledging the pending packets
//     (they were all unmarked, else they would have been acknowledged).
//   - psn before expected (a duplicate): an ACK with ECE = 0 so the sender
//     learns the expected PSN.
func (r *Receiver) OnData(st RxState, psn uint32, ce, ackReq bool) (RxState, AckDecision) {
	d := (psn - st.Expected) & r.seqMask
	var a AckDecision
	switch {
	case d == 0:
		st.Expected = (st.Expected + 1) & r.seqMask
		st.Pending++
		st.NAKed = false
		a.Accepted = true
		if ce || ackReq || st.Pending >= r.m {
			a.Send, a.ECE = true, ce
		}
	case d < r.half:
		if !st.NAKed {
			a.Send, a.NAK = true, true
			st.NAKed = true
		}
	default:
		a.Send = true
	}
	if a.Send {
		a.AckSeq, a.N = st.Expected, st.Pending
		st.Pending = 0
	}
	return st, a
}
