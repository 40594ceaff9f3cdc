package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestTxRateSaturationEdgeUnreachable is the exhaustive fact behind the
// txRate saturation holes (docs/vectors.md, Coverage; docs/grade.md, #1221):
// for the default configuration, no input of the cast's operands puts
// txRate before saturation exactly at the format's maximum or one above it.
// The oracle is enumeration: every value of the 1/dts unit's input (its
// In register, 1 .. 2^W - 1; 0 is proved unreachable from the hop-valid
// guard), read through the datapath's own unit (recipUnit checks the table
// against the datapath's), and every dTx of the counter width, by bisection
// (the value before saturation is non-decreasing in dTx for a fixed 1/dts).
func TestTxRateSaturationEdgeUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over 2^26 delta ts values (about 10 s of CPU)")
	}
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	a := h.cx.a
	_, _, rc, err := recipUnit(h, "recip_dts")
	if err != nil {
		t.Fatal(err)
	}
	top := [2]u128{{0, a.tx.max}, u128{0, a.tx.max}.add64(1)}
	reach := 0
	for x := uint64(1); x < uint64(1)<<uint(rc.In.W); x++ {
		rd := a.recip.Recip(x)
		if a.tx.pre(mul128(a.txMask, rd)).cmp(top[0]) < 0 {
			continue
		}
		reach++
		for off, tgt := range top {
			d := bisect(0, a.txMask, func(v uint64) bool { return a.tx.pre(mul128(v, rd)).cmp(tgt) >= 0 })
			if d <= a.txMask && a.tx.pre(mul128(d, rd)).cmp(tgt) == 0 {
				t.Errorf("dts_in %d, dTx %d: txRate before saturation is max + %d", x, d, off)
			}
		}
	}
	if reach == 0 {
		t.Fatal("no delta ts reaches the txRate maximum: the test would check nothing")
	}
	t.Logf("%d delta ts values reach the txRate maximum; none lands on it or one above", reach)
}
