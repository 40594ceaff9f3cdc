package hpcc

import (
	"fmt"
	"math/big"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// HopState is the stored telemetry of one hop (the draft's L[i]) as the
// flow table keeps it: only what the next event needs to difference
// against.
type HopState struct {
	// Ts is the egress timestamp: IFA stores the normalized egress time
	// (rx + residence) as sec<<30 | ns (20 + 30 bits); Compact stores its
	// 24-bit ns timestamp.
	Ts uint64
	// TxBytes is the txBytes counter as carried (IFA 32 bits in bytes,
	// Compact 20 bits in 128-byte units).
	TxBytes uint32
	// Qlen is the queue length as carried (IFA 24 bits in bytes, Compact 17
	// bits in 80-byte units).
	Qlen uint32
	// ID is the link identity DeviceID<<16 | EgressPort (36 bits) for IFA with
	// TrackHopIdentity, otherwise 0.
	ID uint64
}

// State is one flow's entry in the hardware flow table: raw bit patterns
// whose widths and formats the configuration fixes (see Datapath.Signals
// and the field tables). The zero State is a flow that has seen no
// telemetry.
type State struct {
	Valid      bool   // 1 bit: the flow has seen telemetry
	NHops      uint8  // NHopsBits: hop count of the stored telemetry
	W          uint64 // Formats.W: window, bytes
	Wc         uint64 // Formats.W: reference window, bytes
	U          uint64 // Formats.U: normalized inflight (EWMA)
	IncStage   uint8  // IncStageBits: additive-increase stages
	LastUpdate uint64 // LastUpdateBits: lastUpdateSeq (sender) or lastUpdateTime (receiver, ns)
	Hops       [MaxHopsLimit]HopState
}

// Output is what the datapath reports for one event besides the next state.
type Output struct {
	W, Wc, U uint64 // copies of the next state's W, Wc (Formats.W) and U (Formats.U)
	IncStage uint8  // copy of the next state's incStage
	Rate     uint64 // Formats.Rate: pacing rate R = W/T in bytes per ns (line 27)
	First    bool   // first event of the flow: telemetry recorded, nothing measured
	MI       bool   // line 12 condition: multiplicative step (U >= eta or incStage >= maxStage)
	UpdateWc bool   // Wc and incStage committed (sender: seq > lastUpdateSeq; receiver: > T since last)
	Notify   bool   // receiver: send a notification carrying W (line 31)
	SelHop   uint8  // hop index whose u' was the maximum, NoHop if none
	HopValid uint8  // bit i: hop i produced a measurement
}

// Datapath is the golden fixed-point HPCC++ per-event update built from a
// Config: the bit-exact model the RTL must match. It is immutable and safe
// for concurrent use; Update allocates nothing.
type Datapath struct {
	cfg     Config
	enc     telemetry.Encoding
	maxHops int
	trackID bool   // store and compare hop identities
	sojourn bool   // the hop's queue sample is its sojourn time (Config.Sojourn)
	idMask  uint64 // width of the stored identity

	nhMask, seqMask, timeMask, nMask uint64
	txBits                           uint
	qMask, txMask                    uint32
	codeMask                         uint8
	incMask                          uint8

	// formats
	fU, fW, fRate, fEta, fTerm, fTx, fRD, fRU, fEoU, fRN fixedpoint.Format
	fDts, fDB, fQ, fTau, fEwA, fEwS, fN                  fixedpoint.Format

	// constants
	eta, wai, wmin, wmax, winit, uinit, invT, tT, kWai fixedpoint.Value
	zeroU, oneDts, oneEoU                              fixedpoint.Value
	kq, kr                                             [16]fixedpoint.Value
	speedOK                                            [16]bool
	tables                                             []Table

	recipDts, recipU, recipN *fixedpoint.Reciprocal
	mq                       mqPath // MultiQ (MultiQ.Enabled)

	inTx, outTx transaction
	*unitCache  // shared with specDP
	spec        specPlans
	fast        fastPlan
	// specDP is the same datapath with fast.spec set: UpdateSpec runs its
	// Update.
	specDP *Datapath
}

// specPlans are the casts of UpdateSpec as fixedpoint plans: each datapath
// stage's formats and modes validated once in NewDatapath, so the
// op-by-op specification has no per-operation error to check. The comment
// of each field is the operation it performs.
type specPlans struct {
	tx    *fixedpoint.MulCaster // MulCast(dB, 1/dts, TxRate, Rnd, Sat)
	qTerm *fixedpoint.MulCaster // MulCast(q, kq, Term, Rnd, Sat)
	rTerm *fixedpoint.MulCaster // MulCast(txRate, kr, Term, Rnd, Sat)
	up    *fixedpoint.AddCaster // AddCast(qTerm, rTerm, U, Rnd, Sat)
	tau   *fixedpoint.Caster    // Cast(min(dts, T), tau, Trn, Sat)
	tmt   *fixedpoint.AddCaster // SubCast(T, tau, tau, Trn, Wrap)
	ewA   *fixedpoint.MulCaster // MulCast(T - tau, U, EwA, Trn, Wrap) and MulCast(tau, u, EwA, Trn, Wrap)
	ewS   *fixedpoint.AddCaster // AddCast(a, b, EwS, Trn, Wrap)
	ewU   *fixedpoint.MulCaster // MulCast(s, inv_t, U, Rnd, Sat)
	k     *fixedpoint.MulCaster // MulCast(1/U, eta, EtaOverU, Rnd, Sat)
	wMul  *fixedpoint.MulCaster // MulCast(Wc, eta/U, W, Rnd, Sat)
	wAdd  *fixedpoint.AddCaster // AddCast(w, W_ai, W, Rnd, Sat)
	rate  *fixedpoint.MulCaster // MulCast(W, inv_t, Rate, Rnd, Sat)
	wai   *fixedpoint.MulCaster // MulCast(k_wai, 1/N, W, Rnd, Sat) (DynamicWAI only)
}

// buildSpecPlans builds d.spec from the datapath's formats (after the
// tables and constants exist).
func (d *Datapath) buildSpecPlans() error {
	const (
		rnd  = fixedpoint.Rnd
		sat  = fixedpoint.Sat
		trn  = fixedpoint.Trn
		wrap = fixedpoint.Wrap
	)
	var err error
	mul := func(name string, x, y, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) *fixedpoint.MulCaster {
		c, e := fixedpoint.NewMulCaster(x, y, to, q, o)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: %s multiplier: %w", name, e)
		}
		return c
	}
	add := func(name string, x, y, to fixedpoint.Format, q fixedpoint.Quantization, o fixedpoint.Overflow) *fixedpoint.AddCaster {
		c, e := fixedpoint.NewAddCaster(x, y, to, q, o)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: %s adder: %w", name, e)
		}
		return c
	}
	kqF, krF, invTF := d.tables[0].Format, d.tables[1].Format, d.invT.Format()
	sp := &d.spec
	sp.tx = mul("tx_rate", d.fDB, d.fRD, d.fTx, rnd, sat)
	sp.qTerm = mul("q_term", d.fQ, kqF, d.fTerm, rnd, sat)
	sp.rTerm = mul("r_term", d.fTx, krF, d.fTerm, rnd, sat)
	sp.up = add("u'", d.fTerm, d.fTerm, d.fU, rnd, sat)
	sp.tmt = add("T-tau", d.fTau, d.fTau, d.fTau, trn, wrap)
	sp.ewA = mul("EWMA", d.fTau, d.fU, d.fEwA, trn, wrap)
	sp.ewS = add("EWMA sum", d.fEwA, d.fEwA, d.fEwS, trn, wrap)
	sp.ewU = mul("u_ewma", d.fEwS, invTF, d.fU, rnd, sat)
	sp.k = mul("eta/U", d.fRU, d.fEta, d.fEoU, rnd, sat)
	sp.wMul = mul("Wc*eta/U", d.fW, d.fEoU, d.fW, rnd, sat)
	sp.wAdd = add("W+W_ai", d.fW, d.fW, d.fW, rnd, sat)
	sp.rate = mul("rate", d.fW, invTF, d.fRate, rnd, sat)
	if d.cfg.DynamicWAI {
		sp.wai = mul("W_ai", d.kWai.Format(), d.fRN, d.fW, rnd, sat)
	}
	if err != nil {
		return err
	}
	if sp.tau, err = fixedpoint.NewCaster(d.fDts, d.fTau, trn, sat); err != nil {
		return fmt.Errorf("hpcc: tau register: %w", err)
	}
	return nil
}

