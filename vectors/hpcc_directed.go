package vectors

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// The constructed classes: directed stimulus built by inverting the
// datapath (hpcc_arith.go) so that one cast lands exactly where a one-LSB
// or off-by-one error of the hardware shows: a rounding tie (or one LSB
// below it) whose one-LSB change reaches u' through the next cast, a value
// before saturation exactly at a format's maximum and one above it, a
// reciprocal operand whose result depends on the last bit of its table
// entry, a normalizer input at every leading-one position, and stored
// window registers outside [W_min, W_max]. Each class keeps its generator
// and its detector together (constructedClass); the detector recomputes the
// condition from the observed transaction, so every generated vector is
// proved to hit what its class claims, and the functional coverage model's
// bins confirm it on the hardware description (vectors/coverage
// TestConstructedClassesHitBins).

// constructedClass is one class: name, doc, generator and detector.
type constructedClass struct {
	name, doc string
	gen       func(emit emitFn) error
	detect    func(o *hobs) bool
}

// constructed holds the arithmetic the constructed classes invert and the
// index of each class in h.classes.
type constructed struct {
	h       *HPCC
	a       *hopArith
	w       *windowArith
	we      *windowEdges // nil: the window classes are left out
	classes []constructedClass
	idx     []int
	t       uint64 // T, ns: a dts of at least T makes tau = T, so u' reaches U with weight 1
}

