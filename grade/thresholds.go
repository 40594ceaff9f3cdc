package grade

import (
	"slices"

	"github.com/hpccgold/hpccgold/rtl"
)

// ThresholdSplitter runs the value analysis of a flat combinational module
// split at the thresholds of a node x: the constants x is compared against
// (a comparator chain such as IFA's egress-time normalizer, eight compares
// t >= k*10^9 summed into a carry that selects k*10^9 to subtract from t).
// Interval arithmetic loses the relation between t and the carry (the sum
// of the compares, a table read at it, t minus the entry read): over t's
// whole interval every compare may go either way. Within one piece between
// two consecutive thresholds every compare of x against a constant is
// decided, so the carry, the table entry and t minus it are analysed as
// what they are on that piece. The pieces cover x's interval, so a fact
// that holds in every piece holds for every input (each piece's run is the
// analysis of the inputs whose x lies in it, sound as ConeRanges is: only
// the nodes that read x, directly or not, are recomputed; every other node
// keeps the analysis of the whole module, which does not depend on x).
//
// A ThresholdSplitter caches the split of each x it analysed; it is not
// safe for concurrent use.
type ThresholdSplitter struct {
	f     *rtl.Module
	kb    []known
	cuts  map[int][]uint64 // per node: its thresholds (compared against a constant)
	split map[int]*ThresholdSplit
}

// ThresholdSplit is the analysis of one node x split at its thresholds.
type ThresholdSplit struct {
	X      *rtl.Node
	Pieces []ThresholdPiece
	down   []bool // the nodes that read x (x included)
	kb     []known
}

// ThresholdPiece is one piece, x in [Lo, Hi], with the analysis of every
// node that reads x on the inputs whose x lies in it. Empty is true when
// the analysis finds no such input (a bound contradicting what it knows of
// a node): the piece then holds no input and every fact holds in it.
type ThresholdPiece struct {
	Lo, Hi uint64
	Empty  bool
	kb     map[int]known // the re-analysed nodes
}

// NewThresholdSplitter analyses f once and collects every node's
// thresholds.
func NewThresholdSplitter(f *rtl.Module) *ThresholdSplitter {
	ts := &ThresholdSplitter{f: f, kb: knownBits(f), cuts: map[int][]uint64{}, split: map[int]*ThresholdSplit{}}
	for _, n := range f.Nodes {
		switch n.Op {
		case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe, rtl.OpEq, rtl.OpNe:
		default:
			continue
		}
		a, b := n.Args[0], n.Args[1]
		for i, x := range []*rtl.Node{a, b} {
			c := peelAs(n.Args[1-i])
			if c.Op != rtl.OpConst || x.Op == rtl.OpConst || x.Width > 64 {
				continue
			}
			v := c.Value.Trunc(x.Width).Uint64()
			// A cut at v splits [.., v-1] from [v, ..]; x < v and x >= v
			// change there, x <= v and x > v one above, x == v at both.
			var vs []uint64
			switch {
			case n.Op == rtl.OpEq || n.Op == rtl.OpNe:
				vs = []uint64{v, v + 1}
			case (n.Op == rtl.OpLt || n.Op == rtl.OpGe) == (i == 0):
				vs = []uint64{v}
			default:
				vs = []uint64{v + 1}
			}
			if a.Signed {
				vs = append(vs, uint64(1)<<uint(x.Width-1)) // the signed order turns at the sign boundary
			}
			// The cuts hold for x and for what x reinterprets (the same
			// bits).
			for _, y := range []*rtl.Node{x, peelAs(x)} {
				for _, cv := range vs {
					if cv > 0 && cv <= maxOf(y.Width) && !slices.Contains(ts.cuts[y.ID], cv) {
						ts.cuts[y.ID] = append(ts.cuts[y.ID], cv)
					}
				}
			}
		}
	}
	for id := range ts.cuts {
		slices.Sort(ts.cuts[id])
	}
	return ts
}

