package rtl

import (
	"math/big"
	"math/rand"
	"testing"
)

// bigOf returns n's value from pattern b as a big integer, read with n's
// signedness.
func bigOf(b Bits, w int, signed bool) *big.Int {
	if signed {
		return b.BigSigned(w)
	}
	return b.Big()
}

// refOp is an independent big.Int statement of each op's documented
// semantics (module.go), the oracle for the evaluator (both its uint64 fast
// path and its multi-word path).
func refOp(op Op, w int, signed bool, k int, a, b *big.Int, aw int, aSigned bool) *big.Int {
	one := big.NewInt(1)
	mod := new(big.Int).Lsh(one, uint(w))
	wrap := func(x *big.Int) *big.Int { return new(big.Int).Mod(x, mod) }
	ua := new(big.Int).Mod(a, new(big.Int).Lsh(one, uint(aw))) // a's pattern
	b2 := func(c bool) *big.Int {
		if c {
			return big.NewInt(1)
		}
		return big.NewInt(0)
	}
	switch op {
	case OpAdd:
		return wrap(new(big.Int).Add(a, b))
	case OpSub:
		return wrap(new(big.Int).Sub(a, b))
	case OpMul:
		return wrap(new(big.Int).Mul(a, b))
	case OpShlC:
		return wrap(new(big.Int).Lsh(a, uint(k)))
	case OpLShrC:
		return new(big.Int).Rsh(ua, uint(k))
	case OpAShrC: // the top bit is replicated whatever the signedness (as LLVM's ashr)
		return wrap(new(big.Int).Rsh(BitsOfBig(a, aw).BigSigned(aw), uint(k)))
	case OpShl, OpLShr, OpAShr:
		s := b.Uint64()
		if !b.IsUint64() || s >= uint64(w) {
			if op == OpAShr && BitsOfBig(a, aw).Bit(aw-1) {
				return wrap(big.NewInt(-1))
			}
			return big.NewInt(0)
		}
		switch op {
		case OpShl:
			return wrap(new(big.Int).Lsh(a, uint(s)))
		case OpLShr:
			return new(big.Int).Rsh(ua, uint(s))
		default:
			return wrap(new(big.Int).Rsh(BitsOfBig(a, aw).BigSigned(aw), uint(s)))
		}
	case OpEq:
		return b2(a.Cmp(b) == 0)
	case OpNe:
		return b2(a.Cmp(b) != 0)
	case OpLt:
		return b2(a.Cmp(b) < 0)
	case OpLe:
		return b2(a.Cmp(b) <= 0)
	case OpGt:
		return b2(a.Cmp(b) > 0)
	case OpGe:
		return b2(a.Cmp(b) >= 0)
	case OpSlice:
		return new(big.Int).Mod(new(big.Int).Rsh(ua, uint(k)), mod)
	case OpZExt:
		return ua
	case OpSExt: // the top bit is replicated whatever the signedness (as LLVM's sext)
		return wrap(BitsOfBig(a, aw).BigSigned(aw))
	}
	panic("refOp: " + op.String())
}

func randBig(r *rand.Rand, w int, signed bool) *big.Int {
	x := new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(w)))
	switch r.Intn(6) {
	case 0:
		x.SetInt64(0)
	case 1: // all ones
		x.Sub(new(big.Int).Lsh(big.NewInt(1), uint(w)), big.NewInt(1))
	case 2: // only the top bit
		x.Lsh(big.NewInt(1), uint(w-1))
	}
	if signed {
		return BitsOfBig(x, w).BigSigned(w)
	}
	return x
}

