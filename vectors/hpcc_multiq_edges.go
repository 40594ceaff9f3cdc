package vectors

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// The constructed MultiQ classes (issue 14): the hpcc_directed.go method
// carried to the MultiQ hop term (docs/datapath.md section 5a). Each is
// solved backward from the datapath's formats, ROMs and recip_mq unit
// (mqArith, hpcc_multiq.go), on one loaded hop slot over idle ones with
// delta ts >= T, so that the slot's u' is the maximum and reaches U with
// weight 1 (tau = T): a one-LSB or off-by-one error of the hardware at the
// constructed point shows in ns_u.
//
//   - mq_compare_edges: every hop slot and valid speed code, tx_rate ==
//     mq_wb - 1, mq_wb, mq_wb + 1 (exactly, dts and dTx solved) without and
//     with a backlog, and above wB q_min == mq_backlog - 1, mq_backlog,
//     mq_backlog + 1: both compares and both ROMs (mq_wb, and mq_bh through
//     case 3) at their exact boundaries, each case's u' different from the
//     neighbouring case's there.
//   - mq_recip_seed_edges: every entry of the recip_mq table, on every hop
//     slot, read by a case-2 operand y = 2*tx_rate whose reciprocal changes
//     when the entry is one LSB higher or lower, with mq_rho = Rnd(mq_wb *
//     recip_mq) changing by one LSB with it and q_min solved so that
//     q_term_bl = Rnd(q_term * mq_rho), hence u' = q_term_bl + 1, changes
//     too (case 3's u' = Rnd(tx_rate * recip_mq) drops 60 bits: a one-LSB
//     change of recip_mq reaches it only at about 2^-23 of the operands,
//     which no search over an entry's operands finds).
//   - mq_y_leading_one: mq_y at every leading-one position it can take
//     (2^p and 2^(p+1)-1, or -2 where only the backlog mux's even y = 2x
//     reaches it), on every hop slot: the recip_mq normalizer at every
//     shift. Positions below wB's (y = 2x or x + mq_bh with tx_rate <= wB)
//     are case 1, where recip_mq is computed but its output muxed away: they
//     hit the normalizer's coverage bins and can show nothing.
//   - mq_backlog_u_sat: case 2's u_bl = q_term_bl + 1 exactly at UMax and
//     one above before saturation, on every hop slot.
//
// Each detector recomputes its condition from the observed transaction.

// mqCx holds the constructed MultiQ class indices (-1: not produced in
// this configuration).
type mqCx struct {
	cmp, seed, lead, sat int
	top                  int   // mq_y_top_binade (hpcc_multiq_top.go)
	seedCode             uint8 // speed code of mq_recip_seed_edges (largest mq_wb)
}

