package network

import (
	"fmt"
	"math"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/telemetry"
)

// LinkSpec is one full-duplex link: both directions have the same speed
// and propagation delay.
type LinkSpec struct {
	// Gbps is the line rate, 10^9 bit/s. A switch port that stamps
	// telemetry must run at a speed its encoding has a code for
	// (telemetry.Encoding.SpeedCode: IFA 10/25/40/50/100/200/400, Compact
	// 25/50/100/200/400).
	Gbps uint32 `json:"gbps"`
	// DelayNs is the one-way propagation delay, ns (the time from the last
	// bit leaving the transmitter to the last bit arriving).
	DelayNs uint64 `json:"delay_ns"`
}

// Limits of the network configuration.
const (
	MaxLinkGbps   = 1600
	MaxDelayNs    = 1_000_000_000 // 1 s
	MaxBufferByte = 1 << 40
	MaxLatencyNs  = 1_000_000
	MaxMACOverhd  = 256
)

func (l LinkSpec) validate(field string) error {
	if l.Gbps < 1 || l.Gbps > MaxLinkGbps {
		return fmt.Errorf("network: %s.gbps=%d: must be in [1,%d]", field, l.Gbps, MaxLinkGbps)
	}
	if l.DelayNs > MaxDelayNs {
		return fmt.Errorf("network: %s.delay_ns=%d: must be in [0,%d]", field, l.DelayNs, MaxDelayNs)
	}
	return nil
}

// ECNConfig is the instant-queue WRED/ECN policy of an egress queue (LDCP
// draft, ../shared/seeds/001_..., section 2.1 and Eq. (3)): with q the
// egress queue length in bytes when the packet arrives (before it is
// enqueued), an ECN-capable packet (ECT(0) or ECT(1)) is marked CE with
// probability
//
//	p = 0                                      if q <  KMin
//	p = (q - KMin) / (KMax - KMin) * PMax      if KMin <= q < KMax
//	p = 1                                      if q >= KMax
//
// and an ECN-incapable packet (Not-ECT) is dropped when DropNotECTBytes > 0
// and q >= DropNotECTBytes (the threshold K of Eq. (3)). buf_max of the
// draft is SwitchConfig.BufferBytes. The draw is integer and
// deterministic: PMax is quantized once to pmax32 = round(PMax * 2^32)
// (saturated to 2^32), the threshold is thr = floor((q - KMin) * pmax32 /
// (KMax - KMin)), and the packet is marked iff a uniform 32-bit draw from
// the switch's seeded PCG generator is below thr. One draw is taken only
// when 0 < thr < 2^32, so the random stream depends only on the queue
// history.
type ECNConfig struct {
	Enabled   bool    `json:"enabled"`
	KMinBytes uint64  `json:"k_min_bytes"`
	KMaxBytes uint64  `json:"k_max_bytes"`
	PMax      float64 `json:"p_max"`
	// DropNotECTBytes is K of the LDCP draft's Eq. (3); 0 disables it.
	DropNotECTBytes uint64 `json:"drop_not_ect_bytes"`
	// MarkAtDequeue draws the marking of an ECN-capable packet when it
	// starts serialization instead of when it arrives, with q = the bytes
	// left in the queue after it (what the HPCC authors' ns-3 switch does
	// in SwitchNotifyDequeue, the switch their DCQCN results come from):
	// the mark then reports the queue the packet leaves behind, not the
	// one it joined, which a deep queue delays by its whole drain time.
	// Not-ECT dropping stays at arrival.
	MarkAtDequeue bool `json:"mark_at_dequeue"`
}

