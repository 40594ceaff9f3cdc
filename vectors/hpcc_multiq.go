package vectors

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// The MultiQ classes of the HPCC++ vector model (issue 17): with
// hpcc.Config.MultiQ enabled, the per-hop u' takes one of the slides' three
// cases (hpcc.MQCase; docs/datapath.md section 5a) and these classes drive
// each case, each case per speed code (each entry of the kq, kr, mq_wb and
// mq_bh ROMs), and the boundaries of both compares: tx_rate == mq_wb
// (within: the slides' <=), tx_rate one LSB above it, q_min == mq_backlog
// (no backlog: the slides' >), one unit above it, tx_rate == B (case 3 at
// u' = 1), above line rate, and the largest queue in case 2. Every class is
// detected from the datapath's own registers (hpcc.Datapath.MultiQHop).

// hpccMQ holds the MultiQ class indices (-1: not in this configuration)
// and the constants the generators aim at.
type hpccMQ struct {
	within, atWB, wbNextBl, wbNextNoBl, qAtThr, qThrNext int
	lineRate, aboveLine, qMax, mixed                     int
	perCode                                              [3][]int // [case-1][code]: class index or -1
	backlog                                              uint64   // mq_backlog, qlen units
	bh                                                   []uint64 // mq_bh ROM, raw Formats.TxRate
	wb                                                   []uint64 // mq_wb ROM
}

// mqCaseNames names the cases in class names.
var mqCaseNames = [3]string{"within", "backlog", "no_backlog"}

