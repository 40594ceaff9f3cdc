package grade

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/hpccgold/hpccgold/rtl"
)

// Rule 10: exhaustion over a cut (issue 14).
//
// exhaustProof proves a mutant equivalent by going through every value of
// the few signals its change depends on. It takes a post-dominator d of
// the mutated node n (a node that every path from n to an output passes:
// n's forward cone, not passing d, reaches no output), so the outputs can
// change only where d does, in a bit some output observes (rule 1's
// demanded bits of d). The nodes between n and d are the changed region;
// what they read from outside it is computed, in the original and the
// mutant alike, from a vertex cut of the module: a set of nodes (each of
// at most 64 bits with an interval) that every path from an input to the
// region passes: first the input ports themselves when they have at most
// exhaustInputBits bits (exact), then a minimum cut whose weights are the
// bits of each node's interval (log2 of the values it can take). A miter module
// holds the logic from the cut to d twice (the original region and the
// mutated one, every node outside the region once, shared), the cut nodes
// as its inputs.
//
// The cut's values are then covered by boxes (one interval per cut node):
// the first box is the value analysis' intervals of the cut nodes, which
// every input meets. A box is settled when the value analysis of the
// miter under it (knownBitsUnder, with the mux arms under their selects)
// shows the two copies of d equal on every demanded bit (both follow
// decided muxes to the same node, or both bits are known and equal); a box
// of at most exhaustLeaf values is settled by evaluating the miter
// (rtl.Sim) at every one of them; any other box is split, the widest cut
// node first, by bit length (so a normalizer's count is fixed) and then
// in halves. The mutant is proved when every box is settled, within
// exhaustPieces analyses and exhaustPoints evaluations (past either, or
// at one value where the two copies differ, the rule gives up: sound, it
// proves less). Sound: every input's cut values lie in the first box, the
// boxes of a split cover their parent, the miter computes d from the cut
// values as the module and the mutant do, and the analysis is sound for
// every value of a box.

// exhaustPieces bounds the boxes one candidate's exhaustion analyses.
const exhaustPieces = 1 << 19

// exhaustPoints bounds the cut values one candidate's exhaustion
// evaluates (by rtl.Sim; 2^22, a few seconds of CPU).
const exhaustPoints = 1 << 22

// exhaustProbes is the number of cut values, drawn deterministically from
// the first box, evaluated before any analysis: a mutant that differs at
// many values (most killed ones) is given up at once.
const exhaustProbes = 1024

// exhaustLeaf is the largest box evaluated value by value instead of
// being analysed and split.
const exhaustLeaf = 16

// exhaustDims bounds the cut nodes of more than one value (the boxes'
// dimensions): wider cuts cost killed mutants minutes of analysis before
// the budget runs out.
const exhaustDims = 2

// exhaustDoms bounds the post-dominators tried as d.
const exhaustDoms = 3

// exhaustCutBits bounds the total width of a cut's intervals (a cut
// wider than this is not tried).
const exhaustCutBits = 96

// exhaustFanIn bounds the nodes of a miter's fan-in.
const exhaustFanIn = 1200

// postDominators returns the first exhaustDoms post-dominators of n in
// node order (nil when n drives an output).
func (p *prover) postDominators(n *rtl.Node) []*rtl.Node {
	if p.outs[n.ID] {
		return nil
	}
	all := p.cone(n, nil)
	var out []*rtl.Node
	for id := n.ID + 1; id < len(p.f.Nodes) && len(out) < exhaustDoms; id++ {
		if !all[id] {
			continue
		}
		d := p.f.Nodes[id]
		if !p.reachesOutput(p.cone(n, d)) {
			out = append(out, d)
		}
		if p.outs[id] {
			break // every later candidate is past an output
		}
	}
	return out
}

