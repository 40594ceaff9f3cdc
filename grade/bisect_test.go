package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// squareNormModule normalizes a 6-bit x (x << clz(x): 0 at x = 0, else in
// [32, 63]) and squares it (v, 12 bits); w = v + y reads another input.
func squareNormModule(t testing.TB) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("sqnorm", "")
	x := m.In("x", 6, false)
	y := m.In("y", 2, false)
	clz := m.Const(6, false, 6)
	for i := 0; i < 6; i++ { // the highest set bit decides last
		clz = m.Mux(m.Bit(x, i), m.Const(6, false, uint64(5-i)), clz)
	}
	norm := m.Shl(x, clz)
	v := m.Mul(norm, norm)
	m.Out("v", v, "")
	m.Out("w", m.Add(v, m.ZExt(y, 12)), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBisectionExhaustive checks Bisection against exhaustive evaluation
// of squareNormModule. Oracle: rtl.Sim: every piece the bisection analyses
// holds, for every x of the piece, v's value in its Range (the pred checks
// it and asks for splits, so pieces of every size are checked); where it
// says the fact holds, the pieces it held in cover each x exactly once; 1025
// (between 32^2 and 33^2, inside the one-length run [1024, 3969]) is
// excluded by a bisection while 1089 = 33^2 (the reachable twin) is not;
// and w, which reads y, is not a function of x alone (no bisection).
func TestBisectionExhaustive(t *testing.T) {
	f, err := combinational(squareNormModule(t))
	if err != nil {
		t.Fatal(err)
	}
	x, v, w := f.Inputs[0], f.Outputs[0].Node, f.Outputs[1].Node
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	bz := NewBisector(f)
	if bz.Of(x, w) != nil {
		t.Fatal("w reads y, yet a bisection of x was made for it")
	}
	b := bz.Of(x, v)
	if b == nil {
		t.Fatal("v is a function of x alone: no bisection")
	}
	checked := 0
	sound := func(p *Piece) {
		r := p.Range(v)
		for xv := p.Lo; xv <= p.Hi; xv++ {
			sim.SetInUint(0, xv)
			sim.Out(0)
			got := sim.NodeValue(v.ID)
			if !got.And(r.Zero).IsZero() || got.And(r.One) != r.One || r.HasRange && (got.Uint64() < r.Lo || got.Uint64() > r.Hi) {
				t.Fatalf("piece [%d, %d]: x=%d gives v=%d outside [%d, %d]", p.Lo, p.Hi, xv, got.Uint64(), r.Lo, r.Hi)
			}
			checked++
		}
	}
	for _, c := range []struct {
		c    uint64
		want bool
	}{{1025, true}, {1089, false}, {2000, true}, {3969, false}, {1, true}, {0, false}} {
		var covered [64]int
		_, ok := b.Holds(0, 63, func(p *Piece) bool {
			sound(p)
			r := p.Range(v)
			held := r.HasRange && (c.c < r.Lo || c.c > r.Hi)
			for xv := p.Lo; held && xv <= p.Hi; xv++ {
				covered[xv]++
			}
			return held
		}, 1000)
		if ok != c.want {
			t.Errorf("v never %d: bisection says %v, want %v", c.c, ok, c.want)
		}
		for xv, n := range covered {
			if ok && n != 1 {
				t.Errorf("v never %d: x=%d lies in %d of the pieces where it holds, want exactly 1 (the pieces cover x's values)", c.c, xv, n)
			}
		}
	}
	if runs := NormalizerRuns(f); len(runs) == 0 {
		t.Fatal("no normalizer runs")
	} else {
		for _, r := range runs[0] {
			if rv := r.Ranges[v.ID]; r.L == 6 && (1025 < rv.Lo || 1025 > rv.Hi) {
				t.Fatalf("the length-6 run excludes 1025 ([%d, %d]): the test no longer needs the bisection", rv.Lo, rv.Hi)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no piece checked")
	}
}
