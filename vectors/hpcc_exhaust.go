package vectors

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TxRateSaturationEdges enumerates, for configuration cfg, every input of
// the txRate cast's operands and returns the ones that put txRate before
// saturation exactly at the format's maximum or one above it (hits, one
// line each), and how many 1/dts unit inputs reach the maximum at all
// (reach). Every value of the 1/dts unit's input (its In register, 1 ..
// 2^W - 1; 0 is proved unreachable from the hop-valid guard) is read
// through the datapath's own unit (recipUnit checks the table against the
// datapath's), and every dTx of the counter width by bisection (the value
// before saturation is non-decreasing in dTx for a fixed 1/dts). About
// 10 s of CPU for the default configuration. It is the exhaustive fact
// behind the coverage model's txRate saturation declarations
// (vectors/coverage, docs/vectors.md) and the equivalence of grade's #1221.
func TxRateSaturationEdges(cfg hpcc.Config) (reach int, hits []string, err error) {
	h, err := NewHPCC(cfg)
	if err != nil {
		return 0, nil, fmt.Errorf("vectors: txRate saturation edges: %w", err)
	}
	a := h.cx.a
	_, _, rc, err := recipUnit(h, "recip_dts")
	if err != nil {
		return 0, nil, fmt.Errorf("vectors: txRate saturation edges: %w", err)
	}
	top := [2]u128{{0, a.tx.max}, u128{0, a.tx.max}.add64(1)}
	for x := uint64(1); x < uint64(1)<<uint(rc.In.W); x++ {
		rd := a.recip.Recip(x)
		if a.tx.pre(mul128(a.txMask, rd)).cmp(top[0]) < 0 {
			continue
		}
		reach++
		for off, tgt := range top {
			d := bisect(0, a.txMask, func(v uint64) bool { return a.tx.pre(mul128(v, rd)).cmp(tgt) >= 0 })
			if d <= a.txMask && a.tx.pre(mul128(d, rd)).cmp(tgt) == 0 {
				hits = append(hits, fmt.Sprintf("dts_in %d, dTx %d: txRate before saturation is max + %d", x, d, off))
			}
		}
	}
	return reach, hits, nil
}
