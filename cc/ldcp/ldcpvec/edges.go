package ldcpvec

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// edges holds the register-level edge points of the datapath that the
// edge classes hit exactly, solved from the configuration when the model
// is built: the inputs at which a saturation, clamp, floor or normalizer
// boundary is crossed. They are properties of the datapath (its formats,
// constants and 1/cw unit), not of any mutant.
type edges struct {
	// subScale: cw registers below 1 packet at every power of two, one
	// LSB either side, and 0: every leading-zero count of the 1/cw
	// unit's normalizer on a sub-packet timer arm.
	subScale []uint64
	// recipSat: the cw registers around the last one whose 1/cw, before
	// the output cast's saturation, exceeds the output format's maximum
	// (solved with a copy of the unit whose output has 16 more integer
	// bits and the same fraction bits).
	recipSat []uint64
	// aiTop: cw registers at the top of the register for an AI ACK of
	// NMax packets: the sum cw + inc exactly 2^W(Cw) and one either side,
	// and the register's maximum.
	aiTop []uint64
	// betaCw is beta in the Cw format (raw).
	betaCw uint64
	// seeds: per 1/cw table entry, AI ACKs whose new cw shows that entry
	// one higher and one lower (seeds.go); seedN maps their cw to n.
	seeds []seedProbe
	seedN map[uint64]uint64
	// exact: the register-level inputs of the exact-threshold classes
	// (exact.go).
	exact exactEdges
}

// incRaw is the AI increment Rnd,Sat(n*alpha * recip_cw(cw)) into Cw,
// the datapath's cast written with integers (docs/ldcp.md section 5).
func (m *Model) incRaw(cw, n uint64, alphaRaw uint64, alphaF int) uint64 {
	r := m.recipOf(cw)
	hi, lo := bits.Mul64(n*alphaRaw, r)
	s := uint(alphaF + m.recip.Config().Out.F() - m.cfg.Formats.Cw.F()) // not d.RecipUnit(): it computes the unit's error bound
	if hi != 0 || s == 0 {
		return m.cwMask
	}
	v := (lo >> s) + (lo >> (s - 1) & 1)
	return min(v, m.cwMask)
}

// recipOf is the 1/cw unit's raw output for the raw cw register.
func (m *Model) recipOf(cw uint64) uint64 {
	v, err := fixedpoint.FromUint(m.cfg.Formats.Cw, cw&m.cwMask)
	if err != nil {
		return 0
	}
	r, err := m.recip.Recip(v)
	if err != nil {
		return 0
	}
	return r.RawUint()
}

