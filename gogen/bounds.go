package gogen

import (
	"math/big"

	"github.com/hpccgold/hpccgold/rtl"
)

// interval is what the printer knows of a node's value for every input: its
// canonical bit pattern, read as an unsigned integer, lies in [lo, hi]. The
// analysis is a forward pass in node order with the rules of bound; each
// rule is sound (it may widen an interval to the full range 0..2^W-1, never
// drop a value), so the facts the printer draws from it hold for every
// input:
//
//   - a node with lo == hi is that constant (printed as a literal, and a mux
//     on it prints its chosen arm only);
//   - a result that cannot reach 2^W needs no mask after its operation;
//   - a node of more than 64 bits whose hi is below 2^63 is held in one
//     uint64 (its operations cannot carry out of it).
type interval struct{ lo, hi *big.Int }

var one = big.NewInt(1)

// full is [0, 2^w-1].
func full(w int) interval {
	return interval{new(big.Int), new(big.Int).Sub(new(big.Int).Lsh(one, uint(w)), one)}
}

func point(v *big.Int) interval { return interval{new(big.Int).Set(v), new(big.Int).Set(v)} }

func (iv interval) isConst() bool { return iv.lo.Cmp(iv.hi) == 0 }

// fits reports whether every value is below 2^w.
func (iv interval) fits(w int) bool { return iv.hi.BitLen() <= w }

// nonneg reports whether a signed node of width w holding iv is never
// negative (its top bit is always 0).
func (iv interval) nonneg(w int) bool { return iv.fits(w - 1) }

// orHi is the least 2^k-1 at or above x and y (a bound of x|y and x^y).
func orHi(x, y *big.Int) *big.Int {
	n := max(x.BitLen(), y.BitLen())
	return new(big.Int).Sub(new(big.Int).Lsh(one, uint(n)), one)
}

func minB(x, y *big.Int) *big.Int {
	if x.Cmp(y) < 0 {
		return x
	}
	return y
}

func maxB(x, y *big.Int) *big.Int {
	if x.Cmp(y) > 0 {
		return x
	}
	return y
}

// bounds returns the interval of every node of m, indexed by node ID.
func bounds(m *rtl.Module) []interval {
	iv := make([]interval, len(m.Nodes))
	for _, n := range m.Nodes {
		iv[n.ID] = bound(n, iv)
	}
	return iv
}

