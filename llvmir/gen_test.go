package llvmir

import (
	"fmt"
	"math/rand/v2"

	"github.com/hpccgold/hpccgold/rtl"
)

// randModule builds a random combinational module of about ops nodes that
// uses every lowering rule: all binary ops, products of mixed widths up to
// 256 bits, constant shifts by 0..W, variable shifts with amounts narrower
// and wider than the value (so the >= W guard is exercised), signed and
// unsigned compares, muxes, slices, concatenations, extensions,
// reinterpretation and ROMs (full and partial tables, repeated values).
// Nodes and outputs are chosen from r, so the module is fixed by the seed.
func randModule(name string, r *rand.Rand, ops int) *rtl.Module {
	m := rtl.NewModule(name, "random test module")
	var pool []*rtl.Node
	nIn := 1 + r.IntN(5)
	for i := 0; i < nIn; i++ {
		w := randWidth(r, 130)
		pool = append(pool, m.In(fmt.Sprintf("i%d", i), w, r.IntN(2) == 0))
	}
	pick := func() *rtl.Node {
		// Prefer recent nodes so results chain into deep expressions.
		if r.IntN(3) == 0 {
			return pool[r.IntN(len(pool))]
		}
		lo := max(0, len(pool)-8)
		return pool[lo+r.IntN(len(pool)-lo)]
	}
	// like returns b resized and reinterpreted to a's width and signedness.
	like := func(b, a *rtl.Node) *rtl.Node {
		b = m.Resize(b, a.Width)
		if a.Signed {
			return m.AsSigned(b)
		}
		return m.AsUnsigned(b)
	}
	narrow := func(a *rtl.Node, w int) *rtl.Node {
		if a.Width > w {
			return m.Trunc(a, w)
		}
		return a
	}
	for len(pool) < nIn+ops {
		a := pick()
		var n *rtl.Node
		switch k := r.IntN(22); k {
		case 0:
			n = m.Add(a, like(pick(), a))
		case 1:
			n = m.Sub(a, like(pick(), a))
		case 2:
			n = m.And(a, like(pick(), a))
		case 3:
			n = m.Or(a, like(pick(), a))
		case 4:
			n = m.Xor(a, like(pick(), a))
		case 5:
			n = m.Not(a)
		case 6:
			x := narrow(a, 1+r.IntN(128))
			y := narrow(pick(), 1+r.IntN(128))
			if x.Signed {
				y = m.AsSigned(y)
			} else {
				y = m.AsUnsigned(y)
			}
			n = m.Mul(x, y)
		case 7:
			kk := []int{0, 1, a.Width - 1, a.Width, r.IntN(a.Width + 1)}[r.IntN(5)]
			n = []func(*rtl.Node, int) *rtl.Node{m.ShlC, m.LShrC, m.AShrC}[r.IntN(3)](a, max(kk, 0))
		case 8, 9:
			// Amount: a few low bits (may or may not reach W) or a wide value.
			s := m.AsUnsigned(pick())
			switch r.IntN(3) {
			case 0:
				s = m.Slice(s, 0, min(s.Width, 1+r.IntN(9)))
			case 1:
				s = m.ZExt(s, min(rtl.MaxWidth, s.Width+r.IntN(70)))
			}
			n = []func(*rtl.Node, *rtl.Node) *rtl.Node{m.Shl, m.LShr, m.AShr}[r.IntN(3)](a, s)
		case 10:
			b := like(pick(), a)
			n = []func(*rtl.Node, *rtl.Node) *rtl.Node{m.Eq, m.Ne, m.Lt, m.Le, m.Gt, m.Ge}[r.IntN(6)](a, b)
		case 11, 12:
			sel := m.Bit(pick(), 0)
			if c := pick(); c.Width > 1 {
				sel = m.Bit(c, r.IntN(c.Width))
			}
			n = m.Mux(sel, a, like(pick(), a))
		case 13:
			lo := r.IntN(a.Width)
			n = m.Slice(a, lo, 1+r.IntN(a.Width-lo))
		case 14:
			parts := []*rtl.Node{a}
			w := a.Width
			for j := r.IntN(3); j >= 0; j-- {
				p := pick()
				if w+p.Width > rtl.MaxWidth {
					break
				}
				parts = append(parts, p)
				w += p.Width
			}
			n = m.Concat(parts...)
		case 15:
			n = m.ZExt(a, min(rtl.MaxWidth, a.Width+r.IntN(70)))
		case 16:
			n = m.SExt(a, min(rtl.MaxWidth, a.Width+r.IntN(70)))
		case 17:
			if a.Signed {
				n = m.AsUnsigned(a)
			} else {
				n = m.AsSigned(a)
			}
		case 18, 19:
			aw := 1 + r.IntN(10)
			addr := m.Slice(m.ZExt(m.AsUnsigned(a), max(a.Width, aw)), 0, aw)
			size := 1 << uint(aw)
			if r.IntN(2) == 0 {
				size = 1 + r.IntN(size)
			}
			w := randWidth(r, 130)
			alphabet := 1 + r.IntN(6) // few distinct values: repeated entries
			vals := make([]rtl.Bits, alphabet)
			for i := range vals {
				vals[i] = randBits(r, w)
			}
			cont := make([]rtl.Bits, size)
			for i := range cont {
				if r.IntN(4) == 0 {
					cont[i] = randBits(r, w)
				} else {
					cont[i] = vals[r.IntN(alphabet)]
				}
			}
			n = m.ROMBits(addr, w, cont)
		case 20:
			n = m.CLZ(a)
		default:
			n = m.Neg(a)
		}
		pool = append(pool, n)
	}
	nOut := 1 + r.IntN(6)
	for i := 0; i < nOut; i++ {
		m.Out(fmt.Sprintf("o%d", i), pool[nIn+r.IntN(len(pool)-nIn)], "")
	}
	if r.IntN(4) == 0 {
		m.Out("oin", pool[0], "an input passed through")
	}
	return m
}

// randWidth returns a width in [1, maxW], biased to the word boundaries
// where lowering bugs hide.
func randWidth(r *rand.Rand, maxW int) int {
	if r.IntN(3) == 0 {
		c := []int{1, 2, 7, 8, 31, 32, 33, 63, 64, 65, 127, 128, 129}
		if w := c[r.IntN(len(c))]; w <= maxW {
			return w
		}
	}
	return 1 + r.IntN(maxW)
}

// randBits returns a w-bit pattern: random, or one of the corner patterns
// (zero, all ones, top bit only, top bit clear, small values).
func randBits(r *rand.Rand, w int) rtl.Bits {
	var b rtl.Bits
	switch r.IntN(8) {
	case 0:
	case 1:
		b = b.Not()
	case 2:
		b = rtl.BitsOf(1).Shl(uint(w - 1))
	case 3:
		b = b.Not().Trunc(w - 1)
	case 4:
		b = rtl.BitsOf(uint64(r.IntN(w + 3)))
	default:
		for i := range b {
			b[i] = r.Uint64()
		}
	}
	return b.Trunc(w)
}
