package coverage

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// Sign bins of a product or an ordered compare whose operand is a ROM
// (issue 14). With Sojourn the queue term is min(sojourn, last) * kq, and
// kq holds 1/T for every speed code the datapath accepts and 0 for the
// codes it rejects: every entry has its top bit set or is 0. The product's
// sign bin "a's top bit 1, b's 0, b != 0" (mul-sign shows there) then needs
// a kq value that no entry has. The value analysis keeps an interval of
// the ROM's output ([0, 1/T]), which has both top bits; the entries
// themselves decide. A ROM's output is always one of its entries, so a bin
// whose condition on that operand no entry meets is unreachable.

// romOperand returns the ROM whose output operand x is, up to
// reinterpretations of the same width, or nil.
func romOperand(x *rtl.Node) *rtl.Node {
	for x.Op == rtl.OpAs && x.Args[0].Width == x.Width {
		x = x.Args[0]
	}
	if x.Op == rtl.OpROM {
		return x
	}
	return nil
}

// romMeets reports whether some entry of ROM r (w bits) has top bit top,
// and is non-zero when nonZero.
func romMeets(r *rtl.Node, top, nonZero bool) bool {
	w := r.Width
	for _, e := range r.ROM {
		e = e.Trunc(w)
		if e.Bit(w-1) == top && (!nonZero || !e.IsZero()) {
			return true
		}
	}
	return false
}

// declareROMSign declares the sign bins of products and ordered compares
// (addSignMul, addSignCompare) whose condition on a ROM operand (its top
// bit, and for a product's other operand non-zero) no entry of the ROM
// meets.
func (m *Model) declareROMSign() {
	byLabel := map[string]*rtl.Node{}
	for _, n := range m.f.Nodes {
		byLabel[nodeLabel(n)] = n
	}
	for pi := range m.Points {
		p := &m.Points[pi]
		if p.Kind != KindSign {
			continue
		}
		n := byLabel[p.Node]
		if n == nil || len(n.Args) != 2 || len(p.Bins) != 2 {
			continue
		}
		mul := n.Op == rtl.OpMul
		if !mul && n.Op != rtl.OpLt && n.Op != rtl.OpLe && n.Op != rtl.OpGt && n.Op != rtl.OpGe {
			continue
		}
		// bin 0: a's top bit 1, b's 0 (product: b != 0); bin 1: the reverse.
		for b := range p.Bins {
			if p.Bins[b].Unreachable != "" {
				continue
			}
			for j := 0; j < 2; j++ {
				r := romOperand(n.Args[j])
				if r == nil {
					continue
				}
				top := j == b            // operand j's top bit must be 1 in bin j
				nonZero := mul && j != b // a product's bin also needs the other operand non-zero
				if romMeets(r, top, nonZero) {
					continue
				}
				need := fmt.Sprintf("top bit %d", b2i(top))
				if nonZero {
					need += " and non-zero"
				}
				p.Bins[b].Unreachable = fmt.Sprintf("description: %s is the ROM %s, and none of its %d entries has %s", nodeLabel(n.Args[j]), nodeLabel(r), len(r.ROM), need)
				break
			}
		}
	}
}
