package hpcc

import (
	"fmt"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Signal is one row of the datapath's signal table: what an RTL engineer
// needs to size and round the wire or register.
type Signal struct {
	Name     string // as in docs/datapath.md and the field tables
	Width    int    // bits
	Format   string // fixedpoint notation, or "uint"/"bool"
	Range    string // values the signal can take
	Quant    string // how it is produced: exact, or the quantization mode of its cast
	Overflow string // wrap/saturate behaviour, or "none" when the range analysis proves it fits
	Doc      string
}

// Widths of the IFA egress-time signals, from the wire widths: eg_t =
// rx_ns + residence (two 32-bit fields, one carry bit); eg_carry counts
// k in 1..8 (eg_t < 9*10^9), 4 bits; dts = dsec*10^9 + dns with a 20-bit
// dsec and dns < 2^31: below 2^20*10^9 + 2^31 < 2^51. The rtl description
// (rtl/hpccrtl) builds the same nodes; TestSignalWidthsMatchRTL checks each
// signal's width against the node's.
const (
	egTBits     = max(telemetry.IFARxNsBits, telemetry.IFAResidenceBits) + 1
	egCarryBits = 4
	ifaDtsBits  = telemetry.IFARxSecBits + telemetry.IFAEgressNsBits + 1
)

func sigFmt(name string, f fixedpoint.Format, rng, q, o, doc string) Signal {
	return Signal{Name: name, Width: f.W, Format: f.String(), Range: rng, Quant: q, Overflow: o, Doc: doc}
}

// Signals returns the signal table of this datapath, in dataflow order
// (per-hop signals once, for slot i).
func (d *Datapath) Signals() []Signal {
	c := d.cfg
	e := c.Encoding
	rng := func(f fixedpoint.Format) string {
		if f.F() == 0 {
			return fmt.Sprintf("[0, 2^%d-1]", f.W)
		}
		return fmt.Sprintf("[0, 2^%d-2^%d]", f.I, -f.F())
	}
	qMinDoc := "min(qlen, last qlen) (wire units)"
	if d.sojourn {
		qMinDoc = "min(sojourn_q, last sojourn_q) (ns)"
	}
	var s []Signal
	if e == telemetry.IFA {
		s = append(s,
			Signal{"eg_t", egTBits, "uint", "[0, 2^33-2]", "exact", "none", "rx_ns + residence (ns)"},
			Signal{"eg_carry", egCarryBits, "uint", "[0, 8]", "exact", "none", "#{k=1..8: eg_t >= k*10^9}"},
			Signal{"eg_ns", telemetry.IFAEgressNsBits, "uint", "[0, 10^9-1]", "exact", "none", "eg_t - eg_carry*10^9"},
			Signal{"eg_sec", telemetry.IFARxSecBits, "uint", "[0, 2^20-1]", "exact", "wrap mod 2^20", "rx_sec + eg_carry"},
			Signal{"dts", ifaDtsBits, "uint", "[0, 2^20*10^9)", "exact", "wrap (counter difference)", "egress time difference, ns"},
		)
	} else {
		s = append(s, Signal{"dts", telemetry.CompactTsBits, "uint", "[0, 2^24-1]", "exact", "wrap mod 2^24", "egress time difference, ns"})
	}
	s = append(s,
		Signal{"hop_valid", 1, "bool", "", "exact", "none", "slot in path, same hop count/identity, speed code defined, 0 < dts <= MaxDeltaTsNs"},
		sigFmt("dts_in", d.fDts, fmt.Sprintf("[1, %d]", c.MaxDeltaTsNs), "exact (mux: 1 when invalid)", "none", "1/dts unit input"),
		sigFmt("recip_dts", d.fRD, "[2^-"+fmt.Sprint(c.DtsInBits())+", 1]", "Rnd", "Sat (unused: <= 1)", "1/dts from the reciprocal unit"),
		sigFmt("d_tx", d.fDB, rng(d.fDB), "exact", "wrap mod 2^"+fmt.Sprint(e.TxBytesBits()), "txBytes counter difference (wire units)"),
	)
	if d.sojourn {
		s = append(s, Signal{"sojourn_q", e.QlenBits(), "uint", fmt.Sprintf("[0, 2^%d-1] ns", e.QlenBits()), "exact", "Sat at 2^qlen_bits-1 (harmless: range analysis)",
			"min(residence, 2^qlen_bits-1): the hop's queue sample (draft 9.4), stored in st_hop_qlen"})
	}
	s = append(s,
		sigFmt("q_min", d.fQ, rng(d.fQ), "exact", "none", qMinDoc),
		sigFmt("tx_rate", d.fTx, rng(d.fTx), "Rnd", "Sat (by design)", "d_tx * recip_dts (units/ns)"),
		sigFmt("kq[code]", d.tables[0].Format, "ROM", "Rnd (generation)", "none", d.tables[0].Doc),
		sigFmt("kr[code]", d.tables[1].Format, "ROM", "Rnd (generation)", "none", d.tables[1].Doc),
		sigFmt("q_term", d.fTerm, rng(d.fTerm), "Rnd", "Sat (by design)", "q_min * kq[code] = qlen/(B*T)"),
		sigFmt("r_term", d.fTerm, rng(d.fTerm), "Rnd", "Sat (by design)", "tx_rate * kr[code] = txRate/B"),
		sigFmt("u_hop", d.fU, rng(d.fU), "Rnd (exact when F(Term) = F(U))", "Sat at UMax (algorithm clamp)", "u' = q_term + r_term, 0 when invalid"),
	)
	if d.mq.on {
		s = append(s, d.mqSignals(rng)...)
	}
	s = append(s,
		sigFmt("u_max", d.fU, rng(d.fU), "exact", "none", "selected u': first valid slot, replaced only by a strictly greater one"),
		sigFmt("dts_sel", d.fDts, fmt.Sprintf("[0, %d]", c.MaxDeltaTsNs), "exact", "none", "dts_in of the selected slot (0 if none)"),
		sigFmt("tau", d.fTau, fmt.Sprintf("[0, %d]", c.BaseRTTNs), "exact", "none", "min(dts_sel, T)"),
		sigFmt("t_minus_tau", d.fTau, fmt.Sprintf("[0, %d]", c.BaseRTTNs), "exact", "none", "T - tau"),
		sigFmt("ewma_a", d.fEwA, rng(d.fEwA), "exact", "none", "(T - tau) * U"),
		sigFmt("ewma_b", d.fEwA, rng(d.fEwA), "exact", "none", "tau * u_max"),
		sigFmt("ewma_s", d.fEwS, rng(d.fEwS), "exact", "none", "ewma_a + ewma_b"),
		sigFmt("inv_t", d.invT.Format(), "constant", "Rnd (generation)", "none", "1/T"),
		sigFmt("u_ewma", d.fU, rng(d.fU), "Rnd", "Sat (never reached: convex combination)", "ewma_s * inv_t (line 9)"),
		Signal{"any_valid", 1, "bool", "", "exact", "none", "some hop_valid (a slot was selected)"},
		sigFmt("u_next", d.fU, rng(d.fU), "exact (mux)", "none", "any_valid ? u_ewma : st_u (no valid hop: U kept, as inv_t is not exactly 1/T)"),
		Signal{"update_wc", 1, "bool", "", "exact", "none", "sender: seq after lastUpdateSeq (serial); receiver: now - lastUpdateTime > P (notify_period_ns; default T)"},
		Signal{"mi", 1, "bool", "", "exact", "none", "u_next >= eta or incStage >= maxStage (line 12)"},
		sigFmt("recip_u", d.fRU, rng(d.fRU), "Rnd", "Sat (by design; 1/0 = max)", "1/u_next from the reciprocal unit"),
		sigFmt("eta_over_u", d.fEoU, rng(d.fEoU), "Rnd", "Sat (by design)", "recip_u * eta, then min(., 1) when u_next >= eta"),
		sigFmt("w_mul", d.fW, rng(d.fW), "Rnd", "Sat (by design)", "Wc * eta_over_u"),
		sigFmt("w_mi", d.fW, rng(d.fW), "exact sum", "Sat (by design)", "w_mul + W_ai (line 13)"),
		sigFmt("w_ai_sum", d.fW, rng(d.fW), "exact sum", "Sat (by design)", "Wc + W_ai (line 17)"),
		sigFmt("w_next", d.fW, fmt.Sprintf("[%v, %v]", c.WMinBytes, c.WMaxBytes), "exact (mux, clamp)", "none", "clamp(mi ? w_mi : w_ai_sum, W_min, W_max)"),
		sigFmt("rate", d.fRate, rng(d.fRate), "Rnd", "Sat (unused: fits)", "w_next * inv_t (line 27), bytes/ns"),
	)
	if c.DynamicWAI {
		s = append(s,
			sigFmt("recip_n", d.fRN, "[2^-"+fmt.Sprint(c.FlowCountBits)+", 1]", "Rnd", "Sat (unused)", "1/N"),
			sigFmt("w_ai_dyn", d.fW, rng(d.fW), "Rnd", "Sat (unused)", "k_wai * recip_n"),
		)
	}
	return s
}