// addMultiQConstructed registers the constructed MultiQ classes (with the
// constructed classes' restatement only).
func (h *HPCC) addMultiQConstructed() {
	k := h.cx
	if k == nil || k.a == nil || k.a.mq == nil {
		return
	}
	m := k.a.mq
	x := &mqCx{}
	h.mqcx = x
	for _, c := range h.okCodes {
		if m.wb[c] > m.wb[x.seedCode] || !h.speedOK[x.seedCode] {
			x.seedCode = c
		}
	}
	// A class is registered only where its generator produces (a format or
	// threshold may leave a target unreachable: e.g. no q_min lands u_bl
	// exactly on UMax when q_term's steps are coarse), as recip_u_last_bit.
	reg := func(name, doc string, gen func(emitFn) error) int {
		if !k.producesAny(gen) {
			return -1
		}
		return h.add(name, doc, 1, true, gen)
	}
	x.cmp = reg("mq_compare_edges", "for every hop slot and valid speed code, one loaded hop over idle ones with delta ts >= T: tx_rate == mq_wb - 1, mq_wb, mq_wb + 1 exactly (the within compare and the mq_wb ROM entry), each with q_min 0 and above the backlog, and above wB q_min == mq_backlog - 1, mq_backlog, mq_backlog + 1 (the backlog compare): both compares at their boundaries, each case's u' visible in U", k.genMQCompareEdges)
	x.seed = reg("mq_recip_seed_edges", "every entry of the recip_mq table on every hop slot, read by a case-2 operand (y = 2*tx_rate above wB) whose reciprocal changes when the entry is one LSB higher or lower, with mq_rho changing by one LSB with it and q_min solved so that q_term_bl and u' change too (one loaded hop, delta ts >= T)", k.genMQSeedEdges)
	x.lead = reg("mq_y_leading_one", "mq_y (the recip_mq input) at every leading-one position it can take, 2^p and 2^(p+1)-1 (y = tx_rate + mq_bh, no backlog) or 2^(p+1)-2 (y = 2*tx_rate, backlog), on every hop slot: the recip_mq normalizer at every shift, visible in u' above wB (cases 3 and 2); below wB (case 1) recip_mq's output is muxed away", k.genMQLeadingOne)
	x.sat = reg("mq_backlog_u_sat", "case 2's u_bl = q_term_bl + 1 exactly at UMax and one LSB above before saturation, on every hop slot (one loaded hop, delta ts >= T)", k.genMQUSat)
	x.top = reg("mq_y_top_binade", "mq_y in the lowest values of its top binade, where the recip_mq normalizer's first stage sees its upper half exactly 100...0 (y in [2^(W-1), 2^(W-1) + 2^(W-P/2)), W mq_y's width, P its padded width), in case 2 (y = 2*tx_rate, largest queue) and case 3 (y = tx_rate + mq_bh, no queue), on every hop slot: every normalizer stage's compare at its top pattern (one loaded hop, the smallest txRate found in the window)", k.genMQTopBinade)
}

// mqTx returns (dts, dTx) giving tx_rate exactly x, caching by x.
func (k *constructed) mqTx(cache map[uint64][2]uint64, x uint64) (dts, dTx uint64, ok bool) {
	if r, hit := cache[x]; hit {
		return r[0], r[1], r[0] != 0
	}
	dts, dTx, ok = k.solveTx(x, nil, k.h.baseCode)
	if !ok {
		dts = 0
	}
	cache[x] = [2]uint64{dts, dTx}
	return dts, dTx, ok
}

func (k *constructed) genMQCompareEdges(emit emitFn) error {
	h, m := k.h, k.a.mq
	cache := map[uint64][2]uint64{}
	qHi := min(m.backlog+1+h.qUnits(20_000), h.qMask)
	var qs []uint64 // backlog - 1, backlog, backlog + 1 (those that exist)
	for _, d := range []int64{-1, 0, 1} {
		if q := int64(m.backlog) + d; q >= 0 && uint64(q) <= h.qMask {
			qs = append(qs, uint64(q))
		}
	}
	return k.forHopsCodes(emit, func(code uint8, put func(dts, dTx, q uint64) error) error {
		wb := m.wb[code]
		for _, x := range []uint64{wb - 1, wb, wb + 1} {
			dts, dTx, ok := k.mqTx(cache, x)
			if !ok || dts < k.t {
				continue
			}
			for _, q := range []uint64{0, qHi} {
				if err := put(dts, dTx, q); err != nil {
					return err
				}
			}
		}
		// Above wB: a rate halfway between wB and B.
		x := wb + (m.bh[code]-wb)/2
		dts, dTx, ok := k.mqTx(cache, x)
		if !ok || dts < k.t {
			return nil
		}
		for _, q := range qs {
			if err := put(dts, dTx, q); err != nil {
				return err
			}
		}
		return nil
	})
}

