package hpcc

import (
	"fmt"
	"math"
	"math/big"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the MultiQ path of the golden datapath: the per-class
// utilisation of the HPCC++ slides (seeds 002_..., "HPCC++ MultiQ
// Algorithm"), for a flow whose traffic class j is guaranteed wB_j = w*B on
// every link and whose telemetry reports the class's own txBytes and queue
// (the same wire fields as single-class HPCC++). Per valid hop:
//
//	txRate <= wB:                 u' = qlen/(wB*T) + txRate/wB
//	txRate >  wB, qlen > backlog: u' = qlen/(txRate*T) + 1
//	txRate >  wB, qlen <= backlog: u' = txRate/((txRate + B)/2)
//
// In hardware (docs/datapath.md, "MultiQ"):
//   - w is quantized to u17.1 (16 fraction bits, round half up): w_q;
//   - case 1 is the single-class u' with the kq and kr ROMs scaled by 1/w_q
//     (kq = unit_q/(w_q*B*T), kr = unit_tx/(w_q*B)): no extra operator;
//   - the compare txRate <= wB is exact on raw integers: tx_rate against the
//     per-speed-code ROM mq_wb = w_q*B/unit_tx in Formats.TxRate;
//   - the backlog compare is exact: q_min > mq_backlog = floor(BacklogBytes /
//     qlen unit), equivalent to qlen_bytes > BacklogBytes;
//   - cases 2 and 3 are exclusive, so one reciprocal unit per hop (recip_mq)
//     serves both: its input mq_y is tx_rate (case 2) or (tx_rate + mq_bh)/2
//     (case 3, mq_bh = B/unit_tx in Formats.TxRate), both exact in
//     u(W+1).I of Formats.TxRate;
//   - case 2: mq_rho = mq_wb * recip_mq (= wB/txRate < 1) and u' = q_term *
//     mq_rho + 1, where q_term = qlen/(wB*T) is case 1's queue term, so
//     q_term*mq_rho = qlen/(txRate*T);
//   - case 3: u' = tx_rate * recip_mq = 2*txRate/(txRate + B).

// MQCase is the MultiQ case of one hop (MultiQHop).
type MQCase uint8

// The MultiQ cases of the slides.
const (
	MQOff       MQCase = iota // MultiQ disabled, or the hop is not valid
	MQWithin                  // txRate <= wB: u' = qlen/(wB*T) + txRate/wB
	MQBacklog                 // txRate > wB, qlen > backlog: u' = qlen/(txRate*T) + 1
	MQNoBacklog               // txRate > wB, qlen <= backlog: u' = txRate/((txRate+B)/2)
)

// String names the case.
func (c MQCase) String() string {
	switch c {
	case MQOff:
		return "off"
	case MQWithin:
		return "within"
	case MQBacklog:
		return "backlog"
	case MQNoBacklog:
		return "no_backlog"
	}
	return fmt.Sprintf("MQCase(%d)", uint8(c))
}

// MQWeightFormat is the format of the quantized class weight w_q: u17.1,
// 16 fraction bits, holding (0, 1]. The weight is quantized round half up,
// so |w_q - w| <= 2^-17.
var MQWeightFormat = fixedpoint.Format{W: 17, I: 1}

// MQRhoFormat is the format of mq_rho = wB/txRate (case 2, below 1 plus
// the reciprocal's rounding): u41.1, 40 fraction bits.
var MQRhoFormat = fixedpoint.Format{W: 41, I: 1}

// mqRecipExtraFrac is how many fraction bits recip_mq keeps below the
// reciprocal of its largest input (2^I of mq_y's format): with the
// output LSB/2 = 2^-(I_y+33), the rounding is below 2^-33 of 1/y for every y.
const mqRecipExtraFrac = 32

// mqWeight returns w_q, the class weight quantized into MQWeightFormat.
func (c Config) mqWeight() (fixedpoint.Value, error) {
	v, err := fixedpoint.FromRat(MQWeightFormat, ratOf(c.MultiQ.ClassWeight), fixedpoint.Rnd, fixedpoint.Sat)
	if err != nil {
		return v, fmt.Errorf("hpcc: MultiQ.ClassWeight=%v: %w", c.MultiQ.ClassWeight, err)
	}
	if v.IsZero() {
		return v, configErr("MultiQ.ClassWeight", c.MultiQ.ClassWeight, fmt.Sprintf("rounds to 0 in %s", MQWeightFormat))
	}
	return v, nil
}

// mqWeightRat is w_q as an exact rational, or 1 without MultiQ (so the kq
// and kr ROMs are the single-class ones).
func (c Config) mqWeightRat() *big.Rat {
	if !c.MultiQ.Enabled {
		return big.NewRat(1, 1)
	}
	v, err := c.mqWeight()
	if err != nil {
		return big.NewRat(1, 1) // Validate reports the error
	}
	return v.Rat()
}

// mqBacklogUnits is the backlog threshold in qlen wire units:
// floor(BacklogBytes / QlenUnit), saturated at the qlen field's maximum.
// q*unit > BacklogBytes exactly when q > floor(BacklogBytes/unit).
func (c Config) mqBacklogUnits() uint64 {
	qMax := mask64(c.Encoding.QlenBits())
	v := math.Floor(c.MultiQ.BacklogBytes / float64(c.Encoding.QlenUnit()))
	if v >= float64(qMax) {
		return qMax
	}
	return uint64(v)
}

// mqWBReals are the exact entries of the mq_wb ROM: w_q * B / TxBytesUnit,
// the guaranteed rate in txBytes units per ns.
func (c Config) mqWBReals() []*big.Rat {
	sp := c.speedRats()
	out := make([]*big.Rat, len(sp))
	unit := big.NewRat(int64(c.Encoding.TxBytesUnit()), 1)
	wq := c.mqWeightRat()
	for i, b := range sp {
		if b != nil {
			out[i] = new(big.Rat).Quo(new(big.Rat).Mul(wq, b), unit)
		}
	}
	return out
}

// mqBHReals are the exact entries of the mq_bh ROM: B / TxBytesUnit.
func (c Config) mqBHReals() []*big.Rat {
	sp := c.speedRats()
	out := make([]*big.Rat, len(sp))
	unit := big.NewRat(int64(c.Encoding.TxBytesUnit()), 1)
	for i, b := range sp {
		if b != nil {
			out[i] = new(big.Rat).Quo(b, unit)
		}
	}
	return out
}

// mqPath is the MultiQ part of a Datapath (on only with MultiQ.Enabled).
type mqPath struct {
	on      bool
	wq      fixedpoint.Value       // w_q, MQWeightFormat
	backlog uint64                 // mq_backlog, qlen units
	wb, bh  [16]fixedpoint.Value   // ROMs in Formats.TxRate (0 for invalid codes)
	one     fixedpoint.Value       // 1.0 in Formats.Term
	fS      fixedpoint.Format      // tx_rate + mq_bh, exact
	fY      fixedpoint.Format      // recip_mq input: u(TxRate.W+1).TxRate.I
	fRQ     fixedpoint.Format      // recip_mq output
	fRho    fixedpoint.Format      // mq_rho
	recip   *fixedpoint.Reciprocal // recip_mq
	// specification plans
	sum *fixedpoint.AddCaster // AddCast(tx_rate, mq_bh, S, Trn, Sat) (exact)
	toY *fixedpoint.Caster    // Cast(tx_rate, Y, Trn, Sat) (exact)
	rho *fixedpoint.MulCaster // MulCast(mq_wb, recip_mq, Rho, Rnd, Sat)
	q2  *fixedpoint.MulCaster // MulCast(q_term, mq_rho, Term, Rnd, Sat)
	u2  *fixedpoint.AddCaster // AddCast(q_term_bl, 1, U, Rnd, Sat)
	u3  *fixedpoint.MulCaster // MulCast(tx_rate, recip_mq, U, Rnd, Sat)
	wbT Table
	bhT Table
}

// mqFormats derives the MultiQ formats from Formats.TxRate and the ROMs:
// S = AddFormat(TxRate, TxRate); Y = u(TxRate.W+1).TxRate.I (S's raw bits
// read with one more fraction bit are (tx_rate + mq_bh)/2, and tx_rate
// shifted left by one is tx_rate); recip_mq's output u(I+F).I with I the
// smallest integer bits holding 1/yMin (yMin = min(smallest mq_wb, smallest
// mq_bh/2): in case 2 tx_rate > mq_wb, in case 3 y >= mq_bh/2), at least 1,
// and F = Y.I + 32 (32 significant bits at the largest input), at most 64
// bits wide; mq_rho MQRhoFormat.
func mqFormats(fTx fixedpoint.Format, wb, bh []fixedpoint.Value) (fS, fY, fRQ, fRho fixedpoint.Format, err error) {
	if fS, err = fixedpoint.AddFormat(fTx, fTx); err != nil {
		return
	}
	if fY, err = fixedpoint.NewFormat(fTx.W+1, fTx.I, false); err != nil {
		return
	}
	var yMin *big.Rat
	for i := range wb {
		for _, r := range []*big.Rat{wb[i].Rat(), new(big.Rat).Quo(bh[i].Rat(), big.NewRat(2, 1))} {
			if r.Sign() > 0 && (yMin == nil || r.Cmp(yMin) < 0) {
				yMin = r
			}
		}
	}
	if yMin == nil {
		err = fmt.Errorf("no valid speed code")
		return
	}
	i := max(1, ceilLog2Strict(new(big.Rat).Inv(yMin)))
	w := min(64, i+fY.I+mqRecipExtraFrac)
	if fRQ, err = fixedpoint.NewFormat(w, i, false); err != nil {
		return
	}
	fRho = MQRhoFormat
	return
}

// buildMultiQ builds d.mq (after the tables and d.spec's formats exist).
func (d *Datapath) buildMultiQ() error {
	c := d.cfg
	mq := &d.mq
	mq.on = true
	var err error
	if mq.wq, err = c.mqWeight(); err != nil {
		return err
	}
	mq.backlog = c.mqBacklogUnits()
	rom := func(name, doc string, reals []*big.Rat) (Table, []fixedpoint.Value, error) {
		t := Table{Name: name, Doc: doc, Format: d.fTx}
		vals := make([]fixedpoint.Value, len(reals))
		for code, r := range reals {
			if r == nil {
				r = new(big.Rat)
			}
			v, err := quantizeEntry(d.fTx, r)
			if err != nil {
				return Table{}, nil, fmt.Errorf("hpcc: table %s entry %d: %w", name, code, err)
			}
			if r.Sign() > 0 && v.IsZero() {
				return Table{}, nil, fmt.Errorf("hpcc: table %s entry %d: %s rounds to 0 in Formats.TxRate=%s", name, code, r.FloatString(12), d.fTx)
			}
			vals[code] = v
			t.Entries = append(t.Entries, v.RawUint())
			t.Reals = append(t.Reals, r)
		}
		return t, vals, nil
	}
	wbT, wbV, err := rom("mq_wb", "guaranteed rate w_q*B per speed code, txBytes units per ns (MultiQ)", c.mqWBReals())
	if err != nil {
		return err
	}
	bhT, bhV, err := rom("mq_bh", "link speed B per speed code, txBytes units per ns (MultiQ)", c.mqBHReals())
	if err != nil {
		return err
	}
	mq.wbT, mq.bhT = wbT, bhT
	d.tables = append(d.tables, wbT, bhT)
	zero := d.fTx.Zero()
	for code := 0; code < 16; code++ {
		mq.wb[code], mq.bh[code] = zero, zero
		if code < len(wbV) {
			mq.wb[code], mq.bh[code] = wbV[code], bhV[code]
		}
	}
	if mq.fS, mq.fY, mq.fRQ, mq.fRho, err = mqFormats(d.fTx, wbV, bhV); err != nil {
		return fmt.Errorf("hpcc: MultiQ formats: %w", err)
	}
	if mq.one, err = fixedpoint.FromRat(d.fTerm, big.NewRat(1, 1), fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("hpcc: 1 in Formats.Term: %w", err)
	}
	if mq.one.Rat().Cmp(big.NewRat(1, 1)) != 0 {
		return configErr("Formats.Term", d.fTerm.String(), "must hold 1.0 exactly (MultiQ adds 1 to the backlog term)")
	}
	p := c.RecipDts
	if mq.recip, err = fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{
		In: mq.fY, TableBits: min(p.TableBits, mq.fY.W-1), Entry: fixedpoint.Format{W: p.EntryBits, I: 0},
		NRSteps: p.NRSteps, Out: mq.fRQ, Q: fixedpoint.Rnd, O: fixedpoint.Sat,
	}); err != nil {
		return fmt.Errorf("hpcc: recip_mq unit: %w", err)
	}
	const (
		rnd = fixedpoint.Rnd
		trn = fixedpoint.Trn
		sat = fixedpoint.Sat
	)
	wrapErr := func(name string, e error) error {
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: MultiQ %s: %w", name, e)
		}
		return err
	}
	var e error
	mq.sum, e = fixedpoint.NewAddCaster(d.fTx, d.fTx, mq.fS, trn, sat)
	wrapErr("tx_rate + mq_bh adder", e)
	mq.toY, e = fixedpoint.NewCaster(d.fTx, mq.fY, trn, sat)
	wrapErr("mq_y cast", e)
	mq.rho, e = fixedpoint.NewMulCaster(d.fTx, mq.fRQ, mq.fRho, rnd, sat)
	wrapErr("mq_rho multiplier", e)
	mq.q2, e = fixedpoint.NewMulCaster(d.fTerm, mq.fRho, d.fTerm, rnd, sat)
	wrapErr("q_term_bl multiplier", e)
	mq.u2, e = fixedpoint.NewAddCaster(d.fTerm, d.fTerm, d.fU, rnd, sat)
	wrapErr("u_bl adder", e)
	mq.u3, e = fixedpoint.NewMulCaster(d.fTx, mq.fRQ, d.fU, rnd, sat)
	wrapErr("u_nbl multiplier", e)
	return err
}

