package rtl

import (
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// newNode appends a node. Construction after an error returns a placeholder
// of the requested shape so callers can continue.
func (m *Module) newNode(op Op, w int, signed bool, args ...*Node) *Node {
	n := &Node{ID: len(m.Nodes), Op: op, Width: w, Signed: signed, Args: args, owner: m}
	if w < 1 || w > MaxWidth {
		m.fail("%s: width %d: must be in [1,%d]", op, w, MaxWidth)
		n.Width = 1
	}
	n.Name = m.claim("n_"+strconv.Itoa(n.ID), n.ID)
	m.Nodes = append(m.Nodes, n)
	return n
}

// okArgs checks that args are non-nil nodes of m.
func (m *Module) okArgs(op Op, args ...*Node) bool {
	for i, a := range args {
		if a == nil {
			m.fail("%s: operand %d is nil", op, i)
			return false
		}
		if a.owner != m {
			m.fail("%s: operand %d (%s) belongs to another module", op, i, a.Name)
			return false
		}
	}
	return m.err == nil
}

// placeholder is returned after a construction error.
func (m *Module) placeholder(w int, signed bool) *Node {
	if w < 1 || w > MaxWidth {
		w = 1
	}
	return &Node{ID: -1, Name: "invalid", Op: OpConst, Width: w, Signed: signed, owner: m}
}

// portName reserves name for a port. A port name wins over an internal
// node's readable name: such a node is renamed (name_<id>).
func (m *Module) portName(name string) bool {
	if !fieldtable.IsIdent(name) || reserved[name] || m.ports[name] || name == "clk" || name == "rst" {
		return false
	}
	if m.names[name] {
		for _, n := range m.Nodes {
			if n.Name == name && n.Op != OpInput {
				n.Name = m.claim(name, n.ID)
			}
		}
		for _, mem := range m.Mems {
			if mem.Name == name {
				mem.Name = m.claim(name, 0)
			}
		}
		for i, in := range m.Insts {
			if in.Name == name {
				in.Name = m.claim(name, i)
			}
		}
	}
	m.names[name] = true
	m.ports[name] = true
	return true
}

// In declares an input port of w bits.
func (m *Module) In(name string, w int, signed bool) *Node {
	if !m.portName(name) {
		m.fail("input %q: must be a unique, non-reserved identifier", name)
		return m.placeholder(w, signed)
	}
	n := &Node{ID: len(m.Nodes), Name: name, Op: OpInput, Width: w, Signed: signed, owner: m, named: true}
	if w < 1 || w > MaxWidth {
		m.fail("input %s: width %d: must be in [1,%d]", name, w, MaxWidth)
		n.Width = 1
	}
	m.Nodes = append(m.Nodes, n)
	m.Inputs = append(m.Inputs, n)
	return n
}

// Out declares an output port driven by n.
func (m *Module) Out(name string, n *Node, doc string) {
	if !m.okArgs(OpInput, n) {
		return
	}
	if !m.portName(name) {
		m.fail("output %q: must be a unique, non-reserved identifier", name)
		return
	}
	m.Outputs = append(m.Outputs, Port{Name: name, Node: n, Doc: doc})
}

// Const returns a w-bit constant holding the low w bits of v.
func (m *Module) Const(w int, signed bool, v uint64) *Node {
	if w < 64 && v>>uint(w) != 0 {
		m.fail("const: value %#x does not fit %d bits", v, w)
	}
	return m.ConstBits(w, signed, BitsOf(v))
}

// ConstInt returns a w-bit constant of integer value v, which must be
// representable (in [-2^(w-1), 2^(w-1)) when signed, [0, 2^w) when not).
func (m *Module) ConstInt(w int, signed bool, v int64) *Node {
	lo, hi := int64(0), int64(0)
	if w < 64 {
		if signed {
			lo, hi = -(int64(1) << uint(w-1)), int64(1)<<uint(w-1)-1
		} else {
			hi = int64(1)<<uint(w) - 1
		}
		if v < lo || v > hi {
			m.fail("const: value %d does not fit %d-bit %s", v, w, signedWord(signed))
		}
	} else if !signed && v < 0 {
		m.fail("const: value %d is negative for an unsigned constant", v)
	}
	return m.ConstBits(w, signed, BitsOfInt(v, w))
}

func signedWord(s bool) string {
	if s {
		return "signed"
	}
	return "unsigned"
}

// ConstBits returns a w-bit constant of pattern v (bits at and above w are
// discarded).
func (m *Module) ConstBits(w int, signed bool, v Bits) *Node {
	n := m.newNode(OpConst, w, signed)
	n.Value = v.Trunc(n.Width)
	return n
}

// binSame builds an op whose operands and result share width and signedness.
func (m *Module) binSame(op Op, a, b *Node) *Node {
	if !m.okArgs(op, a, b) {
		return m.placeholder(widthOf(a), false)
	}
	if a.Width != b.Width || a.Signed != b.Signed {
		m.fail("%s: operands %s (%s) and %s (%s) differ in width or signedness", op, a.Name, a.Type(), b.Name, b.Type())
		return m.placeholder(a.Width, a.Signed)
	}
	return m.fold(m.newNode(op, a.Width, a.Signed, a, b))
}

func widthOf(n *Node) int {
	if n == nil {
		return 1
	}
	return n.Width
}

// Type returns "u<W>" or "s<W>".
func (n *Node) Type() string {
	if n.Signed {
		return fmt.Sprintf("s%d", n.Width)
	}
	return fmt.Sprintf("u%d", n.Width)
}

// Add returns a + b modulo 2^W (same width and signedness; see OpAdd).
func (m *Module) Add(a, b *Node) *Node { return m.binSame(OpAdd, a, b) }

// Sub returns a - b modulo 2^W.
func (m *Module) Sub(a, b *Node) *Node { return m.binSame(OpSub, a, b) }

// And returns a & b.
func (m *Module) And(a, b *Node) *Node { return m.binSame(OpAnd, a, b) }

// Or returns a | b.
func (m *Module) Or(a, b *Node) *Node { return m.binSame(OpOr, a, b) }

// Xor returns a ^ b.
func (m *Module) Xor(a, b *Node) *Node { return m.binSame(OpXor, a, b) }

// Not returns ^a.
func (m *Module) Not(a *Node) *Node {
	if !m.okArgs(OpNot, a) {
		return m.placeholder(widthOf(a), false)
	}
	return m.fold(m.newNode(OpNot, a.Width, a.Signed, a))
}

// Mul returns the exact product a*b of a.Width+b.Width bits. a and b must
// share signedness (extend an unsigned operand by one zero bit and read it as
// signed to multiply it by a signed one; FxMul does this).
func (m *Module) Mul(a, b *Node) *Node {
	if !m.okArgs(OpMul, a, b) {
		return m.placeholder(1, false)
	}
	if a.Signed != b.Signed {
		m.fail("mul: operands %s (%s) and %s (%s) differ in signedness", a.Name, a.Type(), b.Name, b.Type())
		return m.placeholder(1, false)
	}
	return m.fold(m.newNode(OpMul, a.Width+b.Width, a.Signed, a, b))
}

func (m *Module) shiftC(op Op, a *Node, k int) *Node {
	if !m.okArgs(op, a) {
		return m.placeholder(widthOf(a), false)
	}
	if k < 0 || k > a.Width {
		m.fail("%s: shift %d of %s (%s): must be in [0,%d]", op, k, a.Name, a.Type(), a.Width)
		return m.placeholder(a.Width, a.Signed)
	}
	if k == 0 {
		return a
	}
	n := m.newNode(op, a.Width, a.Signed, a)
	n.K = k
	return m.fold(n)
}

// ShlC returns a << k (k in [0, a.Width]; width unchanged, zeros in).
func (m *Module) ShlC(a *Node, k int) *Node { return m.shiftC(OpShlC, a, k) }

// LShrC returns a >> k (logical).
func (m *Module) LShrC(a *Node, k int) *Node { return m.shiftC(OpLShrC, a, k) }

// AShrC returns a >>> k (arithmetic: copies of a's top bit shifted in).
func (m *Module) AShrC(a *Node, k int) *Node { return m.shiftC(OpAShrC, a, k) }

func (m *Module) shiftV(op Op, a, s *Node) *Node {
	if !m.okArgs(op, a, s) {
		return m.placeholder(widthOf(a), false)
	}
	if s.Signed {
		m.fail("%s: shift amount %s must be unsigned", op, s.Name)
		return m.placeholder(a.Width, a.Signed)
	}
	return m.fold(m.newNode(op, a.Width, a.Signed, a, s))
}

// Shl returns a << s; any s >= a.Width gives 0.
func (m *Module) Shl(a, s *Node) *Node { return m.shiftV(OpShl, a, s) }

// LShr returns a >> s (logical); any s >= a.Width gives 0.
func (m *Module) LShr(a, s *Node) *Node { return m.shiftV(OpLShr, a, s) }

// AShr returns a >>> s (arithmetic); s >= a.Width gives all copies of the sign bit.
func (m *Module) AShr(a, s *Node) *Node { return m.shiftV(OpAShr, a, s) }

func (m *Module) cmp(op Op, a, b *Node) *Node {
	if !m.okArgs(op, a, b) {
		return m.placeholder(1, false)
	}
	if a.Width != b.Width || a.Signed != b.Signed {
		m.fail("%s: operands %s (%s) and %s (%s) differ in width or signedness", op, a.Name, a.Type(), b.Name, b.Type())
		return m.placeholder(1, false)
	}
	return m.fold(m.newNode(op, 1, false, a, b))
}

// Eq returns a == b (1 bit).
func (m *Module) Eq(a, b *Node) *Node { return m.cmp(OpEq, a, b) }

// Ne returns a != b.
func (m *Module) Ne(a, b *Node) *Node { return m.cmp(OpNe, a, b) }

// Lt returns a < b (signed compare when both are signed).
func (m *Module) Lt(a, b *Node) *Node { return m.cmp(OpLt, a, b) }

// Le returns a <= b.
func (m *Module) Le(a, b *Node) *Node { return m.cmp(OpLe, a, b) }

// Gt returns a > b.
func (m *Module) Gt(a, b *Node) *Node { return m.cmp(OpGt, a, b) }

// Ge returns a >= b.
func (m *Module) Ge(a, b *Node) *Node { return m.cmp(OpGe, a, b) }

// Mux returns sel ? t : f. sel is 1 bit; t and f share width and signedness.
func (m *Module) Mux(sel, t, f *Node) *Node {
	if !m.okArgs(OpMux, sel, t, f) {
		return m.placeholder(widthOf(t), false)
	}
	if sel.Width != 1 || t.Width != f.Width || t.Signed != f.Signed {
		m.fail("mux: select %s (%s) must be 1 bit and %s (%s), %s (%s) must match", sel.Name, sel.Type(), t.Name, t.Type(), f.Name, f.Type())
		return m.placeholder(t.Width, t.Signed)
	}
	if sel.Op == OpConst {
		if sel.Value.Bit(0) {
			return t
		}
		return f
	}
	if t == f {
		return t
	}
	return m.fold(m.newNode(OpMux, t.Width, t.Signed, sel, t, f))
}

// Slice returns bits [lo+w-1 : lo] of a, unsigned.
func (m *Module) Slice(a *Node, lo, w int) *Node {
	if !m.okArgs(OpSlice, a) {
		return m.placeholder(w, false)
	}
	if lo < 0 || w < 1 || lo+w > a.Width {
		m.fail("slice [%d+:%d] of %s (%s): out of range", lo, w, a.Name, a.Type())
		return m.placeholder(w, false)
	}
	if lo == 0 && w == a.Width && !a.Signed {
		return a
	}
	n := m.newNode(OpSlice, w, false, a)
	n.K = lo
	return m.fold(n)
}

// Bit returns bit i of a.
func (m *Module) Bit(a *Node, i int) *Node { return m.Slice(a, i, 1) }

// Concat returns {parts[0], parts[1], ...}, parts[0] most significant, unsigned.
func (m *Module) Concat(parts ...*Node) *Node {
	if len(parts) == 0 {
		m.fail("concat: no operands")
		return m.placeholder(1, false)
	}
	if !m.okArgs(OpConcat, parts...) {
		return m.placeholder(1, false)
	}
	if len(parts) == 1 {
		return m.AsUnsigned(parts[0])
	}
	w := 0
	for _, p := range parts {
		w += p.Width
	}
	return m.fold(m.newNode(OpConcat, w, false, append([]*Node(nil), parts...)...))
}

// ZExt zero-extends a to w bits (w >= a.Width); the result is unsigned.
func (m *Module) ZExt(a *Node, w int) *Node {
	if !m.okArgs(OpZExt, a) {
		return m.placeholder(w, false)
	}
	if w < a.Width {
		m.fail("zext of %s (%s) to %d bits: narrower than the operand", a.Name, a.Type(), w)
		return m.placeholder(w, false)
	}
	if w == a.Width {
		return m.AsUnsigned(a)
	}
	return m.fold(m.newNode(OpZExt, w, false, a))
}

// SExt sign-extends a to w bits (w >= a.Width); the result is signed.
func (m *Module) SExt(a *Node, w int) *Node {
	if !m.okArgs(OpSExt, a) {
		return m.placeholder(w, true)
	}
	if w < a.Width {
		m.fail("sext of %s (%s) to %d bits: narrower than the operand", a.Name, a.Type(), w)
		return m.placeholder(w, true)
	}
	if w == a.Width {
		return m.AsSigned(a)
	}
	return m.fold(m.newNode(OpSExt, w, true, a))
}

// Ext extends a to w bits keeping its meaning: SExt when a is signed (result
// signed), ZExt when not (result unsigned).
func (m *Module) Ext(a *Node, w int) *Node {
	if a != nil && a.Signed {
		return m.SExt(a, w)
	}
	return m.ZExt(a, w)
}

// Trunc keeps the low w bits of a, with a's signedness.
func (m *Module) Trunc(a *Node, w int) *Node {
	if a == nil {
		return m.Slice(a, 0, w)
	}
	s := m.Slice(a, 0, w)
	if a.Signed {
		return m.AsSigned(s)
	}
	return s
}

// Resize truncates or extends (by a's signedness) a to w bits.
func (m *Module) Resize(a *Node, w int) *Node {
	if a != nil && w < a.Width {
		return m.Trunc(a, w)
	}
	return m.Ext(a, w)
}

func (m *Module) as(a *Node, signed bool) *Node {
	if !m.okArgs(OpAs, a) {
		return m.placeholder(widthOf(a), signed)
	}
	if a.Signed == signed {
		return a
	}
	if a.Op == OpAs {
		return m.as(a.Args[0], signed)
	}
	return m.fold(m.newNode(OpAs, a.Width, signed, a))
}

// AsSigned returns a's bits read as two's complement.
func (m *Module) AsSigned(a *Node) *Node { return m.as(a, true) }

// AsUnsigned returns a's bits read as unsigned.
func (m *Module) AsUnsigned(a *Node) *Node { return m.as(a, false) }

// ROM returns the combinational table lookup contents[addr] as a w-bit
// unsigned value. addr is unsigned; addresses >= len(contents) read 0. Every
// entry must fit w bits.
func (m *Module) ROM(addr *Node, w int, contents []uint64) *Node {
	bs := make([]Bits, len(contents))
	for i, c := range contents {
		if w < 64 && c>>uint(w) != 0 {
			m.fail("rom: entry %d = %#x does not fit %d bits", i, c, w)
			return m.placeholder(w, false)
		}
		bs[i] = BitsOf(c)
	}
	return m.ROMBits(addr, w, bs)
}

// ROMBits is ROM with entries of up to MaxWidth bits.
func (m *Module) ROMBits(addr *Node, w int, contents []Bits) *Node {
	if !m.okArgs(OpROM, addr) {
		return m.placeholder(w, false)
	}
	if addr.Signed || addr.Width > 24 {
		m.fail("rom: address %s (%s) must be unsigned and at most 24 bits", addr.Name, addr.Type())
		return m.placeholder(w, false)
	}
	if len(contents) == 0 || len(contents) > 1<<uint(addr.Width) {
		m.fail("rom: %d entries for a %d-bit address", len(contents), addr.Width)
		return m.placeholder(w, false)
	}
	n := m.newNode(OpROM, w, false, addr)
	n.ROM = make([]Bits, len(contents))
	for i, c := range contents {
		if c.Trunc(n.Width) != c {
			m.fail("rom: entry %d does not fit %d bits", i, w)
		}
		n.ROM[i] = c
	}
	return m.fold(n)
}

// Reg declares a register of w bits named name. With hasReset it loads reset
// while rst is high. Connect its next-state input with SetNext.
func (m *Module) Reg(name string, w int, signed bool, hasReset bool, reset Bits) *Node {
	n := m.newNode(OpReg, w, signed)
	n.HasReset = hasReset
	n.Value = reset.Trunc(n.Width)
	n.Named(name)
	m.Regs = append(m.Regs, n)
	return n
}

// SetNext connects register r: on each rising clock edge it loads d when en
// is high (en nil: every edge). d must match r's width and signedness.
func (m *Module) SetNext(r, d, en *Node) {
	if !m.okArgs(OpReg, r, d) {
		return
	}
	if r.Op != OpReg || r.D != nil {
		m.fail("setnext: %s is not an unconnected register", r.Name)
		return
	}
	if d.Width != r.Width || d.Signed != r.Signed {
		m.fail("setnext: register %s (%s) fed %s (%s)", r.Name, r.Type(), d.Name, d.Type())
		return
	}
	if en != nil {
		if !m.okArgs(OpReg, en) {
			return
		}
		if en.Width != 1 {
			m.fail("setnext: enable %s of register %s must be 1 bit", en.Name, r.Name)
			return
		}
	}
	r.D, r.En = d, en
	r.Args = []*Node{d}
	if en != nil {
		r.Args = append(r.Args, en)
	}
}

// Delay returns x delayed by one clock through a new register (no reset,
// always enabled): a pipeline register.
func (m *Module) Delay(x *Node, name string) *Node {
	if !m.okArgs(OpReg, x) {
		return m.placeholder(widthOf(x), false)
	}
	r := m.Reg(name, x.Width, x.Signed, false, Bits{})
	m.SetNext(r, x, nil)
	return r
}

// NewMem declares a RAM of 2^addrWidth words of w bits.
func (m *Module) NewMem(name string, w, addrWidth int, doc string) *Mem {
	if w < 1 || w > MaxWidth || addrWidth < 1 || addrWidth > 20 {
		m.fail("mem %s: width %d, address width %d: must be in [1,%d] and [1,20]", name, w, addrWidth, MaxWidth)
		w, addrWidth = 1, 1
	}
	mem := &Mem{Name: m.claim(name, len(m.Mems)), Width: w, AddrWidth: addrWidth, Doc: doc}
	m.Mems = append(m.Mems, mem)
	return mem
}

// MemRead adds a registered read port to mem: the returned node holds, from
// the next cycle on, mem[addr] as it was before this edge's write, whenever
// en (1 bit) was high; it keeps its value otherwise.
func (m *Module) MemRead(mem *Mem, addr, en *Node, name string) *Node {
	if !m.okArgs(OpMemRead, addr, en) {
		return m.placeholder(1, false)
	}
	if addr.Width != mem.AddrWidth || addr.Signed || en.Width != 1 {
		m.fail("memread %s: address %s (%s) must be u%d, enable 1 bit", mem.Name, addr.Name, addr.Type(), mem.AddrWidth)
		return m.placeholder(mem.Width, false)
	}
	n := m.newNode(OpMemRead, mem.Width, false, addr, en)
	n.Mem = mem
	n.Named(name)
	mem.Reads = append(mem.Reads, n)
	return n
}

// MemWrite connects mem's write port: on each rising edge with we high,
// mem[addr] = data.
func (m *Module) MemWrite(mem *Mem, we, addr, data *Node) {
	if !m.okArgs(OpMemRead, we, addr, data) {
		return
	}
	if mem.WE != nil {
		m.fail("memwrite %s: write port already connected", mem.Name)
		return
	}
	if we.Width != 1 || addr.Width != mem.AddrWidth || addr.Signed || data.Width != mem.Width {
		m.fail("memwrite %s: we %s, address %s (%s), data %s (%s) do not match 1 bit, u%d, %d bits",
			mem.Name, we.Type(), addr.Name, addr.Type(), data.Name, data.Type(), mem.AddrWidth, mem.Width)
		return
	}
	mem.WE, mem.WAddr, mem.WData = we, addr, data
}

// Instance instantiates sub with its inputs driven by args (one per
// sub.Inputs, same width and signedness) and returns the instance; its
// outputs are inst.Outs (one node per sub.Outputs) or inst.Out(name).
func (m *Module) Instance(sub *Module, name string, args []*Node) *Inst {
	inst := &Inst{Mod: sub}
	if sub == nil || sub.Err() != nil {
		m.fail("instance %s: submodule missing or invalid", name)
		return inst
	}
	if len(args) != len(sub.Inputs) {
		m.fail("instance %s of %s: %d inputs given, want %d", name, sub.Name, len(args), len(sub.Inputs))
		return inst
	}
	if !m.okArgs(OpInstOut, args...) {
		return inst
	}
	for i, in := range sub.Inputs {
		if args[i].Width != in.Width || args[i].Signed != in.Signed {
			m.fail("instance %s of %s: input %s (%s) driven by %s (%s)", name, sub.Name, in.Name, in.Type(), args[i].Name, args[i].Type())
			return inst
		}
	}
	inst.Name = m.claim(name, len(m.Insts))
	inst.Args = append([]*Node(nil), args...)
	for k, p := range sub.Outputs {
		n := m.newNode(OpInstOut, p.Node.Width, p.Node.Signed)
		n.K, n.Inst = k, inst
		n.Named(inst.Name + "_" + p.Name)
		inst.Outs = append(inst.Outs, n)
	}
	m.Insts = append(m.Insts, inst)
	return inst
}

// Out returns the node of the instance's output port name, or nil.
func (in *Inst) Out(name string) *Node {
	if in.Mod == nil {
		return nil
	}
	for k, p := range in.Mod.Outputs {
		if p.Name == name && k < len(in.Outs) {
			return in.Outs[k]
		}
	}
	return nil
}

// fold replaces a combinational node whose operands are all constants by a
// constant (printers then never slice or extend a literal).
func (m *Module) fold(n *Node) *Node {
	if n.Op.IsSource() || n.Op == OpInstOut || m.err != nil {
		return n
	}
	args := make([]Bits, len(n.Args))
	for i, a := range n.Args {
		if a.Op != OpConst {
			return n
		}
		args[i] = a.Value
	}
	v := evalOp(n, args)
	// Replace n in place: it is the last node created.
	n.Op, n.Args, n.ROM, n.K, n.Value = OpConst, nil, nil, 0, v
	return n
}
