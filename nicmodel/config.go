package nicmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hpccgold/hpccgold/internal/enumtext"
	"io"
	"reflect"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/scheduler"

	"github.com/hpccgold/hpccgold/internal/strictjson"
)

// CCMode selects where HPCC++ runs (HPCC++ draft section 4.2 versus 6.2).
type CCMode uint8

const (
	// CCHPCC is sender-based HPCC++ (section 4.2, NewAck): the receiver echoes
	// the telemetry in ACKs and the sender's HPCC++ module computes W and R.
	CCHPCC CCMode = iota
	// CCHPCCRx is receiver-based HPCC (Rx-HPCC, section 6.2, NewINT): the
	// receiver's Rx pipeline runs the algorithm and sends a notification
	// carrying W at most once per T; the sender applies W and R = W/T.
	CCHPCCRx
	// CCNone disables congestion control: every flow keeps the initial
	// window and rate (for window- and pacing-limited measurements).
	CCNone
	// CCLDCP is LDCP (seeds 001, docs/ldcp.md) in the NIC's CC module
	// (ccmodule.go): window from cw, per-ACK ECE, the sub-packet timer, fast
	// start with ECN-incapable first-RTT packets, go-back-N.
	CCLDCP
	// CCDCQCN is DCQCN (docs/dcqcn.md) in the NIC's CC module: the
	// scheduler's pacing rate from the reaction point, CNPs from the
	// receiver's notification point, go-back-N.
	CCDCQCN
	numCCModes
)

var ccNames = [...]string{"hpcc", "hpcc-rx", "none", "ldcp", "dcqcn"}

// ccList is the error message's list of modes.
const ccList = "hpcc, hpcc-rx, none, ldcp or dcqcn"

// String returns "hpcc", "hpcc-rx", "none", "ldcp" or "dcqcn".
func (m CCMode) String() string {
	if m < numCCModes {
		return ccNames[m]
	}
	return fmt.Sprintf("CCMode(%d)", uint8(m))
}

// MarshalText implements encoding.TextMarshaler (config files).
func (m CCMode) MarshalText() ([]byte, error) {
	if m >= numCCModes {
		return nil, fmt.Errorf("nicmodel: cc=%d: must be %s", uint8(m), ccList)
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *CCMode) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("nicmodel: cc", b, allCCModes()...)
	if err == nil {
		*m = v
	}
	return err
}

// allCCModes lists every CC mode in declaration order.
func allCCModes() []CCMode {
	modes := make([]CCMode, numCCModes)
	for i := range modes {
		modes[i] = CCMode(i)
	}
	return modes
}

// hpccMode is the mode of the cc/hpcc configuration a CC mode implies: the
// receiver datapath for Rx-HPCC, the sender datapath otherwise.
func (m CCMode) hpccMode() hpcc.Mode {
	if m == CCHPCCRx {
		return hpcc.Receiver
	}
	return hpcc.Sender
}

// Model selects the HPCC++ arithmetic of the NIC's module and Rx-HPCC.
type Model uint8

const (
	// Fixed is the golden fixed-point datapath (hpcc.Datapath), the model
	// the RTL must match bit for bit.
	Fixed Model = iota
	// Float is the float64 reference (hpcc.Reference), for what-if runs:
	// its W and R are rounded to nearest into the scheduler's register
	// formats (Formats.W, Formats.Rate) when they leave the module.
	Float
	numModels
)

