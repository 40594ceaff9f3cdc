package grade

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/rtl"
)

// maxEnumBits bounds the operand bits a proof enumerates: 2^16 operand
// combinations, each one evaluation of a two-node module.
const maxEnumBits = 16

func ones(w int) rtl.Bits { return rtl.Bits{}.Not().Trunc(w) }

// topBit returns the index of the highest set bit of b, or -1.
func topBit(b rtl.Bits) int { return rtl.MaxWidth - 1 - b.LeadingZeros(rtl.MaxWidth) }

// demanded returns, per node of the flat combinational module f, the bits
// of its value that can affect an output port: a sound over-approximation
// by a backward pass in reverse topological order (the reverse of node
// IDs). Bits outside a node's mask can take any value without changing any
// output for any input. Rules: outputs demand every bit; and/or demand of
// each operand only the bits the other operand does not force (its known
// zeros for and, its known ones for or, see knownBits); xor, not and the data inputs of a mux pass the demand
// through (a mux select is demanded whole); add and sub demand every bit up
// to the highest demanded one (carries run upward only); slices,
// constant shifts, extensions, reinterpretations and concatenations move
// the demand to the operand bits that feed the demanded bits; every other
// op (products, compares, variable shifts, ROM addresses) demands its
// operands whole.
func demanded(f *rtl.Module, kb []known) []rtl.Bits {
	d := make([]rtl.Bits, len(f.Nodes))
	for _, p := range f.Outputs {
		d[p.Node.ID] = d[p.Node.ID].Or(ones(p.Node.Width))
	}
	put := func(a *rtl.Node, m rtl.Bits) { d[a.ID] = d[a.ID].Or(m.Trunc(a.Width)) }
	for i := len(f.Nodes) - 1; i >= 0; i-- {
		n := f.Nodes[i]
		dn := d[i]
		if dn.IsZero() {
			continue
		}
		w := n.Width
		switch n.Op {
		case rtl.OpInput, rtl.OpConst:
		case rtl.OpAnd, rtl.OpOr:
			for j, a := range n.Args {
				o := kb[n.Args[1-j].ID]
				if n.Op == rtl.OpAnd {
					put(a, dn.And(o.zero.Not()))
				} else {
					put(a, dn.And(o.one.Not()))
				}
			}
		case rtl.OpXor, rtl.OpNot:
			for _, a := range n.Args {
				put(a, dn)
			}
		case rtl.OpAdd, rtl.OpSub:
			for _, a := range n.Args {
				put(a, ones(topBit(dn)+1))
			}
		case rtl.OpMux:
			put(n.Args[0], ones(1))
			put(n.Args[1], dn)
			put(n.Args[2], dn)
		case rtl.OpSlice:
			put(n.Args[0], dn.Shl(uint(n.K)))
		case rtl.OpShlC:
			put(n.Args[0], dn.Shr(uint(n.K)))
		case rtl.OpLShrC:
			put(n.Args[0], dn.Shl(uint(n.K)))
		case rtl.OpAShrC:
			m := dn.Shl(uint(n.K))
			if topBit(dn) >= w-1-n.K {
				m = m.Or(rtl.BitsOf(1).Shl(uint(w - 1)))
			}
			put(n.Args[0], m)
		case rtl.OpZExt, rtl.OpAs:
			put(n.Args[0], dn)
		case rtl.OpSExt:
			aw := n.Args[0].Width
			m := dn
			if topBit(dn) >= aw-1 {
				m = m.Or(rtl.BitsOf(1).Shl(uint(aw - 1)))
			}
			put(n.Args[0], m)
		case rtl.OpConcat:
			off := 0
			for j := len(n.Args) - 1; j >= 0; j-- {
				a := n.Args[j]
				put(a, dn.Shr(uint(off)))
				off += a.Width
			}
		default:
			for _, a := range n.Args {
				put(a, ones(a.Width))
			}
		}
	}
	return d
}

// prover decides whether surviving mutants are equivalent to the original
// module.
type prover struct {
	// assumed names the assumptions the analysis uses ("" for none);
	// assume are their bounds.
	assumed string
	assume  []*bound
	f       *rtl.Module
	kb      []known
	dem     []rtl.Bits
	users   [][]*rtl.Node // per node, the nodes that read it (each once)
	outs    []bool        // per node, drives an output port
}

func newProver(f *rtl.Module) *prover { return newProverKB(f, knownBits(f)) }

func newProverKB(f *rtl.Module, kb []known) *prover {
	p := &prover{f: f, kb: kb, dem: demanded(f, kb), users: make([][]*rtl.Node, len(f.Nodes)), outs: make([]bool, len(f.Nodes))}
	for _, n := range f.Nodes {
		for i, a := range n.Args {
			if i == 0 || a != n.Args[i-1] {
				p.users[a.ID] = append(p.users[a.ID], n)
			}
		}
	}
	for _, o := range f.Outputs {
		p.outs[o.Node.ID] = true
	}
	return p
}

// near returns the first node with a readable name (not n_<id>), or
// driving an output port ("output <port>"), found breadth-first from n
// through its readers, n itself first: where an anonymous node sits in the
// description (h0_eg_carry, ovf_hi_236).
func (p *prover) near(n *rtl.Node) string {
	seen := map[int]bool{n.ID: true}
	queue := []*rtl.Node{n}
	for len(queue) > 0 {
		x := queue[0]
		queue = queue[1:]
		if x.Name != "n_"+strconv.Itoa(x.ID) {
			return x.Name
		}
		if p.outs[x.ID] {
			for _, o := range p.f.Outputs {
				if o.Node == x {
					return "output " + o.Name
				}
			}
		}
		for _, u := range p.users[x.ID] {
			if !seen[u.ID] {
				seen[u.ID] = true
				queue = append(queue, u)
			}
		}
	}
	return ""
}

// reaches returns the output ports whose value depends on node n (its
// transitive readers), in port order.
func (p *prover) reaches(n *rtl.Node) []string {
	seen := make([]bool, len(p.f.Nodes))
	stack := []*rtl.Node{n}
	seen[n.ID] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, u := range p.users[x.ID] {
			if !seen[u.ID] {
				seen[u.ID] = true
				stack = append(stack, u)
			}
		}
	}
	var out []string
	for _, o := range p.f.Outputs {
		if seen[o.Node.ID] {
			out = append(out, o.Name)
		}
	}
	return out
}