// miter is the logic from a cut to a post-dominator d, built twice (see
// exhaustProof).
type miter struct {
	m        *rtl.Module
	cut      []*rtl.Node // of the original module, in m's input order
	orig     *rtl.Node   // d in m, original region
	mut      *rtl.Node   // d in m, mutated region
	dem      rtl.Bits    // d's demanded bits
	deps     []uint64    // per node of m: the cut inputs it depends on (bit i: input i)
	inIdx    map[int]int // input node of m -> its index
	cutKnown []known     // the cut nodes' analysis in the original module
	work     []known     // the analysis of m under the box being covered
	args     []known     // analyse's operand buffer
}

// region returns the changed region of n up to d: n, the nodes of n's
// forward cone below d that feed d, and d.
func (p *prover) region(n, d *rtl.Node) []bool {
	in := make([]bool, len(p.f.Nodes))
	fwd := p.cone(n, d)
	fwd[n.ID], fwd[d.ID] = true, true
	// backward from d over fwd
	stack := []*rtl.Node{d}
	in[d.ID] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, a := range x.Args {
			if fwd[a.ID] && !in[a.ID] && a.ID >= n.ID {
				in[a.ID] = true
				stack = append(stack, a)
			}
		}
	}
	in[n.ID] = true
	return in
}

// cutBits is the weight of node x as a cut node: the bits of its
// interval, or -1 when it cannot be one.
func cutBits(x *rtl.Node, kb []known) int {
	k := kb[x.ID]
	if x.Width > 64 || !k.rng || k.lo > k.hi {
		return -1
	}
	return bits.Len64(k.hi - k.lo)
}

// exhaustInputBits bounds the input bits a cut of input ports alone may
// have: a fan-in reading at most this many is cut at its inputs (every
// relation inside it is then evaluated, none lost to a node's interval).
const exhaustInputBits = 32

// inputCut returns the input ports the targets read, when their
// intervals have at most exhaustInputBits bits in all (else nil).
func (p *prover) inputCut(targets []*rtl.Node) []*rtl.Node {
	seen := map[int]bool{}
	stack := slices.Clone(targets)
	var cut []*rtl.Node
	total := 0
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x.ID] || x.Op == rtl.OpConst {
			continue
		}
		seen[x.ID] = true
		if x.Op == rtl.OpInput {
			w := cutBits(x, p.kb)
			if w < 0 {
				return nil
			}
			if total += w; total > exhaustInputBits {
				return nil
			}
			cut = append(cut, x)
			continue
		}
		stack = append(stack, x.Args...)
	}
	if len(cut) == 0 {
		return nil
	}
	return cut
}

