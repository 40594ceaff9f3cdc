package grade

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// pathModule is a combinational module of 10 input bits built so that the
// path rules (paths.go) have work to do, each next to a near twin where
// the same rule must fail: flags that are never set together (an event
// kind decoded twice) and flags that can be; a saturating sum clamped
// below its saturation value (the saturation constant's -1 cannot show)
// and a clamp above part of the saturated range (it can); a signed compare
// against a negative constant; a leading-zero normalizer; a mux that a
// change also bypasses.
func pathModule(t testing.TB) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("pmod", "path-rule test module")
	a := m.In("a", 4, false)
	b := m.In("b", 4, false)
	k := m.In("k", 2, false)
	f1 := m.And(m.Eq(k, m.Const(2, false, 1)), m.Bit(a, 0))
	f2 := m.And(m.Eq(k, m.Const(2, false, 2)), m.Bit(b, 0))
	m.Out("ex", m.Or(f1, f2), "exclusive flags: or = xor")
	m.Out("nx", m.Or(m.Bit(a, 1), m.Bit(b, 1)), "flags that can both be set")
	sum := m.Add(m.ZExt(a, 5), m.ZExt(b, 5))
	sat := m.Mux(m.Gt(sum, m.Const(5, false, 15)), m.Const(4, false, 15), m.Slice(sum, 0, 4))
	nine := m.Const(4, false, 9)
	m.Out("cl", m.Mux(m.Lt(nine, sat), nine, sat), "min(sat(a+b), 9)")
	sat2 := m.Mux(m.Gt(sum, m.Const(5, false, 15)), m.Const(4, false, 15), m.Slice(sum, 0, 4))
	m.Out("cl2", m.Mux(m.Eq(k, m.Const(2, false, 3)), m.Mux(m.Lt(nine, sat2), nine, sat2), sat2), "k = 3 ? min(sat(a+b), 9) : sat(a+b)")
	m.Out("sc", m.Lt(m.AsSigned(a), m.Const(4, true, 0xd)), "a < -3, signed")
	// A normalizer: a << clz(a) over 4 bits (a = 0: shift by 4), top 2 bits.
	clz := m.Mux(m.Bit(a, 3), m.Const(3, false, 0), m.Mux(m.Bit(a, 2), m.Const(3, false, 1),
		m.Mux(m.Bit(a, 1), m.Const(3, false, 2), m.Mux(m.Bit(a, 0), m.Const(3, false, 3), m.Const(3, false, 4)))))
	norm := m.Shl(m.ZExt(a, 5), m.ZExt(clz, 5))
	m.Out("nm", m.Slice(norm, 2, 2), "bits 3..2 of a normalized")
	m.Out("kb", m.Mux(m.Eq(k, m.Const(2, false, 0)), m.Xor(a, b), m.Const(4, false, 5)), "k = 0 ? a ^ b : 5")
	// A mux that passes a ^ b only where k = 1, while a ^ b also reaches
	// the output around it (gated where k != 1): not a dominator.
	nn := m.Xor(a, b)
	s1 := m.Eq(k, m.Const(2, false, 1))
	passed := m.Mux(s1, nn, m.Const(4, false, 0))
	gate := m.Mux(s1, m.Const(4, false, 0), m.Const(4, false, 15))
	m.Out("bp", m.Concat(m.Mux(m.Eq(k, m.Const(2, false, 2)), passed, m.Const(4, false, 0)), m.And(nn, gate)), "{k = 2 ? (k = 1 ? a ^ b : 0) : 0, (a ^ b) & (k = 1 ? 0 : 15)}")
	// A max-select chain over two hops (ok = a0, b0; u' = a[3:1], b[3:1]):
	// take_i = ok_i & (!have_i | u_i > acc_i), acc_0 a constant 0. The
	// constant shows only while no hop was taken, where have is 0: "mx"
	// reads acc under have (its constant's mutants are equivalent, by the
	// guard split), "my" under k0 (killable where no hop is valid).
	chain := func() (acc, have *rtl.Node) {
		acc, have = m.Const(3, false, 0), m.Const(1, false, 0)
		for _, x := range []*rtl.Node{a, b} {
			ok, u := m.Bit(x, 0), m.Slice(x, 1, 3)
			take := m.And(ok, m.Or(m.Not(have), m.Gt(u, acc)))
			acc, have = m.Mux(take, u, acc), m.Or(have, ok)
		}
		return acc, have
	}
	acc, have := chain()
	m.Out("mx", m.Mux(have, acc, m.Const(3, false, 5)), "any valid ? max-selected u' : 5")
	acc2, _ := chain()
	m.Out("my", m.Mux(m.Bit(k, 0), acc2, m.Const(3, false, 5)), "k0 ? max-selected u' : 5")
	// A table of factors, 0 for address 0 and 3 (kr of a rejected speed
	// code): sat(a) * kr[k] clamped to 20. At the saturation value 15 a
	// non-zero factor clamps, so the saturation constant's -1 (14) cannot
	// show (by the address split: the table's interval [0, 3] holds 0),
	// while its top bit cleared (7) shows at factor 2.
	kr := m.ROM(k, 2, []uint64{0, 2, 3, 0})
	xs := m.Mux(m.Gt(a, m.Const(4, false, 11)), m.Const(4, false, 15), a)
	pr := m.Mul(xs, kr)
	m.Out("kt", m.Mux(m.Gt(pr, m.Const(6, false, 20)), m.Const(6, false, 20), pr), "min(sat(a) * kr[k], 20)")
	// A 65-bit value y = a << 61 (its top bit is a3) zero-extended to 67
	// bits and added to b: where a3 = 1 the sum is at least 2^64 in the
	// original and 2^66 + 2^65 + 2^64 in the mutant of a sign extension,
	// so a compare with 2^63 is 1 in both ("wg": the ext-swap is proved by
	// the wide lower bound of a 65-bit operand's top bit), while the
	// sum's top bits themselves ("wt") show it.
	wide := func() *rtl.Node {
		y := m.ShlC(m.ZExt(a, 65), 61)
		return m.Add(m.ZExt(y, 67), m.ZExt(b, 67))
	}
	m.Out("wg", m.Gt(wide(), m.ConstBits(67, false, rtl.BitsOf(1).Shl(63))), "(a << 61) + b > 2^63, 67 bits")
	m.Out("wt", m.Slice(wide(), 64, 3), "bits 66..64 of (a << 61) + b")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestPathRulesSound grades every mutant of pathModule over all of its
