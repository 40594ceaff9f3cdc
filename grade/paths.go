package grade

import (
	"fmt"
	"math/big"
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

// Rule 9: affine forms (linear relations between unchanged nodes).
//
// linearProof follows a mutant's change through the logic as exact
// integer affine forms c + sum k_i * a_i over atoms a_i: nodes outside
// the mutated node's cone (so of the same value in the original and the
// mutant), each within its value-analysis interval. Sums, differences,
// products and left shifts by constants, extensions and low slices keep
// a node's value as a form (its unsigned reading, reduced mod 2^W when
// the form's bounds lie in one window of 2^W; otherwise the case is split
// at the window's edge, a linear constraint on the atoms); a compare
// whose forms' difference is bounded away from 0 is a constant, an
// undecided one splits the case by its truth; a mux with a decided
// select is its arm. The bounds of a form come from its atoms' intervals
// and from the constraints of the case (the case's own condition, such
// as the two operands of a flipped compare being equal, and its splits),
// which also narrow the atoms (integer bound propagation). Where a
// changed node has the same form in the original and the mutant, the
// change is absorbed there; a case where every changed value is absorbed
// before an output, or where the constraints admit no integer point, is
// proved. Sound: forms are exact, atoms are the same in both, the splits
// partition the case and each constraint holds for every input of its
// part.

// linLeaves bounds the cases (leaves of the splits) one mutant's affine
// proof may evaluate; past it the rule gives up (sound: it proves less).
const linLeaves = 96

// linSplits bounds the splits one mutant's affine proof may make (each a
// re-evaluation of its case).
const linSplits = 400

// linDepth bounds how deep the forms of unchanged nodes are built (deeper
// nodes are atoms).
const linDepth = 10

// term is k * (the value of node id).
type term struct {
	id int
	k  *big.Int
}

// form is the exact integer c + sum t[i].k * node t[i].id (ids ascending,
// no zero coefficient).
type form struct {
	c *big.Int
	t []term
}

func constForm(v *big.Int) form { return form{c: new(big.Int).Set(v)} }

func atomForm(id int) form { return form{c: new(big.Int), t: []term{{id, big.NewInt(1)}}} }

// plus returns f + s*g (s = 1 or -1).
func (f form) plus(g form, s int64) form {
	r := form{c: new(big.Int).Add(f.c, new(big.Int).Mul(g.c, big.NewInt(s)))}
	i, j := 0, 0
	for i < len(f.t) || j < len(g.t) {
		switch {
		case j == len(g.t) || i < len(f.t) && f.t[i].id < g.t[j].id:
			r.t = append(r.t, f.t[i])
			i++
		case i == len(f.t) || g.t[j].id < f.t[i].id:
			r.t = append(r.t, term{g.t[j].id, new(big.Int).Mul(g.t[j].k, big.NewInt(s))})
			j++
		default:
			if k := new(big.Int).Add(f.t[i].k, new(big.Int).Mul(g.t[j].k, big.NewInt(s))); k.Sign() != 0 {
				r.t = append(r.t, term{f.t[i].id, k})
			}
			i++
			j++
		}
	}
	return r
}

// times returns k * f.
func (f form) times(k *big.Int) form {
	if k.Sign() == 0 {
		return constForm(new(big.Int))
	}
	r := form{c: new(big.Int).Mul(f.c, k)}
	for _, x := range f.t {
		r.t = append(r.t, term{x.id, new(big.Int).Mul(x.k, k)})
	}
	return r
}

// addConst returns f + v.
func (f form) addConst(v *big.Int) form {
	r := f
	r.c = new(big.Int).Add(f.c, v)
	return r
}

func (f form) equal(g form) bool {
	if f.c.Cmp(g.c) != 0 || len(f.t) != len(g.t) {
		return false
	}
	for i := range f.t {
		if f.t[i].id != g.t[i].id || f.t[i].k.Cmp(g.t[i].k) != 0 {
			return false
		}
	}
	return true
}

// linear returns f without its constant.
func (f form) linear() form { return form{c: new(big.Int), t: f.t} }

// sym is what the affine analysis knows of a node in one case: a form,
// or (opaque) nothing: a changed node it cannot follow.
type sym struct {
	opaque bool
	f      form
}

// lincon is the constraint lo <= l <= hi on a linear form l (no constant).
type lincon struct {
	l      form
	lo, hi *big.Int
}

// linState is one case of the affine analysis.
type linState struct {
	p       *prover
	kb      []known
	cons    []lincon
	atom    map[int][2]*big.Int // atoms' intervals narrowed by the constraints
	nodeB   map[int][]*bound    // the case's bounds on nodes
	memo    map[int]sym         // unchanged nodes
	bad     bool                // the constraints admit no point: no input
	pending *linSplit
}

// linSplit is a case split: each alternative adds one constraint.
type linSplit struct{ alts []lincon }

func (s *linState) clone() *linState {
	c := *s
	c.cons = slices.Clone(s.cons)
	c.atom = make(map[int][2]*big.Int, len(s.atom))
	for k, v := range s.atom {
		c.atom[k] = v
	}
	c.memo = map[int]sym{}
	c.pending = nil
	return &c
}

func pow2(k int) *big.Int { return new(big.Int).Lsh(big.NewInt(1), uint(k)) }

// atomRange is the interval of node id's value in this case.
func (s *linState) atomRange(id int) (lo, hi *big.Int) {
	if r, ok := s.atom[id]; ok {
		return r[0], r[1]
	}
	n := s.p.f.Nodes[id]
	k := s.kb[id]
	switch {
	case n.Width <= 64 && k.rng:
		return new(big.Int).SetUint64(k.lo), new(big.Int).SetUint64(k.hi)
	case n.Width > 64 && k.wrng:
		return k.wlo.Big(), k.whi.Big()
	}
	return k.one.Big(), ones(n.Width).And(k.zero.Not()).Big()
}

// box bounds f by its atoms' intervals alone.
func (s *linState) box(f form) (lo, hi *big.Int) {
	lo, hi = new(big.Int).Set(f.c), new(big.Int).Set(f.c)
	for _, x := range f.t {
		al, ah := s.atomRange(x.id)
		a, b := new(big.Int).Mul(x.k, al), new(big.Int).Mul(x.k, ah)
		if x.k.Sign() < 0 {
			a, b = b, a
		}
		lo.Add(lo, a)
		hi.Add(hi, b)
	}
	return lo, hi
}

// ratio returns q such that f's coefficients on g's atoms are q times
// g's (g's atoms all in f), or nil.
func ratio(f, g form) *big.Int {
	var q *big.Int
	i := 0
	for _, y := range g.t {
		for i < len(f.t) && f.t[i].id < y.id {
			i++
		}
		if i == len(f.t) || f.t[i].id != y.id {
			return nil
		}
		r, m := new(big.Int).QuoRem(f.t[i].k, y.k, new(big.Int))
		if m.Sign() != 0 || r.Sign() == 0 || q != nil && q.Cmp(r) != 0 {
			return nil
		}
		q = r
	}
	return q
}

// bounds bounds f by the atoms' intervals and, for each constraint lo <=
// g <= hi whose atoms f holds in proportion q, by q*[lo, hi] plus the box
// of the rest of f.
func (s *linState) bounds(f form) (lo, hi *big.Int) {
	lo, hi = s.box(f)
	for _, c := range s.cons {
		q := ratio(f, c.l)
		if q == nil {
			continue
		}
		rl, rh := s.box(f.plus(c.l.times(q), -1))
		a, b := new(big.Int).Mul(q, c.lo), new(big.Int).Mul(q, c.hi)
		if q.Sign() < 0 {
			a, b = b, a
		}
		if a.Add(a, rl); a.Cmp(lo) > 0 {
			lo = a
		}
		if b.Add(b, rh); b.Cmp(hi) < 0 {
			hi = b
		}
	}
	return lo, hi
}

// floorDiv and ceilDiv divide rounding toward -inf and +inf (b != 0).
func floorDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
	}
	return q
}

func ceilDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) == (b.Sign() < 0) {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// narrow intersects atom id's interval with [lo, hi]; false when empty.
func (s *linState) narrow(id int, lo, hi *big.Int) bool {
	al, ah := s.atomRange(id)
	if lo != nil && lo.Cmp(al) > 0 {
		al = lo
	}
	if hi != nil && hi.Cmp(ah) < 0 {
		ah = hi
	}
	s.atom[id] = [2]*big.Int{al, ah}
	return al.Cmp(ah) <= 0
}

// constrain adds lo <= f <= hi (f may hold a constant) and propagates it
// to the atoms; it marks the case empty when no integer point is left.
func (s *linState) constrain(f form, lo, hi *big.Int) {
	if s.bad {
		return
	}
	lo, hi = new(big.Int).Sub(lo, f.c), new(big.Int).Sub(hi, f.c)
	l := f.linear()
	if len(l.t) == 0 {
		s.bad = lo.Sign() > 0 || hi.Sign() < 0
		return
	}
	merged := false
	for i, c := range s.cons {
		if c.l.equal(l) {
			if lo.Cmp(c.lo) < 0 {
				lo = c.lo
			}
			if hi.Cmp(c.hi) > 0 {
				hi = c.hi
			}
			s.cons[i] = lincon{l, lo, hi}
			merged = true
		}
	}
	if !merged {
		s.cons = append(s.cons, lincon{l, lo, hi})
	}
	s.propagate()
}

// propagate narrows each atom of each constraint by the bounds of the
// rest of the constraint (integer division), a few rounds, and checks
// every constraint still meets its bounds.
func (s *linState) propagate() {
	for round := 0; round < 4 && !s.bad; round++ {
		for _, c := range s.cons {
			if c.lo.Cmp(c.hi) > 0 {
				s.bad = true
				return
			}
			for _, x := range c.l.t {
				rest := c.l.plus(form{c: new(big.Int), t: []term{x}}, -1)
				rl, rh := s.bounds(rest)
				a, b := new(big.Int).Sub(c.lo, rh), new(big.Int).Sub(c.hi, rl) // k*x in [a, b]
				var lo, hi *big.Int
				if x.k.Sign() > 0 {
					lo, hi = ceilDiv(a, x.k), floorDiv(b, x.k)
				} else {
					lo, hi = ceilDiv(b, x.k), floorDiv(a, x.k)
				}
				if !s.narrow(x.id, lo, hi) {
					s.bad = true
					return
				}
			}
			if lo, hi := s.bounds(c.l); lo.Cmp(c.hi) > 0 || hi.Cmp(c.lo) < 0 {
				s.bad = true
				return
			}
		}
	}
}

// reduce returns f's value as a w-bit node: f - m*2^w when f's bounds lie
// in [m*2^w, (m+1)*2^w), with a single value made a constant; otherwise
// it asks to split the case at the window edge (ok false).
func (s *linState) reduce(f form, w int) (form, bool) {
	f = dropMultiples(f, w)
	lo, hi := s.bounds(f)
	if lo.Cmp(hi) > 0 {
		s.bad = true
		return f, false
	}
	m := floorDiv(lo, pow2(w))
	edge := new(big.Int).Mul(new(big.Int).Add(m, big.NewInt(1)), pow2(w))
	if hi.Cmp(edge) >= 0 {
		s.pending = &linSplit{alts: []lincon{
			{f, lo, new(big.Int).Sub(edge, big.NewInt(1))},
			{f, edge, hi},
		}}
		return f, false
	}
	r := f.addConst(new(big.Int).Neg(new(big.Int).Mul(m, pow2(w))))
	if lo.Cmp(hi) == 0 {
		return constForm(r.c.Add(r.c, new(big.Int).Sub(lo, f.c))), true
	}
	return r, true
}

// dropMultiples returns f with each coefficient reduced mod 2^w to the
// residue nearest 0 (in (-2^(w-1), 2^(w-1)]; terms whose coefficient is a
// multiple of 2^w dropped) and its constant reduced to [0, 2^w): the
// same value mod 2^w (the atoms are integers).
func dropMultiples(f form, w int) form {
	m := pow2(w)
	r := form{c: new(big.Int).Mod(f.c, m)}
	for _, x := range f.t {
		k := new(big.Int).Mod(x.k, m)
		if new(big.Int).Lsh(k, 1).Cmp(m) > 0 {
			k.Sub(k, m)
		}
		if k.Sign() != 0 {
			r.t = append(r.t, term{x.id, k})
		}
	}
	return r
}

// shiftDown returns floor(f / 2^k) as a form: f = 2^k * g + r with each
// coefficient of r in (-2^(k-1), 2^(k-1)] and its constant in [0, 2^k), and floor(r / 2^k) = m when r's bounds
// lie in one window of 2^k (g + m); otherwise it asks to split the case
// at the window's edge (ok false).
func (s *linState) shiftDown(f form, k int) (form, bool) {
	d := pow2(k)
	g := form{c: new(big.Int)}
	r := form{c: new(big.Int)}
	g.c.DivMod(f.c, d, r.c)
	for _, x := range f.t {
		q, m := new(big.Int).DivMod(x.k, d, new(big.Int))
		if new(big.Int).Lsh(m, 1).Cmp(d) > 0 { // the remainder nearest 0: -1, not 2^k - 1
			m.Sub(m, d)
			q.Add(q, big.NewInt(1))
		}
		if q.Sign() != 0 {
			g.t = append(g.t, term{x.id, q})
		}
		if m.Sign() != 0 {
			r.t = append(r.t, term{x.id, m})
		}
	}
	lo, hi := s.bounds(r)
	if lo.Cmp(hi) > 0 {
		s.bad = true
		return f, false
	}
	m := floorDiv(lo, d)
	if edge := new(big.Int).Mul(new(big.Int).Add(m, big.NewInt(1)), d); hi.Cmp(edge) >= 0 {
		s.pending = &linSplit{alts: []lincon{
			{r, lo, new(big.Int).Sub(edge, big.NewInt(1))},
			{r, edge, hi},
		}}
		return f, false
	}
	return g.addConst(m), true
}

// unchanged returns the form of a node outside the changed set (the same
// in the original and the mutant), building it from its operands up to
// depth levels (an atom past that, or where the op is not followed, or
// where its value would need a split and the case has no bound on it).
func (s *linState) unchanged(n *rtl.Node, depth int) (sym, bool) {
	if r, ok := s.memo[n.ID]; ok {
		return r, true
	}
	r := sym{f: atomForm(n.ID)}
	if n.Op == rtl.OpConst {
		r = sym{f: constForm(n.Value.Big())}
	} else if depth > 0 && len(n.Args) > 0 {
		args := make([]sym, len(n.Args))
		for i, a := range n.Args {
			x, ok := s.unchanged(a, depth-1)
			if !ok {
				return sym{}, false
			}
			args[i] = x
		}
		x, ok := s.eval(n, shapeOf(n), args, false)
		if !ok && s.pending != nil && len(s.nodeB[n.ID]) == 0 && n.Op != rtl.OpMux {
			s.pending, ok = nil, true // keep the node whole: an atom
		} else if !ok {
			return sym{}, false
		} else {
			r = x
		}
	}
	for _, b := range s.nodeB[n.ID] {
		if !b.wide && !r.opaque {
			s.constrain(r.f, new(big.Int).SetUint64(b.lo), new(big.Int).SetUint64(b.hi))
		}
	}
	if s.bad {
		return sym{}, false
	}
	s.memo[n.ID] = r
	return r, true
}

// bit returns a 1-bit form's value when it is constant.
func (s *linState) bit(x sym) (isConst, v bool) {
	if x.opaque {
		return false, false
	}
	if len(x.f.t) > 0 {
		lo, hi := s.bounds(x.f)
		if lo.Cmp(hi) != 0 {
			return false, false
		}
		return true, lo.Sign() != 0
	}
	return true, x.f.c.Sign() != 0
}

// eval computes node n as shape sh of operands args in this case. ok
// false: a split is pending (s.pending) or the case is empty (s.bad). A
// node it does not follow is opaque in the cone and an atom outside it.
func (s *linState) eval(n *rtl.Node, sh shape, args []sym, inCone bool) (sym, bool) {
	w := n.Width
	none := sym{opaque: true}
	if !inCone {
		none = sym{f: atomForm(n.ID)}
	}
	red := func(f form) (sym, bool) {
		r, ok := s.reduce(f, w)
		return sym{f: r}, ok
	}
	for i, a := range args {
		if !a.opaque {
			if len(a.f.t) > 0 { // a single value is a constant
				if lo, hi := s.bounds(a.f); lo.Cmp(hi) == 0 {
					args[i] = sym{f: constForm(lo)}
				}
			}
			continue
		}
		// Only a decided mux, or an and (or) with a 0 (1), passes over
		// an unknown operand.
		switch {
		case sh.op == rtl.OpMux && i > 0:
			if is, v := s.bit(args[0]); is && v == (i == 2) {
				continue
			}
		case (sh.op == rtl.OpAnd || sh.op == rtl.OpOr) && w == 1:
			if is, v := s.bit(args[1-i]); is && v == (sh.op == rtl.OpOr) {
				continue
			}
		}
		return none, true
	}
	switch sh.op {
	case rtl.OpConst:
		return sym{f: constForm(sh.value.Big())}, true
	case rtl.OpAdd, rtl.OpSub:
		sg := int64(1)
		if sh.op == rtl.OpSub {
			sg = -1
		}
		return red(args[0].f.plus(args[1].f, sg))
	case rtl.OpMul:
		if sh.signed {
			return none, true
		}
		for i := range 2 {
			if len(args[i].f.t) == 0 {
				return red(args[1-i].f.times(args[i].f.c))
			}
		}
	case rtl.OpShlC:
		return red(args[0].f.times(pow2(sh.k)))
	case rtl.OpZExt, rtl.OpAs:
		return args[0], true
	case rtl.OpSExt:
		aw := n.Args[0].Width
		lo, hi := s.bounds(args[0].f)
		half := pow2(aw - 1)
		switch {
		case hi.Cmp(half) < 0:
			return args[0], true
		case lo.Cmp(half) >= 0:
			return red(args[0].f.addConst(new(big.Int).Sub(pow2(w), pow2(aw))))
		}
		s.pending = &linSplit{alts: []lincon{
			{args[0].f, lo, new(big.Int).Sub(half, big.NewInt(1))},
			{args[0].f, half, hi},
		}}
		return sym{}, false
	case rtl.OpSlice, rtl.OpLShrC:
		f := args[0].f
		if len(f.t) == 0 {
			v := new(big.Int).Rsh(f.c, uint(sh.k))
			if sh.op == rtl.OpSlice {
				v.And(v, new(big.Int).Sub(pow2(w), big.NewInt(1)))
			}
			return sym{f: constForm(v)}, true
		}
		if sh.k == 0 {
			if _, hi := s.bounds(f); hi.Cmp(pow2(w)) < 0 {
				return args[0], true
			}
		}
		g, ok := s.shiftDown(f, sh.k)
		if !ok {
			return sym{}, false
		}
		// The slice's own wrap (its top bits dropped) is not split: a
		// value that wraps there is left unknown.
		if r, ok := s.reduce(g, w); ok {
			return sym{f: r}, true
		} else if s.bad {
			return sym{}, false
		}
		s.pending = nil
	case rtl.OpMux:
		if is, v := s.bit(args[0]); is {
			if v {
				return args[1], true
			}
			return args[2], true
		}
		if args[1].f.equal(args[2].f) && !args[1].opaque {
			return args[1], true
		}
		return s.splitOn(n.Args[0], args[0])
	case rtl.OpNot:
		if is, v := s.bit(args[0]); is && w == 1 {
			return sym{f: constForm(big.NewInt(int64(b2u(!v))))}, true
		}
	case rtl.OpAnd, rtl.OpOr:
		if w == 1 {
			absorb := sh.op == rtl.OpOr // the absorbing value: 0 for and, 1 for or
			var rest []sym
			for _, a := range args {
				if is, v := s.bit(a); is {
					if v != absorb {
						continue // the neutral value
					}
					return sym{f: constForm(big.NewInt(int64(b2u(absorb))))}, true
				}
				rest = append(rest, a)
			}
			switch len(rest) {
			case 0:
				return sym{f: constForm(big.NewInt(int64(b2u(!absorb))))}, true
			case 1:
				return rest[0], true
			}
		}
	case rtl.OpEq, rtl.OpNe, rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		if sh.argSigned {
			return none, true
		}
		d := args[0].f.plus(args[1].f, -1)
		lo, hi := s.bounds(d)
		var dec, v bool
		switch sh.op {
		case rtl.OpEq, rtl.OpNe:
			dec = lo.Sign() > 0 || hi.Sign() < 0 || lo.Sign() == 0 && hi.Sign() == 0
			v = lo.Sign() == 0 && hi.Sign() == 0
			if sh.op == rtl.OpNe {
				v = !v
			}
		case rtl.OpLt, rtl.OpGe:
			dec, v = hi.Sign() < 0 || lo.Sign() >= 0, hi.Sign() < 0
			if sh.op == rtl.OpGe {
				v = !v
			}
		case rtl.OpLe, rtl.OpGt:
			dec, v = hi.Sign() <= 0 || lo.Sign() > 0, hi.Sign() <= 0
			if sh.op == rtl.OpGt {
				v = !v
			}
		}
		if dec {
			return sym{f: constForm(big.NewInt(int64(b2u(v))))}, true
		}
		if inCone {
			// Split by the compare's truth: d < 0, d = 0, d > 0 (each a
			// constraint; empty parts drop out).
			s.pending = &linSplit{alts: []lincon{
				{d, lo, big.NewInt(-1)}, {d, big.NewInt(0), big.NewInt(0)}, {d, big.NewInt(1), hi},
			}}
			return sym{}, false
		}
	}
	return none, true
}

// splitOn asks to split the case by the value of the select sel (outside
// the changed set, or its form undecided): by its compare's truth when it
// is an unsigned compare of forms, else by its two values.
func (s *linState) splitOn(sel *rtl.Node, x sym) (sym, bool) {
	if x.opaque {
		return sym{opaque: true}, true
	}
	if isCompare(sel.Op) && !sel.Args[0].Signed && s.memo != nil {
		a, ok1 := s.memo[sel.Args[0].ID]
		b, ok2 := s.memo[sel.Args[1].ID]
		if ok1 && ok2 && !a.opaque && !b.opaque {
			d := a.f.plus(b.f, -1)
			lo, hi := s.bounds(d)
			s.pending = &linSplit{alts: []lincon{
				{d, lo, big.NewInt(-1)}, {d, big.NewInt(0), big.NewInt(0)}, {d, big.NewInt(1), hi},
			}}
			return sym{}, false
		}
	}
	s.pending = &linSplit{alts: []lincon{{x.f, big.NewInt(0), big.NewInt(0)}, {x.f, big.NewInt(1), big.NewInt(1)}}}
	return sym{}, false
}

// linRun evaluates the changed set of mu in case s: true when every
// changed value is absorbed before an output; false with s.pending set
// when a split is needed, or with s.bad when the case is empty.
func (s *linState) linRun(mu Mutant) bool {
	n := s.p.f.Nodes[mu.NodeID]
	type pair struct{ o, m sym }
	changed := map[int]pair{}
	get := func(a *rtl.Node) (sym, sym, bool) {
		if c, ok := changed[a.ID]; ok {
			return c.o, c.m, true
		}
		x, ok := s.unchanged(a, linDepth)
		return x, x, ok
	}
	for id := n.ID; id < len(s.p.f.Nodes); id++ {
		x := s.p.f.Nodes[id]
		hit := id == n.ID
		for _, a := range x.Args {
			if _, ok := changed[a.ID]; ok {
				hit = true
			}
		}
		if !hit {
			continue
		}
		oa, ma := make([]sym, len(x.Args)), make([]sym, len(x.Args))
		for i, a := range x.Args {
			o, m, ok := get(a)
			if !ok {
				return false
			}
			oa[i], ma[i] = o, m
		}
		o, ok := s.eval(x, shapeOf(x), oa, true)
		if !ok {
			return false
		}
		var m sym
		if id == n.ID {
			sh := shapeOf(x)
			switch mu.Operator {
			case ConstInc, ConstDec, ConstMSB:
				sh.value = mu.value
			case ROMInc, ROMDec:
				sh.rom = slices.Clone(x.ROM)
				sh.rom[mu.k] = mu.value
			case OpSwap, CmpFlip:
				sh.op = mu.newOp
			case ShiftInc, ShiftDec, SliceInc, SliceDec:
				sh.k = mu.k
			case MuxSwap:
				ma[1], ma[2] = ma[2], ma[1]
			case ExtSwap:
				sh.op = rtl.OpZExt
				if x.Op == rtl.OpZExt {
					sh.op = rtl.OpSExt
				}
			case MulSign:
				sh.signed = !sh.signed
			case CmpSign:
				sh.argSigned = !sh.argSigned
			}
			if mu.Operator == NotDrop {
				m = ma[0]
			} else if m, ok = s.eval(x, sh, ma, true); !ok {
				return false
			}
		} else if m, ok = s.eval(x, shapeOf(x), ma, true); !ok {
			return false
		}
		if !o.opaque && !m.opaque && o.f.equal(m.f) {
			s.memo[id] = o
			continue
		}
		if s.p.outs[id] || len(changed) >= maxForward {
			return false
		}
		changed[id] = pair{o, m}
	}
	return true
}

// linearProof is rule 9 (see linState): for each case of where the mutant
// can differ (pathCases' conditions, expanded; for an off-by-one flip of
// a compare of two non-constant operands, where the operands are equal),
// every part of the case's splits is empty or absorbs the change.
func (p *prover) linearProof(mu Mutant) string {
	n := p.f.Nodes[mu.NodeID]
	cases, what := p.pathCases(mu)
	var eq *rtl.Node // a flipped compare whose operands are equal in its case
	if mu.Operator == CmpFlip && isCompare(n.Op) && !n.Args[0].Signed {
		lt := func(o rtl.Op) bool { return o == rtl.OpLt || o == rtl.OpLe }
		gt := func(o rtl.Op) bool { return o == rtl.OpGt || o == rtl.OpGe }
		if lt(n.Op) && lt(mu.newOp) || gt(n.Op) && gt(mu.newOp) {
			eq = n
			what = "where the flipped compare's operands are equal"
			if cases == nil {
				cases = []cond{nil}
			}
		}
	}
	if cases == nil {
		cases, what = []cond{nil}, "anywhere"
	}
	leaves, empty, splits := 0, 0, 0
	for _, c := range cases {
		c = p.expand(c, false)[0]
		kb, ok := knownBitsUnder(p.f, append(append(cond{}, c...), p.assume...)...)
		if !ok {
			leaves++
			empty++
			continue
		}
		s := &linState{p: p, kb: kb, atom: map[int][2]*big.Int{}, nodeB: map[int][]*bound{}, memo: map[int]sym{}}
		for _, b := range c {
			s.nodeB[b.id] = append(s.nodeB[b.id], b)
		}
		queue := []*linState{s}
		for len(queue) > 0 {
			s := queue[len(queue)-1]
			queue = queue[:len(queue)-1]
			if leaves++; leaves > linLeaves {
				return ""
			}
			s.memo = map[int]sym{}
			if eq != nil {
				a, ok1 := s.unchanged(eq.Args[0], linDepth)
				b, ok2 := s.unchanged(eq.Args[1], linDepth)
				if ok1 && ok2 {
					s.constrain(a.f.plus(b.f, -1), big.NewInt(0), big.NewInt(0))
				}
			}
			if !s.bad && s.pending == nil && s.linRun(mu) {
				continue
			}
			switch {
			case s.bad:
				empty++
			case s.pending != nil:
				leaves--
				if splits++; splits > linSplits {
					return ""
				}
				for _, alt := range s.pending.alts {
					if alt.lo.Cmp(alt.hi) > 0 {
						continue
					}
					t := s.clone()
					t.constrain(alt.l, alt.lo, alt.hi)
					if t.bad {
						leaves++
						empty++
						continue
					}
					queue = append(queue, t)
				}
			default:
				return ""
			}
		}
	}
	return fmt.Sprintf("the outputs can change only %s: followed as exact affine forms of unchanged nodes (linear relations, split where a value wraps or a compare is undecided), %d cases, %d met by no input, and in the rest the change is absorbed before any output", what, leaves, empty)
}
