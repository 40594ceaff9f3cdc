package llvmir

import (
	"math/big"
	"strconv"

	"github.com/llir/llvm/ir"
	"github.com/llir/llvm/ir/constant"
	"github.com/llir/llvm/ir/enum"
	"github.com/llir/llvm/ir/types"
	"github.com/llir/llvm/ir/value"

	"github.com/hpccgold/hpccgold/rtl"
)

// lowerer builds @M_core from a flat combinational module.
type lowerer struct {
	f     *rtl.Module
	fn    *ir.Func
	blk   *ir.Block
	vals  []value.Value
	live  []bool
	types map[int]*types.IntType
	owner []region              // innermost guarded cone of each node
	arms  map[*rtl.Node][3]bool // guarded arms of each guarded mux
	ops   int                   // nodes lowered
}

func (l *lowerer) ty(w int) *types.IntType {
	if t, ok := l.types[w]; ok {
		return t
	}
	t := types.NewInt(uint64(w))
	l.types[w] = t
	return t
}

// cnst returns the w-bit constant with pattern b (canonical: zero above w).
func (l *lowerer) cnst(w int, b rtl.Bits) *constant.Int {
	return &constant.Int{Typ: l.ty(w), X: b.Trunc(w).Big()}
}

func (l *lowerer) cint(w int, v uint64) *constant.Int {
	return &constant.Int{Typ: l.ty(w), X: new(big.Int).SetUint64(v)}
}

// named sets an instruction's name and returns it as a value.
func named[T interface {
	value.Named
}](v T, name string) T {
	v.SetName(name)
	return v
}

// lower builds the LLVM module: @M_core and @M_abi.
func (md *Model) lower(f *rtl.Module, opts Options) error {
	m := ir.NewModule()
	m.SourceFilename = md.Name
	m.TargetTriple = TargetTriple
	m.DataLayout = DataLayout
	l := &lowerer{f: f, vals: make([]value.Value, len(f.Nodes)), types: map[int]*types.IntType{}}

	// @M_core(iN per input port) -> { iN per output port }.
	var params []*ir.Param
	for _, n := range f.Inputs {
		p := ir.NewParam(n.Name, l.ty(n.Width))
		params = append(params, p)
		l.vals[n.ID] = p
	}
	var fields []types.Type
	for _, p := range f.Outputs {
		fields = append(fields, l.ty(p.Node.Width))
	}
	coreRet := m.NewTypeDef(md.Name+"_core_ret", types.NewStruct(fields...))
	core := m.NewFunc(md.Name+"_core", coreRet, params...)
	core.FuncAttrs = append(core.FuncAttrs, enum.FuncAttrAlwaysInline, enum.FuncAttrNoUnwind)
	l.fn = core
	l.blk = core.NewBlock("bb.entry")
	l.live = f.Live()
	guardMin := opts.GuardMin
	if guardMin == 0 {
		guardMin = DefaultGuardMin
	}
	l.owner, l.arms = guards(f, l.live, guardMin)
	for _, g := range l.arms {
		md.Guards += boolInt(g[1]) + boolInt(g[2])
	}
	if err := l.emitRegion(region{}, 0, len(f.Nodes)); err != nil {
		return err
	}
	md.Ops = l.ops
	var agg value.Value = constant.NewUndef(coreRet)
	for i, p := range f.Outputs {
		agg = named(l.blk.NewInsertValue(agg, l.vals[p.Node.ID], uint64(i)), "ret."+strconv.Itoa(i))
	}
	l.blk.NewRet(agg)

	// @M_abi(i64 slots) -> { i64 slots }: the C-callable, pointer-free entry.
	i64 := types.I64
	var aparams []*ir.Param
	for _, p := range md.Inputs {
		if p.Slots() == 1 {
			aparams = append(aparams, ir.NewParam(p.Name, i64))
			continue
		}
		for k := 0; k < p.Slots(); k++ {
			aparams = append(aparams, ir.NewParam(p.Name+".w"+strconv.Itoa(k), i64))
		}
	}
	rf := make([]types.Type, md.RetSlots)
	for i := range rf {
		rf[i] = i64
	}
	abiRet := m.NewTypeDef(md.Name+"_abi_ret", types.NewStruct(rf...))
	abi := m.NewFunc(md.Name+"_abi", abiRet, aparams...)
	abi.FuncAttrs = append(abi.FuncAttrs, enum.FuncAttrNoUnwind)
	b := abi.NewBlock("bb.entry")
	var args []value.Value
	for _, p := range md.Inputs {
		t := l.ty(p.Width)
		s := aparams[p.Slot]
		switch {
		case p.Width == 64:
			args = append(args, s)
		case p.Width < 64:
			args = append(args, named(b.NewTrunc(s, t), p.Name+".n"))
		default:
			var acc value.Value
			for k := 0; k < p.Slots(); k++ {
				x := value.Value(named(b.NewZExt(aparams[p.Slot+k], t), p.Name+".z"+strconv.Itoa(k)))
				if k > 0 {
					x = named(b.NewShl(x, l.cint(p.Width, uint64(64*k))), p.Name+".s"+strconv.Itoa(k))
					acc = named(b.NewOr(acc, x), p.Name+".o"+strconv.Itoa(k))
				} else {
					acc = x
				}
			}
			args = append(args, acc)
		}
	}
	call := named(b.NewCall(core, args...), "r.core")
	var ret value.Value = constant.NewUndef(abiRet)
	for i, p := range md.Outputs {
		v := value.Value(named(b.NewExtractValue(call, uint64(i)), p.Name))
		switch {
		case p.Width < 64 && p.Signed:
			v = named(b.NewSExt(v, i64), p.Name+".x")
		case p.Width < 64:
			v = named(b.NewZExt(v, i64), p.Name+".x")
		}
		if p.Width <= 64 {
			ret = named(b.NewInsertValue(ret, v, uint64(p.Slot)), p.Name+".r")
			continue
		}
		for k := 0; k < p.Slots(); k++ {
			w := value.Value(v)
			ks := strconv.Itoa(k)
			if k > 0 {
				w = named(b.NewLShr(v, l.cint(p.Width, uint64(64*k))), p.Name+".h"+ks)
			}
			if hi := p.Width - 64*k; hi < 64 {
				w = named(b.NewZExt(named(b.NewTrunc(w, l.ty(hi)), p.Name+".t"+ks), i64), p.Name+".x"+ks)
			} else {
				w = named(b.NewTrunc(w, i64), p.Name+".x"+ks)
			}
			ret = named(b.NewInsertValue(ret, w, uint64(p.Slot+k)), p.Name+".r"+ks)
		}
	}
	for i := md.retUsed(); i < md.RetSlots; i++ {
		ret = named(b.NewInsertValue(ret, constant.NewInt(i64, 0), uint64(i)), "pad."+strconv.Itoa(i))
	}
	b.NewRet(ret)
	md.lowerPacked(m, l, core)
	md.IR = m
	return nil
}

