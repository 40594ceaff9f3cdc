package coverage

import (
	"slices"
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
// (tx = 0, bh = 1). With gated, the code is the hop's speed code
// (in_hop0_speed): code 0, whose bh is 0, is rejected (h0_speed_ok = 0),
// h0_ok = h0_speed_ok & en, and the unit reads mux(h0_ok, e, 1): where bh
// is 0 the hop is not valid, r = 1.0 and a non-zero tx is at least 512, so
// y is 0 or at least 16 (bit lengths 1 to 4 never occur).
func yLenModule(t *testing.T, twin, gated bool) *rtl.Module {
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
	var c *rtl.Node
	ein := e
	if gated {
		c = m.In("in_hop0_speed", 1, false)
		en := m.In("en", 1, false)
		sok := m.ROM(c, 1, []uint64{0, 1}).Named("h0_speed_ok")
		ok := m.And(sok, en).Named("h0_ok")
		ein = rtl.Fx{N: m.Mux(ok, e.N, m.Const(6, false, 1)), F: e.F}
	} else {
		c = m.In("c", 1, false)
	}
	ru := unit(e.F)
	r := m.FxRecip(ein, ru.Config(), ru.Table()).N
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
// every input (e, d, s, c, and en when gated) sampled: on the module
// exactly the counts of bit lengths 1 to 3 of y (never hit) carry the
// proof, on the gated module those of lengths 1 to 4, and on the twin,
// where y = 1 is reached, none does.
func TestMQYShortExhaustive(t *testing.T) {
	for _, v := range []struct {
		name         string
		twin, gated  bool
		want         []string
		inputs, bits int
	}{
		{"plain", false, false, []string{"z8", "z9", "z10"}, 4, 11},
		{"twin", true, false, nil, 4, 11},
		{"gated", false, true, []string{"z7", "z8", "z9", "z10"}, 5, 12},
	} {
		cm, err := newModel(yLenModule(t, v.twin, v.gated))
		if err != nil {
			t.Fatal(err)
		}
		if v.gated {
			cm.speedWhy = []string{"rejected by the test", ""}
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
		for in := uint64(0); in < 1<<uint(v.bits); in++ {
			vals := []uint64{in & 63, in >> 6 & 7, in >> 9 & 1, in >> 10 & 1, in >> 11}
			s.Sample(vals[:v.inputs], cnt)
		}
		var got []string
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				if !strings.Contains(bin.Unreachable, "shifted or plus a table entry") {
					continue
				}
				got = append(got, bin.Name)
				if cnt.Bins[i][b] != 0 {
					t.Errorf("%s: %s.%s hit %d times, declared unreachable: %s", v.name, p.Name, bin.Name, cnt.Bins[i][b], bin.Unreachable)
				}
				if p.Kind != KindCLZ {
					t.Errorf("%s: %s.%s declared: not a normalizer count", v.name, p.Name, bin.Name)
				}
			}
		}
		slices.Sort(got)
		want := slices.Clone(v.want)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: counts declared %v, want %v", v.name, got, want)
		}
	}
}