// addConstructedClasses appends the constructed classes to h.
func (h *HPCC) addConstructedClasses() error {
	a, err := newHopArith(h)
	var w *windowArith
	if err == nil {
		w, err = newWindowArith(h)
	}
	k := &constructed{h: h, a: a, w: w, t: uint64(h.cfg.BaseRTTNs)}
	k.classes = []constructedClass{
		{"term_round_ties", "for every hop slot and valid speed code, one loaded hop over idle ones with delta ts >= T: q_term (qlen x KQ) and r_term (txRate x KR, txRate solved exactly) each at an exact rounding tie and one LSB below it, and txRate (dTx x 1/dts) at a tie and one LSB below it with r_term one txRate-LSB from its own rounding boundary on either side, so a one-LSB error of either rounding reaches u' and U",
			k.genRoundTies, k.detectRoundTies},
		{"term_saturation_edges", "for every hop slot and valid speed code, one loaded hop over idle ones: txRate, r_term and u' = q_term + r_term each exactly at its format's maximum and one above it before saturation (delta ts and dTx solved for it)",
			k.genSatEdges, k.detectSatEdges},
		{"recip_seed_edges", "every entry of the 1/dts table on every hop slot, and of the 1/U table, read by an operand whose reciprocal changes when the entry is one LSB higher or lower (the Newton step's result at a rounding boundary), with dTx (1/dts, the selected hop's u' then changes) or Wc (1/U, multiplicative step: W then changes) solved so the change is visible",
			k.genSeedEdges, k.detectSeedEdges},
		{"u_leading_one", "new U (carried, no hop) at every leading-one position: U = 2^p and 2^(p+1)-1 for every bit p of U's format, and U = 0, on the multiplicative step with Wc solved so that W lands between the clamps (the 1/U normalizer at every shift, visible in W)",
			k.genLeadingOne, k.detectLeadingOne},
		{"dts_leading_one", "delta ts at every leading-one position: dts = 2^p and 2^(p+1)-1 up to MaxDeltaTsNs, on every hop slot, one loaded hop over idle ones with dTx making u' a quarter of its range (the 1/dts normalizer at every shift, visible in u')",
			k.genDtsLeadingOne, k.detectDtsLeadingOne},
		{"recip_u_last_bit", "new U in the top two binades of its format (where the 1/U output's last bit comes from the Newton result: dropped by the output cast's rounding at a tie or not in the top one, kept in the next), two U of each kind, on the multiplicative step with Wc solved so that W changes when 1/U changes by one LSB",
			k.genRecipURoundTies, k.detectRecipURoundTies},
		{"wc_out_of_range", "stored Wc outside [W_min, W_max] (register values the datapath never writes: 1 LSB, W_min - 1, W_max + 1, all ones - W_ai, all ones) on the additive step and on the multiplicative step with new U = 0, 1 LSB and 1.0: the window casts' saturation and the clamps",
			k.genWcOutOfRange, k.detectWcOutOfRange},
	}
	if err != nil {
		// The restatement does not fit this configuration (formats wider
		// than it holds, or a MultiQ/Sojourn hop term): no constructed class.
		return nil
	}
	// The window and low-bit classes (MultiQ and Sojourn too: the window
	// reads U, not the hop term; u_ewma's tie uses one loaded hop of case
	// 1 with dTx = 0, whose u' is the single-class term with MultiQ's kq
	// table, and the sojourn carry with Sojourn).
	if we, e := newWindowEdges(h, w); e == nil {
		k.we = we
		k.classes = append(k.classes,
			constructedClass{"window_round_ties", "the window's and EWMA's rounding casts exactly at a tie and one LSB below it: Wc*eta/U (Wc solved by the congruence, W inside the clamps where found), eta/U (1/U solved, U searched for it, Wc for a visible W), the pacing rate W*inv_t (W solved, reached on the additive step) and u_ewma (s = (T-tau)*U + tau*u' solved on one loaded hop with delta ts T-1, every hop slot)",
				k.genWindowRoundTies, k.detectWindowRoundTies},
			constructedClass{"window_saturation_edges", "the window's saturation and clamp edges on the multiplicative step, Wc solved for each: Wc*eta/U before saturation at the W register's maximum and +1, Wc*eta/U + W_ai at the maximum and +1, the candidate W at W_min and W_max and one LSB either side, with U = 1.0, eta/2, the largest U below eta and the U at which eta/U is closest to 1 from either side; and the additive step's Wc + W_ai at W_min and W_max and one LSB either side, and at the W register's maximum and one above it (the adder's saturation)",
				k.genWindowSatEdges, k.detectWindowSatEdges},
			constructedClass{"recip_low_bits", "the two bits of each reciprocal unit's Newton result that decide its output's last bit (the kept LSB and the rounding bit where the output cast drops bits, else the result's last two), in each of their four combinations, for an operand in every binade, each twice: with the observed output showing the reciprocal one LSB of the Newton result lower, and one LSB higher (the output is monotone in it, so any error of that sign shows): 1/U with Wc solved so that W changes, and 1/dts on every hop slot with dTx solved so that u' changes",
				k.genRecipLowBits, k.detectRecipLowBits})
	}
	if h.e == telemetry.IFA {
		k.classes = append(k.classes, k.storedNsAboveMax()) // hpcc_directed4.go
	}
	var keep []constructedClass
	for _, c := range k.classes {
		if (c.name == "recip_u_last_bit" || c.name == "recip_low_bits") && !k.producesAny(c.gen) {
			continue // with dynamic W_ai, or no such U in this U format
		}
		keep = append(keep, c)
		k.idx = append(k.idx, h.add(c.name, c.doc, 1, true, c.gen))
	}
	k.classes = keep
	h.cx = k
	return nil
}

// producesAny reports whether gen makes at least one vector.
func (k *constructed) producesAny(gen func(emitFn) error) bool {
	n := 0
	_ = gen(func(hpcc.State, hpcc.Input) error { n++; return errStopGen })
	return n > 0
}

// errStopGen stops a generator after its first vector.
var errStopGen = fmt.Errorf("vectors: stop")

// detect marks every constructed class the observed update hits.
func (k *constructed) detect(o *hobs, hits *Hits) {
	if o.first {
		return
	}
	for i := range k.classes {
		if k.classes[i].detect(o) {
			hits.Hit(k.idx[i])
		}
	}
}

// hopAt returns the intermediate values of valid hop slot i of the
// observed update, evaluated once per update however many detectors ask.
func (k *constructed) hopAt(o *hobs, i int) *hopVals {
	if o.hvSet>>uint(i)&1 == 0 {
		v, r := &o.hv[i], &o.hr[i]
		if t := &o.tr.Hops[i]; o.tr.OK && o.useTrace && t.Dts == o.dts[i] && t.DB == o.dTx[i] && t.QIn == o.minQ[i] && t.Code == o.code[i] {
			// The datapath's own run on the same operands (a slot whose
			// stored ns is not below 10^9 has no observed dts: recomputed).
			v.fromTrace(r, t)
		} else {
			// As eval: Recip, then fromRd, which writes every field (v.mq
			// only with MultiQ, and then all of it; without, it stays zero).
			r.setRun(&k.a.recip, k.a.recipCfg.In.W, o.dts[i])
			v.rd = r.out
			k.a.fromRd(v, o.dTx[i], o.minQ[i], o.code[i])
		}
		o.hvSet |= 1 << uint(i)
	}
	return &o.hv[i]
}

