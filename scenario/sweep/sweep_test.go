package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
)

const testSpec = `{"name": "t", "scenario": "demo-incast-4to1",
 "base": {"hpcc": {"w_ai_bytes": 80}},
 "grid": [{"key": "hpcc.eta", "values": [0.9, 0.95]}, {"key": "hpcc.max_stage", "values": [1, 3, 5]}]}`

// TestExpand: the points are the grid's cartesian product with the first
// key slowest, each configuration carrying the base and its values.
// Oracle: the order written out by hand.
func TestExpand(t *testing.T) {
	s, err := LoadSpec(strings.NewReader(testSpec))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"0.9", "1"}, {"0.9", "3"}, {"0.9", "5"}, {"0.95", "1"}, {"0.95", "3"}, {"0.95", "5"}}
	if len(pts) != len(want) || s.Count() != len(want) {
		t.Fatalf("%d points, want %d", len(pts), len(want))
	}
	for k, p := range pts {
		if p.Index != k || string(p.Values[0]) != want[k][0] || string(p.Values[1]) != want[k][1] {
			t.Fatalf("point %d = %d %s %s, want %v", k, p.Index, p.Values[0], p.Values[1], want[k])
		}
		if got := fmt.Sprint(p.Config.HPCC.Eta, " ", p.Config.HPCC.MaxStage); got != want[k][0]+" "+want[k][1] {
			t.Fatalf("point %d config eta, max_stage = %s, want %v", k, got, want[k])
		}
		if p.Config.HPCC.WAIBytes != 80 {
			t.Fatalf("point %d: base overlay not applied (w_ai_bytes %v)", k, p.Config.HPCC.WAIBytes)
		}
	}
}

// TestSpecErrors: bad specs and bad values are refused naming the field
// and value.
func TestSpecErrors(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{`{"scenario": "nope", "grid": [{"key": "hpcc.eta", "values": [1]}]}`, `scenario="nope"`},
		{`{"scenario": "demo-incast-4to1", "grid": []}`, "grid is empty"},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.etta", "values": [1]}]}`, `grid[0].key="hpcc.etta"`},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.eta", "values": []}]}`, "no values"},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.eta", "values": [1]}, {"key": "hpcc.eta", "values": [1]}]}`, "overlaps"},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.eta", "values": [1]}], "extra": 1}`, "extra"},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.max_stage", "values": [1, 0]}]}`, "point 1 (hpcc.max_stage=0)"},
		{`{"scenario": "demo-incast-4to1", "grid": [{"key": "hpcc.eta", "values": ["x"]}]}`, "point 0"},
	} {
		s, err := LoadSpec(strings.NewReader(c.spec))
		if err == nil {
			_, err = s.Expand()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.spec, err, c.want)
		}
	}
}

// TestShardsMergeEqualSingle: the shards' records, encoded, merged (in
// reverse order) and rendered, give the single run's report files byte for
// byte, for 1 to 6 shards; each shard's point files equal the single run's
// (oracle: the single run). Merge refuses a missing or repeated shard and
// a shard of another sweep.
func TestShardsMergeEqualSingle(t *testing.T) {
	s, err := LoadSpec(strings.NewReader(testSpec))
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Expand()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	recs, files, err := Run(ctx, pts, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Failed(recs); err != nil {
		t.Fatal(err)
	}
	want, err := Report(s, recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 4, 6} {
		var names []string
		var data [][]byte
		for i := n - 1; i >= 0; i-- {
			sh := vectors.Shard{Index: i, Count: n}
			lo, hi := sh.Range(int64(len(pts)))
			r, f, err := Run(ctx, pts[lo:hi], 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			for j := range f {
				for m := range f[j] {
					if !bytes.Equal(f[j][m].Data, files[int(lo)+j][m].Data) {
						t.Fatalf("shard %d/%d point %d %s differs from the single run's", i, n, int(lo)+j, f[j][m].Name)
					}
				}
			}
			b, err := EncodeShard(s, sh, len(pts), r)
			if err != nil {
				t.Fatal(err)
			}
			names, data = append(names, fmt.Sprint(i)), append(data, b)
		}
		ms, mrecs, order, err := Merge(names, data)
		if err != nil {
			t.Fatal(err)
		}
		if len(order) != n || order[0] != n-1 {
			t.Fatalf("order %v", order)
		}
		got, err := Report(ms, mrecs)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i].Name != want[i].Name || !bytes.Equal(got[i].Data, want[i].Data) {
				t.Fatalf("%d shards: %s differs:\n%s\nwant\n%s", n, want[i].Name, got[i].Data, want[i].Data)
			}
		}
		if n == 4 {
			if _, _, _, err := Merge(names[:3], data[:3]); err == nil || !strings.Contains(err.Error(), "missing") {
				t.Fatalf("missing shard: %v", err)
			}
			if _, _, _, err := Merge([]string{"a", "b"}, [][]byte{data[0], data[0]}); err == nil || !strings.Contains(err.Error(), "twice") {
				t.Fatalf("shard twice: %v", err)
			}
			var sr ShardResult
			if err := json.Unmarshal(data[1], &sr); err != nil {
				t.Fatal(err)
			}
			sr.Spec = json.RawMessage(strings.Replace(string(sr.Spec), `"t"`, `"u"`, 1))
			other, _ := json.Marshal(sr)
			if _, _, _, err := Merge(names, [][]byte{data[0], other, data[2], data[3]}); err == nil || !strings.Contains(err.Error(), "another sweep") {
				t.Fatalf("shard of another sweep: %v", err)
			}
		}
	}
}
