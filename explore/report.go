package explore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// File is one output file: a slash-separated name and its content.
type File struct {
	Name string
	Data []byte
}

// areaOf is the area objective of the front: Yosys cells with synth
// "yosys", else the pipeliner's register bits.
func (s Spec) areaOf(r Record) float64 {
	if s.Synth == SynthYosys {
		return float64(r.Area.Cells)
	}
	return float64(r.Area.RegBits)
}

// areaName names the area objective.
func (s Spec) areaName() string {
	if s.Synth == SynthYosys {
		return "cells"
	}
	return "reg_bits"
}

// MarkFront sets OnFront on the Pareto-optimal valid records: those no
// other valid record dominates on (area, WRelErr, FrontDev), all
// minimized (a record dominates another when it is no worse in all three
// and better in one; records with equal objectives are both kept).
func (s Spec) MarkFront(recs []Record) {
	obj := func(r Record) [3]float64 { return [3]float64{s.areaOf(r), r.Accuracy.WRelErr, r.FrontDev} }
	for i := range recs {
		recs[i].OnFront = false
		if !recs[i].Valid {
			continue
		}
		a := obj(recs[i])
		dominated := false
		for j := range recs {
			if j == i || !recs[j].Valid {
				continue
			}
			b := obj(recs[j])
			if b[0] <= a[0] && b[1] <= a[1] && b[2] <= a[2] && (b[0] < a[0] || b[1] < a[1] || b[2] < a[2]) {
				dominated = true
				break
			}
		}
		recs[i].OnFront = !dominated
	}
}

// Narrowest returns the index in recs of the smallest-area valid record
// within tolerance (ties: the smaller measured W error, then the lower
// index), or -1 if none is.
func (s Spec) Narrowest(recs []Record) int {
	best := -1
	for i, r := range recs {
		if !r.Valid || !r.WithinTol {
			continue
		}
		if best < 0 {
			best = i
			continue
		}
		b := recs[best]
		if a, ab := s.areaOf(r), s.areaOf(b); a < ab || a == ab && r.Accuracy.WRelErr < b.Accuracy.WRelErr {
			best = i
		}
	}
	return best
}

// Results is points.json: the spec's identity and every point's record.
type Results struct {
	Tool    string   `json:"tool"`
	Name    string   `json:"name"`
	Params  []string `json:"params"`
	Metrics []string `json:"metrics"`
	// Area names the front's area objective (cells or reg_bits).
	Area      string   `json:"area"`
	Narrowest int      `json:"narrowest"` // index of Narrowest, -1 if none
	Points    []Record `json:"points"`
}

// paramNames returns the swept parameters' names.
func (s Spec) paramNames() []string {
	out := make([]string, len(s.Params))
	for i, p := range s.Params {
		out[i] = p.Name
	}
	return out
}

// Report renders a sweep's output files from its spec and every point's
// record (index order, as Evaluate returned them; MarkFront is applied
// here). The bytes depend only on the spec and the records.
func Report(s Spec, recs []Record) ([]File, error) {
	recs = append([]Record(nil), recs...)
	for i, r := range recs {
		if r.Index != i {
			return nil, fmt.Errorf("explore: report: record %d has index %d: records must be every point in order", i, r.Index)
		}
	}
	s.MarkFront(recs)
	var files []File
	add := func(name string, b []byte) { files = append(files, File{name, b}) }
	sj, err := s.JSON()
	if err != nil {
		return nil, err
	}
	add("spec.json", sj)
	res := Results{Tool: buildinfo.String(), Name: s.Name, Params: s.paramNames(), Metrics: MetricNames(),
		Area: s.areaName(), Narrowest: s.Narrowest(recs), Points: recs}
	if res.Narrowest >= 0 {
		res.Narrowest = recs[res.Narrowest].Index
	}
	pj, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("explore: points.json: %w", err)
	}
	add("points.json", append(pj, '\n'))
	add("points.csv", s.csv(recs))
	var ft bytes.Buffer
	if err := s.frontTable(&ft, recs); err != nil {
		return nil, err
	}
	add("front.txt", ft.Bytes())
	plots, err := s.plots(recs)
	if err != nil {
		return nil, err
	}
	files = append(files, plots...)
	return files, nil
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// csv writes points.csv: one row per point.
func (s Spec) csv(recs []Record) []byte {
	var b bytes.Buffer
	head := []string{"index"}
	head = append(head, s.paramNames()...)
	if !s.sweeps(StagesParam) {
		head = append(head, StagesParam)
	}
	head = append(head, "valid", "invalid", "cells", "flip_flops", "longest_path", "reg_bits", "ops", "depth",
		"w_rel_bound", "w_rel_err", "steps", "flips")
	for _, sc := range s.Scenarios {
		for _, m := range MetricNames() {
			head = append(head, sc+"."+m, sc+"."+m+".float", sc+"."+m+".dev")
		}
		head = append(head, sc+".verdict")
	}
	head = append(head, "max_dev", "front_dev", "within_tol", "on_front")
	writeCSVRow(&b, head)
	for _, r := range recs {
		row := []string{strconv.Itoa(r.Index)}
		row = append(row, r.Values...)
		if !s.sweeps(StagesParam) {
			row = append(row, strconv.Itoa(r.Stages))
		}
		row = append(row, strconv.FormatBool(r.Valid), r.Invalid,
			strconv.Itoa(r.Area.Cells), strconv.Itoa(r.Area.FlipFlops), strconv.Itoa(r.Area.LongestPath),
			strconv.Itoa(r.Area.RegBits), strconv.Itoa(r.Area.Ops), g(r.Area.Depth),
			g(r.Accuracy.WRelBound), g(r.Accuracy.WRelErr), strconv.Itoa(r.Accuracy.Steps), strconv.Itoa(r.Accuracy.Flips))
		for i := range s.Scenarios {
			if i >= len(r.Scenarios) {
				for range metricDefs {
					row = append(row, "", "", "")
				}
				row = append(row, "")
				continue
			}
			sr := r.Scenarios[i]
			for _, m := range metricDefs {
				row = append(row, g(m.get(sr.Fixed)), g(m.get(sr.Float)), g(m.get(sr.Dev)))
			}
			row = append(row, sr.Verdict)
		}
		row = append(row, g(r.MaxDev), g(r.FrontDev), strconv.FormatBool(r.WithinTol), strconv.FormatBool(r.OnFront))
		writeCSVRow(&b, row)
	}
	return b.Bytes()
}

