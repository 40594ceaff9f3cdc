package scenario

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// CompareOptions are the choices of a comparison that are not scenario
// parameters.
type CompareOptions struct {
	// CCs are the congestion controls to run, in order; empty: CCs
	// (hpcc, hpcc-rx, ldcp, dcqcn).
	CCs []nicmodel.CCMode
	// Progress, if set, is called during each run (Options.Progress) with
	// the congestion control running; calls are serialized.
	Progress func(cc nicmodel.CCMode, p Progress)
	// Workers is the number of runs at a time (RunParallel; 0: every
	// core, 1: one after another). The results do not depend on it.
	Workers int
	// NoSkip is Options.NoSkip for every run.
	NoSkip bool
}

// Comparison is one scenario run under several congestion controls on the
// same topology, workload and NICs: only cc (and with it the switches'
// WRED/ECN, from the ldcp and dcqcn sections) differs between the runs.
type Comparison struct {
	Config  Config    // the scenario as resolved (its cc is the first run's)
	Results []*Result // one per congestion control, in CompareOptions.CCs order
}

// Compare runs c under each congestion control of o.CCs. Cancelling ctx
// stops the run in progress (an error wrapping ErrInterrupted).
func Compare(ctx context.Context, c Config, o CompareOptions) (*Comparison, error) {
	ccs := o.CCs
	if len(ccs) == 0 {
		ccs = CCs
	}
	cmp := &Comparison{Config: c}
	cfgs := make([]Config, len(ccs))
	for i, cc := range ccs {
		rc := c
		rc.Traffic = cloneTraffic(c.Traffic)
		rc.CC = cc
		if err := rc.Validate(); err != nil {
			return nil, err
		}
		cfgs[i] = rc
	}
	po := ParallelOptions{Workers: o.Workers, Options: Options{NoSkip: o.NoSkip}}
	if o.Progress != nil {
		po.OnProgress = func(i int, p Progress) { o.Progress(ccs[i], p) }
	}
	rs, err := RunParallel(ctx, cfgs, po)
	if err != nil {
		return nil, err
	}
	cmp.Results = rs
	if len(cmp.Results) > 0 {
		cmp.Config.CC = cmp.Results[0].Config.CC
	}
	return cmp, nil
}

// CompareNamed resolves a request (its CC is ignored: every congestion
// control runs) and compares the congestion controls on it.
func CompareNamed(ctx context.Context, req Request, o CompareOptions) (*Comparison, error) {
	req.CC = ""
	c, err := Resolve(req)
	if err != nil {
		return nil, err
	}
	return Compare(ctx, c, o)
}

