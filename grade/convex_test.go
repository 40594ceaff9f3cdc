package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// ewmaModule is the EWMA of U in small: tau = min(d, tauMax) over a 4-bit
// d, s = (c - tau)*x + tau*y over a 4-bit x and a 3-bit y (the difference computed
// as the datapath does: zero-extended, read signed, subtracted, low 4 bits
// kept), then s * k rounded half up at bit 8 (r = (s*k >> 8) + bit 7) and
// saturated to 4 bits. Kinds:
//   - "convex": tauMax = c = 5, k = 52 (5*52 = 256 + 4): s <= 75 and r <= 15
//     (75*52 = 3900 rounds to 15), so the saturation never fires; interval
//     arithmetic gives s <= 150 and r <= 16;
//   - "wrap": tauMax = 6 > c = 5: c - tau wraps at tau = 6 (the difference
//     is 15) and the saturation fires;
//   - "wrap_direct": the same, the difference taken in 4 bits (no slice);
//   - "slice_t": the difference reads tau's low 2 bits (tau mod 4), so at
//     tau = 4 the sum is 5*x + 4*y, above c*max(x, y);
//   - "two_t": the second product reads another clamp of another input
//     (tau2 = min(e, 5)): no convex relation, the saturation fires;
//   - "round_near": k = 51 (75*51 = 3825 = 14.94 * 256 rounds up to 15,
//     the bound; truncated, it would be 14): never saturates either;
//   - "round_up": k = 55 (75*55 = 4125 rounds up to 16): the saturation
//     fires at s = 75;
//   - "narrow": p = s*k + 2048 and the rounded value keeps only 3 bits of
//     p >> 8 (dropping bit 11, which p always sets), so it is not a
//     round-half-up sum: r is at most 8, below round(p_lo) = 8 mostly (the
//     saturation never fires, which the plain analysis of the 3-bit slice
//     decides).
//
// Outputs: "ovf" (the saturation compare) and "u" (the result).
func ewmaModule(t testing.TB, kind string) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("ewma_"+kind, "")
	x := m.In("x", 4, false)
	y := m.ZExt(m.In("y", 3, false), 4) // y <= 7 < x's bound: max and min of the bounds differ
	d := m.In("d", 4, false)
	e := m.In("e", 2, false)
	k4 := func(v uint64) *rtl.Node { return m.Const(4, false, v) }
	c, tauMax, k := uint64(5), uint64(5), uint64(52)
	switch kind {
	case "wrap", "wrap_direct":
		tauMax = 6
	case "round_up":
		k = 55
	case "round_near":
		k = 51
	}
	clamp := func(v *rtl.Node, hi uint64) *rtl.Node { return m.Mux(m.Lt(k4(hi), v), k4(hi), v) }
	tau := clamp(d, tauMax).Named("tau")
	diff := m.Slice(m.Sub(m.AsSigned(m.ZExt(k4(c), 5)), m.AsSigned(m.ZExt(tau, 5))), 0, 4)
	switch kind {
	case "wrap_direct":
		diff = m.Sub(k4(c), tau)
	case "slice_t":
		diff = m.Sub(k4(c), m.ZExt(m.Slice(tau, 0, 2), 4))
	}
	t2 := tau
	if kind == "two_t" {
		t2 = clamp(m.ZExt(e, 4), 5).Named("tau2")
	}
	s := m.Add(m.ZExt(m.Mul(diff, x), 9), m.ZExt(m.Mul(t2, y), 9)).Named("s")
	p := m.Mul(s, m.Const(7, false, k)) // 16 bits
	hiW := 8
	if kind == "narrow" {
		hiW = 3
		p = m.Add(p, m.Const(16, false, 2048))
	}
	p.Named("p")
	r := m.Add(m.ZExt(m.Slice(p, 8, hiW), 9), m.ZExt(m.Bit(p, 7), 9)).Named("r")
	ovf := m.Gt(r, m.Const(9, false, 15)).Named("ovf")
	m.Out("ovf", ovf, "")
	m.Out("u", m.Mux(ovf, k4(15), m.Slice(r, 0, 4)), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRelationalValueRangesExhaustive checks RelationalValueRanges against
// exhaustive evaluation of ewmaModule. Oracle: rtl.Sim over all 2^13
// inputs: every value of every node lies in its Range (interval and known
// bits), and the saturation compare's reachability. The convex kind must
// be decided (ovf never 1: the convex and the rounding relation both
// needed, ValueRanges alone does not decide it, and r reaches its bound
// 15, so the bound is exact); the twins wrap, wrap_direct, slice_t, two_t,
// round_up reach ovf =
// 1 and narrow's r falls below the rounding of p's lower bound, so a
// relation applied where it does not hold fails the range check.
func TestRelationalValueRangesExhaustive(t *testing.T) {
	for _, kind := range []string{"convex", "round_near", "wrap", "wrap_direct", "slice_t", "two_t", "round_up", "narrow"} {
		t.Run(kind, func(t *testing.T) {
			f, err := combinational(ewmaModule(t, kind))
			if err != nil {
				t.Fatal(err)
			}
			rs, rels := RelationalValueRanges(f)
			plain := ValueRanges(f)
			sim, err := rtl.NewSim(f)
			if err != nil {
				t.Fatal(err)
			}
			ovf := f.Outputs[0].Node
			r := ovf.Args[0]
			ovfSeen, rMax := false, uint64(0)
			for v := uint64(0); v < 1<<13; v++ { // x, y, d, e
				sim.SetInUint(0, v&15)
				sim.SetInUint(1, v>>4&7)
				sim.SetInUint(2, v>>7&15)
				sim.SetInUint(3, v>>11)
				sim.Out(0)
				for _, n := range f.Nodes {
					x := sim.NodeValue(n.ID)
					g := rs[n.ID]
					if !x.And(g.Zero).IsZero() || x.And(g.One) != g.One || g.HasRange && (x.Uint64() < g.Lo || x.Uint64() > g.Hi) {
						t.Fatalf("input %#x: node %s = %d outside its range [%d, %d] (ones %s, zeros %s); relations %+v", v, n.Name, x.Uint64(), g.Lo, g.Hi, g.One.Hex(n.Width), g.Zero.Hex(n.Width), rels)
					}
				}
				ovfSeen = ovfSeen || sim.NodeValue(ovf.ID).Bit(0)
				rMax = max(rMax, sim.NodeValue(r.ID).Uint64())
			}
			decided := rs[ovf.ID].Zero.Bit(0)
			if want := kind == "convex" || kind == "round_near" || kind == "narrow"; decided != want || ovfSeen == want {
				t.Fatalf("ovf decided 0: %v, reached 1: %v; want decided %v (relations %+v)", decided, ovfSeen, want, rels)
			}
			if kind == "convex" || kind == "round_near" {
				if plain[ovf.ID].Zero.Bit(0) {
					t.Fatal("ValueRanges alone decides ovf: the test no longer needs the relations")
				}
				if kind == "convex" && len(rels) != 2 || rs[r.ID].Hi != rMax {
					t.Fatalf("relations %+v, r's bound %d, its exhaustive maximum %d: want the convex and the rounding relation, and an exact bound", rels, rs[r.ID].Hi, rMax)
				}
			}
		})
	}
}

// TestRelationalValueRangesWhere checks the "where" variant: for the
// inputs where an or of two 1-bit inputs is 0 (no hop valid), both are 0,
// which an analysis of compares alone cannot say. Module: o = mux(or(a,
// b), x, 3) + mux(a, 1, 0) over 1-bit a, b and 2-bit x: where the or is 0,
// o = 3. Oracle: exhaustive evaluation; every node's value on the inputs
// with the or at the asked value lies in its Range, and where it is 0, o
// is the constant 3.
func TestRelationalValueRangesWhere(t *testing.T) {
	m := rtl.NewModule("where_or", "")
	a := m.In("a", 1, false)
	b := m.In("b", 1, false)
	x := m.In("x", 2, false)
	any := m.Or(a, b).Named("any")
	o := m.Add(m.ZExt(m.Mux(any, x, m.Const(2, false, 3)), 3), m.ZExt(m.Mux(a, m.Const(2, false, 1), m.Const(2, false, 0)), 3)).Named("o")
	m.Out("o", o, "")
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	oN := f.Outputs[0].Node
	anyN := oN.Args[0].Args[0].Args[0] // o = zext(mux(any, ...)) + ...
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, val := range []bool{false, true} {
		rs, _, ok := RelationalValueRangesWhere(f, anyN, val)
		if !ok {
			if !val {
				t.Fatal("where any = 0: no Ranges")
			}
			continue
		}
		if !val && (!rs[oN.ID].HasRange || rs[oN.ID].Lo != 3 || rs[oN.ID].Hi != 3) {
			t.Fatalf("where any = 0: o in %+v, want exactly 3", rs[oN.ID])
		}
		for v := uint64(0); v < 16; v++ {
			sim.SetInUint(0, v&1)
			sim.SetInUint(1, v>>1&1)
			sim.SetInUint(2, v>>2)
			sim.Out(0)
			if sim.NodeValue(anyN.ID).Bit(0) != val {
				continue
			}
			for _, n := range f.Nodes {
				y := sim.NodeValue(n.ID)
				g := rs[n.ID]
				if !y.And(g.Zero).IsZero() || y.And(g.One) != g.One || g.HasRange && (y.Uint64() < g.Lo || y.Uint64() > g.Hi) {
					t.Fatalf("any=%v input %d: node %s = %d outside its range [%d, %d]", val, v, n.Name, y.Uint64(), g.Lo, g.Hi)
				}
			}
		}
	}
}
