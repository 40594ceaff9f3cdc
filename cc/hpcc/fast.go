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

// rcast is one cast of the compiled datapath: the non-negative value
// (hi:lo) * 2^-s rounded half up (fixedpoint.Rnd) or down (Trn) and
// saturated at max (Sat), with s, the rounding and max resolved at
// construction. It covers shifts s in [-63, 63], which every signal of a
// realistic configuration needs (the defaults use -24..44); a configuration
// with a cast beyond that is marked slow and its Update runs UpdateSpec.
//
// One branch-free formula covers every s: with r = max(s, 0) and
// l = max(-s, 0), the rounded value is q = (hi:lo + half) >> r, which is
// lo>>r + hi*2^(64-r) when hi < 2^r (one shift and one multiplication by a
// precomputed power of two: x86-64 without BMI2 shifts only by CL, so
// fewer variable shifts mean fewer register shuffles); it saturates when hi
// is larger or q > max >> l, and the result is q * 2^l.
type rcast struct {
	r     uint   // right shift max(s, 0)
	half  uint64 // rounding bias: 2^(s-1) for Rnd with s >= 1, else 0
	hiMax uint64 // 2^r - 1: a larger high word makes the shifted value >= 2^64
	k     uint64 // 2^(64-r) for r >= 1, else 0 (then hi is 0)
	lmul  uint64 // 2^l for the left shift l = max(-s, 0)
	lmax  uint64 // max >> l: the largest value the left shift keeps within max
	max   uint64 // saturation value: the target format's largest raw value
	slow  bool   // |s| > 63: not covered
}

func newRcast(s int, rnd bool, max uint64) rcast {
	c := rcast{max: max, lmax: max, lmul: 1}
	switch {
	case s > 63 || s < -63:
		c.slow = true
	case s >= 1:
		c.r = uint(s)
		c.hiMax = 1<<uint(s) - 1
		c.k = 1 << uint(64-s)
		if rnd {
			c.half = 1 << uint(s-1)
		}
	default:
		c.lmul = 1 << uint(-s)
		c.lmax = max >> uint(-s)
	}
	return c
}

// cast returns the rounded, saturated value of (hi:lo) * 2^-s: the
// quantization of the exact value, then saturation. hi plus the rounding
// carry must not overflow (it cannot: hi is at most 2^64-2 for a 64x64-bit
// product and at most 1 for a sum's carry). c must not be slow.
func (c *rcast) cast(hi, lo uint64) uint64 {
	lo, cy := bits.Add64(lo, c.half, 0)
	hi += cy
	if hi > c.hiMax { // at least 2^64 after the right shift
		return c.max
	}
	q := lo>>(c.r&63) + hi*c.k
	if q > c.lmax {
		return c.max
	}
	return q * c.lmul
}

// mul is fixedpoint.MulCast(x, y, to, Rnd|Trn, Sat) on raw values: the
// cast of the exact 128-bit product, with s = F(x) + F(y) - F(to).
func (c *rcast) mul(x, y uint64) uint64 { return c.cast(bits.Mul64(x, y)) }

// cast1 is cast(0, v) for v < 2^63 (the product of operands whose widths
// add up to at most 63 bits): the rounding bias (at most 2^62) cannot
// carry out of 64 bits.
func (c *rcast) cast1(v uint64) uint64 {
	q := (v + c.half) >> (c.r & 63)
	if q > c.lmax {
		return c.max
	}
	return q * c.lmul
}

// narrow reports whether every product of operands up to xMax and yMax is
// below 2^63, so that cast1 applies to it.
func narrow(xMax, yMax uint64) bool { return bits.Len64(xMax)+bits.Len64(yMax) <= 63 }

// rawRecip is a fixedpoint.Reciprocal with its configuration compiled to
// shifts: normalize, look up, Newton-Raphson in Work (Trn, Sat), scale and
// round into Out.
type rawRecip struct {
	w        int      // In.W
	nr       int      // Newton-Raphson steps
	two      uint64   // 2 in Work
	outMax   uint64   // Out's largest raw value
	table    []uint64 // Entry raw values, 2^TableBits of them
	kMask    uint64   // 2^TableBits - 1
	idxShift uint     // In.W - 1 - TableBits: the index is the TableBits mantissa bits below the leading one
	// nrE[j], nrY[j]: the two truncating multipliers of NR step j (step 0
	// has y in Entry, later steps y in Work); at most 3 steps.
	nrE, nrY [4]rcast
	// out[p]: the output cast of y for a leading one at bit p of the input:
	// 1/x = (1/m) * 2^(In.F - p), so s = F(y) - (In.F - p) - Out.F.
	out [64]rcast // indexed by p & 63 (p < In.W <= 64): no bounds check
	// narrow: every Newton-Raphson product and the value fed to out[p] are
	// below 2^63, so the steps and the output use cast1 (step1).
	narrow bool
	// slow: some cast is beyond rcast's range; recip then asks the unit.
	slow bool
	unit *fixedpoint.Reciprocal
	in   fixedpoint.Format
}

