package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hpccgold/hpccgold/internal/strictjson"
	"github.com/hpccgold/hpccgold/scenario"
)

// MaxPoints bounds a sweep's point count.
const MaxPoints = 10000

// Spec is a sweep: the scenario every point starts from, an overlay
// applied to all of them, and the grid of keys and values whose cartesian
// product gives the points.
type Spec struct {
	// Name names the sweep (informational; shown in the table's title).
	Name string `json:"name"`
	// Scenario is a built-in scenario (hpccgold sim --list).
	Scenario string `json:"scenario"`
	// Base, if set, is a scenario overlay (the form sim --config reads)
	// applied to every point before the grid's values.
	Base json.RawMessage `json:"base,omitempty"`
	// Grid lists the swept keys, the first varying slowest.
	Grid []Axis `json:"grid"`
}

// Axis is one swept configuration key and its values.
type Axis struct {
	// Key is a configuration key as sim --list names it, a dotted JSON
	// path ("hpcc.eta", "topology.host_link.gbps", "cc"); list elements
	// ("traffic.flows[]...") cannot be swept one by one (put the whole
	// list in Base, or sweep another key).
	Key string `json:"key"`
	// Values are JSON values of the key, each applied as an overlay.
	Values []json.RawMessage `json:"values"`
}

// Point is one configuration of a sweep.
type Point struct {
	Index  int               // position in the sweep, from 0
	Values []json.RawMessage // the grid's values at this point (compact JSON), one per axis
	Config scenario.Config   // the resolved, validated configuration
}

// LoadSpec reads a spec (one JSON object; unknown keys are errors) and
// checks it (Validate).
func LoadSpec(r io.Reader) (Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Spec{}, fmt.Errorf("sweep: read spec: %w", err)
	}
	var s Spec
	if err := strictjson.Decode(data, &s); err != nil {
		return Spec{}, fmt.Errorf("sweep: spec: %w", err)
	}
	for i := range s.Grid {
		for j, v := range s.Grid[i].Values {
			var b bytes.Buffer
			if err := json.Compact(&b, v); err != nil {
				return Spec{}, fmt.Errorf("sweep: grid[%d] %s value %d: %w", i, s.Grid[i].Key, j, err)
			}
			s.Grid[i].Values[j] = b.Bytes()
		}
	}
	if len(s.Base) > 0 {
		var b bytes.Buffer
		if err := json.Compact(&b, s.Base); err != nil {
			return Spec{}, fmt.Errorf("sweep: base: %w", err)
		}
		s.Base = b.Bytes()
	}
	return s, s.Validate()
}

// JSON returns the spec as indented JSON (the form LoadSpec reads).
func (s Spec) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sweep: spec: %w", err)
	}
	return append(b, '\n'), nil
}

// Validate checks the spec's shape: a known scenario, at least one axis,
// every key a configuration key (not a list element, not given twice, not
// the prefix of another), every axis with at least one value, and at most
// MaxPoints points. Whether each point's values are valid is Expand's
// business.
func (s Spec) Validate() error {
	if _, err := scenario.Lookup(s.Scenario); err != nil {
		return fmt.Errorf("sweep: scenario=%q: %w", s.Scenario, err)
	}
	if len(s.Grid) == 0 {
		return fmt.Errorf("sweep: grid is empty: give at least one key and its values")
	}
	known := map[string]bool{}
	for _, p := range scenario.Parameters() {
		known[p.Key] = true
	}
	n := 1
	for i, a := range s.Grid {
		switch {
		case strings.Contains(a.Key, "[]"):
			return fmt.Errorf("sweep: grid[%d].key=%q: list elements cannot be swept one by one (set the list in base)", i, a.Key)
		case !known[a.Key]:
			return fmt.Errorf("sweep: grid[%d].key=%q: not a configuration key (hpccgold sim --list)", i, a.Key)
		case len(a.Values) == 0:
			return fmt.Errorf("sweep: grid[%d] %s: no values", i, a.Key)
		}
		for j, b := range s.Grid[:i] {
			if a.Key == b.Key || strings.HasPrefix(a.Key, b.Key+".") || strings.HasPrefix(b.Key, a.Key+".") {
				return fmt.Errorf("sweep: grid[%d].key=%q overlaps grid[%d].key=%q", i, a.Key, j, b.Key)
			}
		}
		n *= len(a.Values)
		if n > MaxPoints {
			return fmt.Errorf("sweep: the grid has more than %d points", MaxPoints)
		}
	}
	return nil
}

