package scheduler

// FlowID indexes the flow table: 0..Config.Flows-1.
type FlowID uint32

// PktSend is the scheduler's command to the Tx pipeline (HPCC++ draft
// section 7.2, Figure 4, "PktSend"): send the next packet of flow Flow,
// carrying Bytes payload bytes starting at byte Offset of the flow's stream.
type PktSend struct {
	Flow FlowID
	// Bytes is the payload length, 1..MTU.
	Bytes uint32
	// Offset is the number of payload bytes of the flow sent before this
	// packet (its first byte's position in the flow's byte stream, from the
	// last reset), 64 bits.
	Offset uint64
	// PSN is the packet's sequence number for the BTH: the number of packets
	// sent on the flow since its last reset, modulo 2^24 (PSNBits).
	PSN uint32
	// First and Last mark the first and last packet of a message (a doorbell).
	First, Last bool
}

// PSNBits is the width of PktSend.PSN (the RoCEv2 BTH PSN field).
const PSNBits = 24

// Update is a window and/or rate update from the HPCC++ module (section 7.2:
// "window update", "rate update").
type Update struct {
	Flow FlowID
	// Window is W, raw in Config.WindowFormat (bytes); applied when SetWindow.
	Window uint64
	// Rate is R, raw in Config.RateFormat and Config.RateUnit; applied when
	// SetRate. 0 pauses the flow.
	Rate               uint64
	SetWindow, SetRate bool
}

// Ack reports acknowledged bytes from the Rx pipeline: AckedBytes is the
// cumulative number of payload bytes of the flow acknowledged since the
// flow's last reset (snd_una as a byte offset). Bytes in flight are
// sent - acked. An Ack that does not advance it is stale and ignored; one
// beyond the bytes sent is clamped to them (both counted).
type Ack struct {
	Flow       FlowID
	AckedBytes uint64
}

// Doorbell posts a message of Bytes payload bytes on a flow (a work request:
// the host's send queue). With Reset, the flow's entry is first
// reinitialized: window and rate to their initial values, offsets and
// pending messages cleared (a new connection on this entry). Bytes may be 0
// with Reset.
type Doorbell struct {
	Flow  FlowID
	Bytes uint64
	Reset bool
}

// Counters are the scheduler's status registers. Each is 64 bits and wraps
// modulo 2^64. They count events, never cycles, so they are identical with
// and without idle skipping.
type Counters struct {
	PktSends     uint64 // PktSend commands issued
	PayloadBytes uint64 // payload bytes of those packets
	WireBytes    uint64 // wire bytes (payload + OverheadBytes) of those packets

	Doorbells     uint64 // doorbells accepted
	DoorbellDrops uint64 // doorbells dropped: the flow already had MaxMessages pending
	FlowResets    uint64 // doorbells with Reset

	Updates        uint64 // updates accepted
	WindowUpdates  uint64 // updates with SetWindow
	RateUpdates    uint64 // updates with SetRate
	RateClamped    uint64 // rate updates whose gap saturated at 2^GapBits-1 (rate below the slowest pace)
	RatePauses     uint64 // rate updates with R = 0
	Acks           uint64 // acks that advanced AckedBytes
	AckStale       uint64 // acks at or below the current AckedBytes (ignored)
	AckBeyondSent  uint64 // acks beyond the bytes sent (clamped)
	BadFlowID      uint64 // commands on any port naming a flow >= Flows (dropped)
	WindowBlocks   uint64 // times a flow with data became blocked by its window
	PaceWaits      uint64 // times a flow with data and window had to wait for its pacer beyond the next cycle (entered the calendar)
	LineRateStalls uint64 // episodes in which eligible flows waited for the line-rate limit
	OutputStalls   uint64 // episodes in which eligible flows waited for room in the Sends FIFO
}

// FlowStatus is a snapshot of one flow table entry.
type FlowStatus struct {
	Window      uint64 // W as last set, raw in WindowFormat
	WindowBytes uint64 // floor(W), the bytes the window test uses
	Rate        uint64 // R as last set, raw (0 until the first rate update after reset)
	Gap         uint64 // gap-per-byte register G (cycles/byte, GapFracBits fraction bits); 0 = paused
	Backlog     uint64 // payload bytes posted and not yet sent
	Messages    int    // messages pending, including the one being sent
	Sent        uint64 // payload bytes sent since reset
	Acked       uint64 // payload bytes acknowledged since reset
	Inflight    uint64 // Sent - Acked
	Deficit     uint64 // DWRR deficit, wire bytes
	Packets     uint64 // packets sent since reset
	NextSend    uint64 // first cycle the pacer allows the next packet (ceil of the pacer time register)
	State       FlowState
}

// FlowState is where a flow stands in the scheduler.
type FlowState uint8

const (
	FlowIdle   FlowState = iota // no payload pending
	FlowPaused                  // rate 0
	FlowWindow                  // blocked by the window
	FlowPacing                  // waiting in the pacing calendar
	FlowReady                   // eligible for arbitration
)

// String returns the state's name.
func (s FlowState) String() string {
	switch s {
	case FlowIdle:
		return "idle"
	case FlowPaused:
		return "paused"
	case FlowWindow:
		return "window"
	case FlowPacing:
		return "pacing"
	case FlowReady:
		return "ready"
	}
	return "invalid"
}
