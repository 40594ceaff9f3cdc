package intguard

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/internal/strictjson"
	"github.com/hpccgold/hpccgold/telemetry"
)

// ModelName is the guard's module, vector-model and field-table name.
const ModelName = "int_guard"

// TolFracBits is the number of fraction bits of the rate tolerance: the
// tolerance is RateCheck.TolQ8 / 2^TolFracBits (format u2.8).
const TolFracBits = 8

// MaxTolQ8 is the largest rate tolerance, 1023/256 (just under 4).
const MaxTolQ8 = 1<<(TolFracBits+2) - 1

// Config is the guard's configuration: the datapath it guards (its
// encoding, MaxHops and identity tracking fix every field width) and the
// five checks, each with its enable and thresholds. It is immutable once
// validated; New compiles it.
type Config struct {
	// Datapath is the configuration of the guarded HPCC++ datapath
	// (cc/hpcc): the guard's ports are the hop fields of its field tables.
	Datapath hpcc.Config `json:"datapath"`
	Qlen     QlenCheck   `json:"qlen"`
	Rate     RateCheck   `json:"rate"`
	Speed    SpeedCheck  `json:"speed"`
	Path     PathCheck   `json:"path"`
	Time     TimeCheck   `json:"time"`
}

// QlenCheck clamps a queue length above the port buffer to the buffer.
type QlenCheck struct {
	Enable bool `json:"enable"`
	// BufferBytes is the largest queue a switch port can hold, bytes. The
	// threshold in field units is floor(BufferBytes / QlenUnit), which must
	// be in [1, 2^QlenBits - 2] (so that a larger value is representable).
	BufferBytes uint64 `json:"buffer_bytes"`
}

// RateCheck clamps a txBytes delta implying a rate above B*(1+tol) over
// the egress-time delta: the largest plausible delta is
// floor(dts * B_Gbps * (256 + TolQ8) / (8 * 256 * TxBytesUnit)) units.
type RateCheck struct {
	Enable bool `json:"enable"`
	// TolQ8 is the tolerance in 1/256 (u2.8): 0..1023, 64 = 25%.
	TolQ8 uint16 `json:"tolerance_q8"`
}

// SpeedCheck clamps a speed code outside the deployed set (a reserved
// code, or a speed no link of the network has) to the slowest deployed
// speed.
type SpeedCheck struct {
	Enable bool `json:"enable"`
	// AllowedGbps are the link speeds deployed in the network, each with a
	// code in the encoding; at least one.
	AllowedGbps []uint32 `json:"allowed_gbps"`
}

// PathCheck drops the records of hops whose path changed: every hop when
// the hop count differs from the stored one, hop i when its identity
// (IFA with TrackHopIdentity) differs from the stored one.
type PathCheck struct {
	Enable bool `json:"enable"`
}

// TimeCheck drops a hop record whose egress-time delta is zero or
// negative, and the event when every hop's is.
type TimeCheck struct {
	Enable bool `json:"enable"`
	// BackWindowNs: a wrapped delta dts is negative when
	// wrap - dts <= BackWindowNs (the event's stamp at most BackWindowNs
	// behind the stored one); 0 <= BackWindowNs < wrap/2 (wrap: IFA
	// 2^20 s, Compact 2^24 ns).
	BackWindowNs uint64 `json:"back_window_ns"`
}

// Default thresholds.
const (
	DefaultBufferBytes  = 4 << 20 // 4 MiB: a shallow-buffer switch port
	DefaultTolQ8        = 64      // 25%: above the Compact txBytes quantization (128 B) over one MTU time at 100 Gbps
	DefaultBackWindowNs = 1 << 22 // 4.19 ms: a quarter of the Compact wrap
)

