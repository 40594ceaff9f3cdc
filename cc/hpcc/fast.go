package hpcc

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the production form of the golden datapath: the operation
// sequence of UpdateSpec (written with fixedpoint Values, op for op as
// docs/datapath.md lists it) compiled at construction into raw unsigned
// integer operations with precomputed shifts and saturation limits. Every
// signal of the datapath is unsigned and at most 64 bits wide, products are
// formed exactly in 128 bits (math/bits.Mul64), and each cast is the same
// round-half-up (Rnd) or floor (Trn) with saturation that fixedpoint
// applies. TestFastMatchesSpec checks the two bit for bit.

// castRnd returns (hi:lo) * 2^-s rounded half up (fixedpoint.Rnd on a
// non-negative value) and saturated at max (fixedpoint.Sat), for s in
// [-127, 127].
func castRnd(hi, lo uint64, s int, max uint64) uint64 {
	if s == 0 {
		if hi != 0 {
			return max
		}
		return min(lo, max)
	}
	if s > 0 && s < 64 { // the common case
		lo, c := bits.Add64(lo, 1<<uint(s-1), 0)
		hi += c
		if hi>>uint(s) != 0 {
			return max
		}
		return min(lo>>uint(s)|hi<<uint(64-s), max)
	}
	return castRndSlow(hi, lo, s, max)
}

func castRndSlow(hi, lo uint64, s int, max uint64) uint64 {
	if s > 0 {
		var c uint64
		if s <= 64 {
			lo, c = bits.Add64(lo, 1<<uint(s-1), 0)
			hi += c
		} else {
			hi += 1 << uint(s-65)
		}
	}
	return castTrn(hi, lo, s, max)
}

// castTrn returns floor((hi:lo) * 2^-s) (fixedpoint.Trn on a non-negative
// value) saturated at max.
func castTrn(hi, lo uint64, s int, max uint64) uint64 {
	if s == 0 {
		if hi != 0 {
			return max
		}
		return min(lo, max)
	}
	if s > 0 && s < 64 {
		if hi>>uint(s) != 0 {
			return max
		}
		return min(lo>>uint(s)|hi<<uint(64-s), max)
	}
	return castTrnSlow(hi, lo, s, max)
}

func castTrnSlow(hi, lo uint64, s int, max uint64) uint64 {
	switch {
	case s > 0:
		if s >= 64 {
			lo, hi = hi>>uint(s-64), 0
		} else {
			lo = lo>>uint(s) | hi<<uint(64-s)
			hi >>= uint(s)
		}
	case s < 0:
		t := uint(-s)
		if hi != 0 || (t >= 64 && lo != 0) || (t < 64 && lo > max>>t) {
			return max
		}
		lo <<= t
	}
	if hi != 0 || lo > max {
		return max
	}
	return lo
}

// mulRnd is fixedpoint.MulCast(x, y, to, Rnd, Sat) on raw values, with s =
// F(x) + F(y) - F(to) and max = to's largest raw value.
func mulRnd(x, y uint64, s int, max uint64) uint64 {
	hi, lo := bits.Mul64(x, y)
	return castRnd(hi, lo, s, max)
}

// rawRecip is a fixedpoint.Reciprocal with its configuration compiled to
// shifts: normalize, look up, Newton-Raphson in Work (Trn, Sat), scale and
// round into Out.
type rawRecip struct {
	w, k             int      // In.W, TableBits
	inF              int      // In.F()
	entF, workF      int      // Entry.F(), Work.F()
	nr               int      // Newton-Raphson steps
	workMax, two     uint64   // Work's largest raw value; 2 in Work
	outF             int      // Out.F()
	outMax           uint64   // Out's largest raw value
	rnd              bool     // Out quantization is Rnd (else Trn)
	table            []uint64 // Entry raw values
	mantF            int      // F of the mantissa u(w).1: w-1
	kMask, entryMask uint64
}

