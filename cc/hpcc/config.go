package hpcc

import (
	"encoding/json"
	"fmt"
	"github.com/hpccgold/hpccgold/internal/enumtext"
	"io"
	"math"
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"

	"github.com/hpccgold/hpccgold/internal/strictjson"
)

// MaxHopsLimit is the largest MaxHops a configuration may ask for. State and
// Input hold fixed arrays of this size so that Update never allocates;
// entries at and above Config.MaxHops are ignored.
const MaxHopsLimit = 8

// Mode selects which procedure of the HPCC++ draft the datapath runs.
type Mode uint8

const (
	// Sender runs NewAck (draft section 4.2, lines 21-27): Wc is committed when
	// an ACK acknowledges data sent after the last commit (seq >
	// lastUpdateSeq), and lastUpdateSeq then becomes snd_nxt.
	Sender Mode = 1
	// Receiver runs Rx-HPCC's NewINT (draft section 6.2, lines 28-34): Wc is
	// committed, and a notification carrying W sent, when more than T has
	// passed since the last commit; otherwise W is updated locally.
	Receiver Mode = 2
)

// String returns "sender" or "receiver".
func (m Mode) String() string {
	switch m {
	case Sender:
		return "sender"
	case Receiver:
		return "receiver"
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m Mode) MarshalText() ([]byte, error) {
	if m != Sender && m != Receiver {
		return nil, fmt.Errorf("hpcc: Mode=%d: must be sender or receiver", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("hpcc: mode", b, Sender, Receiver)
	if err == nil {
		*m = v
	}
	return err
}

// Formats are the fixed-point formats of the golden datapath's signals
// (notation of package fixedpoint: uW.I = unsigned, W bits of which I are
// integer bits; u32.8 has 8 integer and 24 fraction bits).
// Every signal not listed here has a format derived from these and from the
// configuration by a documented rule (see Datapath.Signals and
// docs/datapath.md).
type Formats struct {
	U        fixedpoint.Format `json:"u"`          // U, u' and U_init (normalized inflight, dimensionless); also UMax = U.Max
	W        fixedpoint.Format `json:"w"`          // W, Wc, W_ai, W_min, W_max, W_init (bytes)
	Rate     fixedpoint.Format `json:"rate"`       // pacing rate R = W/T (bytes per ns)
	Eta      fixedpoint.Format `json:"eta"`        // target utilization eta
	Term     fixedpoint.Format `json:"term"`       // per-hop qlen/(B*T) and txRate/B terms before saturation into U
	TxRate   fixedpoint.Format `json:"tx_rate"`    // per-hop txBytes delta / ts delta (counter units per ns)
	RecipDts fixedpoint.Format `json:"recip_dts"`  // output of the 1/dts reciprocal unit (1/ns)
	RecipU   fixedpoint.Format `json:"recip_u"`    // output of the 1/U reciprocal unit
	EtaOverU fixedpoint.Format `json:"eta_over_u"` // eta * (1/U), the multiplicative factor of line 13
	RecipN   fixedpoint.Format `json:"recip_n"`    // output of the 1/N reciprocal unit (receiver, dynamic W_ai)
}

// RecipParams configures one reciprocal unit (fixedpoint.Reciprocal): a
// table of 2^TableBits entries of EntryBits bits indexed by the bits after
// the leading one of the normalized input, refined by NRSteps Newton-Raphson
// iterations.
type RecipParams struct {
	TableBits int `json:"table_bits"`
	EntryBits int `json:"entry_bits"`
	NRSteps   int `json:"nr_steps"`
}

// MultiQConfig enables the MultiQ variant of MeasureInflight from the HPCC++
// slides (seeds 002_..., "HPCC++ MultiQ Algorithm") in the float reference
// and the golden datapath (multiq.go; docs/datapath.md section 5a): the
// flow's traffic class j is guaranteed the rate wB_j = ClassWeight * B on
// every link, and telemetry reports the class's own txBytes and queue (the
// wire fields are unchanged). The datapath quantizes ClassWeight to
// MQWeightFormat (u17.1).
type MultiQConfig struct {
	Enabled bool `json:"enabled"`
	// ClassWeight is w in wB_j = w * B, in (0, 1].
	ClassWeight float64 `json:"class_weight"`
	// BacklogBytes is the queue length above which the class counts as
	// backlogged (the slides: "qlen_j != 0 (or > small amount, e.g. 1.5KB)").
	BacklogBytes float64 `json:"backlog_bytes"`
}

// Config is the one configuration of HPCC++ in hpccgold: algorithm
// parameters, the telemetry encoding, the bounds the hardware is sized for,
// and the datapath's formats and table sizes. The float reference, the
// golden datapath, the field tables (vectors, RTL ports) and the reciprocal
// ROM contents are all derived from it. Build one with DefaultConfig and
// change fields; Validate before use (NewDatapath and NewReference do).
type Config struct {
	Mode     Mode               `json:"mode"`
	Encoding telemetry.Encoding `json:"encoding"`
	// MaxHops is the number of hop slots of the unrolled hop loop (draft
	// section 7.1: "the path length is often no more than 5 hops").
	MaxHops int `json:"max_hops"`

	// BaseRTTNs is T, the known baseline RTT in ns (draft Figure 3: 5 us).
	BaseRTTNs uint32 `json:"base_rtt_ns"`
	// MaxBaseRTTNs is the largest T the datapath's T-sized registers (tau,
	// T - tau) are built for; BaseRTTNs must not exceed it.
	MaxBaseRTTNs uint32 `json:"max_base_rtt_ns"`
	// Eta is the target link utilization (draft Figure 3: 95%).
	Eta float64 `json:"eta"`
	// MaxStage is the number of additive-increase stages before a
	// multiplicative step (draft Figure 3: 5), 1..255: with 0 every update
	// would be multiplicative and W_ai never applied.
	MaxStage int `json:"max_stage"`
	// NICSpeedGbps is the NIC line rate; it sets the defaults W_init =
	// NICSpeed * T (flows start at line rate, draft section 5) and W_max =
	// W_init (the window never asks for more than line rate, as the HPCC
	// authors' simulator caps the rate at the NIC rate).
	NICSpeedGbps uint32 `json:"nic_speed_gbps"`
	// WInitBytes is the window of a new flow (the drafts leave it open; we use
	// the NIC's bandwidth-delay product).
	WInitBytes float64 `json:"w_init_bytes"`
	// WAIBytes is W_ai, the additive increase. Default: the draft section 5
	// rule of thumb W_init*(1-eta)/N with N = 50 expected concurrent flows.
	WAIBytes float64 `json:"w_ai_bytes"`
	// WMinBytes and WMaxBytes bound W (and Wc): the drafts are silent; we
	// keep at least one MTU (1000-byte packets) in flight and never more than
	// W_max.
	WMinBytes float64 `json:"w_min_bytes"`
	WMaxBytes float64 `json:"w_max_bytes"`
	// UInit is U of a new flow (the HPCC authors' simulator starts at 1).
	UInit float64 `json:"u_init"`
	// MaxDeltaTsNs is the largest per-hop timestamp difference accepted as a
	// measurement; a larger gap (an idle flow) could hide a txBytes wrap, so
	// that hop only re-baselines. Must satisfy MaxDeltaTsNs * B_max <
	// txBytes wrap and MaxDeltaTsNs < the timestamp wrap.
	MaxDeltaTsNs uint64 `json:"max_delta_ts_ns"`
	// SeqBits is the width of seq, snd_nxt and lastUpdateSeq (sender mode);
	// they are compared as serial numbers modulo 2^SeqBits.
	SeqBits int `json:"seq_bits"`
	// TimeBits is the width of now and lastUpdateTime (receiver mode, ns,
	// wrapping).
	TimeBits int `json:"time_bits"`
	// NotifyPeriodNs (receiver mode) is the notification period P, ns: the
	// receiver commits Wc and sends a notification when more than P has
	// elapsed since the last one (draft section 6.2 line 29 with P in place
	// of T; the slides' Rx-HPCC runs use P = 4.5 us with T = 9 us). 0: P = T
	// (BaseRTTNs), the draft's rule. T keeps its other roles (the EWMA
	// horizon tau <= T, W_init, R = W/T). Must be below 2^TimeBits - 1
	// (now - lastUpdateTime is TimeBits wide).
	NotifyPeriodNs uint32 `json:"notify_period_ns,omitempty"`
	// DynamicWAI (receiver mode) sets W_ai = W_init*(1-eta)/N per event from
	// the receiver-measured number of concurrent flows N (draft section 5
	// rule of thumb, section 6.2 last paragraph; slides "Dynamic W_AI").
	DynamicWAI bool `json:"dynamic_w_ai"`
	// FlowCountBits is the width of the N input (dynamic W_ai).
	FlowCountBits int `json:"flow_count_bits"`
	// TrackHopIdentity stores each hop's switch and port identity (IFA only)
	// so that a changed hop is detected and re-baselined instead of
	// differenced against another link's counters.
	TrackHopIdentity bool `json:"track_hop_identity"`

	// MaxLinkSpeedGbps is the fastest link the datapath supports; speed codes
	// above it are treated as invalid hops (their table entries are 0).
	MaxLinkSpeedGbps uint32 `json:"max_link_speed_gbps"`
	// MaxQueueBytes is the deepest switch queue the range analysis assumes.
	MaxQueueBytes uint64 `json:"max_queue_bytes"`

	Formats Formats `json:"formats"`
	// TableEntryBits is the width of the per-speed-code ROM entries and of the
	// derived constants (1/T, W_init*(1-eta)); their exponent is derived
	// from the largest entry (see docs/datapath.md, table generation).
	TableEntryBits int          `json:"table_entry_bits"`
	RecipDts       RecipParams  `json:"recip_dts_unit"`
	RecipU         RecipParams  `json:"recip_u_unit"`
	RecipN         RecipParams  `json:"recip_n_unit"`
	MultiQ         MultiQConfig `json:"multiq"`
	// Sojourn (draft section 9.4) takes each hop's queue term from the
	// packet's sojourn time in the switch, the egress minus the ingress
	// timestamp (IFA residenceTime, ns), in place of the queue length:
	// u' = min(sojourn, last sojourn)/T + txRate/B. The datapath keeps the
	// sojourn, saturated at the qlen field's maximum (2^24-1 ns), in the
	// hop's qlen slot of the flow table, and the kq ROM holds 1/T for every
	// speed. IFA only (Compact carries no ingress time); not with MultiQ.
	Sojourn bool `json:"sojourn,omitempty"`
}

// DefaultConfig returns the default configuration: sender mode, IFA
// telemetry, 5 hops, the drafts' T = 5 us, eta = 0.95, maxStage = 5, a
// 100 Gbps NIC, and formats that pass the range analysis with per-step
// relative error on W below 2^-10.
func DefaultConfig() Config { return DefaultConfigFor(telemetry.IFA) }

// DefaultConfigFor returns DefaultConfig with the given telemetry encoding;
// only the encoding-dependent fields (MaxDeltaTsNs, TrackHopIdentity,
// TxRate and RecipDts formats) differ.
func DefaultConfigFor(e telemetry.Encoding) Config {
	c := Config{
		Mode:             Sender,
		Encoding:         e,
		MaxHops:          5,
		BaseRTTNs:        5000,
		MaxBaseRTTNs:     1<<17 - 1,
		Eta:              0.95,
		MaxStage:         5,
		NICSpeedGbps:     100,
		WInitBytes:       62500,
		WAIBytes:         62.5,
		WMinBytes:        1000,
		WMaxBytes:        62500,
		UInit:            1,
		SeqBits:          32,
		TimeBits:         32,
		FlowCountBits:    16,
		MaxLinkSpeedGbps: 400,
		MaxQueueBytes:    16 << 20,
		Formats: Formats{
			U:        fixedpoint.MustFormat("u32.8"),
			W:        fixedpoint.MustFormat("u32.24"),
			Rate:     fixedpoint.MustFormat("u32.8"),
			Eta:      fixedpoint.MustFormat("u24.0"),
			Term:     fixedpoint.MustFormat("u40.16"),
			RecipU:   fixedpoint.MustFormat("u56.24"),
			EtaOverU: fixedpoint.MustFormat("u56.24"),
			RecipN:   fixedpoint.MustFormat("u32.1"),
		},
		TableEntryBits: 32,
		RecipDts:       RecipParams{TableBits: 10, EntryBits: 20, NRSteps: 1},
		RecipU:         RecipParams{TableBits: 10, EntryBits: 20, NRSteps: 1},
		RecipN:         RecipParams{TableBits: 10, EntryBits: 20, NRSteps: 1},
		MultiQ:         MultiQConfig{ClassWeight: 1, BacklogBytes: 1500},
	}
	if e == telemetry.Compact {
		// txBytes wraps every 2^27 bytes: 2.68 ms at 400 Gbps.
		c.MaxDeltaTsNs = 1<<21 - 1
		c.Formats.TxRate = fixedpoint.MustFormat("u52.20")
		c.Formats.RecipDts = fixedpoint.MustFormat("u46.1")
	} else {
		// txBytes wraps every 2^32 bytes: 85.9 ms at 400 Gbps.
		c.MaxDeltaTsNs = 1<<26 - 1
		c.TrackHopIdentity = true
		c.Formats.TxRate = fixedpoint.MustFormat("u52.20")
		c.Formats.RecipDts = fixedpoint.MustFormat("u51.1")
	}
	return c
}

// LoadConfig reads a JSON configuration: one JSON object (null is refused)
// whose keys are exactly Config's json keys (case-sensitive, each at most
// once; package internal/strictjson). Keys not in Config are rejected;
// keys absent from the file keep their DefaultConfig values (the encoding's
// defaults when the file sets "encoding"). The result is validated.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("hpcc: read config: %w", err)
	}
	// First pass: the encoding alone, to pick the matching defaults.
	var probe struct {
		Encoding telemetry.Encoding `json:"encoding"`
	}
	base := DefaultConfig()
	if err := json.Unmarshal(data, &probe); err == nil && probe.Encoding != 0 {
		base = DefaultConfigFor(probe.Encoding)
	}
	c := base
	if err := strictjson.Decode(data, &c); err != nil {
		return Config{}, fmt.Errorf("hpcc: config: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// JSON returns the configuration as indented JSON (the form LoadConfig
// reads), for manifests and generated-file headers.
func (c Config) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("hpcc: config: %w", err)
	}
	return append(b, '\n'), nil
}

// bitsFor is the number of bits needed to hold the unsigned integer v.
func bitsFor(v uint64) int { return bits.Len64(v) }

// NHopsBits is the width of the hop-count fields (holds 0..MaxHops).
func (c Config) NHopsBits() int { return bitsFor(uint64(c.MaxHops)) }

// IncStageBits is the width of incStage (holds 0..MaxStage).
func (c Config) IncStageBits() int { return max(1, bitsFor(uint64(c.MaxStage))) }

// NotifyPeriod returns the receiver's notification period P in ns:
// NotifyPeriodNs, or T (BaseRTTNs) when it is 0.
func (c Config) NotifyPeriod() uint32 {
	if c.NotifyPeriodNs != 0 {
		return c.NotifyPeriodNs
	}
	return c.BaseRTTNs
}

// TauBits is the width of tau and T - tau (holds 0..MaxBaseRTTNs).
func (c Config) TauBits() int { return bitsFor(uint64(c.MaxBaseRTTNs)) }

// DtsInBits is the width of the 1/dts unit's input (holds 1..MaxDeltaTsNs).
func (c Config) DtsInBits() int { return bitsFor(c.MaxDeltaTsNs) }

// LastUpdateBits is the width of the per-flow lastUpdateSeq (sender) or
// lastUpdateTime (receiver) register.
func (c Config) LastUpdateBits() int {
	if c.Mode == Receiver {
		return c.TimeBits
	}
	return c.SeqBits
}

// HopTsBits is the width of a stored per-hop egress timestamp: IFA keeps
// (sec 20 bits, ns 30 bits) as sec<<30|ns (50 bits); Compact keeps its 24-bit
// ns timestamp.
func (c Config) HopTsBits() int {
	if c.Encoding == telemetry.Compact {
		return telemetry.CompactTsBits
	}
	return telemetry.IFARxSecBits + telemetry.IFAEgressNsBits
}

// HopIDBits is the width of the stored per-hop link identity: 36 (IFA with
// TrackHopIdentity) or 0.
func (c Config) HopIDBits() int {
	if c.TrackHopIdentity && c.Encoding.CarriesIdentity() {
		return c.Encoding.IdentityBits()
	}
	return 0
}

// configErr formats a validation error naming the field and its value.
func configErr(field string, v any, rule string) error {
	return fmt.Errorf("hpcc: %s=%v: %s", field, v, rule)
}

// Validate checks every field (ranges, consistency between parameters and
// formats) and then runs the range analysis (RangeAnalysis): the
// configuration is valid only if every signal fits its format or saturates
// by design. Errors name the field or signal and the value.
func (c Config) Validate() error {
	if c.Mode != Sender && c.Mode != Receiver {
		return configErr("Mode", uint8(c.Mode), "must be sender or receiver")
	}
	if err := c.Encoding.Validate(); err != nil {
		return fmt.Errorf("hpcc: %w", err)
	}
	if c.MaxHops < 1 || c.MaxHops > MaxHopsLimit {
		return configErr("MaxHops", c.MaxHops, fmt.Sprintf("must be in [1,%d]", MaxHopsLimit))
	}
	if c.MaxBaseRTTNs < 1 || c.MaxBaseRTTNs > 1<<24-1 {
		return configErr("MaxBaseRTTNs", c.MaxBaseRTTNs, "must be in [1,2^24-1]")
	}
	if c.BaseRTTNs < 1 || c.BaseRTTNs > c.MaxBaseRTTNs {
		return configErr("BaseRTTNs", c.BaseRTTNs, fmt.Sprintf("must be in [1,MaxBaseRTTNs=%d]", c.MaxBaseRTTNs))
	}
	if !(c.Eta > 0 && c.Eta < 1) {
		return configErr("Eta", c.Eta, "must be in (0,1)")
	}
	if c.MaxStage < 1 || c.MaxStage > 255 {
		// 0 would make every update multiplicative: the additive-increase
		// stage (draft section 4, "incStage < maxStage") never runs, W_ai is
		// dead and the golden vectors' additive-branch classes (and the W_min
		// clamp they derive) cannot exist.
		return configErr("MaxStage", c.MaxStage, "must be in [1,255] (0 leaves no additive-increase stage)")
	}
	if c.NICSpeedGbps == 0 {
		return configErr("NICSpeedGbps", c.NICSpeedGbps, "must be positive")
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"WInitBytes", c.WInitBytes}, {"WAIBytes", c.WAIBytes}, {"WMinBytes", c.WMinBytes}, {"WMaxBytes", c.WMaxBytes}, {"UInit", c.UInit}} {
		if math.IsNaN(p.v) || math.IsInf(p.v, 0) || p.v < 0 {
			return configErr(p.name, p.v, "must be a finite non-negative number")
		}
	}
	if !(c.WMinBytes > 0) {
		return configErr("WMinBytes", c.WMinBytes, "must be positive")
	}
	if c.WMaxBytes < c.WMinBytes {
		return configErr("WMaxBytes", c.WMaxBytes, fmt.Sprintf("must be >= WMinBytes=%v", c.WMinBytes))
	}
	if c.WInitBytes < c.WMinBytes || c.WInitBytes > c.WMaxBytes {
		return configErr("WInitBytes", c.WInitBytes, fmt.Sprintf("must be in [WMinBytes=%v,WMaxBytes=%v]", c.WMinBytes, c.WMaxBytes))
	}
	if c.SeqBits < 2 || c.SeqBits > 64 {
		return configErr("SeqBits", c.SeqBits, "must be in [2,64]")
	}
	if c.TimeBits < 2 || c.TimeBits > 64 {
		return configErr("TimeBits", c.TimeBits, "must be in [2,64]")
	}
	if c.Mode == Receiver && uint64(c.BaseRTTNs) >= uint64(1)<<uint(min(c.TimeBits, 63)) {
		return configErr("TimeBits", c.TimeBits, fmt.Sprintf("too narrow for BaseRTTNs=%d", c.BaseRTTNs))
	}
	if c.NotifyPeriodNs != 0 && c.Mode != Receiver {
		return configErr("NotifyPeriodNs", c.NotifyPeriodNs, "needs Mode=receiver (the sender commits once per round, by sequence number)")
	}
	if c.Mode == Receiver && uint64(c.NotifyPeriodNs)+1 >= uint64(1)<<uint(min(c.TimeBits, 63)) {
		return configErr("NotifyPeriodNs", c.NotifyPeriodNs, fmt.Sprintf("must be below 2^TimeBits-1=%d (TimeBits=%d)", uint64(1)<<uint(min(c.TimeBits, 63))-1, c.TimeBits))
	}
	if c.FlowCountBits < 1 || c.FlowCountBits > 32 {
		return configErr("FlowCountBits", c.FlowCountBits, "must be in [1,32]")
	}
	if c.DynamicWAI && c.Mode != Receiver {
		return configErr("DynamicWAI", c.DynamicWAI, "needs Mode=receiver (the receiver measures N)")
	}
	if c.TrackHopIdentity && !c.Encoding.CarriesIdentity() {
		return configErr("TrackHopIdentity", c.TrackHopIdentity, fmt.Sprintf("encoding %s carries no switch/port identity", c.Encoding))
	}
	if _, err := c.Encoding.SpeedCode(c.MaxLinkSpeedGbps); err != nil {
		return configErr("MaxLinkSpeedGbps", c.MaxLinkSpeedGbps, fmt.Sprintf("must be a speed of the %s encoding", c.Encoding))
	}
	if c.MaxQueueBytes == 0 {
		return configErr("MaxQueueBytes", c.MaxQueueBytes, "must be positive")
	}
	if c.MaxDeltaTsNs < 1 || c.MaxDeltaTsNs >= c.Encoding.TsWrapNs() {
		return configErr("MaxDeltaTsNs", c.MaxDeltaTsNs, fmt.Sprintf("must be in [1,%d) (the %s timestamp wrap)", c.Encoding.TsWrapNs(), c.Encoding))
	}
	// At most one txBytes wrap may fit in MaxDeltaTsNs at the fastest link:
	// MaxDeltaTsNs * B_max(bytes/ns) < wrap.
	if maxBytes := float64(c.MaxDeltaTsNs) * float64(c.MaxLinkSpeedGbps) / 8; maxBytes >= float64(c.Encoding.TxWrapBytes()) {
		return configErr("MaxDeltaTsNs", c.MaxDeltaTsNs, fmt.Sprintf("at %d Gbps the txBytes counter (wrap %d bytes) can wrap more than once", c.MaxLinkSpeedGbps, c.Encoding.TxWrapBytes()))
	}
	if c.DtsInBits() > 63 {
		return configErr("MaxDeltaTsNs", c.MaxDeltaTsNs, "too large for the 1/dts unit")
	}
	if c.TableEntryBits < 8 || c.TableEntryBits > 64 {
		return configErr("TableEntryBits", c.TableEntryBits, "must be in [8,64]")
	}
	fs := []struct {
		name string
		f    fixedpoint.Format
	}{
		{"Formats.U", c.Formats.U}, {"Formats.W", c.Formats.W}, {"Formats.Rate", c.Formats.Rate},
		{"Formats.Eta", c.Formats.Eta}, {"Formats.Term", c.Formats.Term}, {"Formats.TxRate", c.Formats.TxRate},
		{"Formats.RecipDts", c.Formats.RecipDts}, {"Formats.RecipU", c.Formats.RecipU},
		{"Formats.EtaOverU", c.Formats.EtaOverU}, {"Formats.RecipN", c.Formats.RecipN},
	}
	for _, f := range fs {
		if err := f.f.Validate(); err != nil {
			return fmt.Errorf("hpcc: %s=%q: %w", f.name, f.f.String(), err)
		}
		if f.f.Signed {
			return configErr(f.name, f.f.String(), "must be unsigned (every signal it holds is non-negative)")
		}
		if f.f.W > 64 {
			return configErr(f.name, f.f.String(), "must be at most 64 bits wide")
		}
	}
	for _, r := range []struct {
		name string
		p    RecipParams
	}{{"RecipDts", c.RecipDts}, {"RecipU", c.RecipU}, {"RecipN", c.RecipN}} {
		if r.p.TableBits < 1 || r.p.TableBits > 16 {
			return configErr(r.name+".TableBits", r.p.TableBits, "must be in [1,16]")
		}
		if r.p.EntryBits < 4 || r.p.EntryBits > 64 {
			return configErr(r.name+".EntryBits", r.p.EntryBits, "must be in [4,64]")
		}
		if r.p.NRSteps < 0 || r.p.NRSteps > 3 {
			return configErr(r.name+".NRSteps", r.p.NRSteps, "must be in [0,3]")
		}
	}
	if c.Sojourn && c.Encoding != telemetry.IFA {
		return configErr("Sojourn", c.Sojourn, fmt.Sprintf("needs the ifa encoding (%s carries no ingress timestamp)", c.Encoding))
	}
	if c.Sojourn && c.MultiQ.Enabled {
		return configErr("Sojourn", c.Sojourn, "not modelled together with MultiQ")
	}
	if c.MultiQ.Enabled {
		if !(c.MultiQ.ClassWeight > 0 && c.MultiQ.ClassWeight <= 1) {
			return configErr("MultiQ.ClassWeight", c.MultiQ.ClassWeight, "must be in (0,1]")
		}
		if !(c.MultiQ.BacklogBytes >= 0) || math.IsInf(c.MultiQ.BacklogBytes, 0) {
			return configErr("MultiQ.BacklogBytes", c.MultiQ.BacklogBytes, "must be a finite non-negative number")
		}
		if _, err := c.mqWeight(); err != nil {
			return err
		}
	}
	rep, err := c.RangeAnalysis()
	if err != nil {
		return err
	}
	return rep.Err()
}
