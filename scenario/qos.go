package scenario

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
	"github.com/hpccgold/hpccgold/telemetry"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// What a run measures of QoS queueing (network.QoSConfig) and sampled
// telemetry (network.SampleConfig). A run with one traffic class writes
// nothing of this, so its outputs are those of a run without QoS.

// ClassSeries is one traffic class at the bottleneck port, per sample:
// its queue at the sample instant (bytes) and its wire rate over the
// interval (Gbit/s, the class's transmitted wire bytes).
type ClassSeries struct {
	Class      int
	QueueBytes []uint64
	RateGbps   []float64
}

// ClassSummary is one traffic class at the bottleneck port over the
// port's busy period.
type ClassSummary struct {
	Class  int
	DSCP   uint8
	Weight uint32
	// GuaranteedGbps is the class's DWRR guarantee, weight/sum(weights) of
	// the port's line rate (the MultiQ slides' wB_j).
	GuaranteedGbps float64
	// Flows is the number of the workload's flows in the class that cross
	// the bottleneck.
	Flows int
	// RateGbps is the class's wire rate over the busy period.
	RateGbps float64
	// MeanQueueBytes (time-weighted), P99QueueBytes (time-weighted) and
	// PeakQueueBytes (exact) describe the class queue over the busy period.
	MeanQueueBytes float64
	P99QueueBytes  uint64
	PeakQueueBytes uint64
	// MeanSojournNs is the mean queueing delay by Little's law: mean queue
	// / mean wire rate (0 when the class sent nothing).
	MeanSojournNs float64
}

// classSampler samples the bottleneck port's class queues (two or more
// classes only).
type classSampler struct {
	logs   []*network.QueueLog
	lastTx []uint64
}

// watchClasses starts the class logs of the bottleneck port when the
// switches run two or more classes.
func (s *sim) watchClasses() error {
	n := s.cfg.Network.Switch.QoS.NumClasses()
	if n < 2 {
		return nil
	}
	s.cls = &classSampler{lastTx: make([]uint64, n)}
	s.out.Classes = make([]ClassSeries, n)
	for c := 0; c < n; c++ {
		l, err := s.net.WatchClass(s.bSw, s.bPt, c)
		if err != nil {
			return err
		}
		s.cls.logs = append(s.cls.logs, l)
		s.out.Classes[c].Class = c
	}
	return nil
}

// sampleClasses appends one sample of every class (sample's interval of
// dtNs ns).
func (s *sim) sampleClasses(dtNs float64) {
	if s.cls == nil {
		return
	}
	sw := s.net.Switch(s.bSw)
	for c := range s.cls.logs {
		cc, q := sw.Class(s.bPt, c)
		cs := &s.out.Classes[c]
		cs.QueueBytes = append(cs.QueueBytes, q)
		cs.RateGbps = append(cs.RateGbps, float64(cc.TxWireBytes-s.cls.lastTx[c])*8/dtNs)
		s.cls.lastTx[c] = cc.TxWireBytes
	}
}

// meanQueue returns the time-weighted mean of l over cycles [from, to).
func meanQueue(l *network.QueueLog, from, to engine.Cycle) float64 {
	if to <= from {
		return 0
	}
	var acc float64
	cur := l.At(from)
	t := from
	for i := 0; i < l.Len(); i++ {
		at, v := l.Entry(i)
		if at <= from {
			continue
		}
		if at >= to {
			break
		}
		acc += float64(cur) * float64(at-t)
		cur, t = v, at
	}
	acc += float64(cur) * float64(to-t)
	return acc / float64(to-from)
}

// summarizeClasses fills Summary.Classes and the sampling counters.
func (r *Result) summarizeClasses(net *network.Network) {
	s := &r.Summary
	for _, n := range r.nics {
		k := n.Counters()
		s.AcksNoTelemetry += k.Module.NoTelemetry
		s.DataNoTelemetry += k.RxHPCC.NoHops
	}
	for _, sw := range net.Switches() {
		for p := 0; p < sw.Ports(); p++ {
			pc, _ := sw.Port(p)
			s.Unsampled += pc.Unsampled
		}
	}
	if r.classLogs == nil {
		return
	}
	c := &r.Config
	fq := c.Run.ClockHz
	sw := net.Switch(r.BottleneckSwitch)
	from, to := fq.CycleAtNS(s.BusyStartNs), fq.CycleAtNS(s.BusyEndNs)+1
	busy := float64(s.BusyEndNs - s.BusyStartNs)
	q := &c.Network.Switch.QoS
	for k, l := range r.classLogs {
		cc, _ := sw.Class(r.BottleneckPort, k)
		cs := ClassSummary{Class: k, DSCP: q.Classes[k].DSCP, Weight: q.Classes[k].Weight,
			GuaranteedGbps: q.GuaranteedShare(k) * float64(r.BottleneckGbps), PeakQueueBytes: cc.MaxQBytes}
		for _, f := range r.Flows {
			if f.Bottleneck && f.class == k {
				cs.Flows++
			}
		}
		if busy > 0 {
			cs.RateGbps = float64(cc.TxWireBytes) * 8 / busy
			cs.MeanQueueBytes = meanQueue(l, from, to)
			cs.P99QueueBytes = l.Percentile(0.99, from, to)
		}
		if cs.RateGbps > 0 {
			cs.MeanSojournNs = cs.MeanQueueBytes * 8 / cs.RateGbps
		}
		s.Classes = append(s.Classes, cs)
	}
}