func newRawRecip(r *fixedpoint.Reciprocal) rawRecip {
	c := r.Config()
	rr := rawRecip{
		w: c.In.W, k: c.TableBits, inF: c.In.F(), entF: c.Entry.F(), workF: c.Work.F(), nr: c.NRSteps,
		outF: c.Out.F(), rnd: c.Q == fixedpoint.Rnd, table: r.Table(), mantF: c.In.W - 1,
	}
	rr.outMax, _ = c.Out.MaxRawUint()
	if c.NRSteps > 0 {
		rr.workMax, _ = c.Work.MaxRawUint()
		rr.two = 2 << uint(rr.workF)
	}
	rr.kMask = 1<<uint(rr.k) - 1
	return rr
}

// recip returns the raw Out value of about 1/x for the raw input x (In).
func (r *rawRecip) recip(x uint64) uint64 {
	if x == 0 {
		return r.outMax // 1/0 saturates
	}
	p := bits.Len64(x) - 1
	m := x << uint(r.w-1-p)
	idx := m >> uint(r.w-1-r.k) & r.kMask
	y, yF := r.table[idx], r.entF
	for s := 0; s < r.nr; s++ {
		hi, lo := bits.Mul64(m, y)
		e := castTrn(hi, lo, r.mantF+yF-r.workF, r.workMax)
		t := uint64(0)
		if e < r.two {
			t = r.two - e
		}
		hi, lo = bits.Mul64(y, t)
		y = castTrn(hi, lo, yF+r.workF-r.workF, r.workMax)
		yF = r.workF
	}
	s := yF - (r.inF - p) - r.outF
	if r.rnd {
		return castRnd(0, y, s, r.outMax)
	}
	return castTrn(0, y, s, r.outMax)
}

// fastPlan holds the datapath compiled to raw operations.
type fastPlan struct {
	rDts, rU, rN rawRecip

	sTx, sQ, sR, sUp, sEw, sK, sWm, sRate, sWai int
	maxTx, maxTerm, maxU, maxEoU, maxW, maxRate uint64
	kq, kr                                      [16]uint64
	eta, etaInU                                 uint64 // eta raw; eta in U's scale for the compare
	etaCmpShiftU, etaCmpShiftE                  uint   // align U and eta for the compare
	invT, t, wai, wmin, wmax, winit, uinit      uint64
	kWai, oneEoU                                uint64
	waiAlign                                    int // F(W) - F(wai) (same format: 0)
}

func maxRaw(f fixedpoint.Format) uint64 { m, _ := f.MaxRawUint(); return m }

func (d *Datapath) compileFast() {
	p := &d.fast
	p.rDts = newRawRecip(d.recipDts)
	p.rU = newRawRecip(d.recipU)
	if d.recipN != nil {
		p.rN = newRawRecip(d.recipN)
	}
	kqF, krF, invTF := d.tables[0].Format.F(), d.tables[1].Format.F(), d.invT.Format().F()
	p.sTx = d.fDB.F() + d.fRD.F() - d.fTx.F()
	p.sQ = d.fQ.F() + kqF - d.fTerm.F()
	p.sR = d.fTx.F() + krF - d.fTerm.F()
	p.sUp = d.fTerm.F() - d.fU.F()
	p.sEw = d.fEwS.F() + invTF - d.fU.F()
	p.sK = d.fRU.F() + d.fEta.F() - d.fEoU.F()
	p.sWm = d.fW.F() + d.fEoU.F() - d.fW.F()
	p.sRate = d.fW.F() + invTF - d.fRate.F()
	p.maxTx, p.maxTerm, p.maxU = maxRaw(d.fTx), maxRaw(d.fTerm), maxRaw(d.fU)
	p.maxEoU, p.maxW, p.maxRate = maxRaw(d.fEoU), maxRaw(d.fW), maxRaw(d.fRate)
	for c := 0; c < 16; c++ {
		p.kq[c], p.kr[c] = d.kq[c].RawUint(), d.kr[c].RawUint()
	}
	p.eta = d.eta.RawUint()
	// U >= eta compared exactly: bring both to the larger fraction count.
	if fu, fe := d.fU.F(), d.fEta.F(); fu >= fe {
		p.etaCmpShiftE = uint(fu - fe)
	} else {
		p.etaCmpShiftU = uint(fe - fu)
	}
	p.invT, p.t = d.invT.RawUint(), d.tT.RawUint()
	p.wai, p.wmin, p.wmax = d.wai.RawUint(), d.wmin.RawUint(), d.wmax.RawUint()
	p.winit, p.uinit = d.winit.RawUint(), d.uinit.RawUint()
	p.oneEoU = d.oneEoU.RawUint()
	if d.cfg.DynamicWAI {
		p.kWai = d.kWai.RawUint()
		p.sWai = d.kWai.Format().F() + d.fRN.F() - d.fW.F()
	}
}

