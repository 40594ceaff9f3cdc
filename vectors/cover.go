package vectors

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/bits"
	"slices"
	"strconv"
	"strings"
)

// MergeCoverage combines the manifests of the shards of one set (each
// shard i/n exactly once, all generated or captured with the same model,
// configuration, level, seed, count, class filter and capture) into the
// manifest of the whole set as far as coverage goes: counts and class hits
// are summed and cover-point bin counts added. A bit counts as toggled in
// the merge when it toggled in some shard: a bit seen only at 0 in one
// shard and only at 1 in another is not counted (a manifest records
// toggles, not the values seen), so merged toggle coverage is a lower
// bound, never more than the whole set's. Files are not merged.
func MergeCoverage(mans []*Manifest) (*Manifest, error) {
	if len(mans) == 0 {
		return nil, fmt.Errorf("vectors: merge: no manifest")
	}
	first := mans[0]
	n := first.Shard.Count
	seen := make([]bool, n)
	for i, m := range mans {
		if why := sameSet(first, m); why != "" {
			return nil, fmt.Errorf("vectors: merge: manifest %d is not a shard of the same set as manifest 0: %s", i, why)
		}
		if m.Shard.Count != n || m.Shard.Index < 0 || m.Shard.Index >= n {
			return nil, fmt.Errorf("vectors: merge: manifest %d is shard %d/%d, manifest 0 is of %d shards", i, m.Shard.Index, m.Shard.Count, n)
		}
		if seen[m.Shard.Index] {
			return nil, fmt.Errorf("vectors: merge: shard %d/%d given twice", m.Shard.Index, n)
		}
		seen[m.Shard.Index] = true
	}
	for i, ok := range seen {
		if !ok {
			return nil, fmt.Errorf("vectors: merge: shard %d/%d is missing: a merge must cover the whole set", i, n)
		}
	}
	out := *first
	out.Shard = ShardInfo{Index: 0, Count: 1, First: 0}
	out.Files = nil
	out.Classes = slices.Clone(first.Classes)
	out.Coverage = cloneCoverage(first.Coverage)
	out.Count = 0
	for ci := range out.Classes {
		out.Classes[ci].Count, out.Classes[ci].Hits = 0, 0
	}
	for i, m := range mans {
		out.Count += m.Count
		if len(m.Classes) != len(out.Classes) {
			return nil, fmt.Errorf("vectors: merge: manifest %d has %d classes, manifest 0 %d", i, len(m.Classes), len(out.Classes))
		}
		for ci, c := range m.Classes {
			if c.Name != out.Classes[ci].Name {
				return nil, fmt.Errorf("vectors: merge: manifest %d: class %d is %s, manifest 0 has %s", i, ci, c.Name, out.Classes[ci].Name)
			}
			out.Classes[ci].Count += c.Count
			out.Classes[ci].Hits += c.Hits
		}
		if i == 0 {
			continue
		}
		if err := mergeInto(&out.Coverage, &m.Coverage); err != nil {
			return nil, fmt.Errorf("vectors: merge: manifest %d: %w", i, err)
		}
	}
	if out.Count != out.Total {
		return nil, fmt.Errorf("vectors: merge: the shards hold %d vectors, the set %d", out.Count, out.Total)
	}
	return &out, nil
}

// sameSet says why b is not a shard of a's set ("" when it is).
func sameSet(a, b *Manifest) string {
	switch {
	case a.Model != b.Model:
		return fmt.Sprintf("model %s, not %s", b.Model, a.Model)
	case !bytes.Equal(compactJSON(a.Config), compactJSON(b.Config)):
		return "another configuration"
	case a.Level != b.Level || a.Seed != b.Seed || a.RandomCount != b.RandomCount || a.Total != b.Total:
		return fmt.Sprintf("level %d, seed %d, random %d, total %d; not level %d, seed %d, random %d, total %d",
			b.Level, b.Seed, b.RandomCount, b.Total, a.Level, a.Seed, a.RandomCount, a.Total)
	case !slices.Equal(a.ClassFilter, b.ClassFilter):
		return "another class filter"
	case !slices.Equal(a.Bias, b.Bias):
		return "another bias schedule"
	case (a.Capture == nil) != (b.Capture == nil):
		return "one is captured, the other generated"
	}
	if a.Capture != nil {
		ca, _ := json.Marshal(a.Capture)
		cb, _ := json.Marshal(b.Capture)
		if !bytes.Equal(ca, cb) {
			return "another capture"
		}
	}
	return ""
}

func cloneCoverage(c Coverage) Coverage {
	out := c
	out.InputBits.Fields = slices.Clone(c.InputBits.Fields)
	out.OutputBits.Fields = slices.Clone(c.OutputBits.Fields)
	out.Points = make([]PointCoverage, len(c.Points))
	for i, p := range c.Points {
		out.Points[i] = p
		out.Points[i].Counts = slices.Clone(p.Counts)
	}
	return out
}

