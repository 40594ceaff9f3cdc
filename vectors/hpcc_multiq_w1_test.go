package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestMultiQClassWeightOne generates the level-1 set of MultiQ at the
// default class weight w = 1 (valid: Validate accepts (0, 1]). There mq_wb
// equals mq_bh, so tx_rate == B is case 1 at wB and mq_line_rate cannot be
// hit: before the class was left out for such configurations, every such
// set failed with "the evaluator does not detect class mq_line_rate". The
// set must generate, hit every registered class, and still hold
// mq_at_wb and mq_above_line_rate.
func TestMultiQClassWeightOne(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	cfg.MultiQ.Enabled = true // ClassWeight 1 and BacklogBytes as the defaults give
	if cfg.MultiQ.ClassWeight != 1 {
		t.Fatalf("default ClassWeight = %v, the test needs 1", cfg.MultiQ.ClassWeight)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("config invalid: %v", err)
	}
	m, err := NewHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	man, err := GenerateDir(dir, m, Options{Level: 1, Seed: 1, Count: 0, Workers: 1, NoJSONL: true})
	if err != nil {
		t.Fatalf("ClassWeight 1: %v", err)
	}
	names := map[string]bool{}
	for _, c := range m.Classes() {
		names[c.Name] = true
	}
	if names["mq_line_rate"] {
		t.Errorf("mq_line_rate registered although mq_wb == mq_bh")
	}
	for _, want := range []string{"mq_at_wb", "mq_above_line_rate"} {
		if !names[want] {
			t.Errorf("class %s missing at w = 1", want)
		}
	}
	if man == nil {
		t.Fatal("no manifest")
	}
}
