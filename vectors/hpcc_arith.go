package vectors

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file restates, for stimulus construction only, the intermediate
// values of lines 4-5 (txRate, the KQ/KR terms, u') and of the window of
// line 13 (1/U, eta/U, Wc*eta/U) that the golden datapath does not expose:
// the constructed classes (hpcc_directed.go) invert them to land a cast
// exactly on a rounding tie or a saturation threshold. Every operation is a
// fixedpoint raw plan built from the datapath's own formats, tables and
// reciprocal units (Datapath.RecipUnits, Tables, Constants), so the values
// are the datapath's bit for bit; the expected outputs still come from
// hpcc.Datapath.Update alone. The window restatement is checked against
// Update on every vector that uses it (windowArith.check), and the per-hop
// one against the hardware description by the coverage model's bins
// (vectors/coverage TestConstructedClassesHitBins).

// u128 is an unsigned 128-bit integer (hi:lo), the exact product of two
// raw operands.
type u128 struct{ hi, lo uint64 }

func mul128(a, b uint64) u128 {
	hi, lo := bits.Mul64(a, b)
	return u128{hi, lo}
}

// low returns the low d bits (0 <= d <= 128).
func (x u128) low(d int) u128 {
	switch {
	case d >= 128:
		return x
	case d >= 64:
		return u128{x.hi & (1<<uint(d-64) - 1), x.lo}
	case d <= 0:
		return u128{}
	}
	return u128{0, x.lo & (1<<uint(d) - 1)}
}

// shr returns x >> d (0 <= d < 128).
func (x u128) shr(d int) u128 {
	switch {
	case d == 0:
		return x
	case d >= 64:
		return u128{0, x.hi >> uint(d-64)}
	}
	return u128{x.hi >> uint(d), x.lo>>uint(d) | x.hi<<uint(64-d)}
}

// shl returns x << d (0 <= d < 64; bits above 128 are lost).
func (x u128) shl(d int) u128 {
	if d == 0 {
		return x
	}
	return u128{x.hi<<uint(d) | x.lo>>uint(64-d), x.lo << uint(d)}
}

func (x u128) bit(i int) bool {
	if i >= 64 {
		return x.hi>>uint(i-64)&1 != 0
	}
	return x.lo>>uint(i)&1 != 0
}

func (x u128) add64(v uint64) u128 {
	lo, c := bits.Add64(x.lo, v, 0)
	return u128{x.hi + c, lo}
}