// writeClassSummary prints the class table and the sampling counters
// (nothing for a run with one class and every packet stamped).
func (r *Result) writeClassSummary(w io.Writer) error {
	s := &r.Summary
	if sc := r.Config.Network.Switch.Sample; sc.Mode != network.SampleEvery {
		fmt.Fprintf(w, "sampled telemetry: mode %v, interval %d ns, threshold %s, %d-entry flow table: %d packets left unstamped; %d ACKs and %d data packets reached the CC without hop records (no update)\n",
			sc.Mode, sc.IntervalNs, kb(sc.ThresholdBytes), sc.TableEntries, s.Unsampled, s.AcksNoTelemetry, s.DataNoTelemetry)
	}
	if len(s.Classes) == 0 {
		return nil
	}
	fmt.Fprintf(w, "traffic classes at the bottleneck (DWRR, quantum %d bytes; busy period):\n", r.Config.Network.Switch.QoS.QuantumBytes)
	t := newTable(w)
	t.Header("class", "dscp", "weight", "guaranteed Gbps", "flows", "rate Gbps", "mean queue", "p99 queue", "peak queue", "mean sojourn us")
	for _, c := range s.Classes {
		if err := t.Append([]string{fmt.Sprint(c.Class), fmt.Sprint(c.DSCP), fmt.Sprint(c.Weight), f3(c.GuaranteedGbps), fmt.Sprint(c.Flows),
			f3(c.RateGbps), kb(uint64(math.Round(c.MeanQueueBytes))), kb(c.P99QueueBytes), kb(c.PeakQueueBytes), f3(c.MeanSojournNs / 1000)}); err != nil {
			return err
		}
	}
	return t.Render()
}

// writeClassSeries writes class_series.csv: per sample, each class's queue
// and wire rate at the bottleneck.
func (r *Result) writeClassSeries(w io.Writer) error {
	c := csv.NewWriter(w)
	head := []string{"time_us"}
	for _, cs := range r.Series.Classes {
		head = append(head, fmt.Sprintf("c%d_queue_bytes", cs.Class), fmt.Sprintf("c%d_wire_gbps", cs.Class))
	}
	c.Write(head)
	row := make([]string, len(head))
	for i, t := range r.Series.TimeNs {
		row[0] = us(t)
		for j, cs := range r.Series.Classes {
			row[1+2*j] = fmtU(cs.QueueBytes[i])
			row[2+2*j] = fmtF(cs.RateGbps[i])
		}
		c.Write(row)
	}
	c.Flush()
	return c.Error()
}

// classPlots draws the class queues and the class rates with their
// guarantees.
func (r *Result) classPlots(x []float64, title string, sw int) ([]figure, error) {
	s := &r.Series
	if len(s.Classes) == 0 {
		return nil, nil
	}
	pq := newPlot(title+": class queues at the bottleneck", "time (us)", "queue (KB)")
	pr := newPlot(title+": class wire rates at the bottleneck", "time (us)", "Gbit/s (mean over 1 T)")
	for k, cs := range s.Classes {
		q := make([]float64, len(x))
		for i, v := range cs.QueueBytes {
			q[i] = float64(v) / 1000
		}
		l, err := addSeries(pq, x, q, true, plotutil.Color(k), vg.Points(1), maxPoints)
		if err != nil {
			return nil, err
		}
		if l != nil {
			pq.Legend.Add(fmt.Sprintf("class %d (weight %d)", k, r.Summary.Classes[k].Weight), l)
		}
		l, err = addSeries(pr, x, smooth(cs.RateGbps, sw), false, plotutil.Color(k), vg.Points(1), maxPoints)
		if err != nil {
			return nil, err
		}
		if l != nil {
			pr.Legend.Add(fmt.Sprintf("class %d", k), l)
		}
		if err := hline(pr, x, r.Summary.Classes[k].GuaranteedGbps, fmt.Sprintf("class %d guarantee", k)); err != nil {
			return nil, err
		}
	}
	return []figure{
		{"class_queues", "queue of each traffic class at the bottleneck port", pq},
		{"class_rates", "wire rate of each traffic class at the bottleneck port, with its DWRR guarantee", pr},
	}, nil
}

// setMultiQ enables MultiQ on host h's NIC configuration
// (HPCCParams.MultiQ): class j's weight is its DWRR share
// (nicmodel.Config.MultiQClassWeights; each flow is opened in its class),
// or 1 without QoS classes.
func (c *Config) setMultiQ(nc *nicmodel.Config, h int) error {
	q := &c.Network.Switch.QoS
	nc.HPCC.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: q.GuaranteedShare(0), BacklogBytes: 1500}
	for j := range q.Classes {
		nc.MultiQClassWeights = append(nc.MultiQClassWeights, q.GuaranteedShare(j))
	}
	if err := nc.Validate(); err != nil {
		return fmt.Errorf("scenario: hpcc.multiq: host %d: %w", h, err)
	}
	return nil
}

