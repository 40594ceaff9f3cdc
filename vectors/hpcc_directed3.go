package vectors

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// The window edges and the reciprocal units' low bits: constructed classes
// (see hpcc_directed.go) for lines 8-13 and 27, each solved backward from
// the datapath's formats and constants (windowEdges, from Tables and
// Constants), and for the last bits of both reciprocal units' Newton
// results in every binade of their operand.

// windowEdges restates, in raw integers, the casts of lines 9, 13 and 27
// that the constructed window classes land on: u_ewma = Rnd,Sat(s * inv_t)
// with s = (T - tau)*U + tau*u', eta/U = Rnd,Sat(1/U * eta), W_mi =
// Rnd,Sat(Wc * eta/U), W_mi + W_ai, and the pacing rate Rnd,Sat(W * inv_t).
type windowEdges struct {
	invT        uint64
	ewD, rateD  int      // dropped bits of the u_ewma and rate casts
	kE, wmiE    castEdge // eta/U and Wc*eta/U
	wMax32      uint64   // the W register's maximum
	tT          uint64   // T, ns
	uMask       uint64
	eta, oneK   uint64
	wai         uint64
	wMin, wMax  uint64
	wMinClamp   bool
	etaU        uint64
	recipU      *fixedpoint.RawReciprocal
	recipUCfg   fixedpoint.ReciprocalConfig
	recipDtsCfg fixedpoint.ReciprocalConfig
	ruMax       uint64 // recipMax(): the 1/U output's largest raw value
	// lowBitsAt's shift base for 1/U and 1/dts (lowBitsBase), per update.
	luBase, ldBase int
}

// newWindowEdges builds the restatement from h's datapath.
func newWindowEdges(h *HPCC, w *windowArith) (*windowEdges, error) {
	c := h.cfg
	fm := c.Formats
	e := &windowEdges{eta: w.eta, oneK: w.oneK, wai: w.wai, wMin: h.wMin, wMax: h.wMax, wMinClamp: h.wMinOK, etaU: h.etaU,
		tT: uint64(c.BaseRTTNs), uMask: h.uMax, recipU: &w.recip, recipUCfg: w.rc, wMax32: maxRaw(fm.W), ruMax: maxRaw(w.rc.Out)}
	var fInvT, fEta fixedpoint.Format
	found := false
	for _, t := range h.d.Tables() {
		if t.Name == "inv_t" && len(t.Entries) == 1 {
			e.invT, fInvT, found = t.Entries[0], t.Format, true
		}
	}
	for _, k := range h.d.Constants() {
		if k.Name == "eta" {
			fEta = k.Format
		}
	}
	if !found {
		return nil, fmt.Errorf("vectors: hpcc: datapath has no inv_t table")
	}
	rrD, _, rc, err := recipUnit(h, "recip_dts")
	if err != nil {
		return nil, err
	}
	e.recipDtsCfg = rc
	e.luBase, e.ldBase = lowBitsBase(w.rc, w.recip.NRSteps()), lowBitsBase(rc, rrD.NRSteps())
	// s has U's fraction bits (tau is an integer of ns).
	e.ewD = fm.U.F() + fInvT.F() - fm.U.F()
	e.rateD = fm.W.F() + fInvT.F() - fm.Rate.F()
	e.kE = castEdge{d: w.rc.Out.F() + fEta.F() - fm.EtaOverU.F(), max: maxRaw(fm.EtaOverU)}
	e.wmiE = castEdge{d: fm.W.F() + fm.EtaOverU.F() - fm.W.F(), max: maxRaw(fm.W)}
	for _, d := range []int{e.ewD, e.rateD, e.kE.d, e.wmiE.d} {
		if d < 2 || d > 63 {
			return nil, fmt.Errorf("a window cast drops %d bits", d)
		}
	}
	if c.DynamicWAI || fm.EtaOverU.W > 64 || fm.W.W > 63 || fm.U.W > 63 {
		return nil, fmt.Errorf("the window is not restated for this configuration")
	}
	return e, nil
}

