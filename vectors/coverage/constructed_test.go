package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestConstructedClassesHitBins generates each constructed class of
// hpcc_update alone (vectors/hpcc_directed.go) and samples the functional
// coverage model over its vectors: the bins of the hardware description are
// the oracle that each class lands where its doc says, independently of the
// class's own detector (which recomputes the condition from the golden
// arithmetic). Per class, what must be hit:
//   - term_round_ties: the exact tie of at least three rounding casts per hop
//     slot (txRate, r_term, q_term) and one LSB below the tie of at least two;
//   - term_saturation_edges: a compare against a constant exactly at its
//     threshold for at least three casts per hop slot (txRate, r_term, u');
//   - recip_seed_edges: every entry of every reciprocal table (1/dts per hop,
//     1/U);
//   - u_leading_one: every count of the 1/U normalizer (the widest CLZ point);
//   - dts_leading_one: every reachable count of every 1/dts normalizer but
//     the last (dts_in = 0, which a valid hop never has);
//   - recip_u_last_bit: a rounding tie (the 1/U output's);
//   - wc_out_of_range: the wc bins below W_min, above W_max and all ones;
//   - window_round_ties: the tie of at least two rounding casts (Wc*eta/U,
//     u_ewma) and one LSB below the tie of at least three (with eta/U);
//   - window_saturation_edges: a compare against a constant exactly at its
//     threshold for at least four window casts and clamps (Wc*eta/U's and
//     W_mi + W_ai's saturation, the W_min and W_max clamps);
//   - recip_low_bits: every count of every 1/dts normalizer but that of
//     dts_in = 0, every count of the 1/U normalizer but those of U = 0 and
//     U = 1 LSB (whose 1/U saturates), and the output casts' rounding ties
//     of both units (1/dts and 1/U drop a bit in their top binade).
func TestConstructedClassesHitBins(t *testing.T) {
	for _, enc := range []string{"ifa", "compact"} {
		cfg := hpcc.DefaultConfig()
		if enc == "compact" {
			cfg = hpcc.DefaultConfigFor(telemetry.Compact)
		}
		cm, err := ForHPCC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		sample := func(class string) *Counts {
			t.Helper()
			set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 1, Seed: 1, Count: 0, Classes: []string{class}, NoJSONL: true})
			if err != nil {
				t.Fatalf("%s: %s: %v", enc, class, err)
			}
			s, err := cm.NewSampler()
			if err != nil {
				t.Fatal(err)
			}
			v := grade.FromSet(set, class)
			c := cm.NewCounts()
			for k := 0; k < v.Len(); k++ {
				s.Sample(v.Input(k), c)
			}
			return c
		}
		hitPoints := func(c *Counts, kind Kind, bin string) int {
			n := 0
			for i, p := range cm.Points {
				for b, bn := range p.Bins {
					if p.Kind == kind && bn.Name == bin && c.Bins[i][b] != 0 {
						n++
					}
				}
			}
			return n
		}
		nh := cfg.MaxHops
		c := sample("term_round_ties")
		if n := hitPoints(c, KindRound, "tie"); n < 3*nh {
			t.Errorf("%s: term_round_ties hits the tie of %d rounding casts, want at least %d", enc, n, 3*nh)
		}
		if n := hitPoints(c, KindRound, "below_tie"); n < 2*nh {
			t.Errorf("%s: term_round_ties hits one below the tie of %d rounding casts, want at least %d", enc, n, 2*nh)
		}
		c = sample("term_saturation_edges")
		if n := hitPoints(c, KindCompare, "at"); n < 3*nh {
			t.Errorf("%s: term_saturation_edges hits %d thresholds exactly, want at least %d", enc, n, 3*nh)
		}
		c = sample("recip_seed_edges")
		roms := 0
		for i, p := range cm.Points {
			if p.Kind != KindROM || !strings.HasPrefix(p.Node, "recip_rom") {
				continue
			}
			roms++
			for b, bn := range p.Bins {
				if bn.Unreachable == "" && c.Bins[i][b] == 0 {
					t.Errorf("%s: recip_seed_edges misses %s.%s", enc, p.Name, bn.Name)
				}
			}
		}
		if roms != nh+1 {
			t.Errorf("%s: %d reciprocal tables, want %d (1/dts per hop, 1/U)", enc, roms, nh+1)
		}
		c = sample("u_leading_one")
		widest := -1
		for i, p := range cm.Points {
			if p.Kind == KindCLZ && (widest < 0 || len(p.Bins) > len(cm.Points[widest].Bins)) {
				widest = i
			}
		}
		for b, bn := range cm.Points[widest].Bins {
			if bn.Unreachable == "" && c.Bins[widest][b] == 0 {
				t.Errorf("%s: u_leading_one misses %s.%s", enc, cm.Points[widest].Name, bn.Name)
			}
		}
		c = sample("dts_leading_one")
		for i, p := range cm.Points {
			if p.Kind != KindCLZ || i == widest {
				continue
			}
			last := -1 // the count of dts_in = 0: the highest one not proved unreachable
			for b, bn := range p.Bins {
				if bn.Unreachable == "" {
					last = b
				}
			}
			for b, bn := range p.Bins {
				if bn.Unreachable == "" && b != last && c.Bins[i][b] == 0 {
					t.Errorf("%s: dts_leading_one misses %s.%s", enc, p.Name, bn.Name)
				}
			}
		}
		c = sample("recip_u_last_bit")
		if n := hitPoints(c, KindRound, "tie"); n < 1 {
			t.Errorf("%s: recip_u_last_bit hits no rounding tie", enc)
		}
		c = sample("window_round_ties")
		if n := hitPoints(c, KindRound, "tie"); n < 2 {
			t.Errorf("%s: window_round_ties hits the tie of %d rounding casts, want at least 2", enc, n)
		}
		if n := hitPoints(c, KindRound, "below_tie"); n < 3 {
			t.Errorf("%s: window_round_ties hits one below the tie of %d rounding casts, want at least 3", enc, n)
		}
		c = sample("window_saturation_edges")
		if n := hitPoints(c, KindCompare, "at"); n < 4 {
			t.Errorf("%s: window_saturation_edges hits %d thresholds exactly, want at least 4", enc, n)
		}
		c = sample("recip_low_bits")
		for i, p := range cm.Points {
			if p.Kind != KindCLZ {
				continue
			}
			skip := 0 // the highest reachable counts the class leaves out (dts_in = 0 is proved unreachable)
			if i == widest {
				skip = 2
			}
			var reach []int
			for b, bn := range p.Bins {
				if bn.Unreachable == "" {
					reach = append(reach, b)
				}
			}
			for _, b := range reach[:max(len(reach)-skip, 0)] {
				if c.Bins[i][b] == 0 {
					t.Errorf("%s: recip_low_bits misses %s.%s", enc, p.Name, p.Bins[b].Name)
				}
			}
		}
		if n := hitPoints(c, KindRound, "tie"); n < nh+1 {
			t.Errorf("%s: recip_low_bits hits the tie of %d rounding casts, want at least %d (each 1/dts unit's and 1/U's output)", enc, n, nh+1)
		}
		c = sample("wc_out_of_range")
		for i, p := range cm.Points {
			if p.Name != "wc" {
				continue
			}
			for b, bn := range p.Bins {
				if (bn.Name == "below_min" || bn.Name == "above_max" || bn.Name == "all_ones") && c.Bins[i][b] == 0 {
					t.Errorf("%s: wc_out_of_range misses wc.%s", enc, bn.Name)
				}
			}
		}
	}
}
