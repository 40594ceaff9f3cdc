package vectors

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
)

// emitFn receives one directed transaction (state before, event).
type emitFn = func(hpcc.State, hpcc.Input) error

// hpccClassIdx holds the index of every detected class (-1 if the
// configuration has no such class), for the one detection pass.
type hpccClassIdx struct {
	first, hopsZero, hopsAbove, hopCountChange, pathChange, tie int
	txWrap, tsNsWrap, tsSecWrap, egressCarry, tsWrap            int
	egressEdges, egressIllegal, dtsSeconds, termExtremes        int
	dtsZero, dtsOne, dtsMax, dtsAbove, dtsT, qZero, qMax        int
	uBelowEta, uAtEta, uAboveEta, incBelow, incAt, incAbove     int
	seqBefore, seqAt, seqAfter, seqWrap, seqHalf                int
	elZero, elBelowT, elAtT, elAboveT, timeWrap                 int
	nZero, nOne, nMax, rnEdges                                  int
	uZero, uMax, wMin, wMax, wcMin, wcMax, rdEdges, ruEdges     int
	hops, maxHop, speed                                         []int
	incBelowV, incAtV, incAboveV                                uint64
}

// add registers a class and returns its index.
func (h *HPCC) add(name, doc string, level int, detected bool, gen func(emit emitFn) error) int {
	h.classes = append(h.classes, Class{Name: name, Doc: doc, Level: level, Detected: detected})
	h.gens = append(h.gens, gen)
	return len(h.classes) - 1
}

// hopSpec describes one hop slot of a directed vector: the stored
// telemetry and how the new telemetry differs from it.
type hopSpec struct {
	code      uint8
	prevSec   uint64 // IFA: stored egress seconds (20 bits)
	prevNs    uint64 // IFA: stored egress ns (< 10^9); Compact: stored 24-bit ts
	dts       uint64 // ns from the stored to the new egress time (wraps)
	residence uint64 // IFA: residence time of the new telemetry, ns
	prevTx    uint64 // stored txBytes counter (units)
	dTx       uint64 // counter increase (units, wraps)
	prevQ, q  uint64 // stored and new queue length (units)
	id, newID uint64 // IFA link identity deviceID<<16|egressPort, stored and new
}

// txUnits is the txBytes counter increase of a link of speed code c running
// at permille/1000 of its rate for dts ns, in counter units, at most half
// the counter range.
func (h *HPCC) txUnits(c uint8, dts, permille uint64) uint64 {
	var g uint64
	if int(c) < len(h.speedGbp) {
		g = uint64(h.speedGbp[c])
	}
	hi, lo := bits.Mul64(dts, g*permille)
	if hi != 0 {
		return h.txMask / 2
	}
	unit := h.txUnit
	if unit&(unit-1) == 0 { // 1 or 128 bytes: floor(floor(x/8000)/unit) = floor(x/(8000*unit)), constant divisor
		return min(lo/8000>>uint(bits.TrailingZeros64(unit)), h.txMask/2)
	}
	return min(lo/(8000*unit), h.txMask/2)
}

// qUnits converts bytes to queue-length units (rounded down, saturated).
func (h *HPCC) qUnits(b uint64) uint64 { return min(b/h.e.QlenUnit(), h.qMask) }

// baseHop is the telemetry of hop slot i in the base vectors: the base
// speed, 2 us since the stored sample, utilization 60% - 2% per hop (so hop
// 0 carries the largest u'), a 2000-byte queue.
func (h *HPCC) baseHop(i int) hopSpec {
	dts := uint64(2000 + 10*i)
	id := uint64(0x100+i)<<telemetry.IFAPortBits | uint64(i+1)
	s := hopSpec{code: h.baseCode, prevSec: uint64(1000 + i), prevNs: uint64(300_000_000 + 1_000_000*i), dts: dts,
		residence: uint64(800 + i), prevTx: (uint64(0x12345678) * uint64(i+1)) & h.txMask,
		dTx: h.txUnits(h.baseCode, dts, uint64(600-20*i)), prevQ: h.qUnits(2500), q: h.qUnits(2000), id: id, newID: id}
	if h.e == telemetry.Compact {
		s.prevNs = uint64(1_000_000 + 100_000*i)
	}
	return s
}

// idle makes a hop spec carry no load (u' = 0) while staying valid.
func idle(s hopSpec) hopSpec {
	s.dTx, s.q, s.prevQ = 0, 0, 0
	return s
}

// setHop writes hop slot i of st and in from s. IFA: the new egress time is
// the stored one plus dts, normalized at 10^9 with the seconds carry; the
// new ingress time is that egress time minus the residence time (borrowing
// a second when the residence exceeds the egress ns, so rx + residence
// carries into the seconds). Compact: the new ts is the stored one plus dts
// modulo 2^24.
func (h *HPCC) setHop(st *hpcc.State, in *hpcc.Input, i int, s hopSpec) {
	const ns1 = telemetry.NsPerSecond
	secMask := uint64(1)<<telemetry.IFARxSecBits - 1
	hop := &in.Hops[i]
	*hop = telemetry.Hop{SpeedCode: s.code, TxBytes: uint32((s.prevTx + s.dTx) & h.txMask), Qlen: uint32(s.q & h.qMask)}
	st.Hops[i] = hpcc.HopState{TxBytes: uint32(s.prevTx & h.txMask), Qlen: uint32(s.prevQ & h.qMask)}
	if h.e == telemetry.Compact {
		m := uint64(1)<<telemetry.CompactTsBits - 1
		st.Hops[i].Ts = s.prevNs & m
		hop.Ts = uint32((s.prevNs + s.dts) & m)
		return
	}
	st.Hops[i].Ts = (s.prevSec&secMask)<<telemetry.IFAEgressNsBits | s.prevNs
	t := s.prevNs + s.dts
	csec, cns := (s.prevSec+t/ns1)&secMask, t%ns1
	res := s.residence % ns1
	if res <= cns {
		hop.RxSec, hop.RxNs = uint32(csec), uint32(cns-res)
	} else {
		hop.RxSec, hop.RxNs = uint32((csec-1)&secMask), uint32(cns+ns1-res)
	}
	hop.ResidenceNs = uint32(res)
	if h.hopIDBits > 0 {
		st.Hops[i].ID = s.id
		hop.DeviceID = uint32(s.newID >> telemetry.IFAPortBits)
		hop.EgressPort = uint16(s.newID)
	}
}

