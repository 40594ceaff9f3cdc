package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// romSignModule is Sojourn's queue term in small: p = q * k[c] and the
// compare k[c] < q, with q a 3-bit input and k a 3-bit ROM over a 2-bit
// code whose entries are 0b101 or 0 (top bit set, or zero: 1/T for an
// accepted code, 0 for a rejected one); and q * zext(k), whose operand is
// not the ROM itself (its top bit is always 0, so its a_top1 is hit and must
// not be declared from the ROM's entries). With twin one entry is 0b011
// (top bit clear, non-zero).
func romSignModule(t *testing.T, twin bool) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("romsign_mod", "")
	q := m.In("q", 3, false)
	c := m.In("c", 2, false)
	ent := []uint64{5, 5, 0, 0}
	if twin {
		ent[1] = 3
	}
	k := m.ROM(c, 3, ent)
	m.Out("p", m.Mul(q, k), "")
	m.Out("lt", m.Lt(k, q), "")
	m.Out("pz", m.Mul(q, m.ZExt(k, 4)), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestROMSignExhaustive checks declareROMSign on romSignModule. Oracle:
// every input (q, c) sampled, and the bins' own definitions (operand_bits.go).
// On the module the rule must declare the product's a_top1 (q's top bit 1,
// k's 0 and k != 0), which no input hits, and leave every other bin, each
// hit (the compare's b_top1, k's top bit 0 with q's 1, is reached through
// the zero entries: a compare has no non-zero condition); on the twin it
// must declare none, and every bin is hit.
func TestROMSignExhaustive(t *testing.T) {
	for _, twin := range []bool{false, true} {
		cm, err := newModel(romSignModule(t, twin))
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
		for in := uint64(0); in < 32; in++ {
			s.Sample([]uint64{in & 7, in >> 3}, cnt)
		}
		declared := map[string]bool{}
		for i, p := range cm.Points {
			if p.Kind != KindSign {
				continue
			}
			for b, bin := range p.Bins {
				key := p.Name + "." + bin.Name
				if strings.Contains(bin.Unreachable, "none of its") {
					declared[key] = true
					if cnt.Bins[i][b] != 0 {
						t.Errorf("twin %v: %s hit %d times, declared unreachable: %s", twin, key, cnt.Bins[i][b], bin.Unreachable)
					}
				} else if bin.Unreachable == "" && cnt.Bins[i][b] == 0 {
					t.Errorf("twin %v: %s neither hit nor declared", twin, key)
				}
			}
		}
		t.Logf("twin %v: declared %v", twin, declared)
		if want := 1; !twin && len(declared) != want || twin && len(declared) != 0 {
			t.Errorf("twin %v: %d bins declared by the ROM entries", twin, len(declared))
		}
	}
}
