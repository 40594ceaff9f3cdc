package hpcc

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the traced form of the golden update: StepTrace runs the
// full (unpruned) update, every valid hop's u' computed, and records the
// intermediate values of lines 4-5 and of 1/U that the datapath computes
// and Update does not return: the 1/dts unit's seed, Newton-Raphson result
// and output, the exact products before the txRate, r_term and q_term casts
// and the cast results, u', and the 1/U unit's run on the new U. A vector
// model that detects corner cases of those casts (package vectors) reads
// them here instead of restating the arithmetic. Its outputs are Step's bit
// for bit (TestStepTraceMatchesStep); its recorded values are the raw
// plans' own (TestStepTraceValues restates them op by op).

// RecipTrace is one traced run of a reciprocal unit (fixedpoint
// RawReciprocal: Seed, the Newton-Raphson steps, the output cast).
type RecipTrace struct {
	// M is the input normalized so that its leading one is at bit In.W-1
	// (the unit's mantissa), Seed the table entry it reads, raw Entry.
	M, Seed uint64
	// P is the input's leading-one position, or -1 for an input of 0 (the
	// output saturates; M, Seed and Y are then 0).
	P int
	// Y is the Newton-Raphson result before the output cast, raw Work (the
	// seed itself with no step).
	Y uint64
	// Out is the unit's output, raw Out: what RawReciprocal.Recip returns.
	Out uint64
}

// HopTrace is what StepTrace records of one valid hop slot (lines 4-5).
// Exact products are 128-bit (Hi, Lo) pairs of the two raw operands, in the
// sum of their fraction bits.
type HopTrace struct {
	// Dts, DB, QIn and Code are the slot's operands: the egress-time
	// difference (ns, 0 < Dts <= MaxDeltaTsNs), the wrapped txBytes
	// difference (counter units), the smaller of the two queue samples and
	// the speed code.
	Dts, DB, QIn uint64
	Code         uint8
	Rd           RecipTrace // the 1/dts unit on the slot's delta ts; Rd.Out is 1/dts, raw Formats.RecipDts
	// PTxHi:PTxLo is dB * 1/dts exact; Tx is txRate = Rnd,Sat of it, raw Formats.TxRate.
	PTxHi, PTxLo, Tx uint64
	// PRHi:PRLo is txRate * kr[code] exact; R is r_term, raw Formats.Term.
	PRHi, PRLo, R uint64
	// PQHi:PQLo is q * kq[code] exact (q the smaller queue sample); Q is
	// q_term, raw Formats.Term.
	PQHi, PQLo, Q uint64
	// U is u' = Rnd,Sat(q_term + r_term), raw Formats.U.
	U uint64
}

// Trace is what StepTrace records of one update.
type Trace struct {
	// OK reports that the values below were recorded. It is false for a
	// datapath whose arithmetic StepTrace does not trace (MultiQ, whose
	// hop has cases beyond lines 4-5, and a configuration whose casts are
	// beyond the raw plans, which runs the specification's arithmetic):
	// then only the state and outputs are set.
	OK bool
	// Hops holds, for every slot whose bit is set in Output.HopValid, its
	// values; the other slots are left as they were.
	Hops [MaxHopsLimit]HopTrace
	// UOK reports that RecipU was recorded: the multiplicative step ran
	// (Output.MI, or a first event whose update computed it before the
	// initial registers replaced the results).
	UOK bool
	// RecipU is the 1/U unit's run on the new U (before the first event's
	// initial registers), raw Formats.U in, Formats.RecipU out.
	RecipU RecipTrace
}

