package coverage

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/hpccgold/hpccgold/rtl"
)

// Rounding residues of a product whose factor is a saturating value
// (issue 14, MultiQ): u_nbl = Rnd(tx_rate * recip_mq >> 60), and recip_mq
// is a mux of its saturated value (all ones) and the Newton result << (clz
// + 7) (7 low zero bits). One LSB below the tie, the product's low 60 bits
// are 2^59 - 1, odd: the shifted arm gives a multiple of 2^7, and the
// all-ones arm needs tx_rate = 2^59 + 2^54 + 1 (mod 2^60), above tx_rate's
// range. grade.LowZeros sees the mux as one value with no low zero (the
// all-ones arm), so the residue is taken arm by arm here: the leaves of
// the factor's mux tree, each a constant (the congruence x * k = r mod 2^d
// solved for the other factor x in its interval) or a value with low zeros
// (the product then has at least those plus x's).

// muxLeaves returns the leaves of n's mux tree (through zero extensions
// and reinterpretations), at most limit of them; nil past it.
func muxLeaves(n *rtl.Node, limit int) []*rtl.Node {
	var out []*rtl.Node
	var walk func(x *rtl.Node) bool
	walk = func(x *rtl.Node) bool {
		x = peel(x)
		if x.Op == rtl.OpMux {
			return walk(x.Args[1]) && walk(x.Args[2])
		}
		out = append(out, x)
		return len(out) <= limit
	}
	if !walk(n) {
		return nil
	}
	return out
}

// congruenceIn reports whether x * k = r (mod 2^d) has a solution x in
// [lo, hi] (k, r, lo, hi below 2^64, d <= 64).
func congruenceIn(k uint64, d int, r, lo, hi uint64) bool {
	mask := maxOf(d)
	k, r = k&mask, r&mask
	if k == 0 {
		return r == 0 && lo <= hi
	}
	z := bits.TrailingZeros64(k)
	if z >= d {
		return r == 0
	}
	if r&(uint64(1)<<uint(z)-1) != 0 {
		return false
	}
	period := d - z
	odd := k >> uint(z)
	inv := odd
	for i := 0; i < 6; i++ {
		inv *= 2 - odd*inv
	}
	pm := maxOf(period)
	x0 := ((r >> uint(z)) * inv) & pm
	first := lo&^pm | x0
	if first < lo {
		first += pm + 1
		if first < lo {
			return false // wrapped past 2^64
		}
	}
	return first <= hi
}

// leafResidue proves that the low d bits of the full product xn = a * b
// (unsigned) never equal r, leaf by leaf of b's mux tree; "" when some
// leaf allows it.
func (m *Model) leafResidue(xn *rtl.Node, d int, r uint64) string {
	if xn.Op != rtl.OpMul || xn.Signed || len(xn.Args) != 2 || d > 64 || xn.Width < xn.Args[0].Width+xn.Args[1].Width {
		return ""
	}
	lz := m.lowZeros()
	for side := 0; side < 2; side++ {
		a, b := peel(xn.Args[side]), xn.Args[1-side]
		lo, hi, ok := m.interval(a)
		leaves := muxLeaves(b, 8)
		if !ok || len(leaves) < 2 {
			continue
		}
		za := lz[a.ID]
		var parts []string
		for _, l := range leaves {
			if l.Op == rtl.OpConst && l.Width <= 64 {
				k := l.Value.Trunc(l.Width).Uint64()
				if congruenceIn(k, d, r, lo, hi) {
					parts = nil
					break
				}
				parts = append(parts, fmt.Sprintf("the constant %d needs %s * %d = %d (mod 2^%d), no solution in %s's interval [%d, %d]", k, nodeLabel(a), k, r, d, nodeLabel(a), lo, hi))
				continue
			}
			z := min(lz[l.ID]+za, 64)
			if z == 0 || r&maxOf(z) == 0 {
				parts = nil
				break
			}
			parts = append(parts, fmt.Sprintf("%s has %d low zero bits and %s %d (grade.LowZeros), so the product's low %d bits are 0, and %d has a one among them", nodeLabel(l), lz[l.ID], nodeLabel(a), za, z, r))
		}
		if parts != nil {
			return fmt.Sprintf("description: %s = %s * %s, and %s is a mux of %d arms: %s", nodeLabel(xn), nodeLabel(a), nodeLabel(b), nodeLabel(b), len(leaves), strings.Join(parts, "; "))
		}
	}
	return ""
}

// declareLeafResidues adds leafResidue's proofs to the tie and one-below-
// tie bins of every rounding point still reachable.
func (m *Model) declareLeafResidues() {
	for i := range m.Points {
		p := &m.Points[i]
		if p.Kind != KindRound || len(p.src) != 1 {
			continue
		}
		xn := p.src[0]
		var n *rtl.Node
		for _, x := range m.f.Nodes {
			if x.Name == p.Node {
				n = x
				break
			}
		}
		if n == nil {
			continue
		}
		d := n.K + 1
		for b, r := range map[int]uint64{2: 1 << uint(d-1), 3: 1<<uint(d-1) - 1} {
			if p.Bins[b].Unreachable == "" && d >= 2 && d <= 64 {
				if why := m.leafResidue(xn, d, r); why != "" {
					p.Bins[b].Unreachable = why
				}
			}
		}
	}
}