func (k *constructed) detectMQCompareEdges(o *hobs) bool {
	m := k.a.mq
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] || int(o.out.SelHop) != i || o.dts[i] < k.t {
			continue
		}
		v := k.a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
		wb, q := m.wb[o.code[i]], o.minQ[i]
		if v.tx+1 >= wb && v.tx <= wb+1 || v.tx > wb && q+1 >= m.backlog && q <= m.backlog+1 {
			return true
		}
	}
	return false
}

// mqSeedAlt returns recip_mq of a case-2 hop (values v, speed code code)
// with the table entry its y reads delta off, and whether mq_rho changes
// with it.
func (k *constructed) mqSeedAlt(v hopVals, code uint8, delta int) (rq2 uint64, rhoChanges bool) {
	m := k.a.mq
	rq2, ok := recipSeed(&m.recip, m.recipEntryMax, v.mq.y, delta)
	if !ok || rq2 == v.mq.rq {
		return 0, false
	}
	return rq2, m.rho.sat(mul128(m.wb[code], rq2)) != v.mq.rho
}

// mqU2 returns case 2's u' for q_term qt and mq_rho rho.
func (m *mqArith) mqU2(qt, rho uint64) uint64 {
	return m.u2.sat(u128{0, m.q2.sat(mul128(qt, rho))}.add64(m.one))
}

// mqVisibleQ scans q_min downward from the largest whose u' stays below
// UMax for one (above the backlog) where case 2's u' differs between mq_rho
// values rho and rho2.
func (k *constructed) mqVisibleQ(code uint8, rho, rho2 uint64) (uint64, bool) {
	a, m := k.a, k.a.mq
	qt := func(q uint64) uint64 { return a.qt.sat(mul128(q, a.kq[code])) }
	top := bisect(m.backlog+1, a.qMask, func(q uint64) bool {
		return m.mqU2(qt(q), max(rho, rho2)) >= a.uc.max
	})
	for q, t := top-1, 0; q > m.backlog && t < searchTries; q, t = q-1, t+1 {
		if u := m.mqU2(qt(q), rho); u != m.mqU2(qt(q), rho2) && u < a.uc.max {
			return q, true
		}
	}
	return 0, false
}

func (k *constructed) genMQSeedEdges(emit emitFn) error {
	h, a, m := k.h, k.a, k.a.mq
	code := h.mqcx.seedCode
	kb := m.rc.TableBits
	wb := m.wb[code]
	// y = 2x in [2^p, 2^(p+1)) with every x of that binade above wB.
	p := bits.Len64(2*wb + 2)
	if p+1 >= m.rc.In.W || p-1 < kb || uint64(1)<<uint(p-1) > a.tx.max {
		return nil
	}
	dts := k.dtsFor(uint64(1) << uint(p))
	if dts < k.t {
		return nil
	}
	rd := a.recip.Recip(dts)
	q0 := m.backlog + 1
	if q0 > a.qMask {
		return nil // no backlog: case 2 unreachable
	}
	at := func(dx uint64) hopVals {
		v := hopVals{rd: rd}
		a.fromRd(&v, dx, q0, code)
		return v
	}
	for e := uint64(0); e < 1<<uint(kb); e++ {
		ylo := uint64(1)<<uint(p) | e<<uint(p-kb)
		yhi := ylo + uint64(1)<<uint(p-kb)
		d := bisect(0, a.txMask, func(dx uint64) bool { return at(dx).tx<<1 >= ylo })
		for t := 0; t < searchTries && d <= a.txMask; t, d = t+1, d+1 {
			v := at(d)
			if v.tx<<1 >= yhi {
				break
			}
			if v.mq.c != hpcc.MQBacklog {
				continue
			}
			found := false
			for _, delta := range []int{-1, 1} {
				rq2, ch := k.mqSeedAlt(v, code, delta)
				if !ch {
					continue
				}
				q, ok := k.mqVisibleQ(code, v.mq.rho, m.rho.sat(mul128(wb, rq2)))
				if !ok {
					continue
				}
				for i := 0; i < h.maxHops; i++ {
					if err := emit(k.loaded(i, code, dts, d, q)); err != nil {
						return err
					}
				}
				found = true
				break
			}
			if found {
				break
			}
		}
	}
	return nil
}

