package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// unblModule is MultiQ's case-3 term in small: y = mux(bl, t << 1, t +
// bh[c]) (7 bits), r = 1/y (a reciprocal unit, 9 fraction bits, y = 0 gives
// its maximum), v = Rnd(t * r >> 4), u = mux(v > 40, max, v). Every arm of
// y is at least t, so t * r <= y * r(y) <= about 2^9 and v <= 33: u never
// saturates. With twin, y's second arm is t >> 2 instead (below t): then t
// * r reaches about 2^11 and v about 128, far above 40.
func unblModule(t *testing.T, twin bool) *rtl.Module {
	t.Helper()
	c := fixedpoint.ReciprocalConfig{In: fixedpoint.Format{W: 7, I: 7}, TableBits: 2, Entry: fixedpoint.Format{W: 8, I: 1},
		NRSteps: 1, Out: fixedpoint.Format{W: 10, I: 1}, Q: fixedpoint.Rnd, O: fixedpoint.Sat}
	rc, err := fixedpoint.NewReciprocal(c)
	if err != nil {
		t.Fatal(err)
	}
	m := rtl.NewModule("unbl_mod", "")
	tx := m.In("t", 6, false)
	code := m.In("c", 1, false)
	bl := m.In("bl", 1, false).Named("h0_mq_is_backlog")
	bh := m.ROM(code, 6, []uint64{0, 5})
	arm2 := m.Add(m.ZExt(tx, 7), m.ZExt(bh, 7))
	if twin {
		arm2 = m.ZExt(m.Slice(tx, 2, 4), 7)
	}
	y := m.Mux(bl, m.ShlC(m.ZExt(tx, 7), 1), arm2).Named("h0_mq_y")
	r := m.FxRecip(rtl.Fx{N: y, F: c.In}, rc.Config(), rc.Table()).N.Named("h0_recip_mq")
	p := m.Mul(tx, r)
	v := m.Add(m.ZExt(m.Slice(p, 4, p.Width-4), p.Width-3), m.ZExt(m.Slice(p, 3, 1), p.Width-3))
	u := m.Mux(m.Gt(v, m.Const(v.Width, false, 40)), m.Const(6, false, 63), m.Slice(v, 0, 6)).Named("h0_u_nbl")
	m.Out("u", u, "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUnblBoundExhaustive checks declareUnblBound on unblModule. Oracle:
// every input (t, c, bl) sampled: on the module the rule must declare the
// saturation compare's at and above bins and the mux's saturated arm, and
// no input may hit them; on the twin (an arm below t) it must declare none,
// and the above bin is hit.
func TestUnblBoundExhaustive(t *testing.T) {
	for _, twin := range []bool{false, true} {
		cm, err := newModel(unblModule(t, twin))
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
		for in := uint64(0); in < 256; in++ {
			s.Sample([]uint64{in & 63, in >> 6 & 1, in >> 7}, cnt)
		}
		declared, aboveHit := 0, false
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				if strings.Contains(bin.Unreachable, "has every arm at least") {
					declared++
					if cnt.Bins[i][b] != 0 {
						t.Errorf("twin %v: %s.%s hit %d times, declared unreachable: %s", twin, p.Name, bin.Name, cnt.Bins[i][b], bin.Unreachable)
					}
				}
				if p.Kind == KindCompare && strings.Contains(p.Doc, "threshold 40 ") && bin.Name == "above" && cnt.Bins[i][b] > 0 {
					aboveHit = true
				}
			}
		}
		switch {
		case !twin && declared != 3:
			t.Errorf("%d bins declared, want 3 (the compare's at and above, the mux's saturated arm)", declared)
		case twin && (declared != 0 || !aboveHit):
			t.Errorf("twin: %d bins declared (want 0), above hit %v (want true)", declared, aboveHit)
		}
	}
}
