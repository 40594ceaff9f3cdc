package vectors

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
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

// TestHopArithMatchesRTL checks the constructed classes' restatement of
// the hop term (hopArith with mqArith, hpcc_arith.go and hpcc_multiq.go)
// against the hardware description: over a level-1 set plus random
// vectors of MultiQ and Sojourn configurations, every valid hop's restated
// u' equals the rtl node h<i>_u, and in MultiQ case 2 mq_rho and q_term_bl
// equal h<i>_mq_rho and h<i>_q_term_bl. Oracle: rtl/hpccrtl's description
// evaluated by rtl.Sim (its own equality with the golden datapath is
// hpccrtl's TestUpdateEvaluatorVsGolden).
func TestHopArithMatchesRTL(t *testing.T) {
	cfgs := mqVecConfigs()
	sj := hpcc.DefaultConfig()
	sj.Sojourn = true
	cfgs["ifa_sojourn"] = sj
	for name, cfg := range cfgs {
		h, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.cx == nil {
			t.Fatalf("%s: no constructed classes (hop restatement refused)", name)
		}
		a := h.cx.a
		mod, err := hpccrtl.UpdateComb(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sim, err := rtl.NewSim(mod)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]int{}
		for _, n := range mod.Nodes {
			if n.Name != "" {
				ids[n.Name] = n.ID
			}
		}
		node := func(name string) uint64 {
			id, ok := ids[name]
			if !ok {
				t.Fatalf("%s: no rtl node %s", name, name)
			}
			return sim.NodeValue(id).Uint64()
		}
		set, err := Generate(h, Options{Level: 1, Count: 500, Seed: 5, NoJSONL: true})
		if err != nil {
			t.Fatal(err)
		}
		in := set.InputTable()
		cases := map[hpcc.MQCase]int{}
		for k := 0; k < set.Len(); k++ {
			word := set.Input(k)
			for i, f := range in.Fields {
				sim.SetInUint(i, fieldtable.Get(word, f))
			}
			sim.Eval()
			var o hobs
			o.st, o.in, err = h.d.UnpackInput(word)
			if err != nil {
				t.Fatal(err)
			}
			o.next, o.out = h.update(o.st, o.in)
			h.observe(&o)
			for i := 0; i < h.maxHops; i++ {
				if !o.valid[i] {
					continue
				}
				v := a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
				hp := fmt.Sprintf("h%d_", i)
				if got := node(hp + "u"); got != v.u {
					t.Fatalf("%s: vector %d (%s) hop %d: restated u' %#x, rtl %#x (case %v)", name, k, set.Class(k), i, v.u, got, v.mq.c)
				}
				cases[v.mq.c]++
				if v.mq.c == hpcc.MQBacklog {
					if got := node(hp + "mq_rho"); got != v.mq.rho {
						t.Fatalf("%s: vector %d hop %d: restated mq_rho %#x, rtl %#x", name, k, i, v.mq.rho, got)
					}
					if got := node(hp + "q_term_bl"); got != v.mq.q2 {
						t.Fatalf("%s: vector %d hop %d: restated q_term_bl %#x, rtl %#x", name, k, i, v.mq.q2, got)
					}
				}
			}
		}
		if cfg.MultiQ.Enabled && (cases[hpcc.MQWithin] == 0 || cases[hpcc.MQNoBacklog] == 0) {
			t.Errorf("%s: cases compared %v: want cases 1 and 3 at least", name, cases)
		}
	}
}

// TestMultiQConstructedClasses: in every MultiQ test configuration the
// constructed classes (six of hpcc_directed.go's seven, and three of
// hpcc_multiq_edges.go's four: recip_u_last_bit and mq_backlog_u_sat exist
// only where their exact targets do) are generated, and mq_recip_seed_edges reads every
// entry of the recip_mq table on every hop slot in case 2 with a u' that
// changes with the entry one LSB off. Oracle: the table size and hop count
// of the configuration; the entry read is recomputed here from mq_y's
// leading one (fixedpoint's reciprocal seed indexing), and the visibility
// from the restatement TestHopArithMatchesRTL checks against the rtl.
func TestMultiQConstructedClasses(t *testing.T) {
	want := []string{"term_round_ties", "term_saturation_edges", "recip_seed_edges", "u_leading_one", "dts_leading_one", "wc_out_of_range",
		"mq_compare_edges", "mq_recip_seed_edges", "mq_y_leading_one"} // mq_backlog_u_sat only where a q_min lands on UMax
	for name, cfg := range mqVecConfigs() {
		h, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		set, err := Generate(h, Options{Level: 1, Count: 0, NoJSONL: true, Classes: []string{"mq_recip_seed_edges"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		have := map[string]bool{}
		for _, c := range h.Classes() {
			have[c.Name] = true
		}
		for _, n := range want {
			if !have[n] {
				t.Errorf("%s: no class %s", name, n)
			}
		}
		m := h.cx.a.mq
		kb := m.rc.TableBits
		seen := make([]map[uint64]bool, h.maxHops)
		for i := range seen {
			seen[i] = map[uint64]bool{}
		}
		for k := 0; k < set.Len(); k++ {
			var o hobs
			o.st, o.in, err = h.d.UnpackInput(set.Input(k))
			if err != nil {
				t.Fatal(err)
			}
			o.next, o.out = h.update(o.st, o.in)
			h.observe(&o)
			i := int(o.out.SelHop)
			if i >= h.maxHops {
				t.Fatalf("%s: vector %d selects no hop", name, k)
			}
			v := h.cx.a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
			if v.mq.c != hpcc.MQBacklog || !h.cx.detectMQSeedEdges(&o) {
				t.Fatalf("%s: vector %d: case %v, or u' does not change with the entry", name, k, v.mq.c)
			}
			p := bits.Len64(v.mq.y) - 1
			seen[i][v.mq.y>>uint(p-kb)&(1<<uint(kb)-1)] = true
		}
		for i := range seen {
			if len(seen[i]) != 1<<uint(kb) {
				t.Errorf("%s: hop %d: mq_recip_seed_edges reads %d of the %d recip_mq entries", name, i, len(seen[i]), 1<<uint(kb))
			}
		}
	}
}
