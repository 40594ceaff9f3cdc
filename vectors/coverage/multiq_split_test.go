package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// recipTimesTable is a small MultiQ recip_mq: a reciprocal unit (12-bit
// integer y, 3 table bits, one Newton step, 20 fraction bits out, which
// saturates at y = 1 as recip_mq does at its smallest inputs) whose output
// a 2-entry table multiplies, as mq_wb * recip_mq. With twin, the operand
// is mux(s, 1/y, y >> 6) instead: the same unit, but small operands are
// reachable (y >> 6 is 0 to 63).
func recipTimesTable(t *testing.T, twin bool) *rtl.Module {
	t.Helper()
	c := fixedpoint.ReciprocalConfig{In: fixedpoint.Format{W: 12, I: 12}, TableBits: 3, Entry: fixedpoint.Format{W: 10, I: 1},
		NRSteps: 1, Out: fixedpoint.Format{W: 20, I: 0}, Q: fixedpoint.Rnd, O: fixedpoint.Sat}
	r, err := fixedpoint.NewReciprocal(c)
	if err != nil {
		t.Fatal(err)
	}
	m := rtl.NewModule("recip_mod", "")
	y := m.FxIn("y", c.In)
	sel := m.In("s", 1, false)
	code := m.In("c", 1, false)
	rq := m.FxRecip(y, r.Config(), r.Table())
	op := rq.N
	if twin {
		op = m.Mux(sel, rq.N, m.ZExt(m.Slice(y.N, 6, 6), 20))
	} else {
		m.Out("s_out", sel, "")
	}
	k := m.ROM(code, 8, []uint64{3, 200})
	m.Out("p", m.Mul(k, op), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestSplitAtLeastExhaustive checks the per-piece lower bound of a
// reciprocal unit's output (Model.declareSplitBounds, splitAtLeast) on
// recipTimesTable. Oracle: every input (y, s, c) sampled through the
// model: no bin the rule declares unreachable is hit (sound), and on the
// unit alone the rule must prove the bucket that the value analysis of
// the whole module leaves reachable (it bounds the operand at 31, in the
// first bucket, 1..31; the operand is at least 2^20/4095 > 2^8) for both
// entries, and every bin left reachable must be hit; on the twin, where
// the zero and first buckets are hit through the other arm, it must
// declare none.
func TestSplitAtLeastExhaustive(t *testing.T) {
	for _, twin := range []bool{false, true} {
		cm, err := newModel(recipTimesTable(t, twin))
		if err != nil {
			t.Fatal(err)
		}
		cm.addStructural()
		if err := cm.validate(); err != nil {
			t.Fatal(err)
		}
		s, err := cm.NewSampler()
		if err != nil {
			t.Fatal(err)
		}
		cnt := cm.NewCounts()
		for in := uint64(0); in < 1<<14; in++ { // y, s, c in port order
			s.Sample([]uint64{in & 4095, in >> 12 & 1, in >> 13}, cnt)
		}
		pi := -1
		for i, p := range cm.Points {
			if p.Kind == KindROMx {
				pi = i
			}
		}
		if pi < 0 {
			t.Fatal("no rom_x point")
		}
		p := cm.Points[pi]
		split, beyondPlain := 0, 0
		x := p.src[1]
		lo, _, _ := cm.interval(x)
		for b, bin := range p.Bins {
			if !strings.Contains(bin.Unreachable, "per piece") {
				continue
			}
			split++
			if cnt.Bins[pi][b] != 0 {
				t.Errorf("twin %v: %s hit %d times, declared unreachable: %s", twin, bin.Name, cnt.Bins[pi][b], bin.Unreachable)
			}
			for q := range magBuckets {
				if hasBucket(bin.Name, q) {
					if _, bhi := bucketRange(q, x.Width); bhi >= lo {
						beyondPlain++
					}
				}
			}
		}
		switch {
		case twin && split != 0:
			t.Errorf("twin: %d bins declared by the per-piece bound; the small operands are reachable", split)
		case !twin && (split != 2 || beyondPlain != 2):
			t.Errorf("%d bins declared by the per-piece bound (%d beyond the whole-module analysis, which bounds the operand at %d), want the q1 bucket (1..31) of both entries, beyond it", split, beyondPlain, lo)
		}
		if !twin {
			for b, bin := range p.Bins {
				if bin.Unreachable == "" && cnt.Bins[pi][b] == 0 {
					t.Errorf("%s: reachable by the model but not hit by any input (the rule could prove more)", bin.Name)
				}
			}
		}
	}
}
