package grade

import (
	"fmt"
	"math/big"

	"github.com/hpccgold/hpccgold/rtl"
)

// affine is a node's value as a linear function of one node x: a*x + b +
// e with e in [elo, ehi], exact rationals, for every input of the run it
// was computed in (the error collects the floors of slices and roundings).
type affine struct {
	a, b, elo, ehi *big.Rat
}

func ratInt(v *big.Int) *big.Rat { return new(big.Rat).SetInt(v) }

// floorErr is the error of floor(v / 2^d) against v / 2^d for an integer
// v: in [-(2^d - 1)/2^d, 0].
func floorErr(d int) *big.Rat {
	den := new(big.Int).Lsh(big.NewInt(1), uint(d))
	return new(big.Rat).SetFrac(new(big.Int).Neg(new(big.Int).Sub(den, big.NewInt(1))), den)
}

func (f affine) scale(c *big.Rat) affine {
	return affine{new(big.Rat).Mul(f.a, c), new(big.Rat).Mul(f.b, c), new(big.Rat).Mul(f.elo, c), new(big.Rat).Mul(f.ehi, c)}
}

func (f affine) add(g affine) affine {
	return affine{new(big.Rat).Add(f.a, g.a), new(big.Rat).Add(f.b, g.b), new(big.Rat).Add(f.elo, g.elo), new(big.Rat).Add(f.ehi, g.ehi)}
}

func (f affine) neg() affine {
	return affine{new(big.Rat).Neg(f.a), new(big.Rat).Neg(f.b), new(big.Rat).Neg(f.ehi), new(big.Rat).Neg(f.elo)}
}

// bounds is the interval of f over x in [xlo, xhi].
func (f affine) bounds(xlo, xhi *big.Rat) (lo, hi *big.Rat) {
	p, q := new(big.Rat).Mul(f.a, xlo), new(big.Rat).Mul(f.a, xhi)
	if p.Cmp(q) > 0 {
		p, q = q, p
	}
	lo, hi = new(big.Rat).Add(p, f.b), new(big.Rat).Add(q, f.b)
	return lo.Add(lo, f.elo), hi.Add(hi, f.ehi)
}

// linearRun computes affine forms of nodes in x under what kb knows of
// every node (one run of the value analysis).
type linearRun struct {
	kb       []known
	x        *rtl.Node
	xlo, xhi *big.Rat
	memo     map[int]*affine
}

func newLinearRun(kb []known, x *rtl.Node) *linearRun {
	return &linearRun{kb: kb, x: x, xlo: ratInt(bigOf(lower(kb[x.ID], x.Width))), xhi: ratInt(bigOf(upper(kb[x.ID], x.Width))), memo: map[int]*affine{}}
}

// hi is an upper bound of n's unsigned value: the analysis' or, where it
// has one, its affine form's, whichever is lower.
func (r *linearRun) hi(n *rtl.Node) *big.Int {
	u := bigOf(upper(r.kb[n.ID], n.Width))
	if f := r.form(n); f != nil {
		_, h := f.bounds(r.xlo, r.xhi)
		fl := new(big.Int).Quo(h.Num(), h.Denom()) // h >= 0 for a node value: truncation is the floor
		if h.Sign() >= 0 && fl.Cmp(u) < 0 {
			u = fl
		}
	}
	return u
}

// lo is a lower bound of n's unsigned value, likewise.
func (r *linearRun) lo(n *rtl.Node) *big.Int {
	l := bigOf(lower(r.kb[n.ID], n.Width))
	if f := r.form(n); f != nil {
		lr, _ := f.bounds(r.xlo, r.xhi)
		if lr.Sign() > 0 {
			c := new(big.Int).Quo(new(big.Int).Add(lr.Num(), new(big.Int).Sub(lr.Denom(), big.NewInt(1))), lr.Denom()) // ceiling
			if c.Cmp(l) > 0 {
				l = c
			}
		}
	}
	return l
}

// selectBit is the value of the 1-bit node s where the analysis or the
// affine forms of a compare's operands decide it.
func (r *linearRun) selectBit(s *rtl.Node) (known, v bool) {
	if is, b := r.kb[s.ID].bit(0); is {
		return true, b
	}
	if s.Width != 1 || len(s.Args) != 2 || s.Args[0].Signed {
		return false, false
	}
	a, b := s.Args[0], s.Args[1]
	al, ah, bl, bh := r.lo(a), r.hi(a), r.lo(b), r.hi(b)
	switch s.Op {
	case rtl.OpLt, rtl.OpGe:
		if ah.Cmp(bl) < 0 {
			return true, s.Op == rtl.OpLt
		}
		if al.Cmp(bh) >= 0 {
			return true, s.Op == rtl.OpGe
		}
	case rtl.OpGt, rtl.OpLe:
		if al.Cmp(bh) > 0 {
			return true, s.Op == rtl.OpGt
		}
		if ah.Cmp(bl) <= 0 {
			return true, s.Op == rtl.OpLe
		}
	}
	return false, false
}

