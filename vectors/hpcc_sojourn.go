package vectors

import (
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// The Sojourn option of the HPCC++ vector model (issue 17, draft section
// 9.4): with hpcc.Config.Sojourn the hop's queue sample is its sojourn
// time, the residence time (egress - ingress, ns) of the IFA record,
// saturated at 2^24-1 and stored in the flow table's qlen slot.
//
// The directed classes are written around a hop's queue sample (which hop
// is the maximum, ties, zero and full queues, U at eta ...). In sojourn
// mode sojournCarry moves each in-path hop's queue value into its
// residence (ns = the class's qlen value, the ingress time moved so that
// the egress time rx + residence is unchanged), so every class keeps its
// meaning with the sample it now depends on; the wire qlen is left as the
// class set it (ignored by the datapath). The sojourn classes below set
// the residence themselves and are not carried.

// hpccSojourn holds the sojourn class indices.
type hpccSojourn struct {
	raw                         map[int]bool // classes that set the residence themselves
	zero, atT, minStored, atMax int
	saturated, perSlots         int
}

// sojournCarry rewrites the in-path hops of in (see above). A hop whose
// ingress ns is not below 10^9 (the illegal-egress classes), or whose
// egress time minus the sample does not fit the 32-bit ingress field, is
// left as is.
func (h *HPCC) sojournCarry(in *hpcc.Input) {
	for i := 0; i < h.maxHops && i < int(uint64(in.NHops)&h.nhMask); i++ {
		hp := &in.Hops[i]
		if uint64(hp.RxNs) >= telemetry.NsPerSecond {
			continue
		}
		t := uint64(hp.RxNs) + uint64(hp.ResidenceNs) // egress ns, may carry
		r := uint64(hp.Qlen) & h.qMask                // < 2^24 < 10^9
		if t-r > 1<<telemetry.IFARxNsBits-1 && t >= r {
			continue // the ingress field cannot hold t - r (egress edges near the 2^32 + 10^9 maximum)
		}
		if t >= r {
			hp.RxNs = uint32(t - r)
		} else {
			hp.RxNs = uint32(t + telemetry.NsPerSecond - r)
			hp.RxSec = (hp.RxSec - 1) & (1<<telemetry.IFARxSecBits - 1)
		}
		hp.ResidenceNs = uint32(r)
	}
}

// buildSojournClasses registers the sojourn classes (only with Sojourn).
func (h *HPCC) buildSojournClasses() {
	sj := &hpccSojourn{raw: map[int]bool{}}
	h.sj = sj
	t := uint64(h.cfg.BaseRTTNs)
	sMax := h.qMask // 2^24-1 ns
	// spec sets slot i's stored sample and the new residence (ns).
	emitRes := func(emit emitFn, i int, stored, res uint64) error {
		st, in := h.base(h.maxHops)
		s := h.baseHop(i)
		s.prevQ = stored
		s.residence = res
		h.setHop(&st, &in, i, s)
		return emit(st, in)
	}
	add := func(name, doc string, gen func(emit emitFn) error) int {
		c := h.add(name, doc, 1, true, gen)
		sj.raw[c] = true
		return c
	}
	sj.zero = add("sojourn_zero", "sojourn time 0 in both samples: no queueing delay term", func(emit emitFn) error { return emitRes(emit, 0, 0, 0) })
	sj.atT = add("sojourn_at_t", "sojourn time T in both samples: the queue term is 1 (sojourn/T)", func(emit emitFn) error { return emitRes(emit, 0, t, t) })
	sj.minStored = add("sojourn_min_stored", "the new sojourn above the stored one: min picks the stored sample", func(emit emitFn) error {
		return emitRes(emit, 0, t/2, 3*t)
	})
	sj.atMax = add("sojourn_at_max", "sojourn time 2^24-1 ns: the largest stored sample, no saturation", func(emit emitFn) error {
		return emitRes(emit, 0, sMax, sMax)
	})
	sj.saturated = add("sojourn_saturated", "residence 2^24 ns and above saturates to 2^24-1 (u' is at UMax either way)", func(emit emitFn) error {
		for _, r := range []uint64{sMax + 1, 1 << 25, telemetry.NsPerSecond - 1} {
			if err := emitRes(emit, 0, sMax, r); err != nil {
				return err
			}
		}
		return nil
	})
	sj.perSlots = add("sojourn_per_slot", "a distinct sojourn in every hop slot (the largest in the last slot selects it)", func(emit emitFn) error {
		st, in := h.base(h.maxHops)
		for i := 0; i < h.maxHops; i++ {
			s := h.baseHop(i)
			s.prevQ = uint64(1000 * (i + 1))
			s.residence = uint64(1000 * (i + 1))
			h.setHop(&st, &in, i, s)
		}
		return emit(st, in)
	})
}

// detectSojourn marks the sojourn classes from one update's valid hops.
func (h *HPCC) detectSojourn(o *hobs, hits *Hits) {
	sj := h.sj
	if sj == nil || o.first {
		return
	}
	t := uint64(h.cfg.BaseRTTNs)
	distinct := o.nh == uint64(h.maxHops) && o.out.SelHop == uint8(h.maxHops-1)
	for i := 0; i < h.maxHops; i++ {
		if !o.valid[i] {
			distinct = false
			continue
		}
		res := uint64(o.in.Hops[i].ResidenceNs)
		stored := uint64(o.st.Hops[i].Qlen) & h.qMask
		if res == 0 && stored == 0 {
			hits.Hit(sj.zero)
		}
		if res == t && stored == t {
			hits.Hit(sj.atT)
		}
		if res > stored && stored > 0 && res <= h.qMask {
			hits.Hit(sj.minStored)
		}
		if res == h.qMask && stored == h.qMask {
			hits.Hit(sj.atMax)
		}
		if res > h.qMask {
			hits.Hit(sj.saturated)
		}
		if i > 0 && uint64(o.in.Hops[i-1].ResidenceNs) >= res {
			distinct = false
		}
	}
	if distinct {
		hits.Hit(sj.perSlots)
	}
}
