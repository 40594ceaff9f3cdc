package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// mdDiffModule is ldcp_update's cw_md_diff in small: d = zext(cw) -
// (n << shift) in 5 bits read signed (cw 4 bits, n 2 bits), with the other
// operations the arcs follow around it: a sum that wraps, the zero
// extension of a wrapping arc, a low and a high slice of the difference, a
// constant shift of it. With shift 1, n << 1 <= 6, so d >= -6: never below -8
// (bits 4, 3 = 1, 0); with shift 2 (the reachable twin) d reaches -12.
func mdDiffModule(t testing.TB, shift int) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("md_diff", "")
	cw := m.In("cw", 4, false)
	n := m.In("n", 2, false)
	d := m.Sub(m.AsSigned(m.ZExt(cw, 5)), m.AsSigned(m.ShlC(m.ZExt(n, 5), shift))).Named("d")
	m.Out("d", d, "")
	m.Out("lo", m.Slice(d, 0, 4), "")
	wrapSum := m.Add(m.ZExt(cw, 5), m.Const(5, false, 27)).Named("wrap_sum") // [27, 31] and [0, 10]
	m.Out("ext", m.ZExt(wrapSum, 7), "")
	m.Out("sh", m.ShlC(d, 1), "")
	m.Out("lo_wrap", m.Slice(wrapSum, 0, 3), "")
	m.Out("hi", m.Slice(d, 2, 3), "")
	m.Out("sh2", m.ShlC(wrapSum, 1), "")                                       // a short arc shifted
	m.Out("hi2", m.Slice(m.Add(m.ZExt(n, 5), m.Const(5, false, 9)), 1, 3), "") // a high slice of a short arc
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// inArc reports whether the w-bit value v lies in arc a.
func inArc(a Arc, w int, v uint64) bool {
	return a.Full || (v-a.Start)&maxOf(w) <= a.Len
}

// TestModularArcsExhaustive checks ModularArcs against exhaustive
// evaluation of mdDiffModule (every cw and n, both shifts). Oracle: rtl.Sim:
// every node's value lies in its arc; the difference's arc excludes bits
// 4..3 = 10 (below -8) exactly when no input reaches them (shift 1: proved,
// shift 2: reached, not proved), and the unsigned interval of the
// difference does not (so the test needs the arcs).
func TestModularArcsExhaustive(t *testing.T) {
	for _, shift := range []int{1, 2} {
		f, err := combinational(mdDiffModule(t, shift))
		if err != nil {
			t.Fatal(err)
		}
		arcs := ModularArcs(f)
		sim, err := rtl.NewSim(f)
		if err != nil {
			t.Fatal(err)
		}
		d := f.Outputs[0].Node
		reached := false
		for cw := uint64(0); cw < 16; cw++ {
			for n := uint64(0); n < 4; n++ {
				sim.SetInUint(0, cw)
				sim.SetInUint(1, n)
				sim.Out(0)
				for _, x := range f.Nodes {
					v := sim.NodeValue(x.ID).Uint64()
					if !inArc(arcs[x.ID], x.Width, v) {
						a := arcs[x.ID]
						t.Fatalf("shift %d: cw=%d n=%d: %s = %d outside its arc from %d, %d more", shift, cw, n, x.Name, v, a.Start, a.Len)
					}
					// The operation's own arc, before the meet with the
					// interval (which would hide an unsound rule).
					if a := normArc(arcOp(x, arcs), x.Width); !inArc(a, x.Width, v) {
						t.Fatalf("shift %d: cw=%d n=%d: %s (%s) = %d outside the arc its operation gives, from %d, %d more", shift, cw, n, x.Name, x.Op, v, a.Start, a.Len)
					}
				}
				if v := sim.NodeValue(d.ID).Uint64(); v>>3 == 2 {
					reached = true
				}
			}
		}
		proved := ArcExcludes(arcs[d.ID], d.Width, 3, 4, 2)
		if proved == reached || proved != (shift == 1) {
			t.Errorf("shift %d: arc from %d, %d more: excludes bits 4..3 = 10: %v, reached: %v", shift, arcs[d.ID].Start, arcs[d.ID].Len, proved, reached)
		}
		if r := ValueRanges(f)[d.ID]; r.HasRange && (r.Hi < 16 || r.Lo >= 24) || r.One.Bit(4) || r.Zero.Bit(3) {
			t.Fatalf("shift %d: the value analysis already excludes bits 4..3 = 10 of d: the test no longer needs the arcs", shift)
		}
	}
}

// TestArcExcludesExhaustive checks ArcExcludes on every arc of a 5-bit
// value (every start, every length, and the full arc) for every run of
// bits lo..hi and pattern. Oracle: enumeration of the arc's values.
func TestArcExcludesExhaustive(t *testing.T) {
	const w = 5
	arcs := []Arc{{Full: true}}
	for s := uint64(0); s < 1<<w; s++ {
		for l := uint64(0); l < 1<<w-1; l++ {
			arcs = append(arcs, Arc{Start: s, Len: l})
		}
	}
	for _, a := range arcs {
		for lo := 0; lo < w; lo++ {
			for hi := lo; hi < w; hi++ {
				for p := uint64(0); p < 1<<uint(hi-lo+1); p++ {
					hit := false
					for v := uint64(0); v < 1<<w; v++ {
						if inArc(a, w, v) && v>>uint(lo)&(1<<uint(hi-lo+1)-1) == p {
							hit = true
						}
					}
					if got := ArcExcludes(a, w, lo, hi, p); got != !hit {
						t.Fatalf("arc %+v, bits %d..%d = %b: ArcExcludes %v, some value has them: %v", a, hi, lo, p, got, hit)
					}
				}
			}
		}
	}
}

// TestMeetArcExhaustive checks meetArc on every pair of 4-bit arcs: the
// result holds every value of both. Oracle: enumeration.
func TestMeetArcExhaustive(t *testing.T) {
	const w = 4
	arcs := []Arc{{Full: true}}
	for s := uint64(0); s < 1<<w; s++ {
		for l := uint64(0); l < 1<<w-1; l++ {
			arcs = append(arcs, Arc{Start: s, Len: l})
		}
	}
	for _, a := range arcs {
		for _, b := range arcs {
			r := meetArc(a, b, w)
			for v := uint64(0); v < 1<<w; v++ {
				if inArc(a, w, v) && inArc(b, w, v) && !inArc(r, w, v) {
					t.Fatalf("meet of %+v and %+v is %+v, which misses %d", a, b, r, v)
				}
			}
		}
	}
}
