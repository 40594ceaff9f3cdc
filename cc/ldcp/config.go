package ldcp

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"

	"github.com/hpccgold/hpccgold/internal/strictjson"
)

// Formats are the fixed-point formats of the golden datapath's registers
// and constants (notation of package fixedpoint: uW.I is unsigned, W bits of
// which I are integer bits). Every other signal's format is derived from
// these by a documented rule (Datapath.Signals, docs/ldcp.md).
type Formats struct {
	// Cw is the congestion window register, packets: cw, CwMax, IW, the
	// increment n*alpha/cw and every window candidate.
	Cw fixedpoint.Format `json:"cw"`
	// Param holds the constants alpha, beta, gamma and eta (packets, or
	// dimensionless for eta). Its fraction bits must not exceed Cw's, so
	// that n*beta and n*gamma add to cw exactly.
	Param fixedpoint.Format `json:"param"`
	// RecipCw is the output of the 1/cw reciprocal unit (1/packets).
	RecipCw fixedpoint.Format `json:"recip_cw"`
}

// RecipParams configures the 1/cw reciprocal unit (fixedpoint.Reciprocal):
// a table of 2^TableBits entries of EntryBits bits indexed by the bits after
// the leading one of cw, refined by NRSteps Newton-Raphson iterations.
type RecipParams struct {
	TableBits int `json:"table_bits"`
	EntryBits int `json:"entry_bits"`
	NRSteps   int `json:"nr_steps"`
}

// Config is the one configuration of LDCP in hpccgold: the draft's
// parameters, the bounds the hardware is sized for and the datapath's
// formats. The float reference, the golden datapath, the field tables and
// the reciprocal ROM are all derived from it. Build one with DefaultConfig
// and change fields; NewDatapath and NewReference validate it.
type Config struct {
	// Alpha is the additive increase: an ACK with ECE = 0 acknowledging n
	// packets adds n*alpha/cw to cw (draft section 2.2, Eq. (1)/(2)), about
	// alpha packets per RTT. The draft requires alpha > 0 (its upper bound
	// is cut off in the seed text, "0 < alpha, beta <="); default 1, as TCP
	// congestion avoidance.
	Alpha float64 `json:"alpha"`
	// Beta is the decrease per marked packet: an ACK with ECE = 1
	// acknowledging n packets subtracts n*beta (Eq. (1)/(2)). Default 1/2: a
	// round in which every packet is marked takes off about half the window,
	// ECN-TCP's reaction, but spread over the round (the draft's
	// de-synchronization argument).
	Beta float64 `json:"beta"`
	// Gamma is the sub-packet increase step and the minimum window (draft:
	// "typical values of gamma include 1/4, 1/8, 1/16"); default 1/8.
	Gamma float64 `json:"gamma"`
	// Eta is the sub-packet multiplicative decrease cw = max(gamma,
	// eta*cw); the draft chooses 1/2.
	Eta float64 `json:"eta"`
	// IWPkts is the initial window in packets: the BDP (draft section 2.3:
	// "a large enough Initial Window (e.g., BDP)"; section 3.1: "IW is set
	// to BDP"). Default BDPPackets(100 Gbps, 5 us, 1000 bytes) = 63.
	IWPkts uint32 `json:"iw_pkts"`
	// CwMaxPkts bounds cw from above (the draft is silent). Default 2*IW: a
	// window can usefully exceed the BDP only by the standing queue the ECN
	// thresholds allow.
	CwMaxPkts float64 `json:"cw_max_pkts"`
	// BaseRTTNs is the RTT of the sub-packet timer RTT/cw, ns (the draft
	// says "RTT"; a hardware sender uses the fabric's base RTT as HPCC++'s
	// T). Default 5000, HPCC++'s T, so both run on the same network.
	BaseRTTNs uint32 `json:"base_rtt_ns"`
	// MaxBaseRTTNs is the largest RTT the T register is built for.
	MaxBaseRTTNs uint32 `json:"max_base_rtt_ns"`
	// SeqBits is the width of PSNs (start, snd_una, snd_nxt, end, the
	// ACK's PSN): 24 in RoCEv2. They are compared as serial numbers.
	SeqBits int `json:"seq_bits"`
	// TimeBits is the width of now and of the sub-packet timer deadline (ns,
	// wrapping; compared as serial numbers).
	TimeBits int `json:"time_bits"`
	// AckPktsBits is the width of n, the packets one ACK acknowledges; a
	// larger cumulative advance is applied as 2^AckPktsBits - 1 packets.
	AckPktsBits int `json:"ack_pkts_bits"`
	// DelayedAckPkts is the receiver's m (draft section 2.2): an ACK for
	// at most m unmarked in-order packets, immediately on a CE-marked one.
	// Default 1: per-packet ACKs, the draft's preferred receiver.
	DelayedAckPkts uint32 `json:"delayed_ack_pkts"`

	Formats Formats     `json:"formats"`
	RecipCw RecipParams `json:"recip_cw_unit"`
}

