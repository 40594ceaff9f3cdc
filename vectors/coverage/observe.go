package coverage

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/rtl"
)

// Observed coverage (docs/vectors.md "Observed coverage"): a bin hit counts
// only on a vector where its node is observable at a module output.
//
// Meaning. On one vector (every node at its evaluated value), node n is
// observable when some single-bit flip of n's value, with n's fanin left as
// it is and every node downstream of n re-evaluated, changes the value of
// some output port. A mux point's perturbation is its own mutation instead:
// the mux's value replaced by its unselected arm (the select inverted at
// that mux alone).
//
// How it is decided. A backward pass over the evaluated netlist (backward)
// gives each node a candidate mask: the bits whose single flip a chain of
// exact local rules carries to an output (localMask, one rule per op). A
// candidate is then confirmed by simulation (reaches): the flip is applied
// and its effect propagated forward, event by event, through every node
// whose value it changes; the node is observed only when an output port
// changes. So an observed hit is always witnessed by a simulated flip that
// reaches an output (the claim never over-reports, whatever reconvergence
// or multi-bit carries do), while a bit the backward pass excludes is never
// tried (a change that only reconvergent or multi-bit effects carry to an
// output may be missed: the figure may under-report, never over-report).

// observer holds one vector's evaluation and decides observability on it.
// One goroutine per observer.
type observer struct {
	f     *rtl.Module
	fan   [][]int32 // consumers of each node, ascending, each once
	isOut []bool    // the node drives an output port
	small []bool    // the node and its operands are at most 64 bits
	vals  []rtl.Bits
	mask  []rtl.Bits // candidate mask per node (backward)
	// forward witness simulation
	gen    uint32
	chGen  []uint32 // chGen[i] == gen: nv[i] holds node i's changed value
	nv     []rtl.Bits
	queued []uint32
	heap   []int32
	// per-vector memo of decisions
	vgen    uint32
	flipGen []uint32
	flipRes []bool
	muxGen  []uint32
	muxRes  []bool
	argBuf  [8]rtl.Bits
	// statistics: simulated flips and perturbations
	sims int64
}

// newObserver prepares an observer of the flattened combinational module f.
func newObserver(f *rtl.Module) *observer {
	n := len(f.Nodes)
	o := &observer{f: f, fan: make([][]int32, n), isOut: make([]bool, n), small: make([]bool, n),
		vals: make([]rtl.Bits, n), mask: make([]rtl.Bits, n), chGen: make([]uint32, n), nv: make([]rtl.Bits, n),
		queued: make([]uint32, n), flipGen: make([]uint32, n), flipRes: make([]bool, n), muxGen: make([]uint32, n), muxRes: make([]bool, n)}
	for _, nd := range f.Nodes {
		sm := nd.Width <= 64
		for k, a := range nd.Args {
			sm = sm && a.Width <= 64
			if !argSeen(nd, k) {
				o.fan[a.ID] = append(o.fan[a.ID], int32(nd.ID))
			}
		}
		o.small[nd.ID] = sm
	}
	for _, p := range f.Outputs {
		o.isOut[p.Node.ID] = true
	}
	return o
}

// argSeen reports whether nd.Args[k] also appears at an index below k.
func argSeen(nd *rtl.Node, k int) bool {
	for j := 0; j < k; j++ {
		if nd.Args[j] == nd.Args[k] {
			return true
		}
	}
	return false
}

// argDup reports whether nd.Args[k] appears at any other index.
func argDup(nd *rtl.Node, k int) bool {
	for j, a := range nd.Args {
		if j != k && a == nd.Args[k] {
			return true
		}
	}
	return false
}

// load takes the evaluated values of every node (vals[i] of f.Nodes[i]),
// runs the backward pass and starts a new vector's memo.
func (o *observer) load(val func(id int) rtl.Bits) {
	for i := range o.vals {
		o.vals[i] = val(i)
	}
	o.vgen++
	if o.vgen == 0 { // wrapped: clear the memo stamps
		clear(o.flipGen)
		clear(o.muxGen)
		o.vgen = 1
	}
	o.backward()
}

