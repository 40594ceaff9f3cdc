package grade

import (
	"fmt"
	"math/big"

	"github.com/hpccgold/hpccgold/rtl"
)

// Relation is a bound on one node that interval arithmetic loses and a
// relation between the node's operands restores: the node (an ID of the
// flat module) lies in [Lo, Hi] for every input, for the reason Why.
type Relation struct {
	Node   int
	Lo, Hi uint64
	Why    string
}

// relationRounds bounds how often relationalUnder reruns the value
// analysis with the relations it found (each rerun can make another
// relation's operands tighter).
const relationRounds = 6

// RelationalValueRanges is ValueRanges refined by two relations between a
// node's operands that interval arithmetic, which treats operands as
// independent, loses:
//
//   - a convex combination s = (c - t)*x + t*y of unsigned operands with
//     the constant c, the same node t on both sides and 0 <= t <= c (the
//     value analysis bounds t by c, so c - t does not wrap) lies in
//     [c*min(x_lo, y_lo), c*max(x_hi, y_hi)], since (c - t)*x + t*y is at
//     most (c - t)*X + t*X = c*X for X the larger upper bound, and likewise
//     from below.
//     Interval arithmetic bounds it by 2*c*X. The EWMA of U, (T - tau)*U +
//     tau*u', is one.
//   - a round-half-up sum r = zext(P >> d) + zext(P[d-1]) (the slice above
//     bit d keeping every bit P can set) equals floor((P + 2^(d-1)) / 2^d),
//     which does not decrease with P: r lies in [round(P_lo), round(P_hi)]
//     when round(P_hi) fits r's width. Interval arithmetic adds the
//     increment's [0, 1] to the truncated value: one more than r can be
//     when P_hi rounds down.
//
// The analysis is rerun with these bounds applied (knownBitsUnder) until
// no relation tightens (at most relationRounds reruns), so a bound reaches
// the nodes downstream. Sound: each bound holds for every input, hence so
// does the analysis under them. It returns the Ranges and the relations
// applied, in node order.
func RelationalValueRanges(f *rtl.Module) ([]Range, []Relation) {
	kb, rels, ok := relationalUnder(f, nil)
	if !ok { // no input meets the relations: impossible for sound ones; prove nothing more
		return ValueRanges(f), nil
	}
	return rangesOf(kb), rels
}

// RelationalValueRangesWhere is RelationalValueRanges for the inputs where
// the 1-bit node sel equals val, as ValueRangesWhere bounds them (the
// compares sel is made of bound their operands), and where sel is an or
// (val false) or an and (val true) of 1-bit nodes, each of those nodes
// fixed at val: "no hop valid" fixes every hop's ok at 0. ok is false when
// sel implies nothing or no input meets it.
func RelationalValueRangesWhere(f *rtl.Module, sel *rtl.Node, val bool) (rs []Range, rels []Relation, ok bool) {
	bs := whereBounds(f, sel, val)
	if len(bs) == 0 {
		return nil, nil, false
	}
	kb, rels, ok := relationalUnder(f, bs)
	if !ok {
		return nil, nil, false
	}
	return rangesOf(kb), rels, true
}

// whereBounds returns the bounds sel == val implies: condBounds' (the
// compares of an and that is 1, an or that is 0, through nots), and every
// 1-bit leaf of that and/or tree (a node that is not an and, or or not)
// fixed at the value the tree forces on it.
func whereBounds(f *rtl.Module, sel *rtl.Node, val bool) []*bound {
	kb := knownBits(f)
	bs := condBounds(sel, val, kb, guardConjuncts)
	var walk func(x *rtl.Node, v bool)
	walk = func(x *rtl.Node, v bool) {
		switch {
		case x.Width != 1:
		case x.Op == rtl.OpNot:
			walk(x.Args[0], !v)
		case x.Op == rtl.OpAnd && v || x.Op == rtl.OpOr && !v:
			for _, a := range x.Args {
				walk(a, v)
			}
		case x.Op == rtl.OpConst:
		default:
			b := uint64(b2u(v))
			bs = append(bs, &bound{id: x.ID, lo: b, hi: b})
		}
	}
	walk(sel, val)
	return bs
}

