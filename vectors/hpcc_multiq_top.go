package vectors

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// mq_y_top_binade (issue 14, docs/grade.md "MultiQ and sojourn designs":
// #942, #1877): mq_y, the recip_mq unit's input, in the lowest values of
// its top binade, where the normalizer's first stage sees its upper half
// exactly 100...0.
//
// The recip_mq normalizer is rtl.CLZ's tree over mq_y padded with ones to
// P bits (P the power of two at or above mq_y's width W: 64 for u53.20):
// stage 1 asks whether the word's upper half, y >> (W - P/2), is 0, and each
// later stage asks the same of the upper half of the half kept. A mutant of
// a stage's compare constant with its top bit set (0 -> 100...0, grade's
// const-msb: #1877 on one hop slot) counts wrongly exactly where that half
// is 100...0; for stage 1 that is y in [2^(W-1), 2^(W-1) + 2^(W-P/2)), and
// every later stage sees the same pattern on those y (the half kept is the
// upper one, led by y's top bit, with zeros below it). mq_y_leading_one
// aims at y = 2^(W-1) exactly, which no (delta ts, dTx) gives: the txRate
// grid is 2^32/dts LSBs coarse up there (TestMQTopExactUnreachable), so
// the class takes the smallest txRate at or above the window's start
// that lands inside the window. It reads the window in both visible
// cases, per hop slot on the base speed code:
//
//   - case 2 (q_min above the backlog): y = 2*tx_rate, tx_rate in
//     [2^(W-2), 2^(W-2) + 2^(W-P/2-1)), q_min the largest queue, so
//     u' = Rnd(q_term * mq_rho) + 1 reads recip_mq through mq_rho;
//   - case 3 (q_min 0): y = tx_rate + mq_bh, tx_rate in [2^(W-1) - mq_bh,
//     2^(W-1) - mq_bh + 2^(W-P/2)), u' = Rnd(tx_rate * recip_mq).
//
// delta ts is far below T there (txRate near 2^(W-2) needs dTx/dts near
// 2^31 counter units per ns), so the hop's u' reaches U with weight dts/T;
// a wrong count moves recip_mq by a power of two or saturates it, which
// moves u' by far more than T/dts LSBs (TestMultiQTopKillsNormalizerMutants
// in vectors/coverage applies those mutants). The constant of recip_mq's
// own y == 0 mux made 2^(W-1) (#942) acts only at y = 2^(W-1) exactly:
// unreachable, so this class cannot kill it and nothing can.

// mqTopWindow returns the first y of mq_y's top-binade window and its
// width (both raw mq_y), or false when the width does not leave one.
func (m *mqArith) mqTopWindow() (lo, width uint64, ok bool) {
	w := m.rc.In.W
	p := 1
	for p < w {
		p <<= 1
	}
	if w <= p/2 || w > 64 || w-p/2 < 1 {
		return 0, 0, false
	}
	return uint64(1) << uint(w-1), uint64(1) << uint(w-p/2), true
}

// inMQTopWindow reports whether y is in the window of mqTopWindow.
func (m *mqArith) inMQTopWindow(y uint64) bool {
	lo, width, ok := m.mqTopWindow()
	return ok && y >= lo && y-lo < width
}

// mqTxIn returns (dts, dTx) whose tx_rate (q_min 0) is the smallest at or
// above lo found, when it is below lo + width: delta ts scanned downward
// from the largest at which dTx still fits the counter.
func (k *constructed) mqTxIn(lo, width uint64, code uint8) (dts, dTx uint64, ok bool) {
	a := k.a
	if lo > a.tx.max {
		return 0, 0, false
	}
	hi := k.dtsFor(lo)
	for t := 0; t < searchTries && hi >= 1; t, hi = t+1, hi-1 {
		rd := a.recip.Recip(hi)
		d := bisect(0, a.txMask, func(v uint64) bool { return a.tx.pre(mul128(v, rd)).cmp(u128{0, lo}) >= 0 })
		if d > a.txMask {
			continue
		}
		v := hopVals{rd: rd}
		a.fromRd(&v, d, 0, code)
		if v.tx >= lo && v.tx-lo < width {
			return hi, d, true
		}
	}
	return 0, 0, false
}

