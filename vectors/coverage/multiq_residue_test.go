package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestLeafResidueExhaustive checks declareLeafResidues on p = t * b, b =
// mux(s, 63, u << 2) (as recip_mq: an all-ones saturated value or a shifted
// result), rounded at bit 3 (d = 4: tie 8, one below 7). One below the
// tie needs t * 63 = 7 (mod 16), t = 9 (mod 16), or a multiple of 4 equal
// to 7: with a 3-bit t (0..7) never, so it is declared; the tie 8 is
// reached through the shifted arm (t = 1, u = 2), so it is not. Twin: a
// 4-bit t reaches 9, and one below the tie is hit. Oracle: every input
// sampled; among the tie and below-tie bins the declared ones are exactly
// those no input hits.
func TestLeafResidueExhaustive(t *testing.T) {
	for _, tw := range []int{3, 4} {
		m := rtl.NewModule("res_mod", "")
		tx := m.In("t", tw, false)
		u := m.In("u", 3, false)
		s := m.In("s", 1, false)
		b := m.Mux(s, m.Const(6, false, 63), m.ShlC(m.ZExt(u, 6), 2))
		p := m.Mul(tx, b)
		inc := m.Slice(p, 3, 1).Named("rnd_inc")
		m.Out("r", m.Add(m.ZExt(m.Slice(p, 4, p.Width-4), p.Width-3), m.ZExt(inc, p.Width-3)), "")
		cm, err := newModel(m)
		if err != nil {
			t.Fatal(err)
		}
		cm.addStructural()
		if err := cm.validate(); err != nil {
			t.Fatal(err)
		}
		sm, err := cm.NewSampler()
		if err != nil {
			t.Fatal(err)
		}
		cnt := cm.NewCounts()
		for in := uint64(0); in < 1<<uint(tw+4); in++ {
			sm.Sample([]uint64{in & (1<<uint(tw) - 1), in >> uint(tw) & 7, in >> uint(tw+3)}, cnt)
		}
		found := false
		for i, pt := range cm.Points {
			if pt.Kind != KindRound {
				continue
			}
			found = true
			for bi := 2; bi <= 3; bi++ {
				bin := pt.Bins[bi]
				declared := strings.Contains(bin.Unreachable, "is a mux of")
				if hit := cnt.Bins[i][bi] > 0; hit && declared || !hit && !declared {
					t.Errorf("t of %d bits: %s.%s hit %d times, proof %q: want declared exactly when never hit", tw, pt.Name, bin.Name, cnt.Bins[i][bi], bin.Unreachable)
				}
			}
		}
		if !found {
			t.Fatal("no rounding point")
		}
	}
}
