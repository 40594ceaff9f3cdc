package coverage

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// randBits returns a random canonical w-bit pattern.
func randBits(r *rand.Rand, w int) rtl.Bits {
	var b rtl.Bits
	for i := range b {
		b[i] = r.Uint64()
	}
	// bias toward edge patterns: zero, all ones, one bit, the top bit
	switch r.IntN(8) {
	case 0:
		b = rtl.Bits{}
	case 1:
		b = ones(w)
	case 2:
		b = setBit(rtl.Bits{}, r.IntN(w))
	case 3:
		b = flipBit(ones(w), r.IntN(w))
	}
	return b.Trunc(w)
}

// loadSim evaluates f on in (one value per input port) and loads the
// observer with every node's value.
func loadSim(t *testing.T, f *rtl.Module, o *observer, in []rtl.Bits) *rtl.Sim {
	t.Helper()
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range in {
		sim.SetIn(i, v)
	}
	sim.Eval()
	o.load(sim.NodeValue)
	return sim
}

// TestLocalMaskRules checks each op's closed-form local rule (localMask)
// against its definition, computed by re-evaluation (bruteMask: flip one
// bit of the operand, evaluate the op with rtl.EvalOp, intersect the
// change with the fanout mask), for random operand values (edge patterns
// included) and random fanout masks, at widths of one to four machine
// words. The ordered compares and a variable shift's amount have no
// closed form: their rule is bruteMask itself, listed here for coverage of
// the dispatch.
func TestLocalMaskRules(t *testing.T) {
	type build func(m *rtl.Module, a, b, c *rtl.Node) *rtl.Node
	cases := []struct {
		name       string
		wa, wb, wc int
		signed     bool
		op         build
	}{
		{"add", 12, 12, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Add(a, b) }},
		{"add_wide", 70, 70, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Add(a, b) }},
		{"sub", 9, 9, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Sub(a, b) }},
		{"sub_wide", 130, 130, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Sub(a, b) }},
		{"add_same", 8, 8, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Add(a, a) }},
		{"mul_u", 7, 5, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Mul(a, b) }},
		{"mul_s", 7, 6, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Mul(a, b) }},
		{"mul_wide_u", 64, 40, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Mul(a, b) }},
		{"mul_wide_s", 66, 64, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Mul(a, b) }},
		{"mul_same", 6, 6, 1, true, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Mul(a, a) }},
		{"and", 10, 10, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.And(a, b) }},
		{"and_same", 10, 10, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.And(a, a) }},
		{"or_wide", 100, 100, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Or(a, b) }},
		{"xor", 10, 10, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Xor(a, b) }},
		{"xor_same", 5, 5, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Xor(a, a) }},
		{"not", 9, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Not(a) }},
		{"shlc", 11, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.ShlC(a, 3) }},
		{"shlc_all", 11, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.ShlC(a, 11) }},
		{"lshrc_wide", 90, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.LShrC(a, 67) }},
		{"ashrc", 11, 1, 1, true, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.AShrC(a, 4) }},
		{"ashrc_all", 11, 1, 1, true, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.AShrC(a, 11) }},
		{"ashrc_wide", 129, 1, 1, true, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.AShrC(a, 65) }},
		{"shl", 12, 4, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Shl(a, b) }},
		{"lshr", 12, 4, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.LShr(a, b) }},
		{"ashr", 12, 4, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.AShr(a, m.AsUnsigned(b)) }},
		{"shl_wide", 80, 7, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Shl(a, b) }},
		{"ashr_wide", 80, 7, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.AShr(a, m.AsUnsigned(b)) }},
		{"shl_same", 8, 8, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Shl(a, a) }},
		{"eq", 6, 6, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Eq(a, b) }},
		{"ne_wide", 70, 70, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Ne(a, b) }},
		{"lt_u", 6, 6, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Lt(a, b) }},
		{"le_s", 6, 6, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Le(a, b) }},
		{"gt_wide_s", 90, 90, 1, true, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Gt(a, b) }},
		{"ge_u", 6, 6, 1, false, func(m *rtl.Module, a, b, _ *rtl.Node) *rtl.Node { return m.Ge(a, b) }},
		{"mux", 9, 9, 1, false, func(m *rtl.Module, a, b, c *rtl.Node) *rtl.Node { return m.Mux(c, a, b) }},
		{"mux_wide", 75, 75, 1, false, func(m *rtl.Module, a, b, c *rtl.Node) *rtl.Node { return m.Mux(c, a, b) }},
		{"mux_sel_is_arm", 1, 1, 1, false, func(m *rtl.Module, a, _, c *rtl.Node) *rtl.Node { return m.Mux(c, c, a) }},
		{"slice", 16, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Slice(a, 5, 7) }},
		{"slice_wide", 140, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Slice(a, 60, 70) }},
		{"concat", 5, 7, 3, false, func(m *rtl.Module, a, b, c *rtl.Node) *rtl.Node { return m.Concat(a, b, c) }},
		{"concat_wide", 60, 70, 3, false, func(m *rtl.Module, a, b, c *rtl.Node) *rtl.Node { return m.Concat(a, b, c) }},
		{"concat_same", 5, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.Concat(a, a) }},
		{"zext", 7, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.ZExt(a, 13) }},
		{"sext", 7, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.SExt(a, 13) }},
		{"sext_wide", 65, 1, 1, true, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.SExt(a, 200) }},
		{"as", 7, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.AsSigned(a) }},
		{"rom", 3, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.ROM(a, 6, []uint64{5, 5, 63, 0, 1, 9}) }},
		{"rom_wide_addr", 9, 1, 1, false, func(m *rtl.Module, a, _, _ *rtl.Node) *rtl.Node { return m.ROM(a, 4, []uint64{1, 2, 3, 4, 5, 6, 7}) }},
	}
	r := rand.New(rand.NewPCG(14, 1))
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m := rtl.NewModule("rule_"+tc.name, "")
			a := m.In("a", tc.wa, tc.signed)
			b := m.In("b", tc.wb, tc.signed)
			c := m.In("c", tc.wc, false)
			n := tc.op(m, a, b, c)
			m.Out("y", n, "")
			if err := m.Err(); err != nil {
				t.Fatal(err)
			}
			o := newObserver(m)
			checked := 0
			for trial := 0; trial < 300; trial++ {
				loadSim(t, m, o, []rtl.Bits{randBits(r, tc.wa), randBits(r, tc.wb), randBits(r, tc.wc)})
				mask := randBits(r, n.Width)
				if trial%5 == 0 {
					mask = ones(n.Width)
				}
				for k, arg := range n.Args {
					if arg.Op == rtl.OpConst {
						continue
					}
					got, want := o.localMask(n, k, mask), o.bruteMask(n, k, mask)
					if got != want {
						t.Fatalf("%s operand %d, values %v, fanout mask %s: rule %s, re-evaluation %s", n.Op, k, argVals(o, n), mask.Hex(n.Width), got.Hex(arg.Width), want.Hex(arg.Width))
					}
					checked++
				}
			}
			if checked == 0 {
				t.Fatal("no operand checked")
			}
		})
	}
}