// NewDatapath validates cfg and builds the datapath: formats, constants,
// the per-speed-code tables and the reciprocal units.
func NewDatapath(cfg Config) (*Datapath, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Datapath{cfg: cfg, enc: cfg.Encoding, maxHops: cfg.MaxHops, trackID: cfg.HopIDBits() > 0, sojourn: cfg.Sojourn, unitCache: &unitCache{}}
	e := cfg.Encoding
	d.nhMask = mask64(cfg.NHopsBits())
	d.idMask = mask64(cfg.HopIDBits())
	d.seqMask = mask64(cfg.SeqBits)
	d.timeMask = mask64(cfg.TimeBits)
	d.nMask = mask64(cfg.FlowCountBits)
	d.txBits = uint(e.TxBytesBits())
	d.txMask = uint32(mask64(e.TxBytesBits()))
	d.qMask = uint32(mask64(e.QlenBits()))
	d.codeMask = uint8(mask64(e.SpeedBits()))
	d.incMask = uint8(mask64(cfg.IncStageBits()))

	fm := cfg.Formats
	d.fU, d.fW, d.fRate, d.fEta = fm.U, fm.W, fm.Rate, fm.Eta
	d.fTerm, d.fTx, d.fRD, d.fRU, d.fEoU, d.fRN = fm.Term, fm.TxRate, fm.RecipDts, fm.RecipU, fm.EtaOverU, fm.RecipN
	var err error
	mk := func(w, i int) fixedpoint.Format {
		f, e2 := fixedpoint.NewFormat(w, i, false)
		if e2 != nil && err == nil {
			err = e2
		}
		return f
	}
	d.fDts = mk(cfg.DtsInBits(), cfg.DtsInBits())
	d.fDB = mk(e.TxBytesBits(), e.TxBytesBits())
	d.fQ = mk(e.QlenBits(), e.QlenBits())
	d.fTau = mk(cfg.TauBits(), cfg.TauBits())
	d.fN = mk(cfg.FlowCountBits, cfg.FlowCountBits)
	if err != nil {
		return nil, fmt.Errorf("hpcc: datapath formats: %w", err)
	}
	// Exact EWMA intermediates: (T - tau) * U and tau * u, and their sum.
	if d.fEwA, err = fixedpoint.MulFormat(d.fTau, d.fU); err != nil {
		return nil, fmt.Errorf("hpcc: EWMA product format: %w", err)
	}
	if d.fEwS, err = fixedpoint.AddFormat(d.fEwA, d.fEwA); err != nil {
		return nil, fmt.Errorf("hpcc: EWMA sum format: %w", err)
	}
	if d.fEwS.W > 64 {
		return nil, fmt.Errorf("hpcc: EWMA sum format %s wider than 64 bits: narrow Formats.U or MaxBaseRTTNs", d.fEwS)
	}

	// Parameters quantized into their formats (round half up, saturate).
	konst := func(name string, f fixedpoint.Format, r *big.Rat) fixedpoint.Value {
		v, e2 := fixedpoint.FromRat(f, r, fixedpoint.Rnd, fixedpoint.Sat)
		if e2 != nil && err == nil {
			err = fmt.Errorf("hpcc: constant %s: %w", name, e2)
		}
		return v
	}
	d.eta = konst("eta", d.fEta, ratOf(cfg.Eta))
	d.wai = konst("w_ai", d.fW, ratOf(cfg.WAIBytes))
	d.wmin = konst("w_min", d.fW, ratOf(cfg.WMinBytes))
	d.wmax = konst("w_max", d.fW, ratOf(cfg.WMaxBytes))
	d.winit = konst("w_init", d.fW, ratOf(cfg.WInitBytes))
	d.uinit = konst("u_init", d.fU, ratOf(cfg.UInit))
	d.tT = konst("t", d.fTau, big.NewRat(int64(cfg.BaseRTTNs), 1))
	d.zeroU = d.fU.Zero()
	d.oneDts = konst("one", d.fDts, big.NewRat(1, 1))
	d.oneEoU = konst("one", d.fEoU, big.NewRat(1, 1))
	if err != nil {
		return nil, err
	}

	// Tables (ROMs) and derived constants.
	codes := e.SpeedCodes()
	kqT, kqV, err := buildTable("kq", "qlen unit / (B*T) per speed code (1/qlen-unit)", cfg.TableEntryBits, cfg.kqReals())
	if err != nil {
		return nil, err
	}
	krT, krV, err := buildTable("kr", "txBytes unit / B per speed code (ns per txBytes-unit)", cfg.TableEntryBits, cfg.krReals())
	if err != nil {
		return nil, err
	}
	invTT, invTV, err := buildTable("inv_t", "1/T (1/ns)", cfg.TableEntryBits, []*big.Rat{cfg.invTReal()})
	if err != nil {
		return nil, err
	}
	d.invT = invTV[0]
	d.tables = []Table{kqT, krT, invTT}
	if cfg.DynamicWAI {
		kT, kV, err := buildTable("k_wai", "W_init*(1-eta), bytes (dynamic W_ai numerator)", cfg.TableEntryBits, []*big.Rat{cfg.kWaiReal()})
		if err != nil {
			return nil, err
		}
		d.kWai = kV[0]
		d.tables = append(d.tables, kT)
	}
	zq, zr := fixedpoint.Value{}, fixedpoint.Value{}
	zq = kqT.Format.Zero()
	zr = krT.Format.Zero()
	for c := 0; c < 16; c++ {
		d.kq[c], d.kr[c] = zq, zr
		if c < codes {
			d.kq[c], d.kr[c] = kqV[c], krV[c]
			d.speedOK[c] = kqT.Reals[c].Sign() > 0
		}
	}

	// Reciprocal units.
	recip := func(name string, in, out fixedpoint.Format, p RecipParams) *fixedpoint.Reciprocal {
		r, e2 := fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{
			In: in, TableBits: min(p.TableBits, in.W-1), Entry: fixedpoint.Format{W: p.EntryBits, I: 0},
			NRSteps: p.NRSteps, Out: out, Q: fixedpoint.Rnd, O: fixedpoint.Sat,
		})
		if e2 != nil && err == nil {
			err = fmt.Errorf("hpcc: %s unit: %w", name, e2)
		}
		return r
	}
	d.recipDts = recip("recip_dts", d.fDts, d.fRD, cfg.RecipDts)
	d.recipU = recip("recip_u", d.fU, d.fRU, cfg.RecipU)
	if cfg.DynamicWAI {
		d.recipN = recip("recip_n", d.fN, d.fRN, cfg.RecipN)
	}
	if err != nil {
		return nil, err
	}
	if cfg.MultiQ.Enabled {
		if err := d.buildMultiQ(); err != nil {
			return nil, err
		}
	}
	if err := d.buildTransactions(); err != nil {
		return nil, err
	}
	if err := d.buildSpecPlans(); err != nil {
		return nil, err
	}
	if d.fW.W > 63 {
		return nil, fmt.Errorf("hpcc: Formats.W=%s: at most 63 bits (W + W_ai must not overflow 64 bits)", d.fW)
	}
	if fu, fe := d.fU.F(), d.fEta.F(); d.fU.W+max(fe-fu, 0) > 64 || d.fEta.W+max(fu-fe, 0) > 64 {
		return nil, fmt.Errorf("hpcc: Formats.U=%s and Formats.Eta=%s: aligning them for U >= eta needs more than 64 bits", d.fU, d.fEta)
	}
	if err := d.compileFast(); err != nil {
		return nil, err
	}
	// The same datapath with the specification's arithmetic, for
	// UpdateSpec (immutable like d; the unit cache is shared).
	d.specDP = d
	if !d.fast.spec {
		sd := *d
		sd.fast.spec = true
		sd.specDP = &sd
		d.specDP = &sd
	}
	return d, nil
}

