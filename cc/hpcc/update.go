package hpcc

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// Update is the golden per-event HPCC++ update (NewAck or NewINT with
// MeasureInflight and ComputeWind): the fixed, unrolled hop loop of
// MaxHops slots, each slot's result selected by its valid bit, no floating
// point, reciprocals through the reciprocal-unit models, inputs masked to
// their field widths. It returns the flow's next state and the outputs; it
// allocates nothing. The operation sequence and every signal's format are
// in docs/datapath.md. It is Step on a copy of st.
func (d *Datapath) Update(st State, in Input) (next State, out Output) {
	d.step(&st, &in, &out)
	return st, out
}

// Step is Update in place: it replaces *st, the flow's state, with its next
// state and writes the outputs to *out, reading the event from *in; the
// three must not overlap. It is the one control flow of Update, UpdateSpec
// and UpdateBatch, so its results are Update's bit for bit
// (TestStepMatchesUpdate). It saves the per-event API's copies of State,
// Input and the results (about 800 bytes) for a caller that keeps its flow
// table in place. Allocation-free.
func (d *Datapath) Step(st *State, in *Input, out *Output) { d.step(st, in, out) }

// UpdateBatch runs Step on n = len(in) independent events: event k updates
// the flow state st[k] in place and writes out[k], in index order, each
// exactly as Update(st[k], in[k]) would (TestUpdateBatchMatchesUpdate). The
// entries are independent flows (a flow with two events in one batch would
// need them in two batches). It fails, naming the lengths, when st or out
// is shorter than in, and then updates nothing. Allocation-free.
func (d *Datapath) UpdateBatch(st []State, in []Input, out []Output) error {
	if len(st) < len(in) || len(out) < len(in) {
		return fmt.Errorf("hpcc: UpdateBatch: %d states and %d outputs for %d events: need one of each per event", len(st), len(out), len(in))
	}
	st, out = st[:len(in)], out[:len(in)]
	for k := range in {
		d.step(&st[k], &in[k], &out[k])
	}
	return nil
}