// minCut returns a minimum-weight set of nodes (cutBits weights) that
// every path from an input to a node of targets passes (a target may be
// in it), found by max flow over the fan-in of targets, each node split
// into an in and an out vertex joined by its weight (inputs are the
// sources). nil when the fan-in is too large or no finite cut exists.
func minCut(f *rtl.Module, kb []known, targets []*rtl.Node) ([]*rtl.Node, int) {
	inFan := map[int]bool{}
	stack := slices.Clone(targets)
	for _, t := range targets {
		inFan[t.ID] = true
	}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, a := range x.Args {
			if !inFan[a.ID] && a.Op != rtl.OpConst {
				inFan[a.ID] = true
				stack = append(stack, a)
			}
		}
		if len(inFan) > exhaustFanIn {
			return nil, 0
		}
	}
	ids := make([]int, 0, len(inFan))
	for id := range inFan {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	idx := map[int]int{}
	for i, id := range ids {
		idx[id] = i
	}
	const inf = 1 << 30
	nv := 2*len(ids) + 2
	src, snk := nv-2, nv-1
	type edge struct{ to, cap, rev int }
	g := make([][]edge, nv)
	add := func(a, b, c int) {
		g[a] = append(g[a], edge{b, c, len(g[b])})
		g[b] = append(g[b], edge{a, 0, len(g[a]) - 1})
	}
	for i, id := range ids {
		x := f.Nodes[id]
		w := cutBits(x, kb)
		if w < 0 {
			w = inf
		}
		add(2*i, 2*i+1, w)
		if x.Op == rtl.OpInput {
			add(src, 2*i, inf)
		}
		for _, a := range x.Args {
			if j, ok := idx[a.ID]; ok {
				add(2*j+1, 2*i, inf)
			}
		}
	}
	for _, t := range targets {
		add(2*idx[t.ID]+1, snk, inf)
	}
	flow := 0
	for {
		prev := make([][2]int, nv)
		for i := range prev {
			prev[i] = [2]int{-1, -1}
		}
		prev[src] = [2]int{src, -1}
		q := []int{src}
		for len(q) > 0 && prev[snk][0] < 0 {
			v := q[0]
			q = q[1:]
			for ei, e := range g[v] {
				if e.cap > 0 && prev[e.to][0] < 0 {
					prev[e.to] = [2]int{v, ei}
					q = append(q, e.to)
				}
			}
		}
		if prev[snk][0] < 0 {
			break
		}
		aug := inf
		for v := snk; v != src; v = prev[v][0] {
			aug = min(aug, g[prev[v][0]][prev[v][1]].cap)
		}
		if aug >= inf {
			return nil, 0
		}
		for v := snk; v != src; v = prev[v][0] {
			e := &g[prev[v][0]][prev[v][1]]
			e.cap -= aug
			g[v][e.rev].cap += aug
		}
		flow += aug
		if flow >= inf {
			return nil, 0
		}
	}
	// the cut: nodes whose in vertex the residual graph reaches from the
	// source and whose out vertex it does not
	seen := make([]bool, nv)
	seen[src] = true
	q := []int{src}
	for len(q) > 0 {
		v := q[0]
		q = q[1:]
		for _, e := range g[v] {
			if e.cap > 0 && !seen[e.to] {
				seen[e.to] = true
				q = append(q, e.to)
			}
		}
	}
	var cut []*rtl.Node
	for i, id := range ids {
		if seen[2*i] && !seen[2*i+1] {
			cut = append(cut, f.Nodes[id])
		}
	}
	return cut, flow
}

