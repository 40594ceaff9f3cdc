package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
	"github.com/hpccgold/hpccgold/telemetry"

	"github.com/hpccgold/hpccgold/internal/strictjson"
)

// HPCCParams are the HPCC++ parameters a scenario sets (HPCC++ draft
// section 5 and Figure 3; the seeds' slides "Experiments"); every other
// cc/hpcc field keeps hpcc.DefaultConfigFor(encoding), and NIC.Overrides
// can set any of them.
type HPCCParams struct {
	// Encoding is the telemetry encoding the NICs request and the switches
	// stamp: "ifa" (slides) or "compact" (HPCC paper).
	Encoding telemetry.Encoding `json:"encoding"`
	// BaseRTTNs is T, ns. 0: the largest base RTT of the workload's paths
	// (a full data packet out and its ACK back through empty queues),
	// rounded up to 100 ns.
	BaseRTTNs uint32 `json:"base_rtt_ns"`
	// RxBaseRTTNs is T under cc=hpcc-rx, where it is also the notification
	// period (section 6.2 line 29); 0: BaseRTTNs. The slides run Rx-HPCC
	// with T = 4.5 us against a 9 us base RTT.
	RxBaseRTTNs uint32 `json:"rx_base_rtt_ns"`
	// RxNotifyPeriodNs is the Rx-HPCC notification period P under
	// cc=hpcc-rx (ignored with cc=hpcc), ns: the receiver notifies when
	// more than P has elapsed since its last notification (cc/hpcc
	// Config.NotifyPeriodNs). 0: P = T. The slides notify every 4.5 us on a
	// 9 us base RTT.
	RxNotifyPeriodNs uint32 `json:"rx_notify_period_ns,omitempty"`
	// Eta is the target utilization.
	Eta float64 `json:"eta"`
	// MaxStage is maxStage.
	MaxStage int `json:"max_stage"`
	// WAIBytes is W_ai in bytes; 0 applies the draft's rule of thumb
	// W_ai = W_init * (1 - eta) / N with N = WAIFlows.
	WAIBytes float64 `json:"w_ai_bytes"`
	// WAIFlows is N of that rule (the slides: N = 10 gives 128 Mbps at 25
	// Gbps, N = 100 gives 12.8 Mbps).
	WAIFlows int `json:"w_ai_flows"`
	// RxDynamicWAI makes Rx-HPCC (cc=hpcc-rx; ignored with cc=hpcc)
	// compute W_ai per event from the number of concurrent flows the
	// receiver sees (draft section 6.2; slides: "Dynamic W_AI").
	RxDynamicWAI bool `json:"rx_dynamic_w_ai"`
	// MultiQ runs the HPCC++ slides' MultiQ U (seeds 002, "HPCC++ MultiQ
	// Algorithm": per traffic class, against the class's guaranteed rate
	// wB_j) on every sender (cc=hpcc): each flow's update uses its class's
	// DWRR share as w_j (network.switch.qos: weight / sum of weights; 1
	// without QoS; nicmodel.Config.MultiQClassWeights), backlog threshold
	// 1500 bytes.
	MultiQ bool `json:"multiq,omitempty"`
	// Sojourn takes each hop's queue term from the packet's sojourn time
	// instead of the queue length (HPCC++ draft section 9.4; cc/hpcc
	// Config.Sojourn: u' = min(sojourn, last sojourn)/T + txRate/B) on
	// every NIC. Needs the IFA encoding and network.switch.sojourn (the
	// switches put the sojourn in the records), not with multiq.
	Sojourn bool `json:"sojourn,omitempty"`
}

