package explore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestLoadSpecErrors: each bad spec is refused with an error naming the
// field (and value) at fault. Oracle: the rules of Spec.Validate.
func TestLoadSpecErrors(t *testing.T) {
	base := `"scenarios": ["demo-incast-4to1"]`
	for _, tc := range []struct{ name, spec, want string }{
		{"unknown key", `{` + base + `, "colour": 1}`, "colour"},
		{"case-sensitive key", `{` + base + `, "Synth": "none"}`, "Synth"},
		{"null", `null`, "object"},
		{"synth", `{` + base + `, "synth": "vivado"}`, `synth="vivado"`},
		{"metric", `{` + base + `, "front_metric": "latency"}`, `front_metric="latency"`},
		{"tolerance", `{` + base + `, "tolerance": 0}`, "tolerance=0"},
		{"no scenarios", `{"scenarios": []}`, "scenarios"},
		{"unknown scenario", `{"scenarios": ["nope"]}`, "nope"},
		{"non-hpcc scenario cc", `{"scenarios": ["demo-incast-4to1"], "stages": 17}`, "stages=17"},
		{"rtl_config key", `{` + base + `, "rtl_config": {"max_hopz": 1}}`, "max_hopz"},
		{"rtl_config encoding", `{` + base + `, "rtl_config": {"encoding": "compact"}}`, "rtl_config.encoding"},
		{"two kinds", `{` + base + `, "params": [{"name": "eta", "values": [0.9], "range": {"from": 1, "to": 2, "step": 1}}]}`, "exactly one"},
		{"no kind", `{` + base + `, "params": [{"name": "eta"}]}`, "exactly one"},
		{"bad range", `{` + base + `, "params": [{"name": "max_stage", "range": {"from": 5, "to": 1, "step": 1}}]}`, "range="},
		{"zero step", `{` + base + `, "params": [{"name": "max_stage", "range": {"from": 1, "to": 5, "step": 0}}]}`, "step"},
		{"format sign", `{` + base + `, "params": [{"name": "formats.w", "formats": {"sign": "x", "int": 8, "widths": {"from": 16, "to": 24, "step": 8}}}]}`, `formats.sign="x"`},
		{"unknown path", `{` + base + `, "params": [{"name": "formats.q", "values": ["u8.4"]}]}`, "formats.q"},
		{"wrong value type", `{` + base + `, "params": [{"name": "max_stage", "values": ["five"]}]}`, "max_stage"},
		{"bad format text", `{` + base + `, "params": [{"name": "formats.w", "values": ["q8"]}]}`, "formats.w"},
		{"stages value", `{` + base + `, "params": [{"name": "stages", "values": [1.5]}]}`, "stages"},
		{"duplicate value", `{` + base + `, "params": [{"name": "eta", "values": [0.9, 0.90]}]}`, ""},
		{"duplicate param", `{` + base + `, "params": [{"name": "eta", "values": [0.9]}, {"name": "eta", "values": [0.8]}]}`, "swept twice"},
		{"empty path key", `{` + base + `, "params": [{"name": "formats..w", "values": ["u8.4"]}]}`, "empty key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadSpec(strings.NewReader(tc.spec))
			if tc.name == "duplicate value" {
				// 0.9 and 0.90 are distinct JSON texts: both kept (the
				// configuration sees the same value; the spec's author
				// asked for it).
				if err != nil {
					t.Fatalf("LoadSpec: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadSpec(%s) = %v, want an error containing %q", tc.spec, err, tc.want)
			}
		})
	}
}

// TestExpand: the points are the cartesian product in spec order (last
// parameter fastest), each with its configuration and the NIC fragments
// of the fixed and float runs (the float one without precision keys).
// Oracle: the product written out by hand.
func TestExpand(t *testing.T) {
	spec := `{"encoding": "compact", "rtl_config": {"max_hops": 1}, "scenarios": ["demo-incast-4to1"], "synth": "none",
	  "params": [
	    {"name": "formats.u", "formats": {"sign": "u", "int": 8, "widths": {"from": 16, "to": 24, "step": 8}}},
	    {"name": "stages", "values": [0, 2]},
	    {"name": "max_stage", "range": {"from": 3, "to": 5, "step": 2}}]}`
	s, err := LoadSpec(strings.NewReader(spec))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := [][3]string{
		{`"u16.8"`, "0", "3"}, {`"u16.8"`, "0", "5"}, {`"u16.8"`, "2", "3"}, {`"u16.8"`, "2", "5"},
		{`"u24.8"`, "0", "3"}, {`"u24.8"`, "0", "5"}, {`"u24.8"`, "2", "3"}, {`"u24.8"`, "2", "5"},
	}
	if len(pts) != len(want) {
		t.Fatalf("%d points, want %d", len(pts), len(want))
	}
	for i, p := range pts {
		if p.Index != i || strings.Join(p.Values, " ") != strings.Join(want[i][:], " ") {
			t.Fatalf("point %d: index %d values %v, want %v", i, p.Index, p.Values, want[i])
		}
		wantStages := map[string]int{"0": 0, "2": 2}[want[i][1]]
		if p.Stages != wantStages || p.RTL.Formats.U.String() != strings.Trim(want[i][0], `"`) ||
			p.RTL.MaxStage != map[string]int{"3": 3, "5": 5}[want[i][2]] || p.RTL.MaxHops != 1 {
			t.Fatalf("point %d: stages %d U %s max_stage %d max_hops %d", i, p.Stages, p.RTL.Formats.U, p.RTL.MaxStage, p.RTL.MaxHops)
		}
		wf := `{"hpcc":{"formats":{"u":` + want[i][0] + `},"max_stage":` + want[i][2] + `},"module":{"stages":` + want[i][1] + `}}`
		if string(p.Fixed) != wf {
			t.Fatalf("point %d: fixed fragment %s, want %s", i, p.Fixed, wf)
		}
		wfl := `{"hpcc":{"max_stage":` + want[i][2] + `},"module":{"stages":` + want[i][1] + `}}`
		if string(p.Float) != wfl {
			t.Fatalf("point %d: float fragment %s, want %s", i, p.Float, wfl)
		}
	}
}