// specMQAbove is cases 2 and 3 (tx_rate > mq_wb) in the specification's
// arithmetic: x is tx_rate, qTerm the slot's q_term (qlen/(wB*T)), q the
// raw q_min, code the speed code. It returns u' in Formats.U.
func (d *Datapath) specMQAbove(x, qTerm fixedpoint.Value, q uint64, code uint8) fixedpoint.Value {
	mq := &d.mq
	if q > mq.backlog { // case 2: qlen/(txRate*T) + 1
		rq, _ := mq.recip.Recip(mq.toY.Cast(x))                 // recip_mq(tx_rate)
		rho := mq.rho.MulCast(mq.wb[code], rq)                  // mq_rho = MulCast(mq_wb, recip_mq, Rho, Rnd, Sat)
		return mq.u2.AddCast(mq.q2.MulCast(qTerm, rho), mq.one) // AddCast(MulCast(q_term, mq_rho, Term, Rnd, Sat), 1, U, Rnd, Sat)
	}
	// case 3: txRate / ((txRate + B)/2)
	s := mq.sum.AddCast(x, mq.bh[code]) // exact
	y := bits64(mq.fY, s.RawUint())     // (tx_rate + mq_bh)/2: S's bits with one more fraction bit
	rq, _ := mq.recip.Recip(y)
	return mq.u3.MulCast(x, rq) // MulCast(tx_rate, recip_mq, U, Rnd, Sat)
}

