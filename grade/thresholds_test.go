package grade

import (
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// carryChainModule is IFA's egress-time normalizer in small: t = a + b (5
// bits, 0..30), carry = the number of k in 1..chain with t >= 5k, rem = t
// - 5*carry (a table read at the carry), ns = rem[2:0]; z = rem + y reads
// another input. With chain = 6 rem is below 5 (t <= 30 = 6*5), so bit 3
// of rem is never 1; with chain = 4 (the reachable twin) rem reaches 10.
func carryChainModule(t testing.TB, chain int) *rtl.Module {
	t.Helper()
	m := rtl.NewModule("carry_chain", "")
	a := m.In("a", 4, false)
	b := m.In("b", 4, false)
	y := m.In("y", 2, false)
	tt := m.Add(m.ZExt(a, 5), m.ZExt(b, 5)).Named("t")
	carry := m.Const(3, false, 0)
	mults := make([]uint64, 8)
	for k := 1; k <= chain; k++ {
		carry = m.Add(carry, m.ZExt(m.Ge(tt, m.Const(5, false, uint64(5*k))), 3))
		mults[k] = uint64(5 * k)
	}
	rem := m.Sub(tt, m.ROM(carry.Named("carry"), 5, mults)).Named("rem")
	m.Out("ns", m.Slice(rem, 0, 3), "")
	m.Out("z", m.Add(rem, m.ZExt(y, 5)), "")
	if err := m.Check(); err != nil {
		t.Fatal(err)
	}
	return m
}

// inRange reports whether value v lies in r (known bits and interval).
func inRange(v rtl.Bits, r Range) bool {
	return v.And(r.Zero).IsZero() && v.And(r.One) == r.One && (!r.HasRange || v.Uint64() >= r.Lo && v.Uint64() <= r.Hi)
}

// TestThresholdSplitExhaustive checks ThresholdSplitter against exhaustive
// evaluation of carryChainModule (every a, b, y). Oracle: rtl.Sim: the
// pieces of t cover its values exactly once; for every input, every node's
// value lies in the Range the piece holding its t gives (nodes reading t
// re-analysed, the others the whole analysis); the split proves bit 3 of
// rem is 0 in every piece for chain 6, which the whole analysis does not
// know (so the test needs the split), and not for chain 4, where rem = 8
// and 9 are reached.
func TestThresholdSplitExhaustive(t *testing.T) {
	for _, c := range []struct {
		chain int
		fact  bool // bit 3 of rem is never 1
	}{{6, true}, {4, false}} {
		f, err := combinational(carryChainModule(t, c.chain))
		if err != nil {
			t.Fatal(err)
		}
		var tt, rem *rtl.Node
		for _, n := range f.Nodes {
			switch n.Name {
			case "t":
				tt = n
			case "rem":
				rem = n
			}
		}
		ts := NewThresholdSplitter(f)
		if got := ts.Thresholds(tt); len(got) != c.chain {
			t.Fatalf("chain %d: t's thresholds %v, want the %d compares' constants", c.chain, got, c.chain)
		}
		s := ts.Split(tt)
		if s == nil || !s.Reads(rem) || s.Reads(f.Inputs[2]) {
			t.Fatalf("chain %d: no split of t, or rem not re-analysed, or y re-analysed", c.chain)
		}
		var covered [31]int
		for _, p := range s.Pieces {
			for v := p.Lo; v <= p.Hi; v++ {
				covered[v]++
			}
		}
		for v, n := range covered {
			if n != 1 {
				t.Fatalf("chain %d: t = %d lies in %d pieces, want 1", c.chain, v, n)
			}
		}
		sim, err := rtl.NewSim(f)
		if err != nil {
			t.Fatal(err)
		}
		reached := false
		for a := uint64(0); a < 16; a++ {
			for b := uint64(0); b < 16; b++ {
				for y := uint64(0); y < 4; y++ {
					sim.SetInUint(0, a)
					sim.SetInUint(1, b)
					sim.SetInUint(2, y)
					sim.Out(0)
					sim.Out(1)
					tv := a + b
					pi := -1
					for i, p := range s.Pieces {
						if tv >= p.Lo && tv <= p.Hi {
							pi = i
						}
					}
					if s.Pieces[pi].Empty {
						t.Fatalf("chain %d: t = %d lies in a piece said to hold no input", c.chain, tv)
					}
					for _, n := range f.Nodes {
						if got := sim.NodeValue(n.ID); !inRange(got, s.Range(pi, n)) {
							r := s.Range(pi, n)
							t.Fatalf("chain %d: a=%d b=%d y=%d: %s = %d outside its piece's Range [%d, %d] (zero %v one %v)", c.chain, a, b, y, n.Name, got.Uint64(), r.Lo, r.Hi, r.Zero, r.One)
						}
					}
					if sim.NodeValue(rem.ID).Bit(3) {
						reached = true
					}
				}
			}
		}
		proved := true
		for i, p := range s.Pieces {
			if r := s.Range(i, rem); !p.Empty && !r.Zero.Bit(3) && !(r.HasRange && r.Hi < 8) {
				proved = false
			}
		}
		if proved != c.fact || reached == c.fact {
			t.Errorf("chain %d: the split proves bit 3 of rem never 1: %v; reached %v; want proved %v", c.chain, proved, reached, c.fact)
		}
		if whole := ValueRanges(f)[rem.ID]; whole.Zero.Bit(3) || whole.HasRange && whole.Hi < 8 {
			t.Fatalf("chain %d: the whole analysis already knows bit 3 of rem: the test no longer needs the split", c.chain)
		}
	}
}

// TestThresholdCutsDecide checks the thresholds of every compare kind
// (x against a constant on either side, unsigned and signed, equality):
// over each piece of x's values every compare of x against a constant
// takes one value. Oracle: rtl.Sim over every x.
func TestThresholdCutsDecide(t *testing.T) {
	m := rtl.NewModule("cuts", "")
	x := m.In("x", 5, false)
	c := func(v uint64) *rtl.Node { return m.Const(5, false, v) }
	sx := m.AsSigned(x)
	cs := func(v int64) *rtl.Node { return m.ConstInt(5, true, v) }
	outs := []*rtl.Node{m.Lt(x, c(5)), m.Le(x, c(9)), m.Gt(x, c(3)), m.Ge(x, c(20)), m.Eq(x, c(12)), m.Ne(x, c(30)),
		m.Lt(c(7), x), m.Le(c(11), x), m.Gt(c(25), x), m.Ge(c(17), x), m.Lt(sx, cs(-3)), m.Ge(sx, cs(6))}
	for i, o := range outs {
		m.Out("o"+string(rune('a'+i)), o, "")
	}
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	ts := NewThresholdSplitter(f)
	s := ts.Split(f.Inputs[0])
	if s == nil {
		t.Fatal("no split")
	}
	sim, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	for pi, p := range s.Pieces {
		first := map[int]bool{}
		for v := p.Lo; v <= p.Hi; v++ {
			sim.SetInUint(0, v)
			for i := range f.Outputs {
				got := sim.Out(i).Bit(0)
				if v > p.Lo && got != first[i] {
					t.Fatalf("piece [%d, %d]: output %d changes at x = %d: a threshold is missing", p.Lo, p.Hi, i, v)
				}
				first[i] = got
				// The piece's analysis decides the compare, to the value
				// it takes.
				if r := s.Range(pi, f.Outputs[i].Node); !r.HasRange || r.Lo != r.Hi || (r.Lo == 1) != got {
					t.Fatalf("piece [%d, %d]: output %d is %v at x = %d, the piece's analysis gives [%d, %d]", p.Lo, p.Hi, i, got, v, r.Lo, r.Hi)
				}
			}
		}
	}
}