// NICParams are the NIC parameters a scenario sets; the NIC's line rate is
// the topology's host link speed, and everything else is
// nicmodel.DefaultConfig, then Overrides.
type NICParams struct {
	// MTU is the payload of a full data packet, bytes (the HPCC paper's 1000).
	MTU int `json:"mtu"`
	// AckEvery is m of the receiver's ACKs under cc=hpcc: 1 per data
	// packet, m > 1 delayed (one per m packets, the flow's last packet at
	// once, and a timer of AckTimeoutNs).
	AckEvery int `json:"ack_every"`
	// RxAckEvery is m under cc=hpcc-rx, where notifications acknowledge
	// data; 0 keeps only the ACK of each message's last packet (needed for
	// completion, since a notification is sent at most once per T) and the
	// timer.
	RxAckEvery int `json:"rx_ack_every"`
	// AckTimeoutNs is the delayed-ACK timer, ns; 0 means T. Under
	// cc=hpcc-rx it is what acknowledges data that arrived within T of the
	// last notification when no more data follows (a sender whose window is
	// full would otherwise wait for it): the draft's notifications "include
	// delayed ack information" (section 5), and the slides send one "every
	// RTT".
	AckTimeoutNs uint64 `json:"ack_timeout_ns"`
	// RTONs is the retransmission timeout of cc=ldcp and cc=dcqcn, ns
	// (nicmodel cc_module.rto_ns; 0: nicmodel.DefaultRTONs, 1 ms).
	RTONs uint64 `json:"rto_ns"`
	// Overrides is a nicmodel configuration fragment (the JSON of
	// nicmodel.Config: any key, unknown keys rejected) applied last to
	// every NIC's configuration.
	Overrides json.RawMessage `json:"overrides,omitempty"`
	// ShareQP puts the flows between the same two hosts in the same class
	// on one QP (one connection, one UDP source port, so one ECMP path)
	// instead of a QP each: a flow that starts while the QP's earlier flows
	// are outstanding queues behind them, and one that starts on an idle
	// QP opens a new connection unless the NIC lets it linger
	// (nicmodel probe.linger_ns): flows that pause and resume.
	ShareQP bool `json:"share_qp,omitempty"`
}

// RunParams control the run and its measurements.
type RunParams struct {
	// DurationNs stops the run at this simulated time; 0 runs until every
	// flow completes (or LimitNs, or nothing can move any more).
	DurationNs uint64 `json:"duration_ns"`
	// LimitNs bounds a run with DurationNs = 0.
	LimitNs uint64 `json:"limit_ns"`
	// SampleNs is the interval of the time series (rates, windows, queue,
	// utilization, fairness).
	SampleNs uint64 `json:"sample_ns"`
	// BottleneckHost selects the measured bottleneck: the switch egress
	// port that delivers to this host. -1: the destination of the most
	// flows (ties: the lowest host).
	BottleneckHost int `json:"bottleneck_host"`
	// FlowSeriesMax is the largest number of flows whose rate and window
	// are sampled (flows 0..FlowSeriesMax-1 in start order).
	FlowSeriesMax int `json:"flow_series_max"`
	// ClockHz is the engine clock, Hz (every NIC and the network).
	ClockHz engine.Freq `json:"clock_hz"`
	// Workers splits the network into this many partitions, each on its
	// own engine and goroutine (a conservative parallel run whose window
	// is the least delay of a link between partitions:
	// network.Network.Partition, docs/scenarios.md); 0 or 1 runs on one
	// engine. The results are the same either way, byte for byte, so it is
	// not part of the scenario: the result's Config and config.json record
	// 0. At most MaxWorkers.
	Workers int `json:"workers,omitempty"`
}

// MaxWorkers bounds run.workers.
const MaxWorkers = 64

// Config is everything a scenario run needs. A built-in scenario is a
// Config; a JSON file given with --config overlays it (keys absent from
// the file keep the scenario's values; lists are replaced whole; unknown
// keys are rejected at any level).
type Config struct {
	Name        string           `json:"name"`
	Description string           `json:"description"`
	CC          nicmodel.CCMode  `json:"cc"`
	Model       nicmodel.Model   `json:"model"`
	Topology    network.Topology `json:"topology"`
	Network     network.Config   `json:"network"`
	HPCC        HPCCParams       `json:"hpcc"`
	LDCP        LDCPParams       `json:"ldcp"`
	DCQCN       DCQCNParams      `json:"dcqcn"`
	NIC         NICParams        `json:"nic"`
	Traffic     network.Traffic  `json:"traffic"`
	Run         RunParams        `json:"run"`
	// Reference lists what the sources report for this experiment, shown
	// next to the run's own figures (documentation, not an input).
	Reference []ReferenceFigure `json:"reference,omitempty"`
}

