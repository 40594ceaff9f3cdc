package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestWideLowZerosExhaustive checks declareWideLowZeros on an 80-bit
// value v = x << 7 (x a 4-bit input, shifted in 80 bits, as recip_mq's
// cast operand) compared with 5*2^7 - 1 (odd: v never equals it, the "at"
// bin is unreachable), 5*2^7 + 64 (a one among the low 7 bits: likewise)
// and the reachable twins 5*2^7 and 0. Oracle: v computed for every x;
// exactly the "at" bins no x hits carry the low-zeros proof.
func TestWideLowZerosExhaustive(t *testing.T) {
	m := rtl.NewModule("wide_mod", "")
	x := m.In("x", 4, false)
	v := m.ShlC(m.ZExt(x, 80), 7).Named("v")
	ths := []uint64{5<<7 - 1, 5<<7 + 64, 5 << 7, 0}
	for _, c := range ths {
		m.Out(fmt.Sprintf("gt%d", c), m.Gt(v, m.Const(80, false, c)), "")
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
	hit := map[uint64]bool{}
	for xv := uint64(0); xv < 16; xv++ {
		s.Sample([]uint64{xv}, cnt)
		hit[xv<<7] = true
	}
	declared := 0
	for i, p := range cm.Points {
		if p.Kind != KindCompare {
			continue
		}
		var c uint64
		found := false
		for _, th := range ths {
			if strings.Contains(p.Doc, fmt.Sprintf("threshold %s ", rtl.BitsOf(th).Hex(80))) {
				c, found = th, true
			}
		}
		if !found {
			t.Fatalf("%s (%s): no threshold of the test", p.Name, p.Doc)
		}
		at := p.Bins[1]
		if (cnt.Bins[i][1] != 0) != hit[c] {
			t.Fatalf("threshold %d: sampled at count %d, oracle hit %v", c, cnt.Bins[i][1], hit[c])
		}
		if hit[c] && at.Unreachable != "" {
			t.Errorf("threshold %d: at is hit but declared unreachable: %s", c, at.Unreachable)
		}
		if !hit[c] && !strings.HasPrefix(at.Unreachable, "low zeros") {
			t.Errorf("threshold %d: at is never hit, proof %q: want the low-zeros proof", c, at.Unreachable)
		}
		if strings.HasPrefix(at.Unreachable, "low zeros") {
			declared++
		}
	}
	if declared != 2 {
		t.Errorf("%d at bins declared by low zeros, want 2", declared)
	}
}
