package coverage

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestOperandBitsExhaustive checks the sign and slice bins
// (operand_bits.go) on a hand-built module over all of its inputs (x 4
// bits, y 3 bits): ordered compares (unsigned, signed, against a constant
// with its top bit set), extensions (one whose operand's top bit is always
// 0), products (one with an operand whose top bit is always 0), right
// shifts, and slices of a plain input, of a sign extension (whose upper
// bits are copies of one bit) and of a product with a constant of two
// trailing zeros. Oracle: per evaluation, the mutant's change recomputed
// here from x and y (the node read with the other signedness, extended the
// other way, shifted the other way; the bits next to the slice), not the
// sampler's rule; each point's counts equal it, and over every sign and
// slice point of the model exactly the bins proved unreachable are never
// hit (an unsound proof declares a hit bin; a missing one leaves a bin
// unhit without one).
func TestOperandBitsExhaustive(t *testing.T) {
	m := rtl.NewModule("opbits_mod", "")
	x := m.In("x", 4, false)
	y := m.In("y", 3, false)
	y4 := m.ZExt(y, 4)
	yx := m.Concat(y, m.Slice(x, 0, 1)) // y<<1 | x&1: 4 bits, top bit free
	sy := m.SExt(m.AsSigned(y), 6)
	px := m.Mul(x, m.Const(3, false, 4))
	sx4 := func(v uint64) int64 { return int64(v<<60) >> 60 }
	bit := func(v uint64, i int) int { return int(v >> uint(i) & 1) }
	// sign oracle: the results of both readings differ; bin by which
	// operand's top bit is set (-1: equal, or both set).
	byTop := func(differ bool, ta, tb int) int {
		switch {
		case !differ:
			return -1
		case ta == 1 && tb == 0:
			return 0
		case ta == 0 && tb == 1:
			return 1
		}
		return -1
	}
	type opCase struct {
		name  string
		kind  Kind
		n     *rtl.Node
		side  string // slices: "above" or "below"
		nbins int
		bin   func(x, y uint64) int
	}
	cases := []opCase{
		{"lt_u", KindSign, m.Lt(x, y4), "", 2, func(x, y uint64) int {
			return byTop((x < y) != (sx4(x) < sx4(y)), bit(x, 3), bit(y, 3))
		}},
		{"lt_s", KindSign, m.Lt(m.AsSigned(x), m.AsSigned(yx)), "", 2, func(x, y uint64) int {
			b := y<<1 | x&1
			return byTop((x < b) != (sx4(x) < sx4(b)), bit(x, 3), bit(b, 3))
		}},
		{"lt_9", KindSign, m.Lt(x, m.Const(4, false, 9)), "", 2, func(x, y uint64) int {
			return byTop((x < 9) != (sx4(x) < sx4(9)), bit(x, 3), 1)
		}},
		{"sext_y", KindSign, sy, "", 1, func(x, y uint64) int {
			if uint64(int64(y<<61)>>61)&63 != y {
				return 0
			}
			return -1
		}},
		{"zext_x", KindSign, m.ZExt(x, 6), "", 1, func(x, y uint64) int {
			if uint64(sx4(x))&63 != x {
				return 0
			}
			return -1
		}},
		{"zext_y4", KindSign, m.ZExt(y4, 6), "", 1, func(x, y uint64) int {
			if uint64(sx4(y))&63 != y {
				return 0
			}
			return -1
		}},
		{"mul_xy", KindSign, m.Mul(x, y), "", 2, func(x, y uint64) int {
			s := uint64(sx4(x)*(int64(y<<61)>>61)) & 127
			return byTop(s != x*y, bit(x, 3), bit(y, 2))
		}},
		{"mul_y4x", KindSign, m.Mul(y4, x), "", 2, func(x, y uint64) int {
			s := uint64(sx4(y)*sx4(x)) & 255
			return byTop(s != x*y, 0, bit(x, 3))
		}},
		{"lshr_xy", KindSign, m.LShr(x, y), "", 1, func(x, y uint64) int {
			l, a := uint64(0), uint64(sx4(x)>>min(y, 3))&15
			if y < 4 {
				l = x >> y
			}
			if l != a {
				return 0
			}
			return -1
		}},
		{"ashrc_x2", KindSign, m.AShrC(m.AsSigned(x), 2), "", 1, func(x, y uint64) int {
			if uint64(sx4(x)>>2)&15 != x>>2 {
				return 0
			}
			return -1
		}},
		{"slice_x_above", KindSlice, m.Slice(x, 1, 2), "above", 2, func(x, y uint64) int {
			if bit(x, 3) == bit(x, 2) {
				return -1
			}
			return bit(x, 3)
		}},
		{"slice_x_below", KindSlice, nil, "below", 2, func(x, y uint64) int {
			if bit(x, 0) == bit(x, 1) {
				return -1
			}
			return bit(x, 0)
		}},
		{"slice_sy_above", KindSlice, m.Slice(sy, 2, 2), "above", 2, func(x, y uint64) int {
			v := uint64(int64(y<<61)>>61) & 63
			if bit(v, 4) == bit(v, 3) {
				return -1
			}
			return bit(v, 4)
		}},
		{"slice_sy_below", KindSlice, nil, "below", 2, func(x, y uint64) int {
			v := uint64(int64(y<<61)>>61) & 63
			if bit(v, 1) == bit(v, 2) {
				return -1
			}
			return bit(v, 1)
		}},
		{"slice_px_below", KindSlice, m.Slice(px, 2, 1), "below", 2, func(x, y uint64) int {
			v := x * 4
			if bit(v, 1) == bit(v, 2) {
				return -1
			}
			return bit(v, 1)
		}},
	}
	for i := range cases {
		if cases[i].n == nil {
			cases[i].n = cases[i-1].n // the other side of the same slice
			continue
		}
		m.Out(cases[i].name, cases[i].n, "")
	}
	cm, err := newModel(m)
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
	c := cm.NewCounts()
	want := make([][]uint64, len(cases))
	for i := range want {
		want[i] = make([]uint64, cases[i].nbins)
	}
	for xv := uint64(0); xv < 16; xv++ {
		for yv := uint64(0); yv < 8; yv++ {
			s.Sample([]uint64{xv, yv}, c)
			for i, cc := range cases {
				if b := cc.bin(xv, yv); b >= 0 {
					want[i][b]++
				}
			}
		}
	}
	point := func(cc opCase) int {
		name := "sign_" + cc.n.Name
		if cc.kind == KindSlice {
			name = "slice_" + cc.side + "_" + cc.n.Name
		}
		for i, p := range cm.Points {
			if p.Name == name && p.Kind == cc.kind {
				return i
			}
		}
		return -1
	}
	for i, cc := range cases {
		pi := point(cc)
		if pi < 0 {
			t.Fatalf("%s: no %s point for node %s", cc.name, cc.kind, cc.n.Name)
		}
		if fmt.Sprint(c.Bins[pi]) != fmt.Sprint(want[i]) {
			t.Errorf("%s (%s): counts %v, want %v", cc.name, cm.Points[pi].Name, c.Bins[pi], want[i])
		}
	}
	proved := 0
	for i, p := range cm.Points {
		if p.Kind != KindSign && p.Kind != KindSlice {
			continue
		}
		for b, bin := range p.Bins {
			if bin.Unreachable != "" {
				proved++
			}
			if (c.Bins[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", p.Name, bin.Name, c.Bins[i][b], bin.Unreachable)
			}
		}
	}
	// The proofs the module is built to exercise: lt_9's a_top1 (the
	// constant's top bit), zext_y4's top1 and mul_y4x's a_top1 (an operand
	// zero-extended), slice_sy_above's both bins (sign copies),
	// slice_px_below's below1 (trailing zeros of the constant).
	t.Logf("%d sign and slice bins proved unreachable", proved)
	if proved < 6 {
		t.Fatalf("%d bins proved unreachable, want at least 6", proved)
	}
}
