package coverage

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestExcludedPerLengthExhaustive checks the per-bit-length rule of the
// compare "at" bins (Model.excludedPerLength: a value no run of the value
// analysis per bit length of a normalizer's input allows, though the
// runs' union interval holds it; 1/U exactly at its maximum) on a small
// normalizer, x << clz(x) over a 6-bit x: 0 at x = 0, else in [32, 63].
// Thresholds 16 and 31 lie in the union [0, 63] but in no run (their "at"
// is unreachable); 0, 32, 40 and 63 are reachable twins. Oracle: the
// normalized value computed here for every x; exactly the bins proved
// unreachable are never hit.
func TestExcludedPerLengthExhaustive(t *testing.T) {
	m := rtl.NewModule("norm_mod", "")
	x := m.In("x", 6, false)
	clz := m.Const(6, false, 6)
	for i := 0; i < 6; i++ { // the highest set bit decides last
		clz = m.Mux(m.Bit(x, i), m.Const(6, false, uint64(5-i)), clz)
	}
	norm := m.Shl(x, clz).Named("norm")
	ths := []uint64{16, 31, 0, 32, 40, 63}
	for _, c := range ths {
		m.Out(fmt.Sprintf("gt%d", c), m.Gt(norm, m.Const(6, false, c)), "")
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
	cnt := cm.NewCounts()
	want := make([][]uint64, len(ths))
	for i := range want {
		want[i] = make([]uint64, 3)
	}
	for xv := uint64(0); xv < 64; xv++ {
		s.Sample([]uint64{xv}, cnt)
		nv := uint64(0)
		if xv != 0 {
			nv = xv
			for nv < 32 {
				nv <<= 1
			}
		}
		for i, c := range ths {
			want[i][cmpBin(nv, c)]++
		}
	}
	byDoc := map[string]int{}
	for i, p := range cm.Points {
		if p.Kind == KindCompare {
			byDoc[p.Doc] = i
		}
	}
	perLength := 0
	for i, c := range ths {
		pi := -1
		for doc, j := range byDoc {
			if len(doc) > 0 && fmt.Sprintf("norm (gt) against the threshold %d of ", c) == doc[:len(fmt.Sprintf("norm (gt) against the threshold %d of ", c))] {
				pi = j
			}
		}
		if pi < 0 {
			t.Fatalf("no compare point for threshold %d: %v", c, byDoc)
		}
		p := cm.Points[pi]
		if fmt.Sprint(cnt.Bins[pi]) != fmt.Sprint(want[i]) {
			t.Errorf("threshold %d: counts %v, want %v", c, cnt.Bins[pi], want[i])
		}
		for b, bin := range p.Bins {
			if (want[i][b] == 0) != (bin.Unreachable != "") {
				t.Errorf("threshold %d, %s: oracle count %d, unreachable proof %q: an exhaustive run hits exactly the reachable bins", c, bin.Name, want[i][b], bin.Unreachable)
			}
			if b == 1 && bin.Unreachable != "" {
				perLength++
			}
		}
	}
	if perLength != 2 {
		t.Errorf("%d at bins proved unreachable, want 2 (thresholds 16 and 31)", perLength)
	}
}
