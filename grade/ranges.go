package grade

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/rtl"
)

// SplitValueRanges is ValueRanges made exact per bit length of each
// normalizer's input: for every normalizer shl(x, clz(x)) of f (a
// reciprocal unit's, whose value analysis is exact only for one bit length
// of x at a time), the analysis is rerun for x in [2^(L-1), 2^L - 1], once
// per length L that x's interval allows (L = 0: x = 0), and a node's Range
// is the union of those runs; the Ranges of the normalizers are then
// intersected with each other and with ValueRanges'. Sound: the lengths of
// one x cover every input, so each union holds every value a node takes,
// and so does the intersection of sound Ranges. Like ValueRanges it
// carries a mux select's guards into the arm it picks (a hop's ok bounds
// its dts), so a 1/dts unit fed mux(ok, dts, 1) is analysed for 1 <= dts
// <= MaxDeltaTsNs, length by length.
func SplitValueRanges(f *rtl.Module) []Range {
	kb := knownBits(f)
	p := newProverKB(f, kb)
	out := make([]known, len(kb))
	copy(out, kb)
	for _, x := range p.normalizers() {
		k := kb[x.ID]
		if !k.rng {
			continue
		}
		var union []known
		ok := true
		for l := bits.Len64(k.lo); l <= bits.Len64(k.hi) && ok; l++ {
			lo, hi := uint64(0), uint64(0)
			if l > 0 {
				lo, hi = max(k.lo, uint64(1)<<uint(l-1)), min(k.hi, maxOf(l))
			}
			kc, met := knownBitsUnder(f, &bound{id: x.ID, lo: lo, hi: hi})
			if !met {
				continue // no input gives this length
			}
			if union == nil {
				union = kc
				continue
			}
			for i := range union {
				union[i] = joinKnown(union[i], kc[i], f.Nodes[i].Width)
			}
		}
		if union == nil {
			continue
		}
		for i := range out {
			out[i] = meetKnown(out[i], union[i], f.Nodes[i].Width)
		}
	}
	rs := make([]Range, len(out))
	for i, k := range out {
		rs[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
	}
	return rs
}

// joinKnown is what holds in either of two analyses of a w-bit node (the
// bits both know alike, the hull of the intervals).
func joinKnown(a, b known, w int) known {
	k := known{zero: a.zero.And(b.zero), one: a.one.And(b.one)}
	if a.rng && b.rng && w <= 64 {
		k.lo, k.hi, k.rng = min(a.lo, b.lo), max(a.hi, b.hi), true
	}
	return k
}

// meetKnown is what holds in both of two sound analyses of a w-bit node
// (every known bit of either, the intersection of the intervals); when
// they contradict (no input), a is kept.
func meetKnown(a, b known, w int) known {
	k := known{zero: a.zero.Or(b.zero), one: a.one.Or(b.one), lo: a.lo, hi: a.hi, rng: a.rng, wlo: a.wlo, whi: a.whi, wrng: a.wrng}
	if !k.zero.And(k.one).IsZero() {
		return a
	}
	if w <= 64 && b.rng {
		if !k.rng {
			k.lo, k.hi, k.rng = b.lo, b.hi, true
		} else {
			k.lo, k.hi = max(k.lo, b.lo), min(k.hi, b.hi)
		}
		if k.lo > k.hi {
			return a
		}
		k = withRange(k, w)
	}
	return k
}

// ValueRangesWhere is ValueRanges for the inputs where the 1-bit node sel
// of f equals val, as far as sel's form tells: the operands of the
// compares sel is an and (val true) or an or (val false) of are bounded
// to what the compares imply (the bounds the equivalence proofs' path
// conditions use), and the analysis is rerun under them. ok is false when
// sel implies no bound, or when the bounds contradict the analysis (no
// input has sel == val). Sound: every input with sel == val satisfies the
// bounds, so every value a node takes on such an input lies in its Range.
func ValueRangesWhere(f *rtl.Module, sel *rtl.Node, val bool) (rs []Range, ok bool) {
	kb := knownBits(f)
	bs := condBounds(sel, val, kb, guardConjuncts)
	if len(bs) == 0 {
		return nil, false
	}
	kc, met := knownBitsUnder(f, bs...)
	if !met {
		return nil, false
	}
	rs = make([]Range, len(kc))
	for i, k := range kc {
		rs[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
	}
	return rs, true
}

// LengthRun is one run of SplitValueRanges: the Ranges of every node for
// the inputs where the normalizer input X (a node ID) has bit length L,
// X in [Lo, Hi].
type LengthRun struct {
	X, L   int
	Lo, Hi uint64
	Ranges []Range
}

// NormalizerRuns returns SplitValueRanges' runs, per normalizer input of f
// (in the order SplitValueRanges takes them), each with the runs of the
// bit lengths some input gives. The runs of one input cover every input of
// f (a length no input gives has no run), so a value that lies outside a
// node's Range in every run of one normalizer input is never taken.
func NormalizerRuns(f *rtl.Module) [][]LengthRun {
	kb := knownBits(f)
	p := newProverKB(f, kb)
	var out [][]LengthRun
	for _, x := range p.normalizers() {
		k := kb[x.ID]
		if !k.rng {
			continue
		}
		var runs []LengthRun
		for l := bits.Len64(k.lo); l <= bits.Len64(k.hi); l++ {
			lo, hi := uint64(0), uint64(0)
			if l > 0 {
				lo, hi = max(k.lo, uint64(1)<<uint(l-1)), min(k.hi, maxOf(l))
			}
			kc, met := knownBitsUnder(f, &bound{id: x.ID, lo: lo, hi: hi})
			if !met {
				continue // no input gives this length
			}
			rs := make([]Range, len(kc))
			for i, k := range kc {
				rs[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
			}
			runs = append(runs, LengthRun{X: x.ID, L: l, Lo: lo, Hi: hi, Ranges: rs})
		}
		if len(runs) > 0 {
			out = append(out, runs)
		}
	}
	return out
}