// base returns the base vector with nh hops: a valid flow at W = Wc =
// W_init, U = min(1/2, etaU/2), incStage 0, whose event commits Wc (sender:
// seq = lastUpdateSeq + 1; receiver: now = lastUpdateTime + T + 1), every
// hop slot filled with baseHop (slots at or above nh are ignored by the
// datapath).
func (h *HPCC) base(nh int) (hpcc.State, hpcc.Input) {
	st := hpcc.State{Valid: true, NHops: uint8(nh), W: h.wInit, Wc: h.wInit, U: min(h.uOne/2, h.etaU/2), LastUpdate: 1_000_000}
	in := hpcc.Input{NHops: uint8(nh)}
	if h.cfg.Mode == hpcc.Sender {
		in.Seq, in.SndNxt = st.LastUpdate+1, st.LastUpdate+100_000
	} else {
		in.NowNs, in.NFlows = st.LastUpdate+uint64(h.cfg.NotifyPeriod())+1, 10
	}
	for i := 0; i < h.maxHops; i++ {
		h.setHop(&st, &in, i, h.baseHop(i))
	}
	return st, in
}

// baseWith is base(MaxHops) with hop slot i set from f(baseHop(i)).
func (h *HPCC) baseWith(i int, f func(s hopSpec) hopSpec) (hpcc.State, hpcc.Input) {
	st, in := h.base(h.maxHops)
	h.setHop(&st, &in, i, f(h.baseHop(i)))
	return st, in
}

// idleBase is base(nh) with every hop idle: valid but u' = 0, so the
// first hop is selected with u' = 0 and the new U is the carried U decayed
// by (T - tau)/T (line 9); nh = 0 gives tau = 0 (U carried unchanged).
func (h *HPCC) idleBase(nh int) (hpcc.State, hpcc.Input) {
	st, in := h.base(nh)
	for i := 0; i < h.maxHops; i++ {
		h.setHop(&st, &in, i, idle(h.baseHop(i)))
	}
	return st, in
}

// perHop emits f(i) for every hop slot.
func (h *HPCC) perHop(emit emitFn, f func(i int) (hpcc.State, hpcc.Input)) error {
	for i := 0; i < h.maxHops; i++ {
		if err := emit(f(i)); err != nil {
			return err
		}
	}
	return nil
}

// searchU sets the carried U of (st, in) so that the new U equals target.
// The map from carried to new U is monotone (line 9's EWMA has a
// non-negative weight on the carried U), so a few secant steps bracket the
// answer and bisection finds the smallest carried U reaching target; ok is
// false if no carried U gives exactly target.
func (h *HPCC) searchU(st hpcc.State, in hpcc.Input, target uint64) (hpcc.State, bool) {
	f := func(u uint64) uint64 {
		st.U = u
		ns, _ := h.update(st, in)
		return ns.U
	}
	lo, hi := uint64(0), h.uMax // f(hi) >= target; f(lo) < target unless lo == 0
	if f(hi) < target {
		return st, false
	}
	if f(0) >= target {
		hi = 0
	}
	g := target
	for iter := 0; iter < 4 && lo+1 < hi; iter++ {
		v := f(g)
		if v >= target {
			hi = min(hi, g)
		} else {
			lo = max(lo, g)
		}
		if v == target || v == 0 {
			break
		}
		ph, pl := bits.Mul64(g, target) // next guess g*target/v, kept inside (lo, hi)
		if ph >= v {
			break
		}
		g, _ = bits.Div64(ph, pl, v)
		if g <= lo || g >= hi {
			g = lo + (hi-lo)/2
		}
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if f(mid) >= target {
			hi = mid
		} else {
			lo = mid
		}
	}
	if f(hi) != target {
		return st, false
	}
	st.U = hi
	return st, true
}