// newMiter builds the miter of mutant mu from n to d (nil when the cut is
// too wide or the logic cannot be rebuilt).
func (p *prover) newMiter(mu Mutant, n, d *rtl.Node, byInputs bool) (*miter, error) {
	reg := p.region(n, d)
	// the region's operands from outside it, and n's own
	var ext []*rtl.Node
	seenExt := map[int]bool{}
	for id := n.ID; id <= d.ID; id++ {
		if !reg[id] {
			continue
		}
		for _, a := range p.f.Nodes[id].Args {
			if !reg[a.ID] && !seenExt[a.ID] && a.Op != rtl.OpConst {
				seenExt[a.ID] = true
				ext = append(ext, a)
			}
		}
	}
	var cut []*rtl.Node
	if byInputs {
		if cut = p.inputCut(ext); cut == nil {
			return nil, nil
		}
	} else if len(ext) > 0 {
		var total int
		cut, total = minCut(p.f, p.kb, ext)
		if cut == nil || total > exhaustCutBits {
			return nil, nil
		}
	}
	slices.SortFunc(cut, func(a, b *rtl.Node) int { return a.ID - b.ID })
	isCut := map[int]int{}
	for i, c := range cut {
		isCut[c.ID] = i
	}
	// the nodes to build: the fan-in of d back to the cut
	need := map[int]bool{}
	stack := []*rtl.Node{d}
	need[d.ID] = true
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := isCut[x.ID]; ok {
			continue
		}
		if x.Op == rtl.OpInput {
			return nil, nil // an input not behind the cut: not a cut
		}
		for _, a := range x.Args {
			if !need[a.ID] {
				need[a.ID] = true
				stack = append(stack, a)
			}
		}
	}
	c := rtl.NewModule("exhaust", "")
	mt := &miter{m: c, cut: cut, dem: p.dem[d.ID]}
	for i, x := range cut {
		c.In(fmt.Sprintf("cut%d", i), x.Width, x.Signed)
		mt.cutKnown = append(mt.cutKnown, p.kb[x.ID])
	}
	one := map[int]*rtl.Node{} // original (and shared) copies
	two := map[int]*rtl.Node{} // mutated copies of the region
	for id := 0; id <= d.ID; id++ {
		if !need[id] {
			continue
		}
		x := p.f.Nodes[id]
		if i, ok := isCut[id]; ok {
			one[id] = c.Inputs[i]
			continue
		}
		args := make([]*rtl.Node, len(x.Args))
		margs := make([]*rtl.Node, len(x.Args))
		for i, a := range x.Args {
			args[i] = one[a.ID]
			margs[i] = one[a.ID]
			if m, ok := two[a.ID]; ok {
				margs[i] = m
			}
		}
		o := build(c, x, x.Op, args, x.K, x.Value, x.ROM)
		if o == nil {
			return nil, fmt.Errorf("grade: exhaustion of mutant %s: node %s cannot be rebuilt", mu, x.Name)
		}
		one[id] = o
		if reg[id] {
			var m *rtl.Node
			if id == n.ID {
				m = mutated(c, x, margs, &mu)
			} else {
				m = build(c, x, x.Op, margs, x.K, x.Value, x.ROM)
			}
			if m == nil {
				return nil, fmt.Errorf("grade: exhaustion of mutant %s: node %s cannot be rebuilt", mu, x.Name)
			}
			two[id] = m
		}
	}
	mt.orig, mt.mut = one[d.ID], two[d.ID]
	c.Out("orig", mt.orig, "")
	c.Out("mut", mt.mut, "")
	if len(cut) > 63 {
		return nil, nil
	}
	mt.deps = make([]uint64, len(c.Nodes))
	mt.inIdx = map[int]int{}
	mt.work = make([]known, len(c.Nodes))
	for _, x := range c.Nodes {
		mt.deps[x.ID] = 1 << 63 // every node is analysed for the first box
		if x.Op == rtl.OpInput {
			i := slices.Index(c.Inputs, x)
			mt.inIdx[x.ID] = i
			mt.deps[x.ID] |= 1 << uint(i)
			continue
		}
		for _, a := range x.Args {
			mt.deps[x.ID] |= mt.deps[a.ID]
		}
	}
	return mt, nil
}

// box is one interval per cut node.
type box struct{ lo, hi []uint64 }

func (b box) points() uint64 {
	t := uint64(1)
	for i := range b.lo {
		w := b.hi[i] - b.lo[i]
		if w == ^uint64(0) {
			return ^uint64(0)
		}
		hi, lo := bits.Mul64(t, w+1)
		if hi != 0 {
			return ^uint64(0)
		}
		t = lo
	}
	return t
}

// analyse reruns the value analysis of the miter, in place in mt.work,
// for box b: only the nodes that depend on a cut input in changed (the
// others keep the analysis of the enclosing box, which differs from b only
// in those inputs). ok false: no value meets b.
func (mt *miter) analyse(b box, changed uint64) bool {
	kb := mt.work
	for _, x := range mt.m.Nodes {
		if mt.deps[x.ID]&changed == 0 {
			continue
		}
		if x.Op == rtl.OpInput {
			i := mt.inIdx[x.ID]
			k := mt.cutKnown[i]
			k.lo, k.hi = max(k.lo, b.lo[i]), min(k.hi, b.hi[i])
			if k.lo > k.hi {
				return false
			}
			blo, bhi := k.one[0], ^k.zero[0]&maxOf(x.Width)
			if blo > k.hi || bhi < k.lo {
				return false
			}
			kb[x.ID] = withRange(k, x.Width)
			continue
		}
		args := mt.args[:0]
		for _, a := range x.Args {
			args = append(args, kb[a.ID])
		}
		mt.args = args
		kb[x.ID] = infer(x, shapeOf(x), args)
		if x.Op == rtl.OpMux {
			kb[x.ID] = refineMux(x, kb)
		}
	}
	return true
}