// solveEdges fills m.edge from the configuration.
func (m *Model) solveEdges() error {
	fc := m.cfg.Formats.Cw
	e := &m.edge
	seen := map[uint64]bool{}
	addSub := func(c uint64) {
		if c < m.one && !seen[c] {
			seen[c] = true
			e.subScale = append(e.subScale, c)
		}
	}
	addSub(0)
	for k := 0; k < fc.W && uint64(1)<<uint(k) < m.one; k++ {
		p := uint64(1) << uint(k)
		addSub(p - 1)
		addSub(p)
		addSub(p + 1)
	}
	// The 1/cw saturation edge: the unit with a wider output.
	u := m.d.RecipUnit()
	wc := u.Config
	wc.Out = fixedpoint.Format{W: wc.Out.W + 16, I: wc.Out.I + 16}
	wide, err := fixedpoint.NewReciprocal(wc)
	if err != nil {
		return fmt.Errorf("ldcpvec: wide 1/cw unit: %w", err)
	}
	outMax := uint64(1)<<uint(u.Config.Out.W) - 1
	over := func(c uint64) bool {
		v, err := fixedpoint.FromUint(fc, c)
		if err != nil {
			return false
		}
		r, err := wide.Recip(v)
		return err == nil && r.RawUint() > outMax
	}
	// The largest cw whose unsaturated 1/cw exceeds the maximum (1/cw
	// decreases with cw; binary search between 1 and the register's top).
	lo, hi := uint64(1), m.cwMask
	if over(lo) && !over(hi) {
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if over(mid) {
				lo = mid
			} else {
				hi = mid
			}
		}
		for _, c := range []uint64{lo - 1, lo, hi, hi + 1} {
			if c > 0 && c < m.one {
				e.recipSat = append(e.recipSat, c)
			}
		}
	}
	// The AI sum at the register's top: cw + inc(cw, NMax) = 2^W.
	var alphaRaw uint64
	alphaF := 0
	for _, k := range m.d.Constants() {
		switch k.Name {
		case "alpha":
			alphaRaw, alphaF = k.Raw, k.Format.F()
		case "beta":
			e.betaCw = k.Raw << uint(fc.F()-k.Format.F())
		}
	}
	top := m.cwMask + 1
	c := m.cwMask
	for range 8 {
		inc := m.incRaw(c, m.nMax, alphaRaw, alphaF)
		if inc == 0 || inc > c {
			break
		}
		next := top - inc
		if next == c {
			break
		}
		c = next
	}
	for _, x := range []uint64{c - 1, c, c + 1, m.cwMask - 1, m.cwMask} {
		if x >= m.one && x <= m.cwMask && !slicesContains(e.aiTop, x) {
			e.aiTop = append(e.aiTop, x)
		}
	}
	return nil
}

func slicesContains(s []uint64, x uint64) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func inSet(s []uint64, x uint64) bool { return slicesContains(s, x) }