// buildMultiQClasses registers the MultiQ classes (only with MultiQ).
func (h *HPCC) buildMultiQClasses() error {
	mq := &hpccMQ{within: -1, atWB: -1, wbNextBl: -1, wbNextNoBl: -1, qAtThr: -1, qThrNext: -1, lineRate: -1, aboveLine: -1, qMax: -1, mixed: -1}
	h.mq = mq
	for _, k := range h.d.Constants() {
		if k.Name == "mq_backlog" {
			mq.backlog = k.Raw
		}
	}
	for _, t := range h.d.Tables() {
		switch t.Name {
		case "mq_wb":
			mq.wb = t.Entries
		case "mq_bh":
			mq.bh = t.Entries
		}
	}
	if mq.wb == nil || mq.bh == nil {
		return fmt.Errorf("vectors: hpcc: MultiQ datapath has no mq_wb/mq_bh ROM")
	}
	w := h.cfg.MultiQ.ClassWeight
	// q_min in units: above and not above the backlog threshold.
	qHigh := min(mq.backlog+h.qUnits(20_000)+1, h.qMask)
	qLow := uint64(0)
	if mq.backlog == h.qMask {
		qHigh = h.qMask // never a backlog: case 2 unreachable (see below)
	}
	// hop builds slot i's spec with speed code c, a rate of permille/1000
	// of the link and queue q (both samples).
	hop := func(i int, c uint8, permille, q uint64) hopSpec {
		s := h.baseHop(i)
		s.code = c
		s.dTx = h.txUnits(c, s.dts, permille)
		s.prevQ, s.q = q, q
		return s
	}
	emitHop := func(emit emitFn, i int, s hopSpec) error {
		st, in := h.base(h.maxHops)
		h.setHop(&st, &in, i, s)
		return emit(st, in)
	}
	// exact builds slot i's spec whose tx_rate is exactly target (raw
	// Formats.TxRate) with queue q, or reports false.
	exact := func(i int, c uint8, target, q uint64) (hopSpec, bool) {
		s := hop(i, c, 0, q)
		dts, dTx, ok := h.mqExactRate(c, target, q)
		s.dts, s.dTx = dts, dTx
		return s, ok
	}
	backlogReachable := mq.backlog < h.qMask
	// A rate halfway between w*B and B (permille of B); with w near 1, half
	// again above B (only a corrupt sample exceeds wB then).
	aboveWB := uint64((w*1000+1000)/2) + 1
	if w >= 0.99 {
		aboveWB = 1500
	}

	// Each case per speed code.
	for ci := range mq.perCode {
		mq.perCode[ci] = make([]int, len(h.speedGbp))
		for c := range mq.perCode[ci] {
			mq.perCode[ci][c] = -1
		}
	}
	for _, c := range h.okCodes {
		c := c
		g := h.speedGbp[c]
		mq.perCode[0][c] = h.add(fmt.Sprintf("mq_within_%dG", g), fmt.Sprintf("MultiQ case 1 (txRate <= wB) on a %d Gbps hop: u' = qlen/(wB*T) + txRate/wB", g), 1, true,
			func(emit emitFn) error {
				return emitHop(emit, 0, hop(0, c, uint64(w*500), qHigh)) // half the guarantee
			})
		if backlogReachable {
			mq.perCode[1][c] = h.add(fmt.Sprintf("mq_backlog_%dG", g), fmt.Sprintf("MultiQ case 2 (txRate > wB, qlen > backlog) on a %d Gbps hop: u' = qlen/(txRate*T) + 1", g), 1, true,
				func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, aboveWB, qHigh)) })
		}
		mq.perCode[2][c] = h.add(fmt.Sprintf("mq_no_backlog_%dG", g), fmt.Sprintf("MultiQ case 3 (txRate > wB, qlen <= backlog) on a %d Gbps hop: u' = txRate/((txRate + B)/2)", g), 1, true,
			func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, aboveWB, qLow)) })
	}
	c := h.baseCode
	mq.within = h.add("mq_within_slots", "MultiQ case 1 in every hop slot, idle to the guarantee (tx_rate 0 and q_min 0 included)", 1, true,
		func(emit emitFn) error {
			for i := 0; i < h.maxHops; i++ {
				for _, pm := range []uint64{0, uint64(w * 900)} {
					if err := emitHop(emit, i, hop(i, c, pm, qLow)); err != nil {
						return err
					}
				}
			}
			return nil
		})
	mq.atWB = h.add("mq_at_wb", "tx_rate == mq_wb exactly (txRate == wB is case 1, the slides' <=), with and without a queue, every speed code", 1, true,
		func(emit emitFn) error {
			for _, cc := range h.okCodes {
				for _, q := range []uint64{qLow, qHigh} {
					s, ok := exact(0, cc, mq.wb[cc], q)
					if !ok {
						return fmt.Errorf("no tx_rate == mq_wb[%d] found", cc)
					}
					if err := emitHop(emit, 0, s); err != nil {
						return err
					}
				}
			}
			return nil
		})
	mq.wbNextNoBl = h.add("mq_wb_plus_lsb_no_backlog", "tx_rate == mq_wb + 1 LSB with q_min <= backlog: case 3 at its lower edge (u' jumps below 1)", 1, true,
		func(emit emitFn) error {
			s, ok := exact(0, c, mq.wb[c]+1, qLow)
			if !ok {
				return fmt.Errorf("no tx_rate == mq_wb+1 found")
			}
			return emitHop(emit, 0, s)
		})
	if backlogReachable {
		mq.wbNextBl = h.add("mq_wb_plus_lsb_backlog", "tx_rate == mq_wb + 1 LSB with q_min > backlog: case 2 at its lower edge (continuous with case 1)", 1, true,
			func(emit emitFn) error {
				s, ok := exact(0, c, mq.wb[c]+1, qHigh)
				if !ok {
					return fmt.Errorf("no tx_rate == mq_wb+1 found")
				}
				return emitHop(emit, 0, s)
			})
		mq.qThrNext = h.add("mq_q_backlog_plus_1", "above wB with q_min == mq_backlog + 1 unit: the smallest backlog (case 2)", 1, true,
			func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, aboveWB, mq.backlog+1)) })
		mq.qMax = h.add("mq_backlog_q_max", "case 2 with the largest queue field (q_term and u' saturate at UMax)", 1, true,
			func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, aboveWB, h.qMask)) })
	}
	mq.qAtThr = h.add("mq_q_at_backlog", "above wB with q_min == mq_backlog: not a backlog (the slides' qlen > threshold), case 3", 1, true,
		func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, aboveWB, mq.backlog)) })
	// With w = 1 (or a w*B that rounds to B) mq_wb equals mq_bh: tx_rate == B
	// is then tx_rate == wB, case 1 (mq_at_wb), and case 3 cannot hold at
	// B, so the class is not registered (TestMultiQClassWeightOne).
	if mq.bh[c] != mq.wb[c] {
		mq.lineRate = h.add("mq_line_rate", "tx_rate == mq_bh (txRate == B) without backlog: case 3 gives u' = 1", 1, true,
			func(emit emitFn) error {
				s, ok := exact(0, c, mq.bh[c], qLow)
				if !ok {
					return fmt.Errorf("no tx_rate == mq_bh found")
				}
				return emitHop(emit, 0, s)
			})
	}
	mq.aboveLine = h.add("mq_above_line_rate", "tx_rate above B (a corrupt or coarse sample) without backlog: case 3 above 1, below 2", 1, true,
		func(emit emitFn) error { return emitHop(emit, 0, hop(0, c, 2000, qLow)) })
	if backlogReachable && h.maxHops >= 3 {
		mq.mixed = h.add("mq_mixed_cases", "three hops in the three cases on one path; the max select picks among MultiQ u' values", 1, true,
			func(emit emitFn) error {
				for rot := 0; rot < 3; rot++ {
					st, in := h.base(h.maxHops)
					specs := []hopSpec{hop(0, c, uint64(w*900), qHigh), hop(1, c, aboveWB, qHigh), hop(2, c, aboveWB, qLow)}
					for k := 0; k < 3; k++ {
						i := (k + rot) % 3
						s := specs[k]
						b := h.baseHop(i)
						s.prevSec, s.prevNs, s.prevTx, s.id, s.newID, s.residence = b.prevSec, b.prevNs, b.prevTx, b.id, b.newID, b.residence
						h.setHop(&st, &in, i, s)
					}
					if err := emit(st, in); err != nil {
						return err
					}
				}
				return nil
			})
	}
	h.addMultiQConstructed() // hpcc_multiq_edges.go
	return nil
}