// settled reports whether the analysis kb shows the two copies of d equal
// on every demanded bit.
func (mt *miter) settled(kb []known) bool {
	resolve := func(x *rtl.Node) *rtl.Node {
		for x.Op == rtl.OpMux {
			is, v := kb[x.Args[0].ID].bit(0)
			if !is {
				break
			}
			if v {
				x = x.Args[1]
			} else {
				x = x.Args[2]
			}
		}
		return x
	}
	if resolve(mt.orig) == resolve(mt.mut) {
		return true
	}
	a, b := kb[mt.orig.ID], kb[mt.mut.ID]
	w := mt.orig.Width
	same := a.zero.And(b.zero).Or(a.one.And(b.one))
	return ones(w).And(mt.dem).And(same.Not()).IsZero()
}

// exhaustRun is one candidate's exhaustion: the pieces analysed and the
// values evaluated.
type exhaustRun struct {
	pieces, points int
	sim            *rtl.Sim
	why            string // why the run gave up ("" while it has not)
}

// cover settles box b, which differs from the box of mt.work's analysis
// in the cut inputs changed, or splits it; false when some value differs
// or a budget runs out. mt.work is as before on return.
func (mt *miter) cover(r *exhaustRun, b box, changed uint64) bool {
	if np := b.points(); np <= exhaustLeaf {
		if r.points+int(np) > exhaustPoints {
			r.why = fmt.Sprintf("more than %d values to evaluate", exhaustPoints)
			return false
		}
		r.points += int(np)
		return mt.evaluate(r, b)
	}
	if r.pieces == exhaustPieces {
		r.why = fmt.Sprintf("more than %d pieces to analyse", exhaustPieces)
		return false
	}
	r.pieces++
	var saved []known
	for _, x := range mt.m.Nodes {
		if mt.deps[x.ID]&changed != 0 {
			saved = append(saved, mt.work[x.ID])
		}
	}
	defer func() {
		j := 0
		for _, x := range mt.m.Nodes {
			if mt.deps[x.ID]&changed != 0 {
				mt.work[x.ID] = saved[j]
				j++
			}
		}
	}()
	if !mt.analyse(b, changed) || mt.settled(mt.work) {
		return true
	}
	// split the narrowest cut node that is not one value (a flag or a
	// short field first: a wide one is often monotone within a piece of
	// the others), by bit length when it spans several, else in halves
	i := -1
	for j := range b.lo {
		if b.hi[j] > b.lo[j] && (i < 0 || b.hi[j]-b.lo[j] < b.hi[i]-b.lo[i]) {
			i = j
		}
	}
	lo, hi := b.lo[i], b.hi[i]
	var parts [][2]uint64
	if bits.Len64(lo) != bits.Len64(hi) {
		for l := bits.Len64(lo); l <= bits.Len64(hi); l++ {
			s, e := uint64(0), uint64(0)
			if l > 0 {
				s, e = max(lo, uint64(1)<<uint(l-1)), min(hi, maxOf(l))
			}
			parts = append(parts, [2]uint64{s, e})
		}
	} else {
		mid := lo + (hi-lo)/2
		parts = [][2]uint64{{lo, mid}, {mid + 1, hi}}
	}
	for _, pt := range parts {
		c := box{lo: slices.Clone(b.lo), hi: slices.Clone(b.hi)}
		c.lo[i], c.hi[i] = pt[0], pt[1]
		if !mt.cover(r, c, 1<<uint(i)) {
			return false
		}
	}
	return true
}