// k returns eta/U before the min with 1 for the 1/U output ru.
func (e *windowEdges) k(ru uint64) u128 { return mul128(ru, e.eta) }

// kRaw returns eta/U as the window reads it (at most 1 when uGE).
func (e *windowEdges) kRaw(ru uint64, uGE bool) uint64 {
	k := e.kE.sat(e.k(ru))
	if uGE {
		k = min(k, e.oneK)
	}
	return k
}

// wCand returns the multiplicative step's W before the clamps for Wc and k.
func (e *windowEdges) wCand(wc, k uint64) uint64 {
	return min(e.wmiE.sat(mul128(wc, k))+e.wai, e.wMax32)
}

// clamp applies [W_min, W_max].
func (e *windowEdges) clamp(v uint64) uint64 {
	if e.wMinClamp {
		v = max(v, e.wMin)
	}
	return min(v, e.wMax)
}

// ewma returns the exact sum s and u_ewma for stored U, selected u' and
// delta ts of the selected hop.
func (e *windowEdges) ewma(u, up, dts uint64) (u128, uint64) {
	tau := min(dts, e.tT)
	s := mul128(u, e.tT-tau)
	p := mul128(up, tau)
	lo, c := bits.Add64(s.lo, p.lo, 0)
	s = u128{s.hi + p.hi + c, lo}
	ce := castEdge{d: e.ewD, max: e.uMask}
	hi, l := bits.Mul64(s.lo, e.invT)
	prod := u128{hi + s.hi*e.invT, l} // s < 2^64 / inv_t in every configuration that fits
	return prod, ce.sat(prod)
}

// tieResidue returns the value x (mod 2^d) with x*k at a tie (want =
// rndTie) or one below it, for odd k; ok false for an even k.
func tieResidue(k uint64, d, want int) (uint64, bool) {
	r := uint64(1) << uint(d-1)
	if want == rndBelowTie {
		r--
	}
	return congruent(k, r, d)
}

// ---- window_round_ties ----

func (k *constructed) genWindowRoundTies(emit emitFn) error {
	h, e, w := k.h, k.we, k.w
	ms := uint8(h.cfg.MaxStage)
	emitMI := func(u, wc uint64) error {
		st, in := h.idleBase(0)
		st.U, st.Wc, st.IncStage = u, wc, ms
		if err := k.checkWindow(st, in, w.recip.Recip(u)); err != nil {
			return err
		}
		return emit(st, in)
	}
	for _, want := range []int{rndTie, rndBelowTie} {
		// Wc * eta/U at the cast's tie: Wc solved by the congruence for an
		// eta/U with enough trailing zeros that W stays inside the clamps
		// (first such U at or above eta), else the first U with a solution.
		var fallback [2]uint64
		haveFB, done := false, false
		for u, t := e.etaU, 0; t < searchTries && u <= e.uMask; u, t = u+1, t+1 {
			kk := e.kRaw(w.recip.Recip(u), true)
			wc, ok := congruent(kk, pick(want, e.wmiE.d), e.wmiE.d)
			if !ok || wc == 0 || wc > e.wMax32 {
				continue
			}
			if !haveFB {
				fallback, haveFB = [2]uint64{u, wc}, true
			}
			if v := e.wCand(wc, kk); v > e.wMin && v < e.wMax {
				if err := emitMI(u, wc); err != nil {
					return err
				}
				done = true
				break
			}
		}
		if !done && haveFB {
			if err := emitMI(fallback[0], fallback[1]); err != nil {
				return err
			}
		}
		// eta/U at its cast's tie: 1/U solved as ru = r*eta^-1 (mod 2^d) +
		// j*2^d, U searched near 2^(F(U)+F(1/U)) / ru, Wc for a visible W.
		if e.eta&1 == 1 {
			r, _ := tieResidue(e.eta, e.kE.d, want)
			for j := uint64(0); j < 8; j++ {
				ru := r + j<<uint(e.kE.d)
				if ru == 0 {
					continue
				}
				if u, ok := k.uForRecip(ru); ok {
					wc, vis := k.kVisibleWc(u)
					if !vis {
						wc = h.wMax
					}
					if err := emitMI(u, wc); err != nil {
						return err
					}
					break
				}
			}
		}
		// The rate's cast at its tie: W solved by the congruence, reached on
		// the additive step (Wc = W - W_ai) when inside the clamps.
		if e.invT&1 == 1 {
			r, _ := tieResidue(e.invT, e.rateD, want)
			for wt := r; wt <= e.wMax; wt += uint64(1) << uint(e.rateD) {
				if wt >= e.wMin && wt >= e.wai {
					st, in := h.base(h.maxHops)
					st.Wc = wt - e.wai
					if err := emit(st, in); err != nil {
						return err
					}
					break
				}
			}
		}
		// u_ewma at its cast's tie: s = (T - tau)*U + tau*u' solved on one
		// loaded hop with delta ts = tau = T - 1 (U = s - (T-1)*u').
		if err := k.ewmaTie(want, emit); err != nil {
			return err
		}
	}
	return nil
}

