package scheduler

import (
	"fmt"
	"github.com/hpccgold/hpccgold/internal/enumtext"
	"math"
	"math/bits"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// RateUnit is the physical unit of the rate R on the update port.
type RateUnit uint8

const (
	// BytesPerNs: R is in bytes per nanosecond, as the HPCC++ datapath
	// computes it (R = W/T with T in ns; cc/hpcc Formats.Rate).
	BytesPerNs RateUnit = iota
	// BytesPerCycle: R is in bytes per NIC clock cycle.
	BytesPerCycle
	numRateUnits
)

// String returns "bytes_per_ns" or "bytes_per_cycle".
func (u RateUnit) String() string {
	switch u {
	case BytesPerNs:
		return "bytes_per_ns"
	case BytesPerCycle:
		return "bytes_per_cycle"
	}
	return fmt.Sprintf("RateUnit(%d)", uint8(u))
}

// MarshalText implements encoding.TextMarshaler.
func (u RateUnit) MarshalText() ([]byte, error) { return []byte(u.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (u *RateUnit) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("scheduler: RateUnit", b, allOf[RateUnit](numRateUnits)...)
	if err == nil {
		*u = v
	}
	return err
}

// WindowMode selects the window test of a flow's next packet.
type WindowMode uint8

const (
	// WindowStrict sends a packet of p payload bytes only if
	// inflight + p <= W: bytes in flight never exceed W (the NIC issue's
	// rule). A window smaller than the next packet stalls the flow until W
	// grows (counted in Counters.WindowBlocks).
	WindowStrict WindowMode = iota
	// WindowOvershoot sends while inflight < W, so bytes in flight may exceed
	// W by less than one packet (the HPCC ns-3 simulator's rule,
	// RdmaQueuePair::IsWinBound).
	WindowOvershoot
	numWindowModes
)

// String returns "strict" or "overshoot".
func (m WindowMode) String() string {
	switch m {
	case WindowStrict:
		return "strict"
	case WindowOvershoot:
		return "overshoot"
	}
	return fmt.Sprintf("WindowMode(%d)", uint8(m))
}

// MarshalText implements encoding.TextMarshaler.
func (m WindowMode) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *WindowMode) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("scheduler: WindowMode", b, allOf[WindowMode](numWindowModes)...)
	if err == nil {
		*m = v
	}
	return err
}

// Arbiter selects the arbitration among eligible flows.
type Arbiter uint8

const (
	// RoundRobin grants one packet per grant, rotating in flow-ID order from
	// the flow after the last one granted (a rotating-priority arbiter).
	RoundRobin Arbiter = iota
	// DWRR is deficit weighted round robin (Shreedhar and Varghese, 1996) in
	// rotating-priority form: the current flow keeps the grant while it is
	// eligible and its deficit covers its next packet's wire bytes; then the
	// next eligible flow in ID order becomes current and gets its quantum.
	DWRR
	numArbiters
)

// String returns "rr" or "dwrr".
func (a Arbiter) String() string {
	switch a {
	case RoundRobin:
		return "rr"
	case DWRR:
		return "dwrr"
	}
	return fmt.Sprintf("Arbiter(%d)", uint8(a))
}

// MarshalText implements encoding.TextMarshaler.
func (a Arbiter) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Arbiter) UnmarshalText(b []byte) error {
	v, err := enumtext.Parse("scheduler: Arbiter", b, allOf[Arbiter](numArbiters)...)
	if err == nil {
		*a = v
	}
	return err
}

// Limits of the configuration.
const (
	MaxFlows         = 1 << 20 // flow table entries
	MaxMTU           = 1 << 16 // payload bytes per packet
	MaxOverheadBytes = 4096    // per-packet overhead bytes
	MaxGapFracBits   = 32      // fraction bits of the gap-per-byte register
	MaxQuantum       = 1 << 24 // DWRR quantum, bytes
	MaxBurstBytes    = 1 << 24 // pacing burst credit, bytes
	MaxLineRateBps   = 10_000_000_000_000
	MaxMessagesLimit = 1 << 16 // largest MaxMessages
)

