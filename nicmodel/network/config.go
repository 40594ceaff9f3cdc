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