// Count is the number of points (the product of the axes' value counts).
func (s Spec) Count() int {
	n := 1
	for _, a := range s.Grid {
		n *= len(a.Values)
	}
	return n
}

// Expand returns every point in order (the first axis slowest), each
// configuration resolved (the scenario, Base, then the point's values as
// one overlay) and validated; a bad value is an error naming the point,
// the keys and the values.
func (s Spec) Expand() ([]Point, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	base, err := scenario.Lookup(s.Scenario)
	if err != nil {
		return nil, err
	}
	if len(s.Base) > 0 {
		if base, err = scenario.Overlay(base, bytes.NewReader(s.Base)); err != nil {
			return nil, fmt.Errorf("sweep: base: %w", err)
		}
	}
	total := s.Count()
	pts := make([]Point, total)
	for k := range total {
		vals := make([]json.RawMessage, len(s.Grid))
		rest := k
		for i := len(s.Grid) - 1; i >= 0; i-- {
			n := len(s.Grid[i].Values)
			vals[i] = s.Grid[i].Values[rest%n]
			rest /= n
		}
		ov, err := overlay(s.Grid, vals)
		if err != nil {
			return nil, err
		}
		c, err := scenario.Overlay(base, bytes.NewReader(ov))
		if err != nil {
			return nil, fmt.Errorf("sweep: point %d (%s): %w", k, describe(s.Grid, vals), err)
		}
		pts[k] = Point{Index: k, Values: vals, Config: c}
	}
	return pts, nil
}

// overlay builds the JSON object setting each axis' key to its value.
func overlay(grid []Axis, vals []json.RawMessage) ([]byte, error) {
	root := map[string]any{}
	for i, a := range grid {
		path := strings.Split(a.Key, ".")
		m := root
		for _, p := range path[:len(path)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[path[len(path)-1]] = vals[i]
	}
	b, err := json.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("sweep: overlay: %w", err)
	}
	return b, nil
}

// describe is "key=value, ..." of a point.
func describe(grid []Axis, vals []json.RawMessage) string {
	parts := make([]string, len(grid))
	for i, a := range grid {
		parts[i] = a.Key + "=" + string(vals[i])
	}
	return strings.Join(parts, ", ")
}

// Run runs pts (scenario.RunParallel with workers runs at a time; 0: one
// per CPU) and returns each point's record and data files, in pts' order.
// onProgress, if set, receives each run's progress with its position in
// pts (serialized, as scenario.ParallelOptions.OnProgress).
func Run(ctx context.Context, pts []Point, workers int, onProgress func(i int, p scenario.Progress)) ([]Record, [][]scenario.DataFile, error) {
	cfgs := make([]scenario.Config, len(pts))
	for i, p := range pts {
		cfgs[i] = p.Config
	}
	rs, err := scenario.RunParallel(ctx, cfgs, scenario.ParallelOptions{Workers: workers, OnProgress: onProgress})
	if err != nil {
		return nil, nil, err
	}
	recs := make([]Record, len(pts))
	files := make([][]scenario.DataFile, len(pts))
	for i, r := range rs {
		recs[i] = record(pts[i], r)
		if files[i], err = r.DataFiles(); err != nil {
			return nil, nil, fmt.Errorf("sweep: point %d: %w", pts[i].Index, err)
		}
	}
	return recs, files, nil
}

// PointDir is point k's directory in a sweep's output: "points/%04d".
func PointDir(k int) string { return fmt.Sprintf("points/%04d", k) }
