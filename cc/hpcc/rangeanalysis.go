package hpcc

import (
	"fmt"
	"math"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// RangeStatus classifies one signal in the range analysis (Fits,
// SatByDesign, Overflow, Underflow; see package ccutil).
type RangeStatus = ccutil.RangeStatus

// The range-analysis verdicts.
const (
	Fits        = ccutil.Fits
	SatByDesign = ccutil.SatByDesign
	Overflow    = ccutil.Overflow
	Underflow   = ccutil.Underflow
)

// RangeRow is the analysis of one signal.
type RangeRow = ccutil.RangeRow

// RangeReport is the result of Config.RangeAnalysis.
type RangeReport struct{ Rows []RangeRow }

// Err returns nil when every signal fits or saturates by design, and
// otherwise an error naming each failing signal, its worst case and by how
// many bits it overflows.
func (r RangeReport) Err() error { return ccutil.RangeErr("hpcc", r.Rows) }

// String renders the report as an aligned text table.
func (r RangeReport) String() string {
	var b strings.Builder
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "%-14s %-8s worst %-12.6g max %-12.6g %-20s %s\n", row.Signal, row.Format, row.WorstCase, row.FormatMax, row.Status, row.Note)
	}
	return b.String()
}

func fmax(f fixedpoint.Format) float64 { return f.Max().Float64() }
func flsb(f fixedpoint.Format) float64 { return math.Ldexp(1, -f.F()) }

