package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// yLenModule is MultiQ's mq_y in small: r = 1/e (6-bit e, 11 fraction bits
// out), tx = a saturating round-half-up cast of d * r >> 2 (3-bit d, 10 bits
// out, saturating above 1023), y = mux(s, tx << 1, tx + bh[c]) with bh =
// {0, 300} (twin: {0, 1}), and a reciprocal unit normalizing y. The
// smallest non-zero tx is Rnd(ceil(2048/63) >> 2) = 8, so y is 0 or at
// least 8 (bit lengths 1 to 3 never occur); in the twin y = 1 is reached
// (tx = 0, bh = 1).
func yLenModule(t *testing.T, twin bool) *rtl.Module {
	t.Helper()
	unit := func(in fixedpoint.Format) *fixedpoint.Reciprocal {
		r, err := fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{In: in, TableBits: 2, Entry: fixedpoint.Format{W: 8, I: 1},
			NRSteps: 1, Out: fixedpoint.Format{W: 12, I: 1}, Q: fixedpoint.Rnd, O: fixedpoint.Sat})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	m := rtl.NewModule("ylen_mod", "")
	e := m.FxIn("e", fixedpoint.Format{W: 6, I: 6})
	d := m.In("d", 3, false)
	s := m.In("s", 1, false)
	c := m.In("c", 1, false)
	ru := unit(e.F)
	r := m.FxRecip(e, ru.Config(), ru.Table()).N
	p := m.Mul(d, r)
	v := m.Add(m.ZExt(m.Slice(p, 2, p.Width-2), p.Width-1), m.ZExt(m.Slice(p, 1, 1), p.Width-1))
	tx := m.Mux(m.Gt(v, m.Const(v.Width, false, 1023)), m.Const(10, false, 1023), m.Slice(v, 0, 10))
	bh := []uint64{0, 300}
	if twin {
		bh = []uint64{0, 1}
	}
	rom := m.ROM(c, 10, bh)
	y := m.Mux(s, m.ShlC(m.ZExt(tx, 11), 1), m.Add(m.ZExt(tx, 11), m.ZExt(rom, 11))).Named("h0_mq_y")
	yu := unit(fixedpoint.Format{W: 11, I: 11})
	m.Out("ry", m.FxRecip(rtl.Fx{N: y, F: yu.Config().In}, yu.Config(), yu.Table()).N, "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestMQYShortExhaustive checks declareMQYShort on yLenModule. Oracle:
// every input (e, d, s, c) sampled: on the module exactly the counts of
// bit lengths 1 to 3 of y (never hit) carry the proof; on the twin, where
// y = 1 is reached, none does.
func TestMQYShortExhaustive(t *testing.T) {
	for _, twin := range []bool{false, true} {
		cm, err := newModel(yLenModule(t, twin))
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
		for in := uint64(0); in < 1<<11; in++ {
			s.Sample([]uint64{in & 63, in >> 6 & 7, in >> 9 & 1, in >> 10}, cnt)
		}
		declared := 0
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				if !strings.Contains(bin.Unreachable, "shifted or plus a table entry") {
					continue
				}
				declared++
				if cnt.Bins[i][b] != 0 {
					t.Errorf("twin %v: %s.%s hit %d times, declared unreachable: %s", twin, p.Name, bin.Name, cnt.Bins[i][b], bin.Unreachable)
				}
				if p.Kind != KindCLZ || (bin.Name != "z8" && bin.Name != "z9" && bin.Name != "z10") {
					t.Errorf("%s.%s declared: not a count of y's bit lengths 1 to 3 (z10..z8 of 11 bits)", p.Name, bin.Name)
				}
			}
		}
		switch {
		case !twin && declared != 3:
			t.Errorf("%d counts declared, want 3 (bit lengths 1 to 3 of y)", declared)
		case twin && declared != 0:
			t.Errorf("twin: %d counts declared, want 0 (y = 1 is reachable)", declared)
		}
	}
}
