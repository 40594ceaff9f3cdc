package sweep

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Metrics are the headline figures of each point, in Record.Metrics order:
// flows and flows completed, the bottleneck's peak and time-weighted p99
// queue (bytes), its wire utilization over its busy period, the FCT
// slowdown p50 and p99 of completed flows, Jain's index (mean), switch
// drops and the simulated time (ns).
var Metrics = []string{"flows", "completed", "peak_queue_bytes", "p99_queue_bytes", "util_busy",
	"slowdown_p50", "slowdown_p99", "jain_mean", "switch_drops", "sim_ns"}

// Record is what a sweep keeps of one point besides its files. Metrics
// are formatted text (floats with 6 significant digits, empty when
// undefined), so a record survives JSON unchanged and the table built from
// it is the same after a merge.
type Record struct {
	Index   int               `json:"index"`
	Values  []json.RawMessage `json:"values"`
	Metrics []string          `json:"metrics"`
	// Verdict is scenario.Result.Verdict's error text: empty when the run
	// completed what it was to complete.
	Verdict string `json:"verdict,omitempty"`
}

func fmtF(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func fmtU(x uint64) string { return strconv.FormatUint(x, 10) }

func record(p Point, r *scenario.Result) Record {
	s := r.Summary
	rec := Record{Index: p.Index, Values: p.Values, Metrics: []string{
		strconv.Itoa(s.Flows), strconv.Itoa(s.Completed), fmtU(s.PeakQueueBytes), fmtU(s.P99QueueBytes), fmtF(s.UtilBusy),
		fmtF(s.SlowP50), fmtF(s.SlowP99), fmtF(s.JainMean), fmtU(s.SwitchDrops), fmtU(r.Stats.SimNs)}}
	if err := r.Verdict(); err != nil {
		rec.Verdict = err.Error()
	}
	return rec
}

// File is one output file of a sweep.
type File struct {
	Name string
	Data []byte
}

// Files of a sweep's output directory besides the points' directories.
const (
	SpecFile  = "sweep.json"
	CSVFile   = "points.csv"
	TableFile = "points.txt"
	ShardFile = "shard.json"
)

// Report renders the sweep's own files from its records (every point, in
// order): sweep.json (the spec), points.csv (per point: index, each
// grid key's value, Metrics, verdict) and points.txt (the same as a
// table). The single run and Merge call it on the same records, so their
// outputs are byte-identical.
func Report(s Spec, recs []Record) ([]File, error) {
	sj, err := s.JSON()
	if err != nil {
		return nil, err
	}
	head := []string{"point"}
	for _, a := range s.Grid {
		head = append(head, a.Key)
	}
	head = append(head, Metrics...)
	head = append(head, "verdict")
	rows := make([][]string, len(recs))
	for i, r := range recs {
		row := []string{strconv.Itoa(r.Index)}
		for _, v := range r.Values {
			row = append(row, string(v))
		}
		row = append(row, r.Metrics...)
		v := "ok"
		if r.Verdict != "" {
			v = r.Verdict
		}
		rows[i] = append(row, v)
	}
	var c bytes.Buffer
	w := csv.NewWriter(&c)
	if err := w.Write(head); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", CSVFile, err)
	}
	if err := w.WriteAll(rows); err != nil {
		return nil, fmt.Errorf("sweep: %s: %w", CSVFile, err)
	}
	var t bytes.Buffer
	fmt.Fprintf(&t, "sweep %s of scenario %s: %d points\n", s.Name, s.Scenario, len(recs))
	tab := tablewriter.NewTable(&t, tablewriter.WithHeaderAutoFormat(tw.Off), tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})))
	tab.Header(anySlice(head)...)
	for _, row := range rows {
		if err := tab.Append(anySlice(row)...); err != nil {
			return nil, fmt.Errorf("sweep: table: %w", err)
		}
	}
	if err := tab.Render(); err != nil {
		return nil, fmt.Errorf("sweep: table: %w", err)
	}
	return []File{{SpecFile, sj}, {CSVFile, c.Bytes()}, {TableFile, t.Bytes()}}, nil
}