// bound is the interval of node n from its operands' intervals.
func bound(n *rtl.Node, iv []interval) interval {
	if n.Op != rtl.OpConst && n.Op != rtl.OpInput && len(n.Args) > 0 {
		vals := make([]rtl.Bits, len(n.Args))
		all := true
		for i, a := range n.Args {
			if !iv[a.ID].isConst() {
				all = false
				break
			}
			vals[i] = rtl.BitsOfBig(iv[a.ID].lo, a.Width)
		}
		if all {
			if v, ok := foldConst(n, vals); ok {
				return point(v.Big())
			}
		}
	}
	w := n.Width
	all := full(w)
	arg := func(i int) interval { return iv[n.Args[i].ID] }
	// inRange returns [lo, hi] when hi < 2^w (no wrap), else the full range.
	inRange := func(lo, hi *big.Int) interval {
		if lo.Sign() < 0 || hi.BitLen() > w {
			return all
		}
		return interval{lo, hi}
	}
	switch n.Op {
	case rtl.OpConst:
		return point(n.Value.Trunc(w).Big())
	case rtl.OpAdd:
		a, b := arg(0), arg(1)
		return inRange(new(big.Int).Add(a.lo, b.lo), new(big.Int).Add(a.hi, b.hi))
	case rtl.OpSub:
		a, b := arg(0), arg(1)
		return inRange(new(big.Int).Sub(a.lo, b.hi), new(big.Int).Sub(a.hi, b.lo))
	case rtl.OpMul:
		if n.Signed {
			a, b := arg(0), arg(1)
			if a.nonneg(n.Args[0].Width) && b.nonneg(n.Args[1].Width) {
				return inRange(new(big.Int).Mul(a.lo, b.lo), new(big.Int).Mul(a.hi, b.hi))
			}
			return all
		}
		a, b := arg(0), arg(1)
		return inRange(new(big.Int).Mul(a.lo, b.lo), new(big.Int).Mul(a.hi, b.hi))
	case rtl.OpAnd:
		a, b := arg(0), arg(1)
		if a.isConst() && b.isConst() {
			return point(new(big.Int).And(a.lo, b.lo))
		}
		return interval{new(big.Int), new(big.Int).Set(minB(a.hi, b.hi))}
	case rtl.OpOr:
		a, b := arg(0), arg(1)
		if a.isConst() && b.isConst() {
			return point(new(big.Int).Or(a.lo, b.lo))
		}
		return interval{new(big.Int).Set(maxB(a.lo, b.lo)), orHi(a.hi, b.hi)}
	case rtl.OpXor:
		a, b := arg(0), arg(1)
		if a.isConst() && b.isConst() {
			return point(new(big.Int).Xor(a.lo, b.lo))
		}
		return interval{new(big.Int), orHi(a.hi, b.hi)}
	case rtl.OpNot:
		a := arg(0)
		return interval{new(big.Int).Sub(all.hi, a.hi), new(big.Int).Sub(all.hi, a.lo)}
	case rtl.OpShlC:
		a := arg(0)
		if n.K >= w {
			return point(new(big.Int))
		}
		return inRange(new(big.Int).Lsh(a.lo, uint(n.K)), new(big.Int).Lsh(a.hi, uint(n.K)))
	case rtl.OpLShrC:
		a := arg(0)
		return interval{new(big.Int).Rsh(a.lo, uint(n.K)), new(big.Int).Rsh(a.hi, uint(n.K))}
	case rtl.OpAShrC:
		a := arg(0)
		if a.nonneg(w) {
			return interval{new(big.Int).Rsh(a.lo, uint(n.K)), new(big.Int).Rsh(a.hi, uint(n.K))}
		}
		return all
	case rtl.OpShl:
		a, b := arg(0), arg(1)
		if b.hi.BitLen() > 16 {
			return all
		}
		return inRange(new(big.Int).Lsh(a.lo, uint(b.lo.Uint64())), new(big.Int).Lsh(a.hi, uint(b.hi.Uint64())))
	case rtl.OpLShr:
		a, b := arg(0), arg(1)
		lo := new(big.Int)
		if b.hi.BitLen() <= 16 {
			lo.Rsh(a.lo, uint(b.hi.Uint64()))
		}
		return interval{lo, new(big.Int).Set(a.hi)}
	case rtl.OpAShr:
		a := arg(0)
		if a.nonneg(w) {
			return interval{new(big.Int), new(big.Int).Set(a.hi)}
		}
		return all
	case rtl.OpEq, rtl.OpNe, rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		if v, ok := decide(n, arg(0), arg(1)); ok {
			return point(big.NewInt(int64(v)))
		}
		return full(1)
	case rtl.OpMux:
		s, t, f := arg(0), arg(1), arg(2)
		if s.isConst() {
			if s.lo.Sign() != 0 {
				return t
			}
			return f
		}
		return interval{new(big.Int).Set(minB(t.lo, f.lo)), new(big.Int).Set(maxB(t.hi, f.hi))}
	case rtl.OpSlice:
		a := arg(0)
		lo, hi := new(big.Int).Rsh(a.lo, uint(n.K)), new(big.Int).Rsh(a.hi, uint(n.K))
		if hi.BitLen() <= w { // no bit at or above K+W: the slice is a>>K, monotonic
			return interval{lo, hi}
		}
		return all
	case rtl.OpConcat:
		lo, hi := new(big.Int), new(big.Int)
		for i, p := range n.Args {
			lo.Lsh(lo, uint(p.Width)).Or(lo, arg(i).lo)
			hi.Lsh(hi, uint(p.Width)).Or(hi, arg(i).hi)
		}
		return interval{lo, hi}
	case rtl.OpZExt:
		return arg(0)
	case rtl.OpAs:
		return arg(0)
	case rtl.OpSExt:
		a := arg(0)
		if a.nonneg(n.Args[0].Width) {
			return a
		}
		return all
	case rtl.OpROM:
		a := arg(0)
		if a.hi.BitLen() > 20 {
			return all
		}
		lo, hi := new(big.Int), new(big.Int)
		first := true
		for addr := a.lo.Uint64(); addr <= a.hi.Uint64(); addr++ {
			v := new(big.Int)
			if addr < uint64(len(n.ROM)) {
				v = n.ROM[addr].Big()
			}
			if first || v.Cmp(lo) < 0 {
				lo = v
			}
			if first || v.Cmp(hi) > 0 {
				hi = v
			}
			first = false
		}
		return interval{lo, hi}
	}
	return all // inputs and anything else: any value
}

