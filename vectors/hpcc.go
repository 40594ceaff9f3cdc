package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// HPCCModelName is the manifest model name of the HPCC++ per-event update.
const HPCCModelName = "hpcc_update"

// HPCC is the vector model of the HPCC++ per-event update of package
// cc/hpcc (draft section 4.2 lines 1-27 for the sender, section 6.2 lines
// 28-34 for the receiver): one transaction is the flow state before plus
// the event (the ACK's seq and the sender's snd_nxt, or the receiver's now
// and N, and the per-hop telemetry as carried on the wire), laid out by
// hpcc.Datapath.InputTable; the expected outputs are the state after, W,
// the pacing rate and the decision flags, laid out by OutputTable, from
// hpcc.Datapath.Update, the golden fixed-point datapath.
//
// Its directed classes (hpcc_classes.go) are the corner cases of issue 4,
// each detected from the datapath's own inputs and outputs; its cover
// points count the MI/AI branch, the Wc commit, the selected hop, each hop's
// validity, each speed code, the window clamps and every table entry of the
// reciprocal units (1/dts, 1/U and, with dynamic W_ai, 1/N).
type HPCC struct {
	cfg     hpcc.Config
	d       *hpcc.Datapath
	e       telemetry.Encoding
	maxHops int
	in, out fieldtable.Table

	classes []Class
	gens    []func(emit func(hpcc.State, hpcc.Input) error) error
	idx     *hpccClassIdx
	mq      *hpccMQ      // MultiQ classes (hpcc_multiq.go); nil without MultiQ
	sj      *hpccSojourn // sojourn classes (hpcc_sojourn.go); nil without Sojourn
	mqcx    *mqCx        // constructed MultiQ classes (hpcc_multiq_edges.go); nil without MultiQ
	cx      *constructed // the constructed classes (hpcc_directed.go); nil when the configuration's formats do not fit them
	codec   *hpccCodec   // nil: use hpcc's Pack/Unpack
	points  []CoverPoint
	bins    hpccBins

	// Constants, all derived by running the golden datapath (see deriveConstants).
	wMin, wMax, wInit uint64 // raw Formats.W
	wMinOK            bool   // the W_min clamp is reachable (W_ai < W_min): wMin is known
	uInit, uMax       uint64 // raw Formats.U
	uOne              uint64 // raw of 1.0 in Formats.U
	etaU              uint64 // smallest raw U the comparator of line 12 reads as >= eta

	speedOK  []bool   // per speed code: a supported speed not above MaxLinkSpeedGbps
	okCodes  []uint8  // the codes with speedOK, ascending
	speedGbp []uint32 // per speed code: Gbps (0 reserved)
	baseCode uint8    // speed code of the base vectors (100 Gbps, or the fastest allowed below it)
	slowCode uint8    // slowest valid speed code
	seqMask  uint64   // SeqBits (sender) or TimeBits (receiver) mask
	txMask   uint64
	qMask    uint64
	nhMask   uint64
	incMask  uint64
	// Configuration values the per-vector paths read, derived once (a
	// Config method takes the whole Config by value).
	hopIDBits  int    // cfg.HopIDBits()
	txBits     int    // e.TxBytesBits()
	txUnit     uint64 // e.TxBytesUnit()
	speedCodes uint64 // e.SpeedCodes()
	luHalf     uint64 // 2^(cfg.LastUpdateBits()-1): half the sequence or time space
	notifyP    uint64 // cfg.NotifyPeriod()
	nfMask     uint64 // mask of FlowCountBits

	rdK int // effective table bits of the 1/dts unit
	ruK int // of the 1/U unit
	rnK int // of the 1/N unit

	// Value lists detectAll compares against, computed once so that
	// detecting classes allocates nothing per vector (per-vector garbage
	// made the heap, and RSS, grow for millions of vectors before the
	// first collection).
	termDtsList, termTxList []uint64 // termDts(), termTx()
	dtsEdgeList             []uint64 // dtsBorrowEdges(MaxDeltaTsNs)
}

