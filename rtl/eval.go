package rtl

// evalOp computes a combinational node from its operand values (canonical
// patterns, see Bits). It is the single definition of every op's semantics in
// Go; the simulator and constant folding both use it.
func evalOp(n *Node, args []Bits) Bits {
	w := n.Width
	var a, b Bits
	if len(args) > 0 {
		a = args[0]
	}
	if len(args) > 1 {
		b = args[1]
	}
	switch n.Op {
	case OpAdd:
		return a.Add(b).Trunc(w)
	case OpSub:
		return a.Sub(b).Trunc(w)
	case OpMul:
		if n.Signed {
			return a.SignExt(n.Args[0].Width).Mul(b.SignExt(n.Args[1].Width)).Trunc(w)
		}
		return a.Mul(b).Trunc(w)
	case OpAnd:
		return a.And(b)
	case OpOr:
		return a.Or(b)
	case OpXor:
		return a.Xor(b)
	case OpNot:
		return a.Not().Trunc(w)
	case OpShlC:
		return a.Shl(uint(n.K)).Trunc(w)
	case OpLShrC:
		return a.Shr(uint(n.K))
	case OpAShrC:
		return a.SignExt(w).Shr(uint(n.K)).Trunc(w)
	case OpShl:
		s := b.SmallShift()
		if s >= uint(w) {
			return Bits{}
		}
		return a.Shl(s).Trunc(w)
	case OpLShr:
		s := b.SmallShift()
		if s >= uint(w) {
			return Bits{}
		}
		return a.Shr(s)
	case OpAShr:
		s := b.SmallShift()
		if s >= uint(w) {
			s = uint(w) - 1
		}
		return a.SignExt(w).Shr(s).Trunc(w)
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		aw := n.Args[0].Width
		if n.Args[0].Signed {
			flip := BitsOf(1).Shl(uint(aw - 1))
			a, b = a.Xor(flip), b.Xor(flip)
		}
		c := a.Cmp(b)
		var r bool
		switch n.Op {
		case OpEq:
			r = c == 0
		case OpNe:
			r = c != 0
		case OpLt:
			r = c < 0
		case OpLe:
			r = c <= 0
		case OpGt:
			r = c > 0
		default:
			r = c >= 0
		}
		if r {
			return Bits{1}
		}
		return Bits{}
	case OpMux:
		if a.Bit(0) {
			return b
		}
		return args[2]
	case OpSlice:
		return a.Shr(uint(n.K)).Trunc(w)
	case OpConcat:
		var r Bits
		for i, p := range n.Args {
			r = r.Shl(uint(p.Width)).Or(args[i])
		}
		return r
	case OpZExt, OpAs:
		return a
	case OpSExt:
		return a.SignExt(n.Args[0].Width).Trunc(w)
	case OpROM:
		addr := a[0]
		if addr < uint64(len(n.ROM)) {
			return n.ROM[addr]
		}
		return Bits{}
	case OpConst, OpReg:
		return n.Value
	}
	return Bits{}
}

// evalOp64 is evalOp for nodes whose operands and result are all at most
// 64 bits wide (the common case), on plain uint64 values (canonical: zero
// above the width). ok is false for ops it does not handle.
func evalOp64(n *Node, a, b, c uint64) (r uint64, ok bool) {
	w := uint(n.Width)
	mask := ^uint64(0) >> (64 - w)
	switch n.Op {
	case OpAdd:
		return (a + b) & mask, true
	case OpSub:
		return (a - b) & mask, true
	case OpMul:
		if n.Signed {
			aw, bw := uint(n.Args[0].Width), uint(n.Args[1].Width)
			sa := int64(a<<(64-aw)) >> (64 - aw)
			sb := int64(b<<(64-bw)) >> (64 - bw)
			return uint64(sa*sb) & mask, true
		}
		return (a * b) & mask, true
	case OpAnd:
		return a & b, true
	case OpOr:
		return a | b, true
	case OpXor:
		return a ^ b, true
	case OpNot:
		return ^a & mask, true
	case OpShlC:
		if uint(n.K) >= 64 {
			return 0, true
		}
		return (a << uint(n.K)) & mask, true
	case OpLShrC:
		if uint(n.K) >= 64 {
			return 0, true
		}
		return a >> uint(n.K), true
	case OpAShrC:
		k := uint(n.K)
		if k >= w {
			k = w - 1
		}
		s := int64(a<<(64-w)) >> (64 - w)
		return uint64(s>>k) & mask, true
	case OpShl:
		if b >= uint64(w) {
			return 0, true
		}
		return (a << b) & mask, true
	case OpLShr:
		if b >= uint64(w) {
			return 0, true
		}
		return a >> b, true
	case OpAShr:
		if b >= uint64(w) {
			b = uint64(w) - 1
		}
		s := int64(a<<(64-w)) >> (64 - w)
		return uint64(s>>b) & mask, true
	case OpEq, OpNe, OpLt, OpLe, OpGt, OpGe:
		if n.Args[0].Signed {
			flip := uint64(1) << uint(n.Args[0].Width-1)
			a, b = a^flip, b^flip
		}
		var r bool
		switch n.Op {
		case OpEq:
			r = a == b
		case OpNe:
			r = a != b
		case OpLt:
			r = a < b
		case OpLe:
			r = a <= b
		case OpGt:
			r = a > b
		default:
			r = a >= b
		}
		if r {
			return 1, true
		}
		return 0, true
	case OpMux:
		if a&1 == 1 {
			return b, true
		}
		return c, true
	case OpSlice:
		return (a >> uint(n.K)) & mask, true
	case OpZExt, OpAs:
		return a, true
	case OpSExt:
		aw := uint(n.Args[0].Width)
		return uint64(int64(a<<(64-aw))>>(64-aw)) & mask, true
	case OpROM:
		if a < uint64(len(n.ROM)) {
			return n.ROM[a][0], true
		}
		return 0, true
	}
	return 0, false
}