// pick returns the dropped-bits residue of a tie (want) of a d-bit cast.
func pick(want, d int) uint64 {
	r := uint64(1) << uint(d-1)
	if want == rndBelowTie {
		r--
	}
	return r
}

// ewmaTie emits, per hop slot, a loaded hop (dTx = 0, delta ts = T - 1)
// whose queue term u' and the stored U put u_ewma's cast at want.
func (k *constructed) ewmaTie(want int, emit emitFn) error {
	h, a, e := k.h, k.a, k.we
	if e.invT&1 == 0 || e.tT < 2 || e.tT-1 > a.dtsMax {
		return nil
	}
	r, _ := tieResidue(e.invT, e.ewD, want)
	tau := e.tT - 1
	code := h.okCodes[0]
	sMax := mul128(e.uMask, e.tT)
	for j := uint64(0); j < 4; j++ {
		s := u128{0, r}.add64(j << uint(e.ewD))
		if s.hi != 0 || s.cmp(sMax) > 0 {
			break
		}
		// the largest q with u'*tau <= s, then U = s - u'*tau.
		uq := func(q uint64) uint64 { return a.uc.sat(u128{0, a.qt.sat(mul128(q, a.kq[code]))}) }
		q := bisect(0, a.qMask, func(q uint64) bool { return mul128(uq(q), tau).cmp(s) > 0 }) - 1
		if q > a.qMask {
			continue
		}
		up := uq(q)
		rest := s.lo - up*tau
		if up*tau > s.lo || rest > e.uMask || up >= a.uc.max {
			continue
		}
		for i := 0; i < h.maxHops; i++ {
			st, in := k.loaded(i, code, tau, 0, q)
			st.U = rest
			if h.sj != nil {
				h.sojournCarry(&in) // the sample is the residence (hpcc_sojourn.go); Directed carries it again, unchanged
			}
			ns, out := h.update(st, in)
			if _, want := e.ewma(rest, up, tau); out.SelHop != uint8(i) || ns.U != want {
				return fmt.Errorf("vectors: hpcc: u_ewma restatement gives U=%#x for U=%#x, u'=%#x, tau=%d, the datapath %#x (sel %d)", want, rest, up, tau, ns.U, out.SelHop)
			}
			if err := emit(st, in); err != nil {
				return err
			}
		}
		return nil
	}
	return nil
}

// uForRecip searches U whose 1/U output is exactly ru: near the real
// reciprocal, where 1/U is non-increasing in U.
func (k *constructed) uForRecip(ru uint64) (uint64, bool) {
	e := k.we
	c := e.recipUCfg
	sh := c.In.F() + c.Out.F()
	if sh >= 128 || ru == 0 {
		return 0, false
	}
	est := pow2(sh)
	// est / ru
	if est.hi >= ru {
		return 0, false
	}
	q, _ := bits.Div64(est.hi, est.lo, ru)
	if q == 0 || q > e.uMask {
		return 0, false
	}
	span := uint64(4096)
	lo := q - min(q-1, span)
	for u := lo; u <= q+span && u <= e.uMask; u++ {
		if e.recipU.Recip(u) == ru {
			return u, true
		}
	}
	return 0, false
}