// step is the one control flow of the golden update, shared with
// UpdateSpec: slot recording and validity (lines 2-3), the max select of u'
// (lines 6-7), the EWMA (lines 8-9), the window (lines 11-20), the commit
// of Wc and incStage (lines 15, 19, 22-24 / 28-32), the first event and the
// rate (line 27) are written once. It updates *st in place (every field of
// the old state is read before it is overwritten) and writes *out. Only the
// arithmetic is swapped, by the plan's spec flag: set (UpdateSpec, or a
// configuration beyond the raw plans), the operations run op for op with
// fixedpoint Values and plans (specHopU, specEWMA, specWindow, specRate,
// waiFor); clear, as fixedpoint raw-integer plans compiled in NewDatapath
// (fastPlan), written inline so that the per-hop loop keeps its few live
// values in registers (the flag is read once and its branches are
// perfectly predicted; a generic or interface-typed arithmetic would be
// called through a dictionary, and was measured slower). Invalid slots are
// skipped: the hardware computes them and muxes their u' to 0, which is
// never selected, so the outputs are the same. Likewise, where the hop
// bound of prune.go applies (no MultiQ), a valid hop whose upper bound is
// below an exact u' already computed cannot be selected and is not
// computed (the invariant and its proof are in prune.go).
func (d *Datapath) step(st *State, in *Input, po *Output) {
	c := &d.cfg
	p := &d.fast
	spec := p.spec
	var out Output
	nh := uint64(in.NHops) & d.nhMask
	stValid := st.Valid
	var uAcc, dtsSel uint64
	if !spec && p.hb.on && p.hb.ifa {
		uAcc, dtsSel, out.SelHop, out.HopValid = d.selectPrunedIFA(st, in, nh)
	} else if !spec && p.hb.on {
		uAcc, dtsSel, out.SelHop, out.HopValid = d.selectPruned(st, in, nh)
	} else {
		uAcc, dtsSel, out.SelHop, out.HopValid = d.selectFull(st, in, nh)
	}

	// Lines 8-9. (The registers are read here, after the hop loops, so
	// that the loops have fewer live values.)
	uReg := st.U & p.maxU
	wcReg := st.Wc & p.maxW
	inc := st.IncStage & d.incMask
	var uNew uint64
	if spec {
		uNew = d.specEWMA(uReg, uAcc, dtsSel)
	} else {
		tau := min(dtsSel, p.t)
		a := (p.t - tau) * uReg // exact: fits the EWMA product format (<= 64 bits, checked at construction)
		b := tau * uAcc
		uNew = p.cEw.MulCast(a+b, p.invT)
	}
	if out.HopValid == 0 { // (reading out.HopValid back keeps one less value live in the loops)
		// No valid hop (tau = 0): keep the stored U (a mux on the U
		// register). The EWMA would give U*T*inv_t, and inv_t is 1/T
		// rounded, so U could drift by an LSB on every such event.
		uNew = uReg
	}

	// Line 22 (sender) / line 29 (receiver): commit Wc this event?
	var updateWc bool
	if c.Mode == Sender {
		updateWc = seqAfter(in.Seq&d.seqMask, st.LastUpdate&d.seqMask, c.SeqBits)
	} else {
		updateWc = timeElapsed(in.NowNs&d.timeMask, st.LastUpdate&d.timeMask, c.TimeBits) > uint64(c.NotifyPeriod())
	}

	// ComputeWind, lines 11-20.
	var w uint64
	var mi bool
	if spec {
		uGE := fixedpoint.Cmp(bits64(d.fU, uNew), d.eta) >= 0
		mi = uGE || int(inc) >= c.MaxStage
		w = d.specWindow(wcReg, uNew, d.waiFor(in).RawUint(), mi, uGE)
	} else {
		wai := p.wai
		if c.DynamicWAI {
			n := uint64(in.NFlows) & d.nMask
			if n == 0 {
				n = 1
			}
			wai = p.cWai.MulCast(p.kWai, p.rN.Recip(n))
		}
		uGE := uNew >= p.uEta
		mi = uGE || int(inc) >= c.MaxStage
		if mi {
			k := p.cK.MulCast(p.rU.Recip(uNew), p.eta)
			if uGE {
				k = min(k, p.oneEoU)
			}
			wMul := p.cWm.MulCast(wcReg, k)
			w = min(wMul+wai, p.maxW) // both <= 2^W-1 <= 2^64-1: see compileFast
		} else {
			w = min(wcReg+wai, p.maxW)
		}
		w = min(max(w, p.wmin), p.wmax)
	}

	// The next state, in place: Wc and lastUpdate are kept unless the
	// round commits (their old values were read above).
	st.Valid = true
	st.NHops = uint8(nh)
	st.W, st.U, st.IncStage = w, uNew, inc
	if updateWc {
		st.Wc = w // lines 15, 19
		if mi {
			st.IncStage = 0
		} else {
			st.IncStage = inc + 1
		}
		if c.Mode == Sender {
			st.LastUpdate = in.SndNxt & d.seqMask // line 24
		} else {
			st.LastUpdate = in.NowNs & d.timeMask // line 32
		}
	}
	out.MI, out.UpdateWc = mi, updateWc
	out.Notify = updateWc && c.Mode == Receiver
	if !stValid {
		// First event: record L, load the initial registers, open the first
		// round (lastUpdateSeq = snd_nxt / lastUpdateTime = now).
		st.W, st.Wc, st.U, st.IncStage = p.winit, p.winit, p.uinit, 0
		if c.Mode == Sender {
			st.LastUpdate = in.SndNxt & d.seqMask
		} else {
			st.LastUpdate = in.NowNs & d.timeMask
		}
		out = Output{First: true, SelHop: NoHop}
	}
	out.W, out.Wc, out.U, out.IncStage = st.W, st.Wc, st.U, st.IncStage
	// Line 27: R = W/T.
	if spec {
		out.Rate = d.specRate(st.W)
	} else {
		out.Rate = p.cRate.MulCast(st.W, p.invT)
	}
	*po = out
}