// ReferenceFigure is a number a source reports for this experiment, shown
// next to the run's own figure in the report (not an input).
type ReferenceFigure struct {
	Metric string `json:"metric"`
	Value  string `json:"value"`
	Source string `json:"source"`
}

// Limits of scenario parameters.
const (
	MaxSamples   = 2_000_000
	maxFlowCount = 200_000
)

func cerr(field string, v any, rule string) error {
	return fmt.Errorf("scenario: %s=%v: %s", field, v, rule)
}

// Validate checks the scenario parameters (the network, topology and NIC
// configurations are validated when they are built) and names the field
// and value of the first problem.
func (c *Config) Validate() error {
	if !knownCC(c.CC) {
		return cerr("cc", c.CC, "must be "+ccChoices)
	}
	if c.Model != nicmodel.Fixed && c.Model != nicmodel.Float {
		return cerr("model", c.Model, "must be fixed or float")
	}
	if err := c.Topology.Validate(); err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	if err := c.Network.Validate(); err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	if f, cl := c.Traffic.MaxClassOf(); cl >= c.Network.Switch.QoS.NumClasses() {
		return cerr(f, cl, fmt.Sprintf("must be a class of network.switch.qos.classes (%d configured)", len(c.Network.Switch.QoS.Classes)))
	}
	if err := c.HPCC.Encoding.Validate(); err != nil {
		return fmt.Errorf("scenario: hpcc.encoding: %w", err)
	}
	h := &c.HPCC
	if !(h.Eta > 0 && h.Eta < 1) {
		return cerr("hpcc.eta", h.Eta, "must be in (0,1)")
	}
	if h.MaxStage < 1 || h.MaxStage > 255 {
		return cerr("hpcc.max_stage", h.MaxStage, "must be in [1,255] (0 leaves no additive-increase stage; as cc/hpcc)")
	}
	if math.IsNaN(h.WAIBytes) || math.IsInf(h.WAIBytes, 0) || h.WAIBytes < 0 {
		return cerr("hpcc.w_ai_bytes", h.WAIBytes, "must be a finite number >= 0")
	}
	if h.WAIBytes == 0 && (h.WAIFlows < 1 || h.WAIFlows > 1<<20) {
		return cerr("hpcc.w_ai_flows", h.WAIFlows, "must be in [1,2^20] when w_ai_bytes=0")
	}
	if h.MultiQ && c.CC != nicmodel.CCHPCC {
		return cerr("hpcc.multiq", true, fmt.Sprintf("needs cc=hpcc (cc=%v)", c.CC))
	}
	if h.Sojourn && !c.Network.Switch.Sojourn {
		return cerr("hpcc.sojourn", true, "needs network.switch.sojourn=true (else every record's sojourn is 0)")
	}
	if h.RxNotifyPeriodNs > 1_000_000_000 {
		return cerr("hpcc.rx_notify_period_ns", h.RxNotifyPeriodNs, "must be in [0,1e9] (0: T)")
	}
	n := &c.NIC
	if n.MTU < 64 || n.MTU > 4096 {
		return cerr("nic.mtu", n.MTU, "must be in [64,4096]")
	}
	if n.AckEvery < 1 || n.AckEvery > 1<<16 {
		return cerr("nic.ack_every", n.AckEvery, "must be in [1,65536]")
	}
	if n.RxAckEvery < 0 || n.RxAckEvery > 1<<16 {
		return cerr("nic.rx_ack_every", n.RxAckEvery, "must be in [0,65536]")
	}
	if n.AckTimeoutNs > 1_000_000_000 {
		return cerr("nic.ack_timeout_ns", n.AckTimeoutNs, "must be in [0,1e9]")
	}
	if n.RTONs != 0 && (n.RTONs < 1000 || n.RTONs > 10_000_000_000) {
		return cerr("nic.rto_ns", n.RTONs, "must be 0 (default) or in [1000,1e10]")
	}
	if err := c.validateCCParams(); err != nil {
		return err
	}
	r := &c.Run
	if err := r.ClockHz.Validate(); err != nil {
		return fmt.Errorf("scenario: run.clock_hz: %w", err)
	}
	if r.ClockHz != c.Network.ClockHz {
		return cerr("network.clock_hz", uint64(c.Network.ClockHz), fmt.Sprintf("must equal run.clock_hz=%d", uint64(r.ClockHz)))
	}
	if r.SampleNs < 10 {
		return cerr("run.sample_ns", r.SampleNs, "must be at least 10")
	}
	span := r.DurationNs
	if span == 0 {
		if r.LimitNs == 0 {
			return cerr("run.limit_ns", 0, "must be positive when run.duration_ns=0")
		}
		span = r.LimitNs
	}
	if err := c.trafficWithin(span); err != nil {
		return err
	}
	if span/r.SampleNs > MaxSamples {
		return cerr("run.sample_ns", r.SampleNs, fmt.Sprintf("gives more than %d samples over %d ns", MaxSamples, span))
	}
	if r.BottleneckHost < -1 || r.BottleneckHost >= c.Topology.NumHosts() {
		return cerr("run.bottleneck_host", r.BottleneckHost, fmt.Sprintf("must be -1 or a host in [0,%d)", c.Topology.NumHosts()))
	}
	if r.FlowSeriesMax < 0 || r.FlowSeriesMax > 1024 {
		return cerr("run.flow_series_max", r.FlowSeriesMax, "must be in [0,1024]")
	}
	if r.Workers < 0 || r.Workers > MaxWorkers {
		return cerr("run.workers", r.Workers, fmt.Sprintf("must be in [0,%d] (0 or 1: one engine)", MaxWorkers))
	}
	return nil
}