// prove returns a proof that mu cannot change any output of the flat
// module for any input, or "" when it finds none. The proof bounds the
// bits in which the mutated node can differ from the original node and
// checks that no output observes them (demanded).
func (p *prover) prove(mu Mutant) (string, error) {
	n := p.f.Nodes[mu.NodeID]
	w := n.Width
	dem := p.dem[n.ID]
	if proof := p.boundary(mu); proof != "" {
		return proof, nil
	}
	if proof := p.forward(mu); proof != "" {
		return proof, nil
	}
	if proof := p.conditional(mu); proof != "" {
		return proof, nil
	}
	if proof := p.pathProof(mu); proof != "" {
		return proof, nil
	}
	if proof := p.linearProof(mu); proof != "" {
		return proof, nil
	}
	if proof, err := p.exhaustProof(mu); err != nil || proof != "" {
		return proof, err
	}
	var diff rtl.Bits
	var how string
	switch {
	case mu.Operator == ConstInc || mu.Operator == ConstDec || mu.Operator == ConstMSB:
		diff, how = n.Value.Xor(mu.value), "the constants differ"
	case mu.Operator == ROMInc || mu.Operator == ROMDec:
		if a := p.kb[n.Args[0].ID]; a.rng && (uint64(mu.k) < a.lo || uint64(mu.k) > a.hi) {
			return fmt.Sprintf("entry %d is never read: the address %s lies in [%d, %d] (value ranges)", mu.k, n.Args[0].Name, a.lo, a.hi), nil
		}
		diff, how = n.ROM[mu.k].Xor(mu.value), fmt.Sprintf("entry %d differs", mu.k)
	case enumBits(n) <= maxEnumBits:
		d, k, err := p.enumerate(n, mu)
		if err != nil {
			return "", err
		}
		diff, how = d, fmt.Sprintf("over all %d operand values the results differ", k)
		if diff.IsZero() {
			return fmt.Sprintf("the mutated node equals the original for all %d operand values", k), nil
		}
	default:
		diff, how = p.knownDiff(n, mu)
	}
	if diff.IsZero() {
		return "the mutated node equals the original for every input: " + how, nil
	}
	if !diff.And(dem).IsZero() {
		return "", nil
	}
	return fmt.Sprintf("%s in bits 0x%s, which no output observes (observable bits 0x%s)", how, diff.Hex(w), dem.Hex(w)), nil
}

// enumBits is the total operand width of n (the enumeration's size in
// bits), or maxEnumBits+1 when an operand is wider than 64 bits.
func enumBits(n *rtl.Node) int {
	t := 0
	for _, a := range n.Args {
		if a.Width > 64 {
			return maxEnumBits + 1
		}
		t += a.Width
	}
	if len(n.Args) == 0 {
		return maxEnumBits + 1
	}
	return t
}

// enumerate evaluates the original and the mutated node on every
// combination of operand values (a module holding both, run by rtl.Sim)
// and returns the OR of their differences and the number of combinations.
func (p *prover) enumerate(n *rtl.Node, mu Mutant) (rtl.Bits, int, error) {
	c := rtl.NewModule("proof", "")
	args := make([]*rtl.Node, len(n.Args))
	for i, a := range n.Args {
		args[i] = c.In(fmt.Sprintf("a%d", i), a.Width, a.Signed)
	}
	orig := build(c, n, n.Op, args, n.K, n.Value, n.ROM)
	mut := mutated(c, n, args, &mu)
	if orig == nil || mut == nil {
		return rtl.Bits{}, 0, fmt.Errorf("grade: proof of mutant %s: node cannot be rebuilt", mu)
	}
	c.Out("orig", orig, "")
	c.Out("mut", mut, "")
	sim, err := rtl.NewSim(c)
	if err != nil {
		return rtl.Bits{}, 0, fmt.Errorf("grade: proof of mutant %s: %w", mu, err)
	}
	total := uint64(1) << uint(enumBits(n))
	var diff rtl.Bits
	for v := uint64(0); v < total; v++ {
		x := v
		for i, a := range n.Args {
			sim.SetInUint(i, x&(uint64(1)<<uint(a.Width)-1))
			x >>= uint(a.Width)
		}
		diff = diff.Or(sim.Out(0).Xor(sim.Out(1)))
	}
	return diff, int(total), nil
}

// known is what a forward analysis knows of a node's value for every
// input: bits certainly 0 (zero) and certainly 1 (one), never both; and,
// for nodes of at most 64 bits, an interval [lo, hi] of the value read as
// unsigned (rng false: no interval).
type known struct {
	zero, one rtl.Bits
	lo, hi    uint64
	rng       bool
	// wlo and whi bound the value of a node wider than 64 bits from
	// below and above (wrng false: only what its known bits say).
	wlo, whi rtl.Bits
	wrng     bool
}

// upper is an upper bound of the unsigned value of a w-bit node known as k.
func upper(k known, w int) rtl.Bits {
	switch {
	case w <= 64 && k.rng:
		return rtl.BitsOf(k.hi)
	case w > 64 && k.wrng:
		return k.whi
	}
	return ones(w).And(k.zero.Not())
}

// lower is a lower bound of the unsigned value of a w-bit node known as k
// (its interval's low end, else its known ones).
func lower(k known, w int) rtl.Bits {
	switch {
	case w <= 64 && k.rng:
		return rtl.BitsOf(k.lo)
	case w > 64 && k.wrng:
		return k.wlo
	}
	return k.one
}

// wideBounds bounds a node wider than 64 bits computed as s from operands
// known as args, from below and above: zero extension, slices and
// constant left shifts of a bounded operand, unsigned products and sums
// (when they cannot wrap, the products and sums of the operands' bounds),
// and muxes (the smaller and the larger arm).
func wideBounds(n *rtl.Node, s shape, args []known) (lo, hi rtl.Bits, ok bool) {
	w := n.Width
	aw := func(i int) int { return n.Args[i].Width }
	fits := func(x rtl.Bits) bool { return x.Cmp(ones(w)) <= 0 }
	switch s.op {
	case rtl.OpZExt:
		return lower(args[0], aw(0)), upper(args[0], aw(0)), true
	case rtl.OpAs:
		if !n.Signed && !n.Args[0].Signed {
			return lower(args[0], aw(0)), upper(args[0], aw(0)), true
		}
	case rtl.OpSExt:
		// The copies of a known sign bit: 0 (as zero extension) or all ones
		// above the operand (the bounds move up by them).
		if is, v := args[0].bit(aw(0) - 1); is {
			var ext rtl.Bits
			if v {
				ext = ones(w).Xor(ones(aw(0)))
			}
			return lower(args[0], aw(0)).Or(ext), upper(args[0], aw(0)).Or(ext), true
		}
	case rtl.OpSlice:
		if x := upper(args[0], aw(0)).Shr(uint(s.k)); fits(x) {
			return lower(args[0], aw(0)).Shr(uint(s.k)), x, true
		}
	case rtl.OpShlC:
		if u := upper(args[0], aw(0)); s.k < w && u.LeadingZeros(rtl.MaxWidth) > s.k {
			if x := u.Shl(uint(s.k)); fits(x) {
				return lower(args[0], aw(0)).Shl(uint(s.k)), x, true
			}
		}
	case rtl.OpMul:
		if !s.signed && aw(0)+aw(1) <= rtl.MaxWidth {
			return lower(args[0], aw(0)).Mul(lower(args[1], aw(1))), upper(args[0], aw(0)).Mul(upper(args[1], aw(1))), true
		}
	case rtl.OpAdd:
		if w < rtl.MaxWidth {
			if x := upper(args[0], w).Add(upper(args[1], w)); fits(x) {
				return lower(args[0], w).Add(lower(args[1], w)), x, true
			}
		}
	case rtl.OpMux:
		x, y := upper(args[1], w), upper(args[2], w)
		if x.Cmp(y) < 0 {
			x = y
		}
		l, m := lower(args[1], w), lower(args[2], w)
		if m.Cmp(l) < 0 {
			l = m
		}
		return l, x, true
	}
	return rtl.Bits{}, rtl.Bits{}, false
}

// widePrefix adds to k (a node of w > 64 bits with bounds) the bits every
// value of [wlo, whi] shares: the leading zeros of whi, and the bits above
// the highest one in which wlo and whi differ.
func widePrefix(k known, w int) known {
	k.zero = k.zero.Or(highZeros(w, k.whi.LeadingZeros(w)))
	if k.wlo.Cmp(k.whi) > 0 {
		return k
	}
	d := topBit(k.wlo.Xor(k.whi)) + 1 // bits [d, w) are common
	mask := ones(w).And(ones(d).Not())
	k.one = k.one.Or(k.wlo.And(mask))
	k.zero = k.zero.Or(k.wlo.Not().And(mask))
	return k
}