func argVals(o *observer, n *rtl.Node) string {
	s := ""
	for _, a := range n.Args {
		s += o.vals[a.ID].Hex(a.Width) + " "
	}
	return s + "-> " + o.vals[n.ID].Hex(n.Width)
}

// randModule builds a random combinational module: a few inputs (1 to 12
// bits, one of 70), then size nodes drawn over every op kind with operands
// picked among the earlier nodes (so fanout, reconvergence and operands
// given twice are common), fitted to the widths each op needs by slices
// and extensions; two to four of the nodes are outputs.
func randModule(r *rand.Rand, name string, size int) (*rtl.Module, error) {
	m := rtl.NewModule(name, "")
	var pool []*rtl.Node
	nIn := 2 + r.IntN(3)
	for i := 0; i < nIn; i++ {
		w := 1 + r.IntN(12)
		if i == 0 && r.IntN(4) == 0 {
			w = 70
		}
		pool = append(pool, m.In(fmt.Sprintf("i%d", i), w, false))
	}
	pick := func() *rtl.Node {
		// favour recent nodes: deeper logic
		if r.IntN(3) == 0 {
			return pool[r.IntN(len(pool))]
		}
		return pool[max(0, len(pool)-1-r.IntN(4))]
	}
	fit := func(n *rtl.Node, w int) *rtl.Node {
		switch {
		case n.Width == w:
			return n
		case n.Width > w:
			return m.Slice(n, r.IntN(n.Width-w+1), w)
		case r.IntN(2) == 0:
			return m.ZExt(n, w)
		}
		return m.AsUnsigned(m.SExt(n, w))
	}
	other := func(a *rtl.Node) *rtl.Node {
		switch r.IntN(6) {
		case 0:
			return a // the same node twice
		case 1:
			return m.Const(a.Width, false, r.Uint64()&maxOf(min(a.Width, 64)))
		}
		return fit(pick(), a.Width)
	}
	for len(pool) < nIn+size {
		a := pick()
		var n *rtl.Node
		switch r.IntN(14) {
		case 0:
			n = m.Add(a, other(a))
		case 1:
			n = m.Sub(a, other(a))
		case 2:
			x, y := fit(a, 1+r.IntN(8)), fit(pick(), 1+r.IntN(8))
			if r.IntN(2) == 0 {
				n = m.AsUnsigned(m.Mul(m.AsSigned(x), m.AsSigned(y)))
			} else {
				n = m.Mul(x, y)
			}
		case 3:
			n = []func(x, y *rtl.Node) *rtl.Node{m.And, m.Or, m.Xor}[r.IntN(3)](a, other(a))
		case 4:
			n = m.Not(a)
		case 5:
			k := r.IntN(a.Width + 1)
			switch r.IntN(3) {
			case 0:
				n = m.ShlC(a, k)
			case 1:
				n = m.LShrC(a, k)
			default:
				n = m.AsUnsigned(m.AShrC(m.AsSigned(a), k))
			}
		case 6:
			s := fit(pick(), 1+r.IntN(4))
			switch r.IntN(3) {
			case 0:
				n = m.Shl(a, s)
			case 1:
				n = m.LShr(a, s)
			default:
				n = m.AsUnsigned(m.AShr(m.AsSigned(a), s))
			}
		case 7, 8:
			b := other(a)
			if r.IntN(2) == 0 {
				a, b = m.AsSigned(a), m.AsSigned(b)
			}
			n = []func(x, y *rtl.Node) *rtl.Node{m.Eq, m.Ne, m.Lt, m.Le, m.Gt, m.Ge}[r.IntN(6)](a, b)
		case 9, 10:
			n = m.Mux(fit(pick(), 1), a, other(a))
		case 11:
			w := 1 + r.IntN(a.Width)
			n = m.Slice(a, r.IntN(a.Width-w+1), w)
		case 12:
			n = m.Concat(a, fit(pick(), 1+r.IntN(5)))
		default:
			contents := make([]uint64, 1+r.IntN(8))
			for i := range contents {
				contents[i] = r.Uint64N(16)
			}
			n = m.ROM(fit(a, 3), 4, contents)
		}
		if n.Width > 128 {
			n = m.Slice(n, 0, 128)
		}
		pool = append(pool, n)
	}
	nOut := 2 + r.IntN(3)
	for i := 0; i < nOut; i++ {
		m.Out(fmt.Sprintf("o%d", i), pool[len(pool)-1-r.IntN(min(len(pool)-nIn, 8))], "")
	}
	return m, m.Err()
}

