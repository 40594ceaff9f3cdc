package grade

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/hpccgold/hpccgold/rtl"
)

// caseLimit bounds the cases one condition is split into (disjunctions
// found going backward, and the bit-length split of a normalizer input);
// past it a case is kept whole, which is sound (it only proves less).
const caseLimit = 64

// expandLimit bounds the bounds one case may collect going backward.
const expandLimit = 256

// passBudget bounds the value-analysis passes one mutant's path proof may
// run (each case, each bit length, each select value is one pass); past
// it the rule gives up, which is sound (it only proves less) and keeps a
// mutant without a proof cheap.
const passBudget = 400

// cond is a conjunction of bounds: the inputs meeting every one.
type cond []*bound

// pathCases returns the conditions (a disjunction of conjunctions)
// outside which mutant mu cannot change any output, and what they are,
// or nil when the rule knows none beyond the whole input space:
//   - where the mutated node itself can differ: diffCases' conditions, an
//     or swapped for xor only where both 1-bit operands are 1, a constant
//     read only by one compare only where the compare's other operand is
//     at either constant (eq, ne, +/-1) or between them (an unsigned
//     ordering compare);
//   - and, conjoined, the selects of the mux dominators: a mux M such
//     that every path from the mutated node to an output passes M,
//     entering by one data input only (never its select or its other
//     input). Where M's select picks its other input, M and every output
//     are unchanged, so only inputs where it picks the changed one matter.
func (p *prover) pathCases(mu Mutant) ([]cond, string) {
	n := p.f.Nodes[mu.NodeID]
	var base []cond
	var what []string
	for _, c := range p.diffCases(mu) {
		base = append(base, cond{c})
	}
	if len(base) > 0 {
		what = append(what, "where the mutated node can differ")
	}
	if pc := p.pointCases(mu); len(pc) > 0 {
		base = append(base, pc...)
		what = append(what, "where the mutated node can differ")
	}
	doms := p.dominators(n)
	if len(doms) > 0 {
		var ss []string
		for _, d := range doms {
			ss = append(ss, fmt.Sprintf("%s = %d", p.f.Nodes[d.id].Name, d.lo))
		}
		what = append(what, "where every mux on the way to the outputs passes the change ("+strings.Join(ss, ", ")+")")
	}
	if len(base) == 0 && len(doms) == 0 {
		return nil, ""
	}
	if len(base) == 0 {
		base = []cond{nil}
	}
	out := make([]cond, 0, len(base))
	for _, b := range base {
		c := append(cond{}, b...)
		out = append(out, append(c, doms...))
	}
	return out, strings.Join(what, " and ")
}

// pointCases are the conditions under which a mutant of a 1-bit or or a
// compare's constant can differ (see pathCases); nil when none applies.
func (p *prover) pointCases(mu Mutant) []cond {
	n := p.f.Nodes[mu.NodeID]
	switch mu.Operator {
	case OpSwap:
		if n.Op == rtl.OpOr && mu.newOp == rtl.OpXor && n.Width == 1 {
			return []cond{{{id: n.Args[0].ID, lo: 1, hi: 1}, {id: n.Args[1].ID, lo: 1, hi: 1}}}
		}
	case ConstInc, ConstDec, ConstMSB:
		us := p.users[n.ID]
		if len(us) != 1 || p.outs[n.ID] || n.Width > 64 {
			return nil
		}
		c := us[0]
		if c.Args[0] == c.Args[1] {
			return nil
		}
		x := c.Args[0]
		if x == n {
			x = c.Args[1]
		}
		k0, k1 := n.Value[0], mu.value[0]
		switch c.Op {
		case rtl.OpEq, rtl.OpNe:
			return []cond{{{id: x.ID, lo: k0, hi: k0}}, {{id: x.ID, lo: k1, hi: k1}}}
		case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
			if n.Signed || x.Signed {
				return nil
			}
			return []cond{{{id: x.ID, lo: min(k0, k1), hi: max(k0, k1)}}}
		}
	}
	return nil
}

// dominators returns, for each mux dominator of n (see pathCases), the
// bound its select takes when it passes the changed input.
func (p *prover) dominators(n *rtl.Node) []*bound {
	if p.outs[n.ID] {
		return nil
	}
	cone := p.cone(n, nil)
	var out []*bound
	for id := n.ID + 1; id < len(p.f.Nodes); id++ {
		m := p.f.Nodes[id]
		if !cone[id] || m.Op != rtl.OpMux {
			continue
		}
		in := func(x *rtl.Node) bool { return x == n || cone[x.ID] }
		s, t, e := m.Args[0], m.Args[1], m.Args[2]
		if in(s) || in(t) == in(e) {
			continue
		}
		if p.reachesOutput(p.cone(n, m)) {
			continue
		}
		side := uint64(0)
		if in(t) {
			side = 1
		}
		out = append(out, &bound{id: s.ID, lo: side, hi: side})
	}
	return out
}