// Config is the scheduler's immutable configuration. All byte counts are
// bytes; all rates are stated with their unit.
type Config struct {
	// Flows is the number of flow table entries; flow IDs are 0..Flows-1.
	// Range [1, MaxFlows].
	Flows int `json:"flows"`
	// ClockHz is the NIC clock (engine.Freq, Hz); it converts R from bytes
	// per ns and the line rate to cycles.
	ClockHz engine.Freq `json:"clock_hz"`
	// LineRateBps is the port's line rate in bits per second: the scheduler
	// never issues wire bytes (payload + OverheadBytes) faster than this.
	// Range [1, MaxLineRateBps].
	LineRateBps uint64 `json:"line_rate_bps"`
	// MTU is the largest payload of one packet, bytes; messages are cut into
	// MTU-sized packets and a last shorter one. Range [1, MaxMTU].
	MTU int `json:"mtu"`
	// OverheadBytes is added to each packet's payload to give its wire bytes,
	// which pacing, the line-rate limit and DWRR count (the default 82 is
	// Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + ICRC 4 + FCS 4 + preamble 8 +
	// inter-frame gap 12; add telemetry headers when they are sent). The
	// window counts payload bytes only (the sequence space an ACK
	// acknowledges). Range [0, MaxOverheadBytes].
	OverheadBytes int `json:"overhead_bytes"`
	// RateFormat is the unsigned fixed-point format of R on the update port
	// (cc/hpcc Formats.Rate, default u32.8: 8 integer, 24 fraction bits).
	// W <= 64 and F >= 0.
	RateFormat fixedpoint.Format `json:"rate_format"`
	// RateUnit is the unit of R (default BytesPerNs, as cc/hpcc).
	RateUnit RateUnit `json:"rate_unit"`
	// WindowFormat is the unsigned fixed-point format of W on the update port
	// (cc/hpcc Formats.W, default u32.24: bytes with 8 fraction bits). The
	// window test uses floor(W) bytes. W <= 64, F >= 0.
	WindowFormat fixedpoint.Format `json:"window_format"`
	// GapBits is the width of the per-flow gap-per-byte register G (cycles
	// per byte, unsigned, GapFracBits fraction bits). Range [1, 64].
	GapBits int `json:"gap_bits"`
	// GapFracBits is the number of fraction bits of G and of the pacer's time
	// registers: the pacing granularity is 2^-GapFracBits cycle per byte.
	// Range [0, min(GapBits, MaxGapFracBits)].
	GapFracBits int `json:"gap_frac_bits"`
	// WindowMode is the window test (default WindowStrict).
	WindowMode WindowMode `json:"window_mode"`
	// Arbiter is the arbitration among eligible flows (default RoundRobin).
	Arbiter Arbiter `json:"arbiter"`
	// Quantum is the DWRR quantum in wire bytes for flows without an entry in
	// Quanta. It must cover the largest packet (MTU + OverheadBytes) so that
	// every visit sends at least one packet. Range [MTU+OverheadBytes,
	// MaxQuantum].
	Quantum uint32 `json:"quantum"`
	// Quanta optionally sets each flow's DWRR quantum (the flow's weight);
	// empty or exactly Flows entries, each in the Quantum range.
	Quanta []uint32 `json:"quanta,omitempty"`
	// BurstBytes is the pacing credit a flow may bank while it is not
	// sending (wire bytes): after an idle period it may send up to this many
	// bytes back to back before pacing spaces its packets. 0 is strict
	// pacing. Range [0, MaxBurstBytes].
	BurstBytes uint32 `json:"burst_bytes"`
	// MaxMessages is the depth of each flow's message queue (doorbells
	// pending, including the one being sent); a doorbell beyond it is
	// dropped and counted. Range [1, MaxMessagesLimit].
	MaxMessages int `json:"max_messages"`
	// InitWindowBytes is the window of a flow at reset, bytes (HPCC++ W_init,
	// typically one BDP). It is stored as floor(InitWindowBytes) in
	// WindowFormat and must fit it.
	InitWindowBytes uint64 `json:"init_window_bytes"`
	// InitRateBps is the pacing rate of a flow at reset in bits per second;
	// 0 means the line rate (HPCC++ starts at line rate). At most
	// LineRateBps.
	InitRateBps uint64 `json:"init_rate_bps"`
}