// StepTrace is Step recording the intermediate values in *tr: it replaces
// *st with the flow's next state and writes *out exactly as Step does
// (every hop's u' computed, without the bounds of prune.go, which change
// no output), and fills tr (tr.OK false where the datapath's arithmetic is
// not traced). st, in, out and tr must not overlap. Allocation-free.
func (d *Datapath) StepTrace(st *State, in *Input, out *Output, tr *Trace) {
	p := &d.fast
	if p.spec || p.mq.on {
		tr.OK, tr.UOK = false, false
		d.step(st, in, out)
		return
	}
	tr.OK, tr.UOK = true, false
	c := &d.cfg
	var o Output
	nh := uint64(in.NHops) & d.nhMask
	stNH := uint64(st.NHops) & d.nhMask
	stValid := st.Valid
	pathOK := nh == stNH && nh <= uint64(d.maxHops)

	// Lines 2-3, as step.
	var dtsOf, dBOf, qOf [MaxHopsLimit]uint64
	var codeOf [MaxHopsLimit]uint8
	var valid uint8
	m := int(min(nh, uint64(d.maxHops)))
	for i := 0; i < m; i++ {
		h := &in.Hops[i]
		hs := &st.Hops[i]
		prevTs, prevTx, prevQ, prevID := hs.Ts, hs.TxBytes, hs.Qlen, hs.ID
		ts, id := d.recordTsID(h)
		txb, ql := h.TxBytes&d.txMask, d.queueSample(h)
		*hs = HopState{Ts: ts, TxBytes: txb, Qlen: ql, ID: id}
		code := h.SpeedCode & d.codeMask & 15
		dts := d.deltaTs(ts, prevTs)
		if !pathOK || !d.speedOK[code] || id != prevID&d.idMask || dts-1 >= c.MaxDeltaTsNs {
			continue
		}
		valid |= 1 << uint(i)
		dtsOf[i], codeOf[i] = dts, code
		dBOf[i] = (uint64(txb) - uint64(prevTx)) & uint64(d.txMask)
		qOf[i] = uint64(min(ql, prevQ&d.qMask))
	}
	for i := m; i < MaxHopsLimit; i++ {
		st.Hops[i] = HopState{}
	}
	o.HopValid = valid

	// Lines 4-7, every valid slot, recorded.
	o.SelHop = NoHop
	var uAcc, dtsSel uint64
	rd := &p.rDts
	nr, rdNarrow, qNarrow := rd.NRSteps(), rd.Narrow(), p.cQ.Narrow()
	for v := valid; v != 0; v &= v - 1 {
		i := bits.TrailingZeros8(v)
		ht := &tr.Hops[i&(MaxHopsLimit-1)]
		dts, code := dtsOf[i], codeOf[i]&15
		mm, y, pos := rd.Seed(dts)
		ht.Rd.M, ht.Rd.Seed, ht.Rd.P = mm, y, pos
		var rDts uint64
		if rdNarrow {
			for j := 0; j < nr; j++ {
				e := rd.MulE(j).MulCastNarrow(mm, y)
				y = rd.MulY(j).MulCastNarrow(y, rd.TwoMinus(e))
			}
			rDts = rd.Scale(pos).Cast63(y)
		} else {
			for j := 0; j < nr; j++ {
				e := rd.MulE(j).MulCast(mm, y)
				y = rd.MulY(j).MulCast(y, rd.TwoMinus(e))
			}
			rDts = rd.Scale(pos).Cast(y)
		}
		ht.Rd.Y, ht.Rd.Out = y, rDts
		dB, q, kq, kr := dBOf[i], qOf[i], p.kq[code], p.kr[code]
		x := p.cTx.MulCast(dB, rDts)
		var qTerm uint64
		if qNarrow {
			qTerm = p.cQ.MulCastNarrow(q, kq)
		} else {
			qTerm = p.cQ.MulCast(q, kq)
		}
		rTerm := p.cR.MulCast(x, kr)
		up := p.cUp.AddCast(qTerm, rTerm)
		ht.PTxHi, ht.PTxLo = bits.Mul64(dB, rDts)
		ht.PRHi, ht.PRLo = bits.Mul64(x, kr)
		ht.PQHi, ht.PQLo = bits.Mul64(q, kq)
		ht.Tx, ht.R, ht.Q, ht.U = x, rTerm, qTerm, up
		ht.Dts, ht.DB, ht.QIn, ht.Code = dts, dB, q, code
		if o.SelHop == NoHop || up > uAcc {
			uAcc, dtsSel, o.SelHop = up, dts, uint8(i)
		}
	}

	// Lines 8-9, as step.
	uReg := st.U & p.maxU
	wcReg := st.Wc & p.maxW
	inc := st.IncStage & d.incMask
	tau := min(dtsSel, p.t)
	uNew := p.cEw.MulCast((p.t-tau)*uReg+tau*uAcc, p.invT)
	if o.HopValid == 0 {
		uNew = uReg
	}

	var updateWc bool
	if c.Mode == Sender {
		updateWc = seqAfter(in.Seq&d.seqMask, st.LastUpdate&d.seqMask, c.SeqBits)
	} else {
		updateWc = timeElapsed(in.NowNs&d.timeMask, st.LastUpdate&d.timeMask, c.TimeBits) > uint64(c.NotifyPeriod())
	}

	// ComputeWind, lines 11-20, with 1/U recorded.
	wai := p.wai
	if c.DynamicWAI {
		n := uint64(in.NFlows) & d.nMask
		if n == 0 {
			n = 1
		}
		wai = p.cWai.MulCast(p.kWai, p.rN.Recip(n))
	}
	uGE := uNew >= p.uEta
	mi := uGE || int(inc) >= c.MaxStage
	var w uint64
	if mi {
		ru := recipTraced(&p.rU, uNew, &tr.RecipU)
		tr.UOK = true
		k := p.cK.MulCast(ru, p.eta)
		if uGE {
			k = min(k, p.oneEoU)
		}
		w = min(p.cWm.MulCast(wcReg, k)+wai, p.maxW)
	} else {
		w = min(wcReg+wai, p.maxW)
	}
	w = min(max(w, p.wmin), p.wmax)

	st.Valid = true
	st.NHops = uint8(nh)
	st.W, st.U, st.IncStage = w, uNew, inc
	if updateWc {
		st.Wc = w
		if mi {
			st.IncStage = 0
		} else {
			st.IncStage = inc + 1
		}
		if c.Mode == Sender {
			st.LastUpdate = in.SndNxt & d.seqMask
		} else {
			st.LastUpdate = in.NowNs & d.timeMask
		}
	}
	o.MI, o.UpdateWc = mi, updateWc
	o.Notify = updateWc && c.Mode == Receiver
	if !stValid {
		st.W, st.Wc, st.U, st.IncStage = p.winit, p.winit, p.uinit, 0
		if c.Mode == Sender {
			st.LastUpdate = in.SndNxt & d.seqMask
		} else {
			st.LastUpdate = in.NowNs & d.timeMask
		}
		o = Output{First: true, SelHop: NoHop}
	}
	o.W, o.Wc, o.U, o.IncStage = st.W, st.Wc, st.U, st.IncStage
	o.Rate = p.cRate.MulCast(st.W, p.invT)
	*out = o
}

// recipTraced is r.Recip(x) for an x of at most In.W bits, recording the
// run in *t (P = -1 for x = 0, whose output saturates).
func recipTraced(r *fixedpoint.RawReciprocal, x uint64, t *RecipTrace) uint64 {
	if x == 0 {
		*t = RecipTrace{P: -1, Out: r.Recip(0)}
		return t.Out
	}
	m, y, pos := r.Seed(x)
	t.M, t.Seed, t.P = m, y, pos
	var out uint64
	if r.Narrow() {
		for j := 0; j < r.NRSteps(); j++ {
			e := r.MulE(j).MulCastNarrow(m, y)
			y = r.MulY(j).MulCastNarrow(y, r.TwoMinus(e))
		}
		out = r.Scale(pos).Cast63(y)
	} else {
		for j := 0; j < r.NRSteps(); j++ {
			e := r.MulE(j).MulCast(m, y)
			y = r.MulY(j).MulCast(y, r.TwoMinus(e))
		}
		out = r.Scale(pos).Cast(y)
	}
	t.Y, t.Out = y, out
	return out
}