// mqFast is the raw-integer form of the MultiQ path (fastPlan).
type mqFast struct {
	on      bool
	backlog uint64
	wb, bh  [16]uint64
	one     uint64
	rq      fixedpoint.RawReciprocal
	rho, q2 fixedpoint.RawMulCaster
	u3      fixedpoint.RawMulCaster
	u2      fixedpoint.RawAddCaster
}

// compileMQ builds the raw plans of the MultiQ path.
func (d *Datapath) compileMQ(p *mqFast) error {
	mq := &d.mq
	var err error
	mul := func(name string, x, y, to fixedpoint.Format) fixedpoint.RawMulCaster {
		c, e := fixedpoint.NewRawMulCaster(x, y, to, fixedpoint.Rnd, fixedpoint.Sat)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: compiled MultiQ %s multiplier: %w", name, e)
		}
		return c
	}
	p.on = true
	p.backlog = mq.backlog
	for c := 0; c < 16; c++ {
		p.wb[c], p.bh[c] = mq.wb[c].RawUint(), mq.bh[c].RawUint()
	}
	p.one = mq.one.RawUint()
	p.rho = mul("mq_rho", d.fTx, mq.fRQ, mq.fRho)
	p.q2 = mul("q_term_bl", d.fTerm, mq.fRho, d.fTerm)
	p.u3 = mul("u_nbl", d.fTx, mq.fRQ, d.fU)
	if err != nil {
		return err
	}
	if p.u2, err = fixedpoint.NewRawAddCaster(d.fTerm, d.fTerm, d.fU, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("hpcc: compiled MultiQ u_bl adder: %w", err)
	}
	if p.rq, err = fixedpoint.NewRawReciprocal(mq.recip); err != nil {
		return fmt.Errorf("hpcc: compiled recip_mq unit: %w", err)
	}
	return nil
}