// mqExactRate finds a (dts, dTx) pair, dts <= MaxDeltaTsNs and dTx at most
// half the counter range, for which the datapath's tx_rate on speed code c
// is exactly target (raw Formats.TxRate): tx_rate = Rnd(dTx * recip_dts)
// lands on target only when dTx/dts is within about half an LSB of it, so
// it walks dts down from MaxDeltaTsNs (the finest rate grid) trying the two
// dTx next to target*dts. Deterministic.
func (h *HPCC) mqExactRate(c uint8, target, q uint64) (dts, dTx uint64, ok bool) {
	f := uint(h.cfg.Formats.TxRate.F())
	start := h.cfg.MaxDeltaTsNs
	if target > 0 { // keep dTx = target*dts below half the counter range
		start = min(start, uint64(float64(h.txMask/2)*float64(uint64(1)<<f)/float64(target)))
	}
	for k := uint64(0); k < 1<<16 && k < start; k++ {
		dts = start - k
		hi, lo := bits.Mul64(target, dts)
		base := lo >> f
		if f > 0 {
			base |= hi << (64 - f)
		}
		for _, d := range []uint64{base, base + 1} {
			if d > h.txMask/2 {
				continue
			}
			if _, x, _ := h.d.MultiQHop(dts, d, q, c); x == target {
				return dts, d, true
			}
		}
	}
	return 0, 0, false
}

// detectMultiQ marks the MultiQ classes from one update's valid hops.
func (h *HPCC) detectMultiQ(o *hobs, hits *Hits) {
	mq := h.mq
	if mq == nil || o.first {
		return
	}
	h.detectMultiQConstructed(o, hits) // hpcc_multiq_edges.go
	mark := func(c int, cond bool) {
		if c >= 0 && cond {
			hits.Hit(c)
		}
	}
	var seen [4]bool
	for i := 0; i < h.maxHops; i++ {
		if !o.valid[i] {
			continue
		}
		code := o.code[i]
		mc, x, wb := h.d.MultiQHop(o.dts[i], o.dTx[i], o.minQ[i], code)
		if mc == hpcc.MQOff {
			continue
		}
		seen[mc] = true
		mark(mq.perCode[mc-1][code], true)
		mark(mq.within, mc == hpcc.MQWithin && x < wb)
		mark(mq.atWB, x == wb)
		mark(mq.wbNextBl, x == wb+1 && mc == hpcc.MQBacklog)
		mark(mq.wbNextNoBl, x == wb+1 && mc == hpcc.MQNoBacklog)
		mark(mq.qAtThr, mc == hpcc.MQNoBacklog && o.minQ[i] == mq.backlog)
		mark(mq.qThrNext, mc == hpcc.MQBacklog && o.minQ[i] == mq.backlog+1)
		mark(mq.qMax, mc == hpcc.MQBacklog && o.minQ[i] == h.qMask)
		mark(mq.lineRate, mc == hpcc.MQNoBacklog && x == mq.bh[code])
		mark(mq.aboveLine, mc == hpcc.MQNoBacklog && x > mq.bh[code])
	}
	mark(mq.mixed, seen[hpcc.MQWithin] && seen[hpcc.MQBacklog] && seen[hpcc.MQNoBacklog])
}