func anySlice(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

// Failed returns an error naming the points whose runs did not complete
// (Record.Verdict), or nil.
func Failed(recs []Record) error {
	var bad []string
	for _, r := range recs {
		if r.Verdict != "" {
			bad = append(bad, strconv.Itoa(r.Index))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("sweep: %d of %d points did not complete their flows (points %s; points.csv says why)", len(bad), len(recs), strings.Join(bad, ", "))
}

// ShardResult is shard.json: the tool, the spec (exactly its JSON), which
// shard, the sweep's point count and the shard's records. The shard's
// output directory also holds its points' directories.
type ShardResult struct {
	Tool    string          `json:"tool"`
	Spec    json.RawMessage `json:"spec"`
	Index   int             `json:"index"`
	Count   int             `json:"count"`
	Points  int             `json:"points"`
	Records []Record        `json:"records"`
}

// EncodeShard renders shard.json for shard sh of s with its records.
func EncodeShard(s Spec, sh vectors.Shard, total int, recs []Record) ([]byte, error) {
	sj, err := s.JSON()
	if err != nil {
		return nil, err
	}
	first, last := sh.Range(int64(total))
	if len(recs) != int(last-first) {
		return nil, fmt.Errorf("sweep: shard %d/%d holds %d records, want %d", sh.Index, sh.Count, len(recs), last-first)
	}
	b, err := json.MarshalIndent(ShardResult{Tool: buildinfo.String(), Spec: bytes.TrimSpace(sj), Index: sh.Index, Count: max(sh.Count, 1),
		Points: total, Records: recs}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("sweep: shard: %w", err)
	}
	return append(b, '\n'), nil
}

// Merge combines the shard.json files of every shard of one sweep (any
// order; names label them in errors) into the spec and every point's
// record in order: what a single run computes. It refuses shards of
// different specs, tools or shard counts, a shard given twice or missing,
// and records that are not the shard's slice. It returns, for each shard
// index, the position of its file in data, so the caller can copy that
// shard's point directories.
func Merge(names []string, data [][]byte) (Spec, []Record, []int, error) {
	if len(data) == 0 {
		return Spec{}, nil, nil, fmt.Errorf("sweep: merge: no shard given")
	}
	shards := make([]ShardResult, len(data))
	byIndex := map[int]int{}
	for k, d := range data {
		sr := &shards[k]
		dec := json.NewDecoder(bytes.NewReader(d))
		dec.DisallowUnknownFields()
		if err := dec.Decode(sr); err != nil {
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s: %w", names[k], err)
		}
		f := &shards[0]
		switch {
		case sr.Tool != f.Tool:
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s was written by %q, %s by %q", names[k], sr.Tool, names[0], f.Tool)
		case !bytes.Equal(sr.Spec, f.Spec):
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s is a shard of another sweep than %s", names[k], names[0])
		case sr.Count != f.Count || sr.Points != f.Points:
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s is shard %d/%d of %d points, %s is of %d/%d of %d points",
				names[k], sr.Index, sr.Count, sr.Points, names[0], f.Index, f.Count, f.Points)
		case sr.Count < 1 || sr.Index < 0 || sr.Index >= sr.Count:
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s: shard %d/%d out of range", names[k], sr.Index, sr.Count)
		}
		if j, dup := byIndex[sr.Index]; dup {
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: shard %d/%d given twice (%s and %s)", sr.Index, sr.Count, names[j], names[k])
		}
		byIndex[sr.Index] = k
	}
	n := shards[0].Count
	var missing []string
	for i := 0; i < n; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return Spec{}, nil, nil, fmt.Errorf("sweep: merge: shards %s of %d missing", strings.Join(missing, ", "), n)
	}
	spec, err := LoadSpec(bytes.NewReader(shards[0].Spec))
	if err != nil {
		return Spec{}, nil, nil, fmt.Errorf("sweep: merge: the shards' spec: %w", err)
	}
	if spec.Count() != shards[0].Points {
		return Spec{}, nil, nil, fmt.Errorf("sweep: merge: the shards say %d points, their spec has %d", shards[0].Points, spec.Count())
	}
	var recs []Record
	order := make([]int, n)
	for i := 0; i < n; i++ {
		k := byIndex[i]
		order[i] = k
		sr := shards[k]
		lo, hi := vectors.Shard{Index: i, Count: n}.Range(int64(sr.Points))
		if len(sr.Records) != int(hi-lo) {
			return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s (shard %d/%d) holds %d records, want %d", names[k], i, n, len(sr.Records), hi-lo)
		}
		for j, r := range sr.Records {
			if r.Index != int(lo)+j || len(r.Values) != len(spec.Grid) || len(r.Metrics) != len(Metrics) {
				return Spec{}, nil, nil, fmt.Errorf("sweep: merge: %s (shard %d/%d): record %d is not point %d of this sweep", names[k], i, n, j, int(lo)+j)
			}
		}
		recs = append(recs, sr.Records...)
	}
	return spec, recs, order, nil
}