// leadZeros returns how many of the top bits of a w-bit node are known 0.
func (k known) leadZeros(w int) int {
	c := 0
	for i := w - 1; i >= 0 && k.zero.Bit(i); i-- {
		c++
	}
	return c
}

// trailZeros returns how many of the low bits are known 0.
func (k known) trailZeros(w int) int {
	c := 0
	for i := 0; i < w && k.zero.Bit(i); i++ {
		c++
	}
	return c
}

// bit returns whether bit i is known, and its value.
func (k known) bit(i int) (isKnown, v bool) {
	switch {
	case k.zero.Bit(i):
		return true, false
	case k.one.Bit(i):
		return true, true
	}
	return false, false
}

// equalBits returns the bits known to hold the same value in x and y.
func equalBits(x, y known) rtl.Bits { return x.zero.And(y.zero).Or(x.one.And(y.one)) }

// highZeros returns the mask of the top z bits of a w-bit value.
func highZeros(w, z int) rtl.Bits { return ones(w).Xor(ones(w - min(z, w))) }

func maxOf(w int) uint64 { return ^uint64(0) >> uint(64-w) }

// shape is an operation as infer sees it: a node's own, or a mutant's.
type shape struct {
	op        rtl.Op
	signed    bool // the result's signedness (products)
	argSigned bool // the operands' signedness (compares)
	k         int
	value     rtl.Bits
	rom       []rtl.Bits
}

func shapeOf(n *rtl.Node) shape {
	s := shape{op: n.Op, signed: n.Signed, k: n.K, value: n.Value, rom: n.ROM}
	if len(n.Args) > 0 {
		s.argSigned = n.Args[0].Signed
	}
	return s
}

// knownBits computes, per node of the flat combinational module f in
// topological order, what infer knows of it.
func knownBits(f *rtl.Module) []known {
	kb := make([]known, len(f.Nodes))
	for _, n := range f.Nodes {
		args := make([]known, len(n.Args))
		for i, a := range n.Args {
			args[i] = kb[a.ID]
		}
		kb[n.ID] = infer(n, shapeOf(n), args)
		if n.Op == rtl.OpMux {
			kb[n.ID] = refineMux(n, kb)
		}
	}
	return kb
}

// muxDepth bounds how far refineMux re-infers an arm's cone under its
// select's condition.
const muxDepth = 8

// refineMux sharpens what is known of mux n (sel ? t : e, operands already
// in kb) by what its select says about the arm it picks: when sel is an
// unsigned compare of a signal p with q, the arm taken under sel = 1 sees
// p op q and the arm taken under sel = 0 sees its negation, which bounds
// p's interval by q's; each arm is then re-inferred (at most muxDepth
// nodes deep, through the nodes that read p) with p so bounded, and the
// mux's interval is the union of its refined arms. Sound: a mux outputs an
// arm only when its select holds as assumed, and every other node keeps its
// value. This is what proves clamps (min/max) and the saturation of a
// value that a compare just bounded.
func refineMux(n *rtl.Node, kb []known) known {
	k := kb[n.ID]
	sel := n.Args[0]
	if n.Width > 64 || !k.rng {
		return k
	}
	arms := [2]known{}
	for ai, arm := range []*rtl.Node{n.Args[2], n.Args[1]} { // ai = select value
		arms[ai] = kb[arm.ID]
		if cs := condBounds(sel, ai == 1, kb, guardConjuncts); len(cs) > 0 {
			r := reinfer(arm, cs, kb, muxDepth, map[int]known{})
			if r.rng && r.lo <= r.hi {
				arms[ai] = r
			}
		}
		if !arms[ai].rng {
			return k
		}
	}
	lo, hi := min(arms[0].lo, arms[1].lo), max(arms[0].hi, arms[1].hi)
	if is, v := kb[sel.ID].bit(0); is { // a decided select: only its arm
		lo, hi = arms[b2u(v)].lo, arms[b2u(v)].hi
	}
	if lo > k.lo {
		k.lo = lo
	}
	if hi < k.hi {
		k.hi = hi
	}
	return withRange(k, n.Width)
}

func b2u(v bool) int {
	if v {
		return 1
	}
	return 0
}

// bound is an interval a select's value implies for one node.
type bound struct {
	id     int
	lo, hi uint64
	// wide: a node wider than 64 bits, whose value is at least wlo (lo
	// and hi unused).
	wide bool
	wlo  rtl.Bits
}

// String is "name in [lo, hi]" or, for a wide bound, "name >= 0x...".
func (b *bound) text(f *rtl.Module) string {
	n := f.Nodes[b.id]
	if b.wide {
		return fmt.Sprintf("%s is at least 0x%s", n.Name, b.wlo.Hex(n.Width))
	}
	return fmt.Sprintf("%s is in [%d, %d]", n.Name, b.lo, b.hi)
}

// condBound returns the bound sel == val implies for one operand of an
// unsigned compare sel (nil when sel is no such compare or it implies
// nothing), the operand being the compare's first operand or, failing that,
// its second.
func condBound(sel *rtl.Node, val bool, kb []known) *bound {
	op := sel.Op
	switch op {
	case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe, rtl.OpEq:
	default:
		return nil
	}
	p, q := sel.Args[0], sel.Args[1]
	if p.Width > 64 {
		return nil
	}
	if !val { // negate
		switch op {
		case rtl.OpLt:
			op = rtl.OpGe
		case rtl.OpLe:
			op = rtl.OpGt
		case rtl.OpGt:
			op = rtl.OpLe
		case rtl.OpGe:
			op = rtl.OpLt
		case rtl.OpEq:
			op = rtl.OpNe
		default:
			return nil
		}
	}
	kp, kq := kb[p.ID], kb[q.ID]
	signed := p.Signed
	if signed {
		// Signed operands: bound in the biased (order-preserving) space,
		// mapped back when the result lies on one side of the sign.
		kp, kq = biased(kp, p.Width), biased(kq, p.Width)
	}
	if !kp.rng || !kq.rng {
		return nil
	}
	// p op q bounds p by q, or q by p (flipped op); use the operand that is
	// not a constant.
	target, other, o := p, kq, op
	if p.Op == rtl.OpConst {
		target, other = q, kp
		o = map[rtl.Op]rtl.Op{rtl.OpLt: rtl.OpGt, rtl.OpLe: rtl.OpGe, rtl.OpGt: rtl.OpLt, rtl.OpGe: rtl.OpLe, rtl.OpEq: rtl.OpEq, rtl.OpNe: rtl.OpNe}[op]
	}
	kt := kp
	if target == q {
		kt = kq
	}
	lo, hi := kt.lo, kt.hi
	switch o {
	case rtl.OpLt:
		if other.hi == 0 {
			return nil
		}
		hi = min(hi, other.hi-1)
	case rtl.OpLe:
		hi = min(hi, other.hi)
	case rtl.OpGt:
		if other.lo == maxOf(target.Width) {
			return nil
		}
		lo = max(lo, other.lo+1)
	case rtl.OpGe:
		lo = max(lo, other.lo)
	case rtl.OpEq:
		lo, hi = max(lo, other.lo), min(hi, other.hi)
	case rtl.OpNe:
		// Not equal to a single value trims it from either end.
		if other.lo != other.hi {
			return nil
		}
		switch c := other.lo; {
		case lo == c && hi == c:
			return &bound{id: target.ID, lo: 1, hi: 0} // empty: no input
		case lo == c:
			lo++
		case hi == c:
			hi--
		default:
			return nil
		}
	}
	if lo > hi {
		return nil
	}
	if signed {
		half := uint64(1) << uint(target.Width-1)
		switch {
		case lo >= half:
			lo, hi = lo-half, hi-half
		case hi < half:
			lo, hi = lo+half, hi+half
		default:
			return nil
		}
	}
	return &bound{id: target.ID, lo: lo, hi: hi}
}