// qosBase is a single 100 Gbps switch with n hosts (1 us links, the HPCC
// paper's parameters: 1000-byte payloads, per-packet ACKs, eta 0.95,
// maxStage 5, W_ai by the draft's rule with N = 50) and IFA telemetry (the
// encoding with a residence time, for the sojourn), whose ports run two
// traffic classes under DWRR: class 0 (DSCP 26) with weight 3 and class 1
// (DSCP 10) with weight 1, so that class 0 is guaranteed 75 Gbps and
// class 1 25 Gbps of a 100 Gbps port; quantum 1500 bytes per unit of
// weight.
func qosBase(n int) Config {
	c := paperBase(n)
	c.Network.Encoding, c.HPCC.Encoding = telemetry.IFA, telemetry.IFA
	c.Network.Switch.QoS = network.QoSConfig{Classes: []network.ClassSpec{{DSCP: 26, Weight: 3}, {DSCP: 10, Weight: 1}}, QuantumBytes: 1500}
	return c
}

// qosTwoClass is the MultiQ experiment of the slides scaled to one switch:
// hosts 0 and 1 send 5 MB each in class 0 and hosts 2 and 3 send long
// flows in class 1, all to host 4 from t = 0, for 2 ms: while class 0 is
// backlogged each class should get its guarantee (75 and 25 Gbps); once
// class 0's flows finish, class 1 may take the whole port.
func qosTwoClass() Config {
	c := qosBase(5)
	c.Traffic = network.Traffic{Flows: []network.Flow{
		{Src: 0, Dst: 4, Bytes: 5_000_000}, {Src: 1, Dst: 4, Bytes: 5_000_000},
		{Src: 2, Dst: 4, Bytes: longFlow, Class: 1}, {Src: 3, Dst: 4, Bytes: longFlow, Class: 1}}}
	c.Run.DurationNs = 2_000_000
	return c
}

// sampled makes c's switches attach telemetry once per intervalNs per
// flow (and, with thresholdBytes > 0, to every packet leaving a queue of
// at least thresholdBytes).
func sampled(c Config, intervalNs, thresholdBytes uint64) Config {
	sc := network.SampleConfig{Mode: network.SampleInterval, IntervalNs: intervalNs, TableEntries: 1024}
	if thresholdBytes > 0 {
		sc.Mode, sc.ThresholdBytes = network.SampleCongestion, thresholdBytes
	}
	c.Network.Switch.Sample = sc
	return c
}

func qosBuiltins() []builtin {
	incast := func() Config {
		c := paperBase(17)
		c.Traffic = network.Traffic{Incast: []network.Incast{{Senders: incastSenders(16), Receiver: 16, Bytes: 500_000}}}
		return c
	}
	four := func() Config {
		c := paperBase(5)
		for i := 0; i < 4; i++ {
			c.Traffic.Flows = append(c.Traffic.Flows, network.Flow{Src: i, Dst: 4, Bytes: longFlow, StartNs: uint64(i) * 500_000})
		}
		c.Run.DurationNs = 2_000_000
		return c
	}
	return []builtin{
		{"qos-dwrr-2class", "QoS: 2 x 5 MB in class 0 (DWRR weight 3) and 2 long flows in class 1 (weight 1) into one host on a 100 Gbps switch, HPCC++ single-class U, 2 ms", qosTwoClass},
		{"qos-dwrr-2class-multiq", "QoS: qos-dwrr-2class with the slides' MultiQ U (per-class guaranteed rate wB_j)", func() Config {
			c := qosTwoClass()
			c.HPCC.MultiQ = true
			return c
		}},
		{"qos-dwrr-2class-sojourn", "QoS: qos-dwrr-2class with the queue term from the packets' sojourn time (draft 9.4)", func() Config {
			c := qosTwoClass()
			c.Network.Switch.Sojourn = true
			c.HPCC.Sojourn = true
			return c
		}},
		{"sampled-incast-16to1", "sampled telemetry: hpcc-incast-16to1 with INT once per 5 us per flow at the first switch", func() Config {
			return sampled(incast(), 5000, 0)
		}},
		{"sampled-incast-16to1-congestion", "sampled telemetry: hpcc-incast-16to1 with INT once per 5 us per flow, and on every packet leaving a queue of 1500 bytes or more", func() Config {
			return sampled(incast(), 5000, 1500)
		}},
		{"full-four-flows", "telemetry baseline: four long flows into one host on a 100 Gbps switch start 0.5 ms apart, 2 ms, INT on every packet", four},
		{"sampled-four-flows", "sampled telemetry: full-four-flows with INT once per 5 us per flow at the first switch", func() Config {
			return sampled(four(), 5000, 0)
		}},
		{"sampled-four-flows-congestion", "sampled telemetry: full-four-flows with INT once per 5 us per flow, and on every packet leaving a queue of 1500 bytes or more", func() Config {
			return sampled(four(), 5000, 1500)
		}},
	}
}
