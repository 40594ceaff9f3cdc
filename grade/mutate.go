package grade

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/hpccgold/hpccgold/rtl"
)

// Operator names one kind of single-point mutation.
type Operator string

// The mutation operators. Each applies to one node of the description.
const (
	OpSwap   Operator = "op-swap"   // add<->sub, and/or/xor among themselves, shl/lshr/ashr, lshrc<->ashrc
	CmpFlip  Operator = "cmp-flip"  // lt<->le, gt<->ge (off by one), lt<->ge, le<->gt, eq<->ne (negation)
	CmpSign  Operator = "cmp-sign"  // a compare read with the other signedness
	ConstInc Operator = "const+1"   // constant + 1 (mod 2^W)
	ConstDec Operator = "const-1"   // constant - 1 (mod 2^W)
	ConstMSB Operator = "const-msb" // constant with its top bit flipped (a 1-bit constant inverted)
	ROMInc   Operator = "rom+1"     // one ROM entry + 1 (mod 2^W)
	ROMDec   Operator = "rom-1"     // one ROM entry - 1 (mod 2^W)
	ShiftInc Operator = "shift+1"   // constant shift amount + 1
	ShiftDec Operator = "shift-1"   // constant shift amount - 1
	MuxSwap  Operator = "mux-swap"  // sel ? t : f becomes sel ? f : t (select inversion)
	ExtSwap  Operator = "ext-swap"  // sign extension <-> zero extension
	MulSign  Operator = "mul-sign"  // a product computed with the other signedness
	SliceInc Operator = "slice+1"   // bit-slice low offset + 1
	SliceDec Operator = "slice-1"   // bit-slice low offset - 1
	NotDrop  Operator = "not-drop"  // an inverter removed
)

// romEntries is the number of ROM entries mutated per ROM node (each +1
// and -1).
const romEntries = 2

// Mutant is one single-point change of a module's node. Index is its
// position in Sites' list; NodeID and Node locate it in the original
// module; Detail says what changed ("add -> sub", "0x10 -> 0x11",
// "rom[17] 0x3f2 -> 0x3f3").
type Mutant struct {
	Index    int      `json:"index"`
	NodeID   int      `json:"node_id"`
	Node     string   `json:"node"`
	Op       string   `json:"op"`   // the original node's op
	Type     string   `json:"type"` // the original node's type, u<W> or s<W>
	Operator Operator `json:"operator"`
	Detail   string   `json:"detail"`

	newOp rtl.Op   // OpSwap, CmpFlip: the replacement op
	k     int      // ShiftInc/Dec, SliceInc/Dec: the new K; ROMInc/Dec: the entry
	value rtl.Bits // ConstInc/Dec/MSB: the new value; ROMInc/Dec: the new entry
}

// String returns "node (op type): operator: detail".
func (mu Mutant) String() string {
	return fmt.Sprintf("%s (%s %s): %s: %s", mu.Node, mu.Op, mu.Type, mu.Operator, mu.Detail)
}

// combinational returns m flattened and checks that it has no state: the
// grader evaluates one transaction per vector.
func combinational(m *rtl.Module) (*rtl.Module, error) {
	f, err := rtl.Flatten(m)
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	if len(f.Regs) > 0 || len(f.Mems) > 0 {
		return nil, fmt.Errorf("grade: module %s has %d registers and %d RAMs: grading needs the combinational update (stages 0)",
			m.Name, len(f.Regs), len(f.Mems))
	}
	return f, nil
}

var swaps = map[rtl.Op][]rtl.Op{
	rtl.OpAdd: {rtl.OpSub}, rtl.OpSub: {rtl.OpAdd},
	rtl.OpAnd: {rtl.OpOr, rtl.OpXor}, rtl.OpOr: {rtl.OpAnd, rtl.OpXor}, rtl.OpXor: {rtl.OpAnd, rtl.OpOr},
	rtl.OpShl: {rtl.OpLShr}, rtl.OpLShr: {rtl.OpShl, rtl.OpAShr}, rtl.OpAShr: {rtl.OpLShr},
	rtl.OpLShrC: {rtl.OpAShrC}, rtl.OpAShrC: {rtl.OpLShrC},
}

var flips = map[rtl.Op][]rtl.Op{
	rtl.OpLt: {rtl.OpLe, rtl.OpGe}, rtl.OpLe: {rtl.OpLt, rtl.OpGt},
	rtl.OpGt: {rtl.OpGe, rtl.OpLe}, rtl.OpGe: {rtl.OpGt, rtl.OpLt},
	rtl.OpEq: {rtl.OpNe}, rtl.OpNe: {rtl.OpEq},
}