// kVisibleWc scans Wc downward from the largest whose W stays below W_max
// for one where W changes when eta/U moves one LSB (U at or above eta).
func (k *constructed) kVisibleWc(u uint64) (uint64, bool) {
	e := k.we
	kk := e.kRaw(e.recipU.Recip(u), u >= e.etaU)
	if kk == 0 {
		return 0, false
	}
	hi := bisect(1, e.wMax32, func(wc uint64) bool { return e.clamp(e.wCand(wc, kk)) >= e.wMax })
	for wc, t := hi-1, 0; wc > 0 && t < 4096; wc, t = wc-1, t+1 {
		a := e.clamp(e.wCand(wc, kk))
		if a > e.wMin && a < e.wMax && (a != e.clamp(e.wCand(wc, kk+1)) || a != e.clamp(e.wCand(wc, kk-1))) {
			return wc, true
		}
	}
	return 0, false
}

func (k *constructed) detectWindowRoundTies(o *hobs) bool {
	e := k.we
	if o.out.MI {
		u := o.next.U
		ru := k.recipU(o).out // e.recipU is the 1/U unit (1/0: its maximum)
		p := e.k(ru)
		kk := e.kRaw(ru, u >= e.etaU)
		if e.kE.round(p) != rndOther || e.wmiE.round(mul128(o.st.Wc, kk)) != rndOther {
			return true
		}
	}
	if !o.first && e.rateD >= 2 {
		ce := castEdge{d: e.rateD, max: ^uint64(0)}
		if ce.round(mul128(o.next.W, e.invT)) != rndOther {
			return true
		}
	}
	if s := int(o.out.SelHop); s < k.h.maxHops && o.valid[s] {
		up := k.hopAt(o, s).u
		p, _ := e.ewma(o.st.U, up, o.dts[s])
		if (castEdge{d: e.ewD, max: e.uMask}).round(p) != rndOther {
			return true
		}
	}
	return false
}

// ---- window_saturation_edges ----

// wcFor returns the smallest Wc whose W_mi + W_ai (before the W register's
// saturation and the clamps) is at least target, and whether it is exactly
// target. f is the value as a function of Wc.
func (k *constructed) wcFor(f func(wc uint64) u128, target u128) (uint64, bool) {
	e := k.we
	wc := bisect(0, e.wMax32, func(wc uint64) bool { return f(wc).cmp(target) >= 0 })
	return wc, wc <= e.wMax32 && f(wc).cmp(target) == 0
}