func (x u128) cmp(y u128) int {
	switch {
	case x.hi != y.hi:
		if x.hi < y.hi {
			return -1
		}
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

func pow2(d int) u128 {
	if d >= 64 {
		return u128{1 << uint(d-64), 0}
	}
	return u128{0, 1 << uint(d)}
}

// castEdge describes one round-half-up, saturating cast of an exact
// product with d more fraction bits than the target: the d dropped bits
// decide the rounding, and the value before saturation is compared with the
// target's maximum.
type castEdge struct {
	d   int    // dropped fraction bits (>= 1 for a rounding cast)
	max uint64 // the target's largest raw value
}

// Rounding of an exact operand p at a cast: what the dropped bits say.
const (
	rndOther    = iota
	rndTie      // the dropped bits are exactly one half: rounds up
	rndBelowTie // one LSB of p below the tie: rounds down
)

// round classifies p's dropped bits.
func (c castEdge) round(p u128) int {
	if d := uint(c.d); d-1 < 63 { // 1 <= d <= 63: the dropped bits are in p.lo
		lo, half := p.lo&(1<<d-1), uint64(1)<<(d-1)
		switch {
		case lo == half:
			return rndTie
		case d >= 2 && lo+1 == half:
			return rndBelowTie
		}
		return rndOther
	}
	if c.d < 1 {
		return rndOther
	}
	lo := p.low(c.d)
	half := pow2(c.d - 1)
	switch {
	case lo.cmp(half) == 0:
		return rndTie
	case c.d >= 2 && lo.add64(1).cmp(half) == 0:
		return rndBelowTie
	}
	return rndOther
}

// pre returns the rounded value of p before saturation (round half up; a
// cast that adds fraction bits is exact).
func (c castEdge) pre(p u128) u128 {
	if d := uint(c.d); d-1 < 63 { // 1 <= d <= 63, branch free: (p >> d) + bit d-1
		lo, cy := bits.Add64(p.lo>>d|p.hi<<(64-d), p.lo>>(d-1)&1, 0)
		return u128{p.hi>>d + cy, lo}
	}
	if c.d < 1 {
		return p.shl(-c.d)
	}
	v := p.shr(c.d)
	if p.bit(c.d - 1) {
		v = v.add64(1)
	}
	return v
}

// sat returns the raw result of the cast: pre(p), saturated at max.
func (c castEdge) sat(p u128) uint64 {
	v := c.pre(p)
	if v.hi != 0 || v.lo > c.max {
		return c.max
	}
	return v.lo
}

// at reports whether p's value before saturation is exactly the maximum
// (off = 0) or one above it (off = 1).
func (c castEdge) at(p u128, off uint64) bool {
	v := c.pre(p)
	want := u128{0, c.max}.add64(off)
	return v.cmp(want) == 0
}

// atEdge reports at(p, 0) || at(p, 1), rounding p once.
func (c castEdge) atEdge(p u128) bool {
	v := c.pre(p)
	m := u128{0, c.max}
	return v.cmp(m) == 0 || v.cmp(m.add64(1)) == 0
}

// minOperand returns the smallest v in [0, vmax] with pre(v*k) >= t, or
// vmax+1 when there is none: what bisect(0, vmax, ...) finds for that
// monotone predicate, computed in closed form for a rounding cast (d >= 1:
// pre(p) >= t exactly when p >= t*2^d - 2^(d-1), so v = ceil((t*2^d -
// 2^(d-1)) / k)). A cast with d < 1 (pre shifts left and may drop bits, so
// it need not be monotone) is searched by bisect, as before.
func (c castEdge) minOperand(k uint64, t u128, vmax uint64) uint64 {
	if c.d < 1 {
		return bisect(0, vmax, func(v uint64) bool { return c.pre(mul128(v, k)).cmp(t) >= 0 })
	}
	if t == (u128{}) {
		return 0
	}
	none := vmax + 1
	tl := bits.Len64(t.lo)
	if t.hi != 0 {
		tl = 64 + bits.Len64(t.hi)
	}
	if k == 0 || tl+c.d > 128 {
		return none // v*k + 2^(d-1) < 2^128 <= t*2^d
	}
	n := shl128(t, c.d)
	h := pow2(c.d - 1)
	lo, b := bits.Sub64(n.lo, h.lo, 0)
	n = u128{n.hi - h.hi - b, lo}
	if n.hi >= k {
		return none // the quotient needs more than 64 bits
	}
	q, r := bits.Div64(n.hi, n.lo, k)
	if r != 0 {
		if q == ^uint64(0) {
			return none
		}
		q++
	}
	if q > vmax {
		return none
	}
	return q
}

// shl128 returns x << d (0 <= d < 128; the caller ensures nothing is lost).
func shl128(x u128, d int) u128 {
	if d >= 64 {
		return u128{x.lo << uint(d-64), 0}
	}
	return x.shl(d)
}

// hopArith is lines 4-5 of one hop slot in raw integers: 1/dts through the
// datapath's reciprocal unit, txRate = Rnd,Sat(dTx * 1/dts), r_term =
// Rnd,Sat(txRate * kr[code]), q_term = Rnd,Sat(q * kq[code]) and u' =
// Sat(q_term + r_term).
type hopArith struct {
	recip          fixedpoint.RawReciprocal
	recipCfg       fixedpoint.ReciprocalConfig
	recipTable     []uint64
	recipEntryMax  uint64
	tx, rt, qt, uc castEdge
	uShift         int // F(Term) - F(U): bits the u' sum drops (round half up)
	kq, kr         []uint64
	dtsMax         uint64 // MaxDeltaTsNs
	txMask, qMask  uint64
	mq             *mqArith // MultiQ cases 2 and 3 (hpcc_multiq.go); nil without MultiQ
}

// hopVals are the intermediate values of one hop slot.
type hopVals struct {
	rd          uint64 // 1/dts, raw Formats.RecipDts
	pTx, pR, pQ u128   // exact products before the txRate, r_term, q_term casts
	tx, r, q    uint64 // the cast results, raw
	pU          u128   // q_term + r_term before saturation into U (in Term's LSBs)
	u           uint64 // u', raw Formats.U (with MultiQ: the case's u')
	mq          mqVals // MultiQ: the case and the values of cases 2 and 3
}

// recipUnit returns the raw form of the datapath's reciprocal unit name,
// checking that its rebuilt table is the datapath's.
func recipUnit(h *HPCC, name string) (fixedpoint.RawReciprocal, []uint64, fixedpoint.ReciprocalConfig, error) {
	for _, u := range h.d.RecipUnits() {
		if u.Name != name {
			continue
		}
		r, err := fixedpoint.NewReciprocal(u.Config)
		if err != nil {
			return fixedpoint.RawReciprocal{}, nil, u.Config, fmt.Errorf("vectors: hpcc: %s: %w", name, err)
		}
		if !slices.Equal(r.Table(), u.Table) {
			return fixedpoint.RawReciprocal{}, nil, u.Config, fmt.Errorf("vectors: hpcc: %s: rebuilt table differs from the datapath's", name)
		}
		rr, err := fixedpoint.NewRawReciprocal(r)
		if err != nil {
			return fixedpoint.RawReciprocal{}, nil, u.Config, fmt.Errorf("vectors: hpcc: %s: %w", name, err)
		}
		return rr, u.Table, u.Config, nil
	}
	return fixedpoint.RawReciprocal{}, nil, fixedpoint.ReciprocalConfig{}, fmt.Errorf("vectors: hpcc: no reciprocal unit %s", name)
}

func maxRaw(f fixedpoint.Format) uint64 {
	v, _ := f.MaxRawUint()
	return v
}

// newHopArith builds lines 4-5 of h's datapath in raw integers.
func newHopArith(h *HPCC) (*hopArith, error) {
	c := h.cfg
	fm := c.Formats
	rr, table, rc, err := recipUnit(h, "recip_dts")
	if err != nil {
		return nil, err
	}
	// Sojourn needs nothing more: q is the sojourn sample (ns) and the kq
	// table holds 1/T. MultiQ's kq and kr are the 1/w_q-scaled tables read
	// below; its cases 2 and 3 are a.mq.
	a := &hopArith{recip: rr, recipCfg: rc, recipTable: table, recipEntryMax: maxRaw(rc.Entry), dtsMax: c.MaxDeltaTsNs, txMask: h.txMask, qMask: h.qMask}
	var fkq, fkr fixedpoint.Format
	for _, t := range h.d.Tables() {
		switch t.Name {
		case "kq":
			a.kq, fkq = t.Entries, t.Format
		case "kr":
			a.kr, fkr = t.Entries, t.Format
		}
	}
	if a.kq == nil || a.kr == nil {
		return nil, fmt.Errorf("vectors: hpcc: datapath has no kq/kr tables")
	}
	fDB := fixedpoint.Format{W: h.e.TxBytesBits(), I: h.e.TxBytesBits()}
	fQ := fixedpoint.Format{W: h.e.QlenBits(), I: h.e.QlenBits()}
	a.tx = castEdge{d: fDB.F() + fm.RecipDts.F() - fm.TxRate.F(), max: maxRaw(fm.TxRate)}
	a.rt = castEdge{d: fm.TxRate.F() + fkr.F() - fm.Term.F(), max: maxRaw(fm.Term)}
	a.qt = castEdge{d: fQ.F() + fkq.F() - fm.Term.F(), max: maxRaw(fm.Term)}
	a.uShift = fm.Term.F() - fm.U.F()
	a.uc = castEdge{d: a.uShift, max: maxRaw(fm.U)}
	for _, d := range []int{a.tx.d, a.rt.d, a.qt.d, a.uShift} {
		if d <= -64 || d >= 128 {
			return nil, fmt.Errorf("lines 4-5 shift a product by %d bits", d)
		}
	}
	if fm.TxRate.W > 64 || fm.Term.W > 63 || fm.RecipDts.W > 64 {
		return nil, fmt.Errorf("txRate, Term or 1/dts wider than 63 bits")
	}
	if c.MultiQ.Enabled {
		if a.mq, err = newMQArith(h); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// eval returns the intermediate values of a valid slot (0 < dts <=
// MaxDeltaTsNs, a valid code).
func (a *hopArith) eval(dts, dTx, q uint64, code uint8) hopVals {
	var v hopVals
	v.rd = a.recip.Recip(dts)
	a.fromRd(&v, dTx, q, code)
	return v
}

// recipTrace returns what rr.Recip(x) returns, computed with the same
// casts in the same order (the narrow ones where rr is narrow), together
// with the Newton-Raphson result y before the output cast and the leading
// one's position p of x, so that a caller reading the result's low bits
// (lowBitsAt) need not run the unit twice. An x that is 0 or wider than
// the unit's In register (inW bits) gives rr.Recip(x) with p = -1 (no
// trace). TestRecipTraceMatchesRecip checks it against Recip and lowBits.
func recipTrace(rr *fixedpoint.RawReciprocal, inW int, x uint64) (out, y uint64, p int) {
	if x == 0 || inW < 64 && x>>uint(inW) != 0 {
		return rr.Recip(x), 0, -1
	}
	m, y, p := rr.Seed(x)
	if rr.Narrow() {
		for j := 0; j < rr.NRSteps(); j++ {
			e := rr.MulE(j).MulCastNarrow(m, y)
			y = rr.MulY(j).MulCastNarrow(y, rr.TwoMinus(e))
		}
		return rr.Scale(p).Cast63(y), y, p
	}
	for j := 0; j < rr.NRSteps(); j++ {
		e := rr.MulE(j).MulCast(m, y)
		y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
	}
	return rr.Scale(p).Cast(y), y, p
}

// recipVals is one traced run of a reciprocal unit (recipTrace, or
// hpcc.RecipTrace of the datapath's own run): m and y0 are the mantissa
// and table entry Seed returned (0 when p = -1).
type recipVals struct {
	out, y uint64
	p      int
	m, y0  uint64
}

// setTrace fills r from x's run recorded by the datapath (t.P = -1: x = 0).
func (r *recipVals) setTrace(t *hpcc.RecipTrace) {
	r.out, r.y, r.p, r.m, r.y0 = t.Out, t.Y, t.P, t.M, t.Seed
}

// setRun fills r by running rr on x (recipTrace), keeping Seed's mantissa
// and entry for recipSeedAt.
func (r *recipVals) setRun(rr *fixedpoint.RawReciprocal, inW int, x uint64) {
	r.out, r.y, r.p = recipTrace(rr, inW, x)
	r.m, r.y0 = 0, 0
	if r.p >= 0 {
		r.m, r.y0, _ = rr.Seed(x)
	}
}

// recipSeedAt is recipSeed(rr, entryMax, x, delta) for the x of r's run:
// the Newton-Raphson steps and the output cast from Seed's mantissa and
// entry as recorded, without running Seed again. An untraced run (p = -1)
// runs recipSeed on x.
func recipSeedAt(rr *fixedpoint.RawReciprocal, entryMax uint64, r *recipVals, x uint64, delta int) (uint64, bool) {
	if r.p < 0 {
		return recipSeed(rr, entryMax, x, delta)
	}
	m, y := r.m, r.y0
	switch {
	case delta < 0 && y < uint64(-delta), delta > 0 && y+uint64(delta) > entryMax:
		return 0, false
	}
	y = uint64(int64(y) + int64(delta))
	for j := 0; j < rr.NRSteps(); j++ {
		e := rr.MulE(j).MulCast(m, y)
		y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
	}
	return rr.Scale(r.p).Cast(y), true
}

// fromTrace fills v and r from the datapath's record of the slot (the
// values fromRd and recipTrace compute from the same operands:
// TestTraceMatchesRestatement).
func (v *hopVals) fromTrace(r *recipVals, t *hpcc.HopTrace) {
	r.setTrace(&t.Rd)
	v.rd = t.Rd.Out
	v.pTx, v.tx = u128{t.PTxHi, t.PTxLo}, t.Tx
	v.pR, v.r = u128{t.PRHi, t.PRLo}, t.R
	v.pQ, v.q = u128{t.PQHi, t.PQLo}, t.Q
	v.pU = u128{0, t.Q}.add64(t.R)
	v.u = t.U
}

// fromRd fills v from v.rd.
func (a *hopArith) fromRd(v *hopVals, dTx, q uint64, code uint8) {
	v.pTx = mul128(dTx, v.rd)
	v.tx = a.tx.sat(v.pTx)
	v.pR = mul128(v.tx, a.kr[code])
	v.r = a.rt.sat(v.pR)
	v.pQ = mul128(q, a.kq[code])
	v.q = a.qt.sat(v.pQ)
	v.pU = u128{0, v.q}.add64(v.r)
	v.u = a.uc.sat(v.pU)
	if a.mq != nil {
		a.mq.eval(v, q, code)
	}
}

// uChanges reports whether u' differs from v's (the slot's values for
// dTx, q and code) when 1/dts is rd instead of v.rd: fromRd's u' for rd
// against v.u, with the chain cut short where a cast result equals v's
// (txRate, then r_term: u' depends on rd only through them). MultiQ's
// cases read txRate and the terms otherwise, so with MultiQ it is fromRd.
func (a *hopArith) uChanges(v *hopVals, rd, dTx, q uint64, code uint8) bool {
	if a.mq != nil {
		alt := hopVals{rd: rd}
		a.fromRd(&alt, dTx, q, code)
		return alt.u != v.u
	}
	tx := a.tx.sat(mul128(dTx, rd))
	if tx == v.tx {
		return false
	}
	r := a.rt.sat(mul128(tx, a.kr[code]))
	if r == v.r {
		return false
	}
	return a.uc.sat(u128{0, v.q}.add64(r)) != v.u
}

// rTerm returns r_term for txRate x on code.
func (a *hopArith) rTerm(x uint64, code uint8) uint64 { return a.rt.sat(mul128(x, a.kr[code])) }

// recipSeed returns the reciprocal unit's output for x (non-zero, In
// register) with its table entry replaced by entry+delta, and whether that
// entry fits the entry format.
func recipSeed(rr *fixedpoint.RawReciprocal, entryMax, x uint64, delta int) (uint64, bool) {
	m, y, p := rr.Seed(x)
	switch {
	case delta < 0 && y < uint64(-delta), delta > 0 && y+uint64(delta) > entryMax:
		return 0, false
	}
	y = uint64(int64(y) + int64(delta))
	for j := 0; j < rr.NRSteps(); j++ {
		e := rr.MulE(j).MulCast(m, y)
		y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
	}
	return rr.Scale(p).Cast(y), true
}

// seedEdge reports whether the reciprocal of x depends on the last bit of
// its table entry: the output with the entry one LSB lower (lo) or higher
// (hi) differs from the output with the entry itself (the Newton step's
// result then sits at a rounding boundary of the unit).
// The three runs share one Seed and take the unit's narrow casts where it
// has them (rr.Recip's own arithmetic: the same values as recipSeed's wide
// casts, TestSeedEdgeMatchesRecipSeed); x is non-zero and within the In
// register, as seedOperands builds it.
func seedEdge(rr *fixedpoint.RawReciprocal, entryMax, x uint64) (lo, hi bool) {
	m, y0, p := rr.Seed(x)
	run := func(y uint64) uint64 {
		if rr.Narrow() {
			for j := 0; j < rr.NRSteps(); j++ {
				e := rr.MulE(j).MulCastNarrow(m, y)
				y = rr.MulY(j).MulCastNarrow(y, rr.TwoMinus(e))
			}
			return rr.Scale(p).Cast63(y)
		}
		for j := 0; j < rr.NRSteps(); j++ {
			e := rr.MulE(j).MulCast(m, y)
			y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
		}
		return rr.Scale(p).Cast(y)
	}
	r := run(y0)
	lo = y0 >= 1 && run(y0-1) != r
	hi = y0+1 <= entryMax && run(y0+1) != r
	return lo, hi
}

// windowArith is line 13 in raw integers: eta/U = Rnd,Sat(1/U * eta)
// (at most 1 when U >= eta), Wc*eta/U = Rnd,Sat(Wc * eta/U), plus W_ai,
// clamped to [W_min, W_max].
type windowArith struct {
	recip                 fixedpoint.RawReciprocal
	rc                    fixedpoint.ReciprocalConfig
	recipTable            []uint64
	recipEntryMax         uint64
	kC                    fixedpoint.RawMulCaster
	wC                    fixedpoint.RawMulCaster
	aC                    fixedpoint.RawAddCaster
	eta, oneK, wai        uint64
	wMin, wMax, etaU      uint64
	dynamicWAI, wMinClamp bool
}

// newWindowArith builds line 13 of h's datapath in raw integers.
func newWindowArith(h *HPCC) (*windowArith, error) {
	c := h.cfg
	fm := c.Formats
	rr, table, rc, err := recipUnit(h, "recip_u")
	if err != nil {
		return nil, err
	}
	w := &windowArith{recip: rr, rc: rc, recipTable: table, recipEntryMax: maxRaw(rc.Entry), wMin: h.wMin, wMax: h.wMax, etaU: h.etaU,
		dynamicWAI: c.DynamicWAI, wMinClamp: h.wMinOK}
	var fEta fixedpoint.Format
	for _, k := range h.d.Constants() {
		switch k.Name {
		case "eta":
			w.eta, fEta = k.Raw, k.Format
		case "w_ai":
			w.wai = k.Raw
		}
	}
	if w.kC, err = fixedpoint.NewRawMulCaster(rc.Out, fEta, fm.EtaOverU, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return nil, fmt.Errorf("vectors: hpcc: eta/U: %w", err)
	}
	if w.wC, err = fixedpoint.NewRawMulCaster(fm.W, fm.EtaOverU, fm.W, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return nil, fmt.Errorf("vectors: hpcc: Wc*eta/U: %w", err)
	}
	if w.aC, err = fixedpoint.NewRawAddCaster(fm.W, fm.W, fm.W, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return nil, fmt.Errorf("vectors: hpcc: W + W_ai: %w", err)
	}
	one, err := fixedpoint.FromInt(fm.EtaOverU, 1, fixedpoint.Sat)
	if err != nil {
		return nil, fmt.Errorf("vectors: hpcc: 1.0 in EtaOverU: %w", err)
	}
	w.oneK = one.RawUint()
	return w, nil
}

// w returns the multiplicative step's new W for Wc and the 1/U output ru,
// new U at or above eta (uGE).
func (w *windowArith) w(wc, ru uint64, uGE bool) uint64 { return w.wK(wc, w.kOf(ru, uGE)) }

// kOf returns eta/U = Rnd,Sat(ru * eta) for the 1/U output ru, at most 1
// when the new U is at or above eta (uGE): the one value of the
// multiplicative step that depends on 1/U.
func (w *windowArith) kOf(ru uint64, uGE bool) uint64 {
	k := w.kC.MulCast(ru, w.eta)
	if uGE {
		k = min(k, w.oneK)
	}
	return k
}

// differs reports whether w(wc, ru2, uGE) differs from base = w(wc, ru,
// uGE), given kBase = kOf(ru, uGE): W reads 1/U only through eta/U, so an
// equal eta/U is the same W (and the rest of the step is not run).
func (w *windowArith) differs(wc, ru2 uint64, uGE bool, kBase, base uint64) bool {
	k := w.kOf(ru2, uGE)
	return k != kBase && w.wK(wc, k) != base
}

// wK returns the multiplicative step's new W for Wc and eta/U = k.
func (w *windowArith) wK(wc, k uint64) uint64 {
	v := w.aC.AddCast(w.wC.MulCast(wc, k), w.wai)
	if w.wMinClamp {
		v = max(v, w.wMin)
	}
	return min(v, w.wMax)
}
