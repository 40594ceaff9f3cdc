package coverage

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// The short lengths MultiQ's recip_mq input never has (issue 14): mq_y =
// mux(mq_is_backlog, tx_rate << 1, tx_rate + mq_bh) (raw), and tx_rate is
// a saturating round-half-up cast of dTx * 1/dts. A non-zero tx_rate needs
// dTx >= 1, so it is at least Rnd(min(1/dts) >> K) (or the cast's
// maximum), and 1/dts >= 2^24 - 2^17 LSBs over every input of the unit
// (proved per piece of its input, splitAtLeast): tx_rate is 0 or at least
// 64 LSBs. A non-zero mq_y is then at least min(2 * 64, the smallest
// non-zero mq_bh, tx_rate where mq_bh = 0): mq_bh is 0 only at the speed
// codes the configuration rejects, where the hop is not valid and the 1/dts
// unit reads 1, so tx_rate is 0 or at least 2^32 LSBs there. mq_y is never
// below 128, and its normalizer never counts 46 or more leading zeros of 53
// (bit lengths 1 to 7). The value analysis cannot see
// it in one pass: the cast's product is 83 bits wide, where it keeps no
// interval, and its saturation select is undecided there.

// castNonZeroMin returns the smallest non-zero value of tx, when tx has
// the form of a saturating round-half-up cast of a full product, mux(v >
// C, MAX, v[w-1:0]) with v = p[..:K] + p[K-1] and p = d * r (unsigned, full
// width): min(MAX, Rnd(rMin >> K)) where rMin is the least value splitAtLeast
// proves for r (a reciprocal unit's output), trying 2^j LSBs of tx for j =
// 0, 1, ... (the goal r >= 2^j * 2^K - 2^(K-1) makes Rnd(r >> K) >= 2^j).
// The proof names r and the bound; ok is false when the form differs or
// nothing is proved.
func (m *Model) castNonZeroMin(cache map[string]string, norms []*rtl.Node, tx *rtl.Node) (c castMin, ok bool) {
	if tx.Op != rtl.OpMux || tx.Width > 64 {
		return c, false
	}
	cmp, mx, sl := tx.Args[0], peel(tx.Args[1]), tx.Args[2]
	if cmp.Op != rtl.OpGt || mx.Op != rtl.OpConst || sl.Op != rtl.OpSlice || sl.K != 0 {
		return c, false
	}
	v := sl.Args[0]
	if cmp.Args[0] != v || peel(cmp.Args[1]).Op != rtl.OpConst || peel(cmp.Args[1]).Value.Trunc(v.Width).Shr(uint(sl.Width)).IsZero() == false {
		return c, false // the threshold must fit the slice: below it, the slice is v itself
	}
	if v.Op != rtl.OpAdd || len(v.Args) != 2 {
		return c, false
	}
	s0, s1 := peel(v.Args[0]), peel(v.Args[1])
	if s0.Op != rtl.OpSlice || s1.Op != rtl.OpSlice || s0.Args[0] != s1.Args[0] || s1.Width != 1 || s1.K != s0.K-1 || s0.K+s0.Width != s0.Args[0].Width || s0.K > 62 {
		return c, false
	}
	p, k := s0.Args[0], s0.K
	if p.Op != rtl.OpMul || p.Signed || len(p.Args) != 2 || p.Width < p.Args[0].Width+p.Args[1].Width {
		return c, false
	}
	maxV := mx.Value.Trunc(tx.Width).Uint64()
	for _, r := range p.Args {
		var shl *rtl.Node
		for j := len(norms) - 1; j >= 0 && shl == nil; j-- {
			if norms[j].Args[0].ID < r.ID && reads(r, norms[j].Args[0]) {
				shl = norms[j]
			}
		}
		if shl == nil || r.Width > 64 {
			continue
		}
		best, bestWhy := uint64(0), ""
		for j := 0; j < 63-k; j++ {
			t := uint64(1) << uint(j)
			goal := t<<uint(k) - uint64(1)<<uint(k-1)
			w := m.splitAtLeast(cache, shl, r, goal)
			if w == "" {
				break
			}
			best, bestWhy = t, w
		}
		if best == 0 {
			continue
		}
		c = castMin{r: r, shl: shl, k: k, maxV: maxV, t: min(best, maxV)}
		c.why = fmt.Sprintf("%s is a saturating round-half-up cast of %s = %s * %s (description): 0 when a factor is 0, else at least Rnd(%s >> %d) or its maximum; %s", nodeLabel(tx), nodeLabel(p), nodeLabel(p.Args[0]), nodeLabel(p.Args[1]), nodeLabel(r), k, bestWhy)
		return c, true
	}
	return c, false
}

// castMin is what castNonZeroMin finds: tx's smallest non-zero value t and
// its proof, and the cast's reciprocal factor r (normalized by shl), its
// dropped bits k and its maximum maxV.
type castMin struct {
	t, maxV uint64
	why     string
	r, shl  *rtl.Node
	k       int
}

// invalidMin returns tx's smallest non-zero value where the hop is not
// valid, when the description says what the reciprocal reads then: its
// input x = mux(ok, ..., 1), so r is r(1), the value analysis with x = 1
// bounds it, and a non-zero tx is at least min(maxV, Rnd(r(1) >> k)).
// ok names the hop's validity node; false when x has another form.
func (m *Model) invalidMin(c castMin, ok *rtl.Node) (uint64, bool) {
	x := c.shl.Args[0]
	xm := peel(x)
	if xm.Op != rtl.OpMux || xm.Args[0] != ok || peel(xm.Args[2]).Op != rtl.OpConst || peel(xm.Args[2]).Value.Trunc(xm.Width).Uint64() != 1 || x.Width > 64 {
		return 0, false
	}
	cr, err := grade.NewConeRanges(m.f, []*rtl.Node{x}, []*rtl.Node{c.r})
	if err != nil {
		return 0, false
	}
	rs, met := cr.Under(grade.Bound{Node: x, Lo: 1, Hi: 1})
	if !met {
		return c.maxV, true // x is never 1: no such input
	}
	if !rs[0].HasRange || c.k < 1 || c.k > 62 {
		return 0, false
	}
	lo := rs[0].Lo
	v, carry := bits.Add64(lo, uint64(1)<<uint(c.k-1), 0)
	if carry != 0 {
		return c.maxV, true
	}
	return min(c.maxV, v>>uint(c.k)), true
}