// Config returns the datapath's configuration.
func (d *Datapath) Config() Config { return d.cfg }

// InitialState returns the flow-table entry of a new flow. It is the zero
// State: the first event loads W = Wc = W_init, U = U_init, incStage = 0.
func (d *Datapath) InitialState() State { return State{} }

// record converts a wire hop into what the flow table stores (HopState),
// masking every field to its wire width. IFA: the egress time rx + residence
// is normalized with a constant-compare chain: t = RxNs + ResidenceNs
// (33 bits, < 9*10^9 for any input bits), carry = #{k in 1..8 : t >= k*10^9},
// ns = t - carry*10^9 (< 10^9), sec = (RxSec + carry) mod 2^20.
func (d *Datapath) record(h *telemetry.Hop) HopState {
	ts, id := d.recordTsID(h)
	return HopState{Ts: ts, TxBytes: h.TxBytes & d.txMask, Qlen: d.queueSample(h), ID: id}
}

// queueSample is the hop's queue sample as the flow table stores it: the
// qlen field, or with Sojourn the residence time (egress - ingress, ns)
// saturated at the qlen field's maximum: sojourn_q = min(residence,
// 2^QlenBits - 1).
func (d *Datapath) queueSample(h *telemetry.Hop) uint32 {
	if d.sojourn {
		return min(h.ResidenceNs, d.qMask)
	}
	return h.Qlen & d.qMask
}

