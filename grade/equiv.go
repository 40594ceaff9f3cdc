package grade

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// maxEnumBits bounds the operand bits a proof enumerates: 2^16 operand
// combinations, each one evaluation of a two-node module.
const maxEnumBits = 16

func ones(w int) rtl.Bits { return rtl.Bits{}.Not().Trunc(w) }

// topBit returns the index of the highest set bit of b, or -1.
func topBit(b rtl.Bits) int { return rtl.MaxWidth - 1 - b.LeadingZeros(rtl.MaxWidth) }

// demanded returns, per node of the flat combinational module f, the bits
// of its value that can affect an output port: a sound over-approximation
// by a backward pass in reverse topological order (the reverse of node
// IDs). Bits outside a node's mask can take any value without changing any
// output for any input. Rules: outputs demand every bit; and/or with a
// constant operand demand of the other operand only the bits the constant
// does not force; xor, not and the data inputs of a mux pass the demand
// through (a mux select is demanded whole); add and sub demand every bit up
// to the highest demanded one (carries run upward only); slices,
// constant shifts, extensions, reinterpretations and concatenations move
// the demand to the operand bits that feed the demanded bits; every other
// op (products, compares, variable shifts, ROM addresses) demands its
// operands whole.
func demanded(f *rtl.Module) []rtl.Bits {
	d := make([]rtl.Bits, len(f.Nodes))
	for _, p := range f.Outputs {
		d[p.Node.ID] = d[p.Node.ID].Or(ones(p.Node.Width))
	}
	put := func(a *rtl.Node, m rtl.Bits) { d[a.ID] = d[a.ID].Or(m.Trunc(a.Width)) }
	for i := len(f.Nodes) - 1; i >= 0; i-- {
		n := f.Nodes[i]
		dn := d[i]
		if dn.IsZero() {
			continue
		}
		w := n.Width
		switch n.Op {
		case rtl.OpInput, rtl.OpConst:
		case rtl.OpAnd, rtl.OpOr:
			for j, a := range n.Args {
				m := dn
				if o := n.Args[1-j]; o.Op == rtl.OpConst {
					if n.Op == rtl.OpAnd {
						m = dn.And(o.Value)
					} else {
						m = dn.And(o.Value.Not())
					}
				}
				put(a, m)
			}
		case rtl.OpXor, rtl.OpNot:
			for _, a := range n.Args {
				put(a, dn)
			}
		case rtl.OpAdd, rtl.OpSub:
			for _, a := range n.Args {
				put(a, ones(topBit(dn)+1))
			}
		case rtl.OpMux:
			put(n.Args[0], ones(1))
			put(n.Args[1], dn)
			put(n.Args[2], dn)
		case rtl.OpSlice:
			put(n.Args[0], dn.Shl(uint(n.K)))
		case rtl.OpShlC:
			put(n.Args[0], dn.Shr(uint(n.K)))
		case rtl.OpLShrC:
			put(n.Args[0], dn.Shl(uint(n.K)))
		case rtl.OpAShrC:
			m := dn.Shl(uint(n.K))
			if topBit(dn) >= w-1-n.K {
				m = m.Or(rtl.BitsOf(1).Shl(uint(w - 1)))
			}
			put(n.Args[0], m)
		case rtl.OpZExt, rtl.OpAs:
			put(n.Args[0], dn)
		case rtl.OpSExt:
			aw := n.Args[0].Width
			m := dn
			if topBit(dn) >= aw-1 {
				m = m.Or(rtl.BitsOf(1).Shl(uint(aw - 1)))
			}
			put(n.Args[0], m)
		case rtl.OpConcat:
			off := 0
			for j := len(n.Args) - 1; j >= 0; j-- {
				a := n.Args[j]
				put(a, dn.Shr(uint(off)))
				off += a.Width
			}
		default:
			for _, a := range n.Args {
				put(a, ones(a.Width))
			}
		}
	}
	return d
}