func (s Spec) sweeps(name string) bool {
	for _, p := range s.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// writeCSVRow writes one RFC 4180 row (fields with a comma, quote or
// newline quoted, quotes doubled).
func writeCSVRow(b *bytes.Buffer, row []string) {
	for i, f := range row {
		if i > 0 {
			b.WriteByte(',')
		}
		if strings.ContainsAny(f, ",\"\n\r") {
			f = `"` + strings.ReplaceAll(f, `"`, `""`) + `"`
		}
		b.WriteString(f)
	}
	b.WriteByte('\n')
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// frontTable writes front.txt: the sweep's counts, the Pareto front as a
// table, the narrowest point within tolerance and the invalid points.
func (s Spec) frontTable(w *bytes.Buffer, recs []Record) error {
	valid, front := 0, 0
	for _, r := range recs {
		if r.Valid {
			valid++
		}
		if r.OnFront {
			front++
		}
	}
	fmt.Fprintf(w, "sweep %q: %d points, %d valid, %d invalid, %d on the Pareto front\n", s.Name, len(recs), valid, len(recs)-valid, front)
	fmt.Fprintf(w, "front: minimize %s, measured W error, |deviation from float| of %s over the scenarios (%s)\n\n",
		s.areaName(), s.FrontMetric, strings.Join(s.Scenarios, ", "))
	head := []string{"#"}
	head = append(head, s.paramNames()...)
	head = append(head, "cells", "ffs", "path", "reg bits", "W err", "W bound", s.FrontMetric+" dev", "max dev", "within "+pct(s.Tolerance))
	align := make([]tw.Align, len(head))
	for i := range align {
		align[i] = tw.AlignRight
	}
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	hs := make([]any, len(head))
	for i, h := range head {
		hs[i] = h
	}
	t.Header(hs...)
	// Front rows in ascending area, then index.
	var idx []int
	for i, r := range recs {
		if r.OnFront {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return s.areaOf(recs[idx[a]]) < s.areaOf(recs[idx[b]]) })
	for _, i := range idx {
		r := recs[i]
		row := []string{strconv.Itoa(r.Index)}
		row = append(row, r.Values...)
		cells := func(v int) string {
			if v < 0 {
				return "-"
			}
			return strconv.Itoa(v)
		}
		yes := "no"
		if r.WithinTol {
			yes = "yes"
		}
		row = append(row, cells(r.Area.Cells), cells(r.Area.FlipFlops), cells(r.Area.LongestPath), strconv.Itoa(r.Area.RegBits),
			fmt.Sprintf("%.3g", r.Accuracy.WRelErr), fmt.Sprintf("%.3g", r.Accuracy.WRelBound), pct(r.FrontDev), pct(r.MaxDev), yes)
		if err := t.Append(row); err != nil {
			return fmt.Errorf("explore: front table: %w", err)
		}
	}
	if err := t.Render(); err != nil {
		return fmt.Errorf("explore: front table: %w", err)
	}
	fmt.Fprintf(w, "W err: largest per-step relative W error against the float reference on the scenarios' updates; W bound: the\n")
	fmt.Fprintf(w, "range analysis' per-step bound; dev: |fixed - float| / float of the network metrics (max over scenarios).\n\n")
	if n := s.Narrowest(recs); n >= 0 {
		r := recs[n]
		fmt.Fprintf(w, "narrowest point within %s of float on every metric: #%d (%s): %s %s, W err %.3g, max dev %s\n",
			pct(s.Tolerance), r.Index, s.describe(r), s.areaName(), g(s.areaOf(r)), r.Accuracy.WRelErr, pct(r.MaxDev))
	} else {
		fmt.Fprintf(w, "no valid point stays within %s of float on every metric\n", pct(s.Tolerance))
	}
	for _, r := range recs {
		if !r.Valid {
			fmt.Fprintf(w, "invalid #%d (%s): %s\n", r.Index, s.describe(r), r.Invalid)
		}
	}
	return nil
}

// describe lists a record's parameter values: "formats.w=\"u24.16\" stages=1".
func (s Spec) describe(r Record) string {
	var parts []string
	for i, p := range s.Params {
		parts = append(parts, p.Name+"="+r.Values[i])
	}
	if len(parts) == 0 {
		return "base configuration"
	}
	return strings.Join(parts, " ")
}

// plotDef is one y quantity of the per-parameter plots.
type plotDef struct {
	name, label string
	get         func(Record) float64
	log         bool
}

func (s Spec) plotDefs() []plotDef {
	defs := []plotDef{
		{s.areaName(), "area (" + s.areaName() + ")", s.areaOf, false},
		{"w_rel_err", "measured W error (relative)", func(r Record) float64 { return r.Accuracy.WRelErr }, true},
	}
	if s.Synth == SynthYosys {
		defs = append(defs, plotDef{"longest_path", "longest path (cells)", func(r Record) float64 { return float64(r.Area.LongestPath) }, false})
	}
	for _, m := range metricDefs {
		get := m.get
		defs = append(defs, plotDef{m.name + "_dev", m.name + " |dev| from float", func(r Record) float64 {
			d := 0.0
			for _, sr := range r.Scenarios {
				d = math.Max(d, get(sr.Dev))
			}
			return d
		}, false})
	}
	return defs
}

// logTicks labels a log axis with powers of two.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	if !(lo > 0) || !(hi > 0) {
		return out
	}
	elo, ehi := int(math.Floor(math.Log2(lo))), int(math.Ceil(math.Log2(hi)))
	step := max(1, (ehi-elo+7)/8) // at most about 8 labels
	for e := elo; e <= ehi; e++ {
		t := plot.Tick{Value: math.Ldexp(1, e)}
		if e%step == 0 {
			t.Label = fmt.Sprintf("2^%d", e)
		}
		out = append(out, t)
	}
	return out
}

