package grade

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
)

// gradeShards grades the small module's sample in n shards and returns
// each shard's report as written (JSON) and parsed back.
func gradeShards(t *testing.T, n, mutants int, seed uint64, minScore float64) []*Report {
	t.Helper()
	m := smallModule(t)
	v := exhaustive(t, m)
	var reps []*Report
	for i := range n {
		rep, err := Grade(context.Background(), m, v, Options{Mutants: mutants, Seed: seed, Shard: vectors.Shard{Index: i, Count: n}}, minScore)
		if err != nil {
			t.Fatal(err)
		}
		js, err := rep.JSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseReport(js)
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, back)
	}
	return reps
}

// TestMergeEqualsSingleRun: for several sample sizes, shard counts and
// goals (passing and failing), merging the shards' reports, read back from
// their JSON and given in reverse order, gives the unsharded report's JSON
// and text byte for byte and the same verdict. Oracle: the unsharded
// Grade.
func TestMergeEqualsSingleRun(t *testing.T) {
	m := smallModule(t)
	v := exhaustive(t, m)
	for _, c := range []struct {
		mutants, shards int
		seed            uint64
		minScore        float64
	}{
		{25, 3, 4, 0.5},
		{25, 1, 4, 0.5},
		{25, 25, 4, 0.5},
		{40, 4, 9, 0.999}, // below the goal: the merge fails as the single run does
		{0, 5, 2, 0.9},    // every site
	} {
		t.Run(fmt.Sprintf("m%d_n%d_s%d_g%v", c.mutants, c.shards, c.seed, c.minScore), func(t *testing.T) {
			whole, err := Grade(context.Background(), m, v, Options{Mutants: c.mutants, Seed: c.seed}, c.minScore)
			if err != nil {
				t.Fatal(err)
			}
			reps := gradeShards(t, c.shards, c.mutants, c.seed, c.minScore)
			var names []string
			for i := range reps {
				names = append(names, fmt.Sprintf("shard%d", i))
			}
			for i, j := 0, len(reps)-1; i < j; i, j = i+1, j-1 {
				reps[i], reps[j] = reps[j], reps[i]
				names[i], names[j] = names[j], names[i]
			}
			got, err := Merge(names, reps)
			if err != nil {
				t.Fatal(err)
			}
			wj, _ := whole.JSON()
			gj, _ := got.JSON()
			if !bytes.Equal(wj, gj) {
				t.Fatalf("merged JSON differs from the single run's:\n%s\nwant\n%s", gj, wj)
			}
			var wt, gt strings.Builder
			whole.WriteText(&wt)
			got.WriteText(&gt)
			if wt.String() != gt.String() {
				t.Fatalf("merged text differs:\n%s\nwant\n%s", gt.String(), wt.String())
			}
			if (whole.Err() == nil) != (got.Err() == nil) {
				t.Fatalf("verdicts differ: single %v, merged %v", whole.Err(), got.Err())
			}
		})
	}
}

// TestMergeRefuses: shards that do not make up one grading are refused
// with an error naming the problem.
func TestMergeRefuses(t *testing.T) {
	three := func() []*Report { return gradeShards(t, 3, 25, 4, 0.5) }
	other := gradeShards(t, 3, 25, 5, 0.5)
	names := []string{"a", "b", "c"}
	for _, c := range []struct {
		name string
		mod  func([]*Report) []*Report
		want string
	}{
		{"missing", func(r []*Report) []*Report { return r[:2] }, "shards 2 of 3 missing"},
		{"twice", func(r []*Report) []*Report { r[2] = r[1]; return r }, "given twice"},
		{"other seed", func(r []*Report) []*Report { r[1] = other[1]; return r }, "with seed"},
		{"other goal", func(r []*Report) []*Report { r[1].MinScore = 0.7; return r }, "goal"},
		{"other count", func(r []*Report) []*Report { r[1].Shard = "1/4"; return r }, "of 3 shards"},
		{"bad shard", func(r []*Report) []*Report { r[1].Shard = "3/3"; return r }, `shard "3/3"`},
		{"short", func(r []*Report) []*Report { r[1].Results = r[1].Results[1:]; return r }, "holds 7 results"},
		{"swapped results", func(r []*Report) []*Report { r[0].Results, r[1].Results = r[1].Results, r[0].Results; return r }, "not a slice of the same sample"},
		{"bad verdict", func(r []*Report) []*Report { r[0].Results[0].Verdict = "maybe"; return r }, `verdict "maybe"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			reps := c.mod(three())
			_, err := Merge(names[:len(reps)], reps)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Merge = %v, want an error containing %q", err, c.want)
			}
		})
	}
	if _, err := Merge(nil, nil); err == nil {
		t.Fatal("Merge of no shard succeeded")
	}
	if _, err := ParseReport([]byte(`{"design":"x","extra":1}`)); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Fatalf("ParseReport with an unknown field: %v", err)
	}
}