// above is cases 2 and 3 on raw registers (see specMQAbove): x = tx_rate
// (> wb[code]), qTerm = q_term, q = q_min.
func (p *mqFast) above(x, qTerm, q uint64, code uint8) uint64 {
	if q > p.backlog {
		rq := p.rq.Recip(x << 1) // tx_rate in mq_y's format (one more fraction bit)
		return p.u2.AddCast(p.q2.MulCast(qTerm, p.rho.MulCast(p.wb[code], rq)), p.one)
	}
	rq := p.rq.Recip(x + p.bh[code]) // (tx_rate + mq_bh)/2 in mq_y's format
	return p.u3.MulCast(x, rq)
}

// MultiQHop reports, for one valid hop's raw measurement (dts in ns, > 0;
// the txBytes counter difference dTx and q_min in wire units; the speed
// code), the MultiQ case the datapath takes and the two registers of the
// compare txRate <= wB: tx_rate and mq_wb[code], raw in Formats.TxRate. It
// is an observation for coverage and tests (the vectors' MultiQ classes);
// without MultiQ it returns MQOff and tx_rate.
func (d *Datapath) MultiQHop(dts, dTx, q uint64, code uint8) (c MQCase, txRate, wb uint64) {
	rd, _ := d.recipDts.Recip(bits64(d.fDts, dts))
	x := d.spec.tx.MulCast(bits64(d.fDB, dTx), rd)
	if !d.mq.on {
		return MQOff, x.RawUint(), 0
	}
	code &= 15
	wbv := d.mq.wb[code]
	switch {
	case fixedpoint.Cmp(x, wbv) <= 0:
		c = MQWithin
	case q&uint64(d.qMask) > d.mq.backlog:
		c = MQBacklog
	default:
		c = MQNoBacklog
	}
	return c, x.RawUint(), wbv.RawUint()
}