func (k *constructed) detectMQSeedEdges(o *hobs) bool {
	i := int(o.out.SelHop)
	if i >= k.h.maxHops || !o.valid[i] || o.dts[i] < k.t {
		return false
	}
	a := k.a
	v := a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
	if v.mq.c != hpcc.MQBacklog {
		return false
	}
	for _, delta := range []int{-1, 1} {
		rq2, ch := k.mqSeedAlt(v, o.code[i], delta)
		if ch && a.mq.mqU2(v.q, a.mq.rho.sat(mul128(a.mq.wb[o.code[i]], rq2))) != v.u {
			return true
		}
	}
	return false
}

// mqLeadTargets returns the tx_rate and q_min values putting mq_y at each
// leading-one position on speed code c: q_min 0 (y = x + mq_bh: case 3
// above wB) where x = y - mq_bh is within Formats.TxRate, else q_min above
// the backlog (y = 2x, even: case 2 above wB). Targets no (dts, dTx) gives
// are skipped by the generator.
func (k *constructed) mqLeadTargets(c uint8) (xs, qs []uint64) {
	a, m := k.a, k.a.mq
	bh := m.bh[c]
	bl := m.backlog + 1
	for p := 1; p < m.rc.In.W; p++ {
		for _, y := range []uint64{uint64(1) << uint(p), uint64(1)<<uint(p+1) - 1} {
			if y >= bh && y-bh <= a.tx.max {
				xs, qs = append(xs, y-bh), append(qs, 0)
				continue
			}
			if bl <= a.qMask {
				y &^= 1
				if x := y >> 1; x <= a.tx.max && y >= uint64(1)<<uint(p) {
					xs, qs = append(xs, x), append(qs, bl)
				}
			}
		}
	}
	return xs, qs
}

func (k *constructed) genMQLeadingOne(emit emitFn) error {
	h := k.h
	code := h.baseCode
	xs, qs := k.mqLeadTargets(code)
	// The smallest non-zero tx_rate: one txBytes unit over MaxDeltaTsNs
	// (1/dts falls as dts grows); below it only 0 exists.
	minTx := k.a.tx.sat(mul128(1, k.a.recip.Recip(k.a.dtsMax)))
	for j, x := range xs {
		if x != 0 && x < minTx {
			continue
		}
		dts, dTx, ok := k.solveTx(x, nil, code)
		if !ok {
			continue
		}
		for i := 0; i < h.maxHops; i++ {
			if err := emit(k.loaded(i, code, dts, dTx, qs[j])); err != nil {
				return err
			}
		}
	}
	return nil
}

func (k *constructed) detectMQLeadingOne(o *hobs) bool {
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] {
			continue
		}
		v := k.a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
		y := v.mq.y
		if y != 0 && (y&(y-1) == 0 || y&(y+1) == 0 || y&(y+2) == 0 && y&1 == 0) {
			return true
		}
	}
	return false
}

