package scenario

import (
	"bytes"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Plot sizes and the point budget per line: series longer than maxPoints
// are reduced to maxPoints bins (the mean of each bin for rates, windows,
// utilization and fairness; the maximum for the queue, so peaks stay
// visible).
const (
	plotW     = 7 * vg.Inch
	plotH     = 3.8 * vg.Inch
	maxPoints = 1500
	// flowPoints is the budget of each per-flow line: with tens of jagged
	// lines the rasterizer's cost grows with the drawn path length, and a
	// 7-inch plot shows no more detail anyway.
	flowPoints = 400
	legendMax  = 8
)

type figure struct {
	name, doc string
	p         *plot.Plot
}

func (f *figure) render(ext string) ([]byte, error) {
	wt, err := f.p.WriterTo(plotW, plotH, ext)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// binned reduces (x, y) to at most maxPoints points: consecutive samples
// are grouped into equal bins, x is the bin's last x, y the mean (or max)
// of the bin's non-NaN values (NaN if none).
func binned(x []float64, y []float64, useMax bool, limit int) ([]float64, []float64) {
	n := len(x)
	if n <= limit {
		return x, y
	}
	k := (n + limit - 1) / limit
	var bx, by []float64
	for i := 0; i < n; i += k {
		j := min(i+k, n)
		acc, cnt := 0.0, 0
		m := math.Inf(-1)
		for _, v := range y[i:j] {
			if math.IsNaN(v) {
				continue
			}
			acc += v
			cnt++
			m = math.Max(m, v)
		}
		v := math.NaN()
		if cnt > 0 {
			v = acc / float64(cnt)
			if useMax {
				v = m
			}
		}
		bx = append(bx, x[j-1])
		by = append(by, v)
	}
	return bx, by
}

// smooth returns the moving average of y over windows of w samples
// ending at each sample (NaN samples are skipped; NaN if the window has
// none). Rates and utilization sampled over intervals shorter than a
// packet train are drawn smoothed over one base RTT.
func smooth(y []float64, w int) []float64 {
	if w <= 1 {
		return y
	}
	out := make([]float64, len(y))
	for i := range y {
		acc, n := 0.0, 0
		for _, v := range y[max(0, i-w+1) : i+1] {
			if !math.IsNaN(v) {
				acc += v
				n++
			}
		}
		out[i] = math.NaN()
		if n > 0 && !math.IsNaN(y[i]) {
			out[i] = acc / float64(n)
		}
	}
	return out
}

// segments splits a series at NaN values into runs gonum can draw.
func segments(x, y []float64) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range x {
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: x[i], Y: y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// addSeries draws one series (possibly broken at NaN) in color c and
// returns its first line for the legend (nil when empty).
func addSeries(p *plot.Plot, x, y []float64, useMax bool, c color.Color, width vg.Length, limit int) (*plotter.Line, error) {
	bx, by := binned(x, y, useMax, limit)
	var first *plotter.Line
	for _, s := range segments(bx, by) {
		l, err := plotter.NewLine(s)
		if err != nil {
			return nil, err
		}
		l.Color = c
		l.Width = width
		p.Add(l)
		if first == nil {
			first = l
		}
	}
	return first, nil
}

// hline draws a dashed horizontal reference line labelled in the legend.
func hline(p *plot.Plot, x []float64, y float64, label string) error {
	if len(x) == 0 {
		return nil
	}
	l, err := plotter.NewLine(plotter.XYs{{X: x[0], Y: y}, {X: x[len(x)-1], Y: y}})
	if err != nil {
		return err
	}
	l.Color = color.Gray{Y: 110}
	l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(l)
	p.Legend.Add(label, l)
	return nil
}

func newPlot(title, xl, yl string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xl
	p.Y.Label.Text = yl
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.Legend.ThumbnailWidth = vg.Points(12)
	p.Add(plotter.NewGrid())
	return p
}

// plots builds the run's figures.
func (r *Result) plots() ([]figure, error) {
	s := &r.Series
	x := make([]float64, len(s.TimeNs))
	for i, t := range s.TimeNs {
		x[i] = float64(t) / 1000
	}
	title := fmt.Sprintf("%s (%s, %s)", r.Config.Name, r.Config.CC, r.Config.Model)
	// Smoothing window: one base RTT of samples.
	sw := int(math.Round(float64(r.BaseRTTNs) / float64(r.Config.Run.SampleNs)))
	smoothNote := ""
	if sw > 1 {
		smoothNote = fmt.Sprintf(", mean over %d samples (1 T)", sw)
	}
	var figs []figure

	// Queue.
	p := newPlot(title+": bottleneck queue", "time (us)", "queue (KB, max per sample)")
	q := make([]float64, len(x))
	for i, v := range s.QueueMax {
		q[i] = float64(v) / 1000
	}
	if _, err := addSeries(p, x, q, true, plotutil.Color(0), vg.Points(1), maxPoints); err != nil {
		return nil, err
	}
	if err := hline(p, x, float64(r.Summary.BDPBytes)/1000, "1 BDP"); err != nil {
		return nil, err
	}
	figs = append(figs, figure{"queue", "bottleneck queue over time (KB, maximum per sample interval)", p})

	// Utilization.
	p = newPlot(title+": bottleneck utilization", "time (us)", "utilization"+smoothNote)
	if _, err := addSeries(p, x, smooth(s.Util, sw), false, plotutil.Color(0), vg.Points(1), maxPoints); err != nil {
		return nil, err
	}
	if err := hline(p, x, r.Config.HPCC.Eta, "eta"); err != nil {
		return nil, err
	}
	figs = append(figs, figure{"utilization", "bottleneck wire utilization per sample interval, and eta", p})

	if len(s.Flows) > 0 {
		// Rates, windows.
		for _, v := range []struct {
			name, doc, yl string
			get           func(FlowSeries) []float64
			scale         float64
		}{
			{"rates", "each sampled flow's sending rate (payload Gbit/s, mean over one base RTT)", "rate (Gbit/s)" + smoothNote,
				func(f FlowSeries) []float64 { return smooth(f.Rate, sw) }, 1},
			{"windows", "each sampled flow's window W (KB)", "W (KB)", func(f FlowSeries) []float64 { return f.Window }, 1e-3},
		} {
			p = newPlot(title+": per-flow "+v.name, "time (us)", v.yl)
			for i, f := range s.Flows {
				y := v.get(f)
				if v.scale != 1 {
					ys := make([]float64, len(y))
					for k := range y {
						ys[k] = y[k] * v.scale
					}
					y = ys
				}
				l, err := addSeries(p, x, y, false, plotutil.Color(i), vg.Points(0.8), flowPoints)
				if err != nil {
					return nil, err
				}
				if l != nil && len(s.Flows) <= legendMax {
					p.Legend.Add(fmt.Sprintf("flow %d", f.Flow), l)
				}
			}
			figs = append(figs, figure{v.name, v.doc, p})
		}
		// Fairness.
		p = newPlot(title+": Jain fairness of active bottleneck flows", "time (us)", "Jain index")
		if _, err := addSeries(p, x, s.Jain, false, plotutil.Color(0), vg.Points(1), maxPoints); err != nil {
			return nil, err
		}
		p.Y.Min, p.Y.Max = 0, 1.05
		figs = append(figs, figure{"fairness", "Jain's fairness index of the active sampled bottleneck flows", p})
	}

	// FCT slowdown against size.
	var pts plotter.XYs
	for _, f := range r.Flows {
		if f.Done && f.IdealNs > 0 {
			pts = append(pts, plotter.XY{X: float64(f.Bytes), Y: f.Slow})
		}
	}
	if len(pts) > 0 {
		p = newPlot(title+": flow completion time / ideal", "flow size (bytes)", "slowdown")
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.Color = plotutil.Color(0)
		sc.Radius = vg.Points(1.5)
		p.Add(sc)
		figs = append(figs, figure{"fct", "each completed flow's completion time over its ideal, against its size", p})
	}
	cf, err := r.classPlots(x, title, sw)
	if err != nil {
		return nil, err
	}
	return append(figs, cf...), nil
}