func (k *constructed) genWindowSatEdges(emit emitFn) error {
	h, e, w := k.h, k.we, k.w
	ms := uint8(h.cfg.MaxStage)
	emitMI := func(u, wc uint64) error {
		st, in := h.idleBase(0)
		st.U, st.Wc, st.IncStage = u, wc, ms
		if err := k.checkWindow(st, in, w.recip.Recip(u)); err != nil {
			return err
		}
		return emit(st, in)
	}
	// The U values of the multiplicative step: U = 1.0 and eta/2, the
	// largest U below eta (eta/U just above 1, taken with incStage at its
	// maximum: Wc * eta/U then reaches one above the W register's maximum
	// in steps finer than one LSB), and eta/U at and either side of 1.
	us := []uint64{h.uOne, e.etaU / 2}
	if e.etaU > 1 {
		us = append(us, e.etaU-1)
	}
	// eta/U exactly 1 and one LSB either side, at U >= eta where the min
	// with 1 decides (the compare and its mux).
	seen := map[int]bool{}
	for u, t := e.etaU, 0; t < 1<<12 && u <= e.uMask && len(seen) < 3; u, t = u+1, t+1 {
		pre := e.kE.pre(e.k(e.recipU.Recip(u)))
		for off := -1; off <= 1; off++ {
			if !seen[off] && pre.cmp(u128{0, uint64(int64(e.oneK) + int64(off))}) == 0 {
				seen[off] = true
				us = append(us, u)
			}
		}
	}
	for _, u := range us {
		kk := e.kRaw(w.recip.Recip(u), u >= e.etaU)
		if kk == 0 {
			continue
		}
		wmi := func(wc uint64) u128 { return e.wmiE.pre(mul128(wc, kk)) }
		sum := func(wc uint64) u128 {
			return u128{0, e.wmiE.sat(mul128(wc, kk))}.add64(e.wai)
		}
		var wcs []uint64
		for _, off := range []uint64{0, 1} {
			// W_mi before saturation at the W register's maximum and +1.
			if wc, ok := k.wcFor(wmi, u128{0, e.wmiE.max}.add64(off)); ok {
				wcs = append(wcs, wc)
			}
			// W_mi + W_ai at the maximum and +1.
			if wc, ok := k.wcFor(sum, u128{0, e.wMax32}.add64(off)); ok {
				wcs = append(wcs, wc)
			}
		}
		// The candidate exactly at W_min and W_max and one LSB either side.
		for _, tgt := range []uint64{e.wMin - 1, e.wMin, e.wMin + 1, e.wMax - 1, e.wMax, e.wMax + 1} {
			if wc, ok := k.wcFor(sum, u128{0, tgt}); ok {
				wcs = append(wcs, wc)
			}
		}
		if len(wcs) == 0 {
			wcs = append(wcs, h.wMax)
		}
		for _, wc := range wcs {
			if err := emitMI(u, wc); err != nil {
				return err
			}
		}
	}
	// The additive step's candidate Wc + W_ai at W_min, W_max and one LSB
	// either side, and at the W register's maximum and +1, where the
	// adder's saturation decides (Wc = target - W_ai; grade's #1864, the
	// saturation threshold made 2^32, shows only at +1).
	tgts := []uint64{e.wMin - 1, e.wMin, e.wMin + 1, e.wMax - 1, e.wMax, e.wMax + 1}
	for _, t := range []uint64{e.wMax32, e.wMax32 + 1} {
		if !slices.Contains(tgts, t) {
			tgts = append(tgts, t)
		}
	}
	for _, tgt := range tgts {
		if tgt < e.wai {
			continue
		}
		st, in := h.base(h.maxHops)
		st.Wc = tgt - e.wai
		if err := emit(st, in); err != nil {
			return err
		}
	}
	return nil
}

func (k *constructed) detectWindowSatEdges(o *hobs) bool {
	e := k.we
	near := func(v, t uint64) bool { return v+1 >= t && v <= t+1 }
	if o.out.MI {
		u := o.next.U
		ru := k.recipU(o).out
		pre := e.kE.pre(e.k(ru))
		if u >= e.etaU && pre.hi == 0 && near(pre.lo, e.oneK) {
			return true
		}
		kk := e.kRaw(ru, u >= e.etaU)
		wp := e.wmiE.pre(mul128(o.st.Wc, kk))
		if e.wmiE.at(mul128(o.st.Wc, kk), 0) || e.wmiE.at(mul128(o.st.Wc, kk), 1) {
			return true
		}
		_ = wp
		s := e.wmiE.sat(mul128(o.st.Wc, kk)) + e.wai
		return near(s, e.wMax32+1) || near(s, e.wMin) || near(s, e.wMax)
	}
	if o.first {
		return false
	}
	s := o.st.Wc + e.wai
	return near(s, e.wMin) || near(s, e.wMax) || near(s, e.wMax32+1)
}

// ---- recip_low_bits ----

