package dcqcn

import (
	"encoding/json"
	"fmt"
	"github.com/hpccgold/hpccgold/internal/enumtext"
	"io"
	"math"

	"github.com/hpccgold/hpccgold/internal/strictjson"
)

// Variant selects the DCQCN algorithm variant.
type Variant uint8

const (
	// Paper is the algorithm of the DCQCN paper (SIGCOMM 2015, section 3):
	// every CNP cuts the rate (RT = RC, RC = RC*(1 - alpha/2)) and updates
	// alpha = (1-g)*alpha + g; alpha decays by (1-g) every AlphaTimerNs
	// without a CNP; the rate increases on timer (IncreaseTimerNs) and byte
	// counter (ByteCounterBytes) expirations with QCN's phases: fast
	// recovery while both counts are at most F, additive increase when one
	// exceeds F, hyper increase (RT += (min(T, BC) - F)*R_HAI) when both do.
	Paper Variant = 1
	// Mellanox is the "Mellanox version of DCQCN" of the HPCC authors'
	// simulator (rdma-hw.cc, cnp_received_mlx and the functions it
	// schedules): alpha is set to 1 at the first CNP and updated every
	// AlphaTimerNs with the CNP-arrived bit (alpha = (1-g)*alpha + g if a
	// CNP arrived since the last update, else (1-g)*alpha); the rate is cut
	// at most once per RateDecreaseIntervalNs, at a periodic check, if a CNP
	// arrived; RT = RC at a cut only if ClampTargetRate or an increase
	// happened since the last cut; the increase timer's stage counter picks
	// the phase (stage < F fast recovery, = F additive, > F hyper increase
	// by R_HAI); there is no byte counter.
	Mellanox Variant = 2
)

// String returns "paper" or "mellanox".
func (v Variant) String() string {
	switch v {
	case Paper:
		return "paper"
	case Mellanox:
		return "mellanox"
	}
	return fmt.Sprintf("Variant(%d)", uint8(v))
}