// TestOpsVsBigInt checks every arithmetic, shift, compare, slice and
// extension op against refOp on random widths 1..200 (crossing the 64-bit
// fast path) and random/extreme operands.
func TestOpsVsBigInt(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	ops := []Op{OpAdd, OpSub, OpMul, OpShlC, OpLShrC, OpAShrC, OpShl, OpLShr, OpAShr,
		OpEq, OpNe, OpLt, OpLe, OpGt, OpGe, OpSlice, OpZExt, OpSExt}
	iters := 300
	if testing.Short() {
		iters = 60
	}
	for _, op := range ops {
		for it := 0; it < iters; it++ {
			aw := 1 + r.Intn(120)
			if r.Intn(3) == 0 {
				aw = 1 + r.Intn(64)
			}
			signed := r.Intn(2) == 0
			m := NewModule("t", "")
			a := m.In("a", aw, signed)
			var n *Node
			bw, k := aw, 0
			switch op {
			case OpAdd, OpSub, OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
				n = m.binOrCmp(op, a, m.In("b", aw, signed))
			case OpMul:
				bw = 1 + r.Intn(100)
				n = m.Mul(a, m.In("b", bw, signed))
			case OpShlC, OpLShrC, OpAShrC:
				k = r.Intn(aw + 1)
				n = m.shiftC(op, a, k)
				if k == 0 {
					continue
				}
			case OpShl, OpLShr, OpAShr:
				bw = 1 + r.Intn(10)
				n = m.shiftV(op, a, m.In("b", bw, false))
			case OpSlice:
				k = r.Intn(aw)
				n = m.Slice(a, k, 1+r.Intn(aw-k))
			case OpZExt:
				n = m.ZExt(a, aw+r.Intn(80))
			case OpSExt:
				n = m.SExt(a, aw+r.Intn(80))
			}
			m.Out("y", n, "")
			sim, err := NewSim(m)
			if err != nil {
				t.Fatal(err)
			}
			for v := 0; v < 8; v++ {
				av := randBig(r, aw, signed)
				sim.SetIn(0, BitsOfBig(av, aw))
				bv := big.NewInt(0)
				if len(m.Inputs) > 1 {
					bs := m.Inputs[1].Signed
					bv = randBig(r, bw, bs)
					if op == OpShl || op == OpLShr || op == OpAShr {
						bv = big.NewInt(int64(r.Intn(aw + 3)))
						if r.Intn(4) == 0 {
							bv = randBig(r, bw, false)
						}
						bv.Mod(bv, new(big.Int).Lsh(big.NewInt(1), uint(bw)))
					}
					sim.SetIn(1, BitsOfBig(bv, bw))
				}
				got := sim.Out(0).Big()
				want := refOp(op, n.Width, n.Signed, n.K, av, bv, aw, signed)
				if got.Cmp(want) != 0 {
					t.Fatalf("%s (a %s=%s, b %d bits=%s, k=%d) = %#x, want %#x", op, a.Type(), av, bw, bv, n.K, got, want)
				}
			}
		}
	}
}

func (m *Module) binOrCmp(op Op, a, b *Node) *Node {
	if op.IsCompare() {
		return m.cmp(op, a, b)
	}
	return m.binSame(op, a, b)
}

// TestCLZ checks the priority-encoder tree against Bits.LeadingZeros (a
// plain bit scan) on every width 1..70 and 128, including zero and
// single-bit words.
func TestCLZ(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	widths := []int{128}
	for w := 1; w <= 70; w++ {
		widths = append(widths, w)
	}
	for _, w := range widths {
		m := NewModule("t", "")
		a := m.In("a", w, false)
		c := m.CLZ(a)
		m.Out("y", c, "")
		if c.Width != CountWidth(w) {
			t.Fatalf("CLZ width for %d bits = %d, want %d", w, c.Width, CountWidth(w))
		}
		sim, err := NewSim(m)
		if err != nil {
			t.Fatal(err)
		}
		vals := []Bits{{}, BitsOf(1).Shl(uint(w - 1)), BitsOf(1)}
		for i := 0; i < 40; i++ {
			v := BitsOfBig(randBig(r, w, false), w)
			vals = append(vals, v.Shr(uint(r.Intn(w))))
		}
		for _, v := range vals {
			sim.SetIn(0, v)
			if got, want := sim.Out(0).Uint64(), uint64(v.LeadingZeros(w)); got != want {
				t.Fatalf("CLZ(%d-bit %s) = %d, want %d", w, v, got, want)
			}
		}
	}
}

