package hpcc

import (
	"fmt"
	"math"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// SignalTableMarkdown renders Signals as a Markdown table (docs/datapath.md).
func (d *Datapath) SignalTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| signal | width | format | range | quantization | overflow | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, s := range d.Signals() {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s | %s | %s |\n", s.Name, s.Width, s.Format, s.Range, s.Quant, s.Overflow, ccutil.MDEscape(s.Doc))
	}
	return b.String()
}

// MultiQSignalsMarkdown renders the MultiQ rows of Signals (empty without
// MultiQ).
func (d *Datapath) MultiQSignalsMarkdown() string {
	if !d.mq.on {
		return ""
	}
	var b strings.Builder
	b.WriteString("| signal | width | format | range | quantization | overflow | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, s := range d.mqSignals(func(f fixedpoint.Format) string {
		if f.F() == 0 {
			return fmt.Sprintf("[0, 2^%d-1]", f.W)
		}
		return fmt.Sprintf("[0, 2^%d-2^%d]", f.I, -f.F())
	}) {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s | %s | %s |\n", s.Name, s.Width, s.Format, s.Range, s.Quant, s.Overflow, ccutil.MDEscape(s.Doc))
	}
	return b.String()
}

// FlowStateMarkdown renders the flow-table fields (the st_ fields of
// InputTable) with their widths and the total bits per flow.
func (d *Datapath) FlowStateMarkdown() string {
	var b strings.Builder
	b.WriteString("| field | width | format | meaning |\n|---|---|---|---|\n")
	n := 0
	for i, f := range d.stateBindings("", "") {
		if strings.HasPrefix(f.Spec.Name, "hop") && !strings.HasPrefix(f.Spec.Name, "hop0_") {
			n += f.Spec.Width
			continue // hops 1.. repeat hop 0's fields
		}
		_ = i
		doc := ccutil.MDEscape(strings.TrimPrefix(f.Spec.Doc, ": "))
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", f.Spec.Name, f.Spec.Width, f.Spec.Format, doc)
		n += f.Spec.Width
	}
	fmt.Fprintf(&b, "\nHop fields repeat for hop0..hop%d. **Total: %d bits per flow.**\n", d.maxHops-1, n)
	return b.String()
}

// Markdown renders the range analysis as a Markdown table.
func (r RangeReport) Markdown() string { return ccutil.RangeMarkdown(r.Rows) }

// TablesMarkdown renders the ROMs, the reciprocal units and the quantized
// constants.
func (d *Datapath) TablesMarkdown() string {
	var b strings.Builder
	for _, t := range d.Tables() {
		fmt.Fprintf(&b, "**`%s`** (%s), entry format %s:\n\n| index | raw (hex) | value | exact |\n|---|---|---|---|\n", t.Name, t.Doc, t.Format)
		for i, e := range t.Entries {
			if t.Reals[i].Sign() == 0 && e == 0 {
				continue
			}
			fmt.Fprintf(&b, "| %d | %0*x | %.10g | %s |\n", i, (t.Format.W+3)/4, e, Real(t.Format, e), t.Reals[i].FloatString(10))
		}
		if len(t.Entries) > 1 {
			b.WriteString("\nIndices not listed (reserved codes, codes above MaxLinkSpeedGbps) hold 0 and make the hop invalid.\n")
		}
		b.WriteString("\n")
	}
	b.WriteString("| unit | In | TableBits | Entry | NRSteps | Work | Out | Q, O | max relative error |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, u := range d.RecipUnits() {
		ex := "bound"
		if u.Exact {
			ex = "exhaustive"
		}
		c := u.Config
		fmt.Fprintf(&b, "| `%s` | %s | %d | %s | %d | %s | %s | %s, %s | %.3g (2^%.1f, %s) |\n",
			u.Name, c.In, c.TableBits, c.Entry, c.NRSteps, c.Work, c.Out, c.Q, c.O, u.MaxRelError, math.Log2(u.MaxRelError), ex)
	}
	b.WriteString("\n| constant | format | raw | value |\n|---|---|---|---|\n")
	for _, k := range d.Constants() {
		fmt.Fprintf(&b, "| `%s` | %s | %#x | %s |\n", k.Name, k.Format, k.Raw, k.Value)
	}
	return b.String()
}

// BoundsMarkdown renders ErrorBounds.
func (d *Datapath) BoundsMarkdown() string {
	e := d.ErrorBounds()
	l := func(x float64) string { return fmt.Sprintf("%.3g (2^%.1f)", x, math.Log2(x)) }
	s := fmt.Sprintf("| bound | value |\n|---|---|\n| HopRel | %s |\n| HopAbs | %s |\n| URel | %s |\n| UAbs | %s |\n| EtaAbs | %s |\n| ULow = W_min*eta/W_max | %.4g |\n| **WRel** | **%s** |\n",
		l(e.HopRel), l(e.HopAbs), l(e.URel), l(e.UAbs), l(e.EtaAbs), e.ULow, l(e.WRel))
	if d.mq.on {
		s += fmt.Sprintf("| MQCaseRel (MultiQ case band) | %s |\n", l(e.MQCaseRel))
	}
	return s
}