// guardConjuncts bounds the compares condBounds collects from the and
// (or the or) of a select.
const guardConjuncts = 8

// condBounds returns the bounds sel == val implies: condBound's, or, for
// a 1-bit and that is 1 (an or that is 0), those of each operand that is
// 1 (0), gathered through nested ands (ors) and 1-bit nots, at most limit
// of them. A hop's ok (the and of dts != 0, dts <= MaxDeltaTsNs and the
// path checks) so bounds dts in the arm it selects.
func condBounds(sel *rtl.Node, val bool, kb []known, limit int) []*bound {
	var out []*bound
	var walk func(x *rtl.Node, v bool)
	walk = func(x *rtl.Node, v bool) {
		if len(out) >= limit {
			return
		}
		switch {
		case x.Width == 1 && x.Op == rtl.OpNot:
			walk(x.Args[0], !v)
		case x.Width == 1 && (x.Op == rtl.OpAnd && v || x.Op == rtl.OpOr && !v):
			for _, a := range x.Args {
				walk(a, v)
			}
		default:
			if c := condBound(asEq(x), v != (x.Op == rtl.OpNe), kb); c != nil {
				out = append(out, c)
			}
		}
	}
	walk(sel, val)
	return out
}

// reinfer re-infers node x with each node cs[i].id bounded to [lo, hi],
// following x's operands at most depth levels (deeper, or not reading a
// bounded node, what kb knows). The result is intersected with kb's.
func reinfer(x *rtl.Node, cs []*bound, kb []known, depth int, memo map[int]known) known {
	if k, ok := memo[x.ID]; ok {
		return k
	}
	k := kb[x.ID]
	first := cs[0].id
	for _, c := range cs {
		first = min(first, c.id)
	}
	bounded := false
	for _, c := range cs {
		if x.ID == c.id {
			k.lo, k.hi = max(k.lo, c.lo), min(k.hi, c.hi)
			bounded = true
		}
	}
	switch {
	case bounded:
		if k.lo > k.hi { // no input: keep what kb knows (sound, proves less)
			k = kb[x.ID]
		}
		k = withRange(k, x.Width)
	case depth > 0 && len(x.Args) > 0 && x.ID > first:
		args := make([]known, len(x.Args))
		for i, a := range x.Args {
			args[i] = reinfer(a, cs, kb, depth-1, memo)
		}
		r := infer(x, shapeOf(x), args)
		if r.rng && k.rng {
			k.lo, k.hi = max(k.lo, r.lo), min(k.hi, r.hi)
			k.zero, k.one = k.zero.Or(r.zero), k.one.Or(r.one)
			if k.lo <= k.hi {
				k = withRange(k, x.Width)
			} else {
				k = kb[x.ID]
			}
		}
	}
	memo[x.ID] = k
	return k
}

// signedProduct returns the interval (unsigned reading of the w-bit
// result) of the signed product of operands whose intervals each lie on
// one side of their sign (ok false otherwise, or when the product's sign
// is not fixed).
func signedProduct(a known, aw int, b known, bw, w int) (lo, hi uint64, ok bool) {
	mag := func(k known, kw int) (neg bool, lo, hi uint64, ok bool) {
		half := uint64(1) << uint(kw-1)
		switch {
		case k.hi < half:
			return false, k.lo, k.hi, true
		case k.lo >= half:
			// x - 2^kw for x in [lo, hi]: magnitudes [2^kw - hi, 2^kw - lo].
			m := maxOf(kw)
			return true, m - k.hi + 1, m - k.lo + 1, true
		}
		return false, 0, 0, false
	}
	na, alo, ahi, ok1 := mag(a, aw)
	nb, blo, bhi, ok2 := mag(b, bw)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	h1, plo := bits.Mul64(alo, blo)
	h2, phi := bits.Mul64(ahi, bhi)
	if h1 != 0 || h2 != 0 || phi > maxOf(w)>>1 {
		return 0, 0, false
	}
	if na == nb {
		return plo, phi, true
	}
	if plo == 0 { // the product can be 0 and negative: both ends of the range
		return 0, 0, false
	}
	m := maxOf(w)
	return m - phi + 1, m - plo + 1, true
}

// prefixBits adds the bits every value of [k.lo, k.hi] shares: those above
// the highest bit in which lo and hi differ (a w-bit node, w <= 64).
func prefixBits(k known, w int) known {
	if !k.rng || k.lo > k.hi || w > 64 {
		return k
	}
	d := bits.Len64(k.lo ^ k.hi) // bits [d, w) are common
	if d >= w {
		return k
	}
	mask := ones(w).And(ones(d).Not())
	k.one = k.one.Or(rtl.BitsOf(k.lo).And(mask))
	k.zero = k.zero.Or(rtl.BitsOf(^k.lo).And(mask))
	return k
}

// biased maps the interval of a signed w-bit node onto the unsigned order
// (x + 2^(w-1) mod 2^w): exact when it lies on one side of the sign
// boundary, the whole range otherwise.
func biased(k known, w int) known {
	half := uint64(1) << uint(w-1)
	switch {
	case !k.rng:
	case k.hi < half:
		k.lo, k.hi = k.lo+half, k.hi+half
	case k.lo >= half:
		k.lo, k.hi = k.lo-half, k.hi-half
	default: // both signs: every biased value
		k.lo, k.hi = 0, maxOf(w)
	}
	return k
}

// withRange refines known bits from the interval (leading zeros, a single
// value) for a node of width w <= 64.
func withRange(k known, w int) known {
	if w > 64 || !k.rng || k.lo > k.hi {
		return k
	}
	if lz := 64 - bits.Len64(k.hi); lz > 64-w {
		k.zero = k.zero.Or(highZeros(w, lz-(64-w)))
	}
	if k.lo == k.hi {
		k.zero, k.one = rtl.BitsOf(^k.lo).Trunc(w), rtl.BitsOf(k.lo)
	}
	return prefixBits(k, w)
}