// evaluate runs the miter at every value of box b; false at the first
// where the two copies of d differ in a demanded bit.
func (mt *miter) evaluate(r *exhaustRun, b box) bool {
	n := len(b.lo)
	v := slices.Clone(b.lo)
	for i := range n {
		r.sim.SetInUint(i, v[i])
	}
	for {
		if !r.sim.Out(0).Xor(r.sim.Out(1)).And(mt.dem).IsZero() {
			r.why = fmt.Sprintf("the copies differ at cut values %v", v)
			return false
		}
		i := 0
		for ; i < n; i++ {
			if v[i] < b.hi[i] {
				v[i]++
				r.sim.SetInUint(i, v[i])
				break
			}
			v[i] = b.lo[i]
			r.sim.SetInUint(i, v[i])
		}
		if i == n {
			return true
		}
	}
}

// exhaustProof is rule 10 (see above): a proof, or "".
func (p *prover) exhaustProof(mu Mutant) (string, error) {
	n := p.f.Nodes[mu.NodeID]
	for _, d := range p.postDominators(n) {
		for _, byInputs := range []bool{true, false} {
			proof, err := p.exhaustAt(mu, n, d, byInputs)
			if err != nil || proof != "" {
				return proof, err
			}
		}
	}
	return "", nil
}

// exhaustAt tries rule 10 with d and the input cut (byInputs) or the
// minimum cut.
func (p *prover) exhaustAt(mu Mutant, n, d *rtl.Node, byInputs bool) (string, error) {
	mt, err := p.newMiter(mu, n, d, byInputs)
	if err != nil || mt == nil {
		return "", err
	}
	sim, err := rtl.NewSim(mt.m)
	if err != nil {
		return "", fmt.Errorf("grade: exhaustion of mutant %s: %w", mu, err)
	}
	r := &exhaustRun{sim: sim}
	b := box{lo: make([]uint64, len(mt.cut)), hi: make([]uint64, len(mt.cut))}
	for i := range mt.cut {
		b.lo[i], b.hi[i] = mt.cutKnown[i].lo, mt.cutKnown[i].hi
	}
	varying := 0
	for i := range b.lo {
		varying += b2u(b.hi[i] > b.lo[i])
	}
	if varying > exhaustDims {
		return "", nil
	}
	if !mt.probe(r, b) || !mt.cover(r, b, ^uint64(0)) {
		return "", nil
	}
	var names []string
	fixed := 0
	for i, x := range mt.cut {
		if b.lo[i] == b.hi[i] {
			fixed++
			continue
		}
		names = append(names, fmt.Sprintf("%s in [%d, %d]", x.Name, b.lo[i], b.hi[i]))
	}
	how := "the minimum cut"
	if byInputs {
		how = "the input ports"
	}
	return fmt.Sprintf("exhaustion: every output reads the change through %s, which is equal in the original and the mutant (on its observable bits 0x%s) for every value of %s it depends on (%s; %d more nodes of one value): %d pieces settled by the value analysis, %d values evaluated",
		d.Name, mt.dem.Hex(d.Width), how, strings.Join(names, ", "), fixed, r.pieces, r.points), nil
}

// probe evaluates the miter at exhaustProbes values of box b (its two
// corners and values drawn by a fixed-seed generator); false at the first
// where the copies differ.
func (mt *miter) probe(r *exhaustRun, b box) bool {
	rng := rand.New(rand.NewPCG(uint64(len(mt.m.Nodes)), 14))
	for k := range exhaustProbes {
		for i := range b.lo {
			v := b.lo[i]
			switch {
			case k == 1:
				v = b.hi[i]
			case k > 1 && b.hi[i] > b.lo[i]:
				v = b.lo[i] + rng.Uint64N(b.hi[i]-b.lo[i]+1)
				if b.hi[i]-b.lo[i] == ^uint64(0) {
					v = rng.Uint64()
				}
			}
			r.sim.SetInUint(i, v)
		}
		if !r.sim.Out(0).Xor(r.sim.Out(1)).And(mt.dem).IsZero() {
			return false
		}
	}
	return true
}