// lowerPacked adds @M_packed(i64 words of the packed input) -> { i64 words
// of the packed output }: the DPI-C entry's form, the field-table layout
// (ports LSB-first) split into 64-bit words, least significant first.
func (md *Model) lowerPacked(m *ir.Module, l *lowerer, core *ir.Func) {
	i64 := types.I64
	inW, outW := (md.InBits+63)/64, (md.OutBits+63)/64
	params := make([]*ir.Param, inW)
	for j := range params {
		params[j] = ir.NewParam("w"+strconv.Itoa(j), i64)
	}
	rf := make([]types.Type, md.PackedRetSlots)
	for i := range rf {
		rf[i] = i64
	}
	ret := m.NewTypeDef(md.Name+"_packed_ret", types.NewStruct(rf...))
	fn := m.NewFunc(md.Name+"_packed", ret, params...)
	fn.FuncAttrs = append(fn.FuncAttrs, enum.FuncAttrNoUnwind)
	b := fn.NewBlock("bb.entry")
	// Inputs: bits [off, off+W) of the words.
	var args []value.Value
	for _, p := range md.Inputs {
		j0, s := p.Offset/64, p.Offset%64
		j1 := (p.Offset + p.Width - 1) / 64
		var v value.Value = params[j0]
		if j1 > j0 { // spans words: gather them into one wider integer
			wt := l.ty(64 * (j1 - j0 + 1))
			v = named(b.NewZExt(params[j0], wt), p.Name+".g0")
			for j := j0 + 1; j <= j1; j++ {
				js := strconv.Itoa(j - j0)
				x := value.Value(named(b.NewZExt(params[j], wt), p.Name+".z"+js))
				x = named(b.NewShl(x, l.cint(64*(j1-j0+1), uint64(64*(j-j0)))), p.Name+".s"+js)
				v = named(b.NewOr(v, x), p.Name+".g"+js)
			}
		}
		if s > 0 {
			v = named(b.NewLShr(v, l.cint(64*(j1-j0+1), uint64(s))), p.Name+".sh")
		}
		if !v.Type().Equal(l.ty(p.Width)) {
			v = named(b.NewTrunc(v, l.ty(p.Width)), p.Name)
		}
		args = append(args, v)
	}
	call := named(b.NewCall(core, args...), "r.core")
	outs := make([]value.Value, len(md.Outputs))
	for i, p := range md.Outputs {
		outs[i] = named(b.NewExtractValue(call, uint64(i)), p.Name)
	}
	// Outputs: word j is the OR of the pieces of the ports overlapping it.
	var agg value.Value = constant.NewUndef(ret)
	for j := 0; j < md.PackedRetSlots; j++ {
		var acc value.Value
		js := strconv.Itoa(j)
		for i, p := range md.Outputs {
			lo, hi := 64*j, 64*j+64
			if j >= outW || p.Offset >= hi || p.Offset+p.Width <= lo {
				continue
			}
			drop, shift := max(lo-p.Offset, 0), max(p.Offset-lo, 0)
			x := outs[i]
			if drop > 0 {
				x = named(b.NewLShr(x, l.cint(p.Width, uint64(drop))), p.Name+".d"+js)
			}
			switch {
			case p.Width > 64:
				x = named(b.NewTrunc(x, i64), p.Name+".t"+js)
			case p.Width < 64:
				x = named(b.NewZExt(x, i64), p.Name+".x"+js)
			}
			if shift > 0 {
				x = named(b.NewShl(x, l.cint(64, uint64(shift))), p.Name+".p"+js)
			}
			if acc == nil {
				acc = x
			} else {
				acc = named(b.NewOr(acc, x), p.Name+".o"+js)
			}
		}
		if acc == nil {
			acc = constant.NewInt(i64, 0)
		}
		agg = named(b.NewInsertValue(agg, acc, uint64(j)), "out.w"+js)
	}
	b.NewRet(agg)
}

