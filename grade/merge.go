package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/vectors"
)

// ParseReport decodes a report written by Report.JSON (grade.json),
// rejecting unknown fields and trailing data.
func ParseReport(data []byte) (*Report, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep Report
	if err := dec.Decode(&rep); err != nil {
		return nil, fmt.Errorf("grade: report: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("grade: report: data after the report object")
	}
	return &rep, nil
}

// Merge combines the reports of every shard of one grading (Options.Shard
// i/n for each i, in any order; names label them in errors) into the
// report the unsharded run gives: shard "0/1", every sampled mutant's
// result in sample order, and the counts, per-operator table, score and
// verdict computed from them as Grade computes them, so Report.JSON and
// Report.WriteText of the merge are byte-identical to the single run's.
// It refuses shards of another design, vector set, seed, sample or goal,
// a shard given twice or missing, and a shard whose results are not its
// slice of the sample.
func Merge(names []string, reps []*Report) (*Report, error) {
	if len(reps) == 0 {
		return nil, fmt.Errorf("grade: merge: no shard given")
	}
	if len(names) != len(reps) {
		return nil, fmt.Errorf("grade: merge: %d names for %d reports", len(names), len(reps))
	}
	first := reps[0]
	byIndex := map[int]int{}
	count := 0
	for k, r := range reps {
		sh, err := vectors.ParseShard(r.Shard)
		if err != nil {
			return nil, fmt.Errorf("grade: merge: %s: shard %q: %w", names[k], r.Shard, err)
		}
		sh.Count = max(sh.Count, 1)
		if k == 0 {
			count = sh.Count
		}
		switch {
		case r.Design != first.Design || r.Nodes != first.Nodes:
			return nil, fmt.Errorf("grade: merge: %s grades %s (%d nodes), %s grades %s (%d nodes)", names[k], r.Design, r.Nodes, names[0], first.Design, first.Nodes)
		case r.Vectors != first.Vectors || r.Source != first.Source:
			return nil, fmt.Errorf("grade: merge: %s ran %d vectors (%s), %s ran %d (%s)", names[k], r.Vectors, r.Source, names[0], first.Vectors, first.Source)
		case r.Seed != first.Seed || r.Sites != first.Sites || r.Sampled != first.Sampled:
			return nil, fmt.Errorf("grade: merge: %s samples %d of %d sites with seed %d, %s samples %d of %d with seed %d",
				names[k], r.Sampled, r.Sites, r.Seed, names[0], first.Sampled, first.Sites, first.Seed)
		case r.MinScore != first.MinScore:
			return nil, fmt.Errorf("grade: merge: %s has the goal %v, %s has %v", names[k], r.MinScore, names[0], first.MinScore)
		case sh.Count != count:
			return nil, fmt.Errorf("grade: merge: %s is shard %s, %s is of %d shards", names[k], r.Shard, names[0], count)
		}
		if j, dup := byIndex[sh.Index]; dup {
			return nil, fmt.Errorf("grade: merge: shard %d/%d given twice (%s and %s)", sh.Index, count, names[j], names[k])
		}
		byIndex[sh.Index] = k
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := byIndex[i]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("grade: merge: shards %s of %d missing", strings.Join(missing, ", "), count)
	}
	out := &Report{Design: first.Design, Nodes: first.Nodes, Vectors: first.Vectors, Source: first.Source, Seed: first.Seed,
		Sites: first.Sites, Sampled: first.Sampled, Shard: "0/1", Mutants: first.Sampled, MinScore: first.MinScore,
		Results: make([]Result, 0, first.Sampled)}
	for i := 0; i < count; i++ {
		k := byIndex[i]
		r := reps[k]
		lo, hi := vectors.Shard{Index: i, Count: count}.Range(int64(first.Sampled))
		if r.Mutants != int(hi-lo) || len(r.Results) != int(hi-lo) {
			return nil, fmt.Errorf("grade: merge: %s (shard %d/%d) holds %d results (mutants %d), want %d: mutants %d..%d of the sample",
				names[k], i, count, len(r.Results), r.Mutants, hi-lo, lo, hi-1)
		}
		for _, res := range r.Results {
			// The sample lists sites in increasing index order (Sample), so
			// the shards' results, in shard order, must too.
			if n := len(out.Results); n > 0 && res.Index <= out.Results[n-1].Index {
				return nil, fmt.Errorf("grade: merge: %s (shard %d/%d): mutant site %d follows site %d: not a slice of the same sample",
					names[k], i, count, res.Index, out.Results[n-1].Index)
			}
			if res.Index < 0 || res.Index >= first.Sites {
				return nil, fmt.Errorf("grade: merge: %s: mutant site %d out of range [0,%d)", names[k], res.Index, first.Sites)
			}
			switch res.Verdict {
			case Killed, Equivalent, Gap:
			default:
				return nil, fmt.Errorf("grade: merge: %s: mutant site %d: verdict %q: want killed, equivalent or gap", names[k], res.Index, res.Verdict)
			}
			out.Results = append(out.Results, res)
		}
	}
	out.tally()
	return out, nil
}