// fullReeval is the brute-force oracle: it evaluates every node of f again
// in order with rtl.EvalOp, node id forced to v (vals are the evaluated
// values: sources keep theirs), and reports whether any output port's value
// differs from vals.
func fullReeval(f *rtl.Module, vals []rtl.Bits, id int, v rtl.Bits) bool {
	nv := make([]rtl.Bits, len(f.Nodes))
	for _, n := range f.Nodes {
		switch {
		case n.ID == id:
			nv[n.ID] = v
		case n.Op.IsSource():
			nv[n.ID] = vals[n.ID]
		default:
			args := make([]rtl.Bits, len(n.Args))
			for k, a := range n.Args {
				args[k] = nv[a.ID]
			}
			nv[n.ID] = rtl.EvalOp(n, args)
		}
	}
	for _, p := range f.Outputs {
		if nv[p.Node.ID] != vals[p.Node.ID] {
			return true
		}
	}
	return false
}

// TestObservedMatchesBruteForce tests the meaning of "observable" against
// brute force. For random modules (randModule: every op kind, fanout,
// reconvergence, operands given twice) and random input vectors, and every
// node n: the oracle flips each bit of n, re-evaluates the whole module
// (fullReeval) and looks for an output that changes. Checked: the forward
// witness simulation (reaches) agrees with the oracle on every single flip
// and on every mux's unselected arm; observed (flipObservable) implies some
// flip changes an output (soundness: never over-reported); for nodes of at
// most exactWidth bits, where every bit is tried, it is equivalent to it
// (completeness). For wider nodes the under-report (bits the backward pass
// excludes that do reach an output) is counted and logged.
func TestObservedMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 2))
	var nodes, obs, wideMissed, wide int
	for mod := 0; mod < 150; mod++ {
		f, err := randModule(r, fmt.Sprintf("rand_%d", mod), 10+r.IntN(25))
		if err != nil {
			t.Fatal(err)
		}
		o := newObserver(f)
		for vec := 0; vec < 12; vec++ {
			in := make([]rtl.Bits, len(f.Inputs))
			for i, n := range f.Inputs {
				in[i] = randBits(r, n.Width)
			}
			sim := loadSim(t, f, o, in)
			vals := make([]rtl.Bits, len(f.Nodes))
			for i := range vals {
				vals[i] = sim.NodeValue(i)
			}
			if fullReeval(f, vals, -1, rtl.Bits{}) {
				t.Fatalf("%s: the oracle's plain re-evaluation differs from rtl.Sim", f.Name)
			}
			for _, n := range f.Nodes {
				if n.Op == rtl.OpConst {
					continue
				}
				nodes++
				any := false
				for j := 0; j < n.Width; j++ {
					want := fullReeval(f, vals, n.ID, flipBit(vals[n.ID], j))
					if got := o.reaches(n.ID, flipBit(vals[n.ID], j)); got != want {
						t.Fatalf("%s vector %d: flip of bit %d of %s (%s): forward simulation says %v, full re-evaluation %v", f.Name, vec, j, n.Name, n.Op, got, want)
					}
					any = any || want
				}
				got := o.flipObservable(n.ID)
				if got {
					obs++
				}
				if got && !any {
					t.Fatalf("%s vector %d: %s (%s, %d bits) reported observable, but no single-bit flip changes an output", f.Name, vec, n.Name, n.Op, n.Width)
				}
				if n.Width <= exactWidth && got != any {
					t.Fatalf("%s vector %d: %s (%s, %d bits): observed %v, brute force %v (every bit of a node of at most %d bits is tried)", f.Name, vec, n.Name, n.Op, n.Width, got, any, exactWidth)
				}
				if n.Width > exactWidth {
					wide++
					if any && !got {
						wideMissed++
					}
				}
				if n.Op == rtl.OpMux {
					other := n.Args[1]
					if vals[n.Args[0].ID].Bit(0) {
						other = n.Args[2]
					}
					want := fullReeval(f, vals, n.ID, vals[other.ID])
					if got := o.muxObservable(n.ID); got != want {
						t.Fatalf("%s vector %d: mux %s with its other arm: observed %v, full re-evaluation %v", f.Name, vec, n.Name, got, want)
					}
				}
			}
		}
	}
	if obs == 0 || obs == nodes {
		t.Fatalf("%d of %d node evaluations observable: the random modules do not exercise both outcomes", obs, nodes)
	}
	t.Logf("%d node evaluations, %d observable; nodes wider than %d bits: %d, %d observable by brute force but not reported (under-report)", nodes, obs, exactWidth, wide, wideMissed)
}