// retUsed returns the return slots the outputs occupy (padding excluded).
func (md *Model) retUsed() int {
	n := 0
	for _, p := range md.Outputs {
		n += p.Slots()
	}
	return n
}

// node lowers one combinational rtl node into l.blk (which a ROM advances).
func (l *lowerer) node(n *rtl.Node) error {
	b := l.blk
	w := n.Width
	arg := func(i int) value.Value { return l.vals[n.Args[i].ID] }
	var v value.Value
	switch n.Op {
	case rtl.OpConst:
		v = l.cnst(w, n.Value)
	case rtl.OpAdd:
		v = named(b.NewAdd(arg(0), arg(1)), n.Name)
	case rtl.OpSub:
		v = named(b.NewSub(arg(0), arg(1)), n.Name)
	case rtl.OpAnd:
		v = named(b.NewAnd(arg(0), arg(1)), n.Name)
	case rtl.OpOr:
		v = named(b.NewOr(arg(0), arg(1)), n.Name)
	case rtl.OpXor:
		v = named(b.NewXor(arg(0), arg(1)), n.Name)
	case rtl.OpNot:
		v = named(b.NewXor(arg(0), l.cnst(w, rtl.Bits{}.Not())), n.Name)
	case rtl.OpMul:
		x, y := l.extend(n, 0, w), l.extend(n, 1, w)
		v = named(b.NewMul(x, y), n.Name)
	case rtl.OpShlC, rtl.OpLShrC, rtl.OpAShrC:
		v = l.shiftConst(n)
	case rtl.OpShl, rtl.OpLShr, rtl.OpAShr:
		v = l.shiftVar(n)
	case rtl.OpEq, rtl.OpNe, rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe:
		v = named(b.NewICmp(pred(n.Op, n.Args[0].Signed), arg(0), arg(1)), n.Name)
	case rtl.OpMux:
		v = named(b.NewSelect(arg(0), arg(1), arg(2)), n.Name)
	case rtl.OpSlice:
		v = arg(0)
		if n.K > 0 {
			v = named(b.NewLShr(v, l.cint(n.Args[0].Width, uint64(n.K))), n.Name+".sh")
		}
		if w < n.Args[0].Width {
			v = named(b.NewTrunc(v, l.ty(w)), n.Name)
		}
	case rtl.OpConcat:
		off := w
		for i, p := range n.Args {
			off -= p.Width
			is := strconv.Itoa(i)
			x := arg(i)
			if p.Width < w {
				x = named(b.NewZExt(x, l.ty(w)), n.Name+".z"+is)
			}
			if off > 0 {
				x = named(b.NewShl(x, l.cint(w, uint64(off))), n.Name+".s"+is)
			}
			if i == 0 {
				v = x
				continue
			}
			name := n.Name + ".o" + is
			if i == len(n.Args)-1 {
				name = n.Name
			}
			v = named(b.NewOr(v, x), name)
		}
	case rtl.OpZExt:
		v = arg(0)
		if w > n.Args[0].Width {
			v = named(b.NewZExt(v, l.ty(w)), n.Name)
		}
	case rtl.OpSExt:
		v = arg(0)
		if w > n.Args[0].Width {
			v = named(b.NewSExt(v, l.ty(w)), n.Name)
		}
	case rtl.OpAs:
		v = arg(0)
	case rtl.OpROM:
		switch {
		case bitmapROM(n):
			v = l.romBitmap(n)
		case l.vals[n.ID] == nil: // not yet lowered with an earlier ROM on its address
			l.romGroup(n)
			v = l.vals[n.ID]
		default:
			v = l.vals[n.ID]
		}
	default:
		return errorf("module %s: node %s: op %s cannot be lowered", l.f.Name, n.Name, n.Op)
	}
	l.vals[n.ID] = v
	return nil
}

