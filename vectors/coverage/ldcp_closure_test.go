package coverage

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestLDCPDefaultSetCloses samples the default ldcp_update level-1 set
// (what `vectors gen --cc ldcp` writes: seed 1, 10 000 random vectors) and
// its directed vectors alone: both hit every reachable bin (the
// constructed classes of cc/ldcp/ldcpvec supply the exact thresholds and
// table entries random stimulus misses and the corners it hits only by
// chance, docs/ldcp.md, so closure does not depend on the seed), and no
// bin proved unreachable is hit by any vector (soundness on the model's
// own set). Oracle: the hardware description evaluated per vector (the
// model's sampler).
func TestLDCPDefaultSetCloses(t *testing.T) {
	cfg := ldcp.DefaultConfig()
	cm, err := ForLDCP(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := ldcpVec(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, count := range []int64{10000, 0} {
		set, err := vectors.Generate(vm, vectors.Options{Level: 1, Seed: 1, Count: count, NoJSONL: true})
		if err != nil {
			t.Fatal(err)
		}
		c, err := cm.Run(context.Background(), grade.FromSet(set, "default"), 2)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				switch {
				case bin.Unreachable != "" && c.Bins[i][b] != 0:
					t.Errorf("count %d: %s.%s is proved unreachable (%s) but hit %d times", count, p.Name, bin.Name, bin.Unreachable, c.Bins[i][b])
				case bin.Unreachable == "" && c.Bins[i][b] == 0:
					t.Errorf("count %d: hole %s.%s: reachable, not hit", count, p.Name, bin.Name)
				}
			}
		}
		s := cm.Report(c, []string{"default"}).Summary
		if !s.Closed() {
			t.Errorf("count %d: not closed: %+v", count, s)
		}
		t.Logf("count %d: %d vectors, %+v", count, c.Vectors, s)
	}
}