// MarshalText implements encoding.TextMarshaler.
func (v Variant) MarshalText() ([]byte, error) {
	if v != Paper && v != Mellanox {
		return nil, fmt.Errorf("dcqcn: Variant=%d: must be paper or mellanox", uint8(v))
	}
	return []byte(v.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Variant) UnmarshalText(b []byte) error {
	x, err := enumtext.Parse("dcqcn: variant", b, Paper, Mellanox)
	if err == nil {
		*v = x
	}
	return err
}

// ECNParams are the congestion point's marking parameters on a switch
// egress queue (RED on the instantaneous queue length q): no mark below
// KminBytes, probability rising linearly from 0 to Pmax between KminBytes
// and KmaxBytes, mark every packet above KmaxBytes. The network model
// applies them; DCQCN only recommends them.
type ECNParams struct {
	KminBytes uint64  `json:"kmin_bytes"`
	KmaxBytes uint64  `json:"kmax_bytes"`
	Pmax      float64 `json:"pmax"`
}

// Config is the configuration of one DCQCN deployment: the variant, the
// reaction point's parameters, the notification point's CNP interval and
// the switches' recommended marking. Build it with DefaultConfig or
// PaperConfig; NewRP and NewNP validate it.
type Config struct {
	Variant Variant `json:"variant"`
	// LineRateGbps is the NIC line rate: a flow starts at it and never
	// exceeds it.
	LineRateGbps float64 `json:"line_rate_gbps"`
	// MinRateGbps is the floor of the current rate after a cut.
	MinRateGbps float64 `json:"min_rate_gbps"`
	// G is alpha's EWMA gain g.
	G float64 `json:"g"`
	// AlphaTimerNs is the alpha timer: K in the paper (decay after K without
	// a CNP), the alpha update period in the Mellanox variant.
	AlphaTimerNs uint64 `json:"alpha_timer_ns"`
	// RateDecreaseIntervalNs is the period of the Mellanox variant's rate
	// decrease check (0 in the paper variant: every CNP cuts).
	RateDecreaseIntervalNs uint64 `json:"rate_decrease_interval_ns"`
	// IncreaseTimerNs is the rate increase timer T.
	IncreaseTimerNs uint64 `json:"increase_timer_ns"`
	// ByteCounterBytes is the rate increase byte counter B (paper variant;
	// 0 disables it; the Mellanox variant has none).
	ByteCounterBytes uint64 `json:"byte_counter_bytes"`
	// F is the number of fast recovery steps.
	F int `json:"f"`
	// RAIMbps and RHAIMbps are the additive and hyper increase steps of RT.
	RAIMbps  float64 `json:"r_ai_mbps"`
	RHAIMbps float64 `json:"r_hai_mbps"`
	// ClampTargetRate sets RT = RC at every cut (the paper); when false (the
	// HPCC artifact's CLAMP_TARGET_RATE 0) RT is kept at a cut that follows
	// another cut with no increase in between.
	ClampTargetRate bool `json:"clamp_target_rate"`
	// CNPIntervalNs is N: the NP sends at most one CNP per flow per N ns (0:
	// one per CE-marked packet).
	CNPIntervalNs uint64 `json:"cnp_interval_ns"`
	// ECN is the recommended switch marking.
	ECN ECNParams `json:"ecn"`
}

// DefaultConfig returns the profile the HPCC paper compares against: the
// HPCC authors' simulation script (simulation/run.py, --cc dcqcn) on its
// Mellanox model, scaled to a 100 Gbps NIC as the script scales it
// (bw/25): alpha every 1 us, rate decrease check every 4 us, increase timer
// 300 us, g = 1/256, F = 1, R_AI = 5 Mbps*bw/25 = 20 Mbps, R_HAI = 50
// Mbps*bw/25 = 200 Mbps, minimum rate 1000 Mbps, no target clamp, a CNP
// flag on every ACK of a marked packet (interval 0), and ECN Kmin =
// 100 KB*bw/25 = 400 KB, Kmax = 400 KB*bw/25 = 1600 KB, Pmax = 0.2.
func DefaultConfig() Config { return MellanoxConfig(100) }

// MellanoxConfig is DefaultConfig for a NIC of lineGbps (the script's
// bw/25 scaling of R_AI, R_HAI, Kmin and Kmax).
func MellanoxConfig(lineGbps float64) Config {
	s := lineGbps / 25
	return Config{
		Variant:                Mellanox,
		LineRateGbps:           lineGbps,
		MinRateGbps:            1,
		G:                      1.0 / 256,
		AlphaTimerNs:           1_000,
		RateDecreaseIntervalNs: 4_000,
		IncreaseTimerNs:        300_000,
		F:                      1,
		RAIMbps:                5 * s,
		RHAIMbps:               50 * s,
		ECN:                    ECNParams{KminBytes: uint64(100_000 * s), KmaxBytes: uint64(400_000 * s), Pmax: 0.2},
	}
}

// PaperConfig returns the DCQCN paper's parameters (SIGCOMM 2015, section
// 3 and its parameter table) on a NIC of lineGbps: g = 1/256, K = 55 us,
// T = 55 us, B = 10 MB, F = 5, R_AI = 40 Mbps, CNP interval N = 50 us,
// Kmin = 5 KB, Kmax = 200 KB, Pmax = 1%. The paper's table gives no R_HAI
// or minimum rate; we use R_HAI = 10*R_AI (the ratio of the DCQCN ns-3
// defaults kept in the HPCC authors' rdma-hw.cc, RateAI 5 Mb/s and RateHAI
// 50 Mb/s) and its MinRate default, 100 Mbps. The values are not scaled
// with lineGbps (the paper used 40 Gbps NICs).
func PaperConfig(lineGbps float64) Config {
	return Config{
		Variant:          Paper,
		LineRateGbps:     lineGbps,
		MinRateGbps:      0.1,
		G:                1.0 / 256,
		AlphaTimerNs:     55_000,
		IncreaseTimerNs:  55_000,
		ByteCounterBytes: 10_000_000,
		F:                5,
		RAIMbps:          40,
		RHAIMbps:         400,
		ClampTargetRate:  true,
		CNPIntervalNs:    50_000,
		ECN:              ECNParams{KminBytes: 5_000, KmaxBytes: 200_000, Pmax: 0.01},
	}
}

// LoadConfig reads a JSON configuration: the "variant" key picks the
// defaults (DefaultConfig for mellanox, PaperConfig(100) for paper), other
// keys override them; unknown keys are rejected, and keys are exact
// (case-sensitive, each at most once; package internal/strictjson). The
// result is validated.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("dcqcn: read config: %w", err)
	}
	var probe struct {
		Variant Variant `json:"variant"`
	}
	c := DefaultConfig()
	if err := json.Unmarshal(data, &probe); err == nil && probe.Variant == Paper {
		c = PaperConfig(100)
	}
	if err := strictjson.Decode(data, &c); err != nil {
		return Config{}, fmt.Errorf("dcqcn: config: %w", err)
	}
	return c, c.Validate()
}