// cone returns the nodes reachable from n through readers, not passing
// through stop (nil: none).
func (p *prover) cone(n, stop *rtl.Node) []bool {
	seen := make([]bool, len(p.f.Nodes))
	stack := []*rtl.Node{n}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range p.users[x.ID] {
			if u != stop && !seen[u.ID] {
				seen[u.ID] = true
				stack = append(stack, u)
			}
		}
	}
	return seen
}

func (p *prover) reachesOutput(set []bool) bool {
	for id, in := range set {
		if in && p.outs[id] {
			return true
		}
	}
	return false
}

// expand returns the cases of c with what its bounds imply for the nodes
// they read, going backward: a 1-bit not, and (= 1: every operand 1; = 0:
// one case per operand 0), or (dually), a compare (the bound its result
// implies for one operand, condBound), a zero extension or
// reinterpretation (the same bound on its operand), and a mux (one case
// per select value, the bound moved to the input it picks). Each case
// keeps the bounds it came from, and the cases together cover exactly the
// inputs of c, so a proof in every case is a proof for c.
func (p *prover) expand(c cond, splits bool) []cond {
	type work struct {
		c    cond
		next int
	}
	var done []cond
	queue := []work{{c: append(cond{}, c...)}}
	total := 1
	for len(queue) > 0 {
		w := queue[0]
		queue = queue[1:]
		for w.next < len(w.c) && len(w.c) < expandLimit {
			b := w.c[w.next]
			w.next++
			if b.wide {
				continue
			}
			n := p.f.Nodes[b.id]
			point := b.lo == b.hi
			v := b.lo
			add := func(bs ...*bound) { w.c = append(w.c, bs...) }
			split := func(alts []cond) bool {
				if !splits || total+len(alts)-1 > caseLimit {
					return false
				}
				total += len(alts) - 1
				for _, a := range alts[1:] {
					nc := append(append(cond{}, w.c...), a...)
					queue = append(queue, work{c: nc, next: w.next})
				}
				add(alts[0]...)
				return true
			}
			switch {
			case n.Op == rtl.OpNot && n.Width == 1 && point:
				add(&bound{id: n.Args[0].ID, lo: 1 - v, hi: 1 - v})
			case (n.Op == rtl.OpAnd && v == 1 || n.Op == rtl.OpOr && v == 0) && n.Width == 1 && point:
				for _, a := range n.Args {
					add(&bound{id: a.ID, lo: v, hi: v})
				}
			case (n.Op == rtl.OpAnd && v == 0 || n.Op == rtl.OpOr && v == 1) && n.Width == 1 && point:
				var alts []cond
				for _, a := range n.Args {
					alts = append(alts, cond{{id: a.ID, lo: v, hi: v}})
				}
				split(alts)
			case isCompare(n.Op) && point:
				val := v == 1
				if n.Op == rtl.OpNe {
					val = !val
				}
				if cb := condBound(asEq(n), val, p.kb); cb != nil {
					add(cb)
				}
			case (n.Op == rtl.OpZExt || n.Op == rtl.OpAs && !n.Signed && !n.Args[0].Signed) && n.Args[0].Width <= 64:
				if hi := min(b.hi, maxOf(n.Args[0].Width)); b.lo <= hi {
					add(&bound{id: n.Args[0].ID, lo: b.lo, hi: hi})
				}
			case n.Op == rtl.OpMux && n.Width <= 64:
				s := n.Args[0]
				if is, _ := p.kb[s.ID].bit(0); is {
					continue
				}
				split([]cond{
					{{id: s.ID, lo: 1, hi: 1}, {id: n.Args[1].ID, lo: b.lo, hi: b.hi}},
					{{id: s.ID, lo: 0, hi: 0}, {id: n.Args[2].ID, lo: b.lo, hi: b.hi}},
				})
			}
		}
		done = append(done, w.c)
	}
	return done
}

func isCompare(op rtl.Op) bool {
	switch op {
	case rtl.OpEq, rtl.OpNe, rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		return true
	}
	return false
}

// asEq returns n, or for a not-equal compare a view of it as an equality
// (the caller negates the value).
func asEq(n *rtl.Node) *rtl.Node {
	if n.Op != rtl.OpNe {
		return n
	}
	c := *n
	c.Op = rtl.OpEq
	return &c
}

