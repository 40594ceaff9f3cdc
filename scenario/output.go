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
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// OutputFile is one file a run wrote.
type OutputFile struct {
	Name   string `json:"name"` // path relative to the output directory, forward slashes
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
	Doc    string `json:"doc"`
}

// manifest is manifest.json: the last file written, listing every other
// one; a directory without it holds an interrupted or failed write.
type manifest struct {
	Tool     string       `json:"tool"`
	Scenario string       `json:"scenario"`
	CC       string       `json:"cc"`
	Model    string       `json:"model"`
	Files    []OutputFile `json:"files"`
}

// fmtF formats a float for CSV: empty for NaN, else up to 6 significant
// digits (deterministic).
func fmtF(x float64) string {
	if math.IsNaN(x) {
		return ""
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

func fmtU(x uint64) string { return strconv.FormatUint(x, 10) }

func us(ns uint64) string { return strconv.FormatFloat(float64(ns)/1000, 'f', 3, 64) }

// Write writes the run's files into dir (created if needed) through an
// artefact.Writer: staged, then moved into place with manifest.json last;
// files of an earlier run in dir that this one does not write are removed.
// Cancelling ctx stops it with an error wrapping ErrInterrupted and leaves
// dir as it was. It returns the files written, manifest.json last.
func (r *Result) Write(ctx context.Context, dir string) ([]OutputFile, error) {
	aw, err := artefact.Create(dir, "sim")
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
	data, err := r.DataFiles()
	if err != nil {
		return files, err
	}
	for _, d := range data {
		if err := put(d.Name, d.Doc, d.Data); err != nil {
			return files, err
		}
	}
	plots, err := r.plots()
	if err != nil {
		return files, err
	}
	for _, p := range plots {
		for _, ext := range []string{"png", "svg"} {
			data, err := p.render(ext)
			if err != nil {
				return files, fmt.Errorf("scenario: plot %s: %w", p.name, err)
			}
			if err := put(p.name+"."+ext, p.doc, data); err != nil {
				return files, err
			}
		}
	}
	for _, h := range r.traceHosts {
		if err := ctx.Err(); err != nil {
			return files, fmt.Errorf("%w while writing %s: %v", ErrInterrupted, dir, err)
		}
		tdir := aw.Path("traces")
		if err := os.MkdirAll(tdir, 0o755); err != nil {
			return files, fmt.Errorf("scenario: %w", err)
		}
		tf, err := r.nics[h].WriteTraces(tdir)
		if err != nil {
			return files, fmt.Errorf("scenario: traces of host %d: %w", h, err)
		}
		for _, t := range tf {
			st, err := os.Stat(filepath.Join(tdir, t.Name))
			if err != nil {
				return files, fmt.Errorf("scenario: %w", err)
			}
			files = append(files, OutputFile{Name: "traces/" + t.Name, Bytes: st.Size(), SHA256: t.SHA256, Doc: t.Doc})
		}
	}
	if len(r.traceHosts) > 0 {
		// Each NIC's trace manifest (written by WriteTraces, not among the
		// files it returns) is an output too.
		listed := map[string]bool{}
		for _, f := range files {
			listed[f.Name] = true
		}
		all, err := artefact.List(aw.Root())
		if err != nil {
			return files, fmt.Errorf("scenario: %w", err)
		}
		for _, f := range all {
			if listed[f.Name] {
				continue
			}
			data, err := os.ReadFile(aw.Path(f.Name))
			if err != nil {
				return files, fmt.Errorf("scenario: %w", err)
			}
			h := sha256.Sum256(data)
			files = append(files, OutputFile{Name: f.Name, Bytes: int64(len(data)), SHA256: hex.EncodeToString(h[:]),
				Doc: "a NIC's trace manifest: its trace files, their hashes and the NIC configuration"})
		}
	}
	m := manifest{Tool: buildinfo.String(), Scenario: r.Config.Name, CC: r.Config.CC.String(), Model: r.Config.Model.String(), Files: files}
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

// DataFile is one data file of a run, rendered in memory.
type DataFile struct {
	Name, Doc string // file name; what it holds
	Data      []byte
}

// DataFiles renders the run's data files in memory, in the order Write
// writes them: config.json, nic-config.json, timeseries.csv, flows.csv,
// summary.txt, summary.json, with traffic classes class_series.csv and,
// with sampled flows, flow_series.csv (Write
// adds the plots, the traces and the manifest). A sweep (package
// scenario/sweep) writes these for each of its points.
func (r *Result) DataFiles() ([]DataFile, error) {
	type gen struct {
		name, doc string
		fn        func(io.Writer) error
	}
	gens := []gen{
		{"config.json", "the scenario configuration of the run (hpccgold sim --config reads it)", r.writeConfig},
		{"nic-config.json", "the first sender's NIC configuration (nicmodel.LoadConfig reads it)", r.writeNICConfig},
		{"timeseries.csv", "per sample: bottleneck queue, utilization, summed rate, Jain's index", r.writeTimeseries},
		{"flows.csv", "per flow: size, start, completion time, ideal time, slowdown", r.writeFlows},
		{"summary.txt", "the summary tables", r.WriteSummary},
		{"summary.json", "the summary in JSON", r.writeSummaryJSON},
	}
	if len(r.Series.Classes) > 0 {
		gens = append(gens, gen{"class_series.csv", "per sample and traffic class at the bottleneck: queue, wire rate", r.writeClassSeries})
	}
	if len(r.Series.Flows) > 0 {
		gens = append(gens, gen{"flow_series.csv", "per sample and sampled flow: rate, wire rate, window W, pacing rate R", r.writeFlowSeries})
	}
	var out []DataFile
	for _, g := range gens {
		var b bytes.Buffer
		if err := g.fn(&b); err != nil {
			return nil, fmt.Errorf("scenario: %s: %w", g.name, err)
		}
		out = append(out, DataFile{Name: g.name, Doc: g.doc, Data: b.Bytes()})
	}
	return out, nil
}

func (r *Result) writeConfig(w io.Writer) error {
	b, err := r.Config.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func (r *Result) writeNICConfig(w io.Writer) error {
	b, err := r.NICConfig.JSON()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

func (r *Result) writeTimeseries(w io.Writer) error {
	c := csv.NewWriter(w)
	c.Write([]string{"time_us", "queue_bytes", "queue_max_bytes", "utilization", "sum_wire_rate_gbps", "capacity_gbps", "active_flows", "jain"})
	s := &r.Series
	cp := fmtU(uint64(r.BottleneckGbps))
	for i, t := range s.TimeNs {
		c.Write([]string{us(t), fmtU(s.QueueBytes[i]), fmtU(s.QueueMax[i]), fmtF(s.Util[i]), fmtF(s.SumRate[i]), cp,
			strconv.Itoa(s.Active[i]), fmtF(s.Jain[i])})
	}
	c.Flush()
	return c.Error()
}

func (r *Result) writeFlowSeries(w io.Writer) error {
	c := csv.NewWriter(w)
	head := []string{"time_us"}
	for _, f := range r.Series.Flows {
		p := fmt.Sprintf("f%d_", f.Flow)
		head = append(head, p+"rate_gbps", p+"wire_gbps", p+"window_bytes", p+"pacing_gbps")
	}
	c.Write(head)
	row := make([]string, len(head))
	for i, t := range r.Series.TimeNs {
		row[0] = us(t)
		for j, f := range r.Series.Flows {
			row[1+4*j] = fmtF(f.Rate[i])
			row[2+4*j] = fmtF(f.WireRate[i])
			row[3+4*j] = fmtF(f.Window[i])
			row[4+4*j] = fmtF(f.Pacing[i])
		}
		c.Write(row)
	}
	c.Flush()
	return c.Error()
}

func (r *Result) writeFlows(w io.Writer) error {
	c := csv.NewWriter(w)
	c.Write([]string{"flow", "group", "src", "dst", "bytes", "start_ns", "done", "done_ns", "fct_ns", "ideal_ns", "slowdown", "bottleneck"})
	for _, f := range r.Flows {
		done, dn, fct, sl := "0", "", "", ""
		if f.Done {
			done, dn, fct = "1", fmtU(f.DoneNs), fmtU(f.FCTNs)
			if f.IdealNs > 0 {
				sl = fmtF(f.Slow)
			}
		}
		ideal := ""
		if f.IdealNs > 0 {
			ideal = fmtU(f.IdealNs)
		}
		c.Write([]string{strconv.Itoa(f.Index), f.Group, strconv.Itoa(f.Src), strconv.Itoa(f.Dst), fmtU(f.Bytes), fmtU(f.StartNs),
			done, dn, fct, ideal, sl, strconv.FormatBool(f.Bottleneck)})
	}
	c.Flush()
	return c.Error()
}

// summaryJSON is summary.json.
type summaryJSON struct {
	Tool           string  `json:"tool"`
	Scenario       string  `json:"scenario"`
	CC             string  `json:"cc"`
	Model          string  `json:"model"`
	BaseRTTNs      uint32  `json:"base_rtt_ns"`
	PathRTTNs      uint64  `json:"path_rtt_ns"`
	Bottleneck     string  `json:"bottleneck_port"`
	BottleneckGbps uint32  `json:"bottleneck_gbps"`
	SimNs          uint64  `json:"sim_ns"`
	Summary        Summary `json:"summary"`
}

func (r *Result) writeSummaryJSON(w io.Writer) error {
	s := r.Summary
	// JSON has no NaN: report NaN as 0 with the flow counts telling why.
	for _, p := range []*float64{&s.JainMean, &s.JainLast, &s.SlowMean, &s.SlowP50, &s.SlowP95, &s.SlowP99, &s.SlowMax} {
		if math.IsNaN(*p) {
			*p = 0
		}
	}
	s.Buckets = append([]SlowBucket(nil), s.Buckets...)
	for i := range s.Buckets {
		b := &s.Buckets[i]
		if b.MaxBytes == math.MaxUint64 {
			b.MaxBytes = 0
		}
	}
	b, err := json.MarshalIndent(summaryJSON{Tool: buildinfo.String(), Scenario: r.Config.Name, CC: r.Config.CC.String(),
		Model: r.Config.Model.String(), BaseRTTNs: r.BaseRTTNs, PathRTTNs: r.PathRTTNs, Bottleneck: r.BottleneckName,
		BottleneckGbps: r.BottleneckGbps, SimNs: r.Stats.SimNs, Summary: s}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

func newTable(w io.Writer, align ...tw.Align) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}))
}

func kb(b uint64) string { return fmt.Sprintf("%.1f KB", float64(b)/1000) }

func nsText(ns int64) string {
	if ns < 0 {
		return "never (queue above it at the end)"
	}
	return fmt.Sprintf("%.1f us", float64(ns)/1000)
}

func f3(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return strconv.FormatFloat(x, 'f', 3, 64)
}

// WriteSummary writes the summary tables (deterministic; no wall-clock
// figures).
func (r *Result) WriteSummary(w io.Writer) error {
	c := &r.Config
	s := &r.Summary
	fmt.Fprintf(w, "%s: %s\n", c.Name, c.Description)
	alt := c.CC == nicmodel.CCLDCP || c.CC == nicmodel.CCDCQCN
	if alt {
		e := c.networkConfig().Switch
		fmt.Fprintf(w, "cc=%s model=%s T=%d ns (largest path RTT %d ns) simulated %s us\n", c.CC, c.Model, r.BaseRTTNs, r.PathRTTNs, us(r.Stats.SimNs))
		at := "arrival"
		if e.ECN.MarkAtDequeue {
			at = "dequeue"
		}
		fmt.Fprintf(w, "switch WRED/ECN: K_min %s, K_max %s, P_max %v (drawn at %s), Not-ECT drop at %s, buffer %s per port\n",
			kb(e.ECN.KMinBytes), kb(e.ECN.KMaxBytes), e.ECN.PMax, at, dropText(e.ECN.DropNotECTBytes), kb(e.BufferBytes))
	} else {
		fmt.Fprintf(w, "cc=%s model=%s encoding=%s T=%d ns (largest path RTT %d ns) eta=%v maxStage=%d simulated %s us\n",
			c.CC, c.Model, c.HPCC.Encoding, r.BaseRTTNs, r.PathRTTNs, c.HPCC.Eta, c.HPCC.MaxStage, us(r.Stats.SimNs))
	}
	fmt.Fprintf(w, "bottleneck: %s (%d Gbps, toward host %d), BDP %s\n", r.BottleneckName, r.BottleneckGbps, r.BottleneckHost, kb(s.BDPBytes))
	t := newTable(w, tw.AlignLeft, tw.AlignRight)
	t.Header("metric", "value")
	rows := [][]string{
		{"flows completed", fmt.Sprintf("%d of %d", s.Completed, s.Flows)},
		{"peak queue (when)", fmt.Sprintf("%s (%s us)", kb(s.PeakQueueBytes), us(s.PeakQueueAtNs))},
		{"99th-percentile queue (busy period, time-weighted)", kb(s.P99QueueBytes)},
		{"time until queue stays < 1 BDP", nsText(s.SettleBDPNs)},
		{"time until queue stays < 10 KB", nsText(s.Settle10KBNs)},
		{"utilization over busy period", fmt.Sprintf("%s (%s-%s us)", f3(s.UtilBusy), us(s.BusyStartNs), us(s.BusyEndNs))},
		{"time with sum of rates (mean over T) > capacity", fmt.Sprintf("%s us", us(s.OverCapacityNs))},
		{"Jain fairness (mean, last)", fmt.Sprintf("%s, %s", f3(s.JainMean), f3(s.JainLast))},
		{"FCT slowdown mean / p50 / p95 / p99 / max", fmt.Sprintf("%s / %s / %s / %s / %s", f3(s.SlowMean), f3(s.SlowP50), f3(s.SlowP95), f3(s.SlowP99), f3(s.SlowMax))},
		{"feedback packets (ACKs + notifications + probe replies)", fmt.Sprintf("%d (%d + %d + %d)", s.Feedback, s.ACKs, s.Notifies, s.ProbeReplies)},
		{"data packets", fmtU(s.DataPackets)},
		{"drops (switches, NICs)", fmt.Sprintf("%d, %d", s.SwitchDrops, s.NICDrops)},
		{"ECN marks", fmtU(s.ECNMarks)},
		{"deepest queue of any port (when)", fmt.Sprintf("%s at %s (%s us)", kb(s.NetPeakQueueBytes), s.NetPeakQueuePort, us(s.NetPeakQueueAtNs))},
	}
	if alt {
		rows[9] = []string{"feedback packets (ACKs + NAKs + CNPs)", fmt.Sprintf("%d (%d + %d + %d)", s.Feedback, s.ACKs, s.NAKs, s.CNPs)}
		rows[11] = []string{"drops (switches: Not-ECT at K, buffer; NICs)", fmt.Sprintf("%d: %d, %d; %d", s.SwitchDrops, s.NotECTDrops, s.BufferDrops, s.NICDrops)}
		rows = append(rows, []string{"retransmitted data packets, receiver out-of-order discards, timeouts",
			fmt.Sprintf("%d, %d, %d", s.Retransmits, s.OutOfOrder, s.Timeouts)})
	}
	for _, row := range rows {
		if err := t.Append(row); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	if err := r.writeClassSummary(w); err != nil {
		return err
	}
	if len(c.Reference) > 0 {
		fmt.Fprintln(w, "reported by the sources for this experiment:")
		t = newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignLeft)
		t.Header("metric", "value", "source")
		for _, ref := range c.Reference {
			if err := t.Append([]string{ref.Metric, ref.Value, ref.Source}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if len(r.Flows) <= 64 {
		t = newTable(w, tw.AlignRight, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight)
		t.Header("flow", "src->dst", "bytes", "start us", "FCT us", "ideal us", "slowdown")
		for _, f := range r.Flows {
			fct, ideal, sl := "not done", "-", "-"
			if f.Done {
				fct = us(f.FCTNs)
			}
			if f.IdealNs > 0 {
				ideal = us(f.IdealNs)
				if f.Done {
					sl = f3(f.Slow)
				}
			}
			if err := t.Append([]string{strconv.Itoa(f.Index), fmt.Sprintf("%d->%d", f.Src, f.Dst), fmtU(f.Bytes), us(f.StartNs), fct, ideal, sl}); err != nil {
				return err
			}
		}
		return t.Render()
	}
	t = newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight)
	t.Header("flow size", "flows", "p50 slowdown", "p95", "p99", "max")
	lo := uint64(0)
	for _, b := range s.Buckets {
		name := fmt.Sprintf("(%s, %s]", sizeText(lo), sizeText(b.MaxBytes))
		if b.MaxBytes == math.MaxUint64 {
			name = fmt.Sprintf("> %s", sizeText(lo))
		}
		lo = b.MaxBytes
		if b.Count == 0 {
			if err := t.Append([]string{name, "0", "-", "-", "-", "-"}); err != nil {
				return err
			}
			continue
		}
		if err := t.Append([]string{name, strconv.Itoa(b.Count), f3(b.P50), f3(b.P95), f3(b.P99), f3(b.Max)}); err != nil {
			return err
		}
	}
	return t.Render()
}

func dropText(k uint64) string {
	if k == 0 {
		return "off"
	}
	return kb(k)
}

func sizeText(b uint64) string {
	switch {
	case b >= 1_000_000 && b%1_000_000 == 0:
		return fmt.Sprintf("%d MB", b/1_000_000)
	case b >= 1000 && b%1000 == 0:
		return fmt.Sprintf("%d KB", b/1000)
	}
	return fmt.Sprintf("%d B", b)
}

// Report returns a short text report of the run: what ran, the headline
// numbers, the wall-clock cost, and (if files were written) where.
func (r *Result) Report(files []OutputFile, dir string) string {
	var b strings.Builder
	s := &r.Summary
	c := &r.Config
	fmt.Fprintf(&b, "%s (cc=%s, model=%s): %d/%d flows completed in %s us simulated\n", c.Name, c.CC, c.Model, s.Completed, s.Flows, us(r.Stats.SimNs))
	fmt.Fprintf(&b, "  bottleneck %s: peak queue %s at %s us, p99 %s, stays < 1 BDP after %s, < 10 KB after %s; utilization %s\n",
		r.BottleneckName, kb(s.PeakQueueBytes), us(s.PeakQueueAtNs), kb(s.P99QueueBytes), nsText(s.SettleBDPNs), nsText(s.Settle10KBNs), f3(s.UtilBusy))
	fmt.Fprintf(&b, "  feedback packets %d (ACKs %d, notifications %d), drops %d switch / %d NIC, Jain mean %s, slowdown p50 %s p99 %s\n",
		s.Feedback, s.ACKs, s.Notifies, s.SwitchDrops, s.NICDrops, f3(s.JainMean), f3(s.SlowP50), f3(s.SlowP99))
	st := &r.Stats
	fmt.Fprintf(&b, "  cost: %.3f s wall (%.3f s building the NICs and network), %d data packets (%.0f per second), %d frames, %d busy of %d cycles\n",
		st.Wall.Seconds(), st.Setup.Seconds(), st.DataPackets, st.PacketsPerSecond(), st.Frames, st.BusyCycles, st.Cycles)
	if dir != "" {
		fmt.Fprintf(&b, "  wrote %d files to %s (manifest.json lists them):", len(files), dir)
		for _, f := range files {
			fmt.Fprintf(&b, " %s", f.Name)
		}
		b.WriteString("\n")
	}
	return b.String()
}