// RangeAnalysis proves, for the configured bounds (MaxLinkSpeedGbps and the
// slowest defined speed, T, MaxQueueBytes, MaxDeltaTsNs, the wire widths,
// W_min/W_max), that every datapath signal fits its format, or that its
// saturation cannot change the result, or it names the signal that can
// overflow and by how much. Only field-level validation errors (a format
// that cannot even be built) are returned as err; the verdicts are in the
// report (Validate fails on any Overflow or Underflow row).
func (c Config) RangeAnalysis() (RangeReport, error) {
	var rep RangeReport
	add := func(sig string, f fixedpoint.Format, worst float64, st RangeStatus, note string) {
		rep.Rows = append(rep.Rows, RangeRow{Signal: sig, Format: f.String(), WorstCase: worst, FormatMax: fmax(f), Status: st, Note: note})
	}
	// verdict: fits if worst <= max; else SatByDesign if harmless, else Overflow.
	verdict := func(worst, max float64, harmless bool) RangeStatus {
		switch {
		case worst <= max:
			return Fits
		case harmless:
			return SatByDesign
		}
		return Overflow
	}
	fm := c.Formats
	e := c.Encoding
	t := float64(c.BaseRTTNs)
	uMax := c.UMax()
	// Slowest and fastest valid links (bytes per ns).
	bMin, bMax := math.Inf(1), 0.0
	for _, g := range e.SpeedTable() {
		if g != 0 && g <= c.MaxLinkSpeedGbps {
			bMin = math.Min(bMin, float64(g)/8)
			bMax = math.Max(bMax, float64(g)/8)
		}
	}
	if bMax == 0 {
		return rep, fmt.Errorf("hpcc: MaxLinkSpeedGbps=%d: no valid speed code", c.MaxLinkSpeedGbps)
	}
	unitQ, unitTx := float64(e.QlenUnit()), float64(e.TxBytesUnit())
	// With MultiQ the kq and kr ROMs hold qlen/(wB*T) and txRate/wB factors:
	// scaled by 1/w_q (w_q = 1 without MultiQ).
	wq, _ := c.mqWeightRat().Float64()
	krMin := unitTx / bMax // smallest txRate->u factor
	krMax := unitTx / (wq * bMin)

	// Constants in their formats.
	add("eta", fm.Eta, c.Eta, verdict(c.Eta, fmax(fm.Eta), false), "target utilization")
	if c.Eta < flsb(fm.Eta) {
		rep.Rows[len(rep.Rows)-1].Status = Underflow
		rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("eta=%v rounds to 0", c.Eta)
	}
	for _, k := range []struct {
		name string
		v    float64
	}{{"w_max", c.WMaxBytes}, {"w_init", c.WInitBytes}, {"w_min", c.WMinBytes}, {"w_ai", c.WAIBytes}} {
		add(k.name, fm.W, k.v, verdict(k.v, fmax(fm.W), false), "window constant, bytes")
		if k.v > 0 && k.v < flsb(fm.W)/2 {
			rep.Rows[len(rep.Rows)-1].Status = Underflow
			rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("%s=%v rounds to 0 in %s", k.name, k.v, fm.W)
		}
	}
	add("u_init", fm.U, c.UInit, verdict(c.UInit, uMax, false), "initial U")

	// 1/dts: dts >= 1 ns, so 1/dts <= 1; it must resolve 1/MaxDeltaTsNs.
	add("recip_dts", fm.RecipDts, 1, verdict(1, fmax(fm.RecipDts), false), fmt.Sprintf("1/dts for dts in [1,%d] ns", c.MaxDeltaTsNs))
	if minR := 1 / float64(c.MaxDeltaTsNs); minR < 1024*flsb(fm.RecipDts) {
		rep.Rows[len(rep.Rows)-1].Status = Underflow
		rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("1/MaxDeltaTsNs=%.3g has fewer than 10 significant bits above the LSB %.3g", minR, flsb(fm.RecipDts))
	}

	// txRate in counter units per ns: physically <= B_max/unit; a corrupt
	// sample (large delta over 1 ns) can reach (2^bits-1)/1. Saturation is
	// harmless when the saturated rate already saturates u' (>= UMax).
	txPhys := bMax / unitTx
	txArt := float64(uint64(1)<<uint(e.TxBytesBits()) - 1)
	st := verdict(txArt, fmax(fm.TxRate), fmax(fm.TxRate)*krMin >= uMax)
	if txPhys > fmax(fm.TxRate) {
		st = Overflow
	}
	add("tx_rate", fm.TxRate, txArt, st, fmt.Sprintf("physical max %.4g units/ns at %d Gbps; above max*KRmin=%.4g >= UMax the term saturates u' anyway", txPhys, c.MaxLinkSpeedGbps, fmax(fm.TxRate)*krMin))

	// qlen/(B*T) and txRate/B terms: saturation harmless when Term.Max >= UMax.
	qMaxBytes := math.Min(float64(c.MaxQueueBytes), float64(uint64(1)<<uint(e.QlenBits())-1)*unitQ)
	qWorst := qMaxBytes / (wq * bMin * t)
	if c.Sojourn {
		// The sample is the residence time saturated at the qlen field's
		// maximum: harmless only if that already saturates u' (>= UMax).
		sMax := float64(uint64(1)<<uint(e.QlenBits()) - 1)
		qWorst = sMax / t
		fq := fixedpoint.Format{W: e.QlenBits(), I: e.QlenBits()}
		add("sojourn_q", fq, float64(uint64(1)<<telemetry.IFAResidenceBits-1), verdict(math.MaxUint32, sMax, qWorst >= uMax),
			fmt.Sprintf("residence saturated at %.0f ns: harmless only if %.0f/T >= UMax", sMax, sMax))
	}
	add("q_term", fm.Term, qWorst, verdict(qWorst, fmax(fm.Term), fmax(fm.Term) >= uMax), fmt.Sprintf("queue %.4g bytes on the slowest link (%.4g B/ns)", qMaxBytes, bMin))
	rWorst := math.Min(txArt, fmax(fm.TxRate)) * krMax
	add("r_term", fm.Term, rWorst, verdict(rWorst, fmax(fm.Term), fmax(fm.Term) >= uMax), "saturated txRate on the slowest link")
	uhWorst := qWorst + rWorst
	add("u_hop", fm.U, uhWorst, verdict(uhWorst, uMax, true), "u' is clamped at UMax in both models (documented algorithm clamp)")
	if c.MultiQ.Enabled {
		c.mqRangeRows(add, verdict, qWorst, bMin, bMax)
	}

	// EWMA: tau <= T, result is a convex combination of U and u, both <= UMax.
	add("u_next", fm.U, uMax, Fits, "convex combination of U and u (both <= UMax)")
	tauF := fixedpoint.Format{W: c.TauBits(), I: c.TauBits()}
	add("tau", tauF, t, verdict(t, fmax(tauF), false), "tau = min(dts, T) <= T")

	// 1/U: U >= LSB gives 1/U <= 2^F(U). Saturation is harmless if the
	// saturated factor already drives W to W_max from W_min.
	ruWorst := math.Ldexp(1, fm.U.F())
	add("recip_u", fm.RecipU, ruWorst, verdict(ruWorst, fmax(fm.RecipU), fmax(fm.RecipU)*c.Eta*c.WMinBytes >= c.WMaxBytes),
		"1/U for U >= 1 LSB; saturated only where W_min*eta/U >= W_max")
	if 1/uMax < 1024*flsb(fm.RecipU) {
		rep.Rows[len(rep.Rows)-1].Status = Underflow
		rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("1/UMax=%.3g has fewer than 10 significant bits", 1/uMax)
	}
	eouWorst := c.Eta * math.Min(ruWorst, fmax(fm.RecipU))
	add("eta_over_u", fm.EtaOverU, eouWorst, verdict(eouWorst, fmax(fm.EtaOverU), fmax(fm.EtaOverU)*c.WMinBytes >= c.WMaxBytes),
		"saturated only where W_min*eta/U >= W_max")
	// Multiplicative window: Wc*eta/U + W_ai, saturated into W then clamped
	// to W_max: harmless when W.Max >= W_max.
	wmiWorst := c.WMaxBytes*math.Min(eouWorst, fmax(fm.EtaOverU)) + c.WAIBytes
	add("w_mi", fm.W, wmiWorst, verdict(wmiWorst, fmax(fm.W), fmax(fm.W) >= c.WMaxBytes), "clamped to W_max after saturation")
	waiMax := c.WAIBytes
	if c.DynamicWAI {
		waiMax = c.WInitBytes * (1 - c.Eta)
		add("recip_n", fm.RecipN, 1, verdict(1, fmax(fm.RecipN), false), "1/N for N >= 1")
		minN := 1 / float64(uint64(1)<<uint(c.FlowCountBits)-1)
		if minN < 4*flsb(fm.RecipN) {
			rep.Rows[len(rep.Rows)-1].Status = Underflow
			rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("1/N for the largest N has under 2 significant bits")
		}
		add("w_ai_dyn", fm.W, waiMax, verdict(waiMax, fmax(fm.W), false), "W_init*(1-eta)/N, N >= 1")
	}
	waiSum := c.WMaxBytes + waiMax
	add("w_ai_sum", fm.W, waiSum, verdict(waiSum, fmax(fm.W), fmax(fm.W) >= c.WMaxBytes), "Wc + W_ai, clamped to W_max after saturation")
	rWorstRate := c.WMaxBytes / t
	add("rate", fm.Rate, rWorstRate, verdict(rWorstRate, fmax(fm.Rate), false), "R = W/T <= W_max/T (bytes/ns)")
	if minRate := c.WMinBytes / t; minRate < 1024*flsb(fm.Rate) {
		rep.Rows[len(rep.Rows)-1].Status = Underflow
		rep.Rows[len(rep.Rows)-1].Note = fmt.Sprintf("R=W_min/T=%.3g has fewer than 10 significant bits", minRate)
	}
	return rep, nil
}
