package grade

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// heldModule is u_new = mux(any_valid, u_ewma, st_u) in small: two hops
// with valid bits v0, v1 and 3-bit delays d0, d1; the selected delay (0
// when no hop is valid; 1 in kind "init1") clamped to 5 is tau; u_ewma =
// sat15(round(((5 - tau)*u + tau*y) * k / 2^8)) over a 3-bit u and a
// 4-bit y. Where no hop is valid tau = 0 and u_ewma = round(5*k*u / 256):
// u itself for k = 52 (5*52 = 256 + 4: 4u + 128 < 256) and k = 51 (255u +
// 128 >= 256u for u < 128), u + 1 at u = 7 for k = 55 (19*7 + 128 >=
// 256), u - 1 at u = 5 for k = 45 (225*5 + 128 < 5*256), and with tau = 1
// ("init1") a mix of u and y.
func heldModule(t testing.TB, k uint64, init1 bool) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("held", "")
	u := m.ZExt(m.In("u", 3, false), 4)
	y := m.In("y", 4, false)
	v0 := m.In("v0", 1, false)
	v1 := m.In("v1", 1, false)
	d0 := m.In("d0", 3, false)
	d1 := m.In("d1", 3, false)
	c4 := func(v uint64) *rtl.Node { return m.Const(4, false, v) }
	init := uint64(0)
	if init1 {
		init = 1
	}
	seld := m.Mux(v1, d1, m.Mux(v0, d0, m.Const(3, false, init)))
	sd := m.ZExt(seld, 4)
	tau := m.Mux(m.Lt(c4(5), sd), c4(5), sd)
	s := m.Add(m.ZExt(m.Mul(m.Sub(c4(5), tau), u), 9), m.ZExt(m.Mul(tau, y), 9))
	p := m.Mul(s, m.Const(7, false, k))
	r := m.Add(m.ZExt(m.Slice(p, 8, 8), 9), m.ZExt(m.Bit(p, 7), 9))
	ovf := m.Gt(r, m.Const(9, false, 15))
	ew := m.Mux(ovf, c4(15), m.Slice(r, 0, 4))
	m.Out("u_new", m.Mux(m.Or(v0, v1), ew, u), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestArmsEqualWhereExhaustive checks ArmsEqualWhere against exhaustive
// evaluation of heldModule (2^16 inputs). Oracle: rtl.Sim: for each select
// value, whether some input with the select at that value has the two arms
// differ. The rule must prove the else arm (no hop valid) equal for k = 52
// and k = 51 and must not for the reachable twins (k = 55: one above,
// k = 45: one below, init1: tau = 1), nor the then arm anywhere.
func TestArmsEqualWhereExhaustive(t *testing.T) {
	cases := []struct {
		k     uint64
		init1 bool
		equal bool // the else arm equals u wherever no hop is valid
	}{{52, false, true}, {51, false, true}, {55, false, false}, {45, false, false}, {52, true, false}}
	for _, c := range cases {
		t.Run(fmt.Sprintf("k%d_init1_%v", c.k, c.init1), func(t *testing.T) {
			f, err := combinational(heldModule(t, c.k, c.init1))
			if err != nil {
				t.Fatal(err)
			}
			mux := f.Outputs[0].Node
			sim, err := rtl.NewSim(f)
			if err != nil {
				t.Fatal(err)
			}
			differs := [2]bool{}
			for v := uint64(0); v < 1<<16; v++ {
				in := []uint64{v & 7, v >> 3 & 15, v >> 7 & 1, v >> 8 & 1, v >> 9 & 7, v >> 12 & 7}
				for i, x := range in {
					sim.SetInUint(i, x)
				}
				sim.Out(0)
				sel := sim.NodeValue(mux.Args[0].ID).Bit(0)
				if sim.NodeValue(mux.Args[1].ID) != sim.NodeValue(mux.Args[2].ID) {
					differs[b2u(sel)] = true
				}
			}
			if differs[0] == c.equal {
				t.Fatalf("exhaustive: else arm differs %v; the case says equal %v", differs[0], c.equal)
			}
			for val := 0; val < 2; val++ {
				why, ok := ArmsEqualWhere(f, mux, val == 1)
				if ok && differs[val] {
					t.Fatalf("select %d: proved equal (%s), but an input makes the arms differ", val, why)
				}
				if want := val == 0 && c.equal; ok != want {
					t.Fatalf("select %d: proved %v (%s), want %v", val, ok, why, want)
				}
			}
		})
	}
}
