package hpcc

import (
	"math/big"
	"math/bits"

	"github.com/hpccgold/hpccgold/telemetry"
)

// Pruning the max select (lines 6-7): only the hops that can win the max
// need their exact u'.
//
// The event's outputs depend on the hops' u' only through the max select:
// the selected hop's index, its u' and its dts (the EWMA's tau). The
// selected hop is the first valid slot, in slot order, whose u' equals
// M = max_i u'_i (a later slot replaces the current one only if strictly
// greater). So step computes, for every valid hop, a cheap upper bound
// hi_i >= u'_i (hopBound.upper), the exact u' of the hop b with the largest
// bound (the first such), and then the exact u' of every other valid hop j
// in slot order unless hi_j < A, where A is the largest exact u' computed so
// far.
//
// Invariant: A <= M throughout (A is some hop's exact u'), so a skipped hop
// j has u'_j <= hi_j < A <= M: it is not a maximum, and neither the value M
// nor the first index attaining it depends on u'_j. Every hop attaining M
// is computed exactly (hi_j >= u'_j = M >= A), and the select keeps, among
// the computed hops, the largest u' and among equal ones the smallest slot
// index: the same (index, u', dts) as the full select over every valid hop.
// The hop b is computed first whatever its u' (even 0), so an event with at
// least one valid hop selects one, as the full select does. Nothing else of
// the event reads a hop's u', so the next state and the outputs are those
// of the full computation bit for bit (TestPrunedMatchesFull on the
// level-1 set and 10^6 random events, TestUpdateDigest).
//
// The bound. For a valid hop (dts >= 1, dB, q, code) the exact datapath
// (without MultiQ: its above-wB cases take other formulas, so a MultiQ
// datapath computes every hop) is
//
//	rd = Recip(dts)                      1/dts unit, Out = RecipDts (Rnd, Sat)
//	x  = MulCast(dB, rd, TxRate, Rnd, Sat)          shift s1 = F(dB)+F(rd)-F(TxRate)
//	rT = MulCast(x, kr[code], Term, Rnd, Sat)       shift s2 = F(TxRate)+F(kr)-F(Term)
//	qT = MulCast(q, kq[code], Term, Rnd, Sat)
//	u' = AddCast(qT, rT, U, Rnd, Sat)
//
// with every value a raw integer. (1) A raw multiply-cast with a
// round-half-up or truncating bias and saturation gives at most v*2^-s + 1/2
// for the exact product v and shift s (for s >= 1, floor((v + 2^(s-1))/2^s);
// for s <= 0, v*2^-s exactly; saturation only lowers it), and every cast
// and the adder are monotone non-decreasing in their operands. So
//
//	rT <= dB*kr*rd*2^-S + kr*2^-(s2+1) + 1/2,   S = s1 + s2.
//
// (2) The 1/dts unit: with p the leading-one position of dts and m =
// dts*2^-p in [1,2), each Newton-Raphson step of the unit (e = MulCast(m, y,
// Work, Trn, Sat), t = 2 - e or 0 when e >= 2, y' = MulCast(y, t, Work,
// Trn, Sat)) gives y' <= 1/m + Ymax*2^-F(Work), where Ymax = 2^max(I(Entry),
// I(Work)) exceeds every y the unit holds: either e >= 2 (this includes a
// saturated e, since I(Work) >= 2) and y' = 0, or e >= m*y - 2^-F(Work) and
// y' <= y*t <= y*(2 - m*y) + y*2^-F(Work), and y*(2 - m*y) <= 1/m because
// 1/m - y*(2 - m*y) = m*(1/m - y)^2 >= 0. The output cast (Rnd, Sat) reads
// y * 2^(F(In) - p) and adds at most half an LSB, so
//
//	rd <= Y * 2^(E - p) + 1/2,   Y = 1/m + Ymax*2^-F(Work),  E = F(RecipDts) + F(In).
//
// The kG bits of m after its leading one form idx, so m >= 1 + idx*2^-kG and
// Y <= 2^kG/(2^kG + idx) + Ymax*2^-F(Work) <= g[idx] * 2^-Z (g is that
// bound rounded up, Z chosen so that E - S - Z = -64 - extra). With t =
// dB*kr (at most 64 bits: checked) and (hi, lo) = t*g[idx],
//
//	dB*kr*Y*2^(E-p-S) <= (hi*2^64 + lo) * 2^-(64+p+extra) < (hi>>(p+extra)) + 1,
//
// and the rest, dB*kr*2^-(S+1) + kr*2^-(s2+1) + 1/2 + 1, is at most c[code]
// (dB at its maximum; rounded up). So rT <= min(hi>>(p+extra) + c[code],
// MAX(Term)) =: rT+, and by monotonicity u' <= AddCast(qT, rT+) = hi_i,
// with qT computed exactly (one narrow multiply-cast). When Term and U
// have the same fraction bits the adder has no rounding, u' = min(qT + rT,
// MAX(U)), and hi_i = qT + rT+ (the sum of two terms below 2^62, no
// cast) bounds it as well. TestHopBoundContains
// checks hi_i >= u'_i and the reciprocal step rd <= Y*2^(E-p) + 1/2 on
// random and edge operands of several configurations.
//
// hopBound holds the constants of the bound; on is false for a
// configuration it does not cover (MultiQ, a 1/dts unit without
// Newton-Raphson steps, t wider than 64 bits, Z beyond [24, 62]), which
// then computes every hop.
type hopBound struct {
	on     bool
	mShift uint        // In.W - 1: the mantissa's leading one moves to this bit
	iShift uint        // In.W - 1 - kG: the index is the kG bits below the leading one
	gMask  uint64      // 2^kG - 1
	extra  uint        // right shift of the product's high word beyond p
	z      int         // g's scale: g[idx] is the bound times 2^z
	g      [256]uint64 // g[idx] >= 2^Z * (2^kG/(2^kG+idx) + Ymax*2^-F(Work))
	c      [16]uint64  // per speed code: the additive slack (see above)
	maxT   uint64      // MAX(Term)
	// sumIsU: F(Term) = F(U), so the u' adder only saturates (u' =
	// min(qT + rT, MAX(U))) and qT + rT+ itself bounds u' (both terms
	// are below 2^63, so the sum does not wrap).
	sumIsU bool
	// ifa: the configuration takes selectPrunedIFA, the specialized form
	// of selectPruned: IFA without Sojourn, sumIsU, a narrow q_term multiplier (q and kq
	// below 2^63 together) and an 8-bit g index (kG = 8), so that its
	// per-hop loop has no configuration branches and its index extraction
	// constant shifts (rTermUpper8).
	ifa bool
	// codeOK[code] is 1 when the speed code's tables are defined
	// (Datapath.speedOK), for selectPrunedIFA's branch-free validity.
	codeOK [16]uint8
}

