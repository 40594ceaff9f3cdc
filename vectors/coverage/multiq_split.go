package coverage

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// The per-piece lower bound of a reciprocal unit's output (issue 14,
// MultiQ): the value analysis of a reciprocal unit's Newton step is loose
// over a whole binade of its input (the seed and the normalized mantissa
// it multiplies are correlated, the interval product is not: 1/y over a
// binade is bounded only within a factor of about 2^12), and tight over
// the inputs that read one table entry (the seed is then one constant).
// splitAtLeast reruns the analysis (grade.ConeRanges, over the cone only)
// per piece of the unit's input: each bit length, halved where the run
// does not prove the bound, down to the pieces of one table entry. The
// pieces of every length cover every input, so a bound that holds in
// every piece holds everywhere. MultiQ's recip_mq (1/y of a 53-bit y) is
// at least 2^32 LSBs wherever y is 53 bits or fewer, which no binade run
// shows and the pieces do.

// splitBudget bounds the analysis runs one proof may take (each is one
// pass over the cone); past it the proof gives up, which is sound.
const splitBudget = 6000

// normalizerShl returns the normalizers of f: shl(x, c) nodes whose shift
// amount c is computed from x (a leading-zero count), with the width of
// the table address read from the normalized value (0 when none).
func normalizerShl(f *rtl.Module) []*rtl.Node {
	var out []*rtl.Node
	for _, n := range f.Nodes {
		if n.Op != rtl.OpShl || len(n.Args) != 2 || n.Args[0].Width > 64 {
			continue
		}
		x := n.Args[0]
		if reads(n.Args[1], x) {
			out = append(out, n)
		}
	}
	return out
}

// reads reports whether node x is in the input cone of n.
func reads(n, x *rtl.Node) bool {
	seen := map[int]bool{}
	var walk func(a *rtl.Node) bool
	walk = func(a *rtl.Node) bool {
		if a == x {
			return true
		}
		if a.ID < x.ID || seen[a.ID] { // topological order: a node below x cannot read it
			return false
		}
		seen[a.ID] = true
		for _, b := range a.Args {
			if walk(b) {
				return true
			}
		}
		return false
	}
	return walk(n)
}

// tableBits returns the address width of the table read from a slice of
// normalized value s (a reciprocal unit's seed), or 0 when none is.
func (m *Model) tableBits(s *rtl.Node) int {
	for _, n := range m.f.Nodes {
		if n.Op == rtl.OpROM && n.ID > s.ID {
			if a := peel(n.Args[0]); a.Op == rtl.OpSlice && a.Args[0] == s {
				return a.Width
			}
		}
	}
	return 0
}

// splitAtLeast proves that node v (at most 64 bits) is at least b for
// every input, by the value analysis per piece of the normalizer input x
// (normalized by shl): every bit length of x's interval, each halved
// where its run does not prove it (after k halvings, k the address width
// of the unit's table, a piece reads one entry, where the Newton step is
// tight; a piece that still straddles the output's saturation boundary is
// halved on, down to single values). It returns the proof, or "" (a single
// value where the analysis allows v < b, or the budget spent). Results are kept
// in cache by the cone's signature (coneSig): the hop slots' units are
// the same circuit, whose runs are the same.
func (m *Model) splitAtLeast(cache map[string]string, shl, v *rtl.Node, b uint64) string {
	x := shl.Args[0]
	k := m.tableBits(shl)
	xlo, xhi, ok := m.interval(x)
	if !ok || k == 0 {
		return ""
	}
	cr, err := grade.NewConeRanges(m.f, []*rtl.Node{x}, []*rtl.Node{v})
	if err != nil {
		return ""
	}
	key := fmt.Sprintf("%s|x %d [%d,%d] k %d b %d", m.coneSig(cr, x, v), x.Width, xlo, xhi, k, b)
	if why, ok := cache[key]; ok {
		if why == "" {
			return ""
		}
		return fmt.Sprintf(why, nodeLabel(x), nodeLabel(v))
	}
	runs := 0
	var check func(lo, hi uint64, depth int) bool
	check = func(lo, hi uint64, depth int) bool {
		if runs >= splitBudget {
			return false
		}
		runs++
		rs, met := cr.Under(grade.Bound{Node: x, Lo: lo, Hi: hi})
		if !met || rs[0].HasRange && rs[0].Lo >= b {
			return true
		}
		if hi == lo {
			return false
		}
		mid := lo + (hi-lo)/2
		return check(lo, mid, depth+1) && check(mid+1, hi, depth+1)
	}
	proved := true
	for l := bits.Len64(xlo); l <= bits.Len64(xhi) && proved; l++ {
		lo, hi := uint64(0), uint64(0)
		if l > 0 {
			lo, hi = max(xlo, uint64(1)<<uint(l-1)), min(xhi, maxOf(l))
		}
		proved = check(lo, hi, 0)
	}
	if !proved {
		cache[key] = ""
		return ""
	}
	why := fmt.Sprintf("value analysis per piece of %%s (each bit length, halved where the run does not prove it: down to 2^-%d of it, one entry of the reciprocal table, and on across the saturation boundary; %d runs over the unit's cone, grade.ConeRanges): %%s >= %d in every piece", k, runs, b)
	cache[key] = why
	return fmt.Sprintf(why, nodeLabel(x), nodeLabel(v))
}