// yNonZeroMin returns the smallest non-zero value of y = mux(s, a1, a2)
// whose arms are tx << k (no set bit dropped) or tx + b (no wrap, b a
// table's entry), from tx's smallest non-zero value c.t: c.t << k, and
// min(c.t, the smallest non-zero entry of b's table) for a sum. Where b's
// table is read at the hop's speed code and holds 0 only at codes the
// configuration rejects (speedGate: the hop is then not valid), tx + 0
// happens only on an invalid hop, whose tx is 0 or at least invalidMin: the
// sum's bound is then min(that, the smallest non-zero entry). gated
// reports that case.
func (m *Model) yNonZeroMin(y, tx *rtl.Node, c castMin) (least uint64, gated, ok bool) {
	isTx := func(n *rtl.Node) bool { return peel(n) == tx }
	t := c.t
	best := ^uint64(0)
	for _, arm := range y.Args[1:] {
		switch {
		case arm.Op == rtl.OpShlC && isTx(arm.Args[0]) && tx.Width+arm.K <= arm.Width && arm.K < 64 && bits.Len64(t)+arm.K <= 64:
			best = min(best, t<<uint(arm.K))
		case arm.Op == rtl.OpAdd && len(arm.Args) == 2 && m.notBelow(arm, tx):
			b := arm.Args[1]
			if isTx(b) {
				b = arm.Args[0]
			}
			rom := peel(b)
			if rom.Op != rtl.OpROM {
				return 0, false, false
			}
			nz := ^uint64(0)
			zeroAt := []int{}
			for e, v := range rom.ROM {
				if v := v.Trunc(rom.Width); !v.IsZero() && v.Shr(64).IsZero() {
					nz = min(nz, v.Uint64())
				} else if v.IsZero() {
					zeroAt = append(zeroAt, e)
				}
			}
			tz := t // the sum with a zero entry: tx alone
			if okNode, proof := m.speedGate(rom.Args[0]); okNode != nil && len(rom.ROM) == 1<<uint(rom.Args[0].Width) {
				all := true
				for _, e := range zeroAt {
					all = all && e < len(proof) && proof[e] != ""
				}
				if all {
					if ti, ok := m.invalidMin(c, okNode); ok && ti > t {
						tz, gated = ti, true
					}
				}
			}
			best = min(best, tz, nz)
		default:
			return 0, false, false
		}
	}
	return best, gated, best != ^uint64(0) && best > 0
}

// declareMQYShort declares the normalizer counts of every MultiQ hop
// slot's recip_mq input that mean a bit length below that of mq_y's
// smallest non-zero value (yNonZeroMin, castNonZeroMin).
func (m *Model) declareMQYShort() {
	byName := map[string]*rtl.Node{}
	for _, n := range m.f.Nodes {
		byName[n.Name] = n
	}
	norms := normalizerShl(m.f)
	cache := map[string]string{}
	for i := 0; ; i++ {
		y := byName["h"+strconv.Itoa(i)+"_mq_y"]
		if y == nil {
			return
		}
		if y.Op != rtl.OpMux || len(y.Args) != 3 {
			continue
		}
		var clz *rtl.Node
		for _, s := range norms {
			if s.Args[0] == y {
				clz = s.Args[1]
			}
		}
		// tx: the operand the arms extend (the shifted arm's)
		var tx *rtl.Node
		for _, arm := range y.Args[1:] {
			if arm.Op == rtl.OpShlC {
				tx = peel(arm.Args[0])
			}
		}
		if clz == nil || tx == nil {
			continue
		}
		cm, ok := m.castNonZeroMin(cache, norms, tx)
		if !ok {
			continue
		}
		ymin, gated, ok := m.yNonZeroMin(y, tx, cm)
		if !ok {
			continue
		}
		why := cm.why
		if gated {
			why += fmt.Sprintf(". A zero table entry is read only at speed codes the configuration rejects (h<i>_ok is then 0), where %s reads 1 (%s = mux(ok, ..., 1)) and a non-zero %s is larger still", nodeLabel(cm.shl.Args[0]), nodeLabel(cm.shl.Args[0]), nodeLabel(tx))
		}
		maxLen := bits.Len64(ymin) - 1 // every length L with 2^L - 1 < ymin
		proof := fmt.Sprintf("%s = mux(%s, ...) has arms %s shifted or plus a table entry (description), so it is 0 or at least %d: never of bit length 1 to %d, a count above %d. Its tx: %s", nodeLabel(y), nodeLabel(y.Args[0]), nodeLabel(tx), ymin, maxLen, y.Width-maxLen-1, why)
		for j := range m.Points {
			p := &m.Points[j]
			if p.Kind != KindCLZ || len(p.src) != 1 || p.src[0] != clz {
				continue
			}
			for b := range p.Bins {
				c, err := strconv.Atoi(strings.TrimPrefix(p.Bins[b].Name, "z"))
				if err != nil || p.Bins[b].Unreachable != "" {
					continue
				}
				if l := y.Width - c; l >= 1 && l <= maxLen {
					p.Bins[b].Unreachable = proof
				}
			}
		}
	}
}