// recordTsID is the timestamp and identity part of record.
func (d *Datapath) recordTsID(h *telemetry.Hop) (ts, id uint64) {
	if d.enc == telemetry.Compact {
		return uint64(h.Ts) & (1<<telemetry.CompactTsBits - 1), 0
	}
	return ifaEgress(h, d.idMask)
}

// nsDivMagic is M = ceil(2^60 / 1953125): ((t >> 9) * M) >> 60 = t / 10^9
// for t < 2^33. Proof: 10^9 = 2^9 * 1953125, so t / 10^9 = n / 1953125
// with n = t >> 9 < 2^24 (both floors). Let e = M*1953125 - 2^60, so
// 0 <= e < 1953125 < 2^21, and n = q*1953125 + r with r <= 1953124. Then
// n*M / 2^60 = q + (r + n*e/2^60) / 1953125, and n*e < 2^45 < 2^60 makes
// the fraction below (1953124 + 1) / 1953125 = 1: the floor is q. The
// product n*M is below 2^24 * 2^40 = 2^64. TestIFACarry checks every n.
const nsDivMagic = (1<<60 + 1953125 - 1) / 1953125

// ifaEgress is recordTsID for IFA: the normalized egress time and the
// identity masked to idMask (0 without identity tracking).
func ifaEgress(h *telemetry.Hop, idMask uint64) (ts, id uint64) {
	t := uint64(h.RxNs) + uint64(h.ResidenceNs)
	// The hardware's eight comparators count the k in 1..8 with
	// t >= k*10^9; for t < 9*10^9 (always: t <= 2*(2^32-1)) that count is
	// t / 10^9, which is how the model computes it: with 10^9 =
	// 2^9 * 1953125, t / 10^9 = (t >> 9) / 1953125, and for t >> 9 < 2^24
	// that quotient is ((t >> 9) * nsDivMagic) >> 60 (TestIFACarry checks
	// every t >> 9 below 2^24): one multiplication in any register, where
	// the compiler's division by the constant takes the fixed RDX:RAX pair.
	carry := (t >> 9) * nsDivMagic >> 60
	sec := (uint64(h.RxSec) + carry) & (1<<telemetry.IFARxSecBits - 1)
	return sec<<telemetry.IFAEgressNsBits | (t - carry*telemetry.NsPerSecond),
		(uint64(h.DeviceID&(1<<telemetry.IFADeviceIDBits-1))<<telemetry.IFAPortBits | uint64(h.EgressPort)) & idMask
}

