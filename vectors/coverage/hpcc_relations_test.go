package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// relModule is u_ewma in small: tau = min(d, 5) over a 4-bit d, s = (5 -
// tau)*x + tau*y over 4-bit x and y, rounded half up at bit 8 after a
// product by k, saturated at 15 (u = ovf ? 15 : r). With k = 52 the
// saturation never fires (the convex combination is at most 75, and 75*52
// = 3900 rounds to 15); with k = 55 (the reachable twin) it fires at s =
// 75 (4125 rounds to 16).
func relModule(k uint64) *rtl.Module {
	m := rtl.NewModule("rel_mod", "")
	x := m.In("x", 4, false)
	y := m.In("y", 4, false)
	d := m.In("d", 4, false)
	c4 := func(v uint64) *rtl.Node { return m.Const(4, false, v) }
	tau := m.Mux(m.Lt(c4(5), d), c4(5), d)
	s := m.Add(m.ZExt(m.Mul(m.Sub(c4(5), tau), x), 9), m.ZExt(m.Mul(tau, y), 9))
	p := m.Mul(s, m.Const(7, false, k))
	r := m.Add(m.ZExt(m.Slice(p, 8, 8), 9), m.ZExt(m.Bit(p, 7), 9))
	ovf := m.Gt(r, m.Const(9, false, 15)).Named("ovf")
	m.Out("u", m.Mux(ovf, c4(15), m.Slice(r, 0, 4)).Named("u"), "")
	return m
}

// TestRelationalBinsExhaustive checks the bins the relational value
// analysis proves (Model.addRelations: u_ewma's saturation compare above
// its threshold and its saturation mux) on relModule sampled over all of
// its inputs. Oracle: exhaustive sampling; every bin proved unreachable is
// never hit, the saturation's "above" and the mux's then_differs are proved
// for k = 52 and hit (not proved) for the twin k = 55.
func TestRelationalBinsExhaustive(t *testing.T) {
	for _, k := range []uint64{52, 55} {
		cm, err := newModel(relModule(k))
		if err != nil {
			t.Fatal(err)
		}
		cm.addRelations()
		cm.addStructural()
		if err := cm.validate(); err != nil {
			t.Fatal(err)
		}
		s, err := cm.NewSampler()
		if err != nil {
			t.Fatal(err)
		}
		cnt := cm.NewCounts()
		for v := uint64(0); v < 1<<12; v++ {
			s.Sample([]uint64{v & 15, v >> 4 & 15, v >> 8}, cnt)
		}
		targets := 0
		for pi, p := range cm.Points {
			for b, bin := range p.Bins {
				if bin.Unreachable != "" && cnt.Bins[pi][b] != 0 {
					t.Errorf("k=%d: %s.%s hit %d times, yet proved unreachable: %s", k, p.Name, bin.Name, cnt.Bins[pi][b], bin.Unreachable)
				}
				target := p.Name == "cmp_ovf" && bin.Name == "above" || strings.HasPrefix(p.Name, "mux_u") && bin.Name == "then_differs"
				if !target {
					continue
				}
				targets++
				proved := strings.HasPrefix(bin.Unreachable, "value analysis with the relations")
				if want := k == 52; proved != want || (cnt.Bins[pi][b] == 0) != want {
					t.Errorf("k=%d: %s.%s hit %d times, proof %q: want proved (by the relations) %v", k, p.Name, bin.Name, cnt.Bins[pi][b], bin.Unreachable, want)
				}
			}
		}
		if targets != 2 {
			t.Fatalf("k=%d: %d target bins found, want 2 (cmp_ovf.above, mux_u*.then_differs)", k, targets)
		}
	}
}

// heldMod is u_new = mux(any_valid, u_ewma, st_u) in small: two hops with
// valid bits and 3-bit delays, tau the selected delay (0 with no valid
// hop) clamped to 5, u_ewma = sat15(round(((5 - tau)*u + tau*y) * k /
// 2^8)) over a 3-bit u and a 4-bit y. With no valid hop u_ewma =
// round(5*k*u / 256): u for k = 52, u + 1 at u = 7 for the twin k = 55.
func heldMod(k uint64) *rtl.Module {
	m := rtl.NewModule("held_mod", "")
	u := m.ZExt(m.In("u", 3, false), 4)
	y := m.In("y", 4, false)
	v0, v1 := m.In("v0", 1, false), m.In("v1", 1, false)
	d0, d1 := m.In("d0", 3, false), m.In("d1", 3, false)
	c4 := func(v uint64) *rtl.Node { return m.Const(4, false, v) }
	sd := m.ZExt(m.Mux(v1, d1, m.Mux(v0, d0, m.Const(3, false, 0))), 4)
	tau := m.Mux(m.Lt(c4(5), sd), c4(5), sd)
	s := m.Add(m.ZExt(m.Mul(m.Sub(c4(5), tau), u), 9), m.ZExt(m.Mul(tau, y), 9))
	p := m.Mul(s, m.Const(7, false, k))
	r := m.Add(m.ZExt(m.Slice(p, 8, 8), 9), m.ZExt(m.Bit(p, 7), 9))
	ew := m.Mux(m.Gt(r, m.Const(9, false, 15)), c4(15), m.Slice(r, 0, 4))
	m.Out("u_new", m.Mux(m.Or(v0, v1), ew, u).Named("held"), "")
	return m
}

// TestArmsEqualBinsExhaustive checks the arms-equal rule of the mux bins
// (grade.ArmsEqualWhere; u_new keeping st_u with no valid hop) on heldMod
// sampled over all 2^16 inputs. Oracle: exhaustive sampling; no bin proved
// unreachable is hit; the held mux's else_differs is proved by the rule
// for k = 52 and hit for the twin k = 55; its then_differs is hit in both.
func TestArmsEqualBinsExhaustive(t *testing.T) {
	for _, k := range []uint64{52, 55} {
		cm, err := newModel(heldMod(k))
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
		for v := uint64(0); v < 1<<16; v++ {
			s.Sample([]uint64{v & 7, v >> 3 & 15, v >> 7 & 1, v >> 8 & 1, v >> 9 & 7, v >> 12 & 7}, cnt)
		}
		found := false
		for pi, p := range cm.Points {
			for b, bin := range p.Bins {
				if bin.Unreachable != "" && cnt.Bins[pi][b] != 0 {
					t.Errorf("k=%d: %s.%s hit %d times, yet proved unreachable: %s", k, p.Name, bin.Name, cnt.Bins[pi][b], bin.Unreachable)
				}
			}
			if !strings.HasPrefix(p.Name, "mux_held") {
				continue
			}
			found = true
			proved := strings.HasPrefix(p.Bins[0].Unreachable, "arms equal")
			if want := k == 52; proved != want || (cnt.Bins[pi][0] == 0) != want {
				t.Errorf("k=%d: else_differs hit %d times, proof %q: want proved by the arms-equal rule %v", k, cnt.Bins[pi][0], p.Bins[0].Unreachable, want)
			}
			if p.Bins[1].Unreachable != "" || cnt.Bins[pi][1] == 0 {
				t.Errorf("k=%d: then_differs hit %d times, proof %q: want reachable and hit", k, cnt.Bins[pi][1], p.Bins[1].Unreachable)
			}
		}
		if !found {
			t.Fatalf("k=%d: no point of the held mux", k)
		}
	}
}
