package hpcc

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the production form of the golden datapath: the operation
// sequence of UpdateSpec (written with fixedpoint Values, op for op as
// docs/datapath.md lists it) compiled at construction into operations on
// raw unsigned registers. Every signal of the datapath is unsigned and at
// most 64 bits wide, so each cast, multiply-cast, add-cast and reciprocal
// unit is a fixedpoint raw-integer plan (RawMulCaster, RawAddCaster,
// RawReciprocal) built from the signal's formats and modes: the same
// arithmetic engine as UpdateSpec's Values, with everything that depends
// only on the formats resolved once. TestFastMatchesSpec checks the two bit
// for bit; TestUpdateDigest pins the outputs.

// fastPlan holds the datapath compiled to raw operations.
type fastPlan struct {
	rDts, rU, rN fixedpoint.RawReciprocal

	cTx, cQ, cR, cEw, cK, cWm, cRate, cWai fixedpoint.RawMulCaster
	cUp                                    fixedpoint.RawAddCaster
	maxW, maxU                             uint64
	kq, kr                                 [16]uint64
	eta                                    uint64 // eta raw
	uEta                                   uint64 // U >= eta exactly when U's raw value >= uEta
	invT, t, wai, wmin, wmax, winit, uinit uint64
	kWai, oneEoU                           uint64
	// slow: some cast of the configuration shifts by more than 63 bits,
	// beyond the raw plans (never for a realistic configuration; the
	// defaults use -24..44); Update then runs UpdateSpec, which it equals.
	slow bool
}

func maxRaw(f fixedpoint.Format) uint64 { m, _ := f.MaxRawUint(); return m }

// compileFast builds d.fast from the datapath's formats, constants and
// units: every multiplier and adder of UpdateSpec as a raw plan with the
// same formats and modes (Rnd, Sat; the EWMA products and sum are exact in
// their formats and need no cast). A cast beyond the raw plans' shift range
// (fixedpoint.ErrNoRawPlan) marks the plan slow.
func (d *Datapath) compileFast() error {
	if err := d.compileRaw(); err != nil {
		if !errors.Is(err, fixedpoint.ErrNoRawPlan) {
			return err
		}
		d.fast = fastPlan{slow: true}
	}
	return nil
}

func (d *Datapath) compileRaw() error {
	p := &d.fast
	var err error
	recip := func(name string, r *fixedpoint.Reciprocal) fixedpoint.RawReciprocal {
		rr, e := fixedpoint.NewRawReciprocal(r)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: compiled %s unit: %w", name, e)
		}
		return rr
	}
	mul := func(name string, x, y, to fixedpoint.Format) fixedpoint.RawMulCaster {
		c, e := fixedpoint.NewRawMulCaster(x, y, to, fixedpoint.Rnd, fixedpoint.Sat)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: compiled %s multiplier: %w", name, e)
		}
		return c
	}
	p.rDts = recip("recip_dts", d.recipDts)
	p.rU = recip("recip_u", d.recipU)
	if d.recipN != nil {
		p.rN = recip("recip_n", d.recipN)
	}
	kqF, krF, invTF := d.tables[0].Format, d.tables[1].Format, d.invT.Format()
	p.maxW, p.maxU = maxRaw(d.fW), maxRaw(d.fU)
	p.cTx = mul("tx_rate", d.fDB, d.fRD, d.fTx)
	p.cQ = mul("q_term", d.fQ, kqF, d.fTerm)
	p.cR = mul("r_term", d.fTx, krF, d.fTerm)
	p.cEw = mul("u_ewma", d.fEwS, invTF, d.fU)
	p.cK = mul("eta/U", d.fRU, d.fEta, d.fEoU)
	p.cWm = mul("Wc*eta/U", d.fW, d.fEoU, d.fW)
	p.cRate = mul("rate", d.fW, invTF, d.fRate)
	if d.cfg.DynamicWAI {
		p.kWai = d.kWai.RawUint()
		p.cWai = mul("W_ai", d.kWai.Format(), d.fRN, d.fW)
	}
	if err != nil {
		return err
	}
	if p.cUp, err = fixedpoint.NewRawAddCaster(d.fTerm, d.fTerm, d.fU, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("hpcc: compiled u' adder: %w", err)
	}
	for c := 0; c < 16; c++ {
		p.kq[c], p.kr[c] = d.kq[c].RawUint(), d.kr[c].RawUint()
	}
	p.eta = d.eta.RawUint()
	// U >= eta compared exactly: with both at the larger fraction count
	// (NewDatapath checks that this fits 64 bits), U*2^a >= eta*2^b with a
	// or b zero; for a > 0 that is U >= ceil(eta / 2^a).
	if fu, fe := d.fU.F(), d.fEta.F(); fu >= fe {
		p.uEta = p.eta << uint(fu-fe)
	} else {
		a := uint(fe - fu)
		p.uEta = p.eta >> a
		if p.eta&(1<<a-1) != 0 {
			p.uEta++ // the ceiling
		}
	}
	p.invT, p.t = d.invT.RawUint(), d.tT.RawUint()
	p.wai, p.wmin, p.wmax = d.wai.RawUint(), d.wmin.RawUint(), d.wmax.RawUint()
	p.winit, p.uinit = d.winit.RawUint(), d.uinit.RawUint()
	p.oneEoU = d.oneEoU.RawUint()
	return nil
}

