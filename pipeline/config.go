package pipeline

import (
	"fmt"
	"github.com/hpccgold/hpccgold/internal/enumtext"

	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Policy is what a pipeline does with an entry that cannot move on because
// the next stage or output FIFO is full.
type Policy uint8

// Policies.
const (
	// BackPressure holds the entry (and so everything behind it) until room
	// appears; upstream queues fill and stall in turn. Nothing is lost.
	BackPressure Policy = iota
	// Drop discards the entry and counts it (DropReason says where).
	Drop
)

// String returns "backpressure" or "drop".
func (p Policy) String() string {
	switch p {
	case BackPressure:
		return "backpressure"
	case Drop:
		return "drop"
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// MarshalText implements encoding.TextMarshaler (config files).
func (p Policy) MarshalText() ([]byte, error) {
	if p > Drop {
		return nil, fmt.Errorf("pipeline: Policy=%d: must be backpressure or drop", uint8(p))
	}
	return []byte(p.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *Policy) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("pipeline: policy", b, BackPressure, Drop)
	if err == nil {
		*p = v
	}
	return err
}

// StageConfig is one pipeline stage: Latency cycles from entry to the
// earliest exit (>= 1), and Depth entries held at most (>= 1). With Depth >=
// Latency the stage sustains one entry per cycle; with less, Depth/Latency
// entries per cycle on average.
type StageConfig struct {
	Latency int `json:"latency"`
	Depth   int `json:"depth"`
}

// Limits of the configuration values.
const (
	MaxStageLatency = 1 << 16 // cycles
	MaxStageDepth   = 1 << 16 // entries
	MaxAckEvery     = 1 << 16 // packets
	MaxAckTimeout   = 1 << 32 // cycles
)

func (s StageConfig) validate(name string) error {
	if s.Latency < 1 || s.Latency > MaxStageLatency {
		return fmt.Errorf("%s.Latency=%d: must be in [1,%d]", name, s.Latency, MaxStageLatency)
	}
	if s.Depth < 1 || s.Depth > MaxStageDepth {
		return fmt.Errorf("%s.Depth=%d: must be in [1,%d]", name, s.Depth, MaxStageDepth)
	}
	return nil
}

// RxConfig configures the Rx pipeline.
type RxConfig struct {
	// Parse is the parser stage: L2-L4 and BTH checks, INT shim and hop
	// records, ICRC (wire.Decode).
	Parse StageConfig `json:"parse"`
	// Dispatch is the stage that looks the flow up, forms the Event or
	// Reply, and calls the RxCC hook.
	Dispatch StageConfig `json:"dispatch"`
	// IngressFull applies when a frame is waiting in the input queue and the
	// parse stage is full: BackPressure leaves it in the input queue (a MAC
	// FIFO or link then fills), Drop pops and discards it (DropIngressFull).
	IngressFull Policy `json:"ingress_full"`
	// OutputFull applies when the HPCC++ module's event FIFO or the Tx reply
	// FIFO is full: BackPressure stalls the dispatch stage (head-of-line),
	// Drop discards the event or reply (DropEventFull, DropReplyFull).
	OutputFull Policy `json:"output_full"`
}

// DefaultRxConfig returns a configuration that sustains one packet per cycle:
// parse 4 cycles deep 4, dispatch 2 cycles deep 2, back-pressure everywhere.
// The latencies are placeholders of the right order for a 1 GHz parser, not
// measurements of a particular ASIC.
func DefaultRxConfig() RxConfig {
	return RxConfig{Parse: StageConfig{4, 4}, Dispatch: StageConfig{2, 2}}
}

// Validate checks every field and names the first bad one with its value.
func (c *RxConfig) Validate() error {
	if err := c.Parse.validate("RxConfig.Parse"); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if err := c.Dispatch.validate("RxConfig.Dispatch"); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if c.IngressFull > Drop {
		return fmt.Errorf("pipeline: RxConfig.IngressFull=%d: must be backpressure or drop", c.IngressFull)
	}
	if c.OutputFull > Drop {
		return fmt.Errorf("pipeline: RxConfig.OutputFull=%d: must be backpressure or drop", c.OutputFull)
	}
	return nil
}

// TxConfig configures the Tx pipeline.
type TxConfig struct {
	// Build is the stage that reads the flow context and builds headers and
	// the INT shim.
	Build StageConfig `json:"build"`
	// Egress is the stage that inserts checksums and the ICRC and hands the
	// frame to the MAC FIFO.
	Egress StageConfig `json:"egress"`
	// EgressFull applies when the MAC FIFO is full: BackPressure stalls the
	// pipeline (and so the scheduler's PktSend FIFO fills), Drop discards the
	// frame (DropEgressFull).
	EgressFull Policy `json:"egress_full"`
	// MTU is the largest SEND payload, bytes (RoCE path MTU: 256, 512, 1024,
	// 2048 or 4096).
	MTU int `json:"mtu"`
	// INTOnData adds the telemetry request (T bit and a Request shim) to
	// every data packet. Without it only probes collect telemetry (section 6:
	// telemetry "needs not to be added to every data packet").
	INTOnData bool `json:"int_on_data"`
	// Encoding is the hop record format requested from switches.
	Encoding telemetry.Encoding `json:"encoding"`
	// MaxHops is the hop limit written into requests, in [1, wire.MaxHops]
	// (section 7.1: data-center paths are often no more than 5 hops).
	MaxHops int `json:"max_hops"`
	// AckEvery is m: the receiver sends one ACK per m data packets of a flow
	// (1 = per packet, section 6.2 "delayed ACKs" for m > 1), echoing the
	// telemetry of the m-th. 0 sends no ACKs at all: receiver-based HPCC's
	// notifications acknowledge instead (slides: "eliminating the need for
	// ACKs"). A data packet with the A bit is acknowledged at once unless
	// AckEvery is 0.
	AckEvery int `json:"ack_every"`
	// AckTimeout is the delayed-ACK timer, cycles: pending unacknowledged
	// packets of a flow are acknowledged this long after the first of them
	// arrived at Tx, even if fewer than m. 0 disables the timer (allowed only
	// when AckEvery <= 1, where nothing can stay pending).
	AckTimeout int `json:"ack_timeout_cycles"`
}

// DefaultTxConfig returns a per-packet-ACK configuration with IFA telemetry
// on every data packet, 5 hops, MTU 1024, build 3 cycles deep 3, egress 2
// cycles deep 2, back-pressure.
func DefaultTxConfig() TxConfig {
	return TxConfig{Build: StageConfig{3, 3}, Egress: StageConfig{2, 2}, MTU: 1024, INTOnData: true,
		Encoding: telemetry.IFA, MaxHops: 5, AckEvery: 1}
}

// Validate checks every field and names the first bad one with its value.
func (c *TxConfig) Validate() error {
	if err := c.Build.validate("TxConfig.Build"); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if err := c.Egress.validate("TxConfig.Egress"); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	if c.EgressFull > Drop {
		return fmt.Errorf("pipeline: TxConfig.EgressFull=%d: must be backpressure or drop", c.EgressFull)
	}
	switch c.MTU {
	case 256, 512, 1024, 2048, 4096:
	default:
		return fmt.Errorf("pipeline: TxConfig.MTU=%d: must be 256, 512, 1024, 2048 or 4096 (RoCE path MTU)", c.MTU)
	}
	if err := c.Encoding.Validate(); err != nil {
		return fmt.Errorf("pipeline: TxConfig.Encoding: %w", err)
	}
	if c.MaxHops < 1 || c.MaxHops > wire.MaxHops {
		return fmt.Errorf("pipeline: TxConfig.MaxHops=%d: must be in [1,%d]", c.MaxHops, wire.MaxHops)
	}
	if c.AckEvery < 0 || c.AckEvery > MaxAckEvery {
		return fmt.Errorf("pipeline: TxConfig.AckEvery=%d: must be in [0,%d]", c.AckEvery, MaxAckEvery)
	}
	if c.AckTimeout < 0 || c.AckTimeout > MaxAckTimeout {
		return fmt.Errorf("pipeline: TxConfig.AckTimeout=%d: must be in [0,%d]", c.AckTimeout, MaxAckTimeout)
	}
	if c.AckEvery > 1 && c.AckTimeout == 0 {
		return fmt.Errorf("pipeline: TxConfig.AckTimeout=0 with AckEvery=%d: a delayed ACK needs a timer (else a flow's last packets are never acknowledged)", c.AckEvery)
	}
	return nil
}