// SwitchConfig configures every switch of a network: output-queued,
// store-and-forward, one FIFO queue per egress port.
type SwitchConfig struct {
	// BufferBytes is the per-egress-port buffer: a frame that would make
	// the port's queue exceed it is dropped (tail drop) and counted. The
	// frame being serialized is not in the queue.
	BufferBytes uint64 `json:"buffer_bytes"`
	// SharedBufferBytes bounds the sum of all egress queues of a switch
	// (0: no shared limit). A frame that would exceed it is dropped.
	SharedBufferBytes uint64 `json:"shared_buffer_bytes"`
	// LatencyNs is the forwarding latency: a frame whose last bit arrived
	// at t joins its egress queue at t + LatencyNs.
	LatencyNs uint64 `json:"latency_ns"`
	// INT makes egress ports push a telemetry hop record (wire.PushHop)
	// into every packet that requests one, in the encoding Config.Encoding.
	INT bool `json:"int"`
	// MTUBytes is the egress MTU as a frame length without FCS: a record
	// that would make a frame longer sets the shim's E flag instead
	// (wire.PushHop). 0: no limit.
	MTUBytes int       `json:"mtu_bytes"`
	ECN      ECNConfig `json:"ecn"`
	// QoS divides each egress port into traffic-class queues served by
	// DWRR (QoSConfig); empty: one FIFO per port.
	QoS QoSConfig `json:"qos,omitzero"`
	// Sojourn makes the hop record carry the packet's sojourn time
	// (HPCC++ draft section 9.4: the egress timestamp minus the ingress
	// timestamp): IFA rxTimestamp = the instant the frame joined its
	// egress queue, residenceTime = egress - that instant, so that their
	// sum is still the egress instant the datapath differences. Needs the
	// IFA encoding (Compact carries no residence time) and INT.
	Sojourn bool `json:"sojourn,omitempty"`
	// Sample makes switches attach telemetry less often (HPCC++ draft
	// section 6; SampleConfig); the zero value attaches it to every packet.
	Sample SampleConfig `json:"sample,omitzero"`
}

// Limits of the QoS and sampling configuration.
const (
	MaxClasses      = 8       // traffic classes per port (802.1p priorities)
	MaxClassWeight  = 1000    // DWRR weight of one class
	MaxQuantumBytes = 1 << 20 // DWRR quantum
	MaxSampleTable  = 1 << 20 // entries of a port's flow table (sampling)
)

// QoSConfig is the per-egress-port QoS queueing of every switch (HPCC++
// draft section 9.4: operators run DWRR rather than strict priority, so
// that each queue has a minimum bandwidth guarantee). A frame is
// classified at enqueue by its IPv4 DSCP: the class whose DSCP it carries,
// class 0 when none does. Each class has its own FIFO and its own transmit
// counter; the port's buffer limit (buffer_bytes) bounds the sum of its
// class queues. The classes are served by Deficit Weighted Round Robin
// (Shreedhar and Varghese, SIGCOMM 1995): classes are visited in index
// order; a backlogged class gets Weight*QuantumBytes of credit when its
// turn starts and sends head frames while the head frame's wire bytes
// (frame + MAC overhead, before any hop record is pushed) fit its credit;
// a class whose queue empties loses its credit. When every class is
// backlogged, class j drains at least Weight_j / sum(Weight) of the line
// rate (its guaranteed rate wB_j of the HPCC++ slides' MultiQ page).
//
// With QoS the hop record a port stamps describes the packet's class
// queue, not the port (the slides' MultiQ: "telemetry reports the class's
// own txBytes and queue"): txBytes = that class's transmitted wire bytes,
// qlen = that class's queue after the frame left. B stays the port's line
// rate. WRED/ECN marking reads the class queue too. One class (or none)
// is the plain FIFO port.
type QoSConfig struct {
	// Classes lists the traffic classes; empty means one class.
	Classes []ClassSpec `json:"classes,omitempty"`
	// QuantumBytes is the DWRR quantum, bytes per unit of weight per
	// round; a quantum below the largest frame costs extra rounds (no
	// change in the service order). Required with two or more classes.
	QuantumBytes uint64 `json:"quantum_bytes,omitempty"`
}

// ClassSpec is one traffic class of QoSConfig.
type ClassSpec struct {
	// DSCP is the 6-bit IPv4 DSCP that selects the class.
	DSCP uint8 `json:"dscp"`
	// Weight is the class's DWRR weight, in [1, MaxClassWeight].
	Weight uint32 `json:"weight"`
}

// NumClasses returns the number of traffic-class queues per port (1
// without QoS).
func (q *QoSConfig) NumClasses() int { return max(1, len(q.Classes)) }