// normalizers returns the inputs x of the normalizers shl(x, s) whose
// shift amount s is computed from x (a leading-zero count): their value
// analysis is exact only per bit length of x.
func (p *prover) normalizers() []*rtl.Node {
	var out []*rtl.Node
	for _, n := range p.f.Nodes {
		if n.Op != rtl.OpShl || n.Args[0].Width > 64 {
			continue
		}
		if x := n.Args[0]; p.cone(x, nil)[n.Args[1].ID] {
			out = append(out, x)
		}
	}
	return out
}

// pathProof proves mu equivalent under pathCases: every case, expanded
// backward, is either met by no input or has the change absorbed before
// any output (forward, under the case's bounds and the assumptions); a
// case the analysis cannot settle is split by the bit length of a
// normalizer's input.
func (p *prover) pathProof(mu Mutant) string {
	cases, what := p.pathCases(mu)
	anywhere := false
	if cases == nil {
		// No condition is known: the whole input space, which only the
		// guard split (below) can settle.
		cases, what, anywhere = []cond{nil}, "anywhere", true
	}
	var norms, sels, guards []*rtl.Node
	budget := passBudget
	under := func(bs ...*bound) ([]known, bool, bool) {
		if budget == 0 {
			return nil, false, false
		}
		budget--
		kb, ok := knownBitsUnder(p.f, bs...)
		return kb, ok, true
	}
	total, empty, split, bysel, byguard := 0, 0, 0, 0, 0
	// settle proves one case: no input, absorbed, absorbed per bit length
	// of a normalizer's input, or (depth > 0) settled for both values of
	// one mux select in the mutated node's cone.
	var settle func(c cond, depth int) (bool, int)
	settle = func(c cond, depth int) (bool, int) {
		kb, ok, ran := under(append(append(cond{}, c...), p.assume...)...)
		if !ran {
			return false, 0
		}
		if !ok {
			return true, 1
		}
		if p.forwardKB(mu, kb) != "" {
			return true, 0
		}
		if norms == nil {
			norms = p.normalizers()
			sels = p.coneSelects(p.f.Nodes[mu.NodeID])
		}
		if !anywhere && p.splitProof(mu, c, kb, norms, under) {
			return true, 2
		}
		if guards == nil {
			guards = p.guards(p.f.Nodes[mu.NodeID])
		}
		if p.guardProof(mu, c, kb, guards, guardDepth, under) {
			return true, 4
		}
		if depth == 0 || anywhere {
			return false, 0
		}
		for _, sel := range sels {
			if is, _ := kb[sel.ID].bit(0); is {
				continue
			}
			both := true
			for v := uint64(0); v < 2 && both; v++ {
				sc := p.expand(append(append(cond{}, c...), &bound{id: sel.ID, lo: v, hi: v}), false)[0]
				both, _ = settle(sc, depth-1)
			}
			if both {
				return true, 3
			}
		}
		return false, 0
	}
	for _, c := range cases {
		// First the case with its conjunctive implications only; failing
		// that, split it where the implications are disjunctions.
		whole := p.expand(c, false)[0]
		if ok, how := settle(whole, 1); ok {
			total++
			empty += b2u(how == 1)
			split += b2u(how == 2)
			bysel += b2u(how == 3)
			byguard += b2u(how == 4)
			continue
		}
		for _, sc := range p.expand(c, true) {
			ok, how := settle(sc, 1)
			if !ok {
				return ""
			}
			total++
			empty += b2u(how == 1)
			split += b2u(how == 2)
			bysel += b2u(how == 3)
			byguard += b2u(how == 4)
		}
	}
	s := fmt.Sprintf("the outputs can change only %s: of the %d cases this gives (going backward through the logic), %d are met by no input", what, total, empty)
	if anywhere {
		s = fmt.Sprintf("with no condition known for where the mutant differs, the whole input space is %d case: %d met by no input", total, empty)
	}
	if rest := total - empty; rest > 0 {
		s += fmt.Sprintf(" and in %d the change is absorbed before any output (known bits and value ranges", rest)
		if split > 0 {
			s += fmt.Sprintf("; %d of them case by case over the bit length of the normalized operand", split)
		}
		if bysel > 0 {
			s += fmt.Sprintf("; %d of them for each value of a mux select", bysel)
		}
		if byguard > 0 {
			s += fmt.Sprintf("; %d of them for each value of the guards and table addresses the change meets", byguard)
		}
		s += ")"
	}
	return s
}

// selectLimit bounds the mux selects a case is split over.
const selectLimit = 24

