package ldcpvec

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/ldcp"
)

// exactEdges holds the inputs, solved from the configuration when the
// model is built, at which a compare or a rounding cast of ldcp_update
// sits exactly on its threshold (docs/ldcp.md "Constructed classes"). A
// zero field means the configuration has no such input in the range
// searched, and the class is not generated.
type exactEdges struct {
	// aiSumCw: the largest cw >= 1 packet whose AI ACK of one packet
	// makes cw + inc exactly CwMax (the AI clamp's compare at its
	// threshold).
	aiSumCw uint64
	// incMaxCw, incMaxN: a sub-packet cw and an ACK of incMaxN packets
	// whose AI increment n*alpha * 1/cw is exactly 2^W(Cw) - 1 before its
	// cast saturates (the AI path is computed on every ACK; below 1 packet
	// the sub-packet rule is the one applied).
	incMaxCw, incMaxN uint64
	// tieCw: a sub-packet cw whose timer interval T * 1/cw is exactly at
	// the rounding tie (half an ns).
	tieCw uint64
	// recipRound: cw registers whose 1/cw, before the unit's output cast
	// rounds it, is exactly at the tie (on the window's range) and one LSB
	// below it (only above CwMax: see solveExact).
	recipRound []uint64
	// cwHigh: a cw register of every bit length above CwMax's (every
	// leading-zero count of the 1/cw normalizer there).
	cwHigh []uint64
}

// incPre is the AI increment n*alpha * r in the Cw format, rounded half
// up, before its cast saturates (the datapath's n_193 in the default
// description; saturated when it exceeds 64 bits).
func (m *Model) incPre(n, r uint64) uint64 {
	u := m.recip.Config()
	hi, lo := bits.Mul64(n*m.alphaRaw, r)
	s := uint(m.alphaF + u.Out.F() - m.cfg.Formats.Cw.F())
	switch {
	case s == 0:
		if hi != 0 {
			return ^uint64(0)
		}
		return lo
	case hi>>s != 0:
		return ^uint64(0)
	}
	v := lo>>s | hi<<(64-s)
	return v + lo>>(s-1)&1
}

// intervalTie reports whether the timer interval T * r (r the 1/cw unit's
// output) lies exactly at its rounding tie: the bits the cast to whole ns
// drops are exactly one half.
func (m *Model) intervalTie(r uint64) bool {
	s := m.rttF + m.recip.Config().Out.F()
	if s == 0 || s > 64 {
		return false
	}
	_, lo := bits.Mul64(m.rttRaw, r)
	mask := uint64(1)<<uint(s) - 1
	if s == 64 {
		mask = ^uint64(0)
	}
	return lo&mask == uint64(1)<<uint(s-1)
}

// solveExact fills m.edge.exact (searches bounded by the register widths;
// about 10 ms for the default configuration).
func (m *Model) solveExact() {
	e := &m.edge.exact
	for cw := m.cwMax - 1; cw >= m.one && cw+m.cwMax/2 >= m.cwMax; cw-- {
		if min(cw+m.incRaw(cw, 1, m.alphaRaw, m.alphaF), m.cwMask) == m.cwMax {
			e.aiSumCw = cw
			break
		}
	}
	target := m.cwMask
search:
	for x := uint64(1); x < m.one; x++ {
		r := m.recipSeeded(x, -1, 0)
		for n := uint64(1); n <= m.nMax; n++ {
			if v := m.incPre(n, r); v == target {
				e.incMaxCw, e.incMaxN = x, n
				break search
			} else if v > target {
				break
			}
		}
	}
	for x := uint64(1); x < m.one; x++ {
		if m.intervalTie(m.recipSeeded(x, -1, 0)) {
			e.tieCw = x
			break
		}
	}
	// The unit's output cast rounds y << clz at bit c-1 (c = clz - sh):
	// below 1 packet it drops nothing, from 1 packet the tie is reachable
	// on the window's range, one below it only with clz = 0 (y << clz has
	// clz low zeros), so above CwMax.
	var tie, below uint64
	look := func(x uint64) {
		y, sh := m.recipNewton(x, -1, 0)
		clz := m.recip.Config().In.W - bits.Len64(x&m.cwMask)
		c := clz - sh
		if sh >= 0 || c < 2 || c > 63 || bits.Len64(y)+clz > 64 {
			return
		}
		low, half := y<<uint(clz)&(uint64(1)<<uint(c)-1), uint64(1)<<uint(c-1)
		switch {
		case low == half && tie == 0:
			tie = x
		case low == half-1 && below == 0:
			below = x
		}
	}
	for x := m.one; x < m.cwMax && tie == 0; x++ {
		look(x)
	}
	top := uint64(1) << uint(m.cfg.Formats.Cw.W-1)
	for x := top; x < top+1<<20 && x <= m.cwMask && below == 0; x++ {
		look(x)
	}
	for _, x := range []uint64{tie, below} {
		if x != 0 {
			e.recipRound = append(e.recipRound, x)
		}
	}
	for l := bits.Len64(m.cwMax) + 1; l <= m.cfg.Formats.Cw.W; l++ {
		e.cwHigh = append(e.cwHigh, uint64(1)<<uint(l-1)|1)
	}
}