// TestSpecRoundTrip: a spec's JSON loads back into a spec with the same
// JSON (shards carry the spec this way). Oracle: the first encoding.
func TestSpecRoundTrip(t *testing.T) {
	s, err := LoadSpec(bytes.NewReader(ExampleSpecJSON()))
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.JSON()
	if err != nil {
		t.Fatal(err)
	}
	s2, err := LoadSpec(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := s2.JSON()
	if !bytes.Equal(a, b) {
		t.Fatalf("spec JSON changed on a round trip:\n%s\n%s", a, b)
	}
}

// TestMergeObjects: the deep merge keeps the base's other keys and exact
// number texts, and the override wins. Oracle: hand-written results.
func TestMergeObjects(t *testing.T) {
	for _, tc := range []struct{ a, b, want string }{
		{``, `{"x":1}`, `{"x":1}`},
		{`{"hpcc":{"eta":0.9,"max_hops":2},"y":18446744073709551615}`, `{"hpcc":{"eta":0.95}}`, `{"hpcc":{"eta":0.95,"max_hops":2},"y":18446744073709551615}`},
		{`{"hpcc":3}`, `{"hpcc":{"eta":1}}`, `{"hpcc":{"eta":1}}`},
	} {
		got, err := mergeObjects([]byte(tc.a), []byte(tc.b))
		if err != nil || string(got) != tc.want {
			t.Errorf("mergeObjects(%s, %s) = %s, %v; want %s", tc.a, tc.b, got, err, tc.want)
		}
	}
}

// TestShardRange: the shards partition [0,total) in order with sizes
// differing by at most one. Oracle: counting.
func TestShardRange(t *testing.T) {
	for total := 1; total <= 20; total++ {
		for n := 1; n <= total; n++ {
			next := 0
			for i := 0; i < n; i++ {
				lo, hi := Shard{i, n}.Range(total)
				if lo != next || hi-lo < total/n || hi-lo > total/n+1 {
					t.Fatalf("total %d shard %d/%d: [%d,%d), want start %d and size %d or %d", total, i, n, lo, hi, next, total/n, total/n+1)
				}
				next = hi
			}
			if next != total {
				t.Fatalf("total %d n %d: shards end at %d", total, n, next)
			}
		}
	}
	for _, bad := range []string{"", "1", "2/2", "-1/2", "a/b", "0/0"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

// TestMergeRefuses: merge refuses a missing shard, a shard given twice,
// shards of another spec, and a shard whose records are not its slice.
// Oracle: the rules of Merge.
func TestMergeRefuses(t *testing.T) {
	s, err := LoadSpec(strings.NewReader(`{"scenarios": ["demo-incast-4to1"], "synth": "none", "params": [{"name": "max_stage", "range": {"from": 1, "to": 4, "step": 1}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	recs := func(lo, hi int) []Record {
		var out []Record
		for i := lo; i < hi; i++ {
			out = append(out, Record{Index: i, Values: []string{"1"}, Scenarios: []ScenarioResult{}})
		}
		return out
	}
	enc := func(s Spec, i, n int, r []Record) []byte {
		b, err := EncodeShard(s, Shard{i, n}, 4, r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := enc(s, 0, 2, recs(0, 2)), enc(s, 1, 2, recs(2, 4))
	if _, got, err := Merge([]string{"b", "a"}, [][]byte{b, a}); err != nil || len(got) != 4 || got[3].Index != 3 {
		t.Fatalf("Merge of both shards: %d records, %v", len(got), err)
	}
	other := s
	other.Name = "other"
	var bad ShardResult
	if err := json.Unmarshal(b, &bad); err != nil {
		t.Fatal(err)
	}
	bad.Records[0], bad.Records[1] = bad.Records[1], bad.Records[0]
	swapped, _ := json.MarshalIndent(bad, "", "  ")
	for _, tc := range []struct {
		name string
		data [][]byte
		want string
	}{
		{"missing", [][]byte{a}, "missing"},
		{"twice", [][]byte{a, a, b}, "twice"},
		{"other spec", [][]byte{a, enc(other, 1, 2, recs(2, 4))}, "another spec"},
		{"order", [][]byte{a, swapped}, "index"},
	} {
		names := make([]string, len(tc.data))
		for i := range names {
			names[i] = tc.name
		}
		if _, _, err := Merge(names, tc.data); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Merge = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := EncodeShard(s, Shard{0, 2}, 4, recs(0, 1)); err == nil {
		t.Error("EncodeShard accepted a shard with a missing record")
	}
}