// coneSelects returns the selects of the muxes n's change reaches (not
// computed from n themselves), nearest first, at most selectLimit.
func (p *prover) coneSelects(n *rtl.Node) []*rtl.Node {
	cone := p.cone(n, nil)
	var out []*rtl.Node
	seen := map[int]bool{}
	for id := n.ID + 1; id < len(p.f.Nodes) && len(out) < selectLimit; id++ {
		m := p.f.Nodes[id]
		if !cone[id] || m.Op != rtl.OpMux {
			continue
		}
		if s := m.Args[0]; s != n && !cone[s.ID] && !seen[s.ID] {
			seen[s.ID] = true
			out = append(out, s)
		}
	}
	return out
}

// splitProof proves mu in case c (whose analysis is kb) by splitting the
// case over the bit length of one normalizer input x: for every length L
// that x's interval allows, x in [2^(L-1), 2^L - 1] (L = 0: x = 0).
func (p *prover) splitProof(mu Mutant, c cond, kb []known, norms []*rtl.Node, under func(...*bound) ([]known, bool, bool)) bool {
	for _, x := range norms {
		k := kb[x.ID]
		if !k.rng {
			continue
		}
		ok := true
		for l := bits.Len64(k.lo); l <= bits.Len64(k.hi) && ok; l++ {
			lo, hi := uint64(0), uint64(0)
			if l > 0 {
				lo, hi = max(k.lo, uint64(1)<<uint(l-1)), min(k.hi, maxOf(l))
			}
			kc, met, ran := under(append(append(cond{}, c...), append([]*bound{{id: x.ID, lo: lo, hi: hi}}, p.assume...)...)...)
			if !ran || met && p.forwardKB(mu, kc) == "" {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// guardDepth bounds how many guards one case is split over in turn.
const guardDepth = 6

// romSplitBits bounds the width of a table address split value by value.
const romSplitBits = 5

// guards returns the nodes outside n's cone (so of the same value in the
// original and the mutant for every input) whose value decides how a
// change of n travels, in node order: the 1-bit operands of the and/or
// gates the change passes (a hop's ok and !have in a max-select chain: a
// relation between the accumulator and "no hop taken yet" becomes, per
// value of the guards, two known facts), and the addresses (at most
// romSplitBits wide) of the tables whose entries a changed node reads (a
// table's value set split into its entries, where the interval of all
// entries would contain both 0 and non-zero factors).
func (p *prover) guards(n *rtl.Node) []*rtl.Node {
	cone := p.cone(n, nil)
	out := func(x *rtl.Node) bool { return x != n && !cone[x.ID] }
	seen := map[int]bool{}
	var gs []*rtl.Node
	add := func(x *rtl.Node) {
		if !seen[x.ID] {
			seen[x.ID] = true
			gs = append(gs, x)
		}
	}
	for id := n.ID; id < len(p.f.Nodes); id++ {
		x := p.f.Nodes[id]
		if id != n.ID && !cone[id] {
			continue
		}
		for _, a := range x.Args {
			if !out(a) {
				continue
			}
			switch {
			case (x.Op == rtl.OpAnd || x.Op == rtl.OpOr) && x.Width == 1 && a.Width == 1:
				add(a)
			case a.Op == rtl.OpROM && a.Args[0].Width <= romSplitBits && out(a.Args[0]):
				add(a.Args[0])
			}
		}
	}
	slices.SortFunc(gs, func(a, b *rtl.Node) int { return a.ID - b.ID })
	return gs
}

// guardProof proves mu in case c (whose analysis is kb) by splitting it
// over the values of the first guard kb does not know (guards: see
// guards; a 1-bit guard into 0 and 1, an address into each value of its
// interval), each value settled as a case of its own: no input, the
// change absorbed, or (depth > 0) split again over the next guards. The
// values together cover every input of c, and a guard is outside the
// mutated node's cone, so it has the same value in the original and the
// mutant: a proof in every value is a proof for c.
func (p *prover) guardProof(mu Mutant, c cond, kb []known, guards []*rtl.Node, depth int, under func(...*bound) ([]known, bool, bool)) bool {
	for i, g := range guards {
		k := kb[g.ID]
		if !k.rng || k.lo == k.hi {
			continue
		}
		if k.hi-k.lo >= 1<<romSplitBits {
			return false
		}
		for v := k.lo; v <= k.hi; v++ {
			cv := append(append(cond{}, c...), &bound{id: g.ID, lo: v, hi: v})
			kc, met, ran := under(append(append(cond{}, cv...), p.assume...)...)
			switch {
			case !ran:
				return false
			case !met, p.forwardKB(mu, kc) != "":
			case depth > 0 && p.guardProof(mu, cv, kc, guards[i+1:], depth-1, under):
			default:
				return false
			}
		}
		return true
	}
	return false
}