// extend returns operand i of a product extended to w bits by the
// product's signedness (OpMul: operands share it).
func (l *lowerer) extend(n *rtl.Node, i, w int) value.Value {
	a := n.Args[i]
	x := l.vals[a.ID]
	if a.Width == w {
		return x
	}
	name := n.Name + ".a"
	if i == 1 {
		name = n.Name + ".b"
	}
	if n.Signed {
		return named(l.blk.NewSExt(x, l.ty(w)), name)
	}
	return named(l.blk.NewZExt(x, l.ty(w)), name)
}

func pred(op rtl.Op, signed bool) enum.IPred {
	switch op {
	case rtl.OpEq:
		return enum.IPredEQ
	case rtl.OpNe:
		return enum.IPredNE
	case rtl.OpLt:
		if signed {
			return enum.IPredSLT
		}
		return enum.IPredULT
	case rtl.OpLe:
		if signed {
			return enum.IPredSLE
		}
		return enum.IPredULE
	case rtl.OpGt:
		if signed {
			return enum.IPredSGT
		}
		return enum.IPredUGT
	}
	if signed {
		return enum.IPredSGE
	}
	return enum.IPredUGE
}

// shiftConst lowers a shift by the constant K in [0, W]. LLVM makes a shift
// by W poison; rtl gives 0 (shl, lshr) or W copies of the top bit (ashr,
// which equals ashr by W-1).
func (l *lowerer) shiftConst(n *rtl.Node) value.Value {
	a := l.vals[n.Args[0].ID]
	w, k := n.Width, n.K
	if k == 0 {
		return a
	}
	if k >= w {
		if n.Op != rtl.OpAShrC {
			return l.cint(w, 0)
		}
		k = w - 1
		if k == 0 {
			return a
		}
	}
	amt := l.cint(w, uint64(k))
	switch n.Op {
	case rtl.OpShlC:
		return named(l.blk.NewShl(a, amt), n.Name)
	case rtl.OpLShrC:
		return named(l.blk.NewLShr(a, amt), n.Name)
	}
	return named(l.blk.NewAShr(a, amt), n.Name)
}

