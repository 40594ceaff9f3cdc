package vectors

import "testing"

// TestMinOperandMatchesBisect checks castEdge.minOperand, the closed form
// the saturation-edge generator uses, against its oracle: bisect over the
// monotone predicate pre(v*k) >= t, for rounding casts of 1..127 dropped
// bits, operands k and bounds vmax from random draws and their edges
// (0, 1, all ones), and targets at, below and above the reachable range.
func TestMinOperandMatchesBisect(t *testing.T) {
	r := NewRand(16, 0)
	edges := []uint64{0, 1, 2, 3, 1<<32 - 1, 1 << 32, ^uint64(0) - 1, ^uint64(0)}
	pick := func() uint64 {
		switch r.Below(3) {
		case 0:
			return edges[r.Below(uint64(len(edges)))]
		case 1:
			return r.LogUniform(^uint64(0))
		}
		return r.Uint64()
	}
	for n := 0; n < 200000; n++ {
		c := castEdge{d: 1 + int(r.Below(127))}
		k, vmax := pick(), pick()>>uint(r.Below(64))
		if vmax == ^uint64(0) {
			vmax-- // bisect's "none" is vmax+1
		}
		// Targets near what v*k reaches: pre of a random product, +-1.
		p := mul128(pick()&vmax, k)
		tg := c.pre(p)
		switch r.Below(4) {
		case 0:
			tg = tg.add64(1)
		case 1:
			if tg.lo > 0 {
				tg.lo--
			}
		case 2:
			tg = u128{pick(), pick()}
		}
		want := bisect(0, vmax, func(v uint64) bool { return c.pre(mul128(v, k)).cmp(tg) >= 0 })
		if got := c.minOperand(k, tg, vmax); got != want {
			t.Fatalf("d=%d k=%#x t=%#x:%#x vmax=%#x: minOperand %#x, bisect %#x", c.d, k, tg.hi, tg.lo, vmax, got, want)
		}
	}
}
