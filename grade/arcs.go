package grade

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/rtl"
)

// Arc is a set of W-bit values read modulo 2^W (a wrapped interval): Start,
// Start+1, ..., Start+Len, each modulo 2^W. Full is true when the arc is
// every value (it then says nothing). An arc that crosses 2^W - 1 -> 0 is
// what the unsigned interval of a subtraction that may borrow cannot say:
// x - y with x in [0, 2^32) and y in [0, 2^27] is in [-2^27, 2^32) read
// signed, an arc of 2^32 + 2^27 values of the 2^33, while as unsigned
// values it spans both ends of [0, 2^33).
type Arc struct {
	Start, Len uint64
	Full       bool
}

// ModularArcs computes, per node of the flat combinational module f (at
// most 64 bits; wider nodes get a full arc), an arc holding every value the
// node takes: wrapped-interval arithmetic (the signedness-agnostic domain
// of Navas et al., 2012) for constants, additions, subtractions,
// reinterpretations, zero extensions of an arc that does not wrap, constant
// left shifts and low slices, met with the value analysis' unsigned
// interval (ValueRanges) at every node, which is what every other
// operation gets. Sound: every value a node takes lies in its arc.
func ModularArcs(f *rtl.Module) []Arc {
	rs := ValueRanges(f)
	out := make([]Arc, len(f.Nodes))
	for _, n := range f.Nodes {
		w := n.Width
		if w > 64 {
			out[n.ID] = Arc{Full: true}
			continue
		}
		a := arcOp(n, out)
		if r := rs[n.ID]; r.HasRange && r.Lo <= r.Hi {
			a = meetArc(a, Arc{Start: r.Lo, Len: r.Hi - r.Lo}, w)
		}
		out[n.ID] = normArc(a, w)
	}
	return out
}

// arcOp is the arc of n from its operands' arcs (Full when the operation
// is not one the arithmetic follows).
func arcOp(n *rtl.Node, as []Arc) Arc {
	w := n.Width
	full := Arc{Full: true}
	arg := func(i int) Arc { return as[n.Args[i].ID] }
	switch n.Op {
	case rtl.OpConst:
		return Arc{Start: n.Value.Trunc(w).Uint64()}
	case rtl.OpAs:
		return arg(0)
	case rtl.OpAdd, rtl.OpSub:
		a, b := arg(0), arg(1)
		if a.Full || b.Full {
			return full
		}
		l, c := bits.Add64(a.Len, b.Len, 0)
		if c != 0 || w < 64 && l > maxOf(w)-1 || l == ^uint64(0) {
			return full // 2^W values or more: every value
		}
		if n.Op == rtl.OpAdd {
			return Arc{Start: (a.Start + b.Start) & maxOf(w), Len: l}
		}
		// a - b for b in [b.Start, b.Start + b.Len]: from a.Start - (b.Start + b.Len).
		return Arc{Start: (a.Start - b.Start - b.Len) & maxOf(w), Len: l}
	case rtl.OpZExt:
		a := arg(0)
		aw := n.Args[0].Width
		if a.Full || a.Len > maxOf(aw)-a.Start {
			return full // wraps within the operand: two pieces once extended
		}
		return a
	case rtl.OpShlC:
		a := arg(0)
		if a.Full || n.K >= w {
			return full
		}
		if a.Len > maxOf(w)>>uint(n.K) {
			return full
		}
		// (s + j) << K = (s << K) + (j << K) mod 2^W, j <= Len.
		return Arc{Start: a.Start << uint(n.K) & maxOf(w), Len: a.Len << uint(n.K)}
	case rtl.OpSlice:
		a := arg(0)
		if a.Full || n.K != 0 || a.Len > maxOf(w)-1 {
			return full // a high slice, or every low value
		}
		return Arc{Start: a.Start & maxOf(w), Len: a.Len}
	}
	return full
}

// normArc makes an arc of 2^W values or more Full.
func normArc(a Arc, w int) Arc {
	if !a.Full && (w < 64 && a.Len >= maxOf(w) || a.Len == ^uint64(0)) {
		return Arc{Full: true}
	}
	if !a.Full {
		a.Start &= maxOf(w)
	}
	return a
}

// meetArc is an arc holding every value in both a and b: their
// intersection when it is one arc, else the shorter of the two (both
// hold it).
func meetArc(a, b Arc, w int) Arc {
	if a.Full {
		return b
	}
	if b.Full {
		return a
	}
	m := maxOf(w)
	in := func(x Arc, v uint64) bool { return (v-x.Start)&m <= x.Len }
	end := func(x Arc) uint64 { return (x.Start + x.Len) & m }
	switch {
	case in(a, b.Start) && in(a, end(b)) && (b.Start-a.Start)&m <= (end(b)-a.Start)&m:
		return b // b inside a
	case in(b, a.Start) && in(b, end(a)) && (a.Start-b.Start)&m <= (end(a)-b.Start)&m:
		return a
	case in(a, b.Start) && !in(a, end(b)):
		return Arc{Start: b.Start, Len: (end(a) - b.Start) & m} // b's start to a's end
	case in(b, a.Start) && !in(b, end(a)):
		return Arc{Start: a.Start, Len: (end(b) - a.Start) & m}
	}
	if a.Len <= b.Len { // disjoint (sound analyses never are) or two pieces
		return a
	}
	return b
}

// ArcExcludes reports whether no value of arc a (of a W-bit node) has the
// bits lo..hi (lo <= hi < W) equal to p (bit lo of p is bit lo of the
// value): those values are, modulo 2^(hi+1), the interval [p << lo,
// ((p+1) << lo) - 1], and a reduced modulo 2^(hi+1) is an arc unless it
// holds 2^(hi+1) values or more.
func ArcExcludes(a Arc, w, lo, hi int, p uint64) bool {
	if a.Full || lo < 0 || hi < lo || hi >= w {
		return false
	}
	m := maxOf(hi + 1)
	if a.Len >= m {
		return false // every residue
	}
	s := a.Start & m
	x := p << uint(lo) & m
	y := x + (uint64(1)<<uint(lo) - 1)
	// The arc [s, s+Len] and [x, y] (not wrapping) meet exactly when one
	// holds the other's start.
	if (x-s)&m <= a.Len {
		return false
	}
	if s >= x && s <= y {
		return false
	}
	return true
}