// shiftVar lowers a shift by an unsigned signal of any width. The amount is
// brought to the shifted value's type; when it can reach W, an overflow
// flag replaces it by a safe amount (so no instruction is poison) and
// selects rtl's result for it.
func (l *lowerer) shiftVar(n *rtl.Node) value.Value {
	b := l.blk
	a := l.vals[n.Args[0].ID]
	s := n.Args[1]
	sv := l.vals[s.ID]
	w := n.Width
	t := l.ty(w)
	// Can the amount reach w? Its largest value is 2^sw - 1.
	canOvf := s.Width >= 64 || uint64(1)<<uint(s.Width)-1 >= uint64(w)
	var amt value.Value = sv
	var ovf value.Value
	switch {
	case s.Width > w:
		ovf = named(b.NewICmp(enum.IPredUGE, sv, l.cint(s.Width, uint64(w))), n.Name+".ovf")
		amt = named(b.NewTrunc(sv, t), n.Name+".amt")
	case s.Width < w:
		amt = named(b.NewZExt(sv, t), n.Name+".amt")
		fallthrough
	default:
		if canOvf {
			ovf = named(b.NewICmp(enum.IPredUGE, amt, l.cint(w, uint64(w))), n.Name+".ovf")
		}
	}
	if ovf != nil {
		safe := uint64(0)
		if n.Op == rtl.OpAShr {
			safe = uint64(w - 1)
		}
		amt = named(b.NewSelect(ovf, l.cint(w, safe), amt), n.Name+".safe")
	}
	switch n.Op {
	case rtl.OpAShr:
		return named(b.NewAShr(a, amt), n.Name)
	case rtl.OpShl:
		if ovf == nil {
			return named(b.NewShl(a, amt), n.Name)
		}
		r := named(b.NewShl(a, amt), n.Name+".sh")
		return named(b.NewSelect(ovf, l.cint(w, 0), r), n.Name)
	}
	if ovf == nil {
		return named(b.NewLShr(a, amt), n.Name)
	}
	r := named(b.NewLShr(a, amt), n.Name+".sh")
	return named(b.NewSelect(ovf, l.cint(w, 0), r), n.Name)
}

// bitmapROM reports whether a ROM's whole address space fits one i64:
// 2^addrWidth entries of Width bits, at most 64 bits.
func bitmapROM(n *rtl.Node) bool {
	aw := n.Args[0].Width
	return aw <= 6 && n.Width<<uint(aw) <= 64
}

// romBitmap lowers a small ROM to a constant: the table, entries past its
// end zero, packed LSB-first into an i64, read as trunc(lshr(table,
// zext(addr)*W)). The shift amount is below 64 for every address, so no
// instruction is poison; no branch, no pointer.
func (l *lowerer) romBitmap(n *rtl.Node) value.Value {
	w := n.Width
	var table uint64
	for a, v := range n.ROM {
		table |= v[0] << uint(a*w)
	}
	b := l.blk
	amt := value.Value(named(b.NewZExt(l.vals[n.Args[0].ID], types.I64), n.Name+".a"))
	if w > 1 {
		amt = named(b.NewMul(amt, l.cint(64, uint64(w))), n.Name+".off")
	}
	v := value.Value(named(b.NewLShr(l.cint(64, table), amt), n.Name+".sh"))
	if w < 64 {
		v = named(b.NewTrunc(v, l.ty(w)), n.Name)
	}
	return v
}