func newRawRecip(r *fixedpoint.Reciprocal) rawRecip {
	c := r.Config()
	rr := rawRecip{w: c.In.W, nr: c.NRSteps, table: r.Table(), unit: r, in: c.In}
	rr.outMax, _ = c.Out.MaxRawUint()
	rr.kMask = 1<<uint(c.TableBits) - 1
	rr.idxShift = uint(c.In.W - 1 - c.TableBits)
	mantF, entF, yF := c.In.W-1, c.Entry.F(), c.Entry.F()
	mMax, _ := c.In.MaxRawUint()
	entMax, _ := c.Entry.MaxRawUint()
	rr.narrow = narrow(entMax, 1)
	if c.NRSteps > 0 {
		workF := c.Work.F()
		workMax, _ := c.Work.MaxRawUint()
		rr.two = 2 << uint(workF)
		rr.narrow = narrow(mMax, entMax) && narrow(entMax, rr.two) && narrow(mMax, workMax) && narrow(workMax, rr.two) && narrow(workMax, 1)
		rr.nrE[0], rr.nrY[0] = newRcast(mantF+entF-workF, false, workMax), newRcast(entF, false, workMax)
		for j := 1; j < len(rr.nrE); j++ {
			rr.nrE[j], rr.nrY[j] = newRcast(mantF, false, workMax), newRcast(workF, false, workMax)
		}
		yF = workF
		rr.slow = rr.nrE[0].slow || rr.nrY[0].slow || rr.nrE[1].slow || rr.nrY[1].slow
	}
	rnd := c.Q == fixedpoint.Rnd
	for p := 0; p < c.In.W; p++ {
		rr.out[p] = newRcast(yF-(c.In.F()-p)-c.Out.F(), rnd, rr.outMax)
		rr.slow = rr.slow || rr.out[p].slow
	}
	return rr
}

// recip returns the raw Out value of about 1/x for the raw input x (In).
func (r *rawRecip) recip(x uint64) uint64 {
	if r.slow {
		v, _ := fixedpoint.FromBits64(r.in, x) // In is valid: the unit was built from it
		y, _ := r.unit.Recip(v)
		return y.RawUint()
	}
	if x == 0 {
		return r.outMax // 1/0 saturates
	}
	m, y, p := r.seed(x)
	if r.narrow {
		for j := 0; j < r.nr; j++ { // r.step1(j, m, y)
			e := r.nrE[j&3].cast1(m * y)
			y = r.nrY[j&3].cast1(y * r.twoMinus(e))
		}
		return r.out[p&63].cast1(y)
	}
	for j := 0; j < r.nr; j++ {
		y = r.step(j, m, y)
	}
	return r.out[p&63].cast(0, y)
}

// seed normalizes x != 0 (the leading one at bit p moves to bit In.W-1,
// giving the mantissa m in u(In.W).1) and looks up the table entry y0.
// recip, seed, step1 and out[p] are split so that Update can inline them.
func (r *rawRecip) seed(x uint64) (m, y uint64, p int) {
	p = bits.Len64(x) - 1
	m = x << (uint(r.w-1-p) & 63)
	return m, r.table[m>>(r.idxShift&63)&r.kMask], p
}

// step is Newton-Raphson step j: e = m*y (Trn, Sat into Work), t = 2 - e
// (0 when e >= 2), y' = y*t (Trn, Sat into Work).
func (r *rawRecip) step(j int, m, y uint64) uint64 {
	e := r.nrE[j&3].mul(m, y)
	return r.nrY[j&3].mul(y, r.twoMinus(e))
}

// step1 is step for a narrow unit.
func (r *rawRecip) step1(j int, m, y uint64) uint64 {
	e := r.nrE[j&3].cast1(m * y)
	return r.nrY[j&3].cast1(y * r.twoMinus(e))
}

// twoMinus is t = 2 - e, exact in Work, and 0 when e >= 2.
func (r *rawRecip) twoMinus(e uint64) uint64 {
	if e >= r.two {
		return 0
	}
	return r.two - e
}