// ones returns the w low bits set.
func ones(w int) rtl.Bits {
	return rtl.Bits{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}.Trunc(w)
}

// setBit returns b with bit i set.
func setBit(b rtl.Bits, i int) rtl.Bits {
	b[i/64] |= 1 << uint(i%64)
	return b
}

// flipBit returns b with bit i inverted.
func flipBit(b rtl.Bits, i int) rtl.Bits {
	b[i/64] ^= 1 << uint(i%64)
	return b
}

// nextSet returns the lowest set bit of b at or above i, or -1.
func nextSet(b rtl.Bits, i int) int {
	for w := i / 64; w < len(b); w++ {
		x := b[w]
		if w == i/64 {
			x &= ^uint64(0) << uint(i%64)
		}
		if x != 0 {
			return w*64 + bits.TrailingZeros64(x)
		}
	}
	return -1
}

// backward computes every node's candidate mask from the outputs back: an
// output port's node has all its bits; a node's mask is the union over its
// consumers c of localMask(c, k, mask[c]) for each operand position k it
// holds (a node is a candidate if it is one through any fanout).
func (o *observer) backward() {
	clear(o.mask)
	for _, p := range o.f.Outputs {
		o.mask[p.Node.ID] = ones(p.Node.Width)
	}
	for i := len(o.f.Nodes) - 1; i >= 0; i-- {
		nd := o.f.Nodes[i]
		if o.mask[i].IsZero() || nd.Op.IsSource() {
			continue
		}
		for k, a := range nd.Args {
			if argSeen(nd, k) || a.Op == rtl.OpConst {
				continue
			}
			o.mask[a.ID] = o.mask[a.ID].Or(o.localMask(nd, k, o.mask[i]))
		}
	}
}

// eval evaluates nd from the operand values get returns.
func (o *observer) eval(nd *rtl.Node, get func(a *rtl.Node) rtl.Bits) rtl.Bits {
	if o.small[nd.ID] && len(nd.Args) <= 3 {
		var x [3]uint64
		for k, a := range nd.Args {
			x[k] = get(a)[0]
		}
		if r, ok := rtl.EvalOp64(nd, x[0], x[1], x[2]); ok {
			return rtl.Bits{r}
		}
	}
	args := o.argBuf[:0]
	for _, a := range nd.Args {
		args = append(args, get(a))
	}
	return rtl.EvalOp(nd, args)
}

// evalChanged evaluates nd reading each operand's changed value where the
// current witness simulation (generation g) set one.
func (o *observer) evalChanged(nd *rtl.Node, g uint32) rtl.Bits {
	if o.small[nd.ID] && len(nd.Args) <= 3 {
		var x [3]uint64
		for k, a := range nd.Args {
			if o.chGen[a.ID] == g {
				x[k] = o.nv[a.ID][0]
			} else {
				x[k] = o.vals[a.ID][0]
			}
		}
		if r, ok := rtl.EvalOp64(nd, x[0], x[1], x[2]); ok {
			return rtl.Bits{r}
		}
	}
	args := o.argBuf[:0]
	for _, a := range nd.Args {
		if o.chGen[a.ID] == g {
			args = append(args, o.nv[a.ID])
		} else {
			args = append(args, o.vals[a.ID])
		}
	}
	return rtl.EvalOp(nd, args)
}