// BDPPackets returns ceil(gbps * rttNs / 8 / mtuBytes), the bandwidth-delay
// product in whole packets (at least 1).
func BDPPackets(gbps, rttNs, mtuBytes uint32) uint32 {
	if mtuBytes == 0 {
		return 1
	}
	bytes := uint64(gbps) * uint64(rttNs) // bits
	den := 8 * uint64(mtuBytes)
	return uint32(max(1, (bytes+den-1)/den))
}

// DefaultConfig returns the default configuration: the draft's eta = 1/2,
// alpha = 1, beta = 1/2, gamma = 1/8, a 100 Gbps NIC with 1000-byte packets
// and a 5 us base RTT (IW = BDP = 63 packets, CwMax = 126), 24-bit PSNs,
// 32-bit time, n up to 255, cw in u32.12 (LSB 2^-20 packet, up to 4095
// packets) and a 1/cw unit with a 1024-entry table and one Newton-Raphson
// step (relative error below 2^-21).
func DefaultConfig() Config {
	iw := BDPPackets(100, 5000, 1000)
	return Config{
		Alpha:          1,
		Beta:           0.5,
		Gamma:          0.125,
		Eta:            0.5,
		IWPkts:         iw,
		CwMaxPkts:      2 * float64(iw),
		BaseRTTNs:      5000,
		MaxBaseRTTNs:   1<<17 - 1,
		SeqBits:        24,
		TimeBits:       32,
		AckPktsBits:    8,
		DelayedAckPkts: 1,
		Formats: Formats{
			Cw:      fixedpoint.MustFormat("u32.12"),
			Param:   fixedpoint.MustFormat("u16.4"),
			RecipCw: fixedpoint.MustFormat("u32.5"),
		},
		RecipCw: RecipParams{TableBits: 10, EntryBits: 20, NRSteps: 1},
	}
}

// LoadConfig reads a JSON configuration: one JSON object (null is refused)
// whose keys are exactly Config's json keys (case-sensitive, each at most
// once; package internal/strictjson). Keys not in Config are rejected;
// absent keys keep their DefaultConfig values. The result is validated.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("ldcp: read config: %w", err)
	}
	c := DefaultConfig()
	if err := strictjson.Decode(data, &c); err != nil {
		return Config{}, fmt.Errorf("ldcp: config: %w", err)
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
		return nil, fmt.Errorf("ldcp: config: %w", err)
	}
	return append(b, '\n'), nil
}

// RTTBits is the width of the T register (holds MaxBaseRTTNs).
func (c Config) RTTBits() int { return bits.Len64(uint64(c.MaxBaseRTTNs)) }

// MsgPktsBits is the width of a Start event's message length: SeqBits-1, so
// a whole message is less than half the PSN space and serial comparisons
// inside it are unambiguous.
func (c Config) MsgPktsBits() int { return c.SeqBits - 1 }

// NMax is the largest n the datapath applies in one ACK
// (2^AckPktsBits - 1).
func (c Config) NMax() uint64 { return uint64(1)<<uint(c.AckPktsBits) - 1 }