// buildClasses defines every class of the configuration.
func (h *HPCC) buildClasses() error {
	c := &h.cfg
	x := &hpccClassIdx{}
	for _, p := range []*int{&x.first, &x.hopsZero, &x.hopsAbove, &x.hopCountChange, &x.pathChange, &x.tie, &x.txWrap,
		&x.tsNsWrap, &x.tsSecWrap, &x.egressCarry, &x.egressEdges, &x.egressIllegal, &x.dtsSeconds, &x.termExtremes, &x.tsWrap, &x.dtsZero, &x.dtsOne, &x.dtsMax, &x.dtsAbove, &x.dtsT, &x.qZero, &x.qMax,
		&x.uBelowEta, &x.uAtEta, &x.uAboveEta, &x.incBelow, &x.incAt, &x.incAbove, &x.seqBefore, &x.seqAt, &x.seqAfter,
		&x.seqWrap, &x.seqHalf, &x.elZero, &x.elBelowT, &x.elAtT, &x.elAboveT, &x.timeWrap, &x.nZero, &x.nOne, &x.nMax,
		&x.rnEdges, &x.uZero, &x.uMax, &x.wMin, &x.wMax, &x.wcMin, &x.wcMax, &x.rdEdges, &x.ruEdges} {
		*p = -1
	}
	one := func(st hpcc.State, in hpcc.Input) func(emit emitFn) error {
		return func(emit emitFn) error { return emit(st, in) }
	}

	// First event of a flow.
	x.first = h.add("first_ack", "first event of a flow (state not valid): telemetry recorded, W = Wc = W_init, U = U_init, a round opened", 1, true,
		func(emit emitFn) error {
			for nh := 1; nh <= h.maxHops; nh++ {
				_, in := h.base(nh)
				if err := emit(hpcc.State{}, in); err != nil {
					return err
				}
				st, _ := h.base(nh) // stale register contents behind Valid = 0 must be ignored
				st.Valid = false
				if err := emit(st, in); err != nil {
					return err
				}
			}
			return nil
		})

	// Hop counts.
	for n := 1; n <= h.maxHops; n++ {
		st, in := h.base(n)
		x.hops = append(x.hops, h.add(fmt.Sprintf("hops_%d", n), fmt.Sprintf("%d hop(s) on the path, unchanged", n), 1, true, one(st, in)))
	}
	st, in := h.base(0)
	x.hopsZero = h.add("hops_0", "no telemetry on the path (tau = 0, U carried)", 1, true, one(st, in))
	if h.nhMask > uint64(h.maxHops) {
		x.hopsAbove = h.add("hops_above_max", "hop count field above MaxHops (every hop invalid, nothing recorded)", 1, true, func(emit emitFn) error {
			for n := uint64(h.maxHops) + 1; n <= h.nhMask; n++ {
				st, in := h.base(h.maxHops)
				st.NHops, in.NHops = uint8(n), uint8(n)
				if err := emit(st, in); err != nil {
					return err
				}
			}
			return nil
		})
	}
	x.hopCountChange = h.add("hop_count_change", "hop count differs from the stored one (path change: every hop re-baselines)", 1, true, func(emit emitFn) error {
		for n := 0; n <= h.maxHops; n++ {
			st, in := h.base(n)
			st.NHops = uint8((n + 1) % (h.maxHops + 1))
			if err := emit(st, in); err != nil {
				return err
			}
		}
		return nil
	})
	if c.HopIDBits() > 0 {
		x.pathChange = h.add("path_change", "a hop's switch/port identity changed (that hop re-baselines)", 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.newID ^= 1 << telemetry.IFAPortBits; return s })
			})
		})
	}

	// Which hop is the maximum, and ties.
	for i := 0; i < h.maxHops; i++ {
		st, in := h.baseWith(i, func(s hopSpec) hopSpec { s.q, s.prevQ = h.qUnits(40_000), h.qUnits(40_000); return s })
		x.maxHop = append(x.maxHop, h.add(fmt.Sprintf("max_hop_%d", i), fmt.Sprintf("hop %d has the largest u' (lines 6-7 select it)", i), 1, true, one(st, in)))
	}
	x.tie = h.add("u_tie", "two or more valid hops with identical measurements tie for the largest u' (the earliest wins)", 1, true, func(emit emitFn) error {
		loaded := func(s hopSpec) hopSpec { s.q, s.prevQ = h.qUnits(30_000), h.qUnits(30_000); return s }
		// All hops identical to hop 0's measurement.
		st, in := h.base(h.maxHops)
		for i := 1; i < h.maxHops; i++ {
			s := h.baseHop(0)
			s.prevSec, s.prevNs, s.prevTx, s.id, s.newID = h.baseHop(i).prevSec, h.baseHop(i).prevNs, h.baseHop(i).prevTx, h.baseHop(i).id, h.baseHop(i).id
			h.setHop(&st, &in, i, s)
		}
		if h.maxHops > 1 {
			if err := emit(st, in); err != nil {
				return err
			}
		}
		// Each pair (a, b), a < b, loaded identically above the rest.
		for a := 0; a < h.maxHops; a++ {
			for b := a + 1; b < h.maxHops; b++ {
				st, in := h.base(h.maxHops)
				sa := loaded(h.baseHop(a))
				sb := sa
				sb.prevSec, sb.prevNs, sb.prevTx, sb.id, sb.newID = h.baseHop(b).prevSec, h.baseHop(b).prevNs, h.baseHop(b).prevTx, h.baseHop(b).id, h.baseHop(b).id
				h.setHop(&st, &in, a, sa)
				h.setHop(&st, &in, b, sb)
				if err := emit(st, in); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if h.maxHops < 2 {
		h.classes[x.tie].Unreachable = fmt.Sprintf("a tie needs two valid hops, MaxHops=%d", h.maxHops)
	}

	// Counter and timestamp wraps.
	x.txWrap = h.add("tx_bytes_wrap", "txBytes counter wraps between the stored and the new sample", 1, true, func(emit emitFn) error {
		return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
			return h.baseWith(i, func(s hopSpec) hopSpec { s.prevTx = h.txMask - s.dTx/2; return s })
		})
	})
	if h.e == telemetry.Compact {
		x.tsWrap = h.add("ts_wrap", "24-bit ns timestamp wraps between the stored and the new sample", 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.prevNs = 1<<telemetry.CompactTsBits - s.dts/2; return s })
			})
		})
	} else {
		x.tsNsWrap = h.add("ts_ns_wrap", "egress ns wraps at 10^9 with a carry into the seconds", 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.prevNs = telemetry.NsPerSecond - s.dts/2; return s })
			})
		})
		x.tsSecWrap = h.add("ts_sec_wrap", "egress seconds wrap at 2^20 (with the ns carry)", 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec {
					s.prevSec, s.prevNs = 1<<telemetry.IFARxSecBits-1, telemetry.NsPerSecond-s.dts/2
					return s
				})
			})
		})
		x.egressCarry = h.add("egress_carry", "rxTimeStampNs + residenceTime >= 10^9: egress time carries a second", 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.residence = s.prevNs + s.dts + 1000; return s })
			})
		})
		x.egressEdges = h.add("egress_carry_edges", "rxTimeStampNs + residenceTime at k*10^9 - 1, k*10^9 and k*10^9 + 1 for every reachable carry k = 1..5 and at its maximum 10^9 - 1 + 2^32 - 1, split with the largest rxTimeStampNs and with the largest residenceTime, on every hop", 1, true,
			func(emit emitFn) error {
				for i := 0; i < h.maxHops; i++ {
					for _, t := range egressEdgeTimes() {
						for _, s := range egressSplits(t) {
							st, in := h.base(h.maxHops)
							hop := &in.Hops[i]
							hop.RxNs, hop.ResidenceNs = uint32(s[0]), uint32(s[1])
							if s[1] >= s[0] { // the residence-heavy split also wraps the egress seconds
								hop.RxSec = 1<<telemetry.IFARxSecBits - 2
							}
							if err := emit(st, in); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
		x.egressIllegal = h.add("egress_carry_illegal_rx", "rxTimeStampNs >= 10^9 (a nonconforming switch: the field carries ns below 10^9), so rx + residence reaches the carries 6..8 no legal hop reaches: t at k*10^9 - 1, k*10^9 and k*10^9 + 1 for k = 6..8 and at its maximum 2*(2^32-1), split with the largest rxTimeStampNs and with the largest residenceTime, on every hop (the datapath defines the normalization for every input bit pattern)", 1, true,
			func(emit emitFn) error {
				for i := 0; i < h.maxHops; i++ {
					for _, t := range illegalEgressTimes() {
						for _, s := range illegalSplits(t) {
							st, in := h.base(h.maxHops)
							in.Hops[i].RxNs, in.Hops[i].ResidenceNs = uint32(s[0]), uint32(s[1])
							if err := emit(st, in); err != nil {
								return err
							}
						}
					}
				}
				return nil
			})
	}

	// Delta ts.
	dtsClass := func(name, doc string, dts uint64) int {
		return h.add(name, doc, 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.dts, s.dTx = dts, h.txUnits(s.code, dts, 500); return s })
			})
		})
	}
	x.dtsZero = dtsClass("dts_zero", "delta ts = 0 on an otherwise valid hop (no measurement, re-baseline)", 0)
	x.dtsOne = dtsClass("dts_one", "delta ts = 1 ns (largest 1/dts)", 1)
	x.dtsMax = dtsClass("dts_max", fmt.Sprintf("delta ts = MaxDeltaTsNs = %d (largest accepted)", c.MaxDeltaTsNs), c.MaxDeltaTsNs)
	x.dtsAbove = dtsClass("dts_above_max", fmt.Sprintf("delta ts = MaxDeltaTsNs + 1 = %d (stale sample: re-baseline)", c.MaxDeltaTsNs+1), c.MaxDeltaTsNs+1)
	if T := uint64(c.BaseRTTNs); T+1 <= c.MaxDeltaTsNs {
		x.dtsT = h.add("dts_t_edges", fmt.Sprintf("delta ts = T - 1, T and T + 1 (T = %d ns) on one loaded hop over idle ones (the selected hop): tau = min(dts, T) just below, at and above its clamp", T), 1, true, func(emit emitFn) error {
			for _, dts := range []uint64{T - 1, T, T + 1} {
				err := h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
					st, in := h.idleBase(h.maxHops) // the other hops idle: hop i is the one selected
					s := h.baseHop(i)
					s.dts, s.dTx = dts, h.txUnits(s.code, dts, 500)
					h.setHop(&st, &in, i, s)
					return st, in
				})
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	if h.e != telemetry.Compact {
		x.dtsSeconds = h.add("dts_borrow_edges", fmt.Sprintf("IFA delta ts whose ns part borrows a second (new egress ns below the stored one) at dts = 1, MaxDeltaTsNs = %d and MaxDeltaTsNs + 1, and at k*10^9 plus those for k = 1, 2, 5 seconds, on every hop", c.MaxDeltaTsNs), 1, true,
			func(emit emitFn) error {
				for _, dts := range dtsBorrowEdges(c.MaxDeltaTsNs) {
					err := h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
						return h.baseWith(i, func(s hopSpec) hopSpec {
							r := dts % telemetry.NsPerSecond
							s.prevNs, s.dts = telemetry.NsPerSecond-1-(r-1)/2, dts // prevNs + r >= 10^9: the ns part wraps
							s.dTx = h.txUnits(s.code, min(dts, c.MaxDeltaTsNs), 500)
							return s
						})
					})
					if err != nil {
						return err
					}
				}
				return nil
			})
	}

	// Queue length.
	x.qZero = h.add("qlen_zero", "queue length 0 on a valid hop", 1, true, func(emit emitFn) error {
		return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
			return h.baseWith(i, func(s hopSpec) hopSpec { s.q = 0; return s })
		})
	})
	x.qMax = h.add("qlen_max", "queue length at the field maximum in both samples (min(qlen, last qlen) = max)", 1, true, func(emit emitFn) error {
		return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
			return h.baseWith(i, func(s hopSpec) hopSpec { s.q, s.prevQ = h.qMask, h.qMask; return s })
		})
	})

	// Every speed code.
	for code := range h.speedGbp {
		doc := fmt.Sprintf("a hop with speed code %d (%d Gbps)", code, h.speedGbp[code])
		switch {
		case h.speedGbp[code] == 0:
			doc = fmt.Sprintf("a hop with speed code %d (reserved: invalid hop)", code)
		case !h.speedOK[code]:
			doc += fmt.Sprintf(", above MaxLinkSpeedGbps=%d: invalid hop", c.MaxLinkSpeedGbps)
		}
		code := uint8(code)
		x.speed = append(x.speed, h.add(fmt.Sprintf("speed_code_%d", code), doc, 1, true, func(emit emitFn) error {
			return h.perHop(emit, func(i int) (hpcc.State, hpcc.Input) {
				return h.baseWith(i, func(s hopSpec) hopSpec { s.code = code; s.dTx = h.txUnits(code, s.dts, 700); return s })
			})
		}))
	}

	// Lines 4-5 at their extremes: saturating casts and every kq/kr entry.
	x.termExtremes = h.add("hop_term_extremes", "one loaded hop over idle ones, for every valid speed code: delta ts in {1, 2, 3, 1000, MaxDeltaTsNs} x txBytes increase in {1, 2^8+1, 2^20+1, 2^26+1, half the counter range, the counter maximum} x queue length in {0, field maximum}: txRate = dTx/dts, its products with KR and KQ and their sum into U driven to saturation and through every kq/kr entry with several operands", 1, true,
		func(emit emitFn) error {
			for i := 0; i < h.maxHops; i++ {
				for _, code := range h.okCodes {
					for _, dts := range h.termDts() {
						for _, dTx := range h.termTx() {
							for _, q := range []uint64{0, h.qMask} {
								st, in := h.idleBase(h.maxHops)
								s := idle(h.baseHop(i))
								s.code, s.dts, s.dTx, s.q, s.prevQ = code, dts, dTx, q, q
								h.setHop(&st, &in, i, s)
								if err := emit(st, in); err != nil {
									return err
								}
							}
						}
					}
				}
			}
			return nil
		})

	// U around eta: the comparator of line 12.
	etaClass := func(name, doc string, target uint64) (int, error) {
		if target > h.uMax {
			return -1, nil
		}
		return h.add(name, doc, 1, true, func(emit emitFn) error {
			for _, nh := range []int{0, h.maxHops} {
				for _, commit := range []bool{true, false} {
					st, in := h.idleBase(nh)
					if !commit {
						h.noCommit(&st, &in)
					}
					if st, ok := h.searchU(st, in, target); ok {
						if err := emit(st, in); err != nil {
							return err
						}
					}
				}
			}
			return nil
		}), nil
	}
	if h.etaU > 0 {
		x.uBelowEta, _ = etaClass("u_eta_minus_lsb", "new U one LSB below the smallest U read as >= eta (additive step)", h.etaU-1)
	}
	x.uAtEta, _ = etaClass("u_at_eta", "new U at eta (the smallest U the line-12 comparator reads as >= eta: multiplicative step)", h.etaU)
	x.uAboveEta, _ = etaClass("u_eta_plus_lsb", "new U one LSB above that", h.etaU+1)

	// incStage around maxStage, with U below eta so incStage decides.
	incClass := func(name, doc string, v uint64) int {
		return h.add(name, doc, 1, true, func(emit emitFn) error {
			for _, commit := range []bool{true, false} {
				st, in := h.base(h.maxHops)
				st.IncStage = uint8(v)
				if !commit {
					h.noCommit(&st, &in)
				}
				if err := emit(st, in); err != nil {
					return err
				}
			}
			return nil
		})
	}
	ms := uint64(c.MaxStage)
	if ms >= 1 {
		x.incBelowV = ms - 1
		x.incBelow = incClass("inc_stage_below_max", fmt.Sprintf("incStage = maxStage-1 = %d with U below eta (additive step)", ms-1), ms-1)
	}
	x.incAtV = ms
	x.incAt = incClass("inc_stage_at_max", fmt.Sprintf("incStage = maxStage = %d with U below eta (multiplicative step)", ms), ms)
	if ms+1 <= h.incMask {
		x.incAboveV = ms + 1
		x.incAbove = incClass("inc_stage_above_max", fmt.Sprintf("incStage = maxStage+1 = %d (unreachable register value) with U below eta", ms+1), ms+1)
	}

	// Round boundary: seq vs lastUpdateSeq (sender) or elapsed time (receiver).
	n := c.LastUpdateBits()
	half := uint64(1) << uint(n-1)
	if c.Mode == hpcc.Sender {
		seqClass := func(name, doc string, last, seq uint64) int {
			return h.add(name, doc, 1, true, func(emit emitFn) error {
				for _, idleHops := range []bool{false, true} {
					st, in := h.base(h.maxHops)
					if idleHops {
						st, in = h.idleBase(h.maxHops)
					}
					st.LastUpdate, in.Seq = last&h.seqMask, seq&h.seqMask
					if err := emit(st, in); err != nil {
						return err
					}
				}
				return nil
			})
		}
		const l = 1_000_000
		x.seqBefore = seqClass("seq_before_last_update", "seq = lastUpdateSeq - 1 (no commit)", l, l-1)
		x.seqAt = seqClass("seq_at_last_update", "seq = lastUpdateSeq (no commit: line 22 needs seq > lastUpdateSeq)", l, l)
		x.seqAfter = seqClass("seq_after_last_update", "seq = lastUpdateSeq + 1 (commit)", l, l+1)
		x.seqWrap = seqClass("seq_wrap", "seq wrapped past 2^SeqBits ahead of lastUpdateSeq (serial-number compare: commit)", h.seqMask-1, 2)
		x.seqHalf = seqClass("seq_half_range", "seq - lastUpdateSeq = 2^(SeqBits-1) (serial-number compare undefined: no commit)", l, l+half)
	} else {
		t := uint64(c.NotifyPeriod()) // the commit compares now - lastUpdateTime with P (default T)
		elClass := func(name, doc string, last, el uint64) int {
			return h.add(name, doc, 1, true, func(emit emitFn) error {
				for _, idleHops := range []bool{false, true} {
					st, in := h.base(h.maxHops)
					if idleHops {
						st, in = h.idleBase(h.maxHops)
					}
					st.LastUpdate, in.NowNs = last&h.seqMask, (last+el)&h.seqMask
					if err := emit(st, in); err != nil {
						return err
					}
				}
				return nil
			})
		}
		const l = 1_000_000
		x.elZero = elClass("elapsed_zero", "now = lastUpdateTime (no commit)", l, 0)
		x.elBelowT = elClass("elapsed_t_minus_1", "now - lastUpdateTime = T - 1 (no commit)", l, t-1)
		x.elAtT = elClass("elapsed_at_t", "now - lastUpdateTime = T (no commit: line 29 needs more than T)", l, t)
		x.elAboveT = elClass("elapsed_t_plus_1", "now - lastUpdateTime = T + 1 (commit, notify)", l, t+1)
		x.timeWrap = elClass("time_wrap", "now wrapped past 2^TimeBits since lastUpdateTime (commit)", h.seqMask-t/2, t+1)
		if c.DynamicWAI {
			nm := fieldtable.Mask(c.FlowCountBits)
			nClass := func(name, doc string, vals ...uint64) int {
				return h.add(name, doc, 1, true, func(emit emitFn) error {
					for _, v := range vals {
						st, in := h.base(h.maxHops)
						in.NFlows = uint32(v)
						if err := emit(st, in); err != nil {
							return err
						}
					}
					return nil
				})
			}
			x.nZero = nClass("nflows_zero", "N = 0 (read as 1)", 0)
			x.nOne = nClass("nflows_one", "N = 1 (largest dynamic W_ai)", 1)
			x.nMax = nClass("nflows_max", "N at the field maximum (smallest dynamic W_ai)", nm)
			var edges []uint64
			for idx := uint64(0); idx < 1<<uint(h.rnK); idx++ {
				for _, p := range []int{h.rnK + 1, c.FlowCountBits - 1} {
					if p <= h.rnK || p >= 64 {
						continue
					}
					lo := uint64(1)<<uint(p) | idx<<uint(p-h.rnK)
					edges = append(edges, lo, lo|fieldtable.Mask(p-h.rnK))
				}
			}
			if len(edges) > 0 {
				x.rnEdges = nClass("recip_n_table_edges", "N at the first and last input of every 1/N table entry", edges...)
			}
		}
	}

	// Saturation of U, the window bounds.
	x.uZero = h.add("u_zero", "new U = 0 (1/U saturates: multiplicative step clamps W)", 1, true, func(emit emitFn) error {
		for _, inc := range []uint64{0, ms} {
			st, in := h.idleBase(h.maxHops)
			st.U, st.IncStage = 0, uint8(inc)
			if err := emit(st, in); err != nil {
				return err
			}
		}
		return nil
	})
	x.uMax = h.add("u_max", "new U saturates at its format's maximum (full queues on the slowest link, tau = T)", 1, true, func(emit emitFn) error {
		st, in := h.base(h.maxHops)
		for i := 0; i < h.maxHops; i++ {
			s := h.baseHop(i)
			s.code, s.q, s.prevQ, s.dts = h.slowCode, h.qMask, h.qMask, uint64(c.BaseRTTNs)
			s.dTx = h.txUnits(s.code, s.dts, 1000)
			h.setHop(&st, &in, i, s)
		}
		return emit(st, in)
	})
	if h.wMinOK {
		h.addWMinClasses(x, ms)
	}
	x.wMax = h.add("w_at_max", "new W clamped at W_max", 1, true, func(emit emitFn) error {
		st, in := h.base(h.maxHops)
		st.Wc = h.wMax
		if err := emit(st, in); err != nil {
			return err
		}
		st, in = h.idleBase(h.maxHops)
		st.Wc, st.U, st.IncStage = h.wMax, 1, uint8(ms) // U = 1 LSB: eta/U saturates
		return emit(st, in)
	})
	x.wcMax = h.add("wc_at_max", "stored Wc = W_max (both branches)", 1, true, func(emit emitFn) error {
		for _, inc := range []uint64{0, ms} {
			st, in := h.base(h.maxHops)
			st.Wc, st.W, st.IncStage = h.wMax, h.wMax, uint8(inc)
			if err := emit(st, in); err != nil {
				return err
			}
		}
		return nil
	})

	// Reciprocal table boundaries.
	x.rdEdges = h.add("recip_dts_table_edges", "delta ts at the first and last input of every 1/dts table entry (two exponents), on a loaded hop", 1, true, func(emit emitFn) error {
		k := h.rdK
		pmax := bits.Len64(c.MaxDeltaTsNs) - 1
		ps := []int{k + 1}
		if pmax > k+1 {
			ps = append(ps, pmax)
		}
		for _, p := range ps {
			for idx := uint64(0); idx < 1<<uint(k); idx++ {
				lo := uint64(1)<<uint(p) | idx<<uint(p-k)
				for _, dts := range []uint64{lo, lo | fieldtable.Mask(p-k)} {
					if dts > c.MaxDeltaTsNs {
						continue
					}
					i := int(idx) % h.maxHops
					st, in := h.idleBase(h.maxHops)
					s := h.baseHop(i)
					s.q, s.prevQ, s.dts, s.dTx = 0, 0, dts, h.txUnits(s.code, dts, 500)
					h.setHop(&st, &in, i, s)
					if err := emit(st, in); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	x.ruEdges = h.add("recip_u_table_edges", "new U at the first and last input of every 1/U table entry (U in [1,2) and [1/16,1/8)), multiplicative step", 1, true, func(emit emitFn) error {
		k := h.ruK
		f := c.Formats.U.F()
		for _, p := range []int{f, f - 4} {
			if p <= k || p >= c.Formats.U.W {
				continue
			}
			for idx := uint64(0); idx < 1<<uint(k); idx++ {
				lo := uint64(1)<<uint(p) | idx<<uint(p-k)
				for _, target := range []uint64{lo, lo | fieldtable.Mask(p-k)} {
					st, in := h.idleBase(h.maxHops)
					st.IncStage = uint8(ms)
					if st, ok := h.searchU(st, in, target); ok {
						if err := emit(st, in); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	})

	if err := h.addConstructedClasses(); err != nil {
		return err
	}
	h.addPatternClasses()
	h.idx = x
	return nil
}

// noCommit turns the event of a base vector into one that does not commit
// Wc (sender: seq = lastUpdateSeq; receiver: now = lastUpdateTime).
func (h *HPCC) noCommit(st *hpcc.State, in *hpcc.Input) {
	if h.cfg.Mode == hpcc.Sender {
		in.Seq = st.LastUpdate
	} else {
		in.NowNs = st.LastUpdate
	}
}

// detectAll marks every detected class the observed update hits.
func (h *HPCC) detectAll(o *hobs, hits *Hits) {
	x := h.idx
	mark := func(c int, cond bool) {
		if c >= 0 && cond {
			hits.Hit(c)
		}
	}
	if o.first {
		hits.Hit(x.first)
		return
	}
	c := &h.cfg
	if o.nh == o.stNH && o.nh >= 1 && o.nh <= uint64(h.maxHops) {
		hits.Hit(x.hops[o.nh-1])
	}
	mark(x.hopsZero, o.nh == 0 && o.stNH == 0)
	mark(x.hopsAbove, o.nh > uint64(h.maxHops))
	mark(x.hopCountChange, o.nh != o.stNH)
	if o.out.SelHop != hpcc.NoHop && int(o.out.SelHop) < h.maxHops {
		s := int(o.out.SelHop)
		hits.Hit(x.maxHop[s])
		for j := s + 1; j < h.maxHops; j++ {
			if o.valid[j] && o.code[j] == o.code[s] && o.dts[j] == o.dts[s] && o.dTx[j] == o.dTx[s] && o.minQ[j] == o.minQ[s] {
				hits.Hit(x.tie)
				break
			}
		}
	}
	for i := 0; i < h.maxHops; i++ {
		if !o.inPath[i] {
			continue
		}
		hits.Hit(x.speed[o.code[i]])
		hop, prev := &o.in.Hops[i], &o.st.Hops[i]
		mark(x.pathChange, o.pathOK && o.idChanged[i])
		mark(x.egressCarry, uint64(hop.RxNs)+uint64(hop.ResidenceNs) >= telemetry.NsPerSecond)
		mark(x.egressEdges, isEgressEdge(uint64(hop.RxNs)+uint64(hop.ResidenceNs)))
		mark(x.egressIllegal, isIllegalEgress(uint64(hop.RxNs), uint64(hop.ResidenceNs)))
		if h.measurable(o, i) {
			mark(x.dtsZero, o.dts[i] == 0)
			mark(x.dtsAbove, o.dts[i] > c.MaxDeltaTsNs)
			if h.e != telemetry.Compact {
				_, pn := o.prevSecNs(i)
				mark(x.dtsSeconds, o.curNs[i] < pn && slices.Contains(h.dtsEdgeList, o.dts[i]))
			}
		}
		if !o.valid[i] {
			continue
		}
		ps, pn := o.prevSecNs(i)
		mark(x.txWrap, uint64(hop.TxBytes)&h.txMask < uint64(prev.TxBytes)&h.txMask)
		mark(x.tsWrap, o.curNs[i] < prev.Ts)
		mark(x.tsNsWrap, o.curNs[i] < pn)
		mark(x.tsSecWrap, o.curSec[i] < ps)
		mark(x.dtsOne, o.dts[i] == 1)
		mark(x.dtsMax, o.dts[i] == c.MaxDeltaTsNs)
		mark(x.dtsT, o.valid[i] && o.dts[i]+1 >= uint64(c.BaseRTTNs) && o.dts[i] <= uint64(c.BaseRTTNs)+1)
		mark(x.qZero, uint64(hop.Qlen)&h.qMask == 0)
		mark(x.qMax, o.minQ[i] == h.qMask)
		mark(x.termExtremes, slices.Contains(h.termTxList, o.dTx[i]) && slices.Contains(h.termDtsList, o.dts[i]) && (o.minQ[i] == 0 || o.minQ[i] == h.qMask))
		if p := bits.Len64(o.dts[i]) - 1; p > h.rdK {
			if _, edge := recipIndex(o.dts[i], h.rdK); edge {
				mark(x.rdEdges, true)
			}
		}
	}
	u := o.next.U
	inc := uint64(o.st.IncStage) & h.incMask
	below := inc < uint64(c.MaxStage)
	mark(x.uBelowEta, below && h.etaU > 0 && u == h.etaU-1)
	mark(x.uAtEta, below && u == h.etaU)
	mark(x.uAboveEta, below && u == h.etaU+1)
	mark(x.incBelow, inc == x.incBelowV && u < h.etaU)
	mark(x.incAt, inc == x.incAtV && u < h.etaU)
	mark(x.incAbove, inc == x.incAboveV && u < h.etaU)
	half := h.luHalf
	if c.Mode == hpcc.Sender {
		mark(x.seqBefore, o.elapse == h.seqMask)
		mark(x.seqAt, o.elapse == 0)
		mark(x.seqAfter, o.elapse == 1)
		mark(x.seqWrap, o.in.Seq&h.seqMask < o.st.LastUpdate&h.seqMask && o.elapse != 0 && o.elapse < half)
		mark(x.seqHalf, o.elapse == half)
	} else {
		t := h.notifyP
		mark(x.elZero, o.elapse == 0)
		mark(x.elBelowT, o.elapse == t-1)
		mark(x.elAtT, o.elapse == t)
		mark(x.elAboveT, o.elapse == t+1)
		mark(x.timeWrap, o.in.NowNs&h.seqMask < o.st.LastUpdate&h.seqMask && o.elapse > t)
		if c.DynamicWAI {
			nf := uint64(o.in.NFlows) & h.nfMask
			mark(x.nZero, nf == 0)
			mark(x.nOne, nf == 1)
			mark(x.nMax, nf == h.nfMask)
			if p := bits.Len64(nf) - 1; p > h.rnK {
				_, edge := recipIndex(nf, h.rnK)
				mark(x.rnEdges, edge)
			}
		}
	}
	mark(x.uZero, u == 0)
	mark(x.uMax, u == h.uMax)
	mark(x.wMin, h.wMinOK && o.next.W == h.wMin)
	mark(x.wMax, o.next.W == h.wMax)
	mark(x.wcMin, h.wMinOK && o.st.Wc == h.wMin)
	mark(x.wcMax, o.st.Wc == h.wMax)
	if p := bits.Len64(u) - 1; p > h.ruK && o.out.MI {
		_, edge := recipIndex(u, h.ruK)
		mark(x.ruEdges, edge)
	}
	if h.cx != nil {
		h.cx.detect(o, hits)
	}
}

// addWMinClasses adds the classes at the W_min clamp (when it is reachable).
func (h *HPCC) addWMinClasses(x *hpccClassIdx, ms uint64) {
	x.wMin = h.add("w_at_min", "new W clamped at W_min", 1, true, func(emit emitFn) error {
		st, in := h.idleBase(h.maxHops)
		st.Wc, st.IncStage = h.wMin, uint8(ms)
		st, ok := h.searchU(st, in, min(h.uMax, 8*h.uOne))
		if !ok {
			st.U = h.uMax
		}
		if err := emit(st, in); err != nil {
			return err
		}
		st, in = h.idleBase(h.maxHops)
		st.Wc = 0 // unreachable register value: additive step 0 + W_ai clamps up
		return emit(st, in)
	})
	x.wcMin = h.add("wc_at_min", "stored Wc = W_min (both branches)", 1, true, func(emit emitFn) error {
		for _, inc := range []uint64{0, ms} {
			st, in := h.base(h.maxHops)
			st.Wc, st.W, st.IncStage = h.wMin, h.wMin, uint8(inc)
			if err := emit(st, in); err != nil {
				return err
			}
		}
		return nil
	})
}

// egressMaxNs is the largest IFA egress time rx + residence of a legal hop
// (rxTimeStampNs < 10^9, residenceTime < 2^32), ns: the carry
// floor(t/10^9) of the normalization reaches at most 5.
const egressMaxNs = telemetry.NsPerSecond - 1 + 1<<telemetry.IFAResidenceBits - 1

// egressEdgeTimes lists the egress times t = rx + residence of class
// egress_carry_edges in increasing order: k*10^9 - 1, k*10^9, k*10^9 + 1 for
// k = 1..5 (each a comparator t >= k*10^9 of the normalization just below,
// at and above its threshold) and egressMaxNs.
func egressEdgeTimes() []uint64 {
	var ts []uint64
	for k := uint64(1); k*telemetry.NsPerSecond <= egressMaxNs; k++ {
		for _, t := range []uint64{k*telemetry.NsPerSecond - 1, k * telemetry.NsPerSecond, k*telemetry.NsPerSecond + 1} {
			if t <= egressMaxNs {
				ts = append(ts, t)
			}
		}
	}
	return append(ts, egressMaxNs)
}

// egressSplits returns two legal (rxNs, residence) pairs summing to t <=
// egressMaxNs: the largest rxNs (min(t, 10^9-1)) and the largest residence
// (min(t, 2^32-1)), so the egress adder sees both operands large in turn.
func egressSplits(t uint64) [2][2]uint64 {
	rx := min(t, telemetry.NsPerSecond-1)
	res := min(t, 1<<telemetry.IFAResidenceBits-1)
	return [2][2]uint64{{rx, t - rx}, {t - res, res}}
}

// egressIllegalMaxNs is the largest egress time rx + residence for any
// input bits (both fields 32 bits): carry 8.
const egressIllegalMaxNs = 1<<telemetry.IFARxNsBits - 1 + 1<<telemetry.IFAResidenceBits - 1

// illegalEgressTimes lists the egress times of class
// egress_carry_illegal_rx: k*10^9 - 1, k*10^9, k*10^9 + 1 for k = 6..8 (the
// comparators no legal hop reaches) and egressIllegalMaxNs.
func illegalEgressTimes() []uint64 {
	var ts []uint64
	for k := uint64(6); k <= 8; k++ {
		for _, t := range []uint64{k*telemetry.NsPerSecond - 1, k * telemetry.NsPerSecond, k*telemetry.NsPerSecond + 1} {
			ts = append(ts, t)
		}
	}
	return append(ts, egressIllegalMaxNs)
}

// illegalSplits returns two (rxNs, residence) pairs of 32-bit fields
// summing to t (> egressMaxNs, so rxNs >= 10^9 in both): the largest rxNs
// and the largest residence.
func illegalSplits(t uint64) [2][2]uint64 {
	const max32 = 1<<32 - 1
	rx := min(t, max32)
	res := min(t, max32)
	return [2][2]uint64{{rx, t - rx}, {t - res, res}}
}

// isIllegalEgress reports whether a hop is one class egress_carry_illegal_rx
// aims at: rxTimeStampNs >= 10^9 and an egress time at or above the carry-6
// edge 6*10^9 - 1.
func isIllegalEgress(rx, residence uint64) bool {
	return rx >= telemetry.NsPerSecond && rx+residence >= 6*telemetry.NsPerSecond-1
}

// isEgressEdge reports whether the egress time t = rx + residence is one
// class egress_carry_edges aims at: within 1 ns of a multiple k >= 1 of
// 10^9, or at least 2*10^9 (carry 2 or more).
func isEgressEdge(t uint64) bool {
	if t >= 2*telemetry.NsPerSecond {
		return true
	}
	r := (t + 1) % telemetry.NsPerSecond
	return t+1 >= telemetry.NsPerSecond && r <= 2
}

// dtsBorrowSeconds are the whole seconds k added to the ns-part edges of
// class dts_borrow_edges (0: the edge itself).
var dtsBorrowSeconds = []uint64{0, 1, 2, 5}

// dtsBorrowEdges lists the delta ts values of class dts_borrow_edges:
// k*10^9 + e for every k of dtsBorrowSeconds and e in {1, maxDts, maxDts+1}
// below 10^9 (an ns part that can borrow; a MaxDeltaTsNs of a second or more
// leaves only e = 1).
func dtsBorrowEdges(maxDts uint64) []uint64 {
	var ds []uint64
	for _, k := range dtsBorrowSeconds {
		for _, e := range []uint64{1, maxDts, maxDts + 1} {
			if e == 1 || maxDts+1 < telemetry.NsPerSecond {
				ds = append(ds, k*telemetry.NsPerSecond+e)
			}
		}
	}
	return ds
}

// isDtsBorrowEdge reports whether dts is one of dtsBorrowEdges(maxDts).
func isDtsBorrowEdge(dts, maxDts uint64) bool {
	for _, d := range dtsBorrowEdges(maxDts) {
		if dts == d {
			return true
		}
	}
	return false
}

// termDts are the delta ts values of class hop_term_extremes, ns: the
// smallest (largest 1/dts, so the largest txRate), two more small ones, a
// typical one and MaxDeltaTsNs.
func (h *HPCC) termDts() []uint64 { return []uint64{1, 2, 3, 1000, h.cfg.MaxDeltaTsNs} }

// termTx are the txBytes counter increases of class hop_term_extremes, in
// counter units: powers of two plus one (so the products carry dropped
// fraction bits) up to half the counter range, and the counter maximum.
func (h *HPCC) termTx() []uint64 {
	var xs []uint64
	for _, p := range []uint{0, 8, 20, 26} {
		v := uint64(1) << p
		if p > 0 {
			v++
		}
		if v < h.txMask/2 {
			xs = append(xs, v)
		}
	}
	return append(xs, h.txMask/2, h.txMask)
}
