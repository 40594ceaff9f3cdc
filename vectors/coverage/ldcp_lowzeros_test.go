package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestLowZerosBinsExhaustive checks the low-zeros rules (ldcp_lowzeros.go)
// on a small module sampled over all of its inputs. Rounding: x*8 rounded
// at bit 3 (its low 3 bits are 0: "up" and "below_tie" unreachable; the
// below-tie by the product-residue rule, which runs first) and at bit 4
// (below_tie unreachable, up reachable: the twin), a product of two
// signals ({x, 00} * y, low 2 bits 0) at bit 2 and at bit 3, and a shifted
// normalizer s = norm << clz rounded at bit 1 (nothing proved: every bin
// reachable). Compare "at" bins: v = Rnd(s >> 2), where s is x's
// normalized mantissa shifted left by clz(x) again (the 1/cw unit's output
// stage in miniature): in the runs with clz >= 2, v is a multiple of 4 or
// of 2 though the add of the rounding bit hides that from the known bits,
// so the odd thresholds 33 and 65 inside those runs' intervals are
// unreachable by the low zeros alone, while 36 and 80 (reached) and 17 (in
// the run clz = 1, which has no low zeros) are the twins. Oracle: the
// values computed here for every input; exactly the bins proved
// unreachable are never hit, and the compare proofs named are the
// low-zeros ones.
func TestLowZerosBinsExhaustive(t *testing.T) {
	m := rtl.NewModule("lowzeros_bins", "")
	x := m.In("x", 6, false)
	y := m.In("y", 3, false)
	clz := m.Const(6, false, 6)
	for i := 0; i < 6; i++ { // the highest set bit decides last
		clz = m.Mux(m.Bit(x, i), m.Const(6, false, uint64(5-i)), clz)
	}
	norm := m.Shl(x, clz).Named("norm")
	s := m.Shl(m.ZExt(norm, 14), clz).Named("s")
	rb := m.Bit(s, 1).Named("rnd_inc_s")
	v := m.Add(m.LShrC(s, 2), m.ZExt(rb, 14)).Named("v")
	ths := []uint64{33, 65, 36, 80, 17}
	for _, c := range ths {
		m.Out(fmt.Sprintf("gt%d", c), m.Gt(v, m.Const(14, false, c)), "")
	}
	p8 := m.Mul(m.ZExt(x, 8), m.Const(8, false, 8)).Named("p8")
	pxy := m.Mul(m.Concat(x, m.Const(2, false, 0)), m.ZExt(y, 8)).Named("pxy")
	type rc struct {
		name string
		d    int
		val  func(x, y uint64) uint64
	}
	rounds := []rc{
		{"p8_d4", 4, func(x, _ uint64) uint64 { return x * 8 }},
		{"p8_d5", 5, func(x, _ uint64) uint64 { return x * 8 }},
		{"pxy_d3", 3, func(x, y uint64) uint64 { return x * 4 * y }},
		{"pxy_d4", 4, func(x, y uint64) uint64 { return x * 4 * y }},
	}
	for _, r := range rounds {
		p := p8
		if strings.HasPrefix(r.name, "pxy") {
			p = pxy
		}
		m.Out(r.name, m.Bit(p, r.d-1).Named("rnd_inc_"+r.name), "")
	}
	m.Out("s_rnd", rb, "")
	cm, err := newModel(m)
	if err != nil {
		t.Fatal(err)
	}
	cm.addStructural()
	if err := cm.validate(); err != nil {
		t.Fatal(err)
	}
	smp, err := cm.NewSampler()
	if err != nil {
		t.Fatal(err)
	}
	cnt := cm.NewCounts()
	want := map[string][]uint64{}
	add := func(point string, b int) {
		if want[point] == nil {
			want[point] = make([]uint64, 4)
		}
		want[point][b]++
	}
	roundBin := func(val uint64, d int) int {
		low, half := val&(1<<uint(d)-1), uint64(1)<<uint(d-1)
		switch {
		case low == half:
			return 2
		case low == half-1:
			return 3
		case low >= half:
			return 1
		}
		return 0
	}
	for xv := uint64(0); xv < 64; xv++ {
		for yv := uint64(0); yv < 8; yv++ {
			smp.Sample([]uint64{xv, yv}, cnt)
			c, nv := uint64(6), uint64(0)
			if xv != 0 {
				c = uint64(6 - len(fmt.Sprintf("%b", xv)))
				nv = xv << c & 63
			}
			sv := nv << c
			vv := sv>>2 + sv>>1&1
			for _, th := range ths {
				add(fmt.Sprintf("gt%d", th), cmpBin(vv, th))
			}
			for _, r := range rounds {
				add("rnd_inc_"+r.name, roundBin(r.val(xv, yv), r.d))
			}
			add("rnd_inc_s", roundBin(sv, 2))
		}
	}
	lowZ, checked := 0, 0
	for i, p := range cm.Points {
		key := p.Node
		if p.Kind == KindCompare {
			var th uint64
			if _, err := fmt.Sscanf(p.Doc, "v (gt) against the threshold %d", &th); err != nil {
				continue
			}
			key = fmt.Sprintf("gt%d", th)
		} else if p.Kind != KindRound {
			continue
		}
		w, ok := want[key]
		if !ok {
			t.Fatalf("point %s (%s): no oracle", p.Name, key)
		}
		checked++
		for b, bin := range p.Bins {
			if (w[b] == 0) != (bin.Unreachable != "") {
				t.Errorf("%s.%s: oracle count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", key, bin.Name, w[b], bin.Unreachable)
			}
			if strings.Contains(bin.Unreachable, "low zeros") {
				lowZ++
			}
			if cnt.Bins[i][b] != w[b] {
				t.Errorf("%s.%s: sampled %d, oracle %d", key, bin.Name, cnt.Bins[i][b], w[b])
			}
		}
	}
	if checked != len(ths)+len(rounds)+1 {
		t.Errorf("%d points checked, want %d", checked, len(ths)+len(rounds)+1)
	}
	// p8_d4: up; pxy_d3: up, below_tie; pxy_d4: below_tie; the at bins of
	// 33 and 65 (p8's below-ties are the product-residue rule's: it runs
	// first).
	if lowZ != 6 {
		t.Errorf("%d bins proved by the low zeros, want 6", lowZ)
	}
}