// mqSignals are the MultiQ rows of the signal table (Signals).
func (d *Datapath) mqSignals(rng func(fixedpoint.Format) string) []Signal {
	mq := &d.mq
	return []Signal{
		sigFmt("mq_wb[code]", d.fTx, "ROM", "Rnd (generation)", "none", mq.wbT.Doc),
		Signal{"mq_within", 1, "bool", "", "exact", "none", "tx_rate <= mq_wb[code] (raw compare, same format): case 1"},
		Signal{"mq_backlog", d.fQ.W, "uint", fmt.Sprintf("constant %d", mq.backlog), "Trn (generation: floor(BacklogBytes/qlen unit))", "Sat at the qlen maximum", "backlog threshold in qlen units"},
		Signal{"mq_is_backlog", 1, "bool", "", "exact", "none", "q_min > mq_backlog (equivalent to qlen bytes > BacklogBytes): case 2, else case 3"},
		sigFmt("mq_bh[code]", d.fTx, "ROM", "Rnd (generation)", "none", mq.bhT.Doc),
		sigFmt("mq_s", mq.fS, rng(mq.fS), "exact", "none", "tx_rate + mq_bh[code]"),
		sigFmt("mq_y", mq.fY, rng(mq.fY), "exact (mux; wiring)", "none", "is_backlog ? tx_rate : mq_s/2 (mq_s's bits with one more fraction bit)"),
		sigFmt("recip_mq", mq.fRQ, fmt.Sprintf("[0, %.6g]", mq.fRQ.Max().Float64()), "Rnd", "Sat (unused by the selected case: 1/y <= 1/yMin)", "1/mq_y from the reciprocal unit (one per hop, shared by cases 2 and 3)"),
		sigFmt("mq_rho", mq.fRho, "[0, 1 + eps]", "Rnd", "Sat (unused)", "mq_wb * recip_mq = wB/txRate (case 2)"),
		sigFmt("q_term_bl", d.fTerm, rng(d.fTerm), "Rnd", "Sat (unused: <= q_term)", "q_term * mq_rho = qlen/(txRate*T) (case 2)"),
		sigFmt("u_bl", d.fU, rng(d.fU), "Rnd (exact when F(Term) = F(U))", "Sat at UMax (algorithm clamp)", "q_term_bl + 1 (case 2)"),
		sigFmt("u_nbl", d.fU, "[0, 2)", "Rnd", "none", "tx_rate * recip_mq = 2*txRate/(txRate + B) (case 3)"),
		sigFmt("u_hop_mq", d.fU, rng(d.fU), "exact (mux)", "none", fmt.Sprintf("valid ? (within ? u_hop : is_backlog ? u_bl : u_nbl) : 0 (w_q = %s)", mq.wq.String())),
	}
}