// Sites returns every single-point mutant of the combinational module m
// (flattened first), in node order and, within a node, in a fixed order of
// operators. Only nodes that can reach an output are mutated (Module.Live);
// input ports are not. The ROM entries mutated are drawn from seed (two per
// ROM, each +1 and -1), so the list is a function of m and seed.
func Sites(m *rtl.Module, seed uint64) ([]Mutant, error) {
	f, err := combinational(m)
	if err != nil {
		return nil, err
	}
	live := f.Live()
	var out []Mutant
	add := func(n *rtl.Node, o Operator, detail string, set func(*Mutant)) {
		mu := Mutant{Index: len(out), NodeID: n.ID, Node: n.Name, Op: n.Op.String(), Type: n.Type(), Operator: o, Detail: detail}
		if set != nil {
			set(&mu)
		}
		out = append(out, mu)
	}
	for _, n := range f.Nodes {
		if !live[n.ID] || n.Op == rtl.OpInput {
			continue
		}
		w := n.Width
		switch n.Op {
		case rtl.OpConst:
			v := n.Value
			inc := v.Add(rtl.BitsOf(1)).Trunc(w)
			dec := v.Sub(rtl.BitsOf(1)).Trunc(w)
			msb := v.Xor(rtl.BitsOf(1).Shl(uint(w - 1)))
			if w == 1 {
				add(n, ConstMSB, hexArrow(v, msb, w), func(mu *Mutant) { mu.value = msb })
				continue
			}
			add(n, ConstInc, hexArrow(v, inc, w), func(mu *Mutant) { mu.value = inc })
			add(n, ConstDec, hexArrow(v, dec, w), func(mu *Mutant) { mu.value = dec })
			if msb != inc && msb != dec {
				add(n, ConstMSB, hexArrow(v, msb, w), func(mu *Mutant) { mu.value = msb })
			}
		case rtl.OpROM:
			r := rand.New(rand.NewPCG(seed, uint64(n.ID)))
			entries := r.Perm(len(n.ROM))
			entries = entries[:min(romEntries, len(entries))]
			slices.Sort(entries)
			for _, e := range entries {
				v := n.ROM[e]
				inc := v.Add(rtl.BitsOf(1)).Trunc(w)
				dec := v.Sub(rtl.BitsOf(1)).Trunc(w)
				add(n, ROMInc, fmt.Sprintf("rom[%d] %s", e, hexArrow(v, inc, w)), func(mu *Mutant) { mu.k, mu.value = e, inc })
				add(n, ROMDec, fmt.Sprintf("rom[%d] %s", e, hexArrow(v, dec, w)), func(mu *Mutant) { mu.k, mu.value = e, dec })
			}
		case rtl.OpMux:
			add(n, MuxSwap, "sel ? t : f -> sel ? f : t", nil)
		case rtl.OpSlice:
			a := n.Args[0]
			if n.K+1+w <= a.Width {
				add(n, SliceInc, fmt.Sprintf("[%d+:%d] -> [%d+:%d]", n.K, w, n.K+1, w), func(mu *Mutant) { mu.k = n.K + 1 })
			}
			if n.K > 0 {
				add(n, SliceDec, fmt.Sprintf("[%d+:%d] -> [%d+:%d]", n.K, w, n.K-1, w), func(mu *Mutant) { mu.k = n.K - 1 })
			}
		case rtl.OpZExt:
			add(n, ExtSwap, "zext -> sext", nil)
		case rtl.OpSExt:
			add(n, ExtSwap, "sext -> zext", nil)
		case rtl.OpMul:
			add(n, MulSign, fmt.Sprintf("%s -> %s product", signWord(n.Signed), signWord(!n.Signed)), nil)
		case rtl.OpNot:
			add(n, NotDrop, "~a -> a", nil)
		}
		if n.Op == rtl.OpShlC || n.Op == rtl.OpLShrC || n.Op == rtl.OpAShrC {
			if n.K+1 <= w {
				add(n, ShiftInc, fmt.Sprintf("%s %d -> %d", n.Op, n.K, n.K+1), func(mu *Mutant) { mu.k = n.K + 1 })
			}
			if n.K-1 >= 1 {
				add(n, ShiftDec, fmt.Sprintf("%s %d -> %d", n.Op, n.K, n.K-1), func(mu *Mutant) { mu.k = n.K - 1 })
			}
		}
		for _, to := range swaps[n.Op] {
			add(n, OpSwap, fmt.Sprintf("%s -> %s", n.Op, to), func(mu *Mutant) { mu.newOp = to })
		}
		if n.Op.IsCompare() {
			for _, to := range flips[n.Op] {
				add(n, CmpFlip, fmt.Sprintf("%s -> %s", n.Op, to), func(mu *Mutant) { mu.newOp = to })
			}
			if n.Op != rtl.OpEq && n.Op != rtl.OpNe {
				s := n.Args[0].Signed
				add(n, CmpSign, fmt.Sprintf("%s %s -> %s", signWord(s), n.Op, signWord(!s)), nil)
			}
		}
	}
	return out, nil
}

