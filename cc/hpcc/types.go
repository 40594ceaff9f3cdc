package hpcc

import "github.com/hpccgold/hpccgold/telemetry"

// Input is one telemetry event for a flow: an ACK carrying the path's
// telemetry (sender mode, draft section 4.2 NewAck) or a data packet's INT
// seen by the receiver (Rx-HPCC, section 6.2 NewINT). Both models take the
// same Input; fields of the other mode are ignored.
type Input struct {
	// Seq is the ACK's sequence number (sender; SeqBits wide, wrapping).
	Seq uint64
	// SndNxt is the sender's snd_nxt when the ACK is processed (sender;
	// SeqBits wide): it becomes lastUpdateSeq when Wc is committed (line 24).
	SndNxt uint64
	// NowNs is the event time in ns (receiver; TimeBits wide, wrapping).
	NowNs uint64
	// NFlows is N, the receiver-measured number of concurrent flows
	// (receiver with DynamicWAI; FlowCountBits wide; 0 is read as 1).
	NFlows uint32
	// NHops is the number of telemetry records on the path (0..MaxHops).
	NHops uint8
	// Hops are the per-hop records as carried on the wire, in path order
	// (index 0 = first switch). Entries at and above NHops are ignored.
	Hops [MaxHopsLimit]telemetry.Hop
}

// Event flags common to both models' outputs.
//
// Hop i is valid (it produces a measurement u'_i) when i < NHops, the hop
// count equals the stored one, the hop's identity is unchanged (IFA with
// TrackHopIdentity), its speed code is defined and not above
// MaxLinkSpeedGbps, and 0 < dts_i <= MaxDeltaTsNs. An invalid hop only
// re-baselines its stored telemetry. The selected hop (whose dts becomes
// tau) is the first valid hop, replaced by a later one only when its u' is
// strictly greater (line 6).
const (
	// NoHop is SelHop when no hop is valid (tau = 0: U unchanged).
	NoHop = 0xff
)