// GuaranteedShare returns class c's guaranteed share of the line rate,
// Weight_c / sum(Weight) (1 without QoS), as a float for display and for
// configuring MultiQ's wB_j.
func (q *QoSConfig) GuaranteedShare(c int) float64 {
	if len(q.Classes) == 0 {
		return 1
	}
	var sum uint64
	for _, k := range q.Classes {
		sum += uint64(k.Weight)
	}
	return float64(q.Classes[c].Weight) / float64(sum)
}

func (q *QoSConfig) validate() error {
	if len(q.Classes) == 0 {
		if q.QuantumBytes != 0 {
			return fmt.Errorf("network: switch.qos.quantum_bytes=%d: no classes: set switch.qos.classes or clear it", q.QuantumBytes)
		}
		return nil
	}
	if len(q.Classes) > MaxClasses {
		return fmt.Errorf("network: switch.qos.classes: %d classes: at most %d", len(q.Classes), MaxClasses)
	}
	if len(q.Classes) > 1 && (q.QuantumBytes < 64 || q.QuantumBytes > MaxQuantumBytes) {
		return fmt.Errorf("network: switch.qos.quantum_bytes=%d: must be in [64,%d]", q.QuantumBytes, MaxQuantumBytes)
	}
	for i, k := range q.Classes {
		if k.DSCP > 63 {
			return fmt.Errorf("network: switch.qos.classes[%d].dscp=%d: must be in [0,63]", i, k.DSCP)
		}
		if k.Weight < 1 || k.Weight > MaxClassWeight {
			return fmt.Errorf("network: switch.qos.classes[%d].weight=%d: must be in [1,%d]", i, k.Weight, MaxClassWeight)
		}
		for j := range i {
			if q.Classes[j].DSCP == k.DSCP {
				return fmt.Errorf("network: switch.qos.classes[%d].dscp=%d: also class %d's", i, k.DSCP, j)
			}
		}
	}
	return nil
}

// SampleMode says when a switch attaches telemetry (SampleConfig).
type SampleMode uint8

// Sampling modes.
const (
	// SampleEvery attaches a hop record to every packet that requests one.
	SampleEvery SampleMode = iota
	// SampleInterval attaches records to a flow's packets at most once per
	// IntervalNs (HPCC++ draft section 6: "once per RTT").
	SampleInterval
	// SampleCongestion attaches records once per IntervalNs, and to every
	// packet that finds its egress queue at or above ThresholdBytes
	// (draft section 6: "upon congestion occurrence"; the HPCC authors'
	// simulator's SAMPLE_FEEDBACK reacts to every ACK only when a queue is
	// not empty, and once per RTT otherwise).
	SampleCongestion
)

var sampleModeNames = []string{"every", "interval", "congestion"}

// String returns the mode's configuration name.
func (m SampleMode) String() string {
	if int(m) < len(sampleModeNames) {
		return sampleModeNames[m]
	}
	return fmt.Sprintf("SampleMode(%d)", uint8(m))
}