// lowBits returns, for reciprocal unit rr (configuration c) and input x,
// the Newton result's two bits that decide the output's last bit (the kept
// LSB and the rounding bit where the output cast drops bits, else the
// result's last two) as a number 0..3, and the output change delta of one
// LSB of the Newton result (1 where the cast drops bits).
func lowBits(rr *fixedpoint.RawReciprocal, c fixedpoint.ReciprocalConfig, x uint64) (combo int, delta uint64, ok bool) {
	if x == 0 {
		return 0, 0, false
	}
	m, y, p := rr.Seed(x)
	for j := 0; j < rr.NRSteps(); j++ {
		e := rr.MulE(j).MulCast(m, y)
		y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
	}
	return lowBitsAt(c, rr.NRSteps(), y, p)
}

// lowBitsAt is lowBits from the unit's Newton-Raphson result y (after nr
// steps) and the leading-one position p of its non-zero input, as
// recipTrace returns them.
func lowBitsAt(c fixedpoint.ReciprocalConfig, nr int, y uint64, p int) (combo int, delta uint64, ok bool) {
	return lowBitsFrom(lowBitsBase(c, nr), y, p)
}

// lowBitsBase is the part of lowBitsAt's shift that depends on the unit
// alone: F(y) - F(In) - F(Out), with F(y) the Newton result's fraction bits
// (Work's, or Entry's with no step).
func lowBitsBase(c fixedpoint.ReciprocalConfig, nr int) int {
	yf := c.Entry.F()
	if nr > 0 {
		yf = c.Work.F()
	}
	return yf - c.In.F() - c.Out.F()
}

// lowBitsFrom is lowBitsAt with the unit's lowBitsBase at hand.
func lowBitsFrom(base int, y uint64, p int) (combo int, delta uint64, ok bool) {
	d := base + p
	if d > 62 || d < -62 {
		return 0, 0, false
	}
	pos := max(d-1, 0)
	delta = 1
	if d < 0 {
		delta = uint64(1) << uint(-d)
	}
	return int(y>>uint(pos)) & 3, delta, true
}