// trafficWithin refuses traffic that starts at or after the run's horizon
// span (run.duration_ns, else run.limit_ns): such a flow could never send
// a byte, and a run of it would report nothing.
func (c *Config) trafficWithin(span uint64) error {
	horizon := "run.limit_ns"
	if c.Run.DurationNs != 0 {
		horizon = "run.duration_ns"
	}
	rule := fmt.Sprintf("must be before the run's end (%s=%d)", horizon, span)
	for i, f := range c.Traffic.Flows {
		if f.StartNs >= span {
			return cerr(fmt.Sprintf("traffic.flows[%d].start_ns", i), f.StartNs, rule)
		}
	}
	for i, in := range c.Traffic.Incast {
		if in.StartNs >= span {
			return cerr(fmt.Sprintf("traffic.incast[%d].start_ns", i), in.StartNs, rule)
		}
		// The last burst starts at start_ns + (repeat-1)*period_ns; checked
		// without overflow (a wrapped sum would start it early).
		if rep := uint64(max(in.Repeat, 1)); rep > 1 && in.PeriodNs > (span-1-in.StartNs)/(rep-1) {
			return cerr(fmt.Sprintf("traffic.incast[%d].period_ns", i), in.PeriodNs,
				fmt.Sprintf("the last of repeat=%d bursts from start_ns=%d would start at or after the run's end (%s=%d)", in.Repeat, in.StartNs, horizon, span))
		}
	}
	if r := c.Traffic.Random; r != nil && r.StartNs >= span {
		return cerr("traffic.random.start_ns", r.StartNs, rule)
	}
	return nil
}

// Overlay returns base with the JSON object read from r applied on top:
// keys absent from the file keep base's values, lists are replaced whole,
// and a key that is not a parameter, at any level, is an error naming it;
// keys are exact (case-sensitive, each at most once) and the file must
// hold one JSON object (null is refused; package internal/strictjson).
// The result is validated.
func Overlay(base Config, r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("scenario: read config: %w", err)
	}
	c := base
	// Lists and the raw NIC fragment must not alias base's.
	c.Traffic = cloneTraffic(base.Traffic)
	c.NIC.Overrides = append(json.RawMessage(nil), base.NIC.Overrides...)
	if err := strictjson.Decode(data, &c); err != nil {
		return Config{}, fmt.Errorf("scenario: config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

func cloneTraffic(t network.Traffic) network.Traffic {
	o := network.Traffic{Flows: append([]network.Flow(nil), t.Flows...)}
	for _, in := range t.Incast {
		in.Senders = append([]int(nil), in.Senders...)
		o.Incast = append(o.Incast, in)
	}
	if t.Random != nil {
		r := *t.Random
		r.Hosts = append([]int(nil), r.Hosts...)
		o.Random = &r
	}
	return o
}

// JSON returns the configuration as indented JSON (the form Overlay
// reads).
func (c Config) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("scenario: config: %w", err)
	}
	return append(b, '\n'), nil
}

