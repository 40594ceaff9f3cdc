package vectors

import (
	"github.com/hpccgold/hpccgold/telemetry"
)

// ---- stored_ns_above_max ----

// storedNsAboveMax returns the class of stored egress ns fields at or
// above 10^9 (IFA only): a flow-table value the datapath never writes (its
// egress ns is below 10^9, vectors/coverage proves it), whose difference it
// defines nonetheless (hpcc deltaTs: dns = (cur.ns - prev.ns + borrow*10^9)
// mod 2^31). With the new egress ns more than 10^9 below the stored one the
// 31-bit difference wraps, so its top bit is set: where the zero extension
// of dns into dts and a sign extension differ (the coverage model's
// sign_<dns>.top1 bins, one per hop slot).
func (k *constructed) storedNsAboveMax() constructedClass {
	return constructedClass{"stored_ns_above_max", "on every hop slot, a stored egress ns field above 10^9 - 1 (flow-table values the datapath never writes: 10^9 + 1 and the field's maximum 2^30 - 1) with the new egress time a whole second (ns 0) one second later: the ns difference borrows and wraps in its 31 bits (top bit set), the hop's dts is above MaxDeltaTsNs",
		k.genStoredNsAboveMax, k.detectStoredNsAboveMax}
}

// storedNsValues are the stored ns fields of stored_ns_above_max.
func storedNsValues() []uint64 {
	return []uint64{telemetry.NsPerSecond + 1, 1<<telemetry.IFAEgressNsBits - 1}
}

func (k *constructed) genStoredNsAboveMax(emit emitFn) error {
	h := k.h
	for i := 0; i < h.maxHops; i++ {
		for _, pn := range storedNsValues() {
			st, in := h.base(h.maxHops)
			const sec = 1000
			st.Hops[i].Ts = sec<<telemetry.IFAEgressNsBits | pn
			hop := &in.Hops[i]
			hop.RxSec, hop.RxNs, hop.ResidenceNs = sec+1, 0, 0
			if err := emit(st, in); err != nil {
				return err
			}
		}
	}
	return nil
}

// detectStoredNsAboveMax: some hop slot's ns difference wraps: the stored
// ns is more than 10^9 above the new one (dns = cn + 10^9 - pn < 0).
func (k *constructed) detectStoredNsAboveMax(o *hobs) bool {
	for i := 0; i < k.h.maxHops; i++ {
		if _, pn := o.prevSecNs(i); o.curNs[i]+telemetry.NsPerSecond < pn {
			return true
		}
	}
	return false
}