// DefaultConfig returns every check enabled with the default thresholds,
// guarding dp; the deployed speeds are every speed of dp's encoding up to
// dp.MaxLinkSpeedGbps.
func DefaultConfig(dp hpcc.Config) Config {
	c := Config{Datapath: dp}
	c.Qlen = QlenCheck{Enable: true, BufferBytes: DefaultBufferBytes}
	c.Rate = RateCheck{Enable: true, TolQ8: DefaultTolQ8}
	c.Path = PathCheck{Enable: true}
	c.Time = TimeCheck{Enable: true, BackWindowNs: DefaultBackWindowNs}
	c.Speed.Enable = true
	for _, g := range dp.Encoding.SpeedTable() {
		if g != 0 && g <= dp.MaxLinkSpeedGbps {
			c.Speed.AllowedGbps = append(c.Speed.AllowedGbps, g)
		}
	}
	return c
}

// Validate checks c; an error names the field and its value.
func (c Config) Validate() error {
	if err := c.Datapath.Validate(); err != nil {
		return fmt.Errorf("intguard: datapath: %w", err)
	}
	e := c.Datapath.Encoding
	qmax := c.Qlen.BufferBytes / e.QlenUnit()
	if qmax < 1 || qmax > 1<<uint(e.QlenBits())-2 {
		return fmt.Errorf("intguard: qlen.buffer_bytes=%d: must give floor(buffer/%d) in [1, %d] for %s", c.Qlen.BufferBytes, e.QlenUnit(), 1<<uint(e.QlenBits())-2, e)
	}
	if c.Rate.TolQ8 > MaxTolQ8 {
		return fmt.Errorf("intguard: rate.tolerance_q8=%d: must be in [0, %d]", c.Rate.TolQ8, MaxTolQ8)
	}
	if len(c.Speed.AllowedGbps) == 0 {
		return fmt.Errorf("intguard: speed.allowed_gbps=[]: at least one deployed speed is needed")
	}
	seen := map[uint32]bool{}
	for _, g := range c.Speed.AllowedGbps {
		if _, err := e.SpeedCode(g); err != nil {
			return fmt.Errorf("intguard: speed.allowed_gbps: %w", err)
		}
		if seen[g] {
			return fmt.Errorf("intguard: speed.allowed_gbps=%v: %d listed twice", c.Speed.AllowedGbps, g)
		}
		seen[g] = true
	}
	if w := e.TsWrapNs(); c.Time.BackWindowNs >= w/2 {
		return fmt.Errorf("intguard: time.back_window_ns=%d: must be below half the %s wrap (%d ns)", c.Time.BackWindowNs, e, w/2)
	}
	return nil
}

// LoadConfig reads a JSON configuration (the form JSON writes): keys as
// Config's json tags, exactly (internal/strictjson). Keys absent keep the
// DefaultConfig values of the datapath given in the file (or of
// hpcc.DefaultConfig when "datapath" is absent). The result is validated.
func LoadConfig(r io.Reader) (Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Config{}, fmt.Errorf("intguard: read config: %w", err)
	}
	var probe struct {
		Datapath json.RawMessage `json:"datapath"`
	}
	dp := hpcc.DefaultConfig()
	if err := json.Unmarshal(data, &probe); err == nil && len(probe.Datapath) > 0 {
		if dp, err = hpcc.LoadConfig(bytesReader(probe.Datapath)); err != nil {
			return Config{}, fmt.Errorf("intguard: datapath: %w", err)
		}
	}
	c := DefaultConfig(dp)
	c.Speed.AllowedGbps = nil // a file's list replaces the default, it is not merged
	def := DefaultConfig(dp).Speed.AllowedGbps
	if err := strictjson.Decode(data, &c); err != nil {
		return Config{}, fmt.Errorf("intguard: config: %w", err)
	}
	c.Datapath = dp
	if c.Speed.AllowedGbps == nil {
		c.Speed.AllowedGbps = def
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
		return nil, fmt.Errorf("intguard: config: %w", err)
	}
	return append(b, '\n'), nil
}

// Tolerance returns the rate tolerance as a float, for display only.
func (c Config) Tolerance() float64 { return float64(c.Rate.TolQ8) / (1 << TolFracBits) }

// encoding is a shorthand used by the field tables.
func (c Config) encoding() telemetry.Encoding { return c.Datapath.Encoding }
