package grade

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/rtl"
)

// Bisection is the value analysis of the nodes that are functions of one
// node x alone (every path from an input to them passes through x: a
// reciprocal unit's nodes from its input on), rerun over pieces of x's
// interval. One piece's run re-infers only the nodes between x and the
// targets; for a piece of one value it is exact (every node there is then
// a constant the rules compute). A fact that holds in every piece of a
// cover of x's values holds for every input.
type Bisection struct {
	x    *rtl.Node
	kb   []known // the analysis of f
	work []known // kb with the cone re-inferred for the last piece
	cone []*rtl.Node
	lo   uint64 // x's interval
	hi   uint64
}

// Bisector holds the value analysis of a flat combinational module, from
// which it makes bisections.
type Bisector struct {
	f  *rtl.Module
	kb []known
}

// NewBisector analyses f once for its bisections.
func NewBisector(f *rtl.Module) *Bisector { return &Bisector{f: f, kb: knownBits(f)} }

// Of returns the bisection of x (at most 64 bits) for the targets, or nil
// when some target is not a function of x alone.
func (bz *Bisector) Of(x *rtl.Node, targets ...*rtl.Node) *Bisection {
	if x.Width > 64 {
		return nil
	}
	f, kb := bz.f, bz.kb
	k := kb[x.ID]
	if !k.rng {
		return nil
	}
	in := map[int]bool{x.ID: true} // the nodes between x and the targets
	var walk func(n *rtl.Node) bool
	seen := map[int]bool{}
	walk = func(n *rtl.Node) bool { // true when n is a function of x alone
		if n == x || n.Op == rtl.OpConst {
			return true
		}
		if n.Op == rtl.OpInput || n.ID < x.ID {
			return false // an input, or computed before x (so not from it): another input path
		}
		if seen[n.ID] {
			return true
		}
		seen[n.ID] = true
		for _, a := range n.Args {
			if !walk(a) {
				return false
			}
		}
		in[n.ID] = true
		return true
	}
	for _, t := range targets {
		if !walk(t) {
			return nil
		}
	}
	b := &Bisection{x: x, kb: kb, work: append([]known(nil), kb...), lo: k.lo, hi: k.hi}
	for _, n := range f.Nodes {
		if in[n.ID] && n != x {
			b.cone = append(b.cone, n)
		}
	}
	return b
}

// X is the node the bisection splits.
func (b *Bisection) X() *rtl.Node { return b.x }

// Piece is the analysis of one piece: x in [Lo, Hi]. It is valid until
// the bisection analyses the next piece.
type Piece struct {
	Lo, Hi uint64
	kb     []known
}

// Range returns what the piece's analysis knows of node n.
func (p *Piece) Range(n *rtl.Node) Range {
	k := p.kb[n.ID]
	return Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
}

// Resolve follows muxes whose select the piece's analysis decides to the
// arm they take.
func (p *Piece) Resolve(n *rtl.Node) *rtl.Node {
	for n.Op == rtl.OpMux {
		is, v := p.kb[n.Args[0].ID].bit(0)
		if !is {
			return n
		}
		if v {
			n = n.Args[1]
		} else {
			n = n.Args[2]
		}
	}
	return n
}

// run analyses x in [lo, hi]: x bounded and the cone re-inferred in the
// working copy (every other node keeps the whole analysis' entry, which no
// piece changes).
func (b *Bisection) run(lo, hi uint64) *Piece {
	kb := b.work
	k := b.kb[b.x.ID]
	k.lo, k.hi = max(k.lo, lo), min(k.hi, hi)
	kb[b.x.ID] = withRange(k, b.x.Width)
	for _, n := range b.cone {
		args := make([]known, len(n.Args))
		for i, a := range n.Args {
			args[i] = kb[a.ID]
		}
		kb[n.ID] = infer(n, shapeOf(n), args)
		if n.Op == rtl.OpMux {
			kb[n.ID] = refineMux(n, kb)
		}
	}
	return &Piece{Lo: lo, Hi: hi, kb: kb}
}

// Holds reports whether pred holds in every piece of x's values in [lo,
// hi] (intersected with x's interval): the values are split by bit length
// first (a normalizer's count is then fixed), then a piece where pred
// fails is halved, until pred holds everywhere (ok, with the number of
// pieces analysed) or a piece of one value fails or budget pieces were
// analysed (not ok). An empty range holds trivially.
func (b *Bisection) Holds(lo, hi uint64, pred func(*Piece) bool, budget int) (pieces int, ok bool) {
	lo, hi = max(lo, b.lo), min(hi, b.hi)
	if lo > hi {
		return 0, true
	}
	type span struct{ lo, hi uint64 }
	var stack []span
	for l := bits.Len64(hi); l >= bits.Len64(lo); l-- { // pushed so the shortest length is tried first
		s, e := uint64(0), uint64(0)
		if l > 0 {
			s, e = max(lo, uint64(1)<<uint(l-1)), min(hi, maxOf(l))
		}
		if s <= e {
			stack = append(stack, span{s, e})
		}
	}
	for len(stack) > 0 {
		sp := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if pieces == budget {
			return pieces, false
		}
		pieces++
		if pred(b.run(sp.lo, sp.hi)) {
			continue
		}
		if sp.lo == sp.hi {
			return pieces, false
		}
		mid := sp.lo + (sp.hi-sp.lo)/2
		stack = append(stack, span{mid + 1, sp.hi}, span{sp.lo, mid})
	}
	return pieces, true
}