// DefaultConfig returns a configuration for a 100 Gbit/s NIC clocked at
// 1 GHz with 1024 flows, 1000-byte MTU, the cc/hpcc default formats (R u32.8
// bytes/ns, W u32.24 bytes), a 32-bit gap register with 16 fraction bits,
// strict windows, round robin, and a 62500-byte initial window (one BDP of
// 100 Gbit/s x 5 us).
func DefaultConfig() Config {
	return Config{
		Flows:           1024,
		ClockHz:         engine.GHz,
		LineRateBps:     100_000_000_000,
		MTU:             1000,
		OverheadBytes:   82,
		RateFormat:      fixedpoint.MustFormat("u32.8"),
		RateUnit:        BytesPerNs,
		WindowFormat:    fixedpoint.MustFormat("u32.24"),
		GapBits:         32,
		GapFracBits:     16,
		WindowMode:      WindowStrict,
		Arbiter:         RoundRobin,
		Quantum:         1082,
		BurstBytes:      0,
		MaxMessages:     256,
		InitWindowBytes: 62500,
		InitRateBps:     0,
	}
}

// maxWire is the wire bytes of the largest packet.
func (c *Config) maxWire() uint64 { return uint64(c.MTU) + uint64(c.OverheadBytes) }

// Validate reports the first invalid field, naming it and its value.
func (c *Config) Validate() error {
	bad := func(field string, v any, rule string) error {
		return fmt.Errorf("scheduler: %s=%v: %s", field, v, rule)
	}
	if c.Flows < 1 || c.Flows > MaxFlows {
		return bad("Flows", c.Flows, fmt.Sprintf("must be in [1,%d]", MaxFlows))
	}
	if err := c.ClockHz.Validate(); err != nil {
		return fmt.Errorf("scheduler: ClockHz: %w", err)
	}
	if c.LineRateBps < 1 || c.LineRateBps > MaxLineRateBps {
		return bad("LineRateBps", c.LineRateBps, fmt.Sprintf("must be in [1,%d]", uint64(MaxLineRateBps)))
	}
	if c.MTU < 1 || c.MTU > MaxMTU {
		return bad("MTU", c.MTU, fmt.Sprintf("must be in [1,%d]", MaxMTU))
	}
	if c.OverheadBytes < 0 || c.OverheadBytes > MaxOverheadBytes {
		return bad("OverheadBytes", c.OverheadBytes, fmt.Sprintf("must be in [0,%d]", MaxOverheadBytes))
	}
	for _, f := range []struct {
		name string
		f    fixedpoint.Format
	}{{"RateFormat", c.RateFormat}, {"WindowFormat", c.WindowFormat}} {
		if err := f.f.Validate(); err != nil {
			return fmt.Errorf("scheduler: %s=%v: %w", f.name, f.f, err)
		}
		if f.f.Signed || f.f.W > 64 || f.f.F() < 0 {
			return bad(f.name, f.f, "must be unsigned with W <= 64 and F >= 0")
		}
	}
	if c.RateUnit >= numRateUnits {
		return bad("RateUnit", c.RateUnit, "must be bytes_per_ns or bytes_per_cycle")
	}
	if c.GapBits < 1 || c.GapBits > 64 {
		return bad("GapBits", c.GapBits, "must be in [1,64]")
	}
	if c.GapFracBits < 0 || c.GapFracBits > min(c.GapBits, MaxGapFracBits) {
		return bad("GapFracBits", c.GapFracBits, fmt.Sprintf("must be in [0,%d] (at most GapBits and %d)", min(c.GapBits, MaxGapFracBits), MaxGapFracBits))
	}
	if c.WindowMode >= numWindowModes {
		return bad("WindowMode", c.WindowMode, "must be strict or overshoot")
	}
	if c.Arbiter >= numArbiters {
		return bad("Arbiter", c.Arbiter, "must be rr or dwrr")
	}
	if uint64(c.Quantum) < c.maxWire() || c.Quantum > MaxQuantum {
		return bad("Quantum", c.Quantum, fmt.Sprintf("must be in [%d,%d] (MTU+OverheadBytes..MaxQuantum)", c.maxWire(), MaxQuantum))
	}
	if len(c.Quanta) != 0 && len(c.Quanta) != c.Flows {
		return bad("len(Quanta)", len(c.Quanta), fmt.Sprintf("must be 0 or Flows=%d", c.Flows))
	}
	for i, q := range c.Quanta {
		if uint64(q) < c.maxWire() || q > MaxQuantum {
			return bad(fmt.Sprintf("Quanta[%d]", i), q, fmt.Sprintf("must be in [%d,%d] (MTU+OverheadBytes..MaxQuantum)", c.maxWire(), MaxQuantum))
		}
	}
	if c.BurstBytes > MaxBurstBytes {
		return bad("BurstBytes", c.BurstBytes, fmt.Sprintf("must be in [0,%d]", MaxBurstBytes))
	}
	if c.MaxMessages < 1 || c.MaxMessages > MaxMessagesLimit {
		return bad("MaxMessages", c.MaxMessages, fmt.Sprintf("must be in [1,%d]", MaxMessagesLimit))
	}
	if wmax := maxIntPart(c.WindowFormat); c.InitWindowBytes > wmax {
		return bad("InitWindowBytes", c.InitWindowBytes, fmt.Sprintf("must be at most %d (WindowFormat %v)", wmax, c.WindowFormat))
	}
	if c.InitRateBps > c.LineRateBps {
		return bad("InitRateBps", c.InitRateBps, fmt.Sprintf("must be at most LineRateBps=%d", c.LineRateBps))
	}
	// The rate conversion divides f' * 2^(RF+GF) by d' * r in 128/64 bits.
	cv := c.conversion()
	if cv.shift > 127-bits.Len64(cv.num) {
		return bad("RateFormat", c.RateFormat, fmt.Sprintf("fraction bits %d plus GapFracBits %d too many for the rate conversion", c.RateFormat.F(), c.GapFracBits))
	}
	if maxR, _ := c.RateFormat.MaxRawUint(); maxR != 0 {
		if hi, _ := bits.Mul64(maxR, cv.den); hi != 0 {
			return bad("RateFormat", c.RateFormat, fmt.Sprintf("too wide: %d * max raw must fit 64 bits", cv.den))
		}
	}
	if g, ok := c.lineGap(); !ok {
		return bad("LineRateBps", c.LineRateBps, fmt.Sprintf("too slow: gap per byte exceeds GapBits=%d", c.GapBits))
	} else if g == 0 {
		return bad("LineRateBps", c.LineRateBps, "internal: zero line gap")
	}
	return nil
}