// localMask is the exact local rule of op nd for its operand k: the bits j
// of nd.Args[k] such that flipping bit j (at every operand position holding
// that node) changes nd's value in some bit of m, the other operands at
// their evaluated values. The per-op closed forms are listed in
// docs/vectors.md "Observed coverage"; TestLocalMaskRules checks each
// against bruteMask.
func (o *observer) localMask(nd *rtl.Node, k int, m rtl.Bits) rtl.Bits {
	if argDup(nd, k) {
		return o.bruteMask(nd, k, m)
	}
	a := nd.Args[k]
	aw, w := a.Width, nd.Width
	val := func(j int) rtl.Bits { return o.vals[nd.Args[j].ID] }
	switch nd.Op {
	case rtl.OpAs, rtl.OpZExt:
		return m.Trunc(aw)
	case rtl.OpSExt:
		r := m.Trunc(aw - 1)
		if !m.Shr(uint(aw - 1)).IsZero() {
			r = setBit(r, aw-1)
		}
		return r
	case rtl.OpSlice:
		return m.Shl(uint(nd.K)).Trunc(aw)
	case rtl.OpConcat:
		off := 0
		for j := k + 1; j < len(nd.Args); j++ {
			off += nd.Args[j].Width
		}
		return m.Shr(uint(off)).Trunc(aw)
	case rtl.OpNot, rtl.OpXor:
		return m
	case rtl.OpAnd:
		return m.And(val(1 - k))
	case rtl.OpOr:
		return m.And(val(1 - k).Not())
	case rtl.OpShlC:
		return m.Shr(uint(nd.K))
	case rtl.OpLShrC:
		return m.Shl(uint(nd.K)).Trunc(w)
	case rtl.OpAShrC:
		return ashrMask(m, nd.K, w)
	case rtl.OpShl, rtl.OpLShr, rtl.OpAShr:
		if k == 1 {
			return o.bruteMask(nd, k, m) // the amount: re-evaluate per bit
		}
		s := val(1).SmallShift()
		switch {
		case nd.Op == rtl.OpAShr:
			return ashrMask(m, int(min(s, uint(w-1))), w)
		case s >= uint(w):
			return rtl.Bits{} // every bit shifted out
		case nd.Op == rtl.OpShl:
			return m.Shr(s)
		}
		return m.Shl(s).Trunc(w)
	case rtl.OpAdd, rtl.OpSub:
		return o.addMask(nd, k, m)
	case rtl.OpMul:
		return o.mulMask(nd, k, m)
	case rtl.OpEq, rtl.OpNe:
		if !m.Bit(0) {
			return rtl.Bits{}
		}
		d := val(0).Xor(val(1))
		if d.IsZero() {
			return ones(aw) // equal: any flip makes them differ
		}
		if j := nextSet(d, 0); nextSet(d, j+1) < 0 {
			return d // one bit apart: flipping it makes them equal
		}
		return rtl.Bits{}
	case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		if !m.Bit(0) {
			return rtl.Bits{}
		}
		if aw <= 64 {
			return cmpMask64(nd, k, val(0)[0], val(1)[0], o.vals[nd.ID][0])
		}
		return o.bruteMask(nd, k, m)
	case rtl.OpMux:
		sel := val(0).Bit(0)
		switch {
		case k == 0:
			if m.And(val(1).Xor(val(2))).IsZero() {
				return rtl.Bits{}
			}
			return rtl.Bits{1}
		case (k == 1) == sel:
			return m // the selected arm passes through
		}
		return rtl.Bits{} // the unselected arm is not seen
	case rtl.OpROM:
		if aw > 64 {
			return o.bruteMask(nd, k, m)
		}
		addr := val(0)[0]
		at := func(x uint64) rtl.Bits {
			if x < uint64(len(nd.ROM)) {
				return nd.ROM[x]
			}
			return rtl.Bits{}
		}
		cur := at(addr)
		var r rtl.Bits
		for j := 0; j < aw; j++ {
			if !cur.Xor(at(addr ^ 1<<uint(j))).And(m).IsZero() {
				r = setBit(r, j)
			}
		}
		return r
	}
	return o.bruteMask(nd, k, m)
}