// resolve follows muxes whose select the run decides to the arm they take.
func (r *linearRun) resolve(n *rtl.Node) *rtl.Node {
	for n.Op == rtl.OpMux {
		is, v := r.selectBit(n.Args[0])
		if !is {
			return n
		}
		if v {
			n = n.Args[1]
		} else {
			n = n.Args[2]
		}
	}
	return n
}

// form returns n's affine form in x, or nil when the rules below give
// none. Rules (every one exact for the unsigned values of the run's
// inputs): x itself; a node the analysis fixes (a constant); zero
// extension, same-width reinterpretation and a low slice that drops no bit
// the operand can set pass the form; a mux whose select the run decides
// is its arm; sums and differences that cannot wrap add; an unsigned
// product by a constant scales (products are full width); a slice from
// bit d up that keeps every bit is floor(v / 2^d); a round-half-up sum
// zext(P >> d) + zext(P[d-1]) is floor((P + 2^(d-1)) / 2^d).
func (r *linearRun) form(n *rtl.Node) *affine {
	if f, ok := r.memo[n.ID]; ok {
		return f
	}
	r.memo[n.ID] = nil // cycles cannot occur; guards re-entry while computing
	f := r.formOf(n)
	r.memo[n.ID] = f
	return f
}

func constAffine(v *big.Int) *affine {
	z := new(big.Rat)
	return &affine{new(big.Rat), ratInt(v), z, new(big.Rat)}
}

func (r *linearRun) formOf(n *rtl.Node) *affine {
	if n == r.x {
		return &affine{big.NewRat(1, 1), new(big.Rat), new(big.Rat), new(big.Rat)}
	}
	k := r.kb[n.ID]
	if n.Op == rtl.OpConst {
		return constAffine(bigOf(n.Value.Trunc(n.Width)))
	}
	if l, u := lower(k, n.Width), upper(k, n.Width); l == u {
		return constAffine(bigOf(l))
	}
	switch n.Op {
	case rtl.OpZExt:
		return r.form(n.Args[0])
	case rtl.OpAs:
		if n.Width == n.Args[0].Width {
			return r.form(n.Args[0])
		}
	case rtl.OpMux:
		if m := r.resolve(n); m != n {
			return r.form(m)
		}
	case rtl.OpSlice:
		a := n.Args[0]
		if r.hi(a).Rsh(r.hi(a), uint(n.K)).Cmp(bigOf(ones(n.Width))) > 0 {
			return nil // drops a bit a can set
		}
		fa := r.form(a)
		if fa == nil {
			return nil
		}
		if n.K == 0 {
			return fa
		}
		g := fa.scale(new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(n.K))))
		g.elo = new(big.Rat).Add(g.elo, floorErr(n.K))
		return &g
	case rtl.OpAdd:
		if p, d, ok := roundSum(n); ok {
			if new(big.Int).Rsh(r.hi(p), uint(d)).Cmp(bigOf(ones(n.Args[0].Width))) > 0 {
				return nil
			}
			fp := r.form(p)
			if fp == nil {
				return nil
			}
			half := new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(d-1)))
			g := fp.add(affine{new(big.Rat), half, new(big.Rat), new(big.Rat)}).scale(new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(d))))
			g.elo = new(big.Rat).Add(g.elo, floorErr(d))
			if new(big.Int).Add(new(big.Int).Rsh(r.hi(p), uint(d)), big.NewInt(1)).Cmp(bigOf(ones(n.Width))) > 0 {
				return nil // could wrap
			}
			return &g
		}
		fa, fb := r.form(n.Args[0]), r.form(n.Args[1])
		if fa == nil || fb == nil || new(big.Int).Add(r.hi(n.Args[0]), r.hi(n.Args[1])).Cmp(bigOf(ones(n.Width))) > 0 {
			return nil
		}
		g := fa.add(*fb)
		return &g
	case rtl.OpSub:
		fa, fb := r.form(n.Args[0]), r.form(n.Args[1])
		if fa == nil || fb == nil || r.lo(n.Args[0]).Cmp(r.hi(n.Args[1])) < 0 {
			return nil
		}
		g := fa.add(fb.neg())
		return &g
	case rtl.OpMul:
		if n.Signed {
			return nil
		}
		fa, fb := r.form(n.Args[0]), r.form(n.Args[1])
		if fa == nil || fb == nil {
			return nil
		}
		if fb.a.Sign() == 0 && fb.elo.Sign() == 0 && fb.ehi.Sign() == 0 {
			g := fa.scale(fb.b)
			return &g
		}
		if fa.a.Sign() == 0 && fa.elo.Sign() == 0 && fa.ehi.Sign() == 0 {
			g := fb.scale(fa.b)
			return &g
		}
	case rtl.OpShlC:
		a := n.Args[0]
		if new(big.Int).Lsh(r.hi(a), uint(n.K)).Cmp(bigOf(ones(n.Width))) > 0 {
			return nil
		}
		if fa := r.form(a); fa != nil {
			g := fa.scale(new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(n.K))))
			return &g
		}
	}
	return nil
}