// infer returns what is known of node n computed as s from operands known
// as args (n gives the widths). Bits: constants are known whole; and, or,
// xor, not, mux, slices, constant shifts, extensions and concatenations
// combine their operands' knowledge bit by bit; a sum of operands with L
// leading zeros each has L-1; an unsigned product has the sum of its
// operands' leading zeros; a ROM's bits that are 0 in every entry are 0
// (addresses past the table read 0); logical right shifts keep leading
// zeros and left shifts trailing zeros. Intervals (unsigned reading, at
// most 64 bits): exact through zero extension, reinterpretation,
// non-overflowing sums, differences and unsigned products, constant
// shifts and slices that drop no set bit, mux unions, ROM entries at the
// reachable addresses; a compare whose operands' intervals decide it is a
// known bit (signed operands only when both are non-negative). Bits and
// intervals then refine each other. Sound: each rule holds for every input.
func infer(n *rtl.Node, s shape, args []known) known {
	w := n.Width
	var a, b known
	if len(args) > 0 {
		a = args[0]
	}
	if len(args) > 1 {
		b = args[1]
	}
	aw := 0
	if len(n.Args) > 0 {
		aw = n.Args[0].Width
	}
	var k known
	setRange := func(lo, hi uint64) { k.lo, k.hi, k.rng = lo, hi, true }
	bothRng := a.rng && b.rng
	switch s.op {
	case rtl.OpConst:
		k = known{zero: s.value.Not().Trunc(w), one: s.value}
	case rtl.OpAnd:
		k = known{zero: a.zero.Or(b.zero), one: a.one.And(b.one)}
		if bothRng {
			setRange(0, min(a.hi, b.hi))
		}
	case rtl.OpOr:
		k = known{zero: a.zero.And(b.zero), one: a.one.Or(b.one)}
	case rtl.OpXor:
		k = known{zero: equalBits(a, b), one: a.zero.And(b.one).Or(a.one.And(b.zero))}
	case rtl.OpNot:
		k = known{zero: a.one, one: a.zero}
	case rtl.OpMux:
		c := args[2]
		if is, v := a.bit(0); is {
			if v {
				return b
			}
			return c
		}
		k = known{zero: b.zero.And(c.zero), one: b.one.And(c.one)}
		if b.rng && c.rng {
			setRange(min(b.lo, c.lo), max(b.hi, c.hi))
		}
	case rtl.OpSlice:
		k = known{zero: a.zero.Shr(uint(s.k)), one: a.one.Shr(uint(s.k))}
		if a.rng && a.hi>>uint(s.k) <= maxOf(w) {
			setRange(a.lo>>uint(s.k), a.hi>>uint(s.k))
		} else if aw > 64 && w <= 64 {
			if x := upper(a, aw).Shr(uint(s.k)); x.Cmp(rtl.BitsOf(maxOf(w))) <= 0 {
				setRange(lower(a, aw).Shr(uint(s.k))[0], x[0])
			}
		}
	case rtl.OpShlC:
		k = known{zero: a.zero.Shl(uint(s.k)).Or(ones(s.k)), one: a.one.Shl(uint(s.k))}
		if a.rng && s.k < 64 && a.hi <= maxOf(w)>>uint(s.k) {
			setRange(a.lo<<uint(s.k), a.hi<<uint(s.k))
		}
	case rtl.OpLShrC:
		k = known{zero: a.zero.Shr(uint(s.k)).Or(highZeros(w, s.k)), one: a.one.Shr(uint(s.k))}
		if a.rng && s.k < 64 {
			setRange(a.lo>>uint(s.k), a.hi>>uint(s.k))
		}
	case rtl.OpAShrC:
		k = known{zero: a.zero.Shr(uint(s.k)), one: a.one.Shr(uint(s.k))}
		if is, v := a.bit(w - 1); is {
			if v {
				k.one = k.one.Or(highZeros(w, s.k))
			} else {
				k.zero = k.zero.Or(highZeros(w, s.k))
			}
		}
	case rtl.OpZExt:
		k = known{zero: a.zero.Or(highZeros(w, w-aw)), one: a.one, lo: a.lo, hi: a.hi, rng: a.rng}
	case rtl.OpSExt:
		k = known{zero: a.zero, one: a.one}
		if is, v := a.bit(aw - 1); is {
			if v {
				k.one = k.one.Or(highZeros(w, w-aw))
				if a.rng && w <= 64 {
					ext := maxOf(w) - maxOf(aw) // the copies of the sign bit
					setRange(a.lo+ext, a.hi+ext)
				}
			} else {
				k.zero = k.zero.Or(highZeros(w, w-aw))
				k.lo, k.hi, k.rng = a.lo, a.hi, a.rng
			}
		}
	case rtl.OpAs:
		k = a
	case rtl.OpConcat:
		off := 0
		for j := len(args) - 1; j >= 0; j-- {
			k.zero = k.zero.Or(args[j].zero.Shl(uint(off)))
			k.one = k.one.Or(args[j].one.Shl(uint(off)))
			off += n.Args[j].Width
		}
	case rtl.OpAdd:
		if l := min(a.leadZeros(w), b.leadZeros(w)); l >= 2 {
			k.zero = highZeros(w, l-1)
		}
		if bothRng {
			if hi, c := bits.Add64(a.hi, b.hi, 0); c == 0 && hi <= maxOf(w) {
				setRange(a.lo+b.lo, hi)
			}
		}
	case rtl.OpSub:
		if bothRng && a.lo >= b.hi {
			setRange(a.lo-b.hi, a.hi-b.lo)
		}
	case rtl.OpMul:
		if !s.signed {
			k.zero = highZeros(w, a.leadZeros(aw)+b.leadZeros(n.Args[1].Width))
			if bothRng {
				if h, l := bits.Mul64(a.hi, b.hi); h == 0 && l <= maxOf(w) {
					setRange(a.lo*b.lo, l)
				}
			}
		} else if bothRng && w <= 64 {
			if lo, hi, ok := signedProduct(a, aw, b, n.Args[1].Width, w); ok {
				setRange(lo, hi)
			}
		}
	case rtl.OpLShr, rtl.OpShl:
		// A shift by an amount known exactly is a constant shift.
		if b.rng && b.lo == b.hi && len(n.Args) == 2 {
			sh := shape{op: rtl.OpShlC, k: int(min(b.lo, uint64(w)))}
			if s.op == rtl.OpLShr {
				sh.op = rtl.OpLShrC
			}
			return infer(n, sh, args[:1])
		}
		if s.op == rtl.OpLShr {
			k.zero = highZeros(w, a.leadZeros(w))
		} else {
			k.zero = ones(a.trailZeros(w))
		}
	case rtl.OpROM:
		n := uint64(len(s.rom))
		lo, hi := uint64(0), n-1
		if a.rng {
			lo, hi = a.lo, min(a.hi, n-1)
		}
		// An address past the table can be read (and reads 0).
		past := a.rng && a.hi >= n || !a.rng && n < uint64(1)<<uint(aw)
		z, o := ones(w), ones(w)
		var vlo, vhi uint64 = ^uint64(0), 0
		if past {
			o, vlo = rtl.Bits{}, 0
		}
		for e := lo; e <= hi && e < n; e++ {
			z, o = z.And(s.rom[e].Not()), o.And(s.rom[e])
			vlo, vhi = min(vlo, s.rom[e][0]), max(vhi, s.rom[e][0])
		}
		k.zero, k.one = z, o
		if w <= 64 && vlo <= vhi {
			setRange(vlo, vhi)
		}
	case rtl.OpEq, rtl.OpNe, rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		if bothRng && s.argSigned && aw <= 64 {
			// Signed operands whose intervals each lie on one side of the
			// sign boundary: adding 2^(W-1) (mod 2^W) maps the signed order
			// onto the unsigned order of the biased intervals.
			a, b = biased(a, aw), biased(b, aw)
			bothRng = a.rng && b.rng
		}
		if aw > 64 && !s.argSigned && s.op != rtl.OpEq && s.op != rtl.OpNe {
			ua, ub := upper(a, aw), upper(b, aw)
			la, lb := lower(a, aw), lower(b, aw)
			var dec, v bool
			switch s.op {
			case rtl.OpLt, rtl.OpGe:
				dec, v = ua.Cmp(lb) < 0 || la.Cmp(ub) >= 0, ua.Cmp(lb) < 0
				if s.op == rtl.OpGe {
					v = !v
				}
			case rtl.OpLe, rtl.OpGt:
				dec, v = ua.Cmp(lb) <= 0 || la.Cmp(ub) > 0, ua.Cmp(lb) <= 0
				if s.op == rtl.OpGt {
					v = !v
				}
			}
			if dec {
				if v {
					k.one = rtl.BitsOf(1)
				} else {
					k.zero = rtl.BitsOf(1)
				}
			}
		}
		if bothRng && aw <= 64 {
			var dec, v bool
			switch s.op {
			case rtl.OpLt, rtl.OpGe:
				dec, v = a.hi < b.lo || a.lo >= b.hi, a.hi < b.lo
				if s.op == rtl.OpGe {
					v = !v
				}
			case rtl.OpLe, rtl.OpGt:
				dec, v = a.hi <= b.lo || a.lo > b.hi, a.hi <= b.lo
				if s.op == rtl.OpGt {
					v = !v
				}
			case rtl.OpEq, rtl.OpNe:
				dec, v = a.hi < b.lo || b.hi < a.lo || a.lo == a.hi && b.lo == b.hi && a.lo == b.lo, a.lo == b.lo && a.lo == a.hi && b.lo == b.hi
				if s.op == rtl.OpNe {
					v = !v
				}
			}
			if dec {
				if v {
					k.one = rtl.BitsOf(1)
				} else {
					k.zero = rtl.BitsOf(1)
				}
			}
		}
	}
	k.zero, k.one = k.zero.Trunc(w), k.one.Trunc(w)
	if w > 64 {
		k.rng = false
		if l, x, ok := wideBounds(n, s, args); ok {
			if b := ones(w).And(k.zero.Not()); b.Cmp(x) < 0 {
				x = b
			}
			if l.Cmp(k.one) < 0 {
				l = k.one
			}
			k.wlo, k.whi, k.wrng = l, x, true
			k = widePrefix(k, w)
		}
		return k
	}
	// Refine: bits bound the interval, the interval sets leading zeros.
	blo, bhi := k.one[0], ones(w).And(k.zero.Not())[0]
	if !k.rng {
		k.lo, k.hi, k.rng = blo, bhi, true
	} else {
		k.lo, k.hi = max(k.lo, blo), min(k.hi, bhi)
	}
	if k.lo > k.hi { // unreachable for a sound analysis; keep the bits only
		k.lo, k.hi = blo, bhi
	}
	k = prefixBits(k, w)
	if lz := 64 - bits.Len64(k.hi); lz > 64-w {
		k.zero = k.zero.Or(highZeros(w, lz-(64-w)))
	}
	if k.lo == k.hi {
		k.zero, k.one = rtl.BitsOf(^k.lo).Trunc(w), rtl.BitsOf(k.lo)
	}
	return k
}