// mergeInto adds src's coverage to dst (same tables and points).
func mergeInto(dst, src *Coverage) error {
	for _, t := range []struct {
		name     string
		dst, src *BitCoverage
	}{{"input_bits", &dst.InputBits, &src.InputBits}, {"output_bits", &dst.OutputBits, &src.OutputBits}} {
		if len(t.dst.Fields) != len(t.src.Fields) || t.dst.Width != t.src.Width {
			return fmt.Errorf("%s: another layout", t.name)
		}
		t.dst.Toggled = 0
		for i := range t.dst.Fields {
			d, s := &t.dst.Fields[i], t.src.Fields[i]
			if d.Field != s.Field || d.Width != s.Width {
				return fmt.Errorf("%s: field %d is %s, not %s", t.name, i, s.Field, d.Field)
			}
			dm, err1 := parseMask(d.Mask)
			sm, err2 := parseMask(s.Mask)
			if err1 != nil || err2 != nil {
				return fmt.Errorf("%s: field %s: toggle mask %q or %q is not a 0x hex number", t.name, d.Field, d.Mask, s.Mask)
			}
			m := dm | sm
			d.Mask = string(appendFieldHex(nil, d.Width, m))
			d.Toggled = bits.OnesCount64(m)
			t.dst.Toggled += d.Toggled
		}
	}
	if len(dst.Points) != len(src.Points) {
		return fmt.Errorf("%d cover points, not %d", len(src.Points), len(dst.Points))
	}
	for i := range dst.Points {
		d, s := &dst.Points[i], src.Points[i]
		if d.Name != s.Name || len(d.Counts) != len(s.Counts) {
			return fmt.Errorf("cover point %d is %s (%d bins), not %s (%d bins)", i, s.Name, len(s.Counts), d.Name, len(d.Counts))
		}
		d.Hit = 0
		for b := range d.Counts {
			d.Counts[b] += s.Counts[b]
			if d.Counts[b] != 0 {
				d.Hit++
			}
		}
	}
	return nil
}

// CoverageJSON is the coverage of a set (or a merge of its shards) as
// `vectors cover --format json` prints it.
type CoverageJSON struct {
	Model    string       `json:"model"`
	Count    int64        `json:"count"`
	Total    int64        `json:"total"`
	Shard    ShardInfo    `json:"shard"`
	Classes  []ClassCount `json:"classes"`
	Coverage Coverage     `json:"coverage"`
	// Functional is the functional coverage report of the set (package
	// vectors/coverage), when computed.
	Functional json.RawMessage `json:"functional,omitempty"`
}

// CoverageJSONOf returns m's coverage in the form WriteCoverageJSON prints.
func CoverageJSONOf(m *Manifest) CoverageJSON {
	return CoverageJSON{Model: m.Model, Count: m.Count, Total: m.Total, Shard: m.Shard, Classes: m.Classes, Coverage: m.Coverage}
}

// WriteCoverageJSON writes m's coverage as indented JSON.
func WriteCoverageJSON(w io.Writer, m *Manifest) error {
	b, err := json.MarshalIndent(CoverageJSONOf(m), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCoverageCSV writes m's coverage as CSV, one row per bin:
// kind,name,bin,count. Kinds: "class" (bin "generated" and "hits", or
// "generated" and "unreachable" with count 0 for a class the configuration
// cannot produce),
// "toggle" (per field: bin "toggled" and "width"), "point" (per cover-point
// bin, its label or number).
func WriteCoverageCSV(w io.Writer, m *Manifest) error {
	c := csv.NewWriter(w)
	c.Write([]string{"kind", "name", "bin", "count"})
	for _, cl := range m.Classes {
		c.Write([]string{"class", cl.Name, "generated", strconv.FormatInt(cl.Count, 10)})
		if cl.Unreachable != "" {
			c.Write([]string{"class", cl.Name, "unreachable", "0"})
			continue
		}
		if cl.Detected {
			c.Write([]string{"class", cl.Name, "hits", strconv.FormatInt(cl.Hits, 10)})
		}
	}
	for _, t := range []struct {
		name string
		b    BitCoverage
	}{{"in", m.Coverage.InputBits}, {"out", m.Coverage.OutputBits}} {
		for _, f := range t.b.Fields {
			c.Write([]string{"toggle", t.name + "." + f.Field, "toggled", strconv.Itoa(f.Toggled)})
			c.Write([]string{"toggle", t.name + "." + f.Field, "width", strconv.Itoa(f.Width)})
		}
	}
	for _, p := range m.Coverage.Points {
		for b, n := range p.Counts {
			c.Write([]string{"point", p.Name, binName(p, b), strconv.FormatUint(n, 10)})
		}
	}
	c.Flush()
	return c.Error()
}

// parseMask reads a FieldToggle mask ("0x" and hex digits).
func parseMask(s string) (uint64, error) {
	if !strings.HasPrefix(s, "0x") {
		return 0, fmt.Errorf("mask %q: want 0x and hex digits", s)
	}
	return strconv.ParseUint(s[2:], 16, 64)
}
