package ldcp

import (
	"fmt"
	"math"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fixedpoint"
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
func (r RangeReport) Err() error { return ccutil.RangeErr("ldcp", r.Rows) }

// Markdown renders the report as a Markdown table.
func (r RangeReport) Markdown() string { return ccutil.RangeMarkdown(r.Rows) }

func fmaxOf(f fixedpoint.Format) float64 { return f.Max().Float64() }
func lsbOf(f fixedpoint.Format) float64  { return math.Ldexp(1, -f.F()) }

// quantized returns x rounded half up to a multiple of f's LSB (the value
// a Rnd constant takes; saturation is reported separately).
func quantized(f fixedpoint.Format, x float64) float64 {
	l := lsbOf(f)
	return math.Floor(x/l+0.5) * l
}

// recipUnit builds the 1/cw unit of a configuration (also used by
// RangeAnalysis and ErrorBounds, before a Datapath exists).
func (c Config) recipUnit() (*fixedpoint.Reciprocal, error) {
	fc := c.Formats.Cw
	return fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{
		In: fc, TableBits: min(c.RecipCw.TableBits, fc.W-1), Entry: fixedpoint.Format{W: c.RecipCw.EntryBits, I: 0},
		NRSteps: c.RecipCw.NRSteps, Out: c.Formats.RecipCw, Q: fixedpoint.Rnd, O: fixedpoint.Sat,
	})
}

// RangeAnalysis proves, for the configured parameters and bounds (gamma <=
// cw <= CwMax on the reachable states, n <= NMax, T <= MaxBaseRTTNs), that
// every datapath signal fits its format or that its saturation cannot
// change the result, or names the signal that can overflow or underflow.
// Validate fails on any Overflow or Underflow row.
func (c Config) RangeAnalysis() RangeReport {
	var rep RangeReport
	add := func(sig string, f fixedpoint.Format, worst float64, st RangeStatus, note string) *RangeRow {
		rep.Rows = append(rep.Rows, RangeRow{Signal: sig, Format: f.String(), WorstCase: worst, FormatMax: fmaxOf(f), Status: st, Note: note})
		return &rep.Rows[len(rep.Rows)-1]
	}
	verdict := func(worst, max float64, harmless bool) RangeStatus {
		switch {
		case worst <= max:
			return Fits
		case harmless:
			return SatByDesign
		}
		return Overflow
	}
	fc, fp, fr := c.Formats.Cw, c.Formats.Param, c.Formats.RecipCw
	nMax := float64(c.NMax())

	// Constants.
	for _, k := range []struct {
		name, doc string
		v         float64
	}{{"alpha", "additive increase, packets per RTT", c.Alpha}, {"beta", "decrease per marked packet, packets", c.Beta},
		{"gamma", "sub-packet step and minimum window, packets", c.Gamma}, {"eta", "sub-packet decrease factor", c.Eta}} {
		row := add(k.name, fp, k.v, verdict(k.v, fmaxOf(fp), false), k.doc)
		if q := quantized(fp, k.v); q == 0 {
			row.Status, row.Note = Underflow, fmt.Sprintf("%s=%v rounds to 0 in %s", k.name, k.v, fp)
		} else if q != k.v {
			row.Note += fmt.Sprintf("; quantized to %v (error %.3g, in the error bounds)", q, math.Abs(q-k.v))
		}
	}
	add("cw_max", fc, c.CwMaxPkts, verdict(c.CwMaxPkts, fmaxOf(fc), false), "upper bound of cw, packets")
	add("iw", fc, float64(c.IWPkts), verdict(float64(c.IWPkts), fmaxOf(fc), false), "initial window = BDP, packets")
	add("one", fc, 1, verdict(1, fmaxOf(fc), false), "the regime threshold cw = 1")

	// n and the exact products n*param.
	fn := fixedpoint.Format{W: c.AckPktsBits, I: c.AckPktsBits}
	add("n", fn, nMax, Fits, "packets acknowledged by one ACK, clamped")
	fnp, err := fixedpoint.MulFormat(fn, fp)
	if err != nil {
		add("n_param", fn, 0, Overflow, err.Error())
		return rep
	}
	add("n_param", fnp, nMax*fmaxOf(fp), Fits, "n*alpha, n*beta, n*gamma: exact products")

	// 1/cw. Its relative error eps comes from the unit itself.
	u, err := c.recipUnit()
	if err != nil {
		add("recip_cw", fr, 0, Overflow, err.Error())
		return rep
	}
	eps, _ := u.MaxRelError()
	gq := math.Max(quantized(fp, c.Gamma), lsbOf(fp))
	rMax := (1+eps)/gq + lsbOf(fr)/2
	row := add("recip_cw", fr, rMax, verdict(rMax, fmaxOf(fr), false), fmt.Sprintf("1/cw for cw >= gamma (the timer path reads 1/gamma); unit eps %.3g", eps))
	if minR := 1 / c.CwMaxPkts; row.Status == Fits && minR < 1024*lsbOf(fr) {
		row.Status, row.Note = Underflow, fmt.Sprintf("1/CwMax=%.3g has fewer than 10 significant bits above the LSB %.3g", minR, lsbOf(fr))
	}

	// AI: the increment n*alpha/cw for cw >= 1 and the sum.
	aq := quantized(fp, c.Alpha)
	incWorst := nMax * aq * ((1+eps)/1 + lsbOf(fr)/2)
	add("inc", fc, incWorst, verdict(incWorst, fmaxOf(fc), true), "n*alpha*recip_cw for cw >= 1; a saturated increment still clamps to CwMax")
	row = add("cw_ai", fc, c.CwMaxPkts+incWorst, verdict(c.CwMaxPkts+incWorst, fmaxOf(fc), fmaxOf(fc) >= c.CwMaxPkts), "cw + inc, clamped to CwMax after saturation")
	if smallest := aq / c.CwMaxPkts; smallest < 256*lsbOf(fc) {
		row.Status, row.Note = Underflow, fmt.Sprintf("the smallest increment alpha/CwMax=%.3g keeps fewer than 8 significant bits above the cw LSB %.3g", smallest, lsbOf(fc))
	}
	fd, err := fixedpoint.SubFormat(fc, fnp)
	if err == nil {
		add("cw_md_diff", fd, fmaxOf(fc), Fits, "cw - n*beta: exact signed difference, floored at gamma")
	}
	subAI := 1 + nMax*fmaxOf(fp)
	add("cw_sub_ai", fc, subAI, verdict(subAI, fmaxOf(fc), fmaxOf(fc) >= c.CwMaxPkts), "cw + n*gamma for cw < 1, clamped to CwMax")
	add("cw_sub_md", fc, 1, Fits, "eta*cw for cw < 1")

	// Timer interval RTT/cw: the deadline is compared as a serial number,
	// so it must stay below half the time wrap.
	fiv := fixedpoint.Format{W: c.TimeBits, I: c.TimeBits}
	ivWorst := float64(c.MaxBaseRTTNs)*rMax + 0.5
	half := math.Ldexp(1, c.TimeBits-1) - 1
	st := Fits
	if ivWorst > half {
		st = Overflow
	}
	rr := add("interval", fiv, ivWorst, st, fmt.Sprintf("MaxBaseRTT/gamma; must stay below 2^(TimeBits-1) = %.6g for the serial deadline compare", half+1))
	rr.FormatMax = half
	return rep
}