// selectFull is lines 2-7 of step where the hop bound of prune.go does
// not apply, or with the specification's arithmetic: it records every slot
// of *in into st.Hops (slots from the path's length on are cleared),
// decides validity and computes every valid hop's u' and the max select.
// It returns the selected u' (uAcc), the selected slot's dts, the selected
// slot (NoHop if none) and the valid slots as a bit mask. nh is the
// event's hop count, masked.
func (d *Datapath) selectFull(st *State, in *Input, nh uint64) (uAcc, dtsSel uint64, sel, valid uint8) {
	c := &d.cfg
	p := &d.fast
	spec := p.spec
	stNH := uint64(st.NHops) & d.nhMask
	pathOK := nh == stNH && nh <= uint64(d.maxHops)

	// Lines 2-3 per slot: record the telemetry (slots beyond the path are
	// invalid and stored as 0) and decide validity. The measurement inputs
	// of the valid slots go to small arrays, so that each of the two loops
	// keeps its few live values in registers. Each slot's stored telemetry
	// is read before the recorded one replaces it.
	var dtsOf, dBOf, qOf [MaxHopsLimit]uint64
	var codeOf [MaxHopsLimit]uint8
	m := int(min(nh, uint64(d.maxHops)))
	for i := 0; i < m; i++ {
		h := &in.Hops[i]
		hs := &st.Hops[i]
		prevTs, prevTx, prevQ, prevID := hs.Ts, hs.TxBytes, hs.Qlen, hs.ID
		ts, id := d.recordTsID(h)
		txb, ql := h.TxBytes&d.txMask, d.queueSample(h)
		*hs = HopState{Ts: ts, TxBytes: txb, Qlen: ql, ID: id} // line 27: L = ack.L
		code := h.SpeedCode & d.codeMask & 15                  // speed codes are at most 4 bits: the tables have 16 entries
		dts := d.deltaTs(ts, prevTs)
		if !pathOK || !d.speedOK[code] || id != prevID&d.idMask || dts-1 >= c.MaxDeltaTsNs { // dts == 0 || dts > MaxDeltaTsNs
			continue // the slot's u' is muxed to 0 and not selected
		}
		valid |= 1 << uint(i)
		dtsOf[i], codeOf[i] = dts, code
		dBOf[i] = (uint64(txb) - uint64(prevTx)) & uint64(d.txMask) // fixedpoint.WrapDiff(tx, prev tx, txBits)
		qOf[i] = uint64(min(ql, prevQ&d.qMask))
	}
	for i := m; i < MaxHopsLimit; i++ {
		st.Hops[i] = HopState{}
	}

	// Lines 4-7 for the valid slots, in slot order: u' of each, the first
	// valid slot taken even at u' = 0 (the draft leaves tau unset when no
	// u' exceeds 0), a later one only if strictly greater, so ties keep the
	// earlier hop.
	sel = NoHop
	if spec {
		for v := valid; v != 0; v &= v - 1 {
			i := bits.TrailingZeros8(v)
			up := d.specHopU(dtsOf[i], dBOf[i], qOf[i], codeOf[i]&15)
			if sel == NoHop || up > uAcc {
				uAcc, dtsSel, sel = up, dtsOf[i], uint8(i)
			}
		}
	} else {
		// The 1/dts unit runs its steps here (Seed, Step, Scale:
		// rd.Recip(dts) for dts != 0) so that they inline into the loop.
		rd := &p.rDts
		nr, rdNarrow, qNarrow := rd.NRSteps(), rd.Narrow(), p.cQ.Narrow()
		for v := valid; v != 0; v &= v - 1 {
			i := bits.TrailingZeros8(v)
			dts, code := dtsOf[i], codeOf[i]&15
			m, y, pos := rd.Seed(dts)
			var rDts uint64
			if rdNarrow { // every product of the chain below 2^63: the short casts
				for j := 0; j < nr; j++ {
					e := rd.MulE(j).MulCastNarrow(m, y)
					y = rd.MulY(j).MulCastNarrow(y, rd.TwoMinus(e))
				}
				rDts = rd.Scale(pos).Cast63(y)
			} else {
				for j := 0; j < nr; j++ {
					e := rd.MulE(j).MulCast(m, y)
					y = rd.MulY(j).MulCast(y, rd.TwoMinus(e))
				}
				rDts = rd.Scale(pos).Cast(y)
			}
			x := p.cTx.MulCast(dBOf[i], rDts) // txRate = dB * (1/dts)
			var qTerm uint64
			if qNarrow { // q and kq are registers whose widths add up to at most 63 bits
				qTerm = p.cQ.MulCastNarrow(qOf[i], p.kq[code])
			} else {
				qTerm = p.cQ.MulCast(qOf[i], p.kq[code])
			}
			rTerm := p.cR.MulCast(x, p.kr[code])
			up := p.cUp.AddCast(qTerm, rTerm)
			if p.mq.on && x > p.mq.wb[code] { // MultiQ: txRate > wB (multiq.go)
				up = p.mq.above(x, qTerm, qOf[i], code)
			}
			if sel == NoHop || up > uAcc {
				uAcc, dtsSel, sel = up, dts, uint8(i)
			}
		}
	}
	return uAcc, dtsSel, sel, valid
}
