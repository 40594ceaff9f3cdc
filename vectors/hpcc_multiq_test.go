package vectors

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// mqVecConfigs are MultiQ configurations for the vector tests: both
// encodings and modes, an inexact (0.4) and an exact (0.25) weight, a
// 1500-byte and a zero backlog threshold.
func mqVecConfigs() map[string]hpcc.Config {
	out := map[string]hpcc.Config{}
	for _, e := range telemetry.Encodings() {
		c := hpcc.DefaultConfigFor(e)
		c.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
		out[e.String()+"_sender_w0.4"] = c
		c.Mode = hpcc.Receiver
		c.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.25, BacklogBytes: 0}
		out[e.String()+"_receiver_w0.25_bl0"] = c
	}
	return out
}

// TestHPCCMultiQClasses: a MultiQ configuration's set has every MultiQ
// class (each case per valid speed code and the compare boundaries), each
// with vectors that its detector recognises (generation fails otherwise;
// checked here again via hits >= count), and the random vectors reach all
// three cases; a single-class configuration has none of them. Oracle: the
// class list written here from the slides' three cases and the two
// compares' boundaries.
func TestHPCCMultiQClasses(t *testing.T) {
	for name, cfg := range mqVecConfigs() {
		set, err := GenerateHPCC(cfg, Options{Level: 1, Count: 3000, Seed: 7, NoJSONL: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		byName := map[string]ClassCount{}
		for _, c := range set.Manifest.Classes {
			byName[c.Name] = c
		}
		want := []string{"mq_within_slots", "mq_at_wb", "mq_wb_plus_lsb_no_backlog", "mq_q_at_backlog", "mq_line_rate", "mq_above_line_rate",
			"mq_wb_plus_lsb_backlog", "mq_q_backlog_plus_1", "mq_backlog_q_max", "mq_mixed_cases"}
		for _, g := range cfg.Encoding.SpeedTable() {
			if g == 0 || g > cfg.MaxLinkSpeedGbps {
				continue
			}
			for _, cs := range []string{"within", "backlog", "no_backlog"} {
				want = append(want, fmt.Sprintf("mq_%s_%dG", cs, g))
			}
		}
		for _, w := range want {
			c, ok := byName[w]
			switch {
			case !ok:
				t.Errorf("%s: class %s missing", name, w)
			case c.Count == 0 || c.Hits < c.Count:
				t.Errorf("%s: class %s: %d vectors, %d hits", name, w, c.Count, c.Hits)
			}
		}
		// Random vectors (all fields random) reach every case too: the
		// per-code case classes are hit beyond their own directed vectors.
		for _, cs := range []string{"within", "backlog", "no_backlog"} {
			hit := false
			for n, c := range byName {
				if len(n) > len("mq_"+cs+"_") && n[:len("mq_"+cs+"_")] == "mq_"+cs+"_" && n[len(n)-1] == 'G' && c.Hits > c.Count {
					hit = true
				}
			}
			if !hit {
				t.Errorf("%s: no random vector took case %s", name, cs)
			}
		}
	}
	set, err := GenerateHPCC(hpcc.DefaultConfig(), Options{Level: 1, Count: 10, Seed: 7, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range set.Manifest.Classes {
		if len(c.Name) > 3 && c.Name[:3] == "mq_" {
			t.Errorf("single-class set has MultiQ class %s", c.Name)
		}
	}
}

// TestMultiQSojournComputeAllocatesNothing is TestComputeAllocatesNothing
// for MultiQ and Sojourn configurations: their class detectors
// (detectMultiQ's MultiQHop, detectSojourn) allocate nothing per vector.
// Oracle: testing.AllocsPerRun.
func TestMultiQSojournComputeAllocatesNothing(t *testing.T) {
	sj := hpcc.DefaultConfig()
	sj.Sojourn = true
	cfgs := mqVecConfigs()
	cfgs["ifa_sojourn"] = sj
	for name, cfg := range cfgs {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPlan(m, Options{Count: 1 << 20, Workers: 1, NoJSONL: true})
		if err != nil {
			t.Fatal(err)
		}
		w, err := p.newWorker()
		if err != nil {
			t.Fatal(err)
		}
		const n = 256
		blk := &block{n: n, in: make([]uint64, n*p.iw), out: make([]uint64, n*p.ow)}
		first := int64(len(p.dirLabel)) - n/2 // half directed, half random
		if err := p.compute(w, blk, true, false); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(5, func() {
			blk.first = first
			first += n
			if err := p.compute(w, blk, true, false); err != nil {
				t.Fatal(err)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per block of %d vectors, want 0", name, allocs, n)
		}
	}
}
