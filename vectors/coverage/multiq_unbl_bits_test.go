package coverage

import (
	"strings"
	"testing"
)

// TestUnblBitsExhaustive checks declareUnblBits on unblModule
// (multiq_unbl_test.go: v = Rnd(t * r >> 4) <= 33, u = mux(v > 40, 63,
// v[5:0])). Oracle: every input (t, c, bl) sampled. On the module the rule
// must declare the sign and slice bins that need a bit of v or of its
// truncated part s0 at or above bit 6 and that the value analysis alone
// leaves open (the extension of s0's top bit, the slice v[5:0]'s bit above
// at 1; the compare's a_top1 is already declared by v's interval), none of
// them hit,
// and must not declare the slice's above0 bin (bit 5 at 1: v reaches 32,
// so v <= 31 is false), which the inputs hit; on the twin (an arm of y
// below t, v reaching about 128) it must declare none.
func TestUnblBitsExhaustive(t *testing.T) {
	for _, twin := range []bool{false, true} {
		cm, err := newModel(unblModule(t, twin))
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
		for in := uint64(0); in < 256; in++ {
			s.Sample([]uint64{in & 63, in >> 6 & 1, in >> 7}, cnt)
		}
		declared, above0Hit := map[string]bool{}, false
		for i, p := range cm.Points {
			for b, bin := range p.Bins {
				if strings.Contains(bin.Unreachable, "so bit ") && strings.Contains(bin.Unreachable, "is at least") {
					declared[p.Name+"."+bin.Name] = true
					if cnt.Bins[i][b] != 0 {
						t.Errorf("twin %v: %s.%s hit %d times, declared unreachable: %s", twin, p.Name, bin.Name, cnt.Bins[i][b], bin.Unreachable)
					}
				}
				if p.Kind == KindSlice && strings.HasPrefix(p.Name, "slice_above_") && bin.Name == "above0" && cnt.Bins[i][b] > 0 &&
					strings.Contains(p.Doc, "[5:0]") {
					above0Hit = true
					if bin.Unreachable != "" {
						t.Errorf("twin %v: %s.above0 is hit but declared: %s", twin, p.Name, bin.Unreachable)
					}
				}
			}
		}
		t.Logf("twin %v: declared %v", twin, declared)
		switch {
		case !twin && (len(declared) < 2 || !above0Hit):
			t.Errorf("%d bins declared (want the extension's top1 and the slice's above1), above0 hit %v (want true)", len(declared), above0Hit)
		case twin && len(declared) != 0:
			t.Errorf("twin: %d bins declared, want 0", len(declared))
		}
	}
}
