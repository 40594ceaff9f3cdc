package grade

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/rtl"
)

// LowZeros returns, per node of the flat combinational module f (indexed
// by node ID), a number of low bits that are 0 for every input the Ranges
// rs hold for (rs from ValueRanges, SplitValueRanges or one run of
// NormalizerRuns; indexed like f.Nodes): the low bits rs knows are 0, or
// more where the operations imply it, which the known-bits pass does not
// track through arithmetic:
//
//   - a product's low zeros are at least the sum of its operands' (the low
//     k bits of a*b depend only on the low k bits of a and b, whatever the
//     signedness);
//   - a sum's or difference's, an or's, xor's and mux's at least the fewer
//     of its operands'; an and's the more;
//   - a shift left by a constant K (or by an amount of at least K) adds K;
//     a shift right by K (at most K) removes K; a slice from bit K removes
//     K; an extension or a retyping keeps them; a concatenation counts from
//     its least significant part up;
//   - a constant's and a ROM's (every entry's) are their trailing zeros.
//
// A node that is always 0 has its width. The count is sound (every value
// the node takes has at least that many low zero bits) when rs is: each
// rule holds for every operand value with the operands' counts. The
// rounding "up" bin of x * 2^11 (ldcp_update's eta * cw) and a cast's
// saturation threshold 2^32 - 1 on a value that is y << 3 (the 1/cw unit
// below 1 packet) are proved unreachable with it (package
// vectors/coverage).
func LowZeros(f *rtl.Module, rs []Range) []int {
	z := make([]int, len(f.Nodes))
	for _, n := range f.Nodes { // f.Nodes is in topological order
		w := n.Width
		a := func(i int) int { return z[n.Args[i].ID] }
		full := func(i int) bool { return z[n.Args[i].ID] >= n.Args[i].Width }
		v := 0
		switch n.Op {
		case rtl.OpConst:
			v = trailZerosBits(n.Value, w)
		case rtl.OpROM:
			v = w
			for _, e := range n.ROM {
				v = min(v, trailZerosBits(e, w))
			}
		case rtl.OpAdd, rtl.OpSub, rtl.OpOr, rtl.OpXor:
			v = min(a(0), a(1))
		case rtl.OpAnd:
			v = max(a(0), a(1))
		case rtl.OpMul:
			v = a(0) + a(1)
		case rtl.OpMux:
			v = min(a(1), a(2))
		case rtl.OpShlC:
			v = a(0) + n.K
		case rtl.OpLShrC, rtl.OpAShrC:
			if full(0) {
				v = w
			} else {
				v = max(a(0)-n.K, 0)
			}
		case rtl.OpShl:
			if r := rs[n.Args[1].ID]; r.HasRange {
				v = a(0) + int(min(r.Lo, uint64(w)))
			} else {
				v = a(0)
			}
		case rtl.OpLShr, rtl.OpAShr:
			switch r := rs[n.Args[1].ID]; {
			case full(0):
				v = w
			case r.HasRange && r.Hi < uint64(w):
				v = max(a(0)-int(r.Hi), 0)
			}
		case rtl.OpSlice:
			if full(0) {
				v = w
			} else {
				v = max(a(0)-n.K, 0)
			}
		case rtl.OpZExt, rtl.OpSExt, rtl.OpAs:
			if full(0) {
				v = w
			} else {
				v = a(0)
			}
		case rtl.OpConcat:
			for i := len(n.Args) - 1; i >= 0; i-- {
				v += a(i)
				if !full(i) {
					break
				}
			}
		}
		if k := knownLowZeros(rs[n.ID], w); k > v {
			v = k
		}
		z[n.ID] = min(v, w)
	}
	return z
}

// knownLowZeros is the number of low bits r knows are 0 (at most w).
func knownLowZeros(r Range, w int) int {
	i := 0
	for i < w && r.Zero.Bit(i) {
		i++
	}
	return i
}

// trailZerosBits is the number of trailing zero bits of the w-bit value b
// (w when b is 0).
func trailZerosBits(b rtl.Bits, w int) int {
	b = b.Trunc(w)
	for i, x := range b {
		if x != 0 {
			return min(i*64+bits.TrailingZeros64(x), w)
		}
	}
	return w
}
