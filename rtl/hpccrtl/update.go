package hpccrtl

import (
	"fmt"
	"math/big"
	"strconv"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Port names of the handshake added to hpcc_update by the pipeliner.
const (
	ValidIn  = "in_valid"
	ValidOut = "out_valid"
)

// UpdateName is the module name of the per-event update.
const UpdateName = "hpcc_update"

// builder holds what the description needs from the golden datapath's
// configuration: formats, quantized constants, ROM contents, reciprocal
// units. Every value comes from cc/hpcc's exported tables (Constants,
// Tables, RecipUnits, the field tables) or is derived from the Config by
// the rules docs/datapath.md states; the operations themselves are written
// here independently of the golden model's code.
type builder struct {
	m   *rtl.Module
	d   *hpcc.Datapath
	cfg hpcc.Config
	e   telemetry.Encoding

	fU, fW, fRate, fEta, fTerm, fTx, fEoU fixedpoint.Format
	fDts, fDB, fQ, fTau, fN, fEwA, fEwS   fixedpoint.Format

	konst  map[string]fixedpoint.Value // Constants by name
	tables map[string]hpcc.Table
	units  map[string]hpcc.RecipUnit
	in     *updatePorts // input ports (typed record)
}

func ufmt(w int) fixedpoint.Format { return fixedpoint.Format{W: w, I: w} }

func newBuilder(d *hpcc.Datapath, m *rtl.Module) (*builder, error) {
	c := d.Config()
	fm := c.Formats
	b := &builder{m: m, d: d, cfg: c, e: c.Encoding,
		fU: fm.U, fW: fm.W, fRate: fm.Rate, fEta: fm.Eta, fTerm: fm.Term,
		fTx: fm.TxRate, fEoU: fm.EtaOverU,
		fDts: ufmt(c.DtsInBits()), fDB: ufmt(c.Encoding.TxBytesBits()), fQ: ufmt(c.Encoding.QlenBits()),
		fTau: ufmt(c.TauBits()), fN: ufmt(c.FlowCountBits),
		konst: map[string]fixedpoint.Value{}, tables: map[string]hpcc.Table{}, units: map[string]hpcc.RecipUnit{},
	}
	var err error
	if b.fEwA, err = fixedpoint.MulFormat(b.fTau, b.fU); err != nil {
		return nil, fmt.Errorf("hpccrtl: EWMA product format: %w", err)
	}
	if b.fEwS, err = fixedpoint.AddFormat(b.fEwA, b.fEwA); err != nil {
		return nil, fmt.Errorf("hpccrtl: EWMA sum format: %w", err)
	}
	for _, k := range d.Constants() {
		v, err := fixedpoint.FromUint(k.Format, k.Raw)
		if err != nil {
			return nil, fmt.Errorf("hpccrtl: constant %s: %w", k.Name, err)
		}
		b.konst[k.Name] = v
	}
	for _, t := range d.Tables() {
		b.tables[t.Name] = t
	}
	for _, u := range d.RecipUnits() {
		b.units[u.Name] = u
	}
	need := func(kind string, ok bool, name string) error {
		if !ok {
			return fmt.Errorf("hpccrtl: the datapath has no %s %q", kind, name)
		}
		return nil
	}
	var errs []error
	for _, n := range []string{"eta", "w_ai", "w_min", "w_max", "w_init", "u_init", "t"} {
		_, ok := b.konst[n]
		errs = append(errs, need("constant", ok, n))
	}
	tabs, units := []string{"kq", "kr", "inv_t"}, []string{"recip_dts", "recip_u"}
	if c.DynamicWAI {
		tabs, units = append(tabs, "k_wai"), append(units, "recip_n")
	}
	if c.MultiQ.Enabled {
		tabs, units = append(tabs, "mq_wb", "mq_bh"), append(units, "recip_mq")
		for _, n := range []string{"mq_backlog", "one_term"} {
			_, ok := b.konst[n]
			errs = append(errs, need("constant", ok, n))
		}
	}
	for _, n := range tabs {
		_, ok := b.tables[n]
		errs = append(errs, need("table", ok, n))
	}
	for _, n := range units {
		_, ok := b.units[n]
		errs = append(errs, need("reciprocal unit", ok, n))
	}
	for _, e := range errs {
		if e != nil {
			return nil, e
		}
	}
	if len(b.tables["kq"].Entries) != c.Encoding.SpeedCodes() || len(b.tables["kr"].Entries) != c.Encoding.SpeedCodes() {
		return nil, fmt.Errorf("hpccrtl: speed tables do not have %d entries", c.Encoding.SpeedCodes())
	}
	return b, nil
}

// k returns a quantized parameter (newBuilder checked it exists).
func (b *builder) k(name string) rtl.Fx { return b.m.FxConst(b.konst[name]) }

// table returns entry 0 of a one-entry table as a constant, or the ROM
// lookup of a per-speed-code table.
func (b *builder) rom(name string, addr *rtl.Node) rtl.Fx {
	t := b.tables[name]
	return b.m.FxOf(b.m.ROM(addr, t.Format.W, t.Entries).Named(name), t.Format)
}

func (b *builder) tconst(name string) rtl.Fx {
	t := b.tables[name]
	v, _ := fixedpoint.FromUint(t.Format, t.Entries[0])
	return b.m.FxConst(v)
}

func (b *builder) recip(name string, x rtl.Fx) rtl.Fx {
	u := b.units[name]
	return b.m.FxRecip(x, u.Config, u.Table)
}

func (b *builder) c(w int, v uint64) *rtl.Node { return b.m.Const(w, false, v) }

// hopRec is one slot's telemetry as the flow table stores it.
type hopRec struct {
	ts, tx, q, id *rtl.Node // id nil without identity tracking
}

// record converts slot i's wire fields into the stored form (see
// hpcc.HopState): IFA normalizes the egress time rx + residence into
// sec<<30 | ns with eight comparators against k*10^9.
func (b *builder) record(i int) hopRec {
	m := b.m
	p := &b.in.hops[i]
	r := hopRec{tx: p.txBytes, q: p.qlen}
	if b.e == telemetry.Compact {
		r.ts = p.ts
		return r
	}
	t := m.Add(m.ZExt(p.rxNs, 33), m.ZExt(p.residence, 33)).Named(fmt.Sprintf("h%d_eg_t", i))
	carry := b.c(4, 0)
	mults := make([]uint64, 9)
	for k := 1; k <= 8; k++ {
		ge := m.Ge(t, b.c(33, uint64(k)*telemetry.NsPerSecond))
		carry = m.Add(carry, m.ZExt(ge, 4))
		mults[k] = uint64(k) * telemetry.NsPerSecond
	}
	carry = carry.Named(fmt.Sprintf("h%d_eg_carry", i))
	ns := m.Slice(m.Sub(t, m.ROM(carry, 33, mults)), 0, telemetry.IFAEgressNsBits).Named(fmt.Sprintf("h%d_eg_ns", i))
	sec := m.Add(p.rxSec, m.ZExt(carry, telemetry.IFARxSecBits)).Named(fmt.Sprintf("h%d_eg_sec", i))
	r.ts = m.Concat(sec, ns)
	if b.cfg.Sojourn {
		// Draft 9.4: the queue sample is the sojourn time (residence, ns),
		// saturated at the qlen field's maximum; it is what the flow table
		// stores in the hop's qlen slot.
		qb := b.e.QlenBits()
		qMax := b.c(qb, 1<<uint(qb)-1)
		over := m.Ne(m.Slice(p.residence, qb, p.residence.Width-qb), b.c(p.residence.Width-qb, 0))
		r.q = m.Mux(over, qMax, m.Slice(p.residence, 0, qb)).Named(fmt.Sprintf("h%d_sojourn_q", i))
	}
	if b.cfg.HopIDBits() > 0 {
		r.id = m.Concat(p.deviceID, p.egressPort)
	}
	return r
}

// deltaTs is the stored-timestamp difference cur - prev (hpcc deltaTs):
// Compact (cur - prev) mod 2^24; IFA dsec*10^9 + dns with a borrow from the
// ns field (51 bits).
func (b *builder) deltaTs(cur, prev *rtl.Node) *rtl.Node {
	m := b.m
	if b.e == telemetry.Compact {
		return m.Sub(cur, prev)
	}
	nb, sb := telemetry.IFAEgressNsBits, telemetry.IFARxSecBits
	cs, cn := m.Slice(cur, nb, sb), m.Slice(cur, 0, nb)
	ps, pn := m.Slice(prev, nb, sb), m.Slice(prev, 0, nb)
	borrow := m.Lt(cn, pn)
	dsec := m.Sub(m.Sub(cs, ps), m.ZExt(borrow, sb))
	dns := m.Sub(m.Add(m.ZExt(cn, 31), m.Mux(borrow, b.c(31, telemetry.NsPerSecond), b.c(31, 0))), m.ZExt(pn, 31))
	secNs := m.Mul(dsec, b.c(30, telemetry.NsPerSecond)) // < 2^50
	return m.Add(m.ZExt(secNs, 51), m.ZExt(dns, 51))
}

// buildComb builds the combinational hpcc_update.
func buildComb(d *hpcc.Datapath) (*rtl.Module, error) {
	c := d.Config()
	m := rtl.NewModule(UpdateName, "HPCC++ per-event update (draft-miao-tsv-hpcc section 4.2 lines 1-27, section 6.2)")
	b, err := newBuilder(d, m)
	if err != nil {
		return nil, err
	}
	if b.in, err = bindPorts(d, m); err != nil {
		return nil, err
	}
	ports := b.in
	const (
		rnd  = fixedpoint.Rnd
		trn  = fixedpoint.Trn
		sat  = fixedpoint.Sat
		wrap = fixedpoint.Wrap
	)
	nhb := c.NHopsBits()
	nh, stNH := ports.nhops, ports.stNHops
	pathOK := m.Eq(nh, stNH)
	if uint64(c.MaxHops) < 1<<uint(nhb)-1 {
		pathOK = m.And(pathOK, m.Le(nh, b.c(nhb, uint64(c.MaxHops))))
	}
	pathOK = pathOK.Named("path_ok")
	uReg := m.FxOf(ports.stU, b.fU)
	wcReg := m.FxOf(ports.stWc, b.fW)
	inc := ports.stIncStage

	// MeasureInflight, lines 3-7: one slot per hop, max-select chain.
	speedOK := make([]uint64, len(b.tables["kq"].Reals))
	for code, r := range b.tables["kq"].Reals {
		if r != nil && r.Sign() > 0 {
			speedOK[code] = 1
		}
	}
	selW := bitsFor(uint64(c.MaxHops))
	uAcc := m.FxConst(b.fU.Zero())
	dtsSel := m.FxConst(b.fDts.Zero())
	have := b.c(1, 0)
	sel := b.c(selW, uint64(c.MaxHops))
	var hopValid []*rtl.Node // MSB first at the end
	type nextHop struct {
		rec    hopRec
		inPath *rtl.Node
	}
	var nexts []nextHop
	one, _ := fixedpoint.FromInt(b.fDts, 1, sat)
	for i := 0; i < c.MaxHops; i++ {
		hp := fmt.Sprintf("h%d_", i)
		rec := b.record(i)
		inPath := m.Lt(b.c(nhb, uint64(i)), nh).Named(hp + "in_path")
		code := ports.hops[i].speed
		dts := b.deltaTs(rec.ts, ports.stHops[i].ts).Named(hp + "dts")
		conds := []*rtl.Node{pathOK, inPath, m.ROM(code, 1, speedOK).Named(hp + "speed_ok"),
			m.Ne(dts, b.c(dts.Width, 0)), m.Le(dts, b.c(dts.Width, c.MaxDeltaTsNs))}
		if rec.id != nil {
			conds = append(conds, m.Eq(rec.id, ports.stHops[i].id))
		}
		ok := m.AndAll(conds...).Named(hp + "ok")
		// Line 4: txRate = dTxBytes / dts; an invalid slot feeds 1 to the unit.
		dtsV := m.FxMux(ok, m.FxOf(m.Slice(dts, 0, b.fDts.W), b.fDts), m.FxConst(one))
		rd := b.recip("recip_dts", dtsV)
		dB := m.FxOf(m.Sub(rec.tx, ports.stHops[i].txBytes), b.fDB)
		x := m.FxMulCast(dB, rd, b.fTx, rnd, sat)
		// Line 5: u' = min(qlen, last qlen)*KQ[code] + txRate*KR[code].
		q := m.FxOf(m.Min(rec.q, ports.stHops[i].qlen), b.fQ)
		qTerm := m.FxMulCast(q, b.rom("kq", code), b.fTerm, rnd, sat)
		rTerm := m.FxMulCast(x, b.rom("kr", code), b.fTerm, rnd, sat)
		up := m.FxAddCast(qTerm, rTerm, b.fU, rnd, sat)
		if c.MultiQ.Enabled {
			up = b.multiQ(hp, code, x, q, qTerm, up)
		}
		up = m.FxMux(ok, up, m.FxConst(b.fU.Zero()))
		up.N.Named(hp + "u")
		// Lines 6-7: the first valid slot, replaced only by a strictly greater u'.
		take := m.And(ok, m.Or(m.Not(have), m.FxGt(up, uAcc))).Named(hp + "take")
		uAcc = m.FxMux(take, up, uAcc)
		dtsSel = m.FxMux(take, dtsV, dtsSel)
		sel = m.Mux(take, b.c(selW, uint64(i)), sel)
		have = m.Or(have, ok)
		hopValid = append([]*rtl.Node{ok}, hopValid...)
		nexts = append(nexts, nextHop{rec, inPath})
	}

	// Line 8: tau = min(tau, T); line 9: EWMA, products and sum exact.
	tT := b.k("t")
	tauPick := m.FxLt(tT, dtsSel)
	tau := m.FxMux(tauPick, m.FxCast(tT, b.fTau, trn, sat), m.FxCast(dtsSel, b.fTau, trn, sat))
	tau.N.Named("tau")
	tmt := m.FxSubCast(tT, tau, b.fTau, trn, wrap)
	ea := m.FxMulCast(tmt, uReg, b.fEwA, trn, wrap)
	eb := m.FxMulCast(tau, uAcc, b.fEwA, trn, wrap)
	es := m.FxAddCast(ea, eb, b.fEwS, trn, wrap)
	uEwma := m.FxMulCast(es, b.tconst("inv_t"), b.fU, rnd, sat)
	uEwma.N.Named("u_ewma")
	// No valid hop (tau = 0): keep st_u. The EWMA would give U*T*inv_t,
	// which inv_t (1/T rounded) can move by an LSB.
	have = have.Named("any_valid")
	uNew := m.FxMux(have, uEwma, uReg)
	uNew.N.Named("u_new")

	// Line 22 (sender) / line 29 (receiver): commit Wc this event?
	var updateWc, lastNew *rtl.Node
	if c.Mode == hpcc.Sender {
		dseq := m.Sub(ports.seq, ports.stLastUpdate)
		updateWc = m.And(m.Ne(dseq, b.c(c.SeqBits, 0)), m.Not(m.Bit(dseq, c.SeqBits-1)))
		lastNew = ports.sndNxt
	} else {
		el := m.Sub(ports.now, ports.stLastUpdate)
		updateWc = m.Gt(el, b.c(c.TimeBits, uint64(c.NotifyPeriod())))
		lastNew = ports.now
	}
	updateWc = updateWc.Named("update_wc")

	// ComputeWind, lines 11-20.
	var wai rtl.Fx
	if c.DynamicWAI {
		n := ports.nflows
		n = m.Mux(m.IsZero(n), b.c(c.FlowCountBits, 1), n)
		rn := b.recip("recip_n", m.FxOf(n, b.fN))
		wai = m.FxMulCast(b.tconst("k_wai"), rn, b.fW, rnd, sat)
	} else {
		wai = b.k("w_ai")
	}
	eta := b.k("eta")
	uGE := m.FxGe(uNew, eta).Named("u_ge_eta")
	incB := inc.Width
	// IncStageBits holds MaxStage, so the constant fits.
	mi := m.Or(uGE, m.Ge(inc, b.c(incB, uint64(c.MaxStage)))).Named("mi")
	ru := b.recip("recip_u", uNew)
	kf := m.FxMulCast(ru, eta, b.fEoU, rnd, sat)
	oneEoU, err := fixedpoint.FromRat(b.fEoU, big.NewRat(1, 1), rnd, sat)
	if err != nil {
		return nil, fmt.Errorf("hpccrtl: one in %s: %w", b.fEoU, err)
	}
	kf = m.FxMux(uGE, m.FxMin(kf, m.FxConst(oneEoU)), kf)
	wMul := m.FxMulCast(wcReg, kf, b.fW, rnd, sat)
	wMI := m.FxAddCast(wMul, wai, b.fW, rnd, sat)
	wAI := m.FxAddCast(wcReg, wai, b.fW, rnd, sat)
	w := m.FxMux(mi, wMI, wAI)
	w = m.FxMin(m.FxMax(w, b.k("w_min")), b.k("w_max"))
	w.N.Named("w_new")

	// Next state; the first event loads the initial registers.
	first := m.Not(ports.stValid).Named("first")
	winit, uinit := b.k("w_init"), b.k("u_init")
	incNext := m.Mux(updateWc, m.Mux(mi, b.c(incB, 0), m.Add(inc, b.c(incB, 1))), inc)
	nsW := m.FxMux(first, winit, w)
	nsWc := m.FxMux(first, winit, m.FxMux(updateWc, w, wcReg))
	nsU := m.FxMux(first, uinit, uNew)
	nsInc := m.Mux(first, b.c(incB, 0), incNext)
	nsLast := m.Mux(m.Or(first, updateWc), lastNew, ports.stLastUpdate)
	rate := m.FxMulCast(nsW, b.tconst("inv_t"), b.fRate, rnd, sat)

	outs := map[string]*rtl.Node{
		"ns_valid": b.c(1, 1), "ns_nhops": nh, "ns_w": nsW.N, "ns_wc": nsWc.N, "ns_u": nsU.N,
		"ns_inc_stage": nsInc, "ns_last_update": nsLast,
		"out_rate": rate.N, "out_first": first,
		"out_mi":        m.And(m.Not(first), mi),
		"out_update_wc": m.And(m.Not(first), updateWc),
		"out_sel_hop":   m.Mux(first, b.c(selW, uint64(c.MaxHops)), sel),
		"out_hop_valid": m.Mux(first, b.c(c.MaxHops, 0), m.Concat(hopValid...)),
	}
	if c.Mode == hpcc.Receiver {
		outs["out_notify"] = m.And(m.Not(first), updateWc)
	} else {
		outs["out_notify"] = b.c(1, 0)
	}
	for i, nx := range nexts {
		p := "ns_hop" + strconv.Itoa(i) + "_"
		z := func(n *rtl.Node) *rtl.Node { return m.Mux(nx.inPath, n, b.c(n.Width, 0)) }
		outs[p+"ts"], outs[p+"tx_bytes"], outs[p+"qlen"] = z(nx.rec.ts), z(nx.rec.tx), z(nx.rec.q)
		if nx.rec.id != nil {
			outs[p+"id"] = z(nx.rec.id)
		}
	}
	for _, f := range d.OutputTable().Fields {
		n, ok := outs[f.Name]
		if !ok {
			return nil, fmt.Errorf("hpccrtl: output field %s: not produced by the description", f.Name)
		}
		if n.Width != f.Width {
			return nil, fmt.Errorf("hpccrtl: output field %s: %d bits, description has %d", f.Name, f.Width, n.Width)
		}
		m.Out(f.Name, m.AsUnsigned(n), f.Doc)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}

func bitsFor(v uint64) int {
	n := 0
	for v > 0 {
		n++
		v >>= 1
	}
	return n
}

// multiQ is the MultiQ u' of one hop slot (the HPCC++ slides' three cases;
// docs/datapath.md, "MultiQ"): u1 is the single-class u' computed with the
// kq and kr ROMs scaled by 1/w_q (case 1, txRate <= wB); above wB one
// reciprocal unit per slot serves case 2 (backlog: 1/tx_rate) and case 3
// (no backlog: 1/((tx_rate + B)/2)).
func (b *builder) multiQ(hp string, code *rtl.Node, x, q, qTerm, u1 rtl.Fx) rtl.Fx {
	m := b.m
	const (
		rnd = fixedpoint.Rnd
		trn = fixedpoint.Trn
		sat = fixedpoint.Sat
	)
	fTx := b.fTx
	fS := fixedpoint.Format{W: fTx.W + 1, I: fTx.I + 1} // tx_rate + mq_bh, exact
	fY := fixedpoint.Format{W: fTx.W + 1, I: fTx.I}     // mq_s/2, and tx_rate with one more fraction bit
	wb := b.rom("mq_wb", code)
	bh := b.rom("mq_bh", code)
	within := m.FxLe(x, wb).Named(hp + "mq_within")
	bl := b.k("mq_backlog")
	bl.N.Named("mq_backlog")
	isBl := m.FxGt(q, bl).Named(hp + "mq_is_backlog")
	s := m.FxAddCast(x, bh, fS, trn, sat)
	s.N.Named(hp + "mq_s")
	y := m.FxMux(isBl, m.FxCast(x, fY, trn, sat), m.FxOf(s.N, fY))
	y.N.Named(hp + "mq_y")
	rq := b.recip("recip_mq", y)
	rq.N.Named(hp + "recip_mq")
	// Case 2: u' = q_term * (mq_wb * recip_mq) + 1 = qlen/(txRate*T) + 1.
	rho := m.FxMulCast(wb, rq, hpcc.MQRhoFormat, rnd, sat)
	rho.N.Named(hp + "mq_rho")
	qBl := m.FxMulCast(qTerm, rho, b.fTerm, rnd, sat)
	qBl.N.Named(hp + "q_term_bl")
	u2 := m.FxAddCast(qBl, b.k("one_term"), b.fU, rnd, sat)
	u2.N.Named(hp + "u_bl")
	// Case 3: u' = tx_rate * recip_mq = 2*txRate/(txRate + B).
	u3 := m.FxMulCast(x, rq, b.fU, rnd, sat)
	u3.N.Named(hp + "u_nbl")
	u := m.FxMux(within, u1, m.FxMux(isBl, u2, u3))
	u.N.Named(hp + "u_hop_mq")
	return u
}