// deltaTs is the egress-time difference cur - prev of two stored
// timestamps. Compact: (cur - prev) mod 2^24. IFA, with (s, n) = (ts>>30,
// ts & (2^30-1)): borrow = cur.n < prev.n; dsec = (cur.s - prev.s - borrow)
// mod 2^20; dns = (cur.n - prev.n + borrow*10^9) mod 2^31; dts = dsec*10^9 +
// dns (51 bits). For ns fields below 10^9 this equals
// fixedpoint.TimestampDiffNs with 20-bit seconds; other bit patterns give
// this defined value.
func (d *Datapath) deltaTs(cur, prev uint64) uint64 {
	if d.enc == telemetry.Compact {
		return (cur - prev) & (1<<telemetry.CompactTsBits - 1) // fixedpoint.WrapDiff(cur, prev, 24)
	}
	return ifaDeltaTs(cur, prev)
}

// ifaDeltaTs is deltaTs for IFA.
func ifaDeltaTs(cur, prev uint64) uint64 {
	const nsMask = 1<<telemetry.IFAEgressNsBits - 1
	cn, pn := cur&nsMask, prev&nsMask
	borrow := (cn - pn) >> 63 // cn < pn: both below 2^30, so the difference wraps exactly then
	dsec := (cur>>telemetry.IFAEgressNsBits - prev>>telemetry.IFAEgressNsBits - borrow) & (1<<telemetry.IFARxSecBits - 1)
	dns := (cn + borrow*telemetry.NsPerSecond - pn) & (1<<31 - 1)
	return dsec*telemetry.NsPerSecond + dns
}