func signWord(s bool) string {
	if s {
		return "signed"
	}
	return "unsigned"
}

func hexArrow(from, to rtl.Bits, w int) string {
	return "0x" + from.Hex(w) + " -> 0x" + to.Hex(w)
}

// Sample returns n mutants of all drawn without replacement by a
// generator seeded with seed, in Index order (all of them, in order, when
// n >= len(all)).
func Sample(all []Mutant, n int, seed uint64) []Mutant {
	if n >= len(all) {
		return slices.Clone(all)
	}
	r := rand.New(rand.NewPCG(seed, 0x6d7574616e74)) // "mutant"
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	for i := 0; i < n; i++ {
		j := i + r.IntN(len(idx)-i)
		idx[i], idx[j] = idx[j], idx[i]
	}
	pick := idx[:n]
	slices.Sort(pick)
	out := make([]Mutant, n)
	for i, k := range pick {
		out[i] = all[k]
	}
	return out
}

// Apply returns a copy of the combinational module m (flattened) with mu
// applied, rebuilt node by node through rtl's builders, so the mutant obeys
// every operand rule and prints like the original. Nodes keep their names
// where the module gave them readable ones. mu must come from Sites on the
// same module.
func Apply(m *rtl.Module, mu Mutant) (*rtl.Module, error) {
	f, err := combinational(m)
	if err != nil {
		return nil, err
	}
	return rebuild(f, &mu)
}

// rebuild copies the flat combinational module f, applying mu (nil: an
// exact copy).
func rebuild(f *rtl.Module, mu *Mutant) (*rtl.Module, error) {
	if mu != nil {
		if mu.NodeID < 0 || mu.NodeID >= len(f.Nodes) || f.Nodes[mu.NodeID].Name != mu.Node {
			return nil, fmt.Errorf("grade: mutant %d names node %s (id %d), which module %s does not hold", mu.Index, mu.Node, mu.NodeID, f.Name)
		}
	}
	c := rtl.NewModule(f.Name, f.Doc)
	c.Params = slices.Clone(f.Params)
	mp := make([]*rtl.Node, len(f.Nodes))
	for _, n := range f.Nodes {
		if n.Op == rtl.OpInput {
			in := c.In(n.Name, n.Width, n.Signed)
			in.Doc = n.Doc
			mp[n.ID] = in
			continue
		}
		args := make([]*rtl.Node, len(n.Args))
		for i, a := range n.Args {
			args[i] = mp[a.ID]
		}
		var x *rtl.Node
		if mu != nil && n.ID == mu.NodeID {
			x = mutated(c, n, args, mu)
		} else {
			x = build(c, n, n.Op, args, n.K, n.Value, n.ROM)
		}
		if x == nil {
			return nil, fmt.Errorf("grade: module %s: node %s: op %s or mutant %v cannot be rebuilt", f.Name, n.Name, n.Op, mu)
		}
		if x.Name == "n_"+strconv.Itoa(x.ID) && n.Name != "n_"+strconv.Itoa(n.ID) && !isArg(x, args) {
			x.Named(n.Name)
		}
		if x.Doc == "" && !isArg(x, args) {
			x.WithDoc(n.Doc)
		}
		mp[n.ID] = x
	}
	for _, p := range f.Outputs {
		c.Out(p.Name, mp[p.Node.ID], p.Doc)
	}
	if err := c.Check(); err != nil {
		what := "copy"
		if mu != nil {
			what = "mutant " + mu.String()
		}
		return nil, fmt.Errorf("grade: %s of %s: %w", what, f.Name, err)
	}
	return c, nil
}