// knownDiff bounds the bits in which mutant mu of node n (not a constant
// or ROM entry, whose difference is exact) can differ from n, from the
// operands' known bits, and says how.
func (p *prover) knownDiff(n *rtl.Node, mu Mutant) (rtl.Bits, string) {
	w := n.Width
	all := ones(w)
	ka := func(i int) known { return p.kb[n.Args[i].ID] }
	topKnown := func(i int) (bool, bool) { return ka(i).bit(n.Args[i].Width - 1) }
	switch mu.Operator {
	case OpSwap:
		a, b := ka(0), ka(1)
		pair := map[[2]rtl.Op]rtl.Bits{
			{rtl.OpOr, rtl.OpXor}:  a.zero.Or(b.zero),                       // differ where both are 1
			{rtl.OpXor, rtl.OpOr}:  a.zero.Or(b.zero),                       //
			{rtl.OpAnd, rtl.OpXor}: a.zero.And(b.zero),                      // differ unless both are 0
			{rtl.OpXor, rtl.OpAnd}: a.zero.And(b.zero),                      //
			{rtl.OpAnd, rtl.OpOr}:  a.zero.And(b.zero).Or(a.one.And(b.one)), // differ where a != b
			{rtl.OpOr, rtl.OpAnd}:  a.zero.And(b.zero).Or(a.one.And(b.one)), //
		}
		if same, ok := pair[[2]rtl.Op{n.Op, mu.newOp}]; ok {
			return all.And(same.Not()), "from the operands' known bits the results differ at most"
		}
		switch {
		case n.Op == rtl.OpAdd || n.Op == rtl.OpSub:
			// (a+b) - (a-b) = 2b: a multiple of 2^(t+1) when b's low t bits are 0.
			return all.And(ones(b.trailZeros(w) + 1).Not()), "a+b and a-b differ by 2b, so at most"
		case (n.Op == rtl.OpLShrC || n.Op == rtl.OpAShrC) || (n.Op == rtl.OpLShr || n.Op == rtl.OpAShr) && mu.newOp != rtl.OpShl:
			if is, v := topKnown(0); is && !v {
				return rtl.Bits{}, "the operand's top bit is always 0, so logical and arithmetic shifts agree"
			}
		}
	case ExtSwap:
		if is, v := topKnown(0); is && !v {
			return rtl.Bits{}, "the operand's top bit is always 0, so zero and sign extension agree"
		}
		// Zero and sign extension agree on the operand's own bits.
		return all.And(ones(n.Args[0].Width).Not()), "zero and sign extension differ at most in the extension bits"
	case MulSign, CmpSign:
		s0, v0 := topKnown(0)
		s1, v1 := topKnown(1)
		if mu.Operator == MulSign && s0 && s1 && !v0 && !v1 {
			return rtl.Bits{}, "both operands' top bits are always 0, so signed and unsigned products agree"
		}
		if mu.Operator == CmpSign && s0 && s1 && v0 == v1 {
			return rtl.Bits{}, "both operands' top bits are always equal, so signed and unsigned compares agree"
		}
	case MuxSwap:
		t, f := ka(1), ka(2)
		return all.And(t.zero.And(f.zero).Or(t.one.And(f.one)).Not()), "the two data inputs differ at most"
	}
	return all, "the node may differ"
}