// cmpMask64 is the rule of an ordered compare of operands of at most 64
// bits (a, b their values, r the result): bit j of operand k is in the mask
// when the compare with that bit flipped gives the other result; the
// compare is re-evaluated per bit (no closed form), on uint64 values.
func cmpMask64(nd *rtl.Node, k int, a, b, r uint64) rtl.Bits {
	w := nd.Args[0].Width
	if nd.Args[0].Signed {
		flip := uint64(1) << uint(w-1)
		a, b = a^flip, b^flip
	}
	var m uint64
	for j := 0; j < w; j++ {
		x, y := a, b
		if k == 0 {
			x ^= 1 << uint(j)
		} else {
			y ^= 1 << uint(j)
		}
		var c bool
		switch nd.Op {
		case rtl.OpLt:
			c = x < y
		case rtl.OpLe:
			c = x <= y
		case rtl.OpGt:
			c = x > y
		default:
			c = x >= y
		}
		if c != (r == 1) {
			m |= 1 << uint(j)
		}
	}
	return rtl.Bits{m}
}

// ashrMask is the rule of an arithmetic right shift of a w-bit value by k
// (k >= w acts as w-1): bit j in [k, w-2] moves to j-k; the top bit fills
// bits w-1-k .. w-1.
func ashrMask(m rtl.Bits, k, w int) rtl.Bits {
	k = min(k, w-1)
	r := m.Shl(uint(k)).Trunc(w - 1)
	if !m.Shr(uint(w - 1 - k)).IsZero() {
		r = setBit(r, w-1)
	}
	return r
}

// addMask is the rule of a + b and a - b (mod 2^w): flipping bit j of an
// operand adds or subtracts 2^j to the result s, which changes exactly the
// bits j .. e of s, e the first bit at or above j where s is 0 (adding) or
// 1 (subtracting), or w-1 if there is none (the carry or borrow wraps out).
// Bit j is in the mask when m has a bit in j .. e.
func (o *observer) addMask(nd *rtl.Node, k int, m rtl.Bits) rtl.Bits {
	w := nd.Width
	s := o.vals[nd.ID]
	x := o.vals[nd.Args[k].ID]
	sub := nd.Op == rtl.OpSub && k == 1
	notS := s.Not().Trunc(w)
	var r rtl.Bits
	for j := 0; j < w; j++ {
		mj := nextSet(m, j)
		if mj < 0 {
			break
		}
		up := !x.Bit(j) != sub // the result increases by 2^j
		var e int
		if up {
			e = nextSet(notS, j)
		} else {
			e = nextSet(s, j)
		}
		if e < 0 || mj <= e {
			r = setBit(r, j)
		}
	}
	return r
}

// mulMask is the rule of the full product a * b (w = a.W + b.W bits, no
// truncation): flipping bit j of operand x changes x's value by +-2^j (the
// top bit of a signed x by -+2^(W-1)), so the product by +-2^j times the
// other operand's value; the new product is computed exactly and the bits
// that change intersected with m (none when the other operand is 0).
func (o *observer) mulMask(nd *rtl.Node, k int, m rtl.Bits) rtl.Bits {
	w := nd.Width
	x, y := nd.Args[k], nd.Args[1-k]
	xv, yv := o.vals[x.ID], o.vals[y.ID]
	if yv.IsZero() {
		return rtl.Bits{}
	}
	if nd.Signed {
		yv = yv.SignExt(y.Width).Trunc(w)
	}
	p := o.vals[nd.ID]
	var r rtl.Bits
	for j := 0; j < x.Width; j++ {
		if nextSet(m, j) < 0 {
			break // the change starts at bit j or above
		}
		d := yv.Shl(uint(j)).Trunc(w)
		up := !xv.Bit(j)
		if nd.Signed && j == x.Width-1 {
			up = !up
		}
		var q rtl.Bits
		if up {
			q = p.Add(d).Trunc(w)
		} else {
			q = p.Sub(d).Trunc(w)
		}
		if !q.Xor(p).And(m).IsZero() {
			r = setBit(r, j)
		}
	}
	return r
}