// roundSum recognises a round-half-up sum zext(P >> d) + zext(P[d-1])
// (d >= 1) and returns P and d.
func roundSum(n *rtl.Node) (*rtl.Node, int, bool) {
	a, b := n.Args[0], n.Args[1]
	for i := 0; i < 2; i++ {
		if a.Op == rtl.OpZExt {
			a = a.Args[0]
		}
		if b.Op == rtl.OpZExt {
			b = b.Args[0]
		}
		if a.Op == rtl.OpSlice && b.Op == rtl.OpSlice && b.Width == 1 && a.Args[0] == b.Args[0] && a.K >= 1 && b.K == a.K-1 {
			return a.Args[0], a.K, true
		}
		a, b = n.Args[1], n.Args[0]
	}
	return nil, 0, false
}

// ArmsEqualWhere reports whether the two arms of mux n are equal on every
// input where its select is val (the inputs whereBounds describes: the
// compares of the select's and/or tree bound their operands, its other
// 1-bit leaves are fixed), with the proof. In one run of the value
// analysis under those bounds, each arm is followed through the muxes
// whose select the run decides; the arms are equal when they reach the
// same node, or when, written as affine forms a*x + b + e of one of them
// (x; the rules of linearRun.form), their difference lies strictly
// between -1 and 1 over x's interval: two integers that close are equal.
// u_new = mux(any_valid, u_ewma, st_u) where no hop is valid: tau = 0, so
// u_ewma = round(st_u * 5000 * inv_t / 2^44) = st_u + round(st_u * 584 /
// 2^44) = st_u.
func ArmsEqualWhere(f *rtl.Module, n *rtl.Node, val bool) (string, bool) {
	if n.Op != rtl.OpMux {
		return "", false
	}
	sel := n.Args[0]
	if !inCone(n.Args[2], n.Args[1]) && !inCone(n.Args[1], n.Args[2]) {
		return "", false // neither arm reads the other: no relation to find (and it saves a run)
	}
	bs := whereBounds(f, sel, val)
	if len(bs) == 0 {
		return "", false
	}
	kb, ok := knownBitsUnder(f, bs...)
	if !ok {
		return "", false
	}
	probe := newLinearRun(kb, sel)
	t, e := probe.resolve(n.Args[1]), probe.resolve(n.Args[2])
	if t == e {
		return fmt.Sprintf("where %s = %d, both arms are %s (the muxes between decided)", sel.Name, b2u(val), t.Name), true
	}
	for _, x := range []*rtl.Node{e, t} {
		if lower(kb[x.ID], x.Width) == upper(kb[x.ID], x.Width) {
			continue
		}
		r := newLinearRun(kb, x)
		ft, fe := r.form(t), r.form(e)
		if ft == nil || fe == nil {
			continue
		}
		d := ft.add(fe.neg())
		lo, hi := d.bounds(r.xlo, r.xhi)
		if lo.Cmp(big.NewRat(-1, 1)) > 0 && hi.Cmp(big.NewRat(1, 1)) < 0 {
			return fmt.Sprintf("where %s = %d, %s - %s = (%s)*%s + %s + [%s, %s] lies in [%s, %s] for %s in [%s, %s] (affine forms through the decided muxes, exact floors and roundings): two integers that close are equal",
				sel.Name, b2u(val), t.Name, e.Name, d.a.RatString(), x.Name, d.b.RatString(), d.elo.RatString(), d.ehi.RatString(), lo.FloatString(6), hi.FloatString(6), x.Name, r.xlo.RatString(), r.xhi.RatString()), true
		}
	}
	return "", false
}

// inCone reports whether x (not a constant) is in the input cone of n.
func inCone(x, n *rtl.Node) bool {
	if x.Op == rtl.OpConst {
		return false
	}
	seen := map[int]bool{}
	var walk func(y *rtl.Node) bool
	walk = func(y *rtl.Node) bool {
		if y == x {
			return true
		}
		if seen[y.ID] || y.ID < x.ID { // operands precede their users
			return false
		}
		seen[y.ID] = true
		for _, a := range y.Args {
			if walk(a) {
				return true
			}
		}
		return false
	}
	return walk(n)
}
