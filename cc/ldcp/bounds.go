package ldcp

import (
	"fmt"
	"math"
)

// ErrorBounds are the error bounds of the golden datapath against the float
// reference when both start from the same cw (the state conversion is
// exact) and see the same event, derived from the formats, the parameter
// quantization and the reciprocal unit (docs/ldcp.md, "Error bounds").
// With d_x = |x_fixed - x| the quantization error of parameter x,
// eps the 1/cw unit's relative error and u = Formats.RecipCw LSB / 2:
//
//	AI     |dcw| <= n*(d_alpha*((1+eps)/cw + u) + alpha*(eps/cw + u)) + RoundCw + d_cwmax
//	MD     |dcw| <= n*d_beta + d_gamma
//	SubAI  |dcw| <= n*d_gamma + d_cwmax
//	SubMD  |dcw| <= cw*d_eta + RoundCw + d_gamma
//	timer  |interval_fixed - RTT/cw| <= RTT*(eps/cw + u) + 1/2 ns
//	       plus RTT*dcw/(cw*(cw-dcw)) when the timer is armed by an ACK whose
//	       new cw already differs by dcw (the step bound)
//
// Every other output (stage, PSNs, flags, the rule) is exact from the same
// state: the regime test cw < 1 and the window test inflight + 1 <= cw read
// the same cw in both models. Slack (1e-9 packets) covers the float
// reference's own float64 rounding.
type ErrorBounds struct {
	Eps     float64 // relative error of the 1/cw unit's mantissa path
	U       float64 // half an LSB of Formats.RecipCw
	RoundCw float64 // half an LSB of Formats.Cw (one Rnd into cw)
	DAlpha  float64
	DBeta   float64
	DGamma  float64
	DEta    float64
	DCwMax  float64
	Slack   float64
}

// ErrorBounds derives this datapath's bounds.
func (d *Datapath) ErrorBounds() ErrorBounds {
	c := d.cfg
	eps, _ := d.recip.MaxRelError()
	return ErrorBounds{
		Eps:     eps,
		U:       lsbOf(d.fRecip) / 2,
		RoundCw: lsbOf(d.fCw) / 2,
		DAlpha:  math.Abs(d.alpha.Float64() - c.Alpha),
		DBeta:   math.Abs(d.beta.Float64() - c.Beta),
		DGamma:  math.Abs(d.gamma.Float64() - c.Gamma),
		DEta:    math.Abs(d.eta.Float64() - c.Eta),
		DCwMax:  math.Abs(d.cwMax.Float64() - c.CwMaxPkts),
		Slack:   1e-9,
	}
}

// Step returns the bound on |cw_fixed - cw_float| after one application of
// rule to a common cw (packets) for an ACK of n packets (clamped to NMax by
// the caller).
func (b ErrorBounds) Step(c Config, rule Rule, n uint64, cw float64) float64 {
	nf := float64(n)
	switch rule {
	case RuleAI:
		return nf*(b.DAlpha*((1+b.Eps)/cw+b.U)+c.Alpha*(b.Eps/cw+b.U)) + b.RoundCw + b.DCwMax + b.Slack
	case RuleMD:
		return nf*b.DBeta + b.DGamma + b.Slack
	case RuleSubAI:
		return nf*b.DGamma + b.DCwMax + b.Slack
	case RuleSubMD:
		return cw*b.DEta + b.RoundCw + b.DGamma + b.Slack
	}
	return b.Slack
}

// Interval returns the bound on |interval_fixed - RTT/cw_float| in ns when
// the fixed cw differs from the float cw by at most dcw (0 for a Send, the
// step bound for an ACK that arms the timer).
func (b ErrorBounds) Interval(c Config, cw, dcw float64) float64 {
	t := float64(c.BaseRTTNs)
	e := t*(b.Eps/(cw-dcw)+b.U) + 0.5 + 1e-6
	if dcw > 0 {
		e += t * dcw / (cw * (cw - dcw))
	}
	return e
}

// BoundsMarkdown renders the default-configuration bounds for docs/ldcp.md.
func (d *Datapath) BoundsMarkdown() string {
	b := d.ErrorBounds()
	c := d.cfg
	l := func(x float64) string {
		if x == 0 {
			return "0 (exact)"
		}
		return fmt.Sprintf("%.3g (2^%.1f)", x, math.Log2(x))
	}
	return fmt.Sprintf("| quantity | value |\n|---|---|\n"+
		"| eps (1/cw unit, relative) | %s |\n| u = RecipCw LSB/2 | %s |\n| RoundCw = Cw LSB/2 | %s |\n"+
		"| d_alpha, d_beta, d_gamma, d_eta, d_cwmax | %s, %s, %s, %s, %s |\n"+
		"| AI step, n = 1, cw = 1 | %s packets |\n| AI step, n = 1, cw = IW | %s packets |\n| AI step, n = NMax = %d, cw = 1 | %s packets |\n"+
		"| MD, SubAI steps | %s packets |\n| SubMD step | %s packets |\n| timer interval, cw = gamma | %.4g ns |\n",
		l(b.Eps), l(b.U), l(b.RoundCw), l(b.DAlpha), l(b.DBeta), l(b.DGamma), l(b.DEta), l(b.DCwMax),
		l(b.Step(c, RuleAI, 1, 1)-b.Slack), l(b.Step(c, RuleAI, 1, float64(c.IWPkts))-b.Slack), c.NMax(), l(b.Step(c, RuleAI, c.NMax(), 1)-b.Slack),
		l(b.Step(c, RuleMD, 1, 1)-b.Slack), l(b.Step(c, RuleSubMD, 1, 0.5)-b.Slack), b.Interval(c, c.Gamma, 0)-1e-6)
}