// boundary proves the mutants of an ordering compare c that change c only
// where its operands meet: lt<->le and gt<->ge differ only at x == y; for
// c = (x op K), K a constant read by nothing else, K +/- 1 (without
// wrapping around) changes c only at x == K or x == K', whichever
// evaluation shows. If every reader of c is a mux selected by c whose two
// data inputs are equal there (the operands x and y themselves, as in
// min/max; or, at a constant point, both evaluating to the same constant
// from x and constants alone, by rtl's constant folding, as in
// saturation), the mux outputs, and hence every output, are unchanged.
func (p *prover) boundary(mu Mutant) string {
	n := p.f.Nodes[mu.NodeID]
	isOrder := func(op rtl.Op) bool { return op == rtl.OpLt || op == rtl.OpLe || op == rtl.OpGt || op == rtl.OpGe }
	var c, x *rtl.Node
	var points []rtl.Bits
	switch {
	case mu.Operator == CmpFlip && isOrder(mu.newOp) && isOrder(n.Op):
		// lt<->le and gt<->ge only (not the negations lt<->ge, le<->gt).
		if (n.Op == rtl.OpLt || n.Op == rtl.OpLe) != (mu.newOp == rtl.OpLt || mu.newOp == rtl.OpLe) {
			return ""
		}
		c = n
		a, b := n.Args[0], n.Args[1]
		switch {
		case b.Op == rtl.OpConst:
			x, points = a, []rtl.Bits{b.Value}
		case a.Op == rtl.OpConst:
			x, points = b, []rtl.Bits{a.Value}
		default:
			return p.muxesAgreeOnEqual(c)
		}
	case (mu.Operator == ConstInc || mu.Operator == ConstDec) && len(p.users[n.ID]) == 1 && !p.outs[n.ID]:
		c = p.users[n.ID][0]
		if !isOrder(c.Op) || c.Args[0] == c.Args[1] {
			return ""
		}
		// No wrap-around: K and K' adjacent in the compare's order.
		lo, hi := n.Value, mu.value
		if mu.Operator == ConstDec {
			lo, hi = hi, lo
		}
		if n.Signed {
			flip := rtl.BitsOf(1).Shl(uint(n.Width - 1))
			lo, hi = lo.Xor(flip), hi.Xor(flip)
		}
		if hi.Cmp(lo) <= 0 {
			return ""
		}
		x = c.Args[0]
		if x == n {
			x = c.Args[1]
		}
		for _, pt := range []rtl.Bits{n.Value, mu.value} {
			at := func(k rtl.Bits) (bool, bool) {
				f := rtl.NewModule("fold", "")
				xs, ks := f.ConstBits(x.Width, x.Signed, pt), f.ConstBits(n.Width, n.Signed, k)
				args := []*rtl.Node{xs, ks}
				if c.Args[0] == n {
					args = []*rtl.Node{ks, xs}
				}
				r := build(f, c, c.Op, args, 0, rtl.Bits{}, nil)
				return r != nil && r.Op == rtl.OpConst && f.Err() == nil, r != nil && r.Value.Bit(0)
			}
			ok1, v1 := at(n.Value)
			ok2, v2 := at(mu.value)
			if !ok1 || !ok2 {
				return ""
			}
			if v1 != v2 {
				points = append(points, pt)
			}
		}
	default:
		return ""
	}
	if !p.onlyMuxSelect(c) {
		return ""
	}
	for _, u := range p.users[c.ID] {
		for _, pt := range points {
			t, ok1 := p.evalAt(u.Args[1], x, pt)
			f, ok2 := p.evalAt(u.Args[2], x, pt)
			if !ok1 || !ok2 || t != f {
				return ""
			}
		}
	}
	var ps string
	for i, pt := range points {
		if i > 0 {
			ps += ", "
		}
		ps += "0x" + pt.Hex(x.Width)
	}
	if ps == "" {
		return fmt.Sprintf("the compare %s gives the same result for every input", c.Name)
	}
	return fmt.Sprintf("the compare %s changes only where %s is %s, and there both inputs of every mux it selects are equal", c.Name, x.Name, ps)
}

// onlyMuxSelect reports whether c drives no output and every reader of c
// is a mux using it only as its select.
func (p *prover) onlyMuxSelect(c *rtl.Node) bool {
	if p.outs[c.ID] || len(p.users[c.ID]) == 0 {
		return false
	}
	for _, u := range p.users[c.ID] {
		if u.Op != rtl.OpMux || u.Args[0] != c || u.Args[1] == c || u.Args[2] == c {
			return false
		}
	}
	return true
}

// muxesAgreeOnEqual proves an off-by-one flip of compare c = (x op y) when
// every mux c selects chooses between x and y themselves (min, max): where
// the flip matters, x == y and both mux inputs are equal.
func (p *prover) muxesAgreeOnEqual(c *rtl.Node) string {
	if !p.onlyMuxSelect(c) {
		return ""
	}
	x, y := c.Args[0], c.Args[1]
	for _, u := range p.users[c.ID] {
		t, f := u.Args[1], u.Args[2]
		if !(t == x && f == y || t == y && f == x) {
			return ""
		}
	}
	return fmt.Sprintf("the compare %s changes only where %s == %s, and every mux it selects chooses between those two", c.Name, x.Name, y.Name)
}

// evalAt evaluates node n as a function of node x held at value v and of
// constants only (a mux evaluates only the input its folded select
// chooses); ok is false when n depends on anything else.
func (p *prover) evalAt(n, x *rtl.Node, v rtl.Bits) (rtl.Bits, bool) {
	memo := map[*rtl.Node]*rtl.Node{}
	c := rtl.NewModule("fold", "")
	var eval func(m *rtl.Node) *rtl.Node
	eval = func(m *rtl.Node) *rtl.Node {
		if r, ok := memo[m]; ok {
			return r
		}
		var r *rtl.Node
		switch {
		case m == x:
			r = c.ConstBits(m.Width, m.Signed, v)
		case m.Op == rtl.OpConst:
			r = c.ConstBits(m.Width, m.Signed, m.Value)
		case m.Op.IsSource() || m.Op == rtl.OpInstOut:
		case m.Op == rtl.OpMux:
			if s := eval(m.Args[0]); s != nil {
				r = eval(m.Args[1])
				if !s.Value.Bit(0) {
					r = eval(m.Args[2])
				}
			}
		default:
			args := make([]*rtl.Node, len(m.Args))
			for i, a := range m.Args {
				if args[i] = eval(a); args[i] == nil {
					memo[m] = nil
					return nil
				}
			}
			if r = build(c, m, m.Op, args, m.K, m.Value, m.ROM); r != nil && r.Op != rtl.OpConst {
				r = nil
			}
		}
		memo[m] = r
		return r
	}
	r := eval(n)
	if r == nil || c.Err() != nil {
		return rtl.Bits{}, false
	}
	return r.Value, true
}

// maxForward bounds the nodes forward tracks as possibly changed.
const maxForward = 256

// forward proves mu equivalent by re-running infer on the mutated node and
// on every node downstream of a possibly changed one, with the changed
// nodes' knowledge in the mutant: a node whose value is fully known, and
// the same, in the original and the mutant is unchanged (for example a
// compare that the operands' intervals decide either way, or a sum whose
// changed operand is a constant the other operand's range makes
// irrelevant). If no possibly changed node drives an output, no output
// can change.
func (p *prover) forward(mu Mutant) string { return p.forwardKB(mu, p.kb) }