// recipU returns the 1/U unit's trace on the observed update's new U,
// computed once per update however many detectors ask.
func (k *constructed) recipU(o *hobs) *recipVals {
	if !o.urSet {
		if o.tr.UOK && o.useTrace && !o.first {
			o.ur.setTrace(&o.tr.RecipU) // the datapath's 1/U of the new U
		} else {
			o.ur.setRun(&k.w.recip, k.w.rc.In.W, o.next.U)
		}
		o.urSet = true
	}
	return &o.ur
}

// wBase returns the multiplicative step's W (windowArith.w) for the
// stored Wc and the new U's 1/U, computed once per update.
func (k *constructed) wBase(o *hobs) uint64 {
	if !o.wbSet {
		o.wk = k.w.kOf(k.recipU(o).out, o.next.U >= k.w.etaU)
		o.wb = k.w.wK(o.st.Wc, o.wk)
		o.wbSet = true
	}
	return o.wb
}

// loaded returns the base vector with every hop idle but slot i, which
// carries code, dts, dTx and min qlen q (both samples q).
func (k *constructed) loaded(i int, code uint8, dts, dTx, q uint64) (hpcc.State, hpcc.Input) {
	h := k.h
	st, in := h.idleBase(h.maxHops)
	s := idle(h.baseHop(i))
	s.code, s.dts, s.dTx, s.q, s.prevQ = code, dts, dTx&h.txMask, q, q
	h.setHop(&st, &in, i, s)
	return st, in
}