// waiFor is W_ai for an event: the constant, or with DynamicWAI
// k_wai * (1/N) (N = 0 read as 1), rounded (Rnd) into Formats.W.
func (d *Datapath) waiFor(in *Input) fixedpoint.Value {
	if !d.cfg.DynamicWAI {
		return d.wai
	}
	n := uint64(in.NFlows) & d.nMask
	if n == 0 {
		n = 1
	}
	rn, _ := d.recipN.Recip(bits64(d.fN, n))
	return d.spec.wai.MulCast(d.kWai, rn) // MulCast(k_wai, 1/N, W, Rnd, Sat)
}

// bits64 reads raw bits into a format (bits above its width are dropped, as
// a hardware port of that width would). The formats are validated at
// construction, so the error cannot occur.
func bits64(f fixedpoint.Format, raw uint64) fixedpoint.Value {
	v, _ := fixedpoint.FromBits64(f, raw)
	return v
}

// UpdateSpec is the golden per-event update with its arithmetic written op
// for op with fixedpoint Values and plans, exactly as docs/datapath.md lists
// the operations: no floating point, reciprocals through the fixedpoint
// reciprocal units, every cast through a plan built by NewDatapath
// (specPlans) whose comment names the operation, formats and modes. It runs
// the same control flow as Update (update.go: slot validity, selection,
// commit, first event and clamps are written once); only the arithmetic
// differs, so TestFastMatchesSpec checks the compiled raw plans against
// these operations bit for bit. It is about 4x slower than Update.
func (d *Datapath) UpdateSpec(st State, in Input) (State, Output) {
	return d.specDP.Update(st, in)
}