// buildEdgeClasses adds the level-1 edge classes: every class solves for
// the inputs that sit exactly on a boundary of the datapath (a saturation
// threshold, the n clamp, the MD floor, the normalizer's leading-zero
// counts, the serial ECT compare's half range), so that an RTL that
// misplaces the boundary by one fails a vector.
func (m *Model) buildEdgeClasses() {
	sm := m.seqMask
	e := &m.edge
	m.add("sub_send_cw_scale", "sub-packet sends (timer armed RTT/cw) with cw at every power of two below 1 packet, one LSB either side, and 0: every leading-zero count of the 1/cw normalizer", func(emit func(ldcp.State, ldcp.Event) error) error {
		for _, c := range e.subScale {
			st := m.stable(c, 100, 0)
			st.NextSend = 0
			if err := emit(st, ldcp.Event{Kind: ldcp.Send, NowNs: 1}); err != nil {
				return err
			}
		}
		return nil
	}, func(o *obs) bool {
		return o.out.Allowed && o.out.TimerArmed && o.st.Cw < m.one && inSet(e.subScale, o.st.Cw)
	})
	if len(e.recipSat) > 0 {
		m.add("sub_send_recip_sat", "sub-packet sends at the cw where the 1/cw unit's output starts to saturate (the last cw above the format's maximum, the first below, one LSB either side)", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, c := range e.recipSat {
				st := m.stable(c, 100, 0)
				st.NextSend = 0
				if err := emit(st, ldcp.Event{Kind: ldcp.Send, NowNs: 1}); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool { return o.out.Allowed && o.out.TimerArmed && inSet(e.recipSat, o.st.Cw) })
	}
	if len(e.aiTop) > 0 {
		m.add("ai_register_top", "AI ACKs of NMax packets with cw at the top of its register: cw + inc exactly 2^W(Cw), one either side, and the register's maximum (the sum saturates, then clamps to CwMax)", func(emit func(ldcp.State, ldcp.Event) error) error {
			n := uint32(m.nMax)
			for _, c := range e.aiTop {
				a := m.stable(c, 400, n)
				if err := emit(a, ackEv(a, n, false, false)); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool { return o.out.Rule == ldcp.RuleAI && inSet(e.aiTop, o.st.Cw) })
	}
	m.add("n_clamp_edge", "ACKs of NMax, NMax+1 and NMax+2 packets (the n clamp's threshold), ECE 0 and 1", func(emit func(ldcp.State, ldcp.Event) error) error {
		for d := uint32(0); d < 3; d++ {
			dl := uint32(m.nMax) + d
			for _, ece := range []bool{false, true} {
				a := m.stable(m.cw(10), 400, uint32(m.nMax)+2)
				if err := emit(a, fixAck(ackEv(a, dl, ece, false), sm)); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(o *obs) bool {
		d := uint64((o.ev.AckSeq - o.st.Una) & sm)
		return o.ev.Kind == ldcp.Ack && o.out.Rule != ldcp.NoRule && d >= m.nMax && d <= m.nMax+2
	})
	if e.betaCw > 0 {
		// cw - n*beta = gamma + d with cw >= 1: n the least that keeps cw >= 1.
		n := uint64(1)
		for m.gammaCw+n*e.betaCw < m.one+1 && n < m.nMax {
			n++
		}
		if base := m.gammaCw + n*e.betaCw; base >= m.one+1 && base+1 <= m.cwMask {
			m.add("md_floor_edge", "MD ACKs with cw - n*beta exactly gamma, one LSB below and above (the floor's compare)", func(emit func(ldcp.State, ldcp.Event) error) error {
				for _, c := range []uint64{base - 1, base, base + 1} {
					a := m.stable(c, 300, uint32(n))
					if err := emit(a, ackEv(a, uint32(n), true, false)); err != nil {
						return err
					}
				}
				return nil
			}, func(o *obs) bool {
				if o.out.Rule != ldcp.RuleMD || o.out.N == 0 || e.betaCw == 0 {
					return false
				}
				d := o.st.Cw - uint64(o.out.N)*e.betaCw
				return o.st.Cw >= uint64(o.out.N)*e.betaCw && d+1 >= m.gammaCw && d <= m.gammaCw+1
			})
		}
	}
	half := m.half
	m.add("ect_half_range", "fast-start sends with snd_nxt - start at 2^(SeqBits-1) - 1 and 2^(SeqBits-1) (the ECT compare's serial range)", func(emit func(ldcp.State, ldcp.Event) error) error {
		for _, s := range []uint32{half - 1, half} {
			if err := emit(m.fastStart(7, s-5, s, s+100), ldcp.Event{Kind: ldcp.Send}); err != nil {
				return err
			}
		}
		return nil
	}, func(o *obs) bool {
		d := (o.st.Nxt - o.st.Start) & sm
		return o.out.Allowed && o.st.Stage == ldcp.FastStart && d+1 >= half && d <= half
	})
	// The loss window's cast: acked << F(Cw) at and around 2^W(Cw).
	if a := uint64(1) << uint(m.cfg.Formats.Cw.I); a+1 < uint64(half) {
		acked := uint32(a)
		m.add("loss_register_top", "fast-start NAKs and timeouts with acked packets at 2^I(Cw) - 1, 2^I(Cw) and + 1: the loss window's cast at the top of the register", func(emit func(ldcp.State, ldcp.Event) error) error {
			for _, k := range []uint32{acked - 1, acked, acked + 1} {
				st := m.fastStart(0, k-1, k+5, k+100)
				if err := emit(st, fixAck(ackEv(st, 1, false, true), sm)); err != nil {
					return err
				}
				st2 := m.fastStart(0, k, k+5, k+100)
				if err := emit(st2, ldcp.Event{Kind: ldcp.Timeout}); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			var k uint32
			switch o.ev.Kind {
			case ldcp.Ack:
				k = (o.ev.AckSeq - o.st.Start) & sm
			case ldcp.Timeout:
				k = (o.st.Una - o.st.Start) & sm
			}
			return o.out.Loss && k+1 >= acked && k <= acked+1
		})
	}
	m.buildExactClasses()
	m.buildWideClasses() // wide.go
}

func fixAck(ev ldcp.Event, sm uint32) ldcp.Event {
	ev.AckSeq &= sm
	return ev
}