// maxIntPart is the largest integer part of an unsigned format: floor(max).
func maxIntPart(f fixedpoint.Format) uint64 {
	m, ok := f.MaxRawUint()
	if !ok {
		return math.MaxUint64
	}
	if f.F() >= 64 {
		return 0
	}
	return m >> uint(f.F())
}

// rateConv is the rate-to-gap conversion constant: G = ceil(num * 2^shift /
// (den * r)) for a raw rate r.
type rateConv struct {
	num, den uint64
	shift    int
}

// conversion returns the constants of the rate-to-gap conversion. For bytes
// per ns, G = f / (1e9 * r * 2^-RF) cycles per byte, i.e.
// ceil(f' * 2^(RF+GF) / (d' * r)) with f'/d' = f/1e9 in lowest terms. For
// bytes per cycle, f' = d' = 1.
func (c *Config) conversion() rateConv {
	cv := rateConv{num: 1, den: 1, shift: c.RateFormat.F() + c.GapFracBits}
	if c.RateUnit == BytesPerNs {
		g := gcd(uint64(c.ClockHz), 1_000_000_000)
		cv.num, cv.den = uint64(c.ClockHz)/g, 1_000_000_000/g
	}
	return cv
}

// lineGap returns the gap per byte of the line rate, ceil(f*8*2^GF/bps),
// and whether it fits GapBits.
func (c *Config) lineGap() (uint64, bool) {
	return bpsGap(uint64(c.ClockHz), c.LineRateBps, c.GapFracBits, c.GapBits)
}

// bpsGap returns ceil(f * 8 * 2^gf / bps) and whether it fits gapBits bits.
func bpsGap(f, bps uint64, gf, gapBits int) (uint64, bool) {
	hi, lo := bits.Mul64(f*8, 1<<uint(gf))
	if hi >= bps {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, bps)
	if r != 0 {
		q++
	}
	if q == 0 || (gapBits < 64 && q >= 1<<uint(gapBits)) {
		return q, false
	}
	return q, true
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// allOf lists the n values of an enumeration declared from 0 by iota.
func allOf[T ~uint8](n T) []T {
	vals := make([]T, n)
	for i := range vals {
		vals[i] = T(i)
	}
	return vals
}