// specHopU is line 4-5 of one valid slot in the specification's
// arithmetic: txRate = dB * (1/dts) through the 1/dts unit, then
// u' = q * KQ[code] + txRate * KR[code] (with MultiQ, KQ and KR are scaled
// by 1/w_q and a txRate above wB takes specMQAbove instead). Operands are raw: dts (> 0, at
// most MaxDeltaTsNs), the wrapped txBytes difference dB, the smaller of the
// two queue lengths q, the slot's speed code. It returns u' raw in
// Formats.U.
func (d *Datapath) specHopU(dts, dB, q uint64, code uint8) uint64 {
	sp := &d.spec
	rd, _ := d.recipDts.Recip(bits64(d.fDts, dts))
	x := sp.tx.MulCast(bits64(d.fDB, dB), rd)              // MulCast(dB, rd, TxRate, Rnd, Sat)
	qTerm := sp.qTerm.MulCast(bits64(d.fQ, q), d.kq[code]) // MulCast(q, kq, Term, Rnd, Sat)
	if d.mq.on && fixedpoint.Cmp(x, d.mq.wb[code]) > 0 {   // MultiQ: txRate > wB (multiq.go)
		return d.specMQAbove(x, qTerm, q, code).RawUint()
	}
	rTerm := sp.rTerm.MulCast(x, d.kr[code])     // MulCast(x, kr, Term, Rnd, Sat)
	return sp.up.AddCast(qTerm, rTerm).RawUint() // AddCast(qTerm, rTerm, U, Rnd, Sat)
}

// specEWMA is lines 8-9 in the specification's arithmetic: tau =
// min(dts, T), U = ((T - tau)*U + tau*u) * (1/T) with the products and the
// sum exact. uReg is the stored U, uAcc the selected u', dtsSel the
// selected slot's dts (all raw). It returns the new U raw in Formats.U.
func (d *Datapath) specEWMA(uReg, uAcc, dtsSel uint64) uint64 {
	sp := &d.spec
	tau := sp.tau.Cast(fixedpoint.Min(bits64(d.fDts, dtsSel), d.tT)) // Cast(min(dts, T), tau, Trn, Sat)
	tmt := sp.tmt.SubCast(d.tT, tau)                                 // SubCast(T, tau, tau, Trn, Wrap)
	a := sp.ewA.MulCast(tmt, bits64(d.fU, uReg))                     // MulCast(T-tau, U, EwA, Trn, Wrap)
	b := sp.ewA.MulCast(tau, bits64(d.fU, uAcc))                     // MulCast(tau, u, EwA, Trn, Wrap)
	s := sp.ewS.AddCast(a, b)                                        // AddCast(a, b, EwS, Trn, Wrap)
	return sp.ewU.MulCast(s, d.invT).RawUint()                       // u_ewma = MulCast(s, inv_t, U, Rnd, Sat)
}

// specWindow is lines 11-20 in the specification's arithmetic: W =
// Wc/(U/eta) + W_ai on the multiplicative step (mi), Wc + W_ai otherwise,
// then clamped to [W_min, W_max]. eta/U is MulCast(1/U, eta) and, when
// uGE (U >= eta), at most 1 (the reciprocal's rounding must not turn a
// decrease into an increase). Registers are raw; it returns W raw in
// Formats.W.
func (d *Datapath) specWindow(wcRaw, uNew, wai uint64, mi, uGE bool) uint64 {
	sp := &d.spec
	wc, ai := bits64(d.fW, wcRaw), bits64(d.fW, wai)
	var w fixedpoint.Value
	if mi {
		ru, _ := d.recipU.Recip(bits64(d.fU, uNew)) // 1/U
		k := sp.k.MulCast(ru, d.eta)                // eta/U = MulCast(1/U, eta, EtaOverU, Rnd, Sat)
		if uGE {
			k = fixedpoint.Min(k, d.oneEoU)
		}
		wMul := sp.wMul.MulCast(wc, k) // Wc/(U/eta) = MulCast(Wc, k, W, Rnd, Sat)
		w = sp.wAdd.AddCast(wMul, ai)  // line 13: AddCast(wMul, W_ai, W, Rnd, Sat)
	} else {
		w = sp.wAdd.AddCast(wc, ai) // line 17: AddCast(Wc, W_ai, W, Rnd, Sat)
	}
	return fixedpoint.Min(fixedpoint.Max(w, d.wmin), d.wmax).RawUint() // W in [W_min, W_max]
}

// specRate is line 27 in the specification's arithmetic: R = W * inv_t,
// MulCast(W, inv_t, Rate, Rnd, Sat), for the raw W register w.
func (d *Datapath) specRate(w uint64) uint64 {
	return d.spec.rate.MulCast(bits64(d.fW, w), d.invT).RawUint()
}