// hpccBins are the offsets of the HPCC cover points in Hits.Bins.
type hpccBins struct {
	branch, update, sel, valid, speed, clamp, rd, ru, rn int
}

// Enums returns the codes the HPCC++ fields carry: the telemetry speed
// codes of in_hop<i>_speed (SpeedEnum).
func (m *HPCC) Enums() []fieldtable.Enum { return []fieldtable.Enum{SpeedEnum(m.cfg)} }

// SpeedEnum returns the speed codes of cfg's telemetry encoding (the
// in_hop<i>_speed fields): one value per defined code, named by its link
// speed ("100G"); codes of the encoding that are not listed are reserved,
// and codes faster than cfg.MaxLinkSpeedGbps are defined on the wire but
// make the hop invalid in the datapath (no table entry).
func SpeedEnum(cfg hpcc.Config) fieldtable.Enum {
	e := fieldtable.Enum{Name: "speed", Width: cfg.Encoding.SpeedBits(),
		Doc: fmt.Sprintf("telemetry speed code of in_hop<i>_speed, %s encoding; link speed in Gbps; codes not listed are reserved", cfg.Encoding)}
	for code, g := range cfg.Encoding.SpeedTable() {
		if g == 0 {
			continue
		}
		doc := fmt.Sprintf("%d Gbps", g)
		if g > cfg.MaxLinkSpeedGbps {
			doc += fmt.Sprintf(" (above max_link_speed_gbps=%d: the hop is invalid)", cfg.MaxLinkSpeedGbps)
		}
		e.Values = append(e.Values, fieldtable.EnumValue{Name: fmt.Sprintf("%dG", g), Code: uint64(code), Doc: doc})
	}
	return e
}

// NewHPCC builds the vector model for cfg (validated by hpcc.NewDatapath).
func NewHPCC(cfg hpcc.Config) (*HPCC, error) {
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, fmt.Errorf("vectors: hpcc: %w", err)
	}
	h := &HPCC{cfg: cfg, d: d, e: cfg.Encoding, maxHops: cfg.MaxHops, in: d.InputTable(), out: d.OutputTable()}
	h.txMask = fieldtable.Mask(h.e.TxBytesBits())
	h.qMask = fieldtable.Mask(h.e.QlenBits())
	h.nhMask = fieldtable.Mask(cfg.NHopsBits())
	h.incMask = fieldtable.Mask(cfg.IncStageBits())
	h.seqMask = fieldtable.Mask(cfg.LastUpdateBits())
	h.hopIDBits, h.txBits, h.txUnit, h.speedCodes = cfg.HopIDBits(), h.e.TxBytesBits(), h.e.TxBytesUnit(), uint64(h.e.SpeedCodes())
	h.luHalf, h.notifyP, h.nfMask = uint64(1)<<uint(cfg.LastUpdateBits()-1), uint64(cfg.NotifyPeriod()), fieldtable.Mask(cfg.FlowCountBits)
	h.rdK = min(cfg.RecipDts.TableBits, cfg.DtsInBits()-1)
	h.ruK = min(cfg.RecipU.TableBits, cfg.Formats.U.W-1)
	h.rnK = min(cfg.RecipN.TableBits, cfg.FlowCountBits-1)
	h.uMax = fieldtable.Mask(cfg.Formats.U.W)
	one, err := fixedpoint.FromInt(cfg.Formats.U, 1, fixedpoint.Sat)
	if err != nil {
		return nil, fmt.Errorf("vectors: hpcc: 1.0 in Formats.U: %w", err)
	}
	h.uOne = one.RawUint()

	h.speedGbp = h.e.SpeedTable()
	h.speedOK = make([]bool, len(h.speedGbp))
	best, slow := -1, -1
	for c, g := range h.speedGbp {
		h.speedOK[c] = g != 0 && g <= cfg.MaxLinkSpeedGbps
		if !h.speedOK[c] {
			continue
		}
		h.okCodes = append(h.okCodes, uint8(c))
		if best < 0 || g <= 100 && (h.speedGbp[best] > 100 || g > h.speedGbp[best]) {
			best = c
		}
		if slow < 0 || g < h.speedGbp[slow] {
			slow = c
		}
	}
	if best < 0 {
		return nil, fmt.Errorf("vectors: hpcc: MaxLinkSpeedGbps=%d: no %s speed code at or below it", cfg.MaxLinkSpeedGbps, h.e)
	}
	h.baseCode, h.slowCode = uint8(best), uint8(slow)
	h.termDtsList, h.termTxList, h.dtsEdgeList = h.termDts(), h.termTx(), dtsBorrowEdges(cfg.MaxDeltaTsNs)
	if err := h.deriveConstants(); err != nil {
		return nil, err
	}
	h.buildCodec()
	h.buildPoints()
	if err := h.buildClasses(); err != nil {
		return nil, err
	}
	if cfg.MultiQ.Enabled {
		if err := h.buildMultiQClasses(); err != nil {
			return nil, err
		}
	}
	if cfg.Sojourn {
		h.buildSojournClasses()
	}
	return h, nil
}