// coneSig is the structure of cone cr (bounded node x, target v): per
// node its operation, width, signedness, shift or slice amount, constant
// or table contents, and its operands, as positions in the cone, or, for
// an operand outside it, its value analysis (ValueRanges). Two cones with
// the same signature are analysed alike under the same bounds.
func (m *Model) coneSig(cr *grade.ConeRanges, x, v *rtl.Node) string {
	pos := map[int]int{}
	var sb strings.Builder
	for i, n := range cr.Nodes() {
		pos[n.ID] = i
		fmt.Fprintf(&sb, "%d:%s/%d/%v/%d", i, n.Op, n.Width, n.Signed, n.K)
		if n.Op == rtl.OpConst {
			sb.WriteString("=" + n.Value.Hex(n.Width))
		}
		for _, e := range n.ROM {
			sb.WriteString("," + e.Hex(n.Width))
		}
		for _, a := range n.Args {
			if p, ok := pos[a.ID]; ok {
				fmt.Fprintf(&sb, " c%d", p)
				continue
			}
			r := m.plain[a.ID]
			fmt.Fprintf(&sb, " o%s/%d/%v/%s/%s/%d/%d/%v", a.Op, a.Width, a.Signed, r.Zero.Hex(a.Width), r.One.Hex(a.Width), r.Lo, r.Hi, r.HasRange)
			if a == x {
				sb.WriteString("=x")
			}
		}
		if n == v {
			sb.WriteString("=v")
		}
		sb.WriteString(";")
	}
	return sb.String()
}

// declareSplitBounds declares, for every table-times-operand point whose
// operand is computed from a normalizer's input (a reciprocal unit's
// output, or a value read through one), the magnitude buckets below the
// operand's lower bound per piece unreachable: from the lowest reachable
// bucket up, while splitAtLeast proves the operand above the bucket's
// largest value.
func (m *Model) declareSplitBounds() {
	norms := normalizerShl(m.f)
	cache := map[string]string{}
	for i := range m.Points {
		p := &m.Points[i]
		if p.Kind != KindROMx || len(p.src) != 2 || p.src[1].Width > 64 {
			continue
		}
		x := p.src[1]
		var shl *rtl.Node // the nearest normalizer x reads
		for j := len(norms) - 1; j >= 0 && shl == nil; j-- {
			if reads(x, norms[j].Args[0]) {
				shl = norms[j]
			}
		}
		if shl == nil {
			continue
		}
		w := x.Width
		for q := range magBuckets {
			reachable := false
			for _, bn := range p.Bins {
				if bn.Unreachable == "" && hasBucket(bn.Name, q) {
					reachable = true
				}
			}
			_, bhi := bucketRange(q, w)
			if !reachable {
				continue
			}
			if bhi == maxOf(w) {
				break
			}
			why := m.splitAtLeast(cache, shl, x, bhi+1)
			if why == "" {
				break
			}
			for j := range p.Bins {
				if p.Bins[j].Unreachable == "" && hasBucket(p.Bins[j].Name, q) {
					p.Bins[j].Unreachable = why
				}
			}
		}
	}
}

// hasBucket reports whether a rom_x bin name ("e<entry>_<bucket>") is of
// magnitude bucket q.
func hasBucket(name string, q int) bool {
	s := "_" + magBuckets[q]
	return len(name) > len(s) && name[len(name)-len(s):] == s
}
