package explore

import (
	"math"

	"github.com/hpccgold/hpccgold/scenario"
)

// Metrics are the network metrics of one scenario run (scenario.Summary,
// measured at the scenario's bottleneck port).
type Metrics struct {
	// PeakQueueBytes is the bottleneck queue's peak, bytes.
	PeakQueueBytes float64 `json:"peak_queue_bytes"`
	// DrainNs is the time from the first flow's start until the bottleneck
	// queue stays below 10 KB to the end of the run, ns; -1 if it never
	// does.
	DrainNs float64 `json:"drain_ns"`
	// Util is the bottleneck's wire utilization over its busy period (0..1).
	Util float64 `json:"util"`
	// SlowP50 and SlowP99 are the median and 99th-percentile FCT slowdown
	// (FCT over the flow's ideal time alone in the network).
	SlowP50 float64 `json:"slow_p50"`
	SlowP99 float64 `json:"slow_p99"`
	// Jain is Jain's fairness index, mean over samples with at least two
	// active flows (1 = fair).
	Jain float64 `json:"jain"`
}

// metricDefs names the Metrics fields in report order.
var metricDefs = []struct {
	name, doc string
	get       func(Metrics) float64
}{
	{"peak_queue_bytes", "peak bottleneck queue (bytes)", func(m Metrics) float64 { return m.PeakQueueBytes }},
	{"drain_ns", "time until the queue stays < 10 KB (ns)", func(m Metrics) float64 { return m.DrainNs }},
	{"util", "bottleneck utilization over its busy period", func(m Metrics) float64 { return m.Util }},
	{"slow_p50", "FCT slowdown, median", func(m Metrics) float64 { return m.SlowP50 }},
	{"slow_p99", "FCT slowdown, 99th percentile", func(m Metrics) float64 { return m.SlowP99 }},
	{"jain", "Jain fairness index (mean)", func(m Metrics) float64 { return m.Jain }},
}

// MetricNames returns the network metrics' names (json keys of Metrics),
// in report order.
func MetricNames() []string {
	out := make([]string, len(metricDefs))
	for i, d := range metricDefs {
		out[i] = d.name
	}
	return out
}

func metricIndex(name string) int {
	for i, d := range metricDefs {
		if d.name == name {
			return i
		}
	}
	return -1
}

// finite maps NaN and infinities (no JSON form) to -1, the "not measured"
// value of the metrics.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return -1
	}
	return x
}

// metricsOf extracts Metrics from a scenario summary.
func metricsOf(s scenario.Summary) Metrics {
	return Metrics{
		PeakQueueBytes: float64(s.PeakQueueBytes),
		DrainNs:        float64(s.Settle10KBNs),
		Util:           finite(s.UtilBusy),
		SlowP50:        finite(s.SlowP50),
		SlowP99:        finite(s.SlowP99),
		Jain:           finite(s.JainMean),
	}
}

// relDev is |fixed - float| / |float|: 0 when equal; 1 (a 100%
// deviation) when the float value is 0 and the fixed one is not, or when
// one run measured the metric and the other did not (-1, e.g. a queue that
// never drains).
func relDev(fixed, float float64) float64 {
	switch {
	case fixed == float:
		return 0
	case fixed < 0 || float < 0 || float == 0:
		return 1
	}
	return math.Abs(fixed-float) / math.Abs(float)
}

// devOf returns the per-metric relative deviations of fixed from float.
func devOf(fixed, float Metrics) Metrics {
	var d [6]float64
	for i, m := range metricDefs {
		d[i] = relDev(m.get(fixed), m.get(float))
	}
	return Metrics{d[0], d[1], d[2], d[3], d[4], d[5]}
}

// Area is what a point's hpcc_update costs.
type Area struct {
	// Cells, FlipFlops and LongestPath come from Yosys (generic gates,
	// `synth -flatten`; LongestPath is `ltp -noff` in cells); all -1 with
	// synth "none".
	Cells       int `json:"cells"`
	FlipFlops   int `json:"flip_flops"`
	LongestPath int `json:"longest_path"`
	// RegBits, Ops and Depth are the pipeliner's estimates (rtl
	// StageReport): pipeline register bits, operators, and the deepest
	// stage's estimated gate levels.
	RegBits int     `json:"reg_bits"`
	Ops     int     `json:"ops"`
	Depth   float64 `json:"depth"`
}

// Accuracy is a point's arithmetic error against the float reference.
type Accuracy struct {
	// WRelBound is the range analysis' per-step bound on |W_fixed -
	// W_float| / W_float (hpcc ErrorBounds.WRel), the largest over the
	// datapaths of the scenario runs' NICs.
	WRelBound float64 `json:"w_rel_bound"`
	// WRelErr is the largest measured per-step relative W error: every
	// HPCC++ update of the fixed-model scenario runs (the traces) is run
	// again through the float reference from the same state (hpcc
	// Datapath.RefState) and compared, over the steps whose decisions
	// (MI/AI, selected hop, incStage, flags) agree.
	WRelErr float64 `json:"w_rel_err"`
	// Steps counts the updates compared; Flips those whose decisions
	// differ (near-eta or near-tie cases; W not compared).
	Steps int `json:"steps"`
	Flips int `json:"flips"`
}

// ScenarioResult is one scenario of a point.
type ScenarioResult struct {
	Name string `json:"name"`
	// Verdict is "" when the fixed-model run completed every flow it had
	// to, else why not (scenario Result.Verdict).
	Verdict string  `json:"verdict,omitempty"`
	Fixed   Metrics `json:"fixed"`
	Float   Metrics `json:"float"`
	// Dev is the relative deviation of each Fixed metric from Float
	// (relDev).
	Dev Metrics `json:"dev"`
}

// Record is the result of one point.
type Record struct {
	Index  int      `json:"index"`
	Values []string `json:"values"`
	Stages int      `json:"stages"`
	// Valid is false when the point's configuration failed validation;
	// Invalid then says why and nothing else is measured.
	Valid     bool             `json:"valid"`
	Invalid   string           `json:"invalid,omitempty"`
	Area      Area             `json:"area"`
	Accuracy  Accuracy         `json:"accuracy"`
	Scenarios []ScenarioResult `json:"scenarios"`
	// MaxDev is the largest Dev over every metric and scenario; FrontDev
	// the largest over the scenarios of the spec's front metric.
	MaxDev   float64 `json:"max_dev"`
	FrontDev float64 `json:"front_dev"`
	// WithinTol is MaxDev <= the spec's tolerance and every fixed run
	// completed.
	WithinTol bool `json:"within_tol"`
	// OnFront marks the Pareto-optimal valid points (Front).
	OnFront bool `json:"on_front"`
}