// bruteMask is localMask by re-evaluation: for each bit j of nd.Args[k],
// nd is evaluated with that bit flipped at every operand position holding
// the same node, and bit j is in the mask when the value changes in a bit
// of m. It is the rule of the ordered compares and of a variable shift's
// amount, the fallback of an operand given twice, and the oracle of
// TestLocalMaskRules.
func (o *observer) bruteMask(nd *rtl.Node, k int, m rtl.Bits) rtl.Bits {
	a := nd.Args[k]
	cur := o.vals[nd.ID]
	var r rtl.Bits
	for j := 0; j < a.Width; j++ {
		fv := flipBit(o.vals[a.ID], j)
		v := o.eval(nd, func(x *rtl.Node) rtl.Bits {
			if x == a {
				return fv
			}
			return o.vals[x.ID]
		})
		if !v.Xor(cur).And(m).IsZero() {
			r = setBit(r, j)
		}
	}
	return r
}

// reaches reports whether giving node id the value v (its fanin as
// evaluated, every node downstream re-evaluated) changes the value of some
// output port: an event-driven forward simulation that follows only the
// nodes whose value changes, in ID (topological) order.
func (o *observer) reaches(id int, v rtl.Bits) bool {
	if v == o.vals[id] {
		return false
	}
	if o.isOut[id] {
		return true
	}
	o.sims++
	o.gen++
	if o.gen == 0 {
		clear(o.chGen)
		clear(o.queued)
		o.gen = 1
	}
	g := o.gen
	o.chGen[id], o.nv[id] = g, v
	o.heap = o.heap[:0]
	o.pushFan(id)
	for len(o.heap) > 0 {
		i := o.pop()
		nd := o.f.Nodes[i]
		r := o.evalChanged(nd, g)
		if r == o.vals[i] {
			continue
		}
		if o.isOut[i] {
			return true
		}
		o.chGen[i], o.nv[i] = g, r
		o.pushFan(int(i))
	}
	return false
}

func (o *observer) pushFan(id int) {
	for _, c := range o.fan[id] {
		if o.queued[c] == o.gen {
			continue
		}
		o.queued[c] = o.gen
		// sift up
		h := append(o.heap, c)
		i := len(h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if h[p] <= h[i] {
				break
			}
			h[p], h[i] = h[i], h[p]
			i = p
		}
		o.heap = h
	}
}

func (o *observer) pop() int32 {
	h := o.heap
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	i := 0
	for {
		l, r, s := 2*i+1, 2*i+2, i
		if l < len(h) && h[l] < h[s] {
			s = l
		}
		if r < len(h) && h[r] < h[s] {
			s = r
		}
		if s == i {
			break
		}
		h[i], h[s] = h[s], h[i]
		i = s
	}
	o.heap = h
	return top
}

// exactWidth is the widest node whose every bit is tried: observability of
// a node of at most exactWidth bits is exact (its candidate bits first,
// then the rest); a wider node tries its candidate bits only.
const exactWidth = 8

// flipObservable reports whether node id is observable on the loaded
// vector: some bit of its candidate mask, flipped, reaches an output
// (tried lowest bit first), or, for a node of at most exactWidth bits, any
// other bit does (memoized per vector).
func (o *observer) flipObservable(id int) bool {
	if o.flipGen[id] == o.vgen {
		return o.flipRes[id]
	}
	res := false
	m := o.mask[id]
	for j := nextSet(m, 0); j >= 0; j = nextSet(m, j+1) {
		if o.reaches(id, flipBit(o.vals[id], j)) {
			res = true
			break
		}
	}
	if w := o.f.Nodes[id].Width; !res && w <= exactWidth {
		for j := 0; j < w; j++ {
			if !m.Bit(j) && o.reaches(id, flipBit(o.vals[id], j)) {
				res = true
				break
			}
		}
	}
	o.flipGen[id], o.flipRes[id] = o.vgen, res
	return res
}

// muxObservable reports whether mux id's value replaced by its unselected
// arm reaches an output on the loaded vector (memoized per vector).
func (o *observer) muxObservable(id int) bool {
	if o.muxGen[id] == o.vgen {
		return o.muxRes[id]
	}
	nd := o.f.Nodes[id]
	other := nd.Args[1]
	if o.vals[nd.Args[0].ID].Bit(0) {
		other = nd.Args[2]
	}
	res := o.reaches(id, o.vals[other.ID])
	o.muxGen[id], o.muxRes[id] = o.vgen, res
	return res
}