// Update is the golden per-event HPCC++ update (NewAck or NewINT with
// MeasureInflight and ComputeWind): the fixed, unrolled hop loop of
// MaxHops slots, each slot computed and its result selected by its valid
// bit, no floating point, reciprocals through the reciprocal-unit models,
// inputs masked to their field widths. It returns the flow's next state and
// the outputs. It allocates nothing and is bit-identical to UpdateSpec
// (which spells out the same operations with fixedpoint Values); the
// operation sequence and every signal's format are in docs/datapath.md.
func (d *Datapath) Update(st State, in Input) (State, Output) {
	c := &d.cfg
	p := &d.fast
	nh := uint64(in.NHops) & d.nhMask
	stNH := uint64(st.NHops) & d.nhMask
	pathOK := nh == stNH && nh <= uint64(d.maxHops)
	uReg := st.U & p.maxU
	wcReg := st.Wc & p.maxW
	inc := st.IncStage & d.incMask

	var next State
	out := Output{SelHop: NoHop}
	var uAcc, dtsSel uint64
	have := false
	for i := 0; i < d.maxHops; i++ {
		if uint64(i) >= nh {
			break // slots beyond the path: invalid and stored as 0 (as UpdateSpec computes)
		}
		h := &in.Hops[i]
		prev := &st.Hops[i]
		rec := d.record(h)
		next.Hops[i] = rec
		code := h.SpeedCode & d.codeMask
		dts := d.deltaTs(rec.Ts, prev.Ts)
		ok := pathOK && d.speedOK[code] && rec.ID == prev.ID&d.idMask && dts != 0 && dts <= c.MaxDeltaTsNs
		if !ok {
			continue // the slot's u' is muxed to 0 and not selected
		}
		out.HopValid |= 1 << uint(i)
		rd := p.rDts.recip(dts)
		dB := fixedpoint.WrapDiff(uint64(rec.TxBytes), uint64(prev.TxBytes), d.txBits)
		x := mulRnd(dB, rd, p.sTx, p.maxTx)
		q := uint64(min(rec.Qlen, prev.Qlen&d.qMask))
		qTerm := mulRnd(q, p.kq[code], p.sQ, p.maxTerm)
		rTerm := mulRnd(x, p.kr[code], p.sR, p.maxTerm)
		sum, carry := bits.Add64(qTerm, rTerm, 0)
		up := castRnd(carry, sum, p.sUp, p.maxU)
		if !have || up > uAcc {
			uAcc, dtsSel, out.SelHop = up, dts, uint8(i)
		}
		have = true
	}

	// Lines 8-9.
	tau := min(dtsSel, p.t)
	a := (p.t - tau) * uReg // exact: fits the EWMA product format (<= 64 bits, checked at construction)
	b := tau * uAcc
	hi, lo := bits.Mul64(a+b, p.invT)
	uNew := castRnd(hi, lo, p.sEw, p.maxU)

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
		wai = mulRnd(p.kWai, p.rN.recip(n), p.sWai, p.maxW)
	}
	uGE := uNew<<p.etaCmpShiftU >= p.eta<<p.etaCmpShiftE
	mi := uGE || int(inc) >= c.MaxStage
	var w uint64
	if mi {
		k := mulRnd(p.rU.recip(uNew), p.eta, p.sK, p.maxEoU)
		if uGE {
			k = min(k, p.oneEoU)
		}
		wMul := mulRnd(wcReg, k, p.sWm, p.maxW)
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
	out.Rate = mulRnd(next.W, p.invT, p.sRate, p.maxRate)
	return next, out
}