// fastPlan holds the datapath compiled to raw operations.
type fastPlan struct {
	rDts, rU, rN rawRecip

	cTx, cQ, cR, cUp, cEw, cK, cWm, cRate, cWai rcast
	maxW                                        uint64
	kq, kr                                      [16]uint64
	eta                                         uint64 // eta raw
	uEta                                        uint64 // U >= eta exactly when U's raw value >= uEta
	invT, t, wai, wmin, wmax, winit, uinit      uint64
	kWai, oneEoU                                uint64
	qNarrow                                     bool // q * kq < 2^63: cQ.cast1 applies
	// slow: some cast of the configuration is beyond rcast's range (never
	// for a realistic one); Update then runs UpdateSpec, which it equals.
	slow bool
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
	p.maxW = maxRaw(d.fW)
	p.cTx = newRcast(d.fDB.F()+d.fRD.F()-d.fTx.F(), true, maxRaw(d.fTx))
	p.cQ = newRcast(d.fQ.F()+kqF-d.fTerm.F(), true, maxRaw(d.fTerm))
	p.cR = newRcast(d.fTx.F()+krF-d.fTerm.F(), true, maxRaw(d.fTerm))
	p.cUp = newRcast(d.fTerm.F()-d.fU.F(), true, maxRaw(d.fU))
	p.cEw = newRcast(d.fEwS.F()+invTF-d.fU.F(), true, maxRaw(d.fU))
	p.cK = newRcast(d.fRU.F()+d.fEta.F()-d.fEoU.F(), true, maxRaw(d.fEoU))
	p.cWm = newRcast(d.fW.F()+d.fEoU.F()-d.fW.F(), true, p.maxW)
	p.cRate = newRcast(d.fW.F()+invTF-d.fRate.F(), true, maxRaw(d.fRate))
	var kqMax uint64
	for c := 0; c < 16; c++ {
		p.kq[c], p.kr[c] = d.kq[c].RawUint(), d.kr[c].RawUint()
		kqMax = max(kqMax, p.kq[c])
	}
	p.qNarrow = narrow(maxRaw(d.fQ), kqMax)
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
	if d.cfg.DynamicWAI {
		p.kWai = d.kWai.RawUint()
		p.cWai = newRcast(d.kWai.Format().F()+d.fRN.F()-d.fW.F(), true, p.maxW)
	}
	p.slow = p.rDts.slow || p.rU.slow || p.rN.slow
	for _, c := range []*rcast{&p.cTx, &p.cQ, &p.cR, &p.cUp, &p.cEw, &p.cK, &p.cWm, &p.cRate, &p.cWai} {
		p.slow = p.slow || c.slow
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

	// Lines 4-7 for the valid slots, in slot order. The loop body calls
	// nothing: the 1/dts unit (recip: seed, refine, out) and the casts are
	// inlined.
	out.SelHop = NoHop
	var uAcc, dtsSel uint64
	rd := &p.rDts
	for v := valid; v != 0; v &= v - 1 {
		i := bits.TrailingZeros8(v)
		dts, code := dtsOf[i], codeOf[i]&15
		m, y, pos := rd.seed(dts) // 1/dts (dts != 0), as rd.recip(dts)
		var rDts uint64
		if rd.narrow {
			for j := 0; j < rd.nr; j++ { // rd.step1(j, m, y)
				e := rd.nrE[j&3].cast1(m * y)
				y = rd.nrY[j&3].cast1(y * rd.twoMinus(e))
			}
			rDts = rd.out[pos&63].cast1(y)
		} else {
			for j := 0; j < rd.nr; j++ {
				y = rd.step(j, m, y)
			}
			rDts = rd.out[pos&63].cast(0, y)
		}
		x := p.cTx.mul(dBOf[i], rDts)
		var qTerm uint64
		if p.qNarrow {
			qTerm = p.cQ.cast1(qOf[i] * p.kq[code])
		} else {
			qTerm = p.cQ.mul(qOf[i], p.kq[code])
		}
		rTerm := p.cR.mul(x, p.kr[code])
		sum, carry := bits.Add64(qTerm, rTerm, 0)
		up := p.cUp.cast(carry, sum)
		// The first valid slot is taken; a later one only if strictly greater.
		if out.SelHop == NoHop || up > uAcc {
			uAcc, dtsSel, out.SelHop = up, dts, uint8(i)
		}
	}

	// Lines 8-9. (The registers are read here, after the hop loops, so
	// that the loops have fewer live values.)
	uReg := st.U & p.cUp.max
	wcReg := st.Wc & p.maxW
	inc := st.IncStage & d.incMask
	tau := min(dtsSel, p.t)
	a := (p.t - tau) * uReg // exact: fits the EWMA product format (<= 64 bits, checked at construction)
	b := tau * uAcc
	hi, lo := bits.Mul64(a+b, p.invT)
	uNew := p.cEw.cast(hi, lo)
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
		wai = p.cWai.mul(p.kWai, p.rN.recip(n))
	}
	uGE := uNew >= p.uEta
	mi := uGE || int(inc) >= c.MaxStage
	var w uint64
	if mi {
		k := p.cK.mul(p.rU.recip(uNew), p.eta)
		if uGE {
			k = min(k, p.oneEoU)
		}
		wMul := p.cWm.mul(wcReg, k)
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
	out.Rate = p.cRate.mul(next.W, p.invT)
	return next, out
}
