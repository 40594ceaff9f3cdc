package ldcpvec

import (
	"fmt"
	"math/bits"
)

// recipSeeded is the 1/cw unit's raw output for the raw input x with
// table entry idx replaced by seed (the unit itself when seed is its own
// entry), the steps of fixedpoint.Reciprocal written with integers (its
// doc comment; docs/ldcp.md section 5): normalize x to the mantissa m
// (In.W bits, format u(W).1), look up y0 = T[idx] (Entry, F = Entry.W),
// refine NRSteps times with e = Trn,Sat(m*y) and y = Trn,Sat(y*(2 - e)) in
// Work, then y * 2^(In.F - p) cast into Out (Rnd: half up, Sat). x = 0
// gives Out's maximum. It is what a mutant of one ROM entry computes, so
// the seed class can pick inputs where that mutant's output differs; the
// unit itself is checked against fixedpoint.Reciprocal (TestRecipSeeded).
func (m *Model) recipSeeded(x uint64, idx int, seed uint64) uint64 {
	c := m.recip.Config()
	outMax := uint64(1)<<uint(c.Out.W) - 1
	if x&m.cwMask == 0 {
		return outMax
	}
	y, sh := m.recipNewton(x, idx, seed)
	if sh >= 0 {
		if y != 0 && (sh >= 64 || bits.Len64(y)+sh > c.Out.W) {
			return outMax
		}
		return y << uint(sh)
	}
	d := uint(-sh)
	if d >= 64 {
		return 0
	}
	v := y>>d + y>>(d-1)&1
	return min(v, outMax)
}

// recipNewton is steps 1-3 of recipSeeded for the non-zero raw input x:
// the Newton result y and the shift sh that scales it into the output
// format (y << sh, or for sh < 0 y >> -sh rounded half up at bit -sh-1).
func (m *Model) recipNewton(x uint64, idx int, seed uint64) (y uint64, sh int) {
	c := m.recip.Config()
	x &= m.cwMask
	w, k := c.In.W, c.TableBits
	p := bits.Len64(x) - 1
	mant := x << uint(w-1-p) // frac w-1
	i := int(mant >> uint(w-1-k) & (1<<uint(k) - 1))
	y = m.recipTable[i] // frac fy
	if i == idx {
		y = seed
	}
	fy := c.Entry.F()
	if c.NRSteps > 0 {
		fw := c.Work.F()
		wmax := uint64(1)<<uint(c.Work.W) - 1
		two := uint64(2) << uint(fw)
		for s := 0; s < c.NRSteps; s++ {
			e := mulShr(mant, y, uint(w-1+fy-fw), wmax)
			t := uint64(0)
			if e < two {
				t = two - e
			}
			y = mulShr(y, t, uint(fy), wmax)
			fy = fw
		}
	}
	// y (frac fy) * 2^(In.F - p) into Out (frac Out.F): a shift by
	// In.F - p + Out.F - fy, rounded half up where it drops bits.
	return y, c.In.F() - p + c.Out.F() - fy
}

// mulShr is Trn,Sat(a*b >> s) for unsigned a, b, at most max.
func mulShr(a, b uint64, s uint, max uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if s >= 64 {
		if s >= 128 {
			return 0
		}
		return min(hi>>(s-64), max)
	}
	if s > 0 && hi>>s != 0 || s == 0 && hi != 0 {
		return max
	}
	v := lo >> s
	if s > 0 {
		v |= hi << (64 - s)
	}
	return min(v, max)
}

// aiNext is the cw register after an AI ACK of n packets on cw when the
// 1/cw unit gives r: Sat(cw + Rnd,Sat(n*alpha*r)) clamped to CwMax (the
// datapath's cw_ai, docs/ldcp.md section 5).
func (m *Model) aiNext(cw, n, r uint64) uint64 {
	u := m.recip.Config()
	hi, lo := bits.Mul64(n*m.alphaRaw, r)
	s := uint(m.alphaF + u.Out.F() - m.cfg.Formats.Cw.F())
	var inc uint64
	switch {
	case s == 0:
		inc = lo
		if hi != 0 {
			inc = m.cwMask
		}
	case hi>>s != 0:
		inc = m.cwMask
	default:
		inc = lo>>s | hi<<(64-s)
		inc += lo >> (s - 1) & 1
	}
	inc = min(inc, m.cwMask)
	return min(cw+inc, m.cwMask, m.cwMax)
}