// mqRangeRows adds the MultiQ rows of the range analysis: the ROMs, the
// reciprocal's input and output, mq_rho, the case-2 queue term (whose
// q_term saturation is harmless only when Term.Max * w_q >= UMax: in case 2
// wB/txRate >= w_q for any physical rate, txRate <= B) and u_nbl < 2.
func (c Config) mqRangeRows(add func(string, fixedpoint.Format, float64, RangeStatus, string), verdict func(worst, max float64, harmless bool) RangeStatus, qWorst, bMin, bMax float64) {
	fm := c.Formats
	unitTx := float64(c.Encoding.TxBytesUnit())
	wq, _ := c.mqWeightRat().Float64()
	var wbV, bhV []fixedpoint.Value
	for _, r := range c.mqWBReals() {
		if r == nil {
			r = new(big.Rat)
		}
		v, _ := quantizeEntry(fm.TxRate, r)
		wbV = append(wbV, v)
	}
	for _, r := range c.mqBHReals() {
		if r == nil {
			r = new(big.Rat)
		}
		v, _ := quantizeEntry(fm.TxRate, r)
		bhV = append(bhV, v)
	}
	wbMax := wq * bMax / unitTx
	add("mq_wb", fm.TxRate, wbMax, verdict(wbMax, fmax(fm.TxRate), false), "w_q*B per speed code, txBytes units/ns")
	if wbMin := wq * bMin / unitTx; wbMin < 1024*flsb(fm.TxRate) {
		add("mq_wb_min", fm.TxRate, wbMin, Underflow, fmt.Sprintf("w_q*B_min=%.3g has fewer than 10 significant bits", wbMin))
	}
	add("mq_bh", fm.TxRate, bMax/unitTx, verdict(bMax/unitTx, fmax(fm.TxRate), false), "B per speed code, txBytes units/ns")
	fS, fY, fRQ, fRho, err := mqFormats(fm.TxRate, wbV, bhV)
	if err != nil {
		add("recip_mq", fm.TxRate, 0, Overflow, err.Error())
		return
	}
	sWorst := fmax(fm.TxRate) + bMax/unitTx
	add("mq_s", fS, sWorst, verdict(sWorst, fmax(fS), false), "tx_rate + mq_bh (exact)")
	add("mq_y", fY, sWorst/2, verdict(math.Max(sWorst/2, fmax(fm.TxRate)), fmax(fY), false), "tx_rate or (tx_rate + mq_bh)/2 (exact)")
	yMin := math.Inf(1)
	for i := range wbV {
		for _, y := range []float64{wbV[i].Float64(), bhV[i].Float64() / 2} {
			if y > 0 {
				yMin = math.Min(yMin, y)
			}
		}
	}
	rqWorst := 1 / yMin
	add("recip_mq", fRQ, rqWorst, verdict(rqWorst, fmax(fRQ), false), "1/y for y > mq_wb (case 2) or y >= mq_bh/2 (case 3)")
	if minR := 1 / fmax(fY); minR < 1024*flsb(fRQ) {
		add("recip_mq_min", fRQ, minR, Underflow, fmt.Sprintf("1/max(y)=%.3g has fewer than 10 significant bits", minR))
	}
	add("mq_rho", fRho, 1, verdict(1, fmax(fRho), false), "wB/txRate < 1 in case 2 (plus the reciprocal's rounding)")
	uMax := c.UMax()
	add("q_term_bl", fm.Term, qWorst, verdict(qWorst, fmax(fm.Term), fmax(fm.Term)*wq >= uMax),
		fmt.Sprintf("case 2 multiplies q_term by wB/txRate >= w_q: a saturated q_term is harmless only if Term.Max*w_q=%.4g >= UMax", fmax(fm.Term)*wq))
	add("u_nbl", fm.U, 2, verdict(2, uMax, false), "2*txRate/(txRate + B) < 2")
}