func (k *constructed) genMQUSat(emit emitFn) error {
	h, a, m := k.h, k.a, k.a.mq
	code := h.slowCode // the largest kq: q_term reaches furthest
	if m.backlog+1 > a.qMask {
		return nil
	}
	// One delta ts whose dTx range covers tx_rate from wB to B. u' falls
	// as tx_rate rises (mq_rho = wB/txRate), by a few tens of LSBs per dTx
	// step, and rises with q_min by thousands per unit: for each q_min
	// whose u' crosses the target inside that range, a bisection over dTx
	// finds the crossing, and the q_min are scanned (their offsets on the
	// dTx grid differ) until one lands on it exactly.
	dts := k.dtsFor(m.bh[code])
	if dts < k.t {
		return nil
	}
	rd := a.recip.Recip(dts)
	txAt := func(dx uint64) uint64 { v := hopVals{rd: rd}; a.fromRd(&v, dx, 0, code); return v.tx }
	dLo := bisect(0, a.txMask, func(dx uint64) bool { return txAt(dx) > m.wb[code] })
	dHi := bisect(0, a.txMask, func(dx uint64) bool { return txAt(dx) >= m.bh[code] })
	if dLo > a.txMask || dHi > a.txMask || dHi <= dLo {
		return nil
	}
	dMid := dLo + (dHi-dLo)/2
	for _, off := range []uint64{0, 1} {
		tgt := u128{0, a.uc.max}.add64(off)
		pre := func(dx, q uint64) (hopVals, int) {
			v := hopVals{rd: rd}
			a.fromRd(&v, dx, q, code)
			return v, m.u2.pre(v.mq.pU).cmp(tgt)
		}
		q0 := bisect(m.backlog+1, a.qMask, func(q uint64) bool { _, c := pre(dMid, q); return c >= 0 })
		for q := q0; q <= a.qMask && q < q0+searchTries/4; q++ {
			// The first dTx at or below the target, then its neighbours.
			d := bisect(dLo, dHi, func(dx uint64) bool { _, c := pre(dx, q); return c <= 0 })
			found := false
			for dx := d; dx <= dHi && dx < d+2; dx++ {
				if v, c := pre(dx, q); c == 0 && v.mq.c == hpcc.MQBacklog {
					for i := 0; i < h.maxHops; i++ {
						if err := emit(k.loaded(i, code, dts, dx, q)); err != nil {
							return err
						}
					}
					found = true
					break
				}
			}
			if found {
				break
			}
		}
	}
	return nil
}

func (k *constructed) detectMQUSat(o *hobs) bool {
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] {
			continue
		}
		v := k.a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
		if v.mq.c == hpcc.MQBacklog && (k.a.mq.u2.at(v.mq.pU, 0) || k.a.mq.u2.at(v.mq.pU, 1)) {
			return true
		}
	}
	return false
}

// detectMultiQConstructed marks the constructed MultiQ classes.
func (h *HPCC) detectMultiQConstructed(o *hobs, hits *Hits) {
	x := h.mqcx
	if x == nil || o.first {
		return
	}
	k := h.cx
	for _, c := range []struct {
		idx int
		f   func(*hobs) bool
	}{{x.cmp, k.detectMQCompareEdges}, {x.seed, k.detectMQSeedEdges}, {x.lead, k.detectMQLeadingOne}, {x.sat, k.detectMQUSat}, {x.top, k.detectMQTopBinade}} {
		if c.idx >= 0 && c.f(o) {
			hits.Hit(c.idx)
		}
	}
}

// mqDtsSeedOperand is recip_seed_edges' operand for a 1/dts entry in a
// MultiQ configuration: there case 1's u' stays near 1 (tx_rate <= wB) and
// case 3's drops 60 bits of tx_rate * recip_mq, so a one-LSB change of
// 1/dts shows only in case 2, u' = q_term * wB/tx_rate + 1, whose
// sensitivity to tx_rate grows with q_term: the largest dTx (tx_rate moves
// by dTx LSBs of 1/dts, far above wB) and q_min solved for u' at a quarter
// of its range. Without a reachable backlog it returns (dTx, 0).
func (k *constructed) mqDtsSeedOperand(dts uint64, code uint8, dTx uint64) (uint64, uint64) {
	a, m := k.a, k.a.mq
	if m.backlog+1 > a.qMask {
		return dTx, 0
	}
	dx := a.txMask
	if v := a.eval(dts, dx, m.backlog+1, code); v.mq.c != hpcc.MQBacklog {
		return dTx, 0
	}
	q := bisect(m.backlog+1, a.qMask, func(q uint64) bool { return a.eval(dts, dx, q, code).u >= a.uc.max/4 })
	return dx, min(q, a.qMask)
}
