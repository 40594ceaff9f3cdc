package coverage

import (
	"fmt"
	"math/bits"
	"strconv"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// MultiQ's case-3 u' never saturates (issue 14): u_nbl = Rnd(tx_rate *
// recip_mq >> K) with recip_mq = 1/mq_y and mq_y = mux(mq_is_backlog,
// 2*tx_rate, tx_rate + mq_bh) (raw): both arms are at least tx_rate, so
// the product is at most mq_y * recip_mq(mq_y), about 2 in u' (2^85 raw),
// far below the saturation threshold. The relation tx_rate <= mq_y is read
// from the description (arm by arm: a left shift of tx_rate's extension,
// or a sum of it with another value that does not wrap); the bound on
// y * recip(y) comes from the value analysis per piece of y (each bit
// length, halved where the run does not prove it; grade.ConeRanges over
// the reciprocal unit's cone), as the largest y of the piece times the
// largest reciprocal of the run.

// notBelow reports whether node arm is at least a for every input, by its
// form: a itself or its zero extension, a left shift of that by a constant
// that does not drop a set bit, or a sum of that with any unsigned value
// whose interval shows the sum does not wrap.
func (m *Model) notBelow(arm, a *rtl.Node) bool {
	isA := func(n *rtl.Node) bool {
		for n.Op == rtl.OpZExt || n.Op == rtl.OpAs && !n.Signed {
			n = n.Args[0]
		}
		return n == a
	}
	switch {
	case isA(arm):
		return true
	case arm.Op == rtl.OpShlC && isA(arm.Args[0]):
		return arm.K >= 0 && a.Width+arm.K <= arm.Width
	case arm.Op == rtl.OpAdd && !arm.Signed && (isA(arm.Args[0]) || isA(arm.Args[1])):
		// an unsigned sum that does not wrap: the operands' largest values
		// add up within its width
		_, h0, ok0 := m.interval(arm.Args[0])
		_, h1, ok1 := m.interval(arm.Args[1])
		s, c := bits.Add64(h0, h1, 0)
		return arm.Width <= 64 && ok0 && ok1 && c == 0 && s <= maxOf(arm.Width)
	}
	return false
}

// recipProductMax returns an upper bound of y * r(y) over every input,
// where r is the output of the reciprocal unit normalizing y (shl): the
// largest y of each piece times the largest r of its run (splitAtLeast's
// pieces), as a 128-bit value (hi, lo), proving it below goal (hi, lo);
// ok is false when some piece does not (or the budget is spent).
func (m *Model) recipProductBelow(shl, r *rtl.Node, goalHi, goalLo uint64) (runs int, ok bool) {
	x := shl.Args[0]
	xlo, xhi, okx := m.interval(x)
	if !okx || x.Width > 64 {
		return 0, false
	}
	cr, err := grade.NewConeRanges(m.f, []*rtl.Node{x}, []*rtl.Node{r})
	if err != nil {
		return 0, false
	}
	var check func(lo, hi uint64) bool
	check = func(lo, hi uint64) bool {
		if runs >= splitBudget {
			return false
		}
		runs++
		rs, met := cr.Under(grade.Bound{Node: x, Lo: lo, Hi: hi})
		if !met {
			return true
		}
		if rs[0].HasRange {
			ph, pl := bits.Mul64(hi, rs[0].Hi)
			if ph < goalHi || ph == goalHi && pl < goalLo {
				return true
			}
		}
		if lo == hi {
			return false
		}
		mid := lo + (hi-lo)/2
		return check(lo, mid) && check(mid+1, hi)
	}
	for l := bits.Len64(xlo); l <= bits.Len64(xhi); l++ {
		lo, hi := uint64(0), uint64(0)
		if l > 0 {
			lo, hi = max(xlo, uint64(1)<<uint(l-1)), min(xhi, maxOf(l))
		}
		if !check(lo, hi) {
			return runs, false
		}
	}
	return runs, true
}

// declareUnblBound declares, for every MultiQ hop slot, u_nbl's saturation
// compare never at or above its threshold, and u_nbl's saturating mux never
// selecting the saturated value: u_nbl = mux(v > c, max, v[...]) with v =
// slice(p, K) + p[K-1] (round half up), p = a * r the full product of
// tx_rate a and the slot's recip_mq r, r the reciprocal of mq_y, mq_y a mux
// of arms each at least a (notBelow). Then v <= (y * r(y) >> K) + 1, and
// recipProductBelow shows y * r(y) < (c - 1) << K.
func (m *Model) declareUnblBound() {
	byName := map[string]*rtl.Node{}
	for _, n := range m.f.Nodes {
		byName[n.Name] = n
	}
	norms := normalizerShl(m.f)
	cache := map[string]string{}
	for i := 0; ; i++ {
		hp := "h" + strconv.Itoa(i) + "_"
		y, r, u := byName[hp+"mq_y"], byName[hp+"recip_mq"], byName[hp+"u_nbl"]
		if y == nil {
			return
		}
		if r == nil || u == nil || u.Op != rtl.OpMux || y.Op != rtl.OpMux {
			continue
		}
		why := m.unblProof(cache, norms, y, r, u)
		if why == "" {
			continue
		}
		cmp := u.Args[0]
		for j := range m.Points {
			p := &m.Points[j]
			switch {
			case p.Kind == KindCompare && p.Node == nodeLabel(cmp):
				for b := 1; b <= 2; b++ {
					if p.Bins[b].Unreachable == "" {
						p.Bins[b].Unreachable = why
					}
				}
			case p.Kind == KindMux && p.Node == nodeLabel(u) && p.Bins[1].Unreachable == "":
				p.Bins[1].Unreachable = why + fmt.Sprintf(", so the select %s is never 1", nodeLabel(cmp))
			}
		}
	}
}

// unblProof checks the shape declareUnblBound names and returns its proof,
// or "".
func (m *Model) unblProof(cache map[string]string, norms []*rtl.Node, y, r, u *rtl.Node) string {
	cmp := u.Args[0]
	if cmp.Op != rtl.OpGt || peel(cmp.Args[1]).Op != rtl.OpConst || cmp.Args[1].Width > 64 {
		return ""
	}
	c := peel(cmp.Args[1]).Value.Trunc(cmp.Args[1].Width).Uint64()
	v := cmp.Args[0]
	// v = zext(slice(p, K)) + zext(slice(p, K-1, 1))
	if v.Op != rtl.OpAdd || len(v.Args) != 2 {
		return ""
	}
	s0, s1 := peel(v.Args[0]), peel(v.Args[1])
	if s0.Op != rtl.OpSlice || s1.Op != rtl.OpSlice || s0.Args[0] != s1.Args[0] || s1.Width != 1 || s1.K != s0.K-1 || s0.K+s0.Width != s0.Args[0].Width {
		return ""
	}
	p, k := s0.Args[0], s0.K
	if p.Op != rtl.OpMul || p.Signed || len(p.Args) != 2 || p.Width < p.Args[0].Width+p.Args[1].Width {
		return ""
	}
	var a *rtl.Node
	switch {
	case peel(p.Args[1]) == r:
		a = peel(p.Args[0])
	case peel(p.Args[0]) == r:
		a = peel(p.Args[1])
	default:
		return ""
	}
	if !m.notBelow(y.Args[1], a) || !m.notBelow(y.Args[2], a) {
		return ""
	}
	var shl *rtl.Node
	for _, s := range norms {
		if s.Args[0] == y {
			shl = s
		}
	}
	if shl == nil || c < 2 || k >= 128 {
		return ""
	}
	// goal: (c - 1) << k as 128 bits
	gh, gl := uint64(0), c-1
	if k >= 64 {
		gh, gl = gl<<uint(k-64), 0
		if (c-1)>>uint(128-k) != 0 {
			return ""
		}
	} else if k > 0 {
		gh, gl = gl>>uint(64-k), gl<<uint(k)
	}
	cr, err := grade.NewConeRanges(m.f, []*rtl.Node{y}, []*rtl.Node{r})
	if err != nil {
		return ""
	}
	xlo, xhi, _ := m.interval(y)
	key := fmt.Sprintf("%s|[%d,%d]|%d,%d", m.coneSig(cr, y, r), xlo, xhi, gh, gl)
	why, ok := cache[key]
	if !ok {
		runs, proved := m.recipProductBelow(shl, r, gh, gl)
		why = ""
		if proved {
			why = fmt.Sprintf("%%s = mux(%%s, ...) has every arm at least %%s (description), so %%s = Rnd(%%s * %%s >> %d) <= (%%s * %%s >> %d) + 1; value analysis per piece of %%s (%d runs, grade.ConeRanges): %%s * %%s < %d << %d, so %%s <= %d, never at or above %d", k, k, runs, c-1, k, c-1, c)
		}
		cache[key] = why
	}
	if why == "" {
		return ""
	}
	l := nodeLabel
	return fmt.Sprintf(why, l(y), l(y.Args[0]), l(a), l(v), l(a), l(r), l(y), l(r), l(y), l(y), l(r), l(v))
}