// pad sets an axis' range to the data's with 5% of the span (or of the
// value) added on each side, so that no glyph sits on the frame.
func pad(a *plot.Axis, vals []float64, log bool) {
	if len(vals) == 0 {
		return
	}
	lo, hi := vals[0], vals[0]
	for _, v := range vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if log {
		a.Min, a.Max = lo/1.5, hi*1.5
		return
	}
	d := (hi - lo) * 0.05
	if d == 0 {
		d = math.Max(math.Abs(hi)*0.05, 0.5)
	}
	a.Min, a.Max = lo-d, hi+d
}

// valueTicks labels a parameter axis with the parameter's values.
type valueTicks []string

func (v valueTicks) Ticks(min, max float64) []plot.Tick {
	out := make([]plot.Tick, len(v))
	for i, l := range v {
		out[i] = plot.Tick{Value: float64(i), Label: l}
	}
	return out
}

// plots renders the front plots (PNG and SVG) and one SVG per parameter
// and quantity (plots/<quantity>_vs_<param>.svg).
func (s Spec) plots(recs []Record) ([]File, error) {
	var files []File
	render := func(p *plot.Plot, name string, exts ...string) error {
		for _, ext := range exts {
			wt, err := p.WriterTo(7*vg.Inch, 4.5*vg.Inch, ext)
			if err != nil {
				return fmt.Errorf("explore: plot %s: %w", name, err)
			}
			var b bytes.Buffer
			if _, err := wt.WriteTo(&b); err != nil {
				return fmt.Errorf("explore: plot %s: %w", name, err)
			}
			files = append(files, File{name + "." + ext, b.Bytes()})
		}
		return nil
	}
	// Front plots: area against the W error (log) and against the front
	// metric's deviation; front points filled, the others hollow, invalid
	// points left out.
	for _, f := range []struct {
		name, ylabel string
		get          func(Record) float64
		log          bool
	}{
		{"front_accuracy", "measured W error (relative)", func(r Record) float64 { return r.Accuracy.WRelErr }, true},
		{"front_network", s.FrontMetric + " |dev| from float", func(r Record) float64 { return r.FrontDev }, false},
	} {
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s: %s vs area", s.Name, f.name)
		p.X.Label.Text = "area (" + s.areaName() + ")"
		p.Y.Label.Text = f.ylabel
		var on, off plotter.XYs
		floor := math.Inf(1)
		for _, r := range recs {
			if r.Valid && f.get(r) > 0 {
				floor = math.Min(floor, f.get(r))
			}
		}
		if math.IsInf(floor, 1) {
			floor = 1
		}
		for _, r := range recs {
			if !r.Valid {
				continue
			}
			y := f.get(r)
			if f.log && y <= 0 {
				y = floor / 2
			}
			pt := plotter.XY{X: s.areaOf(r), Y: y}
			if r.OnFront {
				on = append(on, pt)
			} else {
				off = append(off, pt)
			}
		}
		var xs, ys []float64
		for _, pt := range append(append(plotter.XYs{}, on...), off...) {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
		pad(&p.X, xs, false)
		pad(&p.Y, ys, f.log)
		if f.log {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = logTicks{}
		}
		p.Add(plotter.NewGrid())
		for _, set := range []struct {
			pts   plotter.XYs
			shape draw.GlyphDrawer
			label string
			c     color.RGBA
		}{{off, draw.RingGlyph{}, "dominated", color.RGBA{120, 120, 120, 255}}, {on, draw.CircleGlyph{}, "Pareto front", color.RGBA{200, 30, 30, 255}}} {
			if len(set.pts) == 0 {
				continue
			}
			sc, err := plotter.NewScatter(set.pts)
			if err != nil {
				return nil, fmt.Errorf("explore: plot %s: %w", f.name, err)
			}
			sc.GlyphStyle.Shape = set.shape
			sc.GlyphStyle.Color = set.c
			sc.GlyphStyle.Radius = vg.Points(3.5)
			p.Add(sc)
			p.Legend.Add(set.label, sc)
		}
		p.Legend.Top = true
		if err := render(p, f.name, "png", "svg"); err != nil {
			return nil, err
		}
	}
	// Each quantity against each parameter: every valid point, x = the
	// position of its value in the parameter's list.
	for pi, prm := range s.Params {
		vals, err := prm.values()
		if err != nil {
			return nil, err
		}
		labels := make([]string, len(vals))
		pos := map[string]int{}
		for i, v := range vals {
			labels[i] = strings.Trim(string(v), `"`)
			pos[string(v)] = i
		}
		for _, d := range s.plotDefs() {
			p := plot.New()
			p.Title.Text = fmt.Sprintf("%s: %s vs %s", s.Name, d.name, prm.Name)
			p.X.Label.Text = prm.Name
			p.Y.Label.Text = d.label
			p.X.Tick.Marker = valueTicks(labels)
			p.X.Min, p.X.Max = -0.5, float64(len(vals))-0.5
			var pts plotter.XYs
			for _, r := range recs {
				if !r.Valid {
					continue
				}
				pts = append(pts, plotter.XY{X: float64(pos[r.Values[pi]]), Y: d.get(r)})
			}
			if d.log {
				// 0 (no error measured) is drawn at half the smallest
				// non-zero value.
				floor := math.Inf(1)
				for _, pt := range pts {
					if pt.Y > 0 {
						floor = math.Min(floor, pt.Y)
					}
				}
				if math.IsInf(floor, 1) {
					floor = 1
				}
				for i := range pts {
					if pts[i].Y <= 0 {
						pts[i].Y = floor / 2
					}
				}
				p.Y.Scale = plot.LogScale{}
				p.Y.Tick.Marker = logTicks{}
			}
			var ys []float64
			for _, pt := range pts {
				ys = append(ys, pt.Y)
			}
			pad(&p.Y, ys, d.log)
			p.Add(plotter.NewGrid())
			if len(pts) > 0 {
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return nil, fmt.Errorf("explore: plot %s: %w", d.name, err)
				}
				sc.GlyphStyle.Shape = draw.CircleGlyph{}
				sc.GlyphStyle.Radius = vg.Points(3)
				sc.GlyphStyle.Color = color.RGBA{30, 80, 180, 255}
				p.Add(sc)
			}
			name := "plots/" + d.name + "_vs_" + strings.ReplaceAll(prm.Name, ".", "_")
			if err := render(p, name, "svg"); err != nil {
				return nil, err
			}
		}
	}
	return files, nil
}
