package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/internal/strictjson"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/telemetry"
)

// MaxPoints bounds the number of points a spec may expand into: a sweep
// larger than this is almost certainly a mistake in a range (each point is
// a synthesis and several scenario runs).
const MaxPoints = 100_000

// StagesParam is the parameter name of the hpcc_update pipeline depth
// (register stages, latency in cycles; rtl/hpccrtl.Update, and the NIC
// model's nicmodel ModuleConfig.Stages in the scenario runs). Every other
// parameter name is a dotted json key path of cc/hpcc Config
// ("formats.w", "recip_u_unit.nr_steps", "eta", "max_stage", "w_ai_bytes").
const StagesParam = "stages"

// Synthesis modes of Spec.Synth.
const (
	// SynthYosys synthesizes hpcc_update of every point with Yosys
	// (verilog.Tools.Synth: `synth -flatten`, generic gates): cells,
	// flip-flops and the longest path.
	SynthYosys = "yosys"
	// SynthNone skips Yosys: the area columns hold only the pipeliner's
	// estimates (register bits, operator count, gate-level depth).
	SynthNone = "none"
)

// Range is an integer range from From to To inclusive in steps of Step
// (Step >= 1; To >= From).
type Range struct {
	From int `json:"from"`
	To   int `json:"to"`
	Step int `json:"step"`
}

// FormatRange is a range of fixed-point formats {Sign}W.{Int} for the
// widths W of Widths (package fixedpoint notation: "u32.8" is unsigned, 32
// bits, 8 of them integer bits).
type FormatRange struct {
	Sign   string `json:"sign"` // "u" or "s"
	Int    int    `json:"int"`  // integer bits I
	Widths Range  `json:"widths"`
}

// Param is one swept parameter: its name (StagesParam or a cc/hpcc Config
// json key path) and exactly one of Values (JSON values as the
// configuration file takes them), Range (integers) or Formats.
type Param struct {
	Name    string            `json:"name"`
	Values  []json.RawMessage `json:"values,omitempty"`
	Range   *Range            `json:"range,omitempty"`
	Formats *FormatRange      `json:"formats,omitempty"`
}

// Spec is a sweep: the base configuration, the parameters and their
// values, the scenarios every point runs, and the report's choices. The
// points are the cartesian product of the parameters' values, the last
// parameter varying fastest (Expand).
type Spec struct {
	// Name names the sweep in reports.
	Name string `json:"name"`
	// Encoding is the telemetry encoding of the synthesized configuration
	// (hpcc.DefaultConfigFor): "ifa" or "compact".
	Encoding telemetry.Encoding `json:"encoding"`
	// RTLConfig overlays the synthesized configuration only (cc/hpcc
	// Config keys), e.g. {"max_hops": 1} to synthesize a reduced datapath;
	// it does not reach the scenario runs, whose NICs derive their
	// configuration from the scenario.
	RTLConfig json.RawMessage `json:"rtl_config,omitempty"`
	// Stages is the pipeline depth when it is not swept.
	Stages int `json:"stages"`
	// Params are the swept parameters, in expansion order.
	Params []Param `json:"params"`
	// Scenarios are built-in scenario names (hpccgold sim --list) with
	// cc=hpcc or hpcc-rx; each point runs each with the fixed model, and
	// each runs once per distinct algorithm setting with the float model
	// (the baseline the network metrics are compared with).
	Scenarios []string `json:"scenarios"`
	// Synth is SynthYosys or SynthNone.
	Synth string `json:"synth"`
	// FrontMetric is the network metric of the Pareto front (one of
	// MetricNames): the front minimizes area, the measured W error and the
	// largest |relative deviation from float| of this metric over the
	// scenarios.
	FrontMetric string `json:"front_metric"`
	// Tolerance is the relative deviation from float within which a
	// point's network metrics count as unchanged (0.01 = 1%).
	Tolerance float64 `json:"tolerance"`
}

// DefaultSpec returns the defaults keys absent from a spec file keep.
func DefaultSpec() Spec {
	return Spec{Encoding: telemetry.IFA, Stages: 1, Synth: SynthYosys, FrontMetric: "slow_p99", Tolerance: 0.01}
}