// buildHopBound fills d.fast.hb for a datapath compiled to raw plans
// (compileRaw's plans and constants exist).
func (d *Datapath) buildHopBound() {
	p := &d.fast
	hb := hopBound{}
	rc := d.recipDts.Config()
	krF := d.tables[1].Format
	if d.mq.on || rc.NRSteps < 1 || d.fDB.W+krF.W > 64 {
		return
	}
	s1 := d.fDB.F() + d.fRD.F() - d.fTx.F()
	s2 := d.fTx.F() + krF.F() - d.fTerm.F()
	S := s1 + s2
	E := d.fRD.F() + rc.In.F()
	z := 64 + E - S
	extra := 0
	if z < 24 { // too few bits in g: shift the high word further instead
		extra, z = 24-z, 24
	}
	if z > 62 || rc.In.W-1+extra > 63 {
		return
	}
	kG := min(8, rc.In.W-1)
	hb.mShift = uint(rc.In.W - 1)
	hb.iShift = uint(rc.In.W - 1 - kG)
	hb.gMask = 1<<uint(kG) - 1
	hb.extra, hb.z = uint(extra), z
	// Ymax*2^-F(Work) = 2^(max(I(Entry), I(Work)) - F(Work)).
	slack := pow2Rat(max(rc.Entry.I, rc.Work.I) - rc.Work.F())
	for i := 0; i <= int(hb.gMask); i++ {
		y := big.NewRat(1<<uint(kG), int64(1<<uint(kG)+i))
		y.Add(y, slack)
		y.Mul(y, pow2Rat(z))
		g := ceilRat(y)
		if !g.IsUint64() || g.Uint64() >= 1<<63 {
			return
		}
		hb.g[i] = g.Uint64()
	}
	maxDB := new(big.Rat).SetInt(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(d.fDB.W)), big.NewInt(1)))
	for code := 0; code < 16; code++ {
		kr := new(big.Rat).SetInt(new(big.Int).SetUint64(p.kr[code]))
		v := new(big.Rat).Mul(maxDB, kr)
		v.Mul(v, pow2Rat(-(S + 1)))
		v.Add(v, new(big.Rat).Mul(kr, pow2Rat(-(s2+1))))
		v.Add(v, big.NewRat(3, 2))
		c := ceilRat(v)
		if !c.IsUint64() || c.Uint64() >= 1<<62 {
			return
		}
		hb.c[code] = c.Uint64()
	}
	hb.maxT = maxRaw(d.fTerm)
	hb.sumIsU = d.fTerm.F() == d.fU.F() && d.fTerm.W <= 62
	hb.on = true
	for c, ok := range d.speedOK {
		if ok {
			hb.codeOK[c] = 1
		}
	}
	hb.ifa = d.enc == telemetry.IFA && !d.sojourn && hb.sumIsU && p.cQ.Narrow() && kG == 8
	p.hb = hb
}

