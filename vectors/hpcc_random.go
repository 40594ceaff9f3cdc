package vectors

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
)

// pairClass adds a level-2 class: every pattern a of pa with every pattern
// b of pb (a-major), built into a transaction by build. The operands are
// the two inputs of one datapath operation, as TestFloat pairs the two
// operands of a function.
func (h *HPCC) pairClass(name, doc string, pa, pb []uint64, build func(a, b uint64) (hpcc.State, hpcc.Input)) {
	h.add(name, doc+fmt.Sprintf(" (%d x %d bit patterns)", len(pa), len(pb)), 2, false, func(emit emitFn) error {
		for _, a := range pa {
			for _, b := range pb {
				if err := emit(build(a, b)); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// addPatternClasses adds the level-2 classes: bit patterns (Patterns: single
// bits, runs of ones from either end, field boundaries), clipped to each
// field's legal range, combined pairwise across the two operands of the
// txBytes subtractor, the timestamp subtractor, the egress-time adder (IFA),
// the qlen minimum, the rate multiplier (dts, dTx), the multiplicative step
// (U, Wc), the round compare (seq or now vs lastUpdate) and, with dynamic
// W_ai, (N, Wc). The patterns go to hop 0 of the base vector.
func (h *HPCC) addPatternClasses() {
	c := &h.cfg
	e := h.e
	ms := uint8(c.MaxStage)
	txBits, qBits := e.TxBytesBits(), e.QlenBits()
	h.pairClass("pat_tx_bytes", "hop 0 txBytes: new x stored", Patterns(txBits, h.txMask), Patterns(txBits, h.txMask),
		func(a, b uint64) (hpcc.State, hpcc.Input) {
			st, in := h.base(h.maxHops)
			in.Hops[0].TxBytes, st.Hops[0].TxBytes = uint32(a), uint32(b)
			return st, in
		})
	if e == telemetry.Compact {
		m := fieldtable.Mask(telemetry.CompactTsBits)
		h.pairClass("pat_ts", "hop 0 timestamp: new x stored", Patterns(telemetry.CompactTsBits, m), Patterns(telemetry.CompactTsBits, m),
			func(a, b uint64) (hpcc.State, hpcc.Input) {
				st, in := h.base(h.maxHops)
				in.Hops[0].Ts, st.Hops[0].Ts = uint32(a), b
				return st, in
			})
	} else {
		nsMax := uint64(telemetry.NsPerSecond - 1)
		nsMask := uint64(1)<<telemetry.IFAEgressNsBits - 1
		h.pairClass("pat_ts", "hop 0 egress ns: new rxTimeStampNs x stored egress ns", Patterns(telemetry.IFARxNsBits, nsMax), Patterns(telemetry.IFAEgressNsBits, nsMax),
			func(a, b uint64) (hpcc.State, hpcc.Input) {
				st, in := h.base(h.maxHops)
				in.Hops[0].RxNs = uint32(a)
				st.Hops[0].Ts = st.Hops[0].Ts&^nsMask | b
				return st, in
			})
		h.pairClass("pat_egress", "hop 0 egress adder: rxTimeStampNs x residenceTime", Patterns(telemetry.IFARxNsBits, nsMax),
			Patterns(telemetry.IFAResidenceBits, fieldtable.Mask(telemetry.IFAResidenceBits)),
			func(a, b uint64) (hpcc.State, hpcc.Input) {
				st, in := h.base(h.maxHops)
				in.Hops[0].RxNs, in.Hops[0].ResidenceNs = uint32(a), uint32(b)
				return st, in
			})
	}
	h.pairClass("pat_qlen", "hop 0 queue length: new x stored", Patterns(qBits, h.qMask), Patterns(qBits, h.qMask),
		func(a, b uint64) (hpcc.State, hpcc.Input) {
			st, in := h.base(h.maxHops)
			in.Hops[0].Qlen, st.Hops[0].Qlen = uint32(a), uint32(b)
			return st, in
		})
	h.pairClass("pat_rate", "hop 0 rate multiplier: delta ts x delta txBytes (other hops idle)", Patterns(c.DtsInBits(), c.MaxDeltaTsNs), Patterns(txBits, h.txMask),
		func(a, b uint64) (hpcc.State, hpcc.Input) {
			st, in := h.idleBase(h.maxHops)
			s := h.baseHop(0)
			s.q, s.prevQ, s.dts, s.dTx = 0, 0, a, b
			h.setHop(&st, &in, 0, s)
			return st, in
		})
	h.pairClass("pat_u_wc", "multiplicative step: carried U x Wc (hops idle, incStage = maxStage)", Patterns(c.Formats.U.W, h.uMax), Patterns(c.Formats.W.W, h.wMax),
		func(a, b uint64) (hpcc.State, hpcc.Input) {
			st, in := h.idleBase(h.maxHops)
			st.U, st.Wc, st.IncStage = a, b, ms
			return st, in
		})
	n := c.LastUpdateBits()
	if c.Mode == hpcc.Sender {
		h.pairClass("pat_seq", "round compare: seq x lastUpdateSeq", Patterns(n, h.seqMask), Patterns(n, h.seqMask),
			func(a, b uint64) (hpcc.State, hpcc.Input) {
				st, in := h.base(h.maxHops)
				in.Seq, st.LastUpdate = a, b
				return st, in
			})
	} else {
		h.pairClass("pat_time", "round compare: now x lastUpdateTime", Patterns(n, h.seqMask), Patterns(n, h.seqMask),
			func(a, b uint64) (hpcc.State, hpcc.Input) {
				st, in := h.base(h.maxHops)
				in.NowNs, st.LastUpdate = a, b
				return st, in
			})
		if c.DynamicWAI {
			nm := fieldtable.Mask(c.FlowCountBits)
			h.pairClass("pat_nflows_wc", "dynamic W_ai additive step: N x Wc", Patterns(c.FlowCountBits, nm), Patterns(c.Formats.W.W, h.wMax),
				func(a, b uint64) (hpcc.State, hpcc.Input) {
					st, in := h.base(h.maxHops)
					in.NFlows, st.Wc = uint32(a), b
					return st, in
				})
		}
	}
}

// Random implements Model: one constrained-random transaction. The
// constraints keep most events meaningful while every field still sweeps
// its legal range:
//   - 1/64 first events; otherwise a valid state with Wc, W in [W_min,
//     W_max], U log-uniform up to 4 (1/16: anywhere in its format), incStage
//     in [0, maxStage];
//   - hop count uniform in 1..MaxHops, 1/32 of events with a different
//     stored or any encodable count;
//   - round: sender seq = lastUpdateSeq + d with d in [-4, 4] half the time,
//     any value otherwise; receiver now = lastUpdateTime + elapsed, elapsed
//     within T +- 4 half the time, log-uniform up to 16 T otherwise; N
//     log-uniform over its field;
//   - per hop: a valid speed code (1/32: any code), stored time and counters
//     uniform, delta ts log-uniform up to MaxDeltaTsNs (1/64 each: 0, just
//     above the maximum), txBytes increase for a utilization uniform in
//     [0, 110%] of the link (1/64: any), queue lengths log-uniform (1/4:
//     empty), residence log-uniform below 1 s, 1/64 a changed identity.
//     (Small ranges are drawn by multiply-shift from bits of one draw, so
//     "uniform" holds to within 2^-26.)
//
// Slots at or above the hop count are filled the same way (the datapath
// must ignore them).
func (h *HPCC) Random(r *Rand, word []uint64) error {
	var st hpcc.State
	var in hpcc.Input
	h.randomStructs(r, &st, &in)
	return h.packIn(&codecScratch{}, &st, &in, word)
}

// randomStructs draws the transaction Random packs into *st and *in.
func (h *HPCC) randomStructs(r *Rand, st *hpcc.State, in *hpcc.Input) {
	c := &h.cfg
	*st, *in = hpcc.State{}, hpcc.Input{}
	nh := 1 + r.Below(uint64(h.maxHops))
	st.NHops, in.NHops = uint8(nh), uint8(nh)
	if r.oneIn(5) {
		if r.oneIn(1) {
			in.NHops = uint8(r.Below(h.nhMask + 1))
		} else {
			st.NHops = uint8(r.Below(h.nhMask + 1))
		}
	}
	st.Valid = !r.oneIn(6)
	st.Wc = r.Range(h.wMin, h.wMax)
	st.W = r.Range(h.wMin, h.wMax)
	if r.oneIn(4) {
		st.U = r.Bits(c.Formats.U.W)
	} else {
		st.U = r.LogUniform(min(4*h.uOne, h.uMax))
	}
	st.IncStage = uint8(r.Below(uint64(c.MaxStage) + 1))
	st.LastUpdate = r.Uint64() & h.seqMask
	if c.Mode == hpcc.Sender {
		d := r.Uint64()
		if r.oneIn(1) {
			d = r.Below(9) - 4
		}
		in.Seq = (st.LastUpdate + d) & h.seqMask
		in.SndNxt = (in.Seq + r.LogUniform(1<<24)) & h.seqMask
	} else {
		t := h.notifyP // the commit boundary P (default T)
		el := r.LogUniform(16 * t)
		if r.oneIn(1) {
			el = t + r.Below(9) - 4
		}
		in.NowNs = (st.LastUpdate + el) & h.seqMask
		in.NFlows = uint32(r.LogUniform(h.nfMask))
	}
	idBits := h.hopIDBits
	for i := 0; i < h.maxHops; i++ {
		// One draw decides the rare cases: bits 0-4 any speed code (1/32),
		// 5-10 dts = 0 (value 0) or just above the maximum (value 1), 11-16
		// any txBytes increase, 17-18 / 19-20 empty new / stored queue
		// (1/4 each), 21-26 changed identity, 27-36 the amount above the
		// maximum, 37-63 the utilization.
		dice := r.Uint64()
		s := hopSpec{code: h.okCodes[r.Below(uint64(len(h.okCodes)))]}
		if dice&31 == 0 {
			s.code = uint8(r.Below(h.speedCodes))
		}
		if h.e == telemetry.Compact {
			s.prevNs = r.Bits(telemetry.CompactTsBits)
		} else {
			x := r.Uint64()
			s.prevSec, s.prevNs = x>>(64-telemetry.IFARxSecBits), (x&0xffffffff)*telemetry.NsPerSecond>>32
			s.residence = r.logUniform32(telemetry.NsPerSecond - 1)
		}
		switch dice >> 5 & 63 {
		case 0:
			s.dts = 0
		case 1:
			s.dts = c.MaxDeltaTsNs + 1 + (dice>>27&1023)*1000>>10
		default:
			s.dts = r.LogUniform32(c.MaxDeltaTsNs)
		}
		s.prevTx = r.Bits(h.txBits)
		if dice>>11&63 == 0 {
			s.dTx = r.Bits(h.txBits)
		} else {
			s.dTx = h.txUnits(s.code, s.dts, (dice>>37)*1101>>27)
		}
		if dice>>17&3 != 0 {
			s.q = r.logUniform32(h.qMask)
		}
		if dice>>19&3 != 0 {
			s.prevQ = r.logUniform32(h.qMask)
		}
		if idBits > 0 {
			s.id = r.Bits(idBits)
			s.newID = s.id
			if dice>>21&63 == 0 {
				s.newID = r.Bits(idBits)
			}
		}
		h.setHop(st, in, i, s)
	}
}