// 1024 inputs. Oracle: exhaustive simulation. No mutant that an input
// kills may have a proof (a false proof is the worst failure), and the
// path rules must prove the mutants they are for: the or of the
// exclusive flags swapped for xor, and the saturation constant 15 - 1
// under the clamp to 9; while the same swap on the flags that can both be
// set, and 15 + 1 (which wraps to 0), are killed and unproved.
func TestPathRulesSound(t *testing.T) {
	m := pathModule(t)
	v := exhaustive(t, m)
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Sites(f, 5)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(f, v)
	if err != nil {
		t.Fatal(err)
	}
	pr := newProver(f)
	byPath, proved, survived := 0, 0, 0
	verdict := map[string]string{}
	for _, mu := range all {
		mm, err := Apply(m, mu)
		if err != nil {
			t.Fatalf("%s: %v", mu, err)
		}
		kill, _, err := r.firstKill(context.Background(), mm)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := pr.prove(mu)
		if err != nil {
			t.Fatal(err)
		}
		// The path rule on its own, whatever the other rules say.
		pp := pr.pathProof(mu)
		if pp != "" {
			byPath++
		}
		if kill >= 0 && (proof != "" || pp != "") {
			t.Errorf("%s: proved equivalent (%s%s) but vector %d kills it", mu, proof, pp, kill)
		}
		if proof != "" {
			proved++
		}
		if kill < 0 {
			survived++
		}
		key := pr.near(f.Nodes[mu.NodeID]) + " " + string(mu.Operator) + " " + mu.Detail
		switch {
		case kill >= 0:
			verdict[key] = "killed"
		case proof != "":
			verdict[key] = "proved"
		default:
			verdict[key] = "gap"
		}
	}
	t.Logf("%d sites: %d survive all 1024 inputs, %d proved equivalent (%d by the path rules alone)", len(all), survived, proved, byPath)
	find := func(out, op, detail string) string {
		for k, v := range verdict {
			if strings.HasPrefix(k, "output "+out+" ") && strings.Contains(k, " "+op+" ") && strings.HasSuffix(k, detail) {
				return v
			}
		}
		return "missing"
	}
	for _, c := range []struct{ out, op, detail, want string }{
		{"ex", "op-swap", "or -> xor", "proved"},
		{"nx", "op-swap", "or -> xor", "killed"},
	} {
		if got := find(c.out, c.op, c.detail); got != c.want {
			t.Errorf("output %s, %s %s: %s, want %s", c.out, c.op, c.detail, got, c.want)
		}
	}
	// The guard split: the chain's initial constant (every mutant) under
	// have is proved; under k0 it is killed. The address split: the
	// saturation constant 15 of kt, -1 proved, top bit cleared killed.
	chainSeen, tableSeen := 0, 0
	for _, mu := range all {
		n := f.Nodes[mu.NodeID]
		if n.Op != rtl.OpConst {
			continue
		}
		outs := pr.reaches(n)
		proof, _ := pr.prove(mu)
		switch {
		case n.Width == 3 && n.Value[0] == 0 && len(outs) == 1 && (outs[0] == "mx" || outs[0] == "my") && len(pr.users[n.ID]) == 2:
			chainSeen++
			if want := outs[0] == "mx"; (proof != "") != want {
				t.Errorf("%s (output %s): proof %q, want proved %v", mu, outs[0], proof, want)
			}
			if outs[0] == "mx" && !strings.Contains(proof, "guards") {
				t.Errorf("%s: proved, but not by the guard split: %s", mu, proof)
			}
		case n.Width == 4 && n.Value[0] == 15 && len(outs) == 1 && outs[0] == "kt":
			tableSeen++
			want := mu.Operator == ConstDec
			if (proof != "") != want {
				t.Errorf("%s (output kt): proof %q, want proved %v", mu, proof, want)
			}
			if want && !strings.Contains(proof, "table addresses") {
				t.Errorf("%s: proved, but not by the address split: %s", mu, proof)
			}
		}
	}
	// The wide ext-swap: proved under the compare, killed under the slice.
	wideSeen := 0
	for _, mu := range all {
		n := f.Nodes[mu.NodeID]
		if mu.Operator != ExtSwap || n.Width != 67 || n.Args[0].Width != 65 {
			continue
		}
		wideSeen++
		outs := pr.reaches(n)
		proof, _ := pr.prove(mu)
		if want := outs[0] == "wg"; (proof != "") != want {
			t.Errorf("%s (output %s): proof %q, want proved %v", mu, outs[0], proof, want)
		}
	}
	if wideSeen != 2 {
		t.Fatalf("found %d wide ext-swap mutants, want 2", wideSeen)
	}
	if chainSeen != 6 || tableSeen != 3 {
		t.Fatalf("found %d chain-constant and %d table-saturation mutants, want 6 and 3", chainSeen, tableSeen)
	}
	// The saturation constants 15 (4 bits) of the first clamp: -1 proved,
	// +1 killed.
	sat := 0
	for _, mu := range all {
		n := f.Nodes[mu.NodeID]
		if n.Op != rtl.OpConst || n.Width != 4 || n.Value[0] != 15 || len(pr.users[n.ID]) != 1 {
			continue
		}
		mux := pr.users[n.ID][0]
		if len(pr.users[mux.ID]) != 2 || pr.users[mux.ID][0].Op != rtl.OpLt {
			continue // the clamp under k = 3 has more readers
		}
		proof, _ := pr.prove(mu)
		switch mu.Operator {
		case ConstDec:
			sat++
			if proof == "" {
				t.Errorf("%s: the saturation constant -1 under the clamp to 9 is not proved", mu)
			}
		case ConstInc:
			sat++
			if proof != "" {
				t.Errorf("%s: 15 + 1 wraps to 0 and shows below the clamp, yet proved: %s", mu, proof)
			}
		}
	}
	if sat != 2 {
		t.Fatalf("found %d of the clamp's saturation-constant mutants, want 2", sat)
	}
}