// seedProbe is one AI ACK of the rom_seed_edges class: n packets on the
// cw register cw, whose 1/cw reads table entry idx.
type seedProbe struct {
	cw, n uint64
	idx   int
}

// solveSeeds finds, for every entry of the 1/cw table, AI ACKs whose new
// cw changes when that entry is one higher and when it is one lower: cw in
// the binades at and above 1 packet, where the unit's output keeps every
// bit of the Newton result (or all but one), with the entry's index, n the
// largest number of packets (at most NMax) whose sum stays below CwMax.
// The Newton step squares the seed's error, so most cw of an entry do not
// show a change of its last bit; the search evaluates the unit with the
// changed entry (recipSeeded) and keeps a cw where it shows, one for both
// directions when there is one. An entry with no such cw in those binades
// gets no probe (none of the default configuration's 1 024).
func (m *Model) solveSeeds() error {
	c := m.recip.Config()
	k := c.TableBits
	emax := uint64(1)<<uint(c.Entry.W) - 1
	f := m.cwF
	seen := map[uint64]bool{}
	for idx := 0; idx < 1<<uint(k); idx++ {
		r0 := m.recipTable[idx]
		var up, down *seedProbe
		var both *seedProbe
		for b := f; b <= f+1 && b < uint(c.In.W) && both == nil; b++ {
			// cw = 2^b | idx << (b-k) | low: the entry's interval in binade b.
			if b < uint(k) {
				continue
			}
			base := uint64(1)<<b | uint64(idx)<<(b-uint(k))
			for low := uint64(0); low < uint64(1)<<(b-uint(k)) && both == nil; low++ {
				cw := base | low
				if cw < m.one || cw > m.cwMax {
					continue
				}
				r := m.recipSeeded(cw, idx, r0)
				n := m.seedN(cw, r)
				if n == 0 {
					continue
				}
				next := m.aiNext(cw, n, r)
				hiShows := r0 < emax && m.aiNext(cw, n, m.recipSeeded(cw, idx, r0+1)) != next
				loShows := r0 > 0 && m.aiNext(cw, n, m.recipSeeded(cw, idx, r0-1)) != next
				p := &seedProbe{cw: cw, n: n, idx: idx}
				switch {
				case hiShows && loShows:
					both = p
				case hiShows && up == nil:
					up = p
				case loShows && down == nil:
					down = p
				}
			}
		}
		var ps []*seedProbe
		if both != nil {
			ps = append(ps, both)
		} else {
			ps = append(ps, up, down)
		}
		for _, p := range ps {
			if p == nil || seen[p.cw] {
				continue
			}
			if got := m.recipOf(p.cw); got != m.recipSeeded(p.cw, -1, 0) {
				return fmt.Errorf("ldcpvec: 1/cw unit of cw %#x: integer model %#x, fixedpoint %#x", p.cw, m.recipSeeded(p.cw, -1, 0), got)
			}
			seen[p.cw] = true
			m.edge.seeds = append(m.edge.seeds, *p)
		}
	}
	m.edge.seedN = make(map[uint64]uint64, len(m.edge.seeds))
	for _, p := range m.edge.seeds {
		m.edge.seedN[p.cw] = p.n
	}
	return nil
}

// seedN is the largest n <= NMax (and <= CwMaxPkts, so that an ACK of n
// packets fits the window) whose AI sum on cw with 1/cw = r stays below
// CwMax (so that a change of the increment shows), or 0.
func (m *Model) seedN(cw, r uint64) uint64 {
	// the sum is monotone in n: bisect for the largest n below CwMax
	lo, hi := uint64(0), min(m.nMax, uint64(m.cfg.CwMaxPkts))
	if m.aiNext(cw, hi, r) < m.cwMax {
		return hi
	}
	for hi-lo > 1 { // aiNext(lo) < CwMax (or lo = 0), aiNext(hi) = CwMax
		mid := lo + (hi-lo)/2
		if m.aiNext(cw, mid, r) < m.cwMax {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}