// nicConfig derives host i's NIC configuration: nicmodel.DefaultConfig,
// the scenario's parameters, then NIC.Overrides. T is baseRTT (ns), the
// line rate the host link's, qps the QP table size.
func (c *Config) nicConfig(baseRTT uint32, gbps uint32, qps int) (nicmodel.Config, error) {
	n := nicmodel.DefaultConfig()
	n.ClockHz = c.Run.ClockHz
	n.QPs = max(qps, 1)
	n.CC = c.CC
	n.Model = c.Model
	n.MACOverheadBytes = c.Network.MACOverheadBytes
	h := hpcc.DefaultConfigFor(c.HPCC.Encoding)
	h.Mode = hpcc.Sender
	if c.CC == nicmodel.CCHPCCRx {
		h.Mode = hpcc.Receiver
		h.DynamicWAI = c.HPCC.RxDynamicWAI
		h.NotifyPeriodNs = c.HPCC.RxNotifyPeriodNs
	}
	h.BaseRTTNs = baseRTT
	h.Eta = c.HPCC.Eta
	h.MaxStage = c.HPCC.MaxStage
	h.NICSpeedGbps = gbps
	// W_init = NIC speed * T (flows start at line rate, draft section 5),
	// W_max = W_init.
	winit := float64(gbps) * float64(baseRTT) / 8
	h.WInitBytes, h.WMaxBytes = winit, winit
	h.WMinBytes = min(h.WMinBytes, winit)
	if c.HPCC.WAIBytes > 0 {
		h.WAIBytes = c.HPCC.WAIBytes
	} else {
		h.WAIBytes = winit * (1 - c.HPCC.Eta) / float64(c.HPCC.WAIFlows)
	}
	h.MaxQueueBytes = max(h.MaxQueueBytes, c.Network.Switch.BufferBytes)
	h.Sojourn = c.HPCC.Sojourn
	h.MaxLinkSpeedGbps = max(h.MaxLinkSpeedGbps, c.Topology.HostLink.Gbps, c.Topology.FabricLink.Gbps)
	n.HPCC = h
	n.Scheduler.MTU = c.NIC.MTU
	n.Tx.PathMTU = pathMTU(c.NIC.MTU)
	tns := c.NIC.AckTimeoutNs
	if tns == 0 {
		tns = uint64(baseRTT)
	}
	timeout := int(min(c.Run.ClockHz.CyclesNS(tns), 1<<32))
	if c.CC != nicmodel.CCHPCCRx {
		n.Tx.AckEvery = c.NIC.AckEvery
	} else {
		n.Tx.AckEvery = c.NIC.RxAckEvery
		if n.Tx.AckEvery == 0 {
			n.Tx.AckEvery = 1 << 16
		}
	}
	n.Tx.AckTimeoutCycles = 0
	if n.Tx.AckEvery > 1 {
		n.Tx.AckTimeoutCycles = timeout
	}
	n.Tx.AckReqLast = true
	c.ccModuleConfig(&n, baseRTT, gbps)
	if len(bytes.TrimSpace(c.NIC.Overrides)) > 0 {
		if err := strictjson.Decode(c.NIC.Overrides, &n); err != nil {
			return nicmodel.Config{}, fmt.Errorf("scenario: nic.overrides: %w", err)
		}
	}
	if err := n.Validate(); err != nil {
		return nicmodel.Config{}, fmt.Errorf("scenario: nic: %w", err)
	}
	return n, nil
}

// pathMTU is the smallest RoCE path MTU that carries mtu payload bytes.
func pathMTU(mtu int) int {
	for _, p := range []int{256, 512, 1024, 2048, 4096} {
		if mtu <= p {
			return p
		}
	}
	return 4096
}