// bucketsInUse returns the indices of the FCT size buckets that hold a
// completed flow in at least one run.
func (cmp *Comparison) bucketsInUse() []int {
	var out []int
	for i := range slowBuckets {
		for _, r := range cmp.Results {
			if i < len(r.Summary.Buckets) && r.Summary.Buckets[i].Count > 0 {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

func bucketName(i int) string {
	lo := uint64(0)
	if i > 0 {
		lo = slowBuckets[i-1]
	}
	if slowBuckets[i] == math.MaxUint64 {
		return "> " + sizeText(lo)
	}
	return fmt.Sprintf("(%s, %s]", sizeText(lo), sizeText(slowBuckets[i]))
}

// WriteTable writes the comparison table (tablewriter): per congestion
// control the flows completed, the bottleneck's time-weighted 99th
// percentile and peak queue, its utilization over the busy period, the
// FCT slowdown (p50 / p99 against each run's ideal) of every flow-size
// bucket that holds flows, the feedback packets receivers sent (ACKs,
// Rx-HPCC notifications, NAKs, CNPs) and the drops (switches, of which
// ECN-incapable packets at LDCP's K; NICs). Deterministic: no wall-clock
// figures.
func (cmp *Comparison) WriteTable(w io.Writer) error {
	c := &cmp.Config
	fmt.Fprintf(w, "%s: %s\n", c.Name, c.Description)
	if len(cmp.Results) > 0 {
		r := cmp.Results[0]
		fmt.Fprintf(w, "bottleneck %s (%d Gbps), BDP %s at T = %d ns; model=%s\n", r.BottleneckName, r.BottleneckGbps,
			kb(r.Summary.BDPBytes), r.BaseRTTNs, c.Model)
	}
	bk := cmp.bucketsInUse()
	head := []string{"cc", "flows done", "p99 queue", "peak queue", "utilization"}
	align := []tw.Align{tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight}
	for _, i := range bk {
		head = append(head, "slowdown "+bucketName(i))
		align = append(align, tw.AlignRight)
	}
	head = append(head, "feedback pkts", "drops sw (K) + NIC")
	align = append(align, tw.AlignRight, tw.AlignRight)
	t := tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
	t.Header(toAny(head)...)
	for _, r := range cmp.Results {
		s := &r.Summary
		row := []string{r.Config.CC.String(), fmt.Sprintf("%d/%d", s.Completed, s.Flows), kb(s.P99QueueBytes),
			kb(s.PeakQueueBytes), f3(s.UtilBusy)}
		for _, i := range bk {
			b := s.Buckets[i]
			if b.Count == 0 {
				row = append(row, "-")
				continue
			}
			row = append(row, fmt.Sprintf("%s / %s", f2(b.P50), f2(b.P99)))
		}
		row = append(row, fmtU(s.Feedback), fmt.Sprintf("%d (%d) + %d", s.SwitchDrops, s.NotECTDrops, s.NICDrops))
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	fmt.Fprintln(w, "p99, peak: bottleneck egress queue (p99 time-weighted over its busy period); utilization: wire bytes over the")
	fmt.Fprintln(w, "busy period; slowdown p50 / p99 per flow-size bucket: FCT over the flow alone in the empty network with the run's")
	fmt.Fprintln(w, "own packets (telemetry included for hpcc, hpcc-rx); feedback: ACKs + Rx-HPCC notifications + NAKs + CNPs; drops:")
	fmt.Fprintln(w, "switch drops (of which ECN-incapable packets at LDCP's K) + NIC drops.")
	return nil
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

func f2(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'f', 2, 64)
}

// writeCSV writes compare.csv: one row per congestion control with the
// summary's figures (all buckets).
func (cmp *Comparison) writeCSV(w io.Writer) error {
	c := csv.NewWriter(w)
	head := []string{"cc", "flows", "completed", "p99_queue_bytes", "peak_queue_bytes", "peak_queue_at_ns", "util_busy",
		"settle_bdp_ns", "settle_10kb_ns", "jain_mean", "slowdown_p50", "slowdown_p99"}
	for i := range slowBuckets {
		p := fmt.Sprintf("b%d_", i)
		head = append(head, p+"max_bytes", p+"flows", p+"p50", p+"p99")
	}
	head = append(head, "acks", "notifications", "naks", "cnps", "feedback", "data_packets", "retransmits",
		"switch_drops", "not_ect_drops", "buffer_drops", "nic_drops", "ecn_marks", "timeouts", "sim_ns")
	c.Write(head)
	for _, r := range cmp.Results {
		s := &r.Summary
		row := []string{r.Config.CC.String(), strconv.Itoa(s.Flows), strconv.Itoa(s.Completed), fmtU(s.P99QueueBytes),
			fmtU(s.PeakQueueBytes), fmtU(s.PeakQueueAtNs), fmtF(s.UtilBusy), strconv.FormatInt(s.SettleBDPNs, 10),
			strconv.FormatInt(s.Settle10KBNs, 10), fmtF(s.JainMean), fmtF(s.SlowP50), fmtF(s.SlowP99)}
		for i, b := range s.Buckets {
			mx := ""
			if slowBuckets[i] != math.MaxUint64 {
				mx = fmtU(slowBuckets[i])
			}
			p50, p99 := "", ""
			if b.Count > 0 {
				p50, p99 = fmtF(b.P50), fmtF(b.P99)
			}
			row = append(row, mx, strconv.Itoa(b.Count), p50, p99)
		}
		row = append(row, fmtU(s.ACKs), fmtU(s.Notifies), fmtU(s.NAKs), fmtU(s.CNPs), fmtU(s.Feedback), fmtU(s.DataPackets),
			fmtU(s.Retransmits), fmtU(s.SwitchDrops), fmtU(s.NotECTDrops), fmtU(s.BufferDrops), fmtU(s.NICDrops),
			fmtU(s.ECNMarks), fmtU(s.Timeouts), fmtU(r.Stats.SimNs))
		c.Write(row)
	}
	c.Flush()
	return c.Error()
}

// plots builds the two overlaid figures: the bottleneck queue (maximum per
// sample) and its utilization (mean over one T) of every run.
func (cmp *Comparison) plots() ([]figure, error) {
	title := cmp.Config.Name
	q := newPlot(title+": bottleneck queue", "time (us)", "queue (KB, max per sample)")
	u := newPlot(title+": bottleneck utilization", "time (us)", "utilization (mean over 1 T)")
	var bdp float64
	var xs []float64
	for k, r := range cmp.Results {
		s := &r.Series
		x := make([]float64, len(s.TimeNs))
		for i, t := range s.TimeNs {
			x[i] = float64(t) / 1000
		}
		if len(x) > len(xs) {
			xs = x
		}
		qy := make([]float64, len(x))
		for i, v := range s.QueueMax {
			qy[i] = float64(v) / 1000
		}
		col := plotutil.Color(k)
		l, err := addSeries(q, x, qy, true, col, vg.Points(1), maxPoints)
		if err != nil {
			return nil, err
		}
		if l != nil {
			q.Legend.Add(r.Config.CC.String(), l)
		}
		sw := int(math.Round(float64(r.BaseRTTNs) / float64(r.Config.Run.SampleNs)))
		l, err = addSeries(u, x, smooth(s.Util, sw), false, col, vg.Points(1), maxPoints)
		if err != nil {
			return nil, err
		}
		if l != nil {
			u.Legend.Add(r.Config.CC.String(), l)
		}
		bdp = float64(r.Summary.BDPBytes) / 1000
	}
	if err := hline(q, xs, bdp, "1 BDP"); err != nil {
		return nil, err
	}
	return []figure{
		{"queue", "bottleneck queue over time, every congestion control (KB, maximum per sample interval)", q},
		{"utilization", "bottleneck wire utilization over time, every congestion control (mean over one T)", u},
	}, nil
}

// compareManifest is the comparison's manifest.json.
type compareManifest struct {
	Tool     string       `json:"tool"`
	Scenario string       `json:"scenario"`
	CCs      []string     `json:"ccs"`
	Model    string       `json:"model"`
	Files    []OutputFile `json:"files"`
}

// Write writes the comparison into dir (created if needed) through an
// artefact.Writer (staged, manifest.json last, an earlier run's other
// files removed; an interrupted write leaves dir as it was): compare.txt
// (the table), compare.csv (every figure per congestion control),
// config.json (the scenario), queue and utilization as PNG and SVG (the
// runs overlaid). Cancelling ctx stops it with an error wrapping
// ErrInterrupted. It returns the files written.
func (cmp *Comparison) Write(ctx context.Context, dir string) ([]OutputFile, error) {
	aw, err := artefact.Create(dir, "compare")
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	defer aw.Close()
	var files []OutputFile
	put := func(name, doc string, data []byte) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w while writing %s: %v", ErrInterrupted, dir, err)
		}
		if err := aw.WriteFile(name, data); err != nil {
			return fmt.Errorf("scenario: %w", err)
		}
		h := sha256.Sum256(data)
		files = append(files, OutputFile{Name: name, Bytes: int64(len(data)), SHA256: hex.EncodeToString(h[:]), Doc: doc})
		return nil
	}
	for _, g := range []struct {
		name, doc string
		fn        func(io.Writer) error
	}{
		{"compare.txt", "the comparison table", cmp.WriteTable},
		{"compare.csv", "per congestion control: queue, utilization, FCT slowdown by size, feedback, drops", cmp.writeCSV},
		{"config.json", "the scenario configuration (hpccgold compare --config reads it; cc is set per run)", func(w io.Writer) error {
			b, err := cmp.Config.JSON()
			if err != nil {
				return err
			}
			_, err = w.Write(b)
			return err
		}},
	} {
		var b bytes.Buffer
		if err := g.fn(&b); err != nil {
			return files, fmt.Errorf("scenario: %s: %w", g.name, err)
		}
		if err := put(g.name, g.doc, b.Bytes()); err != nil {
			return files, err
		}
	}
	figs, err := cmp.plots()
	if err != nil {
		return files, fmt.Errorf("scenario: plots: %w", err)
	}
	for _, f := range figs {
		for _, ext := range []string{"png", "svg"} {
			data, err := f.render(ext)
			if err != nil {
				return files, fmt.Errorf("scenario: plot %s: %w", f.name, err)
			}
			if err := put(f.name+"."+ext, f.doc, data); err != nil {
				return files, err
			}
		}
	}
	var ccs []string
	for _, r := range cmp.Results {
		ccs = append(ccs, r.Config.CC.String())
	}
	m := compareManifest{Tool: buildinfo.String(), Scenario: cmp.Config.Name, CCs: ccs, Model: cmp.Config.Model.String(), Files: files}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return files, fmt.Errorf("scenario: manifest: %w", err)
	}
	b = append(b, '\n')
	if err := ctx.Err(); err != nil {
		return files, fmt.Errorf("%w while writing %s: %v", ErrInterrupted, dir, err)
	}
	if err := aw.CommitManifest(ctx, b); err != nil {
		return files, fmt.Errorf("scenario: %w", err)
	}
	h := sha256.Sum256(b)
	files = append(files, OutputFile{Name: artefact.ManifestFile, Bytes: int64(len(b)), SHA256: hex.EncodeToString(h[:]), Doc: "this list (written last)"})
	return files, nil
}

// ParseCCs parses a comma-separated list of congestion controls ("hpcc,ldcp");
// an unknown name and a name listed twice are errors.
func ParseCCs(s string) ([]nicmodel.CCMode, error) {
	var out []nicmodel.CCMode
	for _, f := range strings.Split(s, ",") {
		var m nicmodel.CCMode
		if err := m.UnmarshalText([]byte(strings.TrimSpace(f))); err != nil || !knownCC(m) {
			return nil, cerr("cc", strconv.Quote(strings.TrimSpace(f)), "must be "+ccChoices)
		}
		if slices.Contains(out, m) {
			return nil, cerr("cc", m, "listed twice (each congestion control runs once)")
		}
		out = append(out, m)
	}
	return out, nil
}