// buildExactClasses adds the level-1 classes that hit a threshold of
// ldcp_update exactly or show a ROM entry's last bit (docs/ldcp.md
// "Constructed classes"): rom_seed_edges, ai_sum_at_cwmax,
// sub_ai_sum_edges, ai_inc_at_max and timer_interval_tie; and those that
// make closure independent of the random draws: recip_round_edges,
// cw_above_cwmax, loss_at_cwmax, full_ack_cw_not_iw and stage_code_3.
func (m *Model) buildExactClasses() {
	e := &m.edge
	sm := m.seqMask
	if len(e.seeds) > 0 {
		m.add("rom_seed_edges", "AI ACKs that show every 1/cw table entry one higher and one lower: per entry a cw of its interval (1 to 4 packets, where the unit's output keeps the Newton result's bits) at which the changed entry changes the Newton result, n the most packets whose sum stays below CwMax (one cw for both directions, else one each; seeds.go)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, p := range e.seeds {
				a := m.stable(p.cw, 400, uint32(p.n))
				if err := emit(a, ackEv(a, uint32(p.n), false, false)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			n, ok := e.seedN[o.st.Cw]
			return ok && o.out.Rule == ldcp.RuleAI && uint64(o.out.N) == n
		})
	}
	ackN := func(o *obs) uint64 { return min(uint64((o.ev.AckSeq-o.st.Una)&sm), m.nMax) }
	if c := e.exact.aiSumCw; c != 0 {
		m.add("ai_sum_at_cwmax", "an AI ACK of one packet whose sum cw + n*alpha/cw is exactly CwMax (the AI clamp's compare at its threshold)", func(emit func(ldcp.State, ldcp.Event) error) error {
			a := m.stable(c, 400, 1)
			return emit(a, ackEv(a, 1, false, false))
		}, func(o *obs) bool {
			if o.out.Rule != ldcp.RuleAI || o.next.Cw != m.cwMax {
				return false
			}
			inc := min(m.incPre(uint64(o.out.N), m.recipSeeded(o.st.Cw, -1, 0)), m.cwMask)
			return min(o.st.Cw+inc, m.cwMask) == m.cwMax
		})
	}
	if g := m.gammaCw; g > 0 && g < m.cwMax && m.cwMax-g >= m.one {
		sums := []uint64{m.cwMax, m.cwMask}
		m.add("sub_ai_sum_edges", "ACKs of one packet whose sub-packet sum cw + n*gamma is exactly CwMax and exactly 2^W(Cw) - 1 (the sub-packet rule's clamp and saturation compares at their thresholds; the datapath computes the sum on every ACK, and with cw >= 1 the AI rule is the one applied)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, s := range sums {
				a := m.stable(s-g, 400, 1)
				if err := emit(a, ackEv(a, 1, false, false)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			if o.ev.Kind&3 != ldcp.Ack {
				return false
			}
			s := o.st.Cw + ackN(o)*g
			return s == m.cwMax || s == m.cwMask
		})
	}
	if c, n := e.exact.incMaxCw, e.exact.incMaxN; c != 0 {
		m.add("ai_inc_at_max", "an ACK (ECE 0) on a sub-packet cw whose AI increment n*alpha * 1/cw is exactly 2^W(Cw) - 1 before its cast saturates (the increment's saturation compare at its threshold; the datapath computes it on every ACK, the sub-packet rule is the one applied)", func(emit func(ldcp.State, ldcp.Event) error) error {
			a := m.stable(c, 400, uint32(n))
			return emit(a, ackEv(a, uint32(n), false, false))
		}, func(o *obs) bool {
			return o.ev.Kind&3 == ldcp.Ack && !o.ev.ECE && m.incPre(ackN(o), m.recipSeeded(o.st.Cw, -1, 0)) == m.cwMask
		})
	}
	if c := e.exact.tieCw; c != 0 {
		m.add("timer_interval_tie", "a sub-packet send whose timer interval T/cw is exactly half an ns above a whole ns (the interval cast's rounding tie)", func(emit func(ldcp.State, ldcp.Event) error) error {
			st := m.stable(c, 100, 0)
			st.NextSend = 0
			return emit(st, ldcp.Event{Kind: ldcp.Send, NowNs: 1})
		}, func(o *obs) bool {
			return o.out.TimerArmed && m.intervalTie(m.recipSeeded(o.next.Cw, -1, 0))
		})
	}
	if len(e.exact.recipRound) > 0 {
		rr := e.exact.recipRound
		m.add("recip_round_edges", "AI ACKs of one packet on a cw whose 1/cw, before the unit's output cast rounds it, lies exactly at the tie (a cw of the window's range) and one LSB below it (a cw above CwMax: the cast's operand y << clz has clz low zeros, so only clz = 0 reaches it; the sum clamps to CwMax)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, c := range rr {
				a := m.stable(c, 400, 1)
				if err := emit(a, ackEv(a, 1, false, false)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool { return o.out.Rule == ldcp.RuleAI && inSet(rr, o.st.Cw) })
	}
	if len(e.exact.cwHigh) > 0 {
		hs := e.exact.cwHigh
		m.add("cw_above_cwmax", "AI ACKs of one packet on a cw register of every bit length above CwMax's (every leading-zero count of the 1/cw normalizer there; the sum clamps to CwMax)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, c := range hs {
				a := m.stable(c, 400, 1)
				if err := emit(a, ackEv(a, 1, false, false)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool { return o.out.Rule == ldcp.RuleAI && inSet(hs, o.st.Cw) })
	}
	if cm := uint32(m.cwMax >> m.cwF); m.cwMax&(uint64(1)<<m.cwF-1) == 0 && cm > 1 && cm+1 < m.half {
		m.add("loss_at_cwmax", "fast-start NAKs with acked packets at CwMax - 1, CwMax and CwMax + 1 (the loss window's clamp at its threshold)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, k := range []uint32{cm - 1, cm, cm + 1} {
				st := m.fastStart(0, k-1, k+5, k+100)
				if err := emit(st, fixAck(ackEv(st, 1, false, true), sm)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			k := (o.ev.AckSeq - o.st.Start) & sm
			return o.ev.Kind&3 == ldcp.Ack && o.out.Loss && k+1 >= cm && k <= cm+1
		})
	}
	iw := m.cfg.IWPkts
	m.add("full_ack_cw_not_iw", "transition 2 from a fast-start state whose cw register is not IW (one LSB either side): the new cw is IW, not the register", func(emit func(ldcp.State, ldcp.Event) error) error {
		for _, c := range []uint64{m.iw - 1, m.iw + 1} {
			st := m.fastStart(0, iw-1, iw+5, 1000)
			st.Cw = c
			if err := emit(st, fixAck(ackEv(st, 1, false, false), sm)); err != nil {
				return err
			}
		}
		return nil
	}, func(o *obs) bool { return o.out.FullAck && o.st.Cw != m.iw })
	m.add("stage_code_3", "a send, an ACK and a timeout on a flow whose stage register holds the unused code 3 (it decodes as stable)", func(emit func(ldcp.State, ldcp.Event) error) error {
		st := m.stable(m.cw(10), 400, 8)
		st.Stage = 3
		return each(emit, sv{st, ldcp.Event{Kind: ldcp.Send}}, sv{st, ackEv(st, 2, false, false)}, sv{st, ldcp.Event{Kind: ldcp.Timeout}})
	}, func(o *obs) bool { return o.st.Stage == 3 })
}