// forHopsCodes emits, for every hop slot i and valid speed code (slot-
// major), the vectors k.loaded(i, code, dts, dTx, q) of every operand
// triple f puts for code, in the order f puts them. What f solves depends
// on the code alone, so it runs once per code (on the first slot, whose
// vectors are emitted as they are found) and the other slots replay its
// triples: the vectors and their order are those of running f on every
// slot.
func (k *constructed) forHopsCodes(emit emitFn, f func(code uint8, put func(dts, dTx, q uint64) error) error) error {
	type triple struct{ dts, dTx, q uint64 }
	found := make([][]triple, len(k.h.okCodes))
	for i := 0; i < k.h.maxHops; i++ {
		for c, code := range k.h.okCodes {
			if i > 0 {
				for _, t := range found[c] {
					if err := emit(k.loaded(i, code, t.dts, t.dTx, t.q)); err != nil {
						return err
					}
				}
				continue
			}
			err := f(code, func(dts, dTx, q uint64) error {
				found[c] = append(found[c], triple{dts, dTx, q})
				return emit(k.loaded(i, code, dts, dTx, q))
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// bisect returns the smallest v in [lo, hi] with ge(v), ge monotone (false
// then true), or hi+1 when there is none.
func bisect(lo, hi uint64, ge func(uint64) bool) uint64 {
	if !ge(hi) {
		return hi + 1
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		if ge(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// searchTries bounds every scan of a free operand (delta ts, dTx, Wc, a
// mantissa's low bits) so generation stays fast; a target not found within
// it is skipped (the class then has fewer vectors, never a wrong one).
const searchTries = 1 << 14

// dtsFor returns the delta ts values to scan for a txRate near x (raw):
// descending from the largest at which dTx still fits the counter, never
// below 1; T and above first when possible.
func (k *constructed) dtsFor(x uint64) (hi uint64) {
	a := k.a
	hi = a.dtsMax
	if x > 0 { // dTx = x * dts / 2^F(TxRate) <= txMask
		f := k.h.cfg.Formats.TxRate.F()
		n := mul128(a.txMask, 1)
		if f < 64 {
			n = mul128(a.txMask, uint64(1)<<uint(f))
		}
		if n.hi < x {
			q, _ := bits.Div64(n.hi, n.lo, x)
			hi = min(hi, q)
		}
	}
	return max(hi, 1)
}

// solveTx finds delta ts and dTx giving txRate exactly x on code (q = 0),
// scanning delta ts downward from the largest that fits.
func (k *constructed) solveTx(x uint64, accept func(v hopVals) bool, code uint8) (dts, dTx uint64, ok bool) {
	a := k.a
	hi := k.dtsFor(x)
	for t := 0; t < searchTries && hi >= 1; t, hi = t+1, hi-1 {
		rd := a.recip.Recip(hi)
		d := bisect(0, a.txMask, func(v uint64) bool { return a.tx.pre(mul128(v, rd)).cmp(u128{0, x}) >= 0 })
		if d > a.txMask {
			continue
		}
		v := hopVals{rd: rd}
		a.fromRd(&v, d, 0, code)
		if v.tx == x && (accept == nil || accept(v)) {
			return hi, d, true
		}
	}
	return 0, 0, false
}

// ---- term_round_ties ----

// congruent returns the smallest x >= 0 with x*k = r (mod 2^d), or false
// when there is none (k's trailing zeros must divide r).
func congruent(k, r uint64, d int) (uint64, bool) {
	if k == 0 || d > 63 {
		return 0, false
	}
	z := bits.TrailingZeros64(k)
	if z > 0 && r&(1<<uint(z)-1) != 0 {
		return 0, false
	}
	if z >= d {
		return 0, r&(1<<uint(d)-1) == 0
	}
	m := uint64(1)<<uint(d-z) - 1
	return (r >> uint(z)) * oddInverse(k>>uint(z)) & m, true
}

// oddInverse returns the inverse of an odd k modulo 2^64.
func oddInverse(k uint64) uint64 {
	x := k // Newton: each step doubles the correct low bits (k*k = 1 mod 8)
	for i := 0; i < 6; i++ {
		x *= 2 - k*x
	}
	return x
}

func (k *constructed) genRoundTies(emit emitFn) error {
	a := k.a
	return k.forHopsCodes(emit, func(code uint8, put func(dts, dTx, q uint64) error) error {
		dtsT := min(k.t, a.dtsMax)
		// q_term at a tie and one below (dTx = 0).
		if a.qt.d <= 63 {
			half := uint64(1) << uint(a.qt.d-1)
			for _, r := range []uint64{half, half - 1} {
				if q, ok := congruent(a.kq[code], r, a.qt.d); ok && q > 0 && q <= a.qMask {
					if err := put(dtsT, 0, q); err != nil {
						return err
					}
				}
			}
		}
		// r_term at a tie and one below: txRate solved exactly (q = 0).
		if a.rt.d <= 63 {
			half := uint64(1) << uint(a.rt.d-1)
			for _, r := range []uint64{half, half - 1} {
				x, ok := congruent(a.kr[code], r, a.rt.d)
				if !ok || x == 0 {
					continue
				}
				if dts, dTx, ok := k.solveTx(x, func(v hopVals) bool { return v.u < a.uc.max }, code); ok {
					if err := put(dts, dTx, 0); err != nil {
						return err
					}
				}
			}
		}
		// txRate at a tie and one below, with r_term one txRate-LSB from its
		// rounding boundary below and above.
		for _, want := range []int{rndTie, rndBelowTie} {
			for _, side := range []int{-1, 1} {
				if dts, dTx, ok := k.txTieChain(code, want, side); ok {
					if err := put(dts, dTx, 0); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
}

// txTieChain finds (dts >= T, dTx) with txRate's rounding at want and
// r_term changing when txRate moves one LSB toward side, u' below its
// maximum. For a delta ts whose 1/dts is rd = 2^z * s (s odd), the dTx
// putting txRate's cast at the tie (or one below) are x0 + j*2^(d-z), and
// txRate = tx0 + j*s along them: the scan over j only needs r_term's
// dropped bits, (tx0 + j*s)*kr mod 2^dR, to fall within one kr of r_term's
// half-LSB boundary on the wanted side.
func (k *constructed) txTieChain(code uint8, want, side int) (dts, dTx uint64, ok bool) {
	a := k.a
	d, dR := a.tx.d, a.rt.d
	kr := a.kr[code]
	if d > 63 || dR > 63 || kr == 0 || kr >= uint64(1)<<uint(dR-1) {
		return 0, 0, false
	}
	half := uint64(1) << uint(d-1)
	r := half
	if want == rndBelowTie {
		r = half - 1
	}
	mR := uint64(1)<<uint(dR) - 1
	halfR := uint64(1) << uint(dR-1)
	lo := halfR - kr // side +1: txRate + 1 carries r_term's dropped bits over the half
	if side < 0 {
		lo = halfR // side -1: txRate - 1 takes them back below it
	}
	// From the largest delta ts down: there 1/dts keeps its low bits (an odd
	// 1/dts is needed one below the tie), and txRate moves in small steps.
	for dts, n := a.dtsMax, 0; dts >= max(k.t, 1) && n < 512; dts, n = dts-1, n+1 {
		rd := a.recip.Recip(dts)
		z := bits.TrailingZeros64(rd)
		if rd == 0 || z >= d || (want == rndBelowTie && z != 0) {
			continue
		}
		x0, ok := congruent(rd, r, d)
		if !ok || x0 > a.txMask {
			continue
		}
		step := uint64(1) << uint(d-z)
		v0 := hopVals{rd: rd}
		a.fromRd(&v0, x0, 0, code)
		s := rd >> uint(z)
		acc, inc := v0.tx*kr&mR, s*kr&mR
		for j := uint64(0); j <= (a.txMask-x0)/step && j < searchTries; j++ {
			if (acc-lo)&mR < kr {
				dx := x0 + j*step
				v := hopVals{rd: rd}
				a.fromRd(&v, dx, 0, code)
				if v.u >= a.uc.max {
					break
				}
				if v.tx > 0 && a.tx.round(v.pTx) == want && a.rTerm(uint64(int64(v.tx)+int64(side)), code) != v.r {
					return dts, dx, true
				}
			}
			acc = (acc + inc) & mR
		}
	}
	return 0, 0, false
}

func (k *constructed) detectRoundTies(o *hobs) bool {
	a := k.a
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] || o.dts[i] < k.t {
			continue
		}
		v := k.hopAt(o, i)
		if v.u >= a.uc.max {
			continue
		}
		if a.qt.round(v.pQ) != rndOther || a.rt.round(v.pR) != rndOther {
			return true
		}
		if a.tx.round(v.pTx) != rndOther && v.tx > 0 && (a.rTerm(v.tx-1, o.code[i]) != v.r || a.rTerm(v.tx+1, o.code[i]) != v.r) {
			return true
		}
	}
	return false
}

// ---- term_saturation_edges ----

func (k *constructed) genSatEdges(emit emitFn) error {
	a := k.a
	return k.forHopsCodes(emit, func(code uint8, put func(dts, dTx, q uint64) error) error {
		for _, off := range []uint64{0, 1} {
			// txRate before saturation at max + off: delta ts upward from 1.
			target := u128{0, a.tx.max}.add64(off)
			for dts, t := uint64(1), 0; dts <= a.dtsMax && t < searchTries; dts, t = dts+1, t+1 {
				rd := a.recip.Recip(dts)
				d := a.tx.minOperand(rd, target, a.txMask)
				if d <= a.txMask && a.tx.pre(mul128(d, rd)).cmp(target) == 0 {
					if err := put(dts, d, 0); err != nil {
						return err
					}
					break
				}
			}
			// r_term before saturation at max + off (q = 0), then u' = q_term
			// + r_term at max + off with q_term about half of it.
			if dts, dTx, ok := k.solveSum(code, 0, a.rt.max+off, func(v hopVals) u128 { return a.rt.pre(v.pR) }); ok {
				if err := put(dts, dTx, 0); err != nil {
					return err
				}
			}
			uTarget := a.uc.max + off
			q := bisect(0, a.qMask, func(q uint64) bool { return a.qt.sat(mul128(q, a.kq[code])) >= uTarget<<uint(a.uShift)/2 })
			for t := uint64(0); t < 16 && q+t <= a.qMask; t++ {
				if dts, dTx, ok := k.solveSum(code, q+t, uTarget, func(v hopVals) u128 { return a.uc.pre(v.pU) }); ok {
					if err := put(dts, dTx, q+t); err != nil {
						return err
					}
					break
				}
			}
		}
		return nil
	})
}

// solveSum finds (dts, dTx) with f (monotone in dTx) exactly target for
// min qlen q, scanning delta ts downward from the largest whose txRate range
// reaches it.
func (k *constructed) solveSum(code uint8, q, target uint64, f func(v hopVals) u128) (dts, dTx uint64, ok bool) {
	a := k.a
	tgt := u128{0, target}
	at := func(rd, dx uint64) (hopVals, int) {
		v := hopVals{rd: rd}
		a.fromRd(&v, dx, q, code)
		return v, f(v).cmp(tgt)
	}
	// The largest delta ts whose top dTx still reaches the target (1/dts
	// falls as dts grows), then downward from there.
	reach := func(dts uint64) bool { _, c := at(a.recip.Recip(dts), a.txMask); return c >= 0 }
	if !reach(1) {
		return 0, 0, false
	}
	top := bisect(1, a.dtsMax, func(d uint64) bool { return !reach(d) }) - 1
	for dts, t := top, 0; dts >= 1 && t < searchTries; dts, t = dts-1, t+1 {
		rd := a.recip.Recip(dts)
		d := bisect(0, a.txMask, func(dx uint64) bool { _, c := at(rd, dx); return c >= 0 })
		if d > a.txMask {
			continue
		}
		if _, c := at(rd, d); c == 0 {
			return dts, d, true
		}
	}
	return 0, 0, false
}

func (k *constructed) detectSatEdges(o *hobs) bool {
	a := k.a
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] {
			continue
		}
		// A value before saturation at the maximum or one above saturates
		// to the maximum: the cast results (at hand) rule out the rest.
		// With MultiQ, v.u is the case's u', not uc's cast of pU.
		v := k.hopAt(o, i)
		if v.tx == a.tx.max && a.tx.atEdge(v.pTx) || v.r == a.rt.max && a.rt.atEdge(v.pR) ||
			(a.mq != nil || v.u == a.uc.max) && a.uc.atEdge(v.pU) {
			return true
		}
	}
	return false
}

// ---- recip_seed_edges ----

// seedOperands returns, for entry e of a reciprocal unit with k table bits
// and an input whose leading one is at bit p (p >= k), operands of that
// entry whose result depends on the entry's last bit: one showing both
// directions when found, else one per direction.
func seedOperands(rr *fixedpoint.RawReciprocal, entryMax uint64, e uint64, k, p int, ok func(x uint64) bool) []uint64 {
	base := uint64(1)<<uint(p) | e<<uint(p-k)
	n := uint64(1) << uint(p-k)
	var lo, hi uint64
	var haveLo, haveHi bool
	for low, t := uint64(0), 0; low < n && t < searchTries; low, t = low+1, t+1 {
		x := base | low
		if !ok(x) {
			continue
		}
		l, h := seedEdge(rr, entryMax, x)
		if l && h {
			return []uint64{x}
		}
		if l && !haveLo {
			lo, haveLo = x, true
		}
		if h && !haveHi {
			hi, haveHi = x, true
		}
	}
	var xs []uint64
	if haveLo {
		xs = append(xs, lo)
	}
	if haveHi {
		xs = append(xs, hi)
	}
	return xs
}

func (k *constructed) genSeedEdges(emit emitFn) error {
	h, a := k.h, k.a
	// 1/dts: operands at the largest exponent below MaxDeltaTsNs, on the
	// speed code with the largest KR, dTx for u' near a quarter of its range.
	kb := h.rdK
	p := bits.Len64(a.dtsMax) - 1
	code := h.okCodes[0]
	for _, c := range h.okCodes {
		if a.kr[c] > a.kr[code] {
			code = c
		}
	}
	if p >= kb && p >= 1 {
		for e := uint64(0); e < 1<<uint(kb); e++ {
			xs := seedOperands(&a.recip, a.recipEntryMax, e, kb, p, func(x uint64) bool { return x <= a.dtsMax })
			for _, dts := range xs {
				rd := a.recip.Recip(dts)
				dTx := bisect(0, a.txMask, func(dx uint64) bool {
					v := hopVals{rd: rd}
					a.fromRd(&v, dx, 0, code)
					return v.u >= a.uc.max/4
				})
				dTx = min(dTx, a.txMask)
				q := uint64(0)
				if a.mq != nil { // MultiQ: case 2 (hpcc_multiq_edges.go)
					dTx, q = k.mqDtsSeedOperand(dts, code, dTx)
				}
				if !k.seedVisible(dts, dTx, q, code) {
					continue
				}
				for i := 0; i < h.maxHops; i++ {
					if err := emit(k.loaded(i, code, dts, dTx, q)); err != nil {
						return err
					}
				}
			}
		}
	}
	// 1/U: new U in [1, 2) (carried, no hop), multiplicative step, Wc
	// solved so that W differs with the entry one LSB off.
	w := k.w
	ku, fu := h.ruK, h.cfg.Formats.U.F()
	if fu < ku || fu >= h.cfg.Formats.U.W || w.dynamicWAI {
		return nil // with dynamic W_ai the window's restatement would need 1/N too
	}
	for e := uint64(0); e < 1<<uint(ku); e++ {
		for _, u := range seedOperands(&w.recip, w.recipEntryMax, e, ku, fu, func(uint64) bool { return true }) {
			ru := w.recip.Recip(u)
			wc, found := k.visibleWc(u, ru)
			if !found {
				continue
			}
			st, in := h.idleBase(0)
			st.U, st.Wc, st.IncStage = u, wc, uint8(h.cfg.MaxStage)
			if err := k.checkWindow(st, in, ru); err != nil {
				return err
			}
			if err := emit(st, in); err != nil {
				return err
			}
		}
	}
	return nil
}

// visibleWc scans Wc downward from W_max for one where the multiplicative
// step's W changes with the 1/U entry of u one LSB off.
func (k *constructed) visibleWc(u, ru uint64) (uint64, bool) {
	w := k.w
	if w.dynamicWAI {
		return 0, false
	}
	uGE := u >= w.etaU
	var alt []uint64
	for _, d := range []int{-1, 1} {
		if v, ok := recipSeed(&w.recip, w.recipEntryMax, u, d); ok && v != ru {
			alt = append(alt, v)
		}
	}
	for wc, t := k.h.wMax, 0; wc > 0 && t < searchTries; wc, t = wc-1, t+1 {
		base := w.w(wc, ru, uGE)
		for _, v := range alt {
			if w.w(wc, v, uGE) != base {
				return wc, true
			}
		}
	}
	return 0, false
}

// checkWindow confirms the window restatement against the golden update on
// a multiplicative-step vector with no valid hop (U carried).
func (k *constructed) checkWindow(st hpcc.State, in hpcc.Input, ru uint64) error {
	if k.w.dynamicWAI {
		return nil
	}
	ns, out := k.h.update(st, in)
	if !out.MI {
		return fmt.Errorf("vectors: hpcc: constructed class: U=%#x, incStage=%d did not take the multiplicative step", st.U, st.IncStage)
	}
	if want := k.w.w(st.Wc, ru, st.U >= k.w.etaU); ns.W != want {
		return fmt.Errorf("vectors: hpcc: window restatement gives W=%#x for Wc=%#x, U=%#x, the datapath %#x", want, st.Wc, st.U, ns.W)
	}
	return nil
}

// seedVisible reports whether the u' of a valid slot changes when the 1/dts
// table entry its delta ts reads is one LSB higher or lower.
func (k *constructed) seedVisible(dts, dTx, q uint64, code uint8) bool {
	v := k.a.eval(dts, dTx, q, code)
	return k.seedVisibleAt(&v, nil, dts, dTx, q, code)
}

// seedVisibleAt is seedVisible with the slot's values v already evaluated
// and, when r is not nil, the 1/dts unit's run on dts (recipSeedAt).
func (k *constructed) seedVisibleAt(v *hopVals, r *recipVals, dts, dTx, q uint64, code uint8) bool {
	a := k.a
	for _, d := range []int{-1, 1} {
		var rd uint64
		var ok bool
		if r != nil {
			rd, ok = recipSeedAt(&a.recip, a.recipEntryMax, r, dts, d)
		} else {
			rd, ok = recipSeed(&a.recip, a.recipEntryMax, dts, d)
		}
		if ok && rd != v.rd && a.uChanges(v, rd, dTx, q, code) {
			return true
		}
	}
	return false
}

func (k *constructed) detectSeedEdges(o *hobs) bool {
	w := k.w
	for i := 0; i < k.h.maxHops; i++ {
		if o.valid[i] && int(o.out.SelHop) == i && k.seedVisibleAt(k.hopAt(o, i), &o.hr[i], o.dts[i], o.dTx[i], o.minQ[i], o.code[i]) {
			return true
		}
	}
	if o.out.MI && o.next.U != 0 && !w.dynamicWAI {
		u := o.next.U
		r := k.recipU(o)
		ru, base := r.out, k.wBase(o)
		for _, d := range []int{-1, 1} {
			if v, ok := recipSeedAt(&w.recip, w.recipEntryMax, r, u, d); ok && v != ru && w.differs(o.st.Wc, v, u >= w.etaU, o.wk, base) {
				return true
			}
		}
	}
	return false
}

// ---- u_leading_one ----

func (k *constructed) genLeadingOne(emit emitFn) error {
	h := k.h
	us := []uint64{0}
	for p := 0; p < h.cfg.Formats.U.W; p++ {
		us = append(us, uint64(1)<<uint(p))
		if p > 0 {
			us = append(us, uint64(1)<<uint(p+1)-1)
		}
	}
	for _, u := range us {
		st, in := h.idleBase(0)
		st.U, st.Wc, st.IncStage = u&h.uMax, h.wMin, uint8(h.cfg.MaxStage)
		if !h.wMinOK {
			st.Wc = h.wInit
		}
		ru := k.w.recip.Recip(st.U)
		if wc, ok := k.midWc(st.U, ru); ok {
			st.Wc = wc
			if err := k.checkWindow(st, in, ru); err != nil {
				return err
			}
		}
		if err := emit(st, in); err != nil {
			return err
		}
	}
	return nil
}

// midWc returns the smallest Wc whose multiplicative step with new U = u
// (1/U = ru) puts W at least halfway between the clamps.
func (k *constructed) midWc(u, ru uint64) (uint64, bool) {
	w := k.w
	if w.dynamicWAI || !k.h.wMinOK {
		return 0, false
	}
	all := uint64(1)<<uint(k.h.cfg.Formats.W.W) - 1
	mid := w.wMin + (w.wMax-w.wMin)/2
	wc := bisect(1, all, func(wc uint64) bool { return w.w(wc, ru, u >= w.etaU) >= mid })
	return wc, wc <= all
}

func (k *constructed) detectLeadingOne(o *hobs) bool {
	u := o.next.U
	return o.out.MI && o.nh == 0 && (u == 0 || u&(u-1) == 0 || u&(u+1) == 0)
}

// ---- wc_out_of_range ----

func (k *constructed) wcOutOfRange() []uint64 {
	h := k.h
	all := fieldtable.Mask(h.cfg.Formats.W.W)
	var ws []uint64
	if h.wMinOK && h.wMin > 1 {
		ws = append(ws, 1, h.wMin-1)
	}
	if h.wMax < all {
		ws = append(ws, h.wMax+1, all)
		if k.w.wai < all-h.wMax {
			ws = append(ws, all-k.w.wai)
		}
	}
	return ws
}

func (k *constructed) genWcOutOfRange(emit emitFn) error {
	h := k.h
	ms := uint8(h.cfg.MaxStage)
	for _, wc := range k.wcOutOfRange() {
		st, in := h.base(h.maxHops) // additive step (U below eta, incStage 0)
		st.Wc = wc
		if err := emit(st, in); err != nil {
			return err
		}
		for _, u := range []uint64{0, 1, h.uOne} {
			st, in := h.idleBase(0)
			st.Wc, st.U, st.IncStage = wc, u, ms
			if err := emit(st, in); err != nil {
				return err
			}
		}
	}
	return nil
}

func (k *constructed) detectWcOutOfRange(o *hobs) bool {
	wc := o.st.Wc
	return k.h.wMinOK && wc < k.h.wMin && wc > 0 || wc > k.h.wMax
}