// prover decides whether surviving mutants are equivalent to the original
// module.
type prover struct {
	f   *rtl.Module
	dem []rtl.Bits
}

func newProver(f *rtl.Module) *prover { return &prover{f: f, dem: demanded(f)} }

// prove returns a proof that mu cannot change any output of the flat
// module for any input, or "" when it finds none. The proof bounds the
// bits in which the mutated node can differ from the original node and
// checks that no output observes them (demanded).
func (p *prover) prove(mu Mutant) (string, error) {
	n := p.f.Nodes[mu.NodeID]
	w := n.Width
	dem := p.dem[n.ID]
	var diff rtl.Bits
	var how string
	switch {
	case mu.Operator == ConstInc || mu.Operator == ConstDec || mu.Operator == ConstMSB:
		diff, how = n.Value.Xor(mu.value), "the constants differ"
	case mu.Operator == ROMInc || mu.Operator == ROMDec:
		diff, how = n.ROM[mu.k].Xor(mu.value), fmt.Sprintf("entry %d differs", mu.k)
	case enumBits(n) <= maxEnumBits:
		d, k, err := p.enumerate(n, mu)
		if err != nil {
			return "", err
		}
		diff, how = d, fmt.Sprintf("over all %d operand values the results differ", k)
		if diff.IsZero() {
			return fmt.Sprintf("the mutated node equals the original for all %d operand values", k), nil
		}
	case mu.Operator == OpSwap && (n.Op == rtl.OpAdd || n.Op == rtl.OpSub):
		// (a+b) - (a-b) = 2b: bit 0 never differs.
		diff, how = ones(w).Xor(rtl.BitsOf(1)), "a+b and a-b differ at most"
	default:
		diff, how = ones(w), "the node may differ"
	}
	if !diff.And(dem).IsZero() {
		return "", nil
	}
	return fmt.Sprintf("%s in bits 0x%s, which no output observes (observable bits 0x%s)", how, diff.Hex(w), dem.Hex(w)), nil
}

// enumBits is the total operand width of n (the enumeration's size in
// bits), or maxEnumBits+1 when an operand is wider than 64 bits.
func enumBits(n *rtl.Node) int {
	t := 0
	for _, a := range n.Args {
		if a.Width > 64 {
			return maxEnumBits + 1
		}
		t += a.Width
	}
	if len(n.Args) == 0 {
		return maxEnumBits + 1
	}
	return t
}

// enumerate evaluates the original and the mutated node on every
// combination of operand values (a module holding both, run by rtl.Sim)
// and returns the OR of their differences and the number of combinations.
func (p *prover) enumerate(n *rtl.Node, mu Mutant) (rtl.Bits, int, error) {
	c := rtl.NewModule("proof", "")
	args := make([]*rtl.Node, len(n.Args))
	for i, a := range n.Args {
		args[i] = c.In(fmt.Sprintf("a%d", i), a.Width, a.Signed)
	}
	orig := build(c, n, n.Op, args, n.K, n.Value, n.ROM)
	mut := mutated(c, n, args, &mu)
	if orig == nil || mut == nil {
		return rtl.Bits{}, 0, fmt.Errorf("grade: proof of mutant %s: node cannot be rebuilt", mu)
	}
	c.Out("orig", orig, "")
	c.Out("mut", mut, "")
	sim, err := rtl.NewSim(c)
	if err != nil {
		return rtl.Bits{}, 0, fmt.Errorf("grade: proof of mutant %s: %w", mu, err)
	}
	total := uint64(1) << uint(enumBits(n))
	var diff rtl.Bits
	for v := uint64(0); v < total; v++ {
		x := v
		for i, a := range n.Args {
			sim.SetInUint(i, x&(uint64(1)<<uint(a.Width)-1))
			x >>= uint(a.Width)
		}
		diff = diff.Or(sim.Out(0).Xor(sim.Out(1)))
	}
	return diff, int(total), nil
}