// peelAs follows reinterpretations (OpAs) to the node they read.
func peelAs(n *rtl.Node) *rtl.Node {
	for n.Op == rtl.OpAs {
		n = n.Args[0]
	}
	return n
}

// Candidates returns the nodes with at least min thresholds, in node
// order.
func (ts *ThresholdSplitter) Candidates(min int) []*rtl.Node {
	var out []*rtl.Node
	for _, n := range ts.f.Nodes {
		if len(ts.cuts[n.ID]) >= min {
			out = append(out, n)
		}
	}
	return out
}

// Thresholds returns x's cut points, ascending: the pieces are [lo, c1-1],
// [c1, c2-1], ..., [ck, hi] of x's interval [lo, hi].
func (ts *ThresholdSplitter) Thresholds(x *rtl.Node) []uint64 { return ts.cuts[x.ID] }

// Split returns the analysis of f split at x's thresholds (nil when x has
// none or is wider than 64 bits).
func (ts *ThresholdSplitter) Split(x *rtl.Node) *ThresholdSplit {
	if s, ok := ts.split[x.ID]; ok {
		return s
	}
	cuts := ts.cuts[x.ID]
	if len(cuts) == 0 || x.Width > 64 {
		ts.split[x.ID] = nil
		return nil
	}
	f := ts.f
	s := &ThresholdSplit{X: x, down: make([]bool, len(f.Nodes)), kb: ts.kb}
	s.down[x.ID] = true
	var cone []*rtl.Node
	for _, n := range f.Nodes[x.ID+1:] {
		for _, a := range n.Args {
			if s.down[a.ID] {
				s.down[n.ID] = true
				cone = append(cone, n)
				break
			}
		}
	}
	lo, hi := uint64(0), maxOf(x.Width)
	if k := ts.kb[x.ID]; k.rng {
		lo, hi = k.lo, k.hi
	}
	starts := []uint64{lo}
	for _, c := range cuts {
		if c > lo && c <= hi {
			starts = append(starts, c)
		}
	}
	work := append([]known(nil), ts.kb...)
	for i, st := range starts {
		end := hi
		if i+1 < len(starts) {
			end = starts[i+1] - 1
		}
		p := ThresholdPiece{Lo: st, Hi: end, kb: map[int]known{}}
		k := ts.kb[x.ID]
		k.rng, k.lo, k.hi = true, st, end
		k = withRange(k, x.Width)
		blo, bhi := k.one[0], ^k.zero[0]&maxOf(x.Width)
		if blo > end || bhi < st {
			p.Empty = true
			s.Pieces = append(s.Pieces, p)
			continue
		}
		work[x.ID] = k
		p.kb[x.ID] = k
		for _, n := range cone {
			args := make([]known, len(n.Args))
			for j, a := range n.Args {
				args[j] = work[a.ID]
			}
			work[n.ID] = infer(n, shapeOf(n), args)
			if n.Op == rtl.OpMux {
				work[n.ID] = refineMux(n, work)
			}
			p.kb[n.ID] = work[n.ID]
		}
		for _, n := range cone { // restore the whole analysis for the next piece
			work[n.ID] = ts.kb[n.ID]
		}
		work[x.ID] = ts.kb[x.ID]
		s.Pieces = append(s.Pieces, p)
	}
	ts.split[x.ID] = s
	return s
}

// Reads reports whether n reads x (directly or not; x itself included):
// only those nodes are re-analysed per piece.
func (s *ThresholdSplit) Reads(n *rtl.Node) bool { return s.down[n.ID] }

// Range returns what piece i's analysis knows of node n (the whole
// module's analysis for a node that does not read x).
func (s *ThresholdSplit) Range(i int, n *rtl.Node) Range {
	k, ok := s.Pieces[i].kb[n.ID]
	if !ok {
		k = s.kb[n.ID]
	}
	return Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
}