// TestValueAnalysisExhaustive checks the value analysis's new rules
// against exhaustive evaluation on small widths. Oracle: rtl.Sim of a
// two-input module over every pair of operand values in the intervals.
// For signed products, signed compares, sign extensions and shifts by a
// variable amount, every value the node takes must lie in the inferred
// interval and agree with the known bits.
func TestValueAnalysisExhaustive(t *testing.T) {
	type mk func(m *rtl.Module, a, b *rtl.Node) *rtl.Node
	cases := []struct {
		name   string
		signed bool
		f      mk
	}{
		{"smul", true, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.Mul(a, b) }},
		{"slt", true, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.Lt(a, b) }},
		{"sge", true, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.Ge(a, b) }},
		{"sext", true, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.SExt(a, 8) }},
		{"shl", false, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.Shl(a, b) }},
		{"lshr", false, func(m *rtl.Module, a, b *rtl.Node) *rtl.Node { return m.LShr(a, b) }},
	}
	const w = 4
	for _, c := range cases {
		for alo := uint64(0); alo < 1<<w; alo++ {
			for ahi := alo; ahi < 1<<w; ahi += 3 {
				for blo := uint64(0); blo < 1<<w; blo += 2 {
					for _, bhi := range []uint64{blo, min(blo+1, 15), 15} {
						if bhi < blo {
							continue
						}
						m := rtl.NewModule("va", "")
						a := m.In("a", w, c.signed)
						b := m.In("b", w, c.signed)
						n := c.f(m, a, b)
						if n.Signed {
							m.Out("o", m.AsUnsigned(n), "")
						} else {
							m.Out("o", n, "")
						}
						ka := withRange(known{lo: alo, hi: ahi, rng: true}, w)
						kb := withRange(known{lo: blo, hi: bhi, rng: true}, w)
						k := infer(n, shapeOf(n), []known{ka, kb}[:len(n.Args)])
						sim, err := rtl.NewSim(m)
						if err != nil {
							t.Fatal(err)
						}
						for x := alo; x <= ahi; x++ {
							for y := blo; y <= bhi; y++ {
								sim.SetInUint(0, x)
								sim.SetInUint(1, y)
								v := sim.Out(0)
								if k.rng && (v[0] < k.lo || v[0] > k.hi) {
									t.Fatalf("%s: a=%d in [%d,%d], b=%d in [%d,%d]: value %d outside [%d,%d]", c.name, x, alo, ahi, y, blo, bhi, v[0], k.lo, k.hi)
								}
								if !v.And(k.zero).IsZero() || !v.And(k.one).Xor(k.one).IsZero() {
									t.Fatalf("%s: a=%d, b=%d: value %d against known zeros %s ones %s", c.name, x, y, v[0], k.zero.Hex(n.Width), k.one.Hex(n.Width))
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestWideBounds checks the upper bounds of nodes wider than 64 bits
// against rtl.Sim on random operands within the input intervals,
// including both ends. Oracle: the simulator's value of each wide node
// (a product, its slice, a sum and a compare of the sum) never exceeds
// the inferred bound, and a compare the bounds decide has that value.
func TestWideBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 1))
	for trial := 0; trial < 300; trial++ {
		aw, bw := 33+r.IntN(31), 33+r.IntN(31)
		m := rtl.NewModule("wide", "")
		a := m.In("a", aw, false)
		b := m.In("b", bw, false)
		prod := m.Mul(a, b)
		sl := m.Slice(prod, r.IntN(20), aw+bw-20)
		sum := m.Add(m.ZExt(sl, sl.Width+1), m.ZExt(m.Bit(prod, 0), sl.Width+1))
		c := r.Uint64() & maxOf(min(64, aw+bw-20)) >> uint(r.IntN(8))
		gt := m.Gt(sum, m.Const(sum.Width, false, c))
		m.Out("p", prod, "")
		m.Out("s", sum, "")
		m.Out("g", gt, "")
		m.Out("x", m.SExt(sl, sl.Width+2), "")
		f, err := combinational(m)
		if err != nil {
			t.Fatal(err)
		}
		alo, blo := r.Uint64()&maxOf(aw)>>uint(r.IntN(aw)), r.Uint64()&maxOf(bw)>>uint(r.IntN(bw))
		ahi, bhi := alo+(r.Uint64()&maxOf(aw)-alo)>>uint(r.IntN(aw)), blo+(r.Uint64()&maxOf(bw)-blo)>>uint(r.IntN(bw))
		if ahi < alo || ahi > maxOf(aw) {
			ahi = alo
		}
		if bhi < blo || bhi > maxOf(bw) {
			bhi = blo
		}
		// Half the trials also bound the product from below (a wide bound,
		// as the ext-swap rule sets on a wide operand's top bit): at least
		// ahi * blo, which (ahi, blo..bhi) meets; samples below it are
		// skipped.
		bs := []*bound{{id: 0, lo: alo, hi: ahi}, {id: 1, lo: blo, hi: bhi}}
		var plo rtl.Bits
		if trial%2 == 1 {
			plo = rtl.BitsOf(ahi).Mul(rtl.BitsOf(blo))
			pid := slices.IndexFunc(f.Nodes, func(n *rtl.Node) bool { return n.Op == rtl.OpMul })
			bs = append(bs, &bound{id: pid, wide: aw+bw > 64, wlo: plo, lo: plo[0], hi: maxOf(min(64, aw+bw))})
		}
		kb, ok := knownBitsUnder(f, bs...)
		if !ok {
			t.Fatalf("trial %d: bounds [%d,%d] [%d,%d] refused", trial, alo, ahi, blo, bhi)
		}
		sim, err := rtl.NewSim(f)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 40; s++ {
			x, y := alo+r.Uint64N(ahi-alo+1), blo+r.Uint64N(bhi-blo+1)
			if s == 0 {
				x, y = ahi, bhi
			}
			if rtl.BitsOf(x).Mul(rtl.BitsOf(y)).Cmp(plo) < 0 {
				continue
			}
			sim.SetInUint(0, x)
			sim.SetInUint(1, y)
			for i, o := range f.Outputs {
				v := sim.Out(i)
				k := kb[o.Node.ID]
				if u := upper(k, o.Node.Width); v.Cmp(u) > 0 {
					t.Fatalf("trial %d: %s = %s above its bound %s (a=%d, b=%d)", trial, o.Name, v.Hex(o.Node.Width), u.Hex(o.Node.Width), x, y)
				}
				if l := lower(k, o.Node.Width); v.Cmp(l) < 0 {
					t.Fatalf("trial %d: %s = %s below its bound %s (a=%d, b=%d)", trial, o.Name, v.Hex(o.Node.Width), l.Hex(o.Node.Width), x, y)
				}
				if !v.And(k.zero).IsZero() || !v.And(k.one).Xor(k.one).IsZero() {
					t.Fatalf("trial %d: %s = %s against known bits (a=%d, b=%d)", trial, o.Name, v.Hex(o.Node.Width), x, y)
				}
			}
		}
	}
}

// linModule is the IFA time difference of hpcc_update at small scale (10
// input bits): stamps of 2-bit seconds and 3-bit ns with NS = 5 ns per
// second (a ns field can hold values past NS, as the 30-bit field past
// 10^9), dts = (cs - ps - borrow) * NS + (cn + (borrow ? NS : 0) - pn),
// borrow = cn < pn, and a hop valid where 0 < dts <= max, whose dts_in is
// ok ? dts : 1. Built twice: max = 2 ("dt", "ot"), where the borrow
// compare made <= and the ns difference's zero extension made a sign
// extension cannot show (at equal ns the two changes cancel, or give an
// invalid hop; a wrapped ns difference leaves dts above max either way),
// and max = 20 ("dk", "ok"), where both show (dts = 20 at equal stamps,
// dts = 3 from a wrapped ns difference).
func linModule(t testing.TB) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("lmod", "affine-rule test module")
	cur := m.In("cur", 5, false)
	prev := m.In("prev", 5, false)
	for _, c := range []struct {
		max     uint64
		dts, ok string
	}{{2, "dt", "ot"}, {20, "dk", "ok"}} {
		cs, cn := m.Slice(cur, 3, 2), m.Slice(cur, 0, 3)
		ps, pn := m.Slice(prev, 3, 2), m.Slice(prev, 0, 3)
		borrow := m.Lt(cn, pn)
		dsec := m.Sub(m.Sub(cs, ps), m.ZExt(borrow, 2))
		dns := m.Sub(m.Add(m.ZExt(cn, 4), m.Mux(borrow, m.Const(4, false, 5), m.Const(4, false, 0))), m.ZExt(pn, 4))
		secNs := m.Mul(dsec, m.Const(3, false, 5))
		dts := m.Add(m.ZExt(secNs, 6), m.ZExt(dns, 6))
		ok := m.And(m.Ne(dts, m.Const(6, false, 0)), m.Le(dts, m.Const(6, false, c.max)))
		m.Out(c.dts, m.Mux(ok, dts, m.Const(6, false, 1)), "ok ? dts : 1")
		m.Out(c.ok, ok, "0 < dts <= max")
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLinearRuleSound grades every mutant of linModule over all of its
// 1024 inputs. Oracle: exhaustive simulation. No killed mutant may have a
// proof; the affine rule (rule 9) must prove the borrow compare's lt ->
// le and the ns difference's zext -> sext where max = 2, and both are
// killed (so unproved) where max = 20.
func TestLinearRuleSound(t *testing.T) {
	m := linModule(t)
	v := exhaustive(t, m)
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Sites(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(f, v)
	if err != nil {
		t.Fatal(err)
	}
	pr := newProver(f)
	seen := map[string]int{}
	proved, byLin := 0, 0
	for _, mu := range all {
		mm, err := Apply(m, mu)
		if err != nil {
			t.Fatalf("%s: %v", mu, err)
		}
		kill, _, err := r.firstKill(context.Background(), mm)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := pr.prove(mu)
		if err != nil {
			t.Fatal(err)
		}
		lp := pr.linearProof(mu) // the rule on its own
		if kill >= 0 && (proof != "" || lp != "") {
			t.Errorf("%s: proved equivalent (%s | %s) but vector %d kills it", mu, proof, lp, kill)
		}
		if proof != "" {
			proved++
		}
		if lp != "" {
			byLin++
		}
		n := f.Nodes[mu.NodeID]
		outs := pr.reaches(n)
		var kind string
		switch {
		case mu.Operator == CmpFlip && n.Op == rtl.OpLt && mu.newOp == rtl.OpLe && n.Args[0].Width == 3:
			kind = "borrow"
		case mu.Operator == ExtSwap && n.Width == 6 && n.Args[0].Width == 4:
			kind = "ext"
		default:
			continue
		}
		want := outs[0] == "dt" || outs[0] == "ot"
		seen[kind+" "+outs[0]]++
		if want && !strings.Contains(proof, "affine") {
			t.Errorf("%s (max = 2): not proved by the affine rule: %q (killed by %d)", mu, proof, kill)
		}
		if !want && kill < 0 {
			t.Errorf("%s (max = 20): survives every input; the twin must be killable", mu)
		}
	}
	t.Logf("%d sites: %d proved equivalent, %d by the affine rule alone", len(all), proved, byLin)
	for _, k := range []string{"borrow dt", "borrow dk", "ext dt", "ext dk"} {
		if seen[k] != 1 {
			t.Errorf("found %d %q mutants, want 1 (%v)", seen[k], k, seen)
		}
	}
}

// rndModule is the window update's min(eta/U, 1) times Wc at small scale
// (8 input bits): r = min(e, 8) (1.0 in u1.3), q = Rnd(wc * r / 8) (round
// half up: the product's bits 7..3 plus its bit 2), clamped to wmax. The
// 1.0 made 7 (one LSB lower) gives wc * 7/8, which rounds back to wc for
// wc <= 4 and to wc - 1 above, where wmax = 4 ("q4") clamps both and wmax
// = 5 ("q5") does not (wc = 5: 5 in the original, 4 in the mutant).
func rndModule(t testing.TB) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("rmod", "affine-rule rounding test module")
	wc := m.In("wc", 4, false)
	e := m.In("e", 4, false)
	for _, c := range []struct {
		max  uint64
		name string
	}{{4, "q4"}, {5, "q5"}} {
		one := m.Const(4, false, 8)
		r := m.Mux(m.Lt(one, e), one, e)
		p := m.Mul(wc, r)
		q := m.Add(m.ZExt(m.Slice(p, 3, 5), 6), m.ZExt(m.Slice(p, 2, 1), 6))
		wmax := m.Const(6, false, c.max)
		m.Out(c.name, m.Mux(m.Lt(wmax, q), wmax, q), "min(Rnd(wc * min(e, 1)), wmax)")
	}
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLinearRoundingSound grades every mutant of rndModule over all 256
// inputs (oracle: exhaustive simulation): no killed mutant has a proof,
// and the affine rule proves the 1.0's -1 under wmax = 4 (shifts and
// slices of forms: p >> 3 = wc - 1 and bit 2 of p = 1 for 1 <= wc <= 4)
// while its twin under wmax = 5 is killed.
func TestLinearRoundingSound(t *testing.T) {
	m := rndModule(t)
	v := exhaustive(t, m)
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Sites(f, 3)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(f, v)
	if err != nil {
		t.Fatal(err)
	}
	pr := newProver(f)
	seen := 0
	for _, mu := range all {
		mm, err := Apply(m, mu)
		if err != nil {
			t.Fatalf("%s: %v", mu, err)
		}
		kill, _, err := r.firstKill(context.Background(), mm)
		if err != nil {
			t.Fatal(err)
		}
		proof, err := pr.prove(mu)
		if err != nil {
			t.Fatal(err)
		}
		lp := pr.linearProof(mu)
		if kill >= 0 && (proof != "" || lp != "") {
			t.Errorf("%s: proved equivalent (%s | %s) but vector %d kills it", mu, proof, lp, kill)
		}
		n := f.Nodes[mu.NodeID]
		if n.Op != rtl.OpConst || n.Width != 4 || n.Value[0] != 8 || mu.Operator != ConstDec {
			continue
		}
		seen++
		if outs := pr.reaches(n); outs[0] == "q4" {
			if !strings.Contains(lp, "affine") {
				t.Errorf("%s (wmax 4): not proved by the affine rule: %q (killed by %d)", mu, proof, kill)
			}
		} else if kill < 0 {
			t.Errorf("%s (wmax 5): survives every input; the twin must be killable", mu)
		}
	}
	if seen != 2 {
		t.Fatalf("found %d mutants of the 1.0 constant -1, want 2", seen)
	}
}