// romGroup lowers every live ROM reading address node addr in n's guarded
// region (the first of them is n; see guards) to one switch + phis (see package doc): one empty block per
// distinct tuple of entry values, the most frequent tuple as the default.
// One switch per address keeps LLVM's jump threading from duplicating the
// logic between two switches on the same value (per-case copies with
// unpredictable branches), and SimplifyCFG builds one table per phi.
func (l *lowerer) romGroup(n *rtl.Node) {
	addr := n.Args[0]
	var roms []*rtl.Node
	for _, x := range l.f.Nodes[n.ID:] {
		if x.Op == rtl.OpROM && x.Args[0] == addr && l.live[x.ID] && !bitmapROM(x) && l.owner[x.ID] == l.owner[n.ID] {
			roms = append(roms, x)
		}
	}
	aw := addr.Width
	space := uint64(1) << uint(aw)
	// Entry tuples, in first-occurrence order over the addresses any table
	// covers; addresses past a table read 0.
	span := 0
	for _, r := range roms {
		span = max(span, len(r.ROM))
	}
	type class struct {
		vals  []rtl.Bits
		addrs []uint64
	}
	key := func(a int) string {
		var b []byte
		for _, r := range roms {
			var v rtl.Bits
			if a < len(r.ROM) {
				v = r.ROM[a]
			}
			b = append(b, v.String()...)
			b = append(b, ',')
		}
		return string(b)
	}
	var classes []*class
	idx := map[string]int{}
	for a := 0; a < span; a++ {
		k := key(a)
		i, ok := idx[k]
		if !ok {
			i = len(classes)
			idx[k] = i
			c := &class{}
			for _, r := range roms {
				var v rtl.Bits
				if a < len(r.ROM) {
					v = r.ROM[a]
				}
				c.vals = append(c.vals, v)
			}
			classes = append(classes, c)
		}
		classes[i].addrs = append(classes[i].addrs, uint64(a))
	}
	def := -1
	zero := make([]rtl.Bits, len(roms))
	if uint64(span) < space {
		if i, ok := idx[key(span)]; ok { // the all-zero tuple
			def = i
		}
	} else {
		for i, c := range classes {
			if def < 0 || len(c.addrs) > len(classes[def].addrs) {
				def = i
			}
		}
	}
	if def >= 0 && len(classes) == 1 { // one tuple everywhere: constants
		for j, r := range roms {
			l.vals[r.ID] = l.cnst(r.Width, classes[0].vals[j])
		}
		return
	}
	// Blocks in order: one per non-default tuple, the default, the join
	// (which continues the body).
	var blks []*ir.Block
	for i := range classes {
		if i != def {
			blks = append(blks, l.fn.NewBlock(n.Name+".v"+strconv.Itoa(i)))
		}
	}
	defBlk := l.fn.NewBlock(n.Name + ".def")
	join := l.fn.NewBlock(n.Name + ".end")
	defVals := zero
	if def >= 0 {
		defVals = classes[def].vals
	}
	var cases []*ir.Case
	var preds []*ir.Block
	var tuples [][]rtl.Bits
	k := 0
	for i, c := range classes {
		if i == def {
			continue
		}
		blk := blks[k]
		k++
		blk.NewBr(join)
		preds, tuples = append(preds, blk), append(tuples, c.vals)
		for _, a := range c.addrs {
			cases = append(cases, ir.NewCase(l.cint(aw, a), blk))
		}
	}
	defBlk.NewBr(join)
	preds, tuples = append(preds, defBlk), append(tuples, defVals)
	l.blk.NewSwitch(l.vals[addr.ID], defBlk, cases...)
	l.blk = join
	// One phi per ROM and 64-bit word of its entries, of type i8, i16, i32
	// or i64: the integer types LLVM builds lookup tables of (an i20 or
	// i128 phi would leave the switch a branch tree). Every phi first: they
	// must lead the block.
	type word struct {
		rom, k int
		phi    value.Value
	}
	var phis []word
	for j, r := range roms {
		w := r.Width
		words := (w + 63) / 64
		for k := 0; k < words; k++ {
			cw := min(64, w-64*k)
			pw := 8
			for pw < cw {
				pw *= 2
			}
			incs := make([]*ir.Incoming, len(preds))
			for i, b := range preds {
				v := tuples[i][j].Shr(uint(64 * k))[0] & (^uint64(0) >> uint(64-cw))
				incs[i] = ir.NewIncoming(l.cint(pw, v), b)
			}
			name := r.Name
			if words > 1 || pw != w {
				name = r.Name + ".p" + strconv.Itoa(k)
			}
			phis = append(phis, word{j, k, named(join.NewPhi(incs...), name)})
		}
	}
	for _, p := range phis {
		r := roms[p.rom]
		w := r.Width
		ks := strconv.Itoa(p.k)
		switch {
		case w <= 64 && p.phi.Type().Equal(l.ty(w)):
			l.vals[r.ID] = p.phi
		case w <= 64:
			l.vals[r.ID] = named(join.NewTrunc(p.phi, l.ty(w)), r.Name)
		default:
			x := value.Value(named(join.NewZExt(p.phi, l.ty(w)), r.Name+".z"+ks))
			if p.k == 0 {
				l.vals[r.ID] = x
				continue
			}
			x = named(join.NewShl(x, l.cint(w, uint64(64*p.k))), r.Name+".s"+ks)
			name := r.Name + ".o" + ks
			if p.k == (w+63)/64-1 {
				name = r.Name
			}
			l.vals[r.ID] = named(join.NewOr(l.vals[r.ID], x), name)
		}
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