// Rate returns R = W/T (line 27) for the raw Formats.W register w: W times
// the inv_t ROM constant, rounded half up (Rnd) and saturated (Sat) into
// Formats.Rate, the Rate output Update gives for a next W of w. Bits of w
// above Formats.W's width are ignored. The NIC model applies it to the W
// of an Rx-HPCC notification.
func (d *Datapath) Rate(w uint64) uint64 {
	if d.fast.slow {
		return d.spec.rate.MulCast(bits64(d.fW, w), d.invT).RawUint()
	}
	return d.fast.cRate.MulCast(w&d.fast.maxW, d.fast.invT)
}

// Update is the golden per-event HPCC++ update (NewAck or NewINT with
// MeasureInflight and ComputeWind): the fixed, unrolled hop loop of
// MaxHops slots, each slot computed and its result selected by its valid
// bit, no floating point, reciprocals through the reciprocal-unit models,
// inputs masked to their field widths. It returns the flow's next state and
// the outputs. It allocates nothing and is bit-identical to UpdateSpec
// (which spells out the same operations with fixedpoint Values); the
// operation sequence and every signal's format are in docs/datapath.md.
func (d *Datapath) Update(st State, in Input) (next State, out Output) {
	c := &d.cfg
	p := &d.fast
	if p.slow {
		return d.UpdateSpec(st, in)
	}
	nh := uint64(in.NHops) & d.nhMask
	stNH := uint64(st.NHops) & d.nhMask
	pathOK := nh == stNH && nh <= uint64(d.maxHops)

	// Lines 2-3 per slot: record the telemetry (slots beyond the path are
	// invalid and stored as 0, as UpdateSpec computes) and decide validity.
	// The measurement inputs of the valid slots go to small arrays, so that
	// each of the two loops keeps its few live values in registers.
	var dtsOf, dBOf, qOf [MaxHopsLimit]uint64
	var codeOf [MaxHopsLimit]uint8
	var valid uint8
	for i := 0; i < int(min(nh, uint64(d.maxHops))); i++ {
		h := &in.Hops[i]
		prev := &st.Hops[i]
		ts, id := d.recordTsID(h)
		txb, ql := h.TxBytes&d.txMask, h.Qlen&d.qMask
		next.Hops[i] = HopState{Ts: ts, TxBytes: txb, Qlen: ql, ID: id}
		code := h.SpeedCode & d.codeMask & 15 // speed codes are at most 4 bits: the tables have 16 entries
		dts := d.deltaTs(ts, prev.Ts)
		if !pathOK || !d.speedOK[code] || id != prev.ID&d.idMask || dts-1 >= c.MaxDeltaTsNs { // dts == 0 || dts > MaxDeltaTsNs
			continue // the slot's u' is muxed to 0 and not selected
		}
		valid |= 1 << uint(i)
		dtsOf[i], codeOf[i] = dts, code
		dBOf[i] = (uint64(txb) - uint64(prev.TxBytes)) & uint64(d.txMask) // fixedpoint.WrapDiff(tx, prev tx, txBits)
		qOf[i] = uint64(min(ql, prev.Qlen&d.qMask))
	}
	out.HopValid = valid

	// Lines 4-7 for the valid slots, in slot order. The 1/dts unit runs
	// its steps here (Seed, Step, Scale: rd.Recip(dts) for dts != 0) so
	// that they inline into the loop.
	out.SelHop = NoHop
	var uAcc, dtsSel uint64
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
		// The first valid slot is taken; a later one only if strictly greater.
		if out.SelHop == NoHop || up > uAcc {
			uAcc, dtsSel, out.SelHop = up, dts, uint8(i)
		}
	}

	// Lines 8-9. (The registers are read here, after the hop loops, so
	// that the loops have fewer live values.)
	uReg := st.U & p.maxU
	wcReg := st.Wc & p.maxW
	inc := st.IncStage & d.incMask
	tau := min(dtsSel, p.t)
	a := (p.t - tau) * uReg // exact: fits the EWMA product format (<= 64 bits, checked at construction)
	b := tau * uAcc
	uNew := p.cEw.MulCast(a+b, p.invT)
	if out.HopValid == 0 { // (out.HopValid is valid; reading it back keeps one less value live in the loops)
		uNew = uReg // no valid hop: keep the stored U (UpdateSpec)
	}

	var updateWc bool
	if c.Mode == Sender {
		updateWc = seqAfter(in.Seq&d.seqMask, st.LastUpdate&d.seqMask, c.SeqBits)
	} else {
		updateWc = timeElapsed(in.NowNs&d.timeMask, st.LastUpdate&d.timeMask, c.TimeBits) > uint64(c.BaseRTTNs)
	}

	// ComputeWind.
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

	next.Valid = true
	next.NHops = uint8(nh)
	next.W, next.U = w, uNew
	next.Wc, next.IncStage, next.LastUpdate = st.Wc, inc, st.LastUpdate
	if updateWc {
		next.Wc = w
		if mi {
			next.IncStage = 0
		} else {
			next.IncStage = inc + 1
		}
		if c.Mode == Sender {
			next.LastUpdate = in.SndNxt & d.seqMask
		} else {
			next.LastUpdate = in.NowNs & d.timeMask
		}
	}
	out.MI, out.UpdateWc = mi, updateWc
	out.Notify = updateWc && c.Mode == Receiver
	if !st.Valid {
		next.W, next.Wc, next.U, next.IncStage = p.winit, p.winit, p.uinit, 0
		if c.Mode == Sender {
			next.LastUpdate = in.SndNxt & d.seqMask
		} else {
			next.LastUpdate = in.NowNs & d.timeMask
		}
		out = Output{First: true, SelHop: NoHop}
	}
	out.W, out.Wc, out.U, out.IncStage = next.W, next.Wc, next.U, next.IncStage
	out.Rate = p.cRate.MulCast(next.W, p.invT)
	return next, out
}