// TestMuxConcatROMLogic checks the remaining ops on hand-computed cases.
func TestMuxConcatROMLogic(t *testing.T) {
	m := NewModule("t", "")
	s := m.In("s", 1, false)
	a := m.In("a", 8, false)
	b := m.In("b", 8, false)
	m.Out("mux", m.Mux(s, a, b), "")
	m.Out("cat", m.Concat(a, m.Const(4, false, 0x5), b), "")
	m.Out("rom", m.ROM(m.Slice(a, 0, 2), 12, []uint64{0xabc, 0x123, 0xfff}), "")
	m.Out("y_and", m.And(a, b), "")
	m.Out("y_or", m.Or(a, b), "")
	m.Out("y_xor", m.Xor(a, b), "")
	m.Out("y_not", m.Not(a), "")
	sim, err := NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		s, a, b uint64
		want    []uint64 // mux, cat, rom, and, or, xor, not (hand-computed)
	}{
		{1, 0x01, 0xf0, []uint64{0x01, 0x0015f0, 0x123, 0x00, 0xf1, 0xf1, 0xfe}},
		{0, 0x03, 0x3c, []uint64{0x3c, 0x0353c, 0x000, 0x00, 0x3f, 0x3f, 0xfc}}, // address 3 is past the table: 0
		{0, 0xa6, 0x6a, []uint64{0x6a, 0xa656a, 0xfff, 0x22, 0xee, 0xcc, 0x59}},
	}
	for _, c := range cases {
		sim.SetInUint(0, c.s)
		sim.SetInUint(1, c.a)
		sim.SetInUint(2, c.b)
		for i, w := range c.want {
			if got := sim.Out(i).Uint64(); got != w {
				t.Errorf("s=%d a=%#x b=%#x: %s = %#x, want %#x", c.s, c.a, c.b, m.Outputs[i].Name, got, w)
			}
		}
	}
}

// TestConstantFolding checks that ops on constants become constants with the
// evaluator's value (printers rely on never seeing a slice of a literal).
func TestConstantFolding(t *testing.T) {
	m := NewModule("t", "")
	c := m.Slice(m.Concat(m.Const(8, false, 0xab), m.Const(8, false, 0xcd)), 4, 8)
	if c.Op != OpConst || c.Value.Uint64() != 0xbc {
		t.Fatalf("folded slice = %s %s, want const 0xbc", c.Op, c.Value)
	}
	x := m.In("x", 8, false)
	if got := m.Mux(m.Const(1, false, 1), x, m.Const(8, false, 0)); got != x {
		t.Fatalf("mux with constant select not folded to its operand")
	}
}

// TestBuildErrors checks that misuse is reported (naming the operands) and
// sticky, never a panic.
func TestBuildErrors(t *testing.T) {
	cases := []struct {
		name  string
		build func(m *Module)
		want  string
	}{
		{"width mismatch", func(m *Module) { m.Add(m.In("a", 8, false), m.In("b", 9, false)) }, "add: operands a (u8) and b (u9) differ"},
		{"signedness mismatch", func(m *Module) { m.Mul(m.In("a", 8, false), m.In("b", 8, true)) }, "mul: operands a (u8) and b (s8) differ in signedness"},
		{"slice range", func(m *Module) { m.Slice(m.In("a", 8, false), 4, 5) }, "slice [4+:5] of a (u8): out of range"},
		{"dup input", func(m *Module) { m.In("a", 1, false); m.In("a", 2, false) }, `input "a": must be a unique`},
		{"reserved", func(m *Module) { m.In("wire", 1, false) }, `input "wire"`},
		{"rom entry", func(m *Module) { m.ROM(m.In("a", 2, false), 4, []uint64{16}) }, "rom: entry 0 = 0x10 does not fit 4 bits"},
		{"unconnected reg", func(m *Module) { m.Out("y", m.Reg("r", 4, false, true, Bits{}), "") }, "register r has no next-state input"},
		{"wide", func(m *Module) { m.In("a", 300, false) }, "width 300"},
	}
	for _, c := range cases {
		m := NewModule("t", "")
		c.build(m)
		err := m.Check()
		if err == nil || !contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || (len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub)))
}