func (k *constructed) genRecipLowBits(emit emitFn) error {
	h, a, e, w := k.h, k.a, k.we, k.w
	ms := uint8(h.cfg.MaxStage)
	// 1/U: every binade of U, each combination of the two bits, and for
	// each one U where W shows 1/U one Newton-result LSB lower and one where
	// it shows it one LSB higher (W is monotone in 1/U, so any error of that
	// sign shows too).
	for p := 1; p < h.cfg.Formats.U.W; p++ {
		var have [4][2]bool
		lo := uint64(1) << uint(p)
		for u, t := lo, 0; u < lo<<1 && t < 4096 && !allHave(&have); u, t = u+1, t+1 {
			combo, delta, ok := lowBits(&w.recip, w.rc, u)
			if !ok {
				continue
			}
			ru := w.recip.Recip(u)
			if ru >= e.recipMax() {
				continue // saturated: its low bits do not show
			}
			for dir := 0; dir < 2; dir++ {
				if have[combo][dir] {
					continue
				}
				wc, vis := k.deltaVisibleWc(u, ru, delta, dir)
				if !vis {
					continue
				}
				have[combo][dir] = true
				st, in := h.idleBase(0)
				st.U, st.Wc, st.IncStage = u, wc, ms
				if err := k.checkWindow(st, in, ru); err != nil {
					return err
				}
				if err := emit(st, in); err != nil {
					return err
				}
			}
		}
	}
	// 1/dts: every binade of delta ts up to MaxDeltaTsNs, each combination
	// and each direction, u' of the loaded hop visible, on every hop slot.
	code := k.seedCode()
	for p := 0; p < 64 && uint64(1)<<uint(p) <= a.dtsMax; p++ {
		var have [4][2]bool
		lo := uint64(1) << uint(p)
		for dts, t := lo, 0; dts < lo<<1 && dts <= a.dtsMax && t < 4096 && !allHave(&have); dts, t = dts+1, t+1 {
			combo, delta, ok := lowBits(&a.recip, e.recipDtsCfg, dts)
			if !ok {
				continue
			}
			for dir := 0; dir < 2; dir++ {
				if have[combo][dir] {
					continue
				}
				dTx, vis := k.dtsVisibleDTx(dts, delta, code, dir)
				if !vis {
					continue
				}
				have[combo][dir] = true
				for i := 0; i < h.maxHops; i++ {
					if err := emit(k.loaded(i, code, dts, dTx, 0)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// allHave reports whether every combination has both directions.
func allHave(h *[4][2]bool) bool {
	for _, c := range h {
		if !c[0] || !c[1] {
			return false
		}
	}
	return true
}

// recipMax is the 1/U output's maximum (saturation).
func (e *windowEdges) recipMax() uint64 { return e.ruMax }

// deltaVisibleWc scans Wc downward from the largest whose W stays below
// W_max for one where W changes when 1/U moves by delta: down (dir 0) or
// up (dir 1).
func (k *constructed) deltaVisibleWc(u, ru, delta uint64, dir int) (uint64, bool) {
	w := k.w
	if ru < delta {
		return 0, false
	}
	alt := ru - delta
	if dir == 1 {
		alt = ru + delta
	}
	uGE := u >= w.etaU
	all := k.we.wMax32
	hi := bisect(1, all, func(wc uint64) bool { return w.w(wc, ru, uGE) >= w.wMax })
	for wc, t := hi-1, 0; wc > 0 && t < 256; wc, t = wc-1, t+1 {
		if v := w.w(wc, ru, uGE); v > w.wMin && v < w.wMax && v != w.w(wc, alt, uGE) {
			return wc, true
		}
	}
	return 0, false
}

// dtsVisibleDTx returns a dTx (u' at most a quarter of its range, scanning
// down) for which u' changes when 1/dts moves by delta: down (dir 0) or up
// (dir 1).
func (k *constructed) dtsVisibleDTx(dts, delta uint64, code uint8, dir int) (uint64, bool) {
	a := k.a
	rd := a.recip.Recip(dts)
	alt := rd + delta
	if dir == 0 {
		if rd < delta {
			return 0, false
		}
		alt = rd - delta
	}
	dTx := k.sensitiveDTx(dts, code)
	for t := 0; t < 256 && dTx > 0; t, dTx = t+1, dTx-1 {
		v, x := hopVals{rd: rd}, hopVals{rd: alt}
		a.fromRd(&v, dTx, 0, code)
		a.fromRd(&x, dTx, 0, code)
		if x.u != v.u && v.u < a.uc.max {
			return dTx, true
		}
	}
	return 0, false
}

func (k *constructed) detectRecipLowBits(o *hobs) bool {
	a, e, w := k.a, k.we, k.w
	if o.out.MI && o.next.U != 0 {
		u := o.next.U
		r := k.recipU(o)
		_, delta, ok := lowBitsFrom(e.luBase, r.y, r.p)
		if r.p < 0 {
			_, delta, ok = lowBits(&w.recip, w.rc, u)
		}
		if ok {
			ru := r.out
			uGE := u >= w.etaU
			if ru >= delta && ru < e.recipMax() {
				v := k.wBase(o)
				if w.differs(o.st.Wc, ru-delta, uGE, o.wk, v) || w.differs(o.st.Wc, ru+delta, uGE, o.wk, v) {
					return true
				}
			}
		}
	}
	s := int(o.out.SelHop)
	if s >= k.h.maxHops || !o.valid[s] {
		return false
	}
	v := k.hopAt(o, s)
	r := &o.hr[s]
	_, delta, ok := lowBitsFrom(e.ldBase, r.y, r.p)
	if r.p < 0 {
		_, delta, ok = lowBits(&a.recip, e.recipDtsCfg, o.dts[s])
	}
	if !ok {
		return false
	}
	for _, alt := range []uint64{v.rd + delta, v.rd - delta} {
		if alt > v.rd+delta {
			continue
		}
		if a.uChanges(v, alt, o.dTx[s], o.minQ[s], o.code[s]) {
			return true
		}
	}
	return false
}