func (k *constructed) genMQTopBinade(emit emitFn) error {
	h, a, m := k.h, k.a, k.a.mq
	lo, width, ok := m.mqTopWindow()
	if !ok {
		return nil
	}
	code := h.baseCode
	type target struct{ lo, width, q uint64 }
	var ts []target
	if m.backlog+1 <= a.qMask { // case 2: y = 2 tx_rate
		ts = append(ts, target{lo >> 1, width >> 1, a.qMask})
	}
	if bh := m.bh[code]; bh < lo { // case 3: y = tx_rate + mq_bh
		ts = append(ts, target{lo - bh, width, 0})
	}
	for _, tg := range ts {
		dts, dTx, ok := k.mqTxIn(tg.lo, tg.width, code)
		if !ok {
			continue
		}
		if v := a.eval(dts, dTx, tg.q, code); v.mq.c == hpcc.MQWithin || !m.inMQTopWindow(v.mq.y) {
			continue // not a visible case in the window (a format that puts wB up there)
		}
		for i := 0; i < h.maxHops; i++ {
			if err := emit(k.loaded(i, code, dts, dTx, tg.q)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (k *constructed) detectMQTopBinade(o *hobs) bool {
	for i := 0; i < k.h.maxHops; i++ {
		if !o.valid[i] {
			continue
		}
		v := k.a.eval(o.dts[i], o.dTx[i], o.minQ[i], o.code[i])
		if v.mq.c != hpcc.MQWithin && k.a.mq.inMQTopWindow(v.mq.y) {
			return true
		}
	}
	return false
}

// MQYTopExact enumerates, for a MultiQ configuration cfg, every input of
// the 1/dts unit (its In register, 1 .. 2^W - 1; 0 is proved unreachable
// from the hop-valid guard) and, by bisection over dTx (txRate is
// non-decreasing in dTx for a fixed 1/dts), whether txRate takes a value
// that puts mq_y exactly at 2^(W-1), W mq_y's width: tx_rate = 2^(W-2)
// (y = tx_rate << 1, the backlog arm) or 2^(W-1) - mq_bh[c] for a valid
// speed code c (y = tx_rate + mq_bh). It returns how many 1/dts inputs
// reach the smallest of those targets at all (reach) and the hits (one
// line each). About 10 s of CPU for the default MultiQ configuration. It
// is the exhaustive fact behind docs/grade.md's #942 (recip_mq's y == 0
// constant made 2^(W-1) acts only at y = 2^(W-1) exactly): with no hit,
// that mutant is equivalent.
func MQYTopExact(cfg hpcc.Config) (reach int, hits []string, err error) {
	h, err := NewHPCC(cfg)
	if err != nil {
		return 0, nil, fmt.Errorf("vectors: mq_y top: %w", err)
	}
	if h.cx == nil || h.cx.a == nil || h.cx.a.mq == nil {
		return 0, nil, fmt.Errorf("vectors: mq_y top: configuration has no MultiQ restatement")
	}
	m := h.cx.a.mq
	if m.rc.In.W < 2 || m.rc.In.W > 64 {
		return 0, nil, fmt.Errorf("vectors: mq_y top: mq_y is %d bits", m.rc.In.W)
	}
	y := uint64(1) << uint(m.rc.In.W-1)
	ts := []txTarget{{y >> 1, "tx_rate << 1"}}
	for _, c := range h.okCodes {
		if bh := m.bh[c]; bh <= y {
			ts = append(ts, txTarget{y - bh, fmt.Sprintf("tx_rate + mq_bh[%d]", c)})
		}
	}
	reach, hits, err = h.txExact(ts)
	if err != nil {
		return 0, nil, fmt.Errorf("vectors: mq_y top: %w", err)
	}
	return reach, hits, nil
}

// txTarget is a txRate value (raw) and what it means.
type txTarget struct {
	tx   uint64
	what string
}

// txExact enumerates every input of h's 1/dts unit (1 .. 2^W - 1) and
// returns how many reach the smallest target's txRate with some dTx of the
// counter width (reach) and every (input, dTx) whose txRate is exactly a
// target (hits; txRate is non-decreasing in dTx for a fixed 1/dts, so the
// smallest dTx at or above a target, found by bisection, is the only one
// that can land on it).
func (h *HPCC) txExact(ts []txTarget) (reach int, hits []string, err error) {
	a := h.cx.a
	_, _, rc, err := recipUnit(h, "recip_dts")
	if err != nil {
		return 0, nil, err
	}
	if len(ts) == 0 {
		return 0, nil, nil
	}
	lo := ts[0].tx
	for _, tg := range ts {
		lo = min(lo, tg.tx)
	}
	for x := uint64(1); x < uint64(1)<<uint(rc.In.W); x++ {
		rd := a.recip.Recip(x)
		if a.tx.sat(mul128(a.txMask, rd)) < lo {
			continue
		}
		reach++
		for _, tg := range ts {
			if tg.tx > a.tx.max {
				continue
			}
			d := bisect(0, a.txMask, func(v uint64) bool { return a.tx.sat(mul128(v, rd)) >= tg.tx })
			if d <= a.txMask && a.tx.sat(mul128(d, rd)) == tg.tx {
				hits = append(hits, fmt.Sprintf("dts_in %d, dTx %d: txRate %#x (%s)", x, d, tg.tx, tg.what))
			}
		}
	}
	return reach, hits, nil
}