// forwardKB is forward with kb for what is known of the original module.
func (p *prover) forwardKB(mu Mutant, kb []known) string {
	n := p.f.Nodes[mu.NodeID]
	args := make([]known, len(n.Args))
	for i, a := range n.Args {
		args[i] = kb[a.ID]
	}
	s := shapeOf(n)
	var m known
	switch mu.Operator {
	case ConstInc, ConstDec, ConstMSB:
		s.value = mu.value
	case ROMInc, ROMDec:
		s.rom = slices.Clone(n.ROM)
		s.rom[mu.k] = mu.value
	case OpSwap, CmpFlip:
		s.op = mu.newOp
	case ShiftInc, ShiftDec, SliceInc, SliceDec:
		s.k = mu.k
	case MuxSwap:
		args[1], args[2] = args[2], args[1]
	case ExtSwap:
		s.op = rtl.OpZExt
		if n.Op == rtl.OpZExt {
			s.op = rtl.OpSExt
		}
	case MulSign:
		s.signed = !s.signed
	case CmpSign:
		s.argSigned = !s.argSigned
	case NotDrop:
	default:
		return ""
	}
	if mu.Operator == NotDrop {
		m = args[0]
	} else {
		m = infer(n, s, args)
	}
	same := func(id int, x known) bool {
		w := p.f.Nodes[id].Width
		return equalBits(kb[id], x) == ones(w)
	}
	if same(n.ID, m) {
		return fmt.Sprintf("the mutated node is the constant 0x%s in the original and the mutant (known bits and value ranges)", kb[n.ID].one.Hex(n.Width))
	}
	if p.outs[n.ID] {
		return ""
	}
	changed := map[int]known{n.ID: m}
	var absorbed []string
	for id := n.ID + 1; id < len(p.f.Nodes); id++ {
		x := p.f.Nodes[id]
		hit := false
		xa := make([]known, len(x.Args))
		for i, a := range x.Args {
			if k, ok := changed[a.ID]; ok {
				xa[i], hit = k, true
			} else {
				xa[i] = kb[a.ID]
			}
		}
		if !hit {
			continue
		}
		if x.Op == rtl.OpMux {
			// A mux whose select is unchanged and known passes its chosen
			// arm: unchanged when that arm is.
			if _, selChanged := changed[x.Args[0].ID]; !selChanged {
				if is, v := kb[x.Args[0].ID].bit(0); is {
					arm := x.Args[2]
					if v {
						arm = x.Args[1]
					}
					if _, armChanged := changed[arm.ID]; !armChanged {
						if len(absorbed) < 3 {
							absorbed = append(absorbed, x.Name)
						}
						continue
					}
				}
			}
		}
		mx := infer(x, shapeOf(x), xa)
		if same(id, mx) {
			if len(absorbed) < 3 {
				absorbed = append(absorbed, x.Name)
			}
			continue
		}
		if p.outs[id] || len(changed) >= maxForward {
			return ""
		}
		changed[id] = mx
	}
	return fmt.Sprintf("known bits and value ranges show the change absorbed before any output (at %s)", strings.Join(absorbed, ", "))
}

// knownBitsUnder is knownBits for the inputs where every bound holds
// (node bs[i].id in [lo, hi]); ok is false when no input does (a bound
// contradicts what the analysis knows of its node).
func knownBitsUnder(f *rtl.Module, bs ...*bound) (kb []known, ok bool) {
	at := map[int][]*bound{}
	for _, c := range bs {
		at[c.id] = append(at[c.id], c)
	}
	kb = make([]known, len(f.Nodes))
	for _, n := range f.Nodes {
		args := make([]known, len(n.Args))
		for i, a := range n.Args {
			args[i] = kb[a.ID]
		}
		kb[n.ID] = infer(n, shapeOf(n), args)
		if n.Op == rtl.OpMux {
			kb[n.ID] = refineMux(n, kb)
		}
		for _, c := range at[n.ID] {
			k := kb[n.ID]
			if c.wide {
				if n.Width <= 64 {
					return nil, false
				}
				lo, hi := lower(k, n.Width), upper(k, n.Width)
				if c.wlo.Cmp(lo) > 0 {
					lo = c.wlo
				}
				if lo.Cmp(hi) > 0 {
					return nil, false
				}
				k.wlo, k.whi, k.wrng = lo, hi, true
				kb[n.ID] = widePrefix(k, n.Width)
				continue
			}
			if !k.rng {
				return nil, false
			}
			k.lo, k.hi = max(k.lo, c.lo), min(k.hi, c.hi)
			blo, bhi := k.one[0], ^k.zero[0]&maxOf(n.Width)
			if k.lo > k.hi || blo > k.hi || bhi < k.lo {
				return nil, false
			}
			kb[n.ID] = withRange(k, n.Width)
		}
	}
	return kb, true
}

// diffCases returns the conditions outside which mutant mu's node equals
// the original node for every input: a ROM entry k differs only where the
// address is k; a zero/sign-extension swap, a signed/unsigned compare or
// product only where an operand's top bit is set (one case per operand).
// nil: no such condition is known (the whole input space).
func (p *prover) diffCases(mu Mutant) []*bound {
	n := p.f.Nodes[mu.NodeID]
	top := func(a *rtl.Node) *bound {
		if a.Width > 64 {
			return nil
		}
		return &bound{id: a.ID, lo: uint64(1) << uint(a.Width-1), hi: maxOf(a.Width)}
	}
	switch mu.Operator {
	case ConstInc, ConstDec, ConstMSB:
		// A constant read only by one unsigned product changes the product
		// only where the other operand is not 0.
		if us := p.users[n.ID]; len(us) == 1 && us[0].Op == rtl.OpMul && !us[0].Signed && us[0].Args[0] != us[0].Args[1] {
			o := us[0].Args[0]
			if o == n {
				o = us[0].Args[1]
			}
			if o.Width <= 64 {
				return []*bound{{id: o.ID, lo: 1, hi: maxOf(o.Width)}}
			}
		}
	case ROMInc, ROMDec:
		if a := n.Args[0]; a.Width <= 64 {
			return []*bound{{id: a.ID, lo: uint64(mu.k), hi: uint64(mu.k)}}
		}
	case ExtSwap:
		if b := top(n.Args[0]); b != nil {
			return []*bound{b}
		}
		if a := n.Args[0]; a.Width < rtl.MaxWidth {
			return []*bound{{id: a.ID, wide: true, wlo: rtl.BitsOf(1).Shl(uint(a.Width - 1))}}
		}
	case CmpSign, MulSign:
		if mu.Operator == MulSign {
			// One operand's top bit always set: the products differ
			// wherever the other is not 0; one case per sign of it.
			for i, a := range n.Args {
				o := n.Args[1-i]
				if is, v := p.kb[a.ID].bit(a.Width - 1); is && v && o.Width <= 64 {
					half := uint64(1) << uint(o.Width-1)
					return []*bound{{id: o.ID, lo: 1, hi: half - 1}, {id: o.ID, lo: half, hi: maxOf(o.Width)}}
				}
			}
		}
		var cs []*bound
		for _, a := range n.Args {
			b := top(a)
			if b == nil {
				return nil
			}
			cs = append(cs, b)
		}
		return cs
	}
	return nil
}

// conditional proves mu equivalent case by case: for each condition
// outside which the mutant cannot differ (diffCases), either no input meets
// it, or, with the analysis rerun for the inputs that do, the change is
// absorbed before any output (forward).
func (p *prover) conditional(mu Mutant) string {
	cases := p.diffCases(mu)
	if cases == nil {
		return ""
	}
	var why []string
	for _, c := range cases {
		kb, ok := knownBitsUnder(p.f, append([]*bound{c}, p.assume...)...)
		if !ok {
			why = append(why, fmt.Sprintf("where %s, which no input gives", c.text(p.f)))
			continue
		}
		pr := p.forwardKB(mu, kb)
		if pr == "" {
			return ""
		}
		why = append(why, fmt.Sprintf("where %s, %s", c.text(p.f), pr))
	}
	return "the mutant differs only " + strings.Join(why, "; and ")
}

// Range is what the grader's forward value analysis knows of one node of a
// flat combinational module, for every input: bits certainly 0 (Zero) and
// certainly 1 (One), and for nodes of at most 64 bits an unsigned interval
// [Lo, Hi] (HasRange). It is the analysis the equivalence proofs use
// (known bits, value ranges, ROM contents at reachable addresses, compares
// the intervals decide), so it is sound: every value a node takes lies in it.
type Range struct {
	Zero, One rtl.Bits
	Lo, Hi    uint64
	HasRange  bool
}

// ValueRanges returns the Range of every node of the flat combinational
// module f, indexed by node ID.
func ValueRanges(f *rtl.Module) []Range {
	kb := knownBits(f)
	out := make([]Range, len(kb))
	for i, k := range kb {
		out[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
	}
	return out
}