// MarshalText returns the mode's name.
func (m SampleMode) MarshalText() ([]byte, error) {
	if int(m) >= len(sampleModeNames) {
		return nil, fmt.Errorf("network: sample mode %d: unknown", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads "every", "interval" or "congestion".
func (m *SampleMode) UnmarshalText(b []byte) error {
	for i, n := range sampleModeNames {
		if string(b) == n {
			*m = SampleMode(i)
			return nil
		}
	}
	return fmt.Errorf("network: sample mode %q: must be every, interval or congestion", b)
}

// SampleConfig is sampled telemetry (HPCC++ draft section 6: switches "can
// attach inband telemetry less frequently, e.g., once per RTT or upon
// congestion occurrence"). The decision is taken once per packet, by the
// first switch of its path (the switch whose ingress port faces the
// sending host), so that a packet carries either every hop's record or
// none and the sender never sees a partial path (which its datapath would
// take for a path change):
//
//   - at the first switch, a packet that requests telemetry gets a record
//     when its flow's entry in the egress port's flow table is older than
//     IntervalNs (or was never set), and, in mode congestion, also when
//     the egress (class) queue holds ThresholdBytes or more after the
//     frame left; a stamped packet sets the entry to the stamp instant;
//   - at any later switch a packet gets a record iff it already carries
//     one (its shim's hop count is not 0);
//   - a probe (wire.OpProbe, draft section 6.1: a query for telemetry) is
//     always stamped and does not touch the flow table.
//
// The flow table has TableEntries entries per egress port, indexed by the
// flow's ECMP hash (flowHash with salt 0) modulo TableEntries, as a
// hardware table would be; flows that share an entry share its clock. An
// unsampled packet keeps its empty INT shim, so its ACK echoes zero hop
// records (nicmodel: an ACK without telemetry, which updates nothing).
type SampleConfig struct {
	Mode SampleMode `json:"mode,omitzero"`
	// IntervalNs is the least time between two records of one flow at
	// the first switch (modes interval and congestion), ns; typically T.
	IntervalNs uint64 `json:"interval_ns,omitempty"`
	// ThresholdBytes is the egress queue at or above which every packet is
	// stamped (mode congestion).
	ThresholdBytes uint64 `json:"threshold_bytes,omitempty"`
	// TableEntries is the flow table's size per egress port (modes
	// interval and congestion), in [1, MaxSampleTable].
	TableEntries int `json:"table_entries,omitempty"`
}

func (s *SampleConfig) validate(intOn bool) error {
	switch s.Mode {
	case SampleEvery:
		if s.IntervalNs != 0 || s.ThresholdBytes != 0 || s.TableEntries != 0 {
			return fmt.Errorf("network: switch.sample.mode=every with interval_ns, threshold_bytes or table_entries set: choose mode interval or congestion, or clear them")
		}
		return nil
	case SampleInterval, SampleCongestion:
	default:
		return fmt.Errorf("network: switch.sample.mode=%v: must be every, interval or congestion", s.Mode)
	}
	if !intOn {
		return fmt.Errorf("network: switch.sample.mode=%v: switch.int=false: sampling needs INT", s.Mode)
	}
	if s.IntervalNs < 1 || s.IntervalNs > MaxDelayNs {
		return fmt.Errorf("network: switch.sample.interval_ns=%d: must be in [1,%d]", s.IntervalNs, MaxDelayNs)
	}
	if s.TableEntries < 1 || s.TableEntries > MaxSampleTable {
		return fmt.Errorf("network: switch.sample.table_entries=%d: must be in [1,%d]", s.TableEntries, MaxSampleTable)
	}
	if s.Mode == SampleCongestion {
		if s.ThresholdBytes < 1 || s.ThresholdBytes > MaxBufferByte {
			return fmt.Errorf("network: switch.sample.threshold_bytes=%d: must be in [1,2^40] with mode congestion", s.ThresholdBytes)
		}
	} else if s.ThresholdBytes != 0 {
		return fmt.Errorf("network: switch.sample.threshold_bytes=%d: only mode congestion uses it", s.ThresholdBytes)
	}
	return nil
}

// Config is a network's configuration apart from its topology.
type Config struct {
	// ClockHz is the engine clock; times are kept internally in
	// femtoseconds and delivered at the cycle containing the instant.
	ClockHz engine.Freq `json:"clock_hz"`
	// Encoding is the telemetry encoding switches stamp (it must be the
	// encoding the NICs request: hpcc.encoding).
	Encoding telemetry.Encoding `json:"encoding"`
	// MACOverheadBytes is added to each frame for serialization: preamble
	// and start delimiter 8, FCS 4, minimum inter-frame gap 12 = 24 (IEEE
	// 802.3). It is also counted in the txBytes telemetry counter, so that
	// txRate/B is the wire utilization.
	MACOverheadBytes int `json:"mac_overhead_bytes"`
	// Seed seeds the switches' WRED generators and the ECMP hash salt.
	Seed   uint64       `json:"seed"`
	Switch SwitchConfig `json:"switch"`
	// Forge makes switches forge the telemetry they stamp (forge.go);
	// empty: every switch is honest.
	Forge []ForgeConfig `json:"forge,omitempty"`
}

// DefaultConfig returns a 1 GHz network with IFA telemetry, 24 bytes of
// MAC overhead, 32 MiB per port (the HPCC paper's switches have 32 MB of
// buffer), no shared limit, zero forwarding latency, INT on, no MTU limit
// and ECN off.
func DefaultConfig() Config {
	return Config{
		ClockHz:          engine.GHz,
		Encoding:         telemetry.IFA,
		MACOverheadBytes: 24,
		Seed:             1,
		Switch:           SwitchConfig{BufferBytes: 32 << 20, INT: true},
	}
}

// Validate checks every field and names the first bad one with its value.
func (c *Config) Validate() error {
	if err := c.ClockHz.Validate(); err != nil {
		return fmt.Errorf("network: clock_hz: %w", err)
	}
	if err := c.Encoding.Validate(); err != nil {
		return fmt.Errorf("network: encoding: %w", err)
	}
	if c.MACOverheadBytes < 0 || c.MACOverheadBytes > MaxMACOverhd {
		return fmt.Errorf("network: mac_overhead_bytes=%d: must be in [0,%d]", c.MACOverheadBytes, MaxMACOverhd)
	}
	s := &c.Switch
	if s.BufferBytes < 64 || s.BufferBytes > MaxBufferByte {
		return fmt.Errorf("network: switch.buffer_bytes=%d: must be in [64,2^40]", s.BufferBytes)
	}
	if s.SharedBufferBytes != 0 && (s.SharedBufferBytes < 64 || s.SharedBufferBytes > MaxBufferByte) {
		return fmt.Errorf("network: switch.shared_buffer_bytes=%d: must be 0 or in [64,2^40]", s.SharedBufferBytes)
	}
	if s.LatencyNs > MaxLatencyNs {
		return fmt.Errorf("network: switch.latency_ns=%d: must be in [0,%d]", s.LatencyNs, MaxLatencyNs)
	}
	if s.MTUBytes != 0 && (s.MTUBytes < 64 || s.MTUBytes > 65535) {
		return fmt.Errorf("network: switch.mtu_bytes=%d: must be 0 or in [64,65535]", s.MTUBytes)
	}
	if err := s.QoS.validate(); err != nil {
		return err
	}
	if s.Sojourn {
		if !s.INT {
			return fmt.Errorf("network: switch.sojourn=true: switch.int=false: the sojourn time travels in the hop record")
		}
		if c.Encoding != telemetry.IFA {
			return fmt.Errorf("network: switch.sojourn=true: encoding=%v carries no residence time: use ifa", c.Encoding)
		}
	}
	if err := s.Sample.validate(s.INT); err != nil {
		return err
	}
	e := &s.ECN
	if e.Enabled {
		if e.KMaxBytes <= e.KMinBytes {
			return fmt.Errorf("network: switch.ecn.k_max_bytes=%d: must be > k_min_bytes=%d", e.KMaxBytes, e.KMinBytes)
		}
		if e.KMaxBytes > MaxBufferByte {
			return fmt.Errorf("network: switch.ecn.k_max_bytes=%d: must be at most 2^40", e.KMaxBytes)
		}
		if math.IsNaN(e.PMax) || e.PMax < 0 || e.PMax > 1 {
			return fmt.Errorf("network: switch.ecn.p_max=%v: must be in [0,1]", e.PMax)
		}
	} else if e.KMinBytes != 0 || e.KMaxBytes != 0 || e.PMax != 0 || e.DropNotECTBytes != 0 || e.MarkAtDequeue {
		return fmt.Errorf("network: switch.ecn.enabled=false with thresholds set: enable ECN or clear k_min_bytes, k_max_bytes, p_max, drop_not_ect_bytes, mark_at_dequeue")
	}
	return nil
}

// pmax32 quantizes PMax to a 32-bit probability, round to nearest, 1.0 ->
// 2^32.
func (e *ECNConfig) pmax32() uint64 {
	return uint64(math.Round(e.PMax * (1 << 32)))
}