func configErr(field string, v any, rule string) error {
	return fmt.Errorf("ldcp: %s=%v: %s", field, v, rule)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every field (ranges and consistency between parameters and
// formats) and then runs the range analysis: the configuration is valid only
// if every signal fits its format or saturates by design. Errors name the
// field or signal and the value.
func (c Config) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"Alpha", c.Alpha}, {"Beta", c.Beta}} {
		if !finite(p.v) || !(p.v > 0) {
			return configErr(p.name, p.v, "must be a finite number > 0 (draft section 2.2)")
		}
	}
	if !finite(c.Gamma) || !(c.Gamma > 0 && c.Gamma < 1) {
		return configErr("Gamma", c.Gamma, "must be in (0,1) (the sub-packet step, draft section 2.2)")
	}
	if !finite(c.Eta) || !(c.Eta > 0 && c.Eta < 1) {
		return configErr("Eta", c.Eta, "must be in (0,1) (the sub-packet decrease factor)")
	}
	if c.SeqBits < 8 || c.SeqBits > 32 {
		return configErr("SeqBits", c.SeqBits, "must be in [8,32]")
	}
	if c.TimeBits < 8 || c.TimeBits > 63 {
		return configErr("TimeBits", c.TimeBits, "must be in [8,63]")
	}
	if c.AckPktsBits < 1 || c.AckPktsBits > 16 {
		return configErr("AckPktsBits", c.AckPktsBits, "must be in [1,16]")
	}
	if c.DelayedAckPkts < 1 || uint64(c.DelayedAckPkts) > c.NMax() {
		return configErr("DelayedAckPkts", c.DelayedAckPkts, fmt.Sprintf("must be in [1,2^AckPktsBits-1=%d]", c.NMax()))
	}
	if c.IWPkts < 1 || uint64(c.IWPkts) >= uint64(1)<<uint(c.MsgPktsBits()) {
		return configErr("IWPkts", c.IWPkts, fmt.Sprintf("must be in [1,2^%d) (half the PSN space)", c.MsgPktsBits()))
	}
	if !finite(c.CwMaxPkts) || c.CwMaxPkts < float64(c.IWPkts) || c.CwMaxPkts < 1 {
		return configErr("CwMaxPkts", c.CwMaxPkts, fmt.Sprintf("must be a finite number >= max(IWPkts=%d, 1)", c.IWPkts))
	}
	if c.MaxBaseRTTNs < 1 || c.MaxBaseRTTNs > 1<<30 {
		return configErr("MaxBaseRTTNs", c.MaxBaseRTTNs, "must be in [1,2^30]")
	}
	if c.BaseRTTNs < 1 || c.BaseRTTNs > c.MaxBaseRTTNs {
		return configErr("BaseRTTNs", c.BaseRTTNs, fmt.Sprintf("must be in [1,MaxBaseRTTNs=%d]", c.MaxBaseRTTNs))
	}
	for _, f := range []struct {
		name string
		f    fixedpoint.Format
	}{{"Formats.Cw", c.Formats.Cw}, {"Formats.Param", c.Formats.Param}, {"Formats.RecipCw", c.Formats.RecipCw}} {
		if err := f.f.Validate(); err != nil {
			return fmt.Errorf("ldcp: %s=%q: %w", f.name, f.f.String(), err)
		}
		if f.f.Signed {
			return configErr(f.name, f.f.String(), "must be unsigned (every signal it holds is non-negative)")
		}
		if f.f.W > 63 {
			return configErr(f.name, f.f.String(), "must be at most 63 bits wide")
		}
	}
	if c.Formats.Cw.I < 1 {
		return configErr("Formats.Cw", c.Formats.Cw.String(), "needs at least 1 integer bit (cw = 1 separates the two regimes)")
	}
	if c.Formats.Param.F() > c.Formats.Cw.F() {
		return configErr("Formats.Param", c.Formats.Param.String(), fmt.Sprintf("has %d fraction bits, more than Formats.Cw=%s (%d): n*beta and n*gamma must add to cw exactly", c.Formats.Param.F(), c.Formats.Cw, c.Formats.Cw.F()))
	}
	if c.Formats.Param.F() < 0 || c.Formats.Cw.F() < 0 {
		return configErr("Formats.Param", c.Formats.Param.String(), "formats with a negative number of fraction bits cannot hold gamma < 1")
	}
	if w := c.AckPktsBits + c.Formats.Param.W + c.Formats.RecipCw.W; w > 128 {
		return configErr("Formats.RecipCw", c.Formats.RecipCw.String(), fmt.Sprintf("AckPktsBits + W(Param) + W(RecipCw) = %d: the product n*alpha*recip_cw must fit 128 bits", w))
	}
	r := c.RecipCw
	if r.TableBits < 1 || r.TableBits > 16 {
		return configErr("RecipCw.TableBits", r.TableBits, "must be in [1,16]")
	}
	if r.EntryBits < 4 || r.EntryBits > 64 {
		return configErr("RecipCw.EntryBits", r.EntryBits, "must be in [4,64]")
	}
	if r.NRSteps < 0 || r.NRSteps > 3 {
		return configErr("RecipCw.NRSteps", r.NRSteps, "must be in [0,3]")
	}
	rep := c.RangeAnalysis()
	return rep.Err()
}