// decide returns the value of compare n of operands with intervals a and b
// when the intervals decide it.
func decide(n *rtl.Node, a, b interval) (uint64, bool) {
	w := n.Args[0].Width
	if n.Args[0].Signed && !(a.nonneg(w) && b.nonneg(w)) {
		return 0, false // the pattern order is not the signed order
	}
	lt := a.hi.Cmp(b.lo) < 0  // a < b always
	ge := a.lo.Cmp(b.hi) >= 0 // a >= b always
	gt := a.lo.Cmp(b.hi) > 0  // a > b always
	le := a.hi.Cmp(b.lo) <= 0 // a <= b always
	eq := a.isConst() && b.isConst() && a.lo.Cmp(b.lo) == 0
	ne := lt || gt
	b2 := func(yes, no bool) (uint64, bool) {
		if yes {
			return 1, true
		}
		if no {
			return 0, true
		}
		return 0, false
	}
	switch n.Op {
	case rtl.OpEq:
		return b2(eq, ne)
	case rtl.OpNe:
		return b2(ne, eq)
	case rtl.OpLt:
		return b2(lt, ge)
	case rtl.OpLe:
		return b2(le, gt)
	case rtl.OpGt:
		return b2(gt, le)
	default:
		return b2(ge, lt)
	}
}

// foldConst evaluates node n on constant operands vals by building the
// same operation on constants in a scratch module, which rtl's builder
// folds to a constant (rtl's one definition of every op's semantics).
func foldConst(n *rtl.Node, vals []rtl.Bits) (rtl.Bits, bool) {
	t := rtl.NewModule("fold", "")
	a := make([]*rtl.Node, len(n.Args))
	for i, x := range n.Args {
		a[i] = t.ConstBits(x.Width, x.Signed, vals[i])
	}
	var r *rtl.Node
	switch n.Op {
	case rtl.OpAdd:
		r = t.Add(a[0], a[1])
	case rtl.OpSub:
		r = t.Sub(a[0], a[1])
	case rtl.OpMul:
		r = t.Mul(a[0], a[1])
	case rtl.OpAnd:
		r = t.And(a[0], a[1])
	case rtl.OpOr:
		r = t.Or(a[0], a[1])
	case rtl.OpXor:
		r = t.Xor(a[0], a[1])
	case rtl.OpNot:
		r = t.Not(a[0])
	case rtl.OpShlC:
		r = t.ShlC(a[0], n.K)
	case rtl.OpLShrC:
		r = t.LShrC(a[0], n.K)
	case rtl.OpAShrC:
		r = t.AShrC(a[0], n.K)
	case rtl.OpShl:
		r = t.Shl(a[0], a[1])
	case rtl.OpLShr:
		r = t.LShr(a[0], a[1])
	case rtl.OpAShr:
		r = t.AShr(a[0], a[1])
	case rtl.OpEq:
		r = t.Eq(a[0], a[1])
	case rtl.OpNe:
		r = t.Ne(a[0], a[1])
	case rtl.OpLt:
		r = t.Lt(a[0], a[1])
	case rtl.OpLe:
		r = t.Le(a[0], a[1])
	case rtl.OpGt:
		r = t.Gt(a[0], a[1])
	case rtl.OpGe:
		r = t.Ge(a[0], a[1])
	case rtl.OpMux:
		r = t.Mux(a[0], a[1], a[2])
	case rtl.OpSlice:
		r = t.Slice(a[0], n.K, n.Width)
	case rtl.OpConcat:
		r = t.Concat(a...)
	case rtl.OpZExt:
		r = t.ZExt(a[0], n.Width)
	case rtl.OpSExt:
		r = t.SExt(a[0], n.Width)
	case rtl.OpAs:
		r = t.AsUnsigned(a[0])
	case rtl.OpROM:
		r = t.ROMBits(a[0], n.Width, n.ROM)
	default:
		return rtl.Bits{}, false
	}
	if t.Err() != nil || r.Op != rtl.OpConst {
		return rtl.Bits{}, false
	}
	return r.Value.Trunc(n.Width), true
}