// ceilRat returns the smallest integer >= r (r >= 0).
func ceilRat(r *big.Rat) *big.Int {
	q, m := new(big.Int).QuoRem(r.Num(), r.Denom(), new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// rTermUpper returns rT+ >= the exact r_term = MulCast(MulCast(dB,
// Recip(dts), TxRate), kr, Term) of a valid hop (dts >= 1), kr =
// kr[code] raw, c = c[code]: see hopBound. Small enough to inline.
func (hb *hopBound) rTermUpper(dts, dB, kr, c uint64) uint64 {
	pos := uint(bits.Len64(dts) - 1)
	idx := dts << ((hb.mShift - pos) & 63) >> (hb.iShift & 63) & hb.gMask
	g, _ := bits.Mul64(dB*kr, hb.g[idx&255])
	return min(g>>((pos+hb.extra)&63)+c, hb.maxT)
}

// rTermUpper8 is rTermUpper for kG = 8 (hb.gMask = 255): the mantissa
// normalized to bit 63 (dts << (63 - p)) has the index in its bits 55..62,
// which are the same 8 bits after the leading one that rTermUpper extracts
// (TestRTermUpper8), with constant shifts. Small enough to inline.
func (hb *hopBound) rTermUpper8(dts, dB, kr, c uint64) uint64 {
	lz := uint(bits.LeadingZeros64(dts))
	idx := dts << (lz & 63) >> 55 & 255
	g, _ := bits.Mul64(dB*kr, hb.g[idx])
	return min(g>>((63-lz+hb.extra)&63)+c, hb.maxT)
}

// upper returns hi >= the exact u' of a valid hop (dts in [1,
// MaxDeltaTsNs], the wrapped txBytes difference dB, the queue sample q,
// the speed code): u' with r_term replaced by rTermUpper, as step's
// pruned loop computes it.
func (p *fastPlan) upper(dts, dB, q uint64, code uint8) uint64 {
	code &= 15
	rT := p.hb.rTermUpper(dts, dB, p.kr[code], p.hb.c[code])
	var qT uint64
	if p.cQ.Narrow() {
		qT = p.cQ.MulCastNarrow(q, p.kq[code])
	} else {
		qT = p.cQ.MulCast(q, p.kq[code])
	}
	if p.hb.sumIsU {
		return qT + rT
	}
	return p.cUp.AddCast(qT, rT)
}

// hopU returns the exact u' of a valid hop without MultiQ: the 1/dts
// unit, txRate, the two terms and the u' adder, as the full loop of step
// computes them (the same raw plans).
func (p *fastPlan) hopU(dts, dB, q uint64, code uint8) uint64 {
	rd := &p.rDts
	m, y, pos := rd.Seed(dts)
	var rDts uint64
	if rd.Narrow() {
		for j := 0; j < rd.NRSteps(); j++ {
			e := rd.MulE(j).MulCastNarrow(m, y)
			y = rd.MulY(j).MulCastNarrow(y, rd.TwoMinus(e))
		}
		rDts = rd.Scale(pos).Cast63(y)
	} else {
		for j := 0; j < rd.NRSteps(); j++ {
			e := rd.MulE(j).MulCast(m, y)
			y = rd.MulY(j).MulCast(y, rd.TwoMinus(e))
		}
		rDts = rd.Scale(pos).Cast(y)
	}
	code &= 15
	x := p.cTx.MulCast(dB, rDts)
	var qTerm uint64
	if p.cQ.Narrow() {
		qTerm = p.cQ.MulCastNarrow(q, p.kq[code])
	} else {
		qTerm = p.cQ.MulCast(q, p.kq[code])
	}
	return p.cUp.AddCast(qTerm, p.cR.MulCast(x, p.kr[code]))
}

// selectPruned is lines 2-7 of step where the hop bound applies (no
// MultiQ, raw plans; hb.on). One pass over the path's slots records each
// slot's telemetry into st.Hops (slots from the path's length on are
// cleared), decides its validity and, on a path of two or more hops,
// computes a valid slot's upper bound hi >= u' (upper, written out so that
// it inlines); then it computes the exact u' of the first hop with the
// largest bound (of the only valid hop on a 1-hop path), and of every
// other valid hop in slot order whose bound reaches the largest exact u'
// so far (the invariant is in the comment of hopBound). It returns what
// selectFull returns, bit for bit (TestPrunedMatchesFull).
func (d *Datapath) selectPruned(st *State, in *Input, nh uint64) (uAcc, dtsSel uint64, sel, valid uint8) {
	p := &d.fast
	hb := &p.hb
	stNH := uint64(st.NHops) & d.nhMask
	m := int(min(nh, uint64(d.maxHops)))
	var dtsOf, dBOf, qOf, hiOf [MaxHopsLimit]uint64
	var codeOf [MaxHopsLimit]uint8
	best, bestHi1 := 0, uint64(0) // bestHi1: the largest bound + 1, 0 before the first valid hop (bounds are below 2^63)
	if nh != stNH || nh > uint64(d.maxHops) {
		// The path changed: every slot re-baselines, none is valid.
		for i := 0; i < m; i++ {
			ts, id := d.recordTsID(&in.Hops[i])
			st.Hops[i] = HopState{Ts: ts, TxBytes: in.Hops[i].TxBytes & d.txMask, Qlen: d.queueSample(&in.Hops[i]), ID: id}
		}
	} else {
		compact := d.enc == telemetry.Compact
		bound := m > 1 // one hop is selected whatever its bound
		idMask, maxDts := d.idMask, d.cfg.MaxDeltaTsNs
		qNarrow := p.cQ.Narrow()
		for i := 0; i < m; i++ {
			h := &in.Hops[i]
			hs := &st.Hops[i]
			prevTs, prevTx, prevQ, prevID := hs.Ts, hs.TxBytes, hs.Qlen, hs.ID
			var ts, id, dts uint64
			if compact {
				ts = uint64(h.Ts) & (1<<telemetry.CompactTsBits - 1)
				dts = (ts - prevTs) & (1<<telemetry.CompactTsBits - 1)
			} else {
				ts, id = ifaEgress(h, idMask)
				dts = ifaDeltaTs(ts, prevTs)
			}
			txb, ql := h.TxBytes&d.txMask, d.queueSample(h)
			hs.Ts, hs.TxBytes, hs.Qlen, hs.ID = ts, txb, ql, id // line 27: L = ack.L
			code := h.SpeedCode & d.codeMask & 15
			if !d.speedOK[code] || id != prevID&idMask || dts-1 >= maxDts {
				continue
			}
			valid |= 1 << uint(i)
			dB := (uint64(txb) - uint64(prevTx)) & uint64(d.txMask)
			q := uint64(min(ql, prevQ&d.qMask))
			dtsOf[i], dBOf[i], qOf[i], codeOf[i] = dts, dB, q, code
			if !bound {
				best = i
				continue
			}
			rT := hb.rTermUpper(dts, dB, p.kr[code], hb.c[code])
			var qT uint64
			if qNarrow {
				qT = p.cQ.MulCastNarrow(q, p.kq[code])
			} else {
				qT = p.cQ.MulCast(q, p.kq[code])
			}
			hi := qT + rT // >= u' when Term and U have the same LSB (sumIsU)
			if !hb.sumIsU {
				hi = p.cUp.AddCast(qT, rT)
			}
			hiOf[i] = hi
			if hi >= bestHi1 {
				best, bestHi1 = i, hi+1
			}
		}
	}
	for i := m; i < MaxHopsLimit; i++ {
		st.Hops[i] = HopState{}
	}
	sel = NoHop
	if valid == 0 {
		return 0, 0, sel, valid
	}
	b := best & (MaxHopsLimit - 1)
	uAcc, dtsSel, sel = p.hopU(dtsOf[b], dBOf[b], qOf[b], codeOf[b]), dtsOf[b], uint8(b)
	for v := valid &^ (1 << uint(b)); v != 0; v &= v - 1 {
		i := bits.TrailingZeros8(v)
		if hiOf[i] < uAcc {
			continue // u' <= hi < uAcc <= the max: not selected
		}
		if up := p.hopU(dtsOf[i], dBOf[i], qOf[i], codeOf[i]); up > uAcc || up == uAcc && uint8(i) < sel {
			uAcc, dtsSel, sel = up, dtsOf[i], uint8(i)
		}
	}
	return uAcc, dtsSel, sel, valid
}

// selectPrunedIFA is selectPruned for a configuration with hb.ifa set,
// the same operations without the configuration branches of its per-hop
// loop (IFA records, a narrow q_term, no u' adder cast in the bound,
// rTermUpper8), and with the exact u' of the selected-first hop written
// out (hopU) so that it does not go through a call. Its results are
// selectPruned's bit for bit (TestPrunedMatchesFull on the default
// configuration, TestUpdateDigest).
func (d *Datapath) selectPrunedIFA(st *State, in *Input, nh uint64) (uAcc, dtsSel uint64, sel, valid uint8) {
	p := &d.fast
	hb := &p.hb
	stNH := uint64(st.NHops) & d.nhMask
	if nh != stNH || nh > uint64(d.maxHops) {
		return d.selectPruned(st, in, nh) // the path changed: every slot re-baselines
	}
	m := int(nh)
	var dtsOf, dBOf, qOf, hiOf [MaxHopsLimit]uint64
	var codeOf [MaxHopsLimit]uint8
	// Two passes, each with few live values: the records and validity,
	// then the bounds of the valid hops.
	idMask, maxDts := d.idMask, d.cfg.MaxDeltaTsNs
	for i := 0; i < m; i++ {
		// Each stored field is read just before the recorded one
		// replaces it (line 27: L = ack.L), so that few values are live
		// at once (*in and *st do not overlap).
		h := &in.Hops[i]
		hs := &st.Hops[i]
		// ifaEgress and ifaDeltaTs(ts, prev), with the egress time's
		// seconds and ns at hand rather than read back out of ts
		// (sec < 2^20 and ns < 10^9 < 2^30, so they are ts's fields)
		// and the borrow's 10^9 as a mask.
		t := uint64(h.RxNs) + uint64(h.ResidenceNs)
		carry := (t >> 9) * nsDivMagic >> 60
		sec := (uint64(h.RxSec) + carry) & (1<<telemetry.IFARxSecBits - 1)
		ns := t - carry*telemetry.NsPerSecond
		prev := hs.Ts
		hs.Ts = sec<<telemetry.IFAEgressNsBits | ns
		pn := prev & (1<<telemetry.IFAEgressNsBits - 1)
		borrow := (ns - pn) >> 63
		dsec := (sec - prev>>telemetry.IFAEgressNsBits - borrow) & (1<<telemetry.IFARxSecBits - 1)
		dts := dsec*telemetry.NsPerSecond + (ns+(-borrow&telemetry.NsPerSecond)-pn)&(1<<31-1)
		id := (uint64(h.DeviceID&(1<<telemetry.IFADeviceIDBits-1))<<telemetry.IFAPortBits | uint64(h.EgressPort)) & idMask
		code := h.SpeedCode & d.codeMask & 15
		ok := uint8(p.hb.codeOK[code]) // validity without branches: random validity would mispredict
		if id != hs.ID&idMask {
			ok = 0
		}
		hs.ID = id
		_, inRange := bits.Sub64(dts-1, maxDts, 0) // 0 < dts <= MaxDeltaTsNs
		ok &= uint8(inRange)
		valid |= ok << uint(i)
		txb := h.TxBytes & d.txMask
		dBOf[i] = (uint64(txb) - uint64(hs.TxBytes)) & uint64(d.txMask)
		hs.TxBytes = txb
		ql := h.Qlen & d.qMask // queueSample without Sojourn
		qOf[i] = uint64(min(ql, hs.Qlen&d.qMask))
		hs.Qlen = ql
		dtsOf[i], codeOf[i] = dts, code // read only for the valid slots
	}
	for i := m; i < MaxHopsLimit; i++ {
		st.Hops[i] = HopState{}
	}
	best := bits.TrailingZeros8(valid) // one valid hop is selected whatever its bound
	if valid&(valid-1) != 0 {
		bestHi1 := uint64(0) // the largest bound + 1, 0 before the first valid hop (bounds are below 2^63)
		for v := valid; v != 0; v &= v - 1 {
			i := bits.TrailingZeros8(v)
			code := codeOf[i] & 15
			hi := p.cQ.MulCastNarrow(qOf[i], p.kq[code]) + hb.rTermUpper8(dtsOf[i], dBOf[i], p.kr[code], hb.c[code])
			hiOf[i] = hi
			if hi >= bestHi1 {
				best, bestHi1 = i, hi+1
			}
		}
	}
	sel = NoHop
	if valid == 0 {
		return 0, 0, sel, valid
	}
	// hopU(dtsOf[b], dBOf[b], qOf[b], codeOf[b]), written out.
	b := best & (MaxHopsLimit - 1)
	dts, code := dtsOf[b], codeOf[b]&15
	rd := &p.rDts
	mm, y, pos := rd.Seed(dts)
	var rDts uint64
	if rd.Narrow() {
		for j := 0; j < rd.NRSteps(); j++ {
			e := rd.MulE(j).MulCastNarrow(mm, y)
			y = rd.MulY(j).MulCastNarrow(y, rd.TwoMinus(e))
		}
		rDts = rd.Scale(pos).Cast63(y)
	} else {
		for j := 0; j < rd.NRSteps(); j++ {
			e := rd.MulE(j).MulCast(mm, y)
			y = rd.MulY(j).MulCast(y, rd.TwoMinus(e))
		}
		rDts = rd.Scale(pos).Cast(y)
	}
	x := p.cTx.MulCast(dBOf[b], rDts)
	uAcc = p.cUp.AddCast(p.cQ.MulCastNarrow(qOf[b], p.kq[code]), p.cR.MulCast(x, p.kr[code]))
	dtsSel, sel = dts, uint8(b)
	for v := valid &^ (1 << uint(b)); v != 0; v &= v - 1 {
		i := bits.TrailingZeros8(v)
		if hiOf[i] < uAcc {
			continue // u' <= hi < uAcc <= the max: not selected
		}
		if up := p.hopU(dtsOf[i], dBOf[i], qOf[i], codeOf[i]); up > uAcc || up == uAcc && uint8(i) < sel {
			uAcc, dtsSel, sel = up, dtsOf[i], uint8(i)
		}
	}
	return uAcc, dtsSel, sel, valid
}