func isArg(x *rtl.Node, args []*rtl.Node) bool { return slices.Contains(args, x) }

// build creates node n's operation op on args in c (k, value and rom
// standing in for n's K, Value and ROM).
func build(c *rtl.Module, n *rtl.Node, op rtl.Op, a []*rtl.Node, k int, value rtl.Bits, rom []rtl.Bits) *rtl.Node {
	switch op {
	case rtl.OpConst:
		return c.ConstBits(n.Width, n.Signed, value)
	case rtl.OpAdd:
		return c.Add(a[0], a[1])
	case rtl.OpSub:
		return c.Sub(a[0], a[1])
	case rtl.OpMul:
		return c.Mul(a[0], a[1])
	case rtl.OpAnd:
		return c.And(a[0], a[1])
	case rtl.OpOr:
		return c.Or(a[0], a[1])
	case rtl.OpXor:
		return c.Xor(a[0], a[1])
	case rtl.OpNot:
		return c.Not(a[0])
	case rtl.OpShlC:
		return c.ShlC(a[0], k)
	case rtl.OpLShrC:
		return c.LShrC(a[0], k)
	case rtl.OpAShrC:
		return c.AShrC(a[0], k)
	case rtl.OpShl:
		return c.Shl(a[0], a[1])
	case rtl.OpLShr:
		return c.LShr(a[0], a[1])
	case rtl.OpAShr:
		return c.AShr(a[0], a[1])
	case rtl.OpEq:
		return c.Eq(a[0], a[1])
	case rtl.OpNe:
		return c.Ne(a[0], a[1])
	case rtl.OpLt:
		return c.Lt(a[0], a[1])
	case rtl.OpLe:
		return c.Le(a[0], a[1])
	case rtl.OpGt:
		return c.Gt(a[0], a[1])
	case rtl.OpGe:
		return c.Ge(a[0], a[1])
	case rtl.OpMux:
		return c.Mux(a[0], a[1], a[2])
	case rtl.OpSlice:
		return c.Slice(a[0], k, n.Width)
	case rtl.OpConcat:
		return c.Concat(a...)
	case rtl.OpZExt:
		return c.ZExt(a[0], n.Width)
	case rtl.OpSExt:
		return c.SExt(a[0], n.Width)
	case rtl.OpAs:
		if n.Signed {
			return c.AsSigned(a[0])
		}
		return c.AsUnsigned(a[0])
	case rtl.OpROM:
		return c.ROMBits(a[0], n.Width, rom)
	}
	// Registers, RAM ports and instances were refused by combinational;
	// an op added to rtl later makes rebuild fail, naming it.
	return nil
}

// retype reads x with signedness signed (a wire) so a mutant keeps the
// original node's type.
func retype(c *rtl.Module, x *rtl.Node, signed bool) *rtl.Node {
	if signed {
		return c.AsSigned(x)
	}
	return c.AsUnsigned(x)
}

// mutated builds node n with mutant mu applied.
func mutated(c *rtl.Module, n *rtl.Node, a []*rtl.Node, mu *Mutant) *rtl.Node {
	switch mu.Operator {
	case OpSwap, CmpFlip:
		return build(c, n, mu.newOp, a, n.K, n.Value, n.ROM)
	case ConstInc, ConstDec, ConstMSB:
		return build(c, n, n.Op, a, n.K, mu.value, n.ROM)
	case ROMInc, ROMDec:
		rom := slices.Clone(n.ROM)
		rom[mu.k] = mu.value
		return build(c, n, n.Op, a, n.K, n.Value, rom)
	case ShiftInc, ShiftDec, SliceInc, SliceDec:
		return build(c, n, n.Op, a, mu.k, n.Value, n.ROM)
	case MuxSwap:
		return c.Mux(a[0], a[2], a[1])
	case ExtSwap:
		if n.Op == rtl.OpSExt {
			return retype(c, c.ZExt(a[0], n.Width), n.Signed)
		}
		return retype(c, c.SExt(a[0], n.Width), n.Signed)
	case MulSign:
		s := !n.Signed
		return retype(c, c.Mul(retype(c, a[0], s), retype(c, a[1], s)), n.Signed)
	case CmpSign:
		s := !a[0].Signed
		return build(c, n, n.Op, []*rtl.Node{retype(c, a[0], s), retype(c, a[1], s)}, n.K, n.Value, n.ROM)
	case NotDrop:
		return a[0]
	}
	return nil
}
