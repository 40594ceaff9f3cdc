package hpcc

import (
	"math"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// ErrorBounds are the per-event error bounds of the golden datapath against
// the float reference when both start from the same state and see the same
// telemetry, derived from the formats, the table entries and the reciprocal
// units (docs/datapath.md, "Error bounds"):
//
//	|u'_fixed - u'| <= HopRel*u' + HopAbs                     (each hop)
//	|U_fixed - U|   <= URel*U + UAbs                          (after the EWMA)
//	|W_fixed - W|   <= WRel*W   when the MI/AI decision and the selected hop agree
//
// The MI/AI decision can differ only when |U - eta| <= URel*U + UAbs + eta
// quantization; the selected hop only when two hops' u' are within
// 2*(HopRel*u' + HopAbs).
type ErrorBounds struct {
	HopRel, HopAbs float64
	URel, UAbs     float64
	EtaAbs         float64 // |eta_fixed - eta|
	WRel           float64
	// ULow is the smallest U for which W is not clamped to W_max on a
	// multiplicative step (W_min*eta/W_max); WRel covers U below it too
	// because both models then clamp.
	ULow float64
	// MQCaseRel (MultiQ only, else 0): the datapath's compare txRate <= wB
	// can decide otherwise than the float reference's only when
	// |txRate - w*B| <= MQCaseRel * w*B (the errors of tx_rate, of the
	// mq_wb ROM and of the weight's quantization). HopRel and HopAbs cover
	// all three cases when both models take the same one.
	MQCaseRel float64
}

// tableRelBound is the worst relative rounding error the generation rule
// allows for a table's non-zero entries: half an LSB of the entry format
// over the exact value (derived from the format, not from the entries, so a
// wrong entry cannot widen its own bound).
func tableRelBound(t Table) float64 {
	worst := 0.0
	half := math.Ldexp(0.5, -t.Format.F())
	for _, r := range t.Reals {
		if r.Sign() == 0 {
			continue
		}
		f, _ := r.Float64()
		worst = math.Max(worst, half/f)
	}
	return worst
}

// ErrorBounds derives the per-event bounds of this datapath (see the type).
// Each term is a rigorous bound of one rounding step; products of small
// relative errors are covered by a 1% margin on the result.
func (d *Datapath) ErrorBounds() ErrorBounds {
	c := d.cfg
	fm := c.Formats
	lsb := func(f fixedpoint.Format) float64 { return math.Ldexp(1, -f.F()) }
	var epsKQ, epsKR, epsInvT float64
	for _, t := range d.tables {
		switch t.Name {
		case "kq":
			epsKQ = tableRelBound(t)
		case "kr":
			epsKR = tableRelBound(t)
		case "inv_t":
			epsInvT = tableRelBound(t)
		}
	}
	var epsRD, epsRU float64
	for _, u := range d.RecipUnits() {
		switch u.Name {
		case "recip_dts":
			// Mantissa error plus half an output LSB relative to the
			// smallest reciprocal 1/MaxDeltaTsNs.
			epsRD = u.MaxRelError + lsb(fm.RecipDts)/2*float64(c.MaxDeltaTsNs)
		case "recip_u":
			// Relative to the smallest 1/U = 1/UMax.
			epsRU = u.MaxRelError + lsb(fm.RecipU)/2*c.UMax()
		}
	}
	krMax := 0.0
	for _, r := range d.tables[1].Reals {
		f, _ := r.Float64()
		krMax = math.Max(krMax, f*(1+epsKR))
	}
	const margin = 1.01
	var b ErrorBounds
	// Per hop: r_term = (dB*recip_dts rounded to TxRate)*KR rounded to Term;
	// q_term = q*KQ rounded to Term; u' = exact sum (same LSB as U).
	b.HopRel = margin * math.Max(epsRD+epsKR, epsKQ)
	b.HopAbs = margin * (krMax*lsb(fm.TxRate)/2 + lsb(fm.Term))
	if d.mq.on {
		d.mqBounds(&b, epsRD, epsKQ, margin)
	}
	// EWMA: U' = round((T-tau)*U + tau*u) * invT): tau/T*u <= U', so the
	// hop error enters relative to U'.
	b.URel = margin * (b.HopRel + epsInvT)
	b.UAbs = margin * (b.HopAbs + lsb(fm.U)/2)
	b.EtaAbs = lsb(fm.Eta) / 2 // Rnd quantization of eta
	b.ULow = c.WMinBytes * c.Eta / c.WMaxBytes
	// W on a multiplicative step: Wc * round(round(1/U)*eta) rounded to W,
	// plus the exact W_ai.
	kMin := c.Eta / c.UMax()
	relU := b.URel + b.UAbs/b.ULow
	b.WRel = margin * (relU + epsRU + b.EtaAbs/c.Eta + lsb(fm.EtaOverU)/2/kMin + lsb(fm.W)/2/c.WMinBytes)
	return b
}
