package ldcpvec

import (
	"github.com/hpccgold/hpccgold/cc/ldcp"
)

// wideIncEdge returns a sub-packet cw register and the least and the most
// packets n (1..NMax) whose AI increment n*alpha * 1/cw, rounded, before
// its cast saturates, has bit W(Cw) set and bit W(Cw) - 1 clear: it lies
// in [2^W, 2^W + 2^(W-1)), above the cast's maximum 2^W - 1 by a bit the
// saturation compare reads and the kept low W bits do not (the smallest
// such cw; 0s when none).
func (m *Model) wideIncEdge() (cw, nLo, nHi uint64) {
	w := uint(m.cfg.Formats.Cw.W)
	if w >= 63 {
		return 0, 0, 0
	}
	for x := uint64(1); x < m.one; x++ {
		r := m.recipSeeded(x, -1, 0)
		for n := uint64(1); n <= m.nMax; n++ {
			if m.incPre(n, r)>>(w-1) == 2 {
				if nLo == 0 {
					nLo = n
				}
				nHi = n
			}
		}
		if nLo != 0 {
			return x, nLo, nHi
		}
	}
	return 0, 0, 0
}

// buildWideClasses adds inc_wide_carry: the AI increment's bits just above
// the cast (issue 14: the slice bins of the description's n_194, the
// increment's low W bits, need bit W at 1 while bit W-1 is 0, which only a
// saturated 1/cw of a sub-packet cw times many packets reaches).
func (m *Model) buildWideClasses() {
	c, nLo, nHi := m.wideIncEdge()
	if c == 0 {
		return
	}
	w := uint(m.cfg.Formats.Cw.W)
	sm := m.seqMask
	m.add("inc_wide_carry", "ACKs (ECE 0) on the smallest sub-packet cw for which some n makes the AI increment n*alpha * 1/cw, before its cast saturates, lie in [2^W(Cw), 2^W(Cw) + 2^(W(Cw)-1)) (bit W set, bit W-1 clear: the cast's low W bits and the bit above them differ, where a slice moved by one bit shows), with the least and the most such n (the datapath computes the increment on every ACK, the sub-packet rule is the one applied)", func(emit func(ldcp.State, ldcp.Event) error) error {
		for _, n := range []uint64{nLo, nHi} {
			a := m.stable(c, 400, uint32(n))
			if err := emit(a, ackEv(a, uint32(n), false, false)); err != nil {
				return err
			}
			if nHi == nLo {
				break
			}
		}
		return nil
	}, func(o *obs) bool {
		if o.ev.Kind&3 != ldcp.Ack || o.ev.ECE {
			return false
		}
		n := min(uint64((o.ev.AckSeq-o.st.Una)&sm), m.nMax)
		return m.incPre(n, m.recipSeeded(o.st.Cw, -1, 0))>>(w-1) == 2
	})
}