// mqBounds widens the per-hop bounds to the three MultiQ cases (docs/
// datapath.md, "MultiQ"). With eps_x = eps_recip_dts + LSB(TxRate)/2/wb_min
// (tx_rate's relative error where txRate > wB), eps_wb and eps_bh the ROMs'
// half LSB over their smallest entry, eps_rq = the recip_mq unit's mantissa
// error + LSB(Out)/2 * Y.Max, eps_w = |w_q - w|/w:
//
//	case 1 (kq, kr scaled by 1/w_q): HopRel + eps_w
//	case 2 (q_term*rho + 1):         rel eps_kq + eps_wb + eps_rq + eps_x on
//	                                 u' - 1, abs LSB(Term) (q_term's and
//	                                 q_term_bl's roundings) + Term.Max*LSB(Rho)/2
//	                                 + LSB(U)/2
//	case 3 (tx_rate*recip_mq):       rel eps_x + eps_bh + eps_rq, abs LSB(U)/2
//
// and the case decision band MQCaseRel = eps_x + eps_wb + eps_w.
func (d *Datapath) mqBounds(b *ErrorBounds, epsRD, epsKQ, margin float64) {
	mq := &d.mq
	fm := d.cfg.Formats
	lsb := func(f fixedpoint.Format) float64 { return math.Ldexp(1, -f.F()) }
	epsW := math.Abs(mq.wq.Float64()-d.cfg.MultiQ.ClassWeight) / d.cfg.MultiQ.ClassWeight
	epsWB, epsBH := tableRelBound(mq.wbT), tableRelBound(mq.bhT)
	wbMin := math.Inf(1)
	for _, v := range mq.wb {
		if f := v.Float64(); f > 0 {
			wbMin = math.Min(wbMin, f)
		}
	}
	epsX := epsRD + lsb(fm.TxRate)/2/wbMin
	var epsRQ float64
	for _, u := range d.RecipUnits() {
		if u.Name == "recip_mq" {
			epsRQ = u.MaxRelError + lsb(mq.fRQ)/2*mq.fY.Max().Float64()
		}
	}
	rel2 := epsKQ + epsWB + epsRQ + epsX
	abs2 := lsb(fm.Term) + fmax(fm.Term)*lsb(mq.fRho)/2 + lsb(fm.U)/2
	rel3 := epsX + epsBH + epsRQ
	abs3 := lsb(fm.U) / 2
	b.HopRel = math.Max(b.HopRel+margin*epsW, margin*math.Max(rel2, rel3))
	b.HopAbs = math.Max(b.HopAbs, margin*math.Max(abs2, abs3))
	b.MQCaseRel = margin * (epsX + epsWB + epsW)
}
