package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// ShardFile is the file a shard's output directory holds besides its
// manifest.
const ShardFile = "shard.json"

// Shard selects slice Index of Count of a sweep's points: the contiguous
// index range Range returns.
type Shard struct{ Index, Count int }

// ParseShard parses "i/n" (0 <= i < n).
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("explore: shard %q: want i/n with 0 <= i < n (for example 0/4)", s)
	}
	return Shard{i, n}, nil
}

// String returns "i/n".
func (sh Shard) String() string { return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Range returns the half-open index range [first, last) of the shard's
// points among total: first = i*total/n, last = (i+1)*total/n, so the
// shards partition the points in order and sizes differ by at most one.
func (sh Shard) Range(total int) (first, last int) {
	return sh.Index * total / sh.Count, (sh.Index + 1) * total / sh.Count
}

// Sweep evaluates pts in order; progress, if set, is called after each
// point with the record and the number done.
func Sweep(ctx context.Context, ev *Evaluator, pts []Point, progress func(r Record, done int)) ([]Record, error) {
	recs := make([]Record, 0, len(pts))
	for _, pt := range pts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := ev.Evaluate(ctx, pt)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
		if progress != nil {
			progress(r, len(recs))
		}
	}
	return recs, nil
}

// ShardResult is shard.json: the spec (exactly its JSON), which shard,
// the sweep's point count and the shard's records.
type ShardResult struct {
	Tool    string          `json:"tool"`
	Spec    json.RawMessage `json:"spec"`
	Index   int             `json:"index"`
	Count   int             `json:"count"`
	Points  int             `json:"points"`
	Records []Record        `json:"records"`
}

// EncodeShard renders shard.json for shard sh of spec s with its records.
func EncodeShard(s Spec, sh Shard, total int, recs []Record) ([]byte, error) {
	sj, err := s.JSON()
	if err != nil {
		return nil, err
	}
	first, last := sh.Range(total)
	if len(recs) != last-first {
		return nil, fmt.Errorf("explore: shard %s holds %d records, want %d (points %d..%d)", sh, len(recs), last-first, first, last-1)
	}
	b, err := json.MarshalIndent(ShardResult{Tool: buildinfo.String(), Spec: bytes.TrimSpace(sj), Index: sh.Index, Count: sh.Count, Points: total, Records: recs}, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("explore: shard: %w", err)
	}
	return append(b, '\n'), nil
}

// Merge combines the shard.json files of every shard of one sweep (any
// order; names label them in errors) into the spec and every point's
// record, in index order: exactly what a single run computes. It refuses
// shards of different specs, tools or shard counts, a shard given twice or
// missing, and a shard whose records are not its slice.
func Merge(names []string, data [][]byte) (Spec, []Record, error) {
	if len(data) == 0 {
		return Spec{}, nil, fmt.Errorf("explore: merge: no shard given")
	}
	var first *ShardResult
	byIndex := map[int]int{}
	shards := make([]ShardResult, len(data))
	for k, d := range data {
		sr := &shards[k]
		dec := json.NewDecoder(bytes.NewReader(d))
		dec.DisallowUnknownFields()
		if err := dec.Decode(sr); err != nil {
			return Spec{}, nil, fmt.Errorf("explore: merge: %s: %w", names[k], err)
		}
		if first == nil {
			first = sr
		}
		switch {
		case sr.Tool != first.Tool:
			return Spec{}, nil, fmt.Errorf("explore: merge: %s was written by %q, %s by %q", names[k], sr.Tool, names[0], first.Tool)
		case !bytes.Equal(sr.Spec, first.Spec):
			return Spec{}, nil, fmt.Errorf("explore: merge: %s is a shard of another spec than %s", names[k], names[0])
		case sr.Count != first.Count || sr.Points != first.Points:
			return Spec{}, nil, fmt.Errorf("explore: merge: %s is shard %d/%d of %d points, %s is of %d/%d of %d points",
				names[k], sr.Index, sr.Count, sr.Points, names[0], first.Index, first.Count, first.Points)
		case sr.Count < 1 || sr.Index < 0 || sr.Index >= sr.Count:
			return Spec{}, nil, fmt.Errorf("explore: merge: %s: shard %d/%d out of range", names[k], sr.Index, sr.Count)
		}
		if j, dup := byIndex[sr.Index]; dup {
			return Spec{}, nil, fmt.Errorf("explore: merge: shard %d/%d given twice (%s and %s)", sr.Index, sr.Count, names[j], names[k])
		}
		byIndex[sr.Index] = k
	}
	var missing []string
	for i := 0; i < first.Count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return Spec{}, nil, fmt.Errorf("explore: merge: shards %s of %d missing", strings.Join(missing, ", "), first.Count)
	}
	spec, err := LoadSpec(bytes.NewReader(first.Spec))
	if err != nil {
		return Spec{}, nil, fmt.Errorf("explore: merge: the shards' spec: %w", err)
	}
	recs := make([]Record, 0, first.Points)
	for i := 0; i < first.Count; i++ {
		sr := shards[byIndex[i]]
		lo, hi := Shard{i, first.Count}.Range(first.Points)
		if len(sr.Records) != hi-lo {
			return Spec{}, nil, fmt.Errorf("explore: merge: %s (shard %d/%d) holds %d records, want %d", names[byIndex[i]], i, first.Count, len(sr.Records), hi-lo)
		}
		for j, r := range sr.Records {
			if r.Index != lo+j {
				return Spec{}, nil, fmt.Errorf("explore: merge: %s (shard %d/%d): record %d has index %d, want %d", names[byIndex[i]], i, first.Count, j, r.Index, lo+j)
			}
		}
		recs = append(recs, sr.Records...)
	}
	return spec, recs, nil
}