// GenerateHPCC is Generate(NewHPCC(cfg), opts): the in-memory HPCC++ vector
// set for co-simulation harnesses.
func GenerateHPCC(cfg hpcc.Config, opts Options) (*Set, error) {
	m, err := NewHPCC(cfg)
	if err != nil {
		return nil, err
	}
	return Generate(m, opts)
}

// Datapath returns the golden datapath the model evaluates.
func (h *HPCC) Datapath() *hpcc.Datapath { return h.d }

// Name implements Model.
func (h *HPCC) Name() string { return HPCCModelName }

// Input implements Model: hpcc.Datapath.InputTable.
func (h *HPCC) Input() fieldtable.Table { return h.in }

// Output implements Model: hpcc.Datapath.OutputTable.
func (h *HPCC) Output() fieldtable.Table { return h.out }

// Config implements Model: the full hpcc.Config (the form hpcc.LoadConfig reads).
func (h *HPCC) Config() any { return h.cfg }

// Classes implements Model.
func (h *HPCC) Classes() []Class { return h.classes }

// CoverPoints implements Model.
func (h *HPCC) CoverPoints() []CoverPoint { return h.points }

// Directed implements Model: every class's generator in class order.
func (h *HPCC) Directed(level int, emit func(class int, in []uint64) error) error {
	word := make([]uint64, h.in.Words())
	sc := &codecScratch{}
	for c, cl := range h.classes {
		if cl.Level > level {
			continue
		}
		err := h.gens[c](func(st hpcc.State, in hpcc.Input) error {
			if h.sj != nil && !h.sj.raw[c] {
				h.sojournCarry(&in) // hpcc_sojourn.go
			}
			if err := h.packIn(sc, &st, &in, word); err != nil {
				return fmt.Errorf("vectors: hpcc: class %s: %w", cl.Name, err)
			}
			return emit(c, word)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// NewEvaluator implements Model.
func (h *HPCC) NewEvaluator() (Evaluator, error) { return &hpccEval{h: h}, nil }

// openHPCC rebuilds the model from a manifest's configuration.
func openHPCC(config json.RawMessage) (Model, error) {
	cfg, err := hpcc.LoadConfig(bytes.NewReader(config))
	if err != nil {
		return nil, err
	}
	return NewHPCC(cfg)
}

// update runs the golden datapath.
func (h *HPCC) update(st hpcc.State, in hpcc.Input) (hpcc.State, hpcc.Output) {
	return h.d.Update(st, in)
}

// deriveConstants finds the datapath's window bounds, initial values and the
// eta threshold of line 12 by running Update, so that the classes test what
// the datapath does rather than a second statement of its constants:
//   - W_init, U_init: the outputs of a first event;
//   - W_min: W after an additive step from Wc = 0 (0 + W_ai clamps up),
//     confirmed by Wc = 1 LSB giving the same W (else W_ai >= W_min and the
//     clamp is unreachable: the W_min classes are left out);
//   - W_max: W after an additive step from the all-ones Wc (saturates, clamps down);
//   - etaU: the smallest U for which an event with incStage = 0 and no
//     measurement (tau = 0, so U is carried through 1/T * T) takes the
//     multiplicative branch, found by bisection over the carried U.
func (h *HPCC) deriveConstants() error {
	var st hpcc.State
	var in hpcc.Input
	in.NFlows = uint32(fieldtable.Mask(h.cfg.FlowCountBits)) // dynamic W_ai at its smallest
	ns, _ := h.update(st, in)
	h.wInit, h.uInit = ns.W, ns.U
	st.Valid = true
	ns, o := h.update(st, in)
	if o.MI || o.First {
		return fmt.Errorf("vectors: hpcc: an idle event from U=0, incStage=0 took the multiplicative branch")
	}
	st.Wc = 1
	ns1, _ := h.update(st, in)
	// Wc = 0 and Wc = 1 LSB give the same W only if both clamp at W_min.
	h.wMinOK = ns.W == ns1.W
	h.wMin = ns.W
	st.Wc = fieldtable.Mask(h.cfg.Formats.W.W)
	ns, _ = h.update(st, in)
	h.wMax = ns.W
	if h.wMinOK && h.wMin > h.wMax || h.wInit > h.wMax || h.wMinOK && h.wInit < h.wMin {
		return fmt.Errorf("vectors: hpcc: derived W_min=%#x, W_init=%#x, W_max=%#x are not ordered", h.wMin, h.wInit, h.wMax)
	}
	// Bisection for the MI threshold: mi(u) is monotone in the carried U.
	mi := func(u uint64) (bool, uint64) {
		s := hpcc.State{Valid: true, U: u}
		ns, o := h.update(s, hpcc.Input{})
		return o.MI, ns.U
	}
	lo, hi := uint64(0), h.uMax
	if m, _ := mi(hi); !m {
		return fmt.Errorf("vectors: hpcc: U at its maximum does not take the multiplicative branch: eta above U's range")
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if m, _ := mi(mid); m {
			hi = mid
		} else {
			lo = mid
		}
	}
	_, h.etaU = mi(hi)
	if m, u := mi(lo); m || u >= h.etaU {
		return fmt.Errorf("vectors: hpcc: U threshold of the multiplicative branch is not sharp at %#x", h.etaU)
	}
	return nil
}

// recipIndex returns the table index the reciprocal units of package
// fixedpoint use for a non-zero raw input x with k table bits: the k bits
// after the leading one (zero-filled below the LSB); edge reports whether x
// is the first or last input of that entry's interval.
func recipIndex(x uint64, k int) (idx int, edge bool) {
	p := bits.Len64(x) - 1
	if p >= k {
		low := x & fieldtable.Mask(p-k)
		return int(x>>uint(p-k)) & int(fieldtable.Mask(k)), p == k || low == 0 || low == fieldtable.Mask(p-k)
	}
	return int(x<<uint(k-p)) & int(fieldtable.Mask(k)), true
}

// buildPoints defines the cover points.
func (h *HPCC) buildPoints() {
	hopLabels := func(extra ...string) []string {
		var l []string
		for i := 0; i < h.maxHops; i++ {
			l = append(l, "hop"+strconv.Itoa(i))
		}
		return append(l, extra...)
	}
	var speedLabels []string
	for c, g := range h.speedGbp {
		switch {
		case g == 0:
			speedLabels = append(speedLabels, fmt.Sprintf("code%d_reserved", c))
		case !h.speedOK[c]:
			speedLabels = append(speedLabels, fmt.Sprintf("code%d_%dG_over_max", c, g))
		default:
			speedLabels = append(speedLabels, fmt.Sprintf("code%d_%dG", c, g))
		}
	}
	h.points = []CoverPoint{
		{Name: "branch", Doc: "ComputeWind branch (line 12) of non-first events", Bins: 2, Labels: []string{"additive", "multiplicative"}},
		{Name: "update_wc", Doc: "Wc committed (sender line 22 / receiver line 29) on non-first events", Bins: 2, Labels: []string{"hold", "commit"}},
		{Name: "sel_hop", Doc: "hop whose u' was the maximum (lines 6-7), non-first events", Bins: h.maxHops + 1, Labels: hopLabels("none")},
		{Name: "hop_valid", Doc: "hop slot produced a measurement", Bins: h.maxHops, Labels: hopLabels()},
		{Name: "speed_code", Doc: "speed code of an in-path hop (per-speed tables kq, kr)", Bins: len(h.speedGbp), Labels: speedLabels},
		{Name: "w_clamp", Doc: "new W against its bounds, non-first events", Bins: 3, Labels: []string{"inside", "at_min", "at_max"}},
		{Name: "recip_dts_entry", Doc: "1/dts reciprocal table entry used by a valid hop", Bins: 1 << h.rdK},
		{Name: "recip_u_entry", Doc: "1/U reciprocal table entry used by a non-zero new U (non-first events)", Bins: 1 << h.ruK},
	}
	if h.cfg.DynamicWAI {
		h.points = append(h.points, CoverPoint{Name: "recip_n_entry", Doc: "1/N reciprocal table entry (dynamic W_ai)", Bins: 1 << h.rnK})
	}
	offs, _ := PointOffsets(h.points)
	h.bins = hpccBins{branch: offs[0], update: offs[1], sel: offs[2], valid: offs[3], speed: offs[4], clamp: offs[5], rd: offs[6], ru: offs[7], rn: -1}
	if h.cfg.DynamicWAI {
		h.bins.rn = offs[8]
	}
}

// hobs is what the evaluator observes of one update, for class detection
// and coverage.
type hobs struct {
	st     hpcc.State
	in     hpcc.Input
	next   hpcc.State
	out    hpcc.Output
	first  bool
	nh     uint64 // in.NHops masked
	stNH   uint64
	pathOK bool // hop counts agree and are within MaxHops
	elapse uint64
	// per hop slot (i < MaxHops)
	inPath    [hpcc.MaxHopsLimit]bool
	valid     [hpcc.MaxHopsLimit]bool   // out.HopValid bit
	code      [hpcc.MaxHopsLimit]uint8  // masked speed code
	dts       [hpcc.MaxHopsLimit]uint64 // egress time difference, ns (telemetry.DeltaTsNs rule)
	dTx       [hpcc.MaxHopsLimit]uint64 // txBytes counter difference, counter units
	minQ      [hpcc.MaxHopsLimit]uint64 // min(qlen, last qlen), units (Sojourn: min(sojourn_q, last), ns)
	curSec    [hpcc.MaxHopsLimit]uint64 // IFA egress seconds (Compact: 0)
	curNs     [hpcc.MaxHopsLimit]uint64 // IFA egress ns (Compact: the 24-bit ts)
	idChanged [hpcc.MaxHopsLimit]bool
	// hv caches, per valid hop slot, the constructed classes' restatement
	// of lines 4-5 (hopArith.eval of dts, dTx, minQ, code): bit i of hvSet
	// says hv[i] is computed for this update (constructed.hopAt).
	hv    [hpcc.MaxHopsLimit]hopVals
	hr    [hpcc.MaxHopsLimit]recipVals // with hv: the 1/dts unit's trace (recipTrace)
	hvSet uint32
	// ur caches the 1/U unit's trace on the new U and wb the multiplicative
	// step's W for the stored Wc with that 1/U (windowArith.w), computed
	// once per update (constructed.recipU, wBase) when urSet, wbSet.
	ur           recipVals
	wb, wk       uint64 // wk: eta/U of wb (windowArith.kOf)
	urSet, wbSet bool
	// tr is the datapath's record of this update (hpcc.Datapath.StepTrace):
	// the caches above read it where its operands are the observed ones
	// (useTrace; tr.OK is false where the datapath does not trace).
	tr       hpcc.Trace
	useTrace bool
}

func (o *hobs) prevSecNs(i int) (uint64, uint64) {
	t := o.st.Hops[i].Ts
	return t >> telemetry.IFAEgressNsBits, t & (1<<telemetry.IFAEgressNsBits - 1)
}

// ifaDts is fixedpoint.TimestampDiffNs(aSec, aNs, bSec, bNs,
// telemetry.IFARxSecBits), the IFA egress-time difference in ns, or ^0 where
// that returns an error (an operand out of its range); the observation of
// every vector needs it on every hop, and TimestampDiffNs (general widths,
// errors that name the operand) does not inline. TestIFADtsMatches checks
// the two agree.
func ifaDts(aSec, aNs, bSec, bNs uint64) uint64 {
	const ns1 = telemetry.NsPerSecond
	const m = 1<<telemetry.IFARxSecBits - 1
	if aNs >= ns1 || bNs >= ns1 || aSec > m || bSec > m {
		return ^uint64(0)
	}
	ns := aNs - bNs
	if aNs < bNs {
		ns += ns1
		aSec = (aSec - 1) & m // borrow
	}
	return (aSec-bSec)&m*ns1 + ns // < 2^20 * 10^9 + 10^9: no overflow
}

// observe fills o from an update's inputs and outputs. Differences use the
// documented wire rules of package telemetry (EgressTime, modular counter
// differences); they are observations for coverage, the outputs come from
// the datapath alone.
func (h *HPCC) observe(o *hobs) {
	o.first = o.out.First
	o.hvSet = 0
	o.urSet, o.wbSet = false, false
	o.nh = uint64(o.in.NHops) & h.nhMask
	o.stNH = uint64(o.st.NHops) & h.nhMask
	o.pathOK = o.nh == o.stNH && o.nh <= uint64(h.maxHops)
	o.elapse = (o.in.Seq - o.st.LastUpdate) & h.seqMask
	if h.cfg.Mode == hpcc.Receiver {
		o.elapse = (o.in.NowNs - o.st.LastUpdate) & h.seqMask
	}
	codeMask := uint8(h.speedCodes - 1)
	for i := 0; i < h.maxHops; i++ {
		hop := &o.in.Hops[i]
		prev := &o.st.Hops[i]
		o.inPath[i] = uint64(i) < o.nh
		o.valid[i] = o.out.HopValid>>uint(i)&1 != 0
		o.code[i] = hop.SpeedCode & codeMask
		o.dTx[i] = (uint64(hop.TxBytes) - uint64(prev.TxBytes)) & h.txMask
		q := uint64(hop.Qlen) & h.qMask
		if h.cfg.Sojourn { // the queue sample is the sojourn time (hpcc_sojourn.go)
			q = min(uint64(hop.ResidenceNs), h.qMask)
		}
		o.minQ[i] = min(q, uint64(prev.Qlen)&h.qMask)
		if h.e == telemetry.Compact {
			o.curSec[i], o.curNs[i] = 0, uint64(hop.Ts)&(1<<telemetry.CompactTsBits-1)
			o.dts[i] = (o.curNs[i] - prev.Ts) & (1<<telemetry.CompactTsBits - 1)
		} else {
			s, n := telemetry.EgressTime(h.e, *hop)
			o.curSec[i], o.curNs[i] = uint64(s), uint64(n)
			ps, pn := o.prevSecNs(i)
			o.dts[i] = ifaDts(uint64(s), uint64(n), ps, pn) // ^0 when the stored ns is not below 10^9: no meaningful difference
			if h.hopIDBits > 0 {
				o.idChanged[i] = telemetry.Identity(h.e, *hop) != prev.ID
			}
		}
	}
}

// measurable reports whether hop i is in the path and everything but its
// dts makes it a measurement (hop counts agree, speed valid, same link).
func (h *HPCC) measurable(o *hobs, i int) bool {
	return o.inPath[i] && o.pathOK && !o.first && h.speedOK[o.code[i]] && !o.idChanged[i]
}

// hpccEval evaluates packed HPCC transactions.
type hpccEval struct {
	h  *HPCC
	o  hobs
	sc codecScratch
}

// Eval implements Evaluator: unpack, hpcc.Datapath.Update, pack; then
// detect classes and count cover bins.
func (e *hpccEval) Eval(in, out []uint64, hits *Hits) error {
	o := &e.o
	if err := e.h.unpackIn(&e.sc, in, &o.st, &o.in); err != nil {
		return err
	}
	return e.finish(out, hits)
}

// EvalRandom implements RandomEvaluator: Random and Eval in one step,
// without unpacking the transaction just packed.
func (e *hpccEval) EvalRandom(r *Rand, in, out []uint64, hits *Hits) error {
	o := &e.o
	e.h.randomStructs(r, &o.st, &o.in)
	if err := e.h.packIn(&e.sc, &o.st, &o.in, in); err != nil {
		return err
	}
	return e.finish(out, hits)
}

// finish runs the datapath on e.o's inputs, packs the outputs, detects
// classes and counts cover bins.
func (e *hpccEval) finish(out []uint64, hits *Hits) error {
	h := e.h
	o := &e.o
	o.next = o.st // Step updates in place: one copy of the state, none of the event
	if h.cx != nil {
		// The constructed classes read the per-hop values of the run.
		h.d.StepTrace(&o.next, &o.in, &o.out, &o.tr)
		o.useTrace = true
	} else {
		h.d.Step(&o.next, &o.in, &o.out)
	}
	if err := h.packOut(&e.sc, &o.next, &o.out, out); err != nil {
		return err
	}
	h.observe(o)
	h.detectAll(o, hits)
	h.detectMultiQ(o, hits)
	h.detectSojourn(o, hits)
	b := h.bins
	for i := 0; i < h.maxHops; i++ {
		if o.inPath[i] && !o.first {
			hits.Count(b.speed + int(o.code[i]))
		}
		if o.valid[i] {
			hits.Count(b.valid + i)
			idx, _ := recipIndex(o.dts[i], h.rdK) // valid implies 0 < dts <= MaxDeltaTsNs
			hits.Count(b.rd + idx)
		}
	}
	if o.first {
		return nil
	}
	if o.out.MI {
		hits.Count(b.branch + 1)
	} else {
		hits.Count(b.branch)
	}
	if o.out.UpdateWc {
		hits.Count(b.update + 1)
	} else {
		hits.Count(b.update)
	}
	if o.out.SelHop == hpcc.NoHop {
		hits.Count(b.sel + h.maxHops)
	} else if int(o.out.SelHop) < h.maxHops {
		hits.Count(b.sel + int(o.out.SelHop))
	}
	switch {
	case h.wMinOK && o.next.W == h.wMin:
		hits.Count(b.clamp + 1)
	case o.next.W == h.wMax:
		hits.Count(b.clamp + 2)
	default:
		hits.Count(b.clamp)
	}
	if o.next.U != 0 {
		idx, _ := recipIndex(o.next.U, h.ruK)
		hits.Count(b.ru + idx)
	}
	if b.rn >= 0 {
		n := uint64(o.in.NFlows) & h.nfMask
		idx, _ := recipIndex(max(n, 1), h.rnK)
		hits.Count(b.rn + idx)
	}
	return nil
}

// StateFields implements Stateful: each flow-state register st_<x> of the
// input table (the state the update reads) with ns_<x> of the output table
// (the state it writes), in input-table order.
func (h *HPCC) StateFields() []StateField {
	var fs []StateField
	for i, f := range h.in.Fields {
		name, ok := strings.CutPrefix(f.Name, "st_")
		if !ok {
			continue
		}
		for j, g := range h.out.Fields {
			if g.Name == "ns_"+name {
				fs = append(fs, StateField{In: i, Out: j})
			}
		}
	}
	return fs
}