// mqArith restates cases 2 and 3 of the MultiQ hop term (docs/datapath.md
// section 5a) in raw integers for the constructed classes, from the
// datapath's own ROMs, constants and recip_mq unit (the hpcc_arith.go
// conventions: exact products, then the round-half-up saturating casts):
//
//	case 2: y = tx_rate << 1 (mq_y holds one more fraction bit), rq = recip_mq(y),
//	        rho = Rnd,Sat(mq_wb * rq) -> MQRhoFormat,
//	        q2 = Rnd,Sat(q_term * rho) -> Term, u' = Rnd,Sat(q2 + 1) -> U
//	case 3: y = tx_rate + mq_bh (raw: (tx_rate + mq_bh)/2 in mq_y's format),
//	        rq = recip_mq(y), u' = Rnd,Sat(tx_rate * rq) -> U
//
// TestMQArithMatchesRTL checks it against the hardware description's
// named nodes (h<i>_mq_rho, h<i>_q_term_bl, h<i>_u_hop_mq).
type mqArith struct {
	wb, bh        []uint64 // mq_wb and mq_bh ROMs, raw Formats.TxRate
	backlog       uint64   // mq_backlog, qlen units
	one           uint64   // 1.0 in Formats.Term
	recip         fixedpoint.RawReciprocal
	recipTable    []uint64
	rc            fixedpoint.ReciprocalConfig
	recipEntryMax uint64
	rho, q2, u2   castEdge
	u3            castEdge
}

// mqVals are the MultiQ values of one hop slot.
type mqVals struct {
	c       hpcc.MQCase
	y, rq   uint64 // recip_mq input (raw mq_y, every case) and output (cases 2 and 3)
	pRho    u128   // mq_wb * rq, exact (case 2)
	rho, q2 uint64 // mq_rho, q_term_bl (case 2)
	pQ2     u128   // q_term * rho, exact (case 2)
	pU      u128   // case 2: q2 + 1 (Term LSBs); case 3: tx_rate * rq, exact
}

// newMQArith builds the MultiQ restatement of h's datapath.
func newMQArith(h *HPCC) (*mqArith, error) {
	fm := h.cfg.Formats
	m := &mqArith{}
	rr, table, rc, err := recipUnit(h, "recip_mq")
	if err != nil {
		return nil, err
	}
	m.recip, m.recipTable, m.rc, m.recipEntryMax = rr, table, rc, maxRaw(rc.Entry)
	haveOne := false
	for _, k := range h.d.Constants() {
		switch k.Name {
		case "mq_backlog":
			m.backlog = k.Raw
		case "one_term":
			m.one, haveOne = k.Raw, true
		}
	}
	for _, t := range h.d.Tables() {
		switch t.Name {
		case "mq_wb":
			m.wb = t.Entries
		case "mq_bh":
			m.bh = t.Entries
		}
	}
	if m.wb == nil || m.bh == nil || !haveOne {
		return nil, fmt.Errorf("vectors: hpcc: MultiQ datapath without mq_wb, mq_bh or one_term")
	}
	fRho := hpcc.MQRhoFormat
	m.rho = castEdge{d: fm.TxRate.F() + rc.Out.F() - fRho.F(), max: maxRaw(fRho)}
	m.q2 = castEdge{d: fRho.F(), max: maxRaw(fm.Term)}
	m.u2 = castEdge{d: fm.Term.F() - fm.U.F(), max: maxRaw(fm.U)}
	m.u3 = castEdge{d: fm.TxRate.F() + rc.Out.F() - fm.U.F(), max: maxRaw(fm.U)}
	for _, d := range []int{m.rho.d, m.q2.d, m.u2.d, m.u3.d} {
		if d <= -64 || d >= 128 {
			return nil, fmt.Errorf("MultiQ shifts a product by %d bits", d)
		}
	}
	if rc.In.W > 64 || rc.Out.W > 64 || fRho.W > 64 {
		return nil, fmt.Errorf("recip_mq or mq_rho wider than 64 bits")
	}
	return m, nil
}

// eval fills v.mq from v's case-1 values (tx_rate, q_term) and the slot's
// q_min, and replaces v.u with the case's u'.
func (m *mqArith) eval(v *hopVals, q uint64, code uint8) {
	mv := mqVals{c: hpcc.MQWithin}
	switch {
	case v.tx <= m.wb[code]: // recip_mq still sees mq_y; its output is muxed away
		mv.y = v.tx + m.bh[code]
		if q > m.backlog {
			mv.y = v.tx << 1
		}
	case q > m.backlog:
		mv.c = hpcc.MQBacklog
		mv.y = v.tx << 1
		mv.rq = m.recip.Recip(mv.y)
		mv.pRho = mul128(m.wb[code], mv.rq)
		mv.rho = m.rho.sat(mv.pRho)
		mv.pQ2 = mul128(v.q, mv.rho)
		mv.q2 = m.q2.sat(mv.pQ2)
		mv.pU = u128{0, mv.q2}.add64(m.one)
		v.u = m.u2.sat(mv.pU)
	default:
		mv.c = hpcc.MQNoBacklog
		mv.y = v.tx + m.bh[code]
		mv.rq = m.recip.Recip(mv.y)
		mv.pU = mul128(v.tx, mv.rq)
		v.u = m.u3.sat(mv.pU)
	}
	v.mq = mv
}