// JSON returns the configuration as indented JSON.
func (c Config) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("dcqcn: config: %w", err)
	}
	return append(b, '\n'), nil
}

func configErr(field string, v any, rule string) error {
	return fmt.Errorf("dcqcn: %s=%v: %s", field, v, rule)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every field; errors name the field and its value.
func (c Config) Validate() error {
	if c.Variant != Paper && c.Variant != Mellanox {
		return configErr("Variant", uint8(c.Variant), "must be paper or mellanox")
	}
	if !finite(c.LineRateGbps) || !(c.LineRateGbps > 0) {
		return configErr("LineRateGbps", c.LineRateGbps, "must be a finite number > 0")
	}
	if !finite(c.MinRateGbps) || !(c.MinRateGbps > 0) || c.MinRateGbps > c.LineRateGbps {
		return configErr("MinRateGbps", c.MinRateGbps, fmt.Sprintf("must be in (0, LineRateGbps=%v]", c.LineRateGbps))
	}
	if !finite(c.G) || !(c.G > 0 && c.G <= 1) {
		return configErr("G", c.G, "must be in (0,1]")
	}
	if c.AlphaTimerNs == 0 {
		return configErr("AlphaTimerNs", c.AlphaTimerNs, "must be positive")
	}
	if c.IncreaseTimerNs == 0 {
		return configErr("IncreaseTimerNs", c.IncreaseTimerNs, "must be positive")
	}
	switch c.Variant {
	case Paper:
		if c.RateDecreaseIntervalNs != 0 {
			return configErr("RateDecreaseIntervalNs", c.RateDecreaseIntervalNs, "must be 0 in the paper variant (every CNP cuts the rate)")
		}
	case Mellanox:
		if c.RateDecreaseIntervalNs == 0 {
			return configErr("RateDecreaseIntervalNs", c.RateDecreaseIntervalNs, "must be positive in the mellanox variant")
		}
		if c.ByteCounterBytes != 0 {
			return configErr("ByteCounterBytes", c.ByteCounterBytes, "must be 0 in the mellanox variant (the modelled NIC has no byte counter)")
		}
	}
	if c.F < 0 || c.F > 1000 {
		return configErr("F", c.F, "must be in [0,1000]")
	}
	for _, p := range []struct {
		name string
		v    float64
	}{{"RAIMbps", c.RAIMbps}, {"RHAIMbps", c.RHAIMbps}} {
		if !finite(p.v) || p.v < 0 {
			return configErr(p.name, p.v, "must be a finite number >= 0")
		}
	}
	if c.ECN.KmaxBytes < c.ECN.KminBytes {
		return configErr("ECN.KmaxBytes", c.ECN.KmaxBytes, fmt.Sprintf("must be >= ECN.KminBytes=%d", c.ECN.KminBytes))
	}
	if !finite(c.ECN.Pmax) || c.ECN.Pmax < 0 || c.ECN.Pmax > 1 {
		return configErr("ECN.Pmax", c.ECN.Pmax, "must be in [0,1]")
	}
	return nil
}
