package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// precisionKeys are the top-level cc/hpcc Config keys that set the
// datapath's arithmetic (formats, table entry widths, reciprocal units):
// the float reference does not read them, so the float baseline runs leave
// them at the scenario's values. Every other swept key is an algorithm
// parameter (eta, max_stage, w_ai_bytes, ...) that both models use.
var precisionKeys = map[string]bool{
	"formats": true, "table_entry_bits": true,
	"recip_dts_unit": true, "recip_u_unit": true, "recip_n_unit": true,
}

// Point is one configuration of a sweep.
type Point struct {
	// Index is the point's position in the expansion (0-based).
	Index int
	// Values are the swept parameters' values, compact JSON, in the spec's
	// parameter order.
	Values []string
	// Stages is the hpcc_update pipeline depth.
	Stages int
	// RTL is the synthesized configuration (not yet validated: a point
	// whose configuration fails validation is reported invalid).
	RTL hpcc.Config
	// Fixed is the nicmodel configuration fragment (JSON object) applied
	// to every NIC of the fixed-model scenario runs: {"hpcc": {the swept
	// cc/hpcc keys}, "module": {"stages": Stages}}.
	Fixed []byte
	// Float is Fixed without the precision keys: the fragment of the float
	// baseline runs.
	Float []byte
}

// Expand returns the spec's points: the cartesian product of the
// parameters' values, the first parameter varying slowest, with each
// point's configurations built. The result depends only on the spec.
func (s Spec) Expand() ([]Point, error) {
	base, err := s.rtlBase()
	if err != nil {
		return nil, err
	}
	vals := make([][]json.RawMessage, len(s.Params))
	total := 1
	for i, p := range s.Params {
		if vals[i], err = p.values(); err != nil {
			return nil, fmt.Errorf("explore: spec: params[%d] (%s): %w", i, p.Name, err)
		}
		total *= len(vals[i])
	}
	pts := make([]Point, 0, total)
	idx := make([]int, len(s.Params))
	for n := 0; n < total; n++ {
		pt := Point{Index: n, Stages: s.Stages, RTL: base, Values: make([]string, 0, len(s.Params))}
		hp := map[string]any{}
		for i, p := range s.Params {
			v := vals[i][idx[i]]
			pt.Values = append(pt.Values, string(v))
			if p.Name == StagesParam {
				if pt.Stages, err = stagesValue(v); err != nil {
					return nil, err
				}
				continue
			}
			if err := applyPath(&pt.RTL, p.Name, v); err != nil {
				return nil, fmt.Errorf("explore: point %d: params[%d] (%s): %w", n, i, p.Name, err)
			}
			setPath(hp, strings.Split(p.Name, "."), v)
		}
		fl := map[string]any{}
		for k, v := range hp {
			if !precisionKeys[k] {
				fl[k] = v
			}
		}
		if pt.Fixed, err = fragment(hp, pt.Stages); err != nil {
			return nil, err
		}
		if pt.Float, err = fragment(fl, pt.Stages); err != nil {
			return nil, err
		}
		pts = append(pts, pt)
		// Odometer, last parameter fastest.
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(vals[i]) {
				break
			}
			idx[i] = 0
		}
	}
	return pts, nil
}

// setPath stores v at the key path in a tree of maps.
func setPath(m map[string]any, keys []string, v json.RawMessage) {
	for _, k := range keys[:len(keys)-1] {
		sub, ok := m[k].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[k] = sub
		}
		m = sub
	}
	m[keys[len(keys)-1]] = v
}

// fragment builds the nicmodel configuration fragment of a point
// (encoding/json writes map keys sorted: the bytes depend only on the
// content).
func fragment(hp map[string]any, stages int) ([]byte, error) {
	top := map[string]any{"module": map[string]any{"stages": stages}}
	if len(hp) > 0 {
		top["hpcc"] = hp
	}
	b, err := json.Marshal(top)
	if err != nil {
		return nil, fmt.Errorf("explore: nic fragment: %w", err)
	}
	return b, nil
}

// mergeObjects deep-merges the JSON object over into base (over wins) and
// returns the compact result with sorted keys; numbers keep their exact
// text. Either may be empty.
func mergeObjects(base, over []byte) ([]byte, error) {
	dec := func(b []byte) (map[string]any, error) {
		m := map[string]any{}
		if len(bytes.TrimSpace(b)) == 0 {
			return m, nil
		}
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&m); err != nil {
			return nil, err
		}
		return m, nil
	}
	a, err := dec(base)
	if err != nil {
		return nil, fmt.Errorf("explore: merge overrides: %w", err)
	}
	b, err := dec(over)
	if err != nil {
		return nil, fmt.Errorf("explore: merge overrides: %w", err)
	}
	var merge func(dst, src map[string]any)
	merge = func(dst, src map[string]any) {
		keys := make([]string, 0, len(src))
		for k := range src {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sv := src[k]
			if sm, ok := sv.(map[string]any); ok {
				if dm, ok := dst[k].(map[string]any); ok {
					merge(dm, sm)
					continue
				}
			}
			dst[k] = sv
		}
	}
	merge(a, b)
	return json.Marshal(a)
}