func rangesOf(kb []known) []Range {
	rs := make([]Range, len(kb))
	for i, k := range kb {
		rs[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
	}
	return rs
}

// relationalUnder runs the value analysis under the bounds base, then
// reruns it with every convex-combination and round-half-up bound
// (RelationalValueRanges) that tightens a node, until none does.
func relationalUnder(f *rtl.Module, base []*bound) ([]known, []Relation, bool) {
	var cands []*rtl.Node
	for _, n := range f.Nodes {
		if n.Op == rtl.OpAdd && !n.Signed && n.Width <= 64 {
			cands = append(cands, n)
		}
	}
	found := map[int]Relation{}
	var order []int
	for round := 0; ; round++ {
		bs := append([]*bound(nil), base...)
		for _, id := range order {
			r := found[id]
			bs = append(bs, &bound{id: id, lo: r.Lo, hi: r.Hi})
		}
		kb, ok := knownBitsUnder(f, bs...)
		if !ok {
			return nil, nil, false
		}
		if round == relationRounds {
			return kb, relationsOf(found, order), true
		}
		tighter := false
		for _, n := range cands {
			lo, hi, why, ok := convexBound(n, kb)
			if !ok {
				lo, hi, why, ok = roundBound(n, kb)
			}
			k := kb[n.ID]
			if !ok || !k.rng || lo <= k.lo && hi >= k.hi {
				continue
			}
			lo, hi = max(lo, k.lo), min(hi, k.hi)
			if lo > hi {
				return nil, nil, false // no input: the base bounds contradict
			}
			if _, seen := found[n.ID]; !seen {
				order = append(order, n.ID)
			}
			found[n.ID] = Relation{Node: n.ID, Lo: lo, Hi: hi, Why: why}
			tighter = true
		}
		if !tighter {
			return kb, relationsOf(found, order), true
		}
	}
}

func relationsOf(found map[int]Relation, order []int) []Relation {
	out := make([]Relation, 0, len(order))
	for _, id := range order {
		out = append(out, found[id])
	}
	return out
}

// exactPeel follows the nodes that pass their operand's unsigned value
// unchanged under what kb knows: zero extensions, reinterpretations (the
// same bits, whatever the signedness) and low slices that drop no bit the
// operand can set.
func exactPeel(n *rtl.Node, kb []known) *rtl.Node {
	for {
		switch {
		case n.Op == rtl.OpZExt:
			n = n.Args[0]
		case n.Op == rtl.OpAs && n.Width == n.Args[0].Width:
			n = n.Args[0]
		case n.Op == rtl.OpSlice && n.K == 0 && upper(kb[n.Args[0].ID], n.Args[0].Width).Cmp(ones(n.Width)) <= 0:
			n = n.Args[0]
		default:
			return n
		}
	}
}

func bigOf(b rtl.Bits) *big.Int { return b.Big() }

// convexBound bounds the add s (unsigned, at most 64 bits) when it is a
// convex combination (c - t)*x + t*y (RelationalValueRanges).
func convexBound(s *rtl.Node, kb []known) (lo, hi uint64, why string, ok bool) {
	m1, m2 := exactPeel(s.Args[0], kb), exactPeel(s.Args[1], kb)
	if m1.Op != rtl.OpMul || m2.Op != rtl.OpMul || m1.Signed || m2.Signed {
		return 0, 0, "", false
	}
	for _, pair := range [2][2]*rtl.Node{{m1, m2}, {m2, m1}} {
		ma, mb := pair[0], pair[1] // ma = (c - t)*x, mb = t*y
		for i := 0; i < 2; i++ {
			d, x := exactPeel(ma.Args[i], kb), ma.Args[1-i]
			if d.Op != rtl.OpSub { // its bits are (c - t) mod 2^w whatever its signedness
				continue
			}
			cn, t := exactPeel(d.Args[0], kb), exactPeel(d.Args[1], kb)
			if cn.Op != rtl.OpConst {
				continue
			}
			c := bigOf(cn.Value.Trunc(cn.Width))
			// c - t is exact: t <= c, and c fits the difference's width.
			if bigOf(upper(kb[t.ID], t.Width)).Cmp(c) > 0 || c.Cmp(bigOf(ones(d.Width))) > 0 {
				continue
			}
			for j := 0; j < 2; j++ {
				if exactPeel(mb.Args[j], kb) != t {
					continue
				}
				y := mb.Args[1-j]
				xl, xh := bigOf(lower(kb[x.ID], x.Width)), bigOf(upper(kb[x.ID], x.Width))
				yl, yh := bigOf(lower(kb[y.ID], y.Width)), bigOf(upper(kb[y.ID], y.Width))
				mn, mx := xl, xh
				if yl.Cmp(mn) < 0 {
					mn = yl
				}
				if yh.Cmp(mx) > 0 {
					mx = yh
				}
				l, h := new(big.Int).Mul(c, mn), new(big.Int).Mul(c, mx)
				// the sum cannot wrap: it is at most c*max <= 2^w - 1 (the
				// products are full width, so exact). Defensive: an add at
				// least as wide as the products always holds c*max.
				if h.Cmp(bigOf(ones(s.Width))) > 0 {
					continue
				}
				why := fmt.Sprintf("convex combination: %s = (%s - %s)*%s + %s*%s with 0 <= %s <= %s, so in [%s*%s, %s*%s]",
					s.Name, c, t.Name, x.Name, t.Name, y.Name, t.Name, c, c, mn, c, mx)
				return l.Uint64(), h.Uint64(), why, true
			}
		}
	}
	return 0, 0, "", false
}

// roundBound bounds the add r (unsigned, at most 64 bits) when it is a
// round-half-up sum zext(P >> d) + zext(P[d-1]) (RelationalValueRanges).
func roundBound(r *rtl.Node, kb []known) (lo, hi uint64, why string, ok bool) {
	a, b := r.Args[0], r.Args[1]
	for i := 0; i < 2; i++ {
		if a.Op == rtl.OpZExt {
			a = a.Args[0]
		}
		if b.Op == rtl.OpZExt {
			b = b.Args[0]
		}
		if a.Op == rtl.OpSlice && b.Op == rtl.OpSlice && b.Width == 1 && a.Args[0] == b.Args[0] && a.K >= 1 && b.K == a.K-1 {
			p, d := a.Args[0], a.K
			pl, ph := bigOf(lower(kb[p.ID], p.Width)), bigOf(upper(kb[p.ID], p.Width))
			// the slice keeps every bit P can set above d
			if new(big.Int).Rsh(ph, uint(d)).Cmp(bigOf(ones(a.Width))) > 0 {
				return 0, 0, "", false
			}
			half := new(big.Int).Lsh(big.NewInt(1), uint(d-1))
			rl := new(big.Int).Rsh(new(big.Int).Add(pl, half), uint(d))
			rh := new(big.Int).Rsh(new(big.Int).Add(ph, half), uint(d))
			if rh.Cmp(bigOf(ones(r.Width))) > 0 {
				return 0, 0, "", false
			}
			why := fmt.Sprintf("round half up: %s = floor((%s + 2^%d) / 2^%d), %s in [%s, %s]", r.Name, p.Name, d-1, d, p.Name, pl, ph)
			return rl.Uint64(), rh.Uint64(), why, true
		}
		a, b = r.Args[1], r.Args[0]
	}
	return 0, 0, "", false
}