// String returns "fixed" or "float".
func (m Model) String() string {
	switch m {
	case Fixed:
		return "fixed"
	case Float:
		return "float"
	}
	return fmt.Sprintf("Model(%d)", uint8(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Model) MarshalText() ([]byte, error) {
	if m >= numModels {
		return nil, fmt.Errorf("nicmodel: model=%d: must be fixed or float", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Model) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("nicmodel: model", b, Fixed, Float)
	if err == nil {
		*m = v
	}
	return err
}

// TxConfig is the Tx pipeline's part of the NIC configuration: every
// pipeline.TxConfig field except the telemetry encoding and hop limit,
// which come from the hpcc section (one source of truth), plus the NIC's
// AckReq policy.
type TxConfig struct {
	// Build and Egress are the Tx pipeline's two stages (latency cycles,
	// depth entries); see pipeline.TxConfig.
	Build  pipeline.StageConfig `json:"build"`
	Egress pipeline.StageConfig `json:"egress"`
	// EgressFull is what Tx does when the MAC Tx FIFO is full:
	// "backpressure" or "drop".
	EgressFull pipeline.Policy `json:"egress_full"`
	// PathMTU is the RoCE path MTU (256, 512, 1024, 2048 or 4096): the
	// largest SEND payload Tx accepts, bytes. scheduler.mtu must not exceed
	// it.
	PathMTU int `json:"path_mtu"`
	// INTOnData adds the telemetry request (BTH T bit and an INT Request
	// shim) to every data packet (section 7.2).
	INTOnData bool `json:"int_on_data"`
	// AckEvery is m of the receiver's delayed ACK: one ACK per m data
	// packets of a flow (1 = per packet; 0 = no ACKs, only with cc=hpcc-rx
	// whose notifications acknowledge).
	AckEvery int `json:"ack_every"`
	// AckTimeoutCycles is the delayed-ACK timer in cycles (0 only with
	// ack_every <= 1).
	AckTimeoutCycles int `json:"ack_timeout_cycles"`
	// AckReqLast sets the BTH A bit (AckReq) on the last packet of each
	// message, so a delayed-ACK receiver acknowledges a flow's tail at once
	// instead of on its timer (RoCE requesters do the same).
	AckReqLast bool `json:"ack_req_last"`
}

// SchedulerConfig is the scheduler's part of the NIC configuration: every
// scheduler.Config field that is not derived from another section. Derived
// (one source of truth): Flows = qps, ClockHz = clock_hz, LineRateBps =
// hpcc.nic_speed_gbps, RateFormat/WindowFormat = hpcc.formats.rate/w,
// RateUnit = bytes per ns (the datapath's unit), OverheadBytes = the wire
// bytes of a data packet around its payload (see Config.OverheadBytes),
// InitWindowBytes = floor(hpcc.w_init_bytes).
type SchedulerConfig struct {
	// MTU is the payload of a full packet, bytes: messages are cut into
	// packets of MTU bytes and a shorter last one. At most tx.path_mtu.
	MTU int `json:"mtu"`
	// GapBits and GapFracBits size the pacing gap-per-byte register G
	// (cycles per byte, GapFracBits fraction bits); the pacing granularity
	// is 2^-GapFracBits cycle per byte (docs/scheduler.md).
	GapBits     int `json:"gap_bits"`
	GapFracBits int `json:"gap_frac_bits"`
	// WindowMode is "strict" (inflight + packet <= W) or "overshoot".
	WindowMode scheduler.WindowMode `json:"window_mode"`
	// Arbiter is "rr" or "dwrr".
	Arbiter scheduler.Arbiter `json:"arbiter"`
	// Quantum is the DWRR quantum in wire bytes; 0 means one full packet
	// (mtu + OverheadBytes).
	Quantum uint32 `json:"quantum"`
	// Quanta optionally sets each QP's DWRR quantum (empty or exactly qps
	// entries).
	Quanta []uint32 `json:"quanta,omitempty"`
	// BurstBytes is the pacing credit an idle flow may bank, wire bytes.
	BurstBytes uint32 `json:"burst_bytes"`
	// MaxMessages is the depth of each QP's message queue.
	MaxMessages int `json:"max_messages"`
	// InitRateBps is the pacing rate of a new flow in bits per second; 0
	// means W_init/T (the rate the HPCC++ datapath gives a new flow), at
	// most the line rate.
	InitRateBps uint64 `json:"init_rate_bps"`
}

// ModuleConfig is the HPCC++ module's timing.
type ModuleConfig struct {
	// Stages is the pipeline depth of the RTL hpcc_update inside the RTL
	// hpcc_module (rtl/hpccrtl ModuleOptions.Stages), range [0, 16]. The
	// module's timing is derived from it by package hpccrtl, so that the
	// Verilated module can replace the Go one in a closed-loop run: an
	// event's update leaves hpccrtl.ModuleOptions.Latency() = 1 + Stages
	// cycles after the event is taken (one for the flow-table read), and two
	// events of one QP are taken at least SameFlowSpacing() = Stages + 1
	// cycles apart (the read-after-write stall).
	Stages int `json:"stages"`
	// IICycles is the initiation interval: cycles between two events taken
	// (the RTL's is 1; larger values are for what-if runs). Range [1, 64].
	IICycles int `json:"ii_cycles"`
}

// FIFOConfig holds the depth (entries) of every FIFO between the NIC's
// blocks; each is in [1, MaxFIFODepth].
type FIFOConfig struct {
	RxMAC     int `json:"rx_mac"`    // MAC Rx FIFO: port -> Rx pipeline (frames); overflow is dropped and counted
	Events    int `json:"events"`    // Rx -> HPCC++ module telemetry events
	Replies   int `json:"replies"`   // Rx -> Tx replies (receiver role)
	Updates   int `json:"updates"`   // module -> scheduler window/rate updates
	Acks      int `json:"acks"`      // module -> scheduler acknowledged bytes
	Doorbells int `json:"doorbells"` // host -> scheduler messages
	Posts     int `json:"posts"`     // host -> module message records
	Sends     int `json:"sends"`     // scheduler -> PktSend register (scheduler.PktSend)
	PktSends  int `json:"pkt_sends"` // PktSend register -> Tx pipeline (pipeline.PktSend)
	SentLog   int `json:"sent_log"`  // PktSend register -> module (send records: snd_nxt, byte offsets)
	TxMAC     int `json:"tx_mac"`    // Tx pipeline -> MAC Tx serializer (frames)
}

// RxHPCCConfig configures the receiver side of Rx-HPCC beyond the hpcc
// section.
type RxHPCCConfig struct {
	// FlowWindowNs is the window of the receiver's concurrent-flow count N
	// used by the dynamic W_ai (hpcc.dynamic_w_ai, draft section 6.2 last
	// paragraph): N is the number of QPs that received a data packet with
	// telemetry in the last FlowWindowNs ns, the current packet's included.
	// Range [1, 2^40].
	FlowWindowNs uint64 `json:"flow_window_ns"`
}

// Limits of the NIC configuration.
const (
	MaxFIFODepth   = 1 << 20
	MaxQPs         = scheduler.MaxFlows
	MaxIICycles    = 64
	MaxMACOverhead = 256
)

// Config is the NIC's one configuration: every parameter of the Rx
// pipeline, the HPCC++ module, the scheduler, the Tx pipeline, the MAC and
// HPCC++ itself. It is read from a hand-writable JSON file (LoadConfig:
// unknown keys are rejected) and validated as a whole (Validate names the
// field and its value). Facts that appear in several blocks are set once
// and derived (see SchedulerConfig and TxConfig).
type Config struct {
	// ClockHz is the NIC clock, Hz; it must equal the engine's.
	ClockHz engine.Freq `json:"clock_hz"`
	// QPs is the number of QP (flow) slots: QPNs 0..QPs-1 index the QP
	// context table, the scheduler's flow table and the HPCC++ flow state
	// table. Range [1, MaxQPs].
	QPs int `json:"qps"`
	// CC selects sender-based HPCC++, Rx-HPCC or none.
	CC CCMode `json:"cc"`
	// Model selects the fixed-point golden datapath or the float reference.
	Model Model `json:"model"`
	// MACOverheadBytes is added to every frame's length for serialization
	// at the line rate: FCS 4 + preamble and start delimiter 8 + minimum
	// inter-frame gap 12 = 24 (IEEE 802.3). Range [0, MaxMACOverhead].
	MACOverheadBytes int `json:"mac_overhead_bytes"`

	Rx        pipeline.RxConfig `json:"rx"`
	Tx        TxConfig          `json:"tx"`
	Scheduler SchedulerConfig   `json:"scheduler"`
	Module    ModuleConfig      `json:"module"`
	FIFOs     FIFOConfig        `json:"fifos"`
	RxHPCC    RxHPCCConfig      `json:"rx_hpcc"`
	// HPCC is the one HPCC++ configuration (algorithm parameters, telemetry
	// encoding, hop slots, formats). Its mode must be the one cc implies
	// (sender for hpcc and none, receiver for hpcc-rx); LoadConfig fills it
	// in when the file leaves it out. Its nic_speed_gbps is the NIC's line
	// rate.
	HPCC hpcc.Config `json:"hpcc"`
	// LDCP, DCQCN and CCModule configure the CC module of cc=ldcp and
	// cc=dcqcn (ccconfig.go); they are absent (nil) otherwise, and a nil
	// section with cc=ldcp or dcqcn takes values derived from the NIC.
	LDCP     *LDCPConfig     `json:"ldcp,omitempty"`
	DCQCN    *DCQCNConfig    `json:"dcqcn,omitempty"`
	CCModule *CCModuleConfig `json:"cc_module,omitempty"`
	// Guard, when set, puts the telemetry integrity guard (cc/intguard,
	// docs/guard.md) before the HPCC++ update (cc=hpcc: the sender's;
	// cc=hpcc-rx: the receiver's Rx-HPCC; model fixed);
	// nil (the default) means none.
	Guard *GuardConfig `json:"guard,omitempty"`
	// MultiQClassWeights are the MultiQ class weights w_j (wB_j = w_j B,
	// the HPCC++ slides' "HPCC++ MultiQ Algorithm") of traffic classes 0,
	// 1, ...: a flow opened with FlowSpec.Class = j runs the HPCC++ update
	// with hpcc.multiq.class_weight = w_j (multiq.go). Empty: every flow
	// uses hpcc.multiq as configured. Needs cc=hpcc and
	// hpcc.multiq.enabled; at most MaxTrafficClasses entries, each in
	// (0,1].
	MultiQClassWeights []float64 `json:"multiq_class_weights,omitempty"`
	// Probe configures telemetry probes and the connection linger
	// (probe.go); absent (nil): neither.
	Probe *ProbeConfig `json:"probe,omitempty"`
}

// DefaultConfig returns a 100 Gbit/s NIC clocked at 1 GHz with 1024 QPs,
// sender-based HPCC++ on the golden datapath with the cc/hpcc defaults
// (IFA telemetry, 5 hops, T = 5 us), per-packet ACKs, 1000-byte packets,
// an HPCC++ module around a 3-stage hpcc_update (latency 4, II = 1), the pipeline package's default
// stages, and FIFOs deep enough that a saturated port never fills them.
// The latencies are placeholders of the right order for a 1 GHz NIC, not
// measurements of a particular ASIC.
func DefaultConfig() Config {
	rx := pipeline.DefaultRxConfig()
	tx := pipeline.DefaultTxConfig()
	return Config{
		ClockHz:          engine.GHz,
		QPs:              1024,
		CC:               CCHPCC,
		Model:            Fixed,
		MACOverheadBytes: 24,
		Rx:               rx,
		Tx: TxConfig{Build: tx.Build, Egress: tx.Egress, EgressFull: tx.EgressFull, PathMTU: 1024, INTOnData: true,
			AckEvery: 1, AckTimeoutCycles: 0, AckReqLast: true},
		Scheduler: SchedulerConfig{MTU: 1000, GapBits: 32, GapFracBits: 16, WindowMode: scheduler.WindowStrict,
			Arbiter: scheduler.RoundRobin, MaxMessages: 256},
		Module: ModuleConfig{Stages: 3, IICycles: 1},
		FIFOs: FIFOConfig{RxMAC: 64, Events: 64, Replies: 64, Updates: 16, Acks: 16, Doorbells: 64, Posts: 64,
			Sends: 4, PktSends: 4, SentLog: 16, TxMAC: 64},
		RxHPCC: RxHPCCConfig{FlowWindowNs: 10000},
		HPCC:   hpcc.DefaultConfig(),
	}
}

// LineRateBps returns the port's line rate in bits per second
// (hpcc.nic_speed_gbps * 10^9).
func (c *Config) LineRateBps() uint64 { return uint64(c.HPCC.NICSpeedGbps) * 1_000_000_000 }

// Wire sizes of a data packet around its payload (docs/wire.md).
const (
	ethHeaderBytes  = 14
	ipv4HeaderBytes = 20
	udpHeaderBytes  = 8
	bthBytes        = 12
	icrcBytes       = 4
	intShimBytes    = 8
)

// OverheadBytes returns the wire bytes a data packet adds to its payload,
// which the scheduler's pacing, line-rate limit and DWRR count: Ethernet 14
// + IPv4 20 + UDP 8 + BTH 12 + ICRC 4, + the INT shim 8 when tx.int_on_data,
// + mac_overhead_bytes (FCS, preamble, inter-frame gap). Untagged frames and
// payloads that are a multiple of 4 bytes are assumed: a VLAN tag (4) and
// SEND pad bytes (up to 3) are not counted, so the MAC serializer, which
// counts every byte, may lag the scheduler by that much per packet. Hop
// records switches add later are not the sender's bytes.
func (c *Config) OverheadBytes() int {
	n := ethHeaderBytes + ipv4HeaderBytes + udpHeaderBytes + bthBytes + icrcBytes + c.MACOverheadBytes
	if c.Tx.INTOnData {
		n += intShimBytes
	}
	return n
}

// bad formats a validation error naming the field (its JSON path) and its
// value.
func bad(field string, v any, rule string) error {
	return fmt.Errorf("nicmodel: %s=%v: %s", field, v, rule)
}

// Validate checks every field and the derived configurations of the blocks
// and reports the first problem, naming the field (by its JSON path) and
// its value.
func (c *Config) Validate() error {
	if err := c.ClockHz.Validate(); err != nil {
		return fmt.Errorf("nicmodel: clock_hz: %w", err)
	}
	if c.QPs < 1 || c.QPs > MaxQPs {
		return bad("qps", c.QPs, fmt.Sprintf("must be in [1,%d]", MaxQPs))
	}
	if c.CC >= numCCModes {
		return bad("cc", uint8(c.CC), "must be "+ccList)
	}
	if c.Model >= numModels {
		return bad("model", uint8(c.Model), "must be fixed or float")
	}
	if c.MACOverheadBytes < 0 || c.MACOverheadBytes > MaxMACOverhead {
		return bad("mac_overhead_bytes", c.MACOverheadBytes, fmt.Sprintf("must be in [0,%d]", MaxMACOverhead))
	}
	if err := c.HPCC.Validate(); err != nil {
		return fmt.Errorf("nicmodel: hpcc: %w", err)
	}
	if want := c.CC.hpccMode(); c.HPCC.Mode != want {
		return bad("hpcc.mode", c.HPCC.Mode, fmt.Sprintf("must be %s with cc=%s", want, c.CC))
	}
	if err := c.validateMultiQClasses(); err != nil {
		return err
	}
	if c.HPCC.MaxHops > wire.MaxHops {
		return bad("hpcc.max_hops", c.HPCC.MaxHops, fmt.Sprintf("must be at most %d (wire.MaxHops)", wire.MaxHops))
	}
	if c.Tx.AckEvery == 0 && c.CC != CCHPCCRx {
		return bad("tx.ack_every", 0, fmt.Sprintf("no ACKs needs cc=hpcc-rx (notifications acknowledge), not cc=%s", c.CC))
	}
	if c.CC == CCHPCC && !c.Tx.INTOnData {
		return bad("tx.int_on_data", false, "cc=hpcc needs telemetry on data packets (the NIC sends no probes)")
	}
	if c.CC == CCHPCCRx && !c.Tx.INTOnData {
		return bad("tx.int_on_data", false, "cc=hpcc-rx needs telemetry on data packets")
	}
	rx := c.Rx
	if err := rx.Validate(); err != nil {
		return fmt.Errorf("nicmodel: rx: %w", err)
	}
	tx := c.pipelineTx()
	if err := tx.Validate(); err != nil {
		return fmt.Errorf("nicmodel: tx: %w", err)
	}
	if c.Scheduler.MTU < 1 || c.Scheduler.MTU > c.Tx.PathMTU {
		return bad("scheduler.mtu", c.Scheduler.MTU, fmt.Sprintf("must be in [1,tx.path_mtu=%d]", c.Tx.PathMTU))
	}
	sc := c.schedulerConfig()
	if err := sc.Validate(); err != nil {
		return fmt.Errorf("nicmodel: scheduler: %w", err)
	}
	if err := (hpccrtl.ModuleOptions{Stages: c.Module.Stages, FlowBits: 1}).Validate(); err != nil {
		return bad("module.stages", c.Module.Stages, fmt.Sprintf("the RTL hpcc_update stage count: %v", err))
	}
	if c.Module.IICycles < 1 || c.Module.IICycles > MaxIICycles {
		return bad("module.ii_cycles", c.Module.IICycles, fmt.Sprintf("must be in [1,%d]", MaxIICycles))
	}
	for _, f := range c.fifoList() {
		if *f.depth < 1 || *f.depth > MaxFIFODepth {
			return bad("fifos."+f.name, *f.depth, fmt.Sprintf("must be in [1,%d]", MaxFIFODepth))
		}
	}
	if c.RxHPCC.FlowWindowNs < 1 || c.RxHPCC.FlowWindowNs > 1<<40 {
		return bad("rx_hpcc.flow_window_ns", c.RxHPCC.FlowWindowNs, "must be in [1,2^40]")
	}
	if err := c.validateGuard(); err != nil {
		return err
	}
	if c.Probe != nil {
		if err := c.Probe.validate(c); err != nil {
			return err
		}
	}
	return c.validateCCModule()
}

type fifoField struct {
	name  string
	depth *int
}

// fifoList lists the FIFO depths in declaration order with their JSON keys.
func (c *Config) fifoList() []fifoField {
	f := &c.FIFOs
	return []fifoField{{"rx_mac", &f.RxMAC}, {"events", &f.Events}, {"replies", &f.Replies}, {"updates", &f.Updates},
		{"acks", &f.Acks}, {"doorbells", &f.Doorbells}, {"posts", &f.Posts}, {"sends", &f.Sends},
		{"pkt_sends", &f.PktSends}, {"sent_log", &f.SentLog}, {"tx_mac", &f.TxMAC}}
}

// pipelineTx returns the Tx pipeline's configuration.
func (c *Config) pipelineTx() pipeline.TxConfig {
	return pipeline.TxConfig{Build: c.Tx.Build, Egress: c.Tx.Egress, EgressFull: c.Tx.EgressFull, MTU: c.Tx.PathMTU,
		INTOnData: c.Tx.INTOnData, Encoding: c.HPCC.Encoding, MaxHops: c.HPCC.MaxHops, AckEvery: c.Tx.AckEvery,
		AckTimeout: c.Tx.AckTimeoutCycles}
}

// initRateBps is the scheduler's initial rate: scheduler.init_rate_bps, or
// W_init/T in bits per second (floor), at most the line rate; 0 stands for
// the line rate.
func (c *Config) initRateBps() uint64 {
	line := c.LineRateBps()
	r := c.Scheduler.InitRateBps
	if r == 0 && c.HPCC.BaseRTTNs > 0 {
		// W_init bytes / T ns = W_init * 8e9 / T bits per second.
		bps := c.HPCC.WInitBytes * 8e9 / float64(c.HPCC.BaseRTTNs)
		if bps >= float64(line) {
			return 0
		}
		r = max(uint64(bps), 1)
	}
	if r >= line {
		return 0
	}
	return r
}

// schedulerConfig returns the scheduler's configuration, derived fields
// filled in.
func (c *Config) schedulerConfig() scheduler.Config {
	s := &c.Scheduler
	over := c.OverheadBytes()
	q := s.Quantum
	if q == 0 {
		q = uint32(s.MTU + over)
	}
	winit := uint64(0)
	if c.HPCC.WInitBytes > 0 {
		winit = uint64(c.HPCC.WInitBytes)
	}
	return scheduler.Config{
		Flows: c.QPs, ClockHz: c.ClockHz, LineRateBps: c.LineRateBps(), MTU: s.MTU, OverheadBytes: over,
		RateFormat: c.HPCC.Formats.Rate, RateUnit: scheduler.BytesPerNs,
		WindowFormat: c.HPCC.Formats.W, GapBits: s.GapBits, GapFracBits: s.GapFracBits,
		WindowMode: s.WindowMode, Arbiter: s.Arbiter, Quantum: q, Quanta: append([]uint32(nil), s.Quanta...),
		BurstBytes: s.BurstBytes, MaxMessages: s.MaxMessages, InitWindowBytes: winit, InitRateBps: c.initRateBps(),
	}
}

// DerivedScheduler returns the scheduler configuration the NIC derives
// from c.
func (c *Config) DerivedScheduler() scheduler.Config { return c.schedulerConfig() }

// DerivedTx returns the Tx pipeline configuration the NIC derives from c.
func (c *Config) DerivedTx() pipeline.TxConfig { return c.pipelineTx() }

// LoadConfig reads a NIC configuration in JSON. Keys absent from the file
// keep their DefaultConfig values; the hpcc section is read by
// hpcc.LoadConfig (its defaults follow its "encoding", its "mode" defaults
// to the one "cc" implies); any key that is not a configuration field, at
// any level, is rejected, and keys are exact (case-sensitive, each at most
// once; package internal/strictjson). The result is validated.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("nicmodel: read config: %w", err)
	}
	c := DefaultConfig()
	type plain Config // no methods: the decoder fills fields directly
	aux := struct {
		*plain
		// HPCC shadows plain.HPCC (a shallower field wins in encoding/json)
		// so that the hpcc section is read by hpcc.LoadConfig.
		HPCC json.RawMessage `json:"hpcc"`
	}{plain: (*plain)(&c)}
	if err := strictjson.Decode(data, &aux); err != nil {
		return Config{}, fmt.Errorf("nicmodel: config: %w", err)
	}
	raw := aux.HPCC
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	// The hpcc section's keys are checked before the map below would merge
	// a key given twice.
	if err := strictjson.CheckKeys(raw, reflect.TypeFor[hpcc.Config]()); err != nil {
		return Config{}, fmt.Errorf("nicmodel: config: hpcc: %w", err)
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Config{}, fmt.Errorf("nicmodel: config: hpcc: %w", err)
	}
	if _, ok := keys["mode"]; !ok {
		m, _ := c.CC.hpccMode().MarshalText()
		keys["mode"], _ = json.Marshal(string(m))
		if raw, err = json.Marshal(keys); err != nil {
			return Config{}, fmt.Errorf("nicmodel: config: hpcc: %w", err)
		}
	}
	h, err := hpcc.LoadConfig(bytes.NewReader(raw))
	if err != nil {
		return Config{}, fmt.Errorf("nicmodel: config: %w", err)
	}
	c.HPCC = h
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// JSON returns the configuration as indented JSON, the form LoadConfig
// reads (every field written), for manifests and trace headers.
func (c Config) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("nicmodel: config: %w", err)
	}
	return append(b, '\n'), nil
}

// moduleTiming returns the HPCC++ module's latency (event taken to update
// pushed) and same-QP spacing, derived by package hpccrtl from the RTL
// hpcc_update stage count.
func (c *Config) moduleTiming() (latency, spacing int) {
	o := hpccrtl.ModuleOptions{Stages: c.Module.Stages, FlowBits: 1}
	return o.Latency(), o.SameFlowSpacing()
}