// LoadSpec reads a sweep spec: one JSON object whose keys are exactly
// Spec's json keys (internal/strictjson: case-sensitive, each at most
// once, unknown keys refused); absent keys keep DefaultSpec's values. The
// spec is validated and expanded (Expand) so that a bad parameter value is
// reported here, naming the parameter.
func LoadSpec(r io.Reader) (Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Spec{}, fmt.Errorf("explore: read spec: %w", err)
	}
	s := DefaultSpec()
	if err := strictjson.Decode(data, &s); err != nil {
		return Spec{}, fmt.Errorf("explore: spec: %w", err)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// JSON returns the spec as indented JSON (the form LoadSpec reads), with a
// trailing newline.
func (s Spec) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("explore: spec: %w", err)
	}
	return append(b, '\n'), nil
}

func serr(field string, v any, rule string) error {
	return fmt.Errorf("explore: spec: %s=%v: %s", field, v, rule)
}

// Validate checks the spec's fields (each error names the field and its
// value) and that it expands into at least one and at most MaxPoints
// points whose parameter values decode into the configuration.
func (s Spec) Validate() error {
	if s.Encoding != telemetry.IFA && s.Encoding != telemetry.Compact {
		return serr("encoding", s.Encoding, "want ifa or compact")
	}
	if s.Stages < 0 || s.Stages > 16 {
		return serr("stages", s.Stages, "must be in [0,16]")
	}
	if s.Synth != SynthYosys && s.Synth != SynthNone {
		return serr("synth", fmt.Sprintf("%q", s.Synth), "want yosys or none")
	}
	if metricIndex(s.FrontMetric) < 0 {
		return serr("front_metric", fmt.Sprintf("%q", s.FrontMetric), "want one of "+strings.Join(MetricNames(), ", "))
	}
	if !(s.Tolerance > 0 && s.Tolerance < 1) {
		return serr("tolerance", s.Tolerance, "must be in (0,1)")
	}
	if len(s.Scenarios) == 0 {
		return serr("scenarios", "[]", "name at least one built-in scenario")
	}
	seen := map[string]bool{}
	for i, n := range s.Scenarios {
		if seen[n] {
			return serr(fmt.Sprintf("scenarios[%d]", i), fmt.Sprintf("%q", n), "listed twice")
		}
		seen[n] = true
		c, err := scenario.Lookup(n)
		if err != nil {
			return fmt.Errorf("explore: spec: scenarios[%d]: %w", i, err)
		}
		if c.CC.String() != "hpcc" && c.CC.String() != "hpcc-rx" {
			return serr(fmt.Sprintf("scenarios[%d]", i), fmt.Sprintf("%q", n), fmt.Sprintf("runs cc=%s; explore needs cc=hpcc or hpcc-rx", c.CC))
		}
	}
	if _, err := s.rtlBase(); err != nil {
		return err
	}
	names := map[string]bool{}
	total := 1
	for i, p := range s.Params {
		if p.Name == "" {
			return serr(fmt.Sprintf("params[%d].name", i), `""`, "must name a parameter")
		}
		if names[p.Name] {
			return serr(fmt.Sprintf("params[%d].name", i), fmt.Sprintf("%q", p.Name), "swept twice")
		}
		names[p.Name] = true
		vals, err := p.values()
		if err != nil {
			return fmt.Errorf("explore: spec: params[%d] (%s): %w", i, p.Name, err)
		}
		if total > MaxPoints/len(vals) {
			return serr("params", len(s.Params), fmt.Sprintf("expands into more than %d points", MaxPoints))
		}
		total *= len(vals)
		// Every value must decode into its field (a type error is a spec
		// error; a value the configuration rejects makes an invalid point).
		for _, v := range vals {
			if p.Name == StagesParam {
				if _, err := stagesValue(v); err != nil {
					return fmt.Errorf("explore: spec: params[%d] (%s): %w", i, p.Name, err)
				}
				continue
			}
			c := hpcc.DefaultConfigFor(s.Encoding)
			if err := applyPath(&c, p.Name, v); err != nil {
				return fmt.Errorf("explore: spec: params[%d] (%s): %w", i, p.Name, err)
			}
		}
	}
	return nil
}

// values expands one parameter into its list of JSON values.
func (p Param) values() ([]json.RawMessage, error) {
	n := 0
	if len(p.Values) > 0 {
		n++
	}
	if p.Range != nil {
		n++
	}
	if p.Formats != nil {
		n++
	}
	if n != 1 {
		return nil, fmt.Errorf("give exactly one of values, range or formats (got %d)", n)
	}
	checkRange := func(field string, r Range) error {
		if r.Step < 1 || r.To < r.From {
			return fmt.Errorf("%s={from %d, to %d, step %d}: need step >= 1 and to >= from", field, r.From, r.To, r.Step)
		}
		if (r.To-r.From)/r.Step >= MaxPoints {
			return fmt.Errorf("%s: more than %d values", field, MaxPoints)
		}
		return nil
	}
	var out []json.RawMessage
	switch {
	case len(p.Values) > 0:
		seen := map[string]bool{}
		for i, v := range p.Values {
			var c bytes.Buffer
			if err := json.Compact(&c, v); err != nil {
				return nil, fmt.Errorf("values[%d]: %w", i, err)
			}
			if seen[c.String()] {
				return nil, fmt.Errorf("values[%d]=%s: listed twice", i, c.String())
			}
			seen[c.String()] = true
			out = append(out, json.RawMessage(c.Bytes()))
		}
	case p.Range != nil:
		if err := checkRange("range", *p.Range); err != nil {
			return nil, err
		}
		for v := p.Range.From; v <= p.Range.To; v += p.Range.Step {
			out = append(out, json.RawMessage(fmt.Sprintf("%d", v)))
		}
	default:
		f := p.Formats
		if f.Sign != "u" && f.Sign != "s" {
			return nil, fmt.Errorf("formats.sign=%q: want u or s", f.Sign)
		}
		if err := checkRange("formats.widths", f.Widths); err != nil {
			return nil, err
		}
		for w := f.Widths.From; w <= f.Widths.To; w += f.Widths.Step {
			out = append(out, json.RawMessage(fmt.Sprintf("%q", fmt.Sprintf("%s%d.%d", f.Sign, w, f.Int))))
		}
	}
	return out, nil
}

// stagesValue decodes a stages value: an integer in [0,16].
func stagesValue(v json.RawMessage) (int, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) || f < 0 || f > 16 {
		return 0, fmt.Errorf("value %s: stages must be an integer in [0,16]", v)
	}
	return int(f), nil
}

// pathObject wraps v into the nested object the dotted key path names:
// "formats.w", "u24.16" gives {"formats":{"w":"u24.16"}}.
func pathObject(path string, v json.RawMessage) []byte {
	keys := strings.Split(path, ".")
	var b bytes.Buffer
	for _, k := range keys {
		kb, _ := json.Marshal(k)
		b.WriteByte('{')
		b.Write(kb)
		b.WriteByte(':')
	}
	b.Write(v)
	for range keys {
		b.WriteByte('}')
	}
	return b.Bytes()
}

// applyPath sets the cc/hpcc Config field at the dotted json key path to
// v, strictly (an unknown key or a value of the wrong type is an error
// naming the key).
func applyPath(c *hpcc.Config, path string, v json.RawMessage) error {
	for _, k := range strings.Split(path, ".") {
		if k == "" {
			return fmt.Errorf("name %q: empty key in the path", path)
		}
	}
	if err := strictjson.Decode(pathObject(path, v), c); err != nil {
		return fmt.Errorf("value %s: %w", v, err)
	}
	return nil
}

// rtlBase is the synthesized configuration before the swept parameters:
// hpcc.DefaultConfigFor(Encoding) with RTLConfig over it.
func (s Spec) rtlBase() (hpcc.Config, error) {
	c := hpcc.DefaultConfigFor(s.Encoding)
	if len(bytes.TrimSpace(s.RTLConfig)) > 0 {
		if err := strictjson.Decode(s.RTLConfig, &c); err != nil {
			return c, fmt.Errorf("explore: spec: rtl_config: %w", err)
		}
		if c.Encoding != s.Encoding {
			return c, serr("rtl_config.encoding", c.Encoding, fmt.Sprintf("differs from the spec's encoding %s; set encoding instead", s.Encoding))
		}
	}
	return c, nil
}
