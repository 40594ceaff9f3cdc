package scenario

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// lookupShort returns built-in scenario name with its run cut to
// durationNs (0: unchanged).
func lookupShort(t *testing.T, name string, durationNs uint64) Config {
	t.Helper()
	c, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	if durationNs > 0 {
		c.Run.DurationNs = durationNs
	}
	return c
}

func runCfg(t *testing.T, c Config) *Result {
	t.Helper()
	r, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatalf("%s: %v", c.Name, err)
	}
	return r
}

// classWindow returns class k's mean queue (bytes) and wire rate (Gbit/s)
// over the samples in [fromNs, toNs).
func classWindow(r *Result, k int, fromNs, toNs uint64) (q, rate float64) {
	n := 0
	for i, t := range r.Series.TimeNs {
		if t >= fromNs && t < toNs {
			q += float64(r.Series.Classes[k].QueueBytes[i])
			rate += r.Series.Classes[k].RateGbps[i]
			n++
		}
	}
	return q / float64(n), rate / float64(n)
}

// The QoS experiment (qos-dwrr-2class, cut to 700 us, while both classes
// are backlogged). Oracles: DWRR's guarantee (each class drains at its
// weight's share of 100 Gbps, 75 and 25, to within 1 Gbps over [100, 700)
// us: the port is busy and both classes backlogged, so DWRR serves the
// weights' ratio up to one quantum per round); the HPCC++ slides' MultiQ
// page: single-class HPCC++ over a class that gets a fraction of B holds a
// queue that grows as the fraction shrinks (class 1's mean queue above
// class 0's), and MultiQ's per-class U removes it (each class's mean queue
// with MultiQ below half of class 1's without); draft 9.4: with the
// sojourn time in place of the queue length class 1's queue also falls
// below half. The class series sum to the port's: the class rates add up
// to the port utilization.
func TestQoSTwoClass(t *testing.T) {
	const end = 700_000
	plain := runCfg(t, lookupShort(t, "qos-dwrr-2class", end))
	mq := runCfg(t, lookupShort(t, "qos-dwrr-2class-multiq", end))
	soj := runCfg(t, lookupShort(t, "qos-dwrr-2class-sojourn", end))
	for name, r := range map[string]*Result{"single-class U": plain, "MultiQ": mq, "sojourn": soj} {
		for k, want := range []float64{75, 25} {
			if _, rate := classWindow(r, k, 100_000, end); rate < want-1 || rate > want+1 {
				t.Errorf("%s: class %d rate %.2f Gbps, want %v +- 1 (its DWRR guarantee)", name, k, rate, want)
			}
		}
		for i := range r.Series.TimeNs {
			sum := r.Series.Classes[0].RateGbps[i] + r.Series.Classes[1].RateGbps[i]
			if d := sum - r.Series.Util[i]*100; d > 1e-9 || d < -1e-9 {
				t.Fatalf("%s: sample %d: class rates sum to %v Gbps, port %v", name, i, sum, r.Series.Util[i]*100)
			}
		}
	}
	q0, _ := classWindow(plain, 0, 100_000, end)
	q1, _ := classWindow(plain, 1, 100_000, end)
	if q1 <= q0 {
		t.Errorf("single-class U: class 1 (25 Gbps) mean queue %.0f B not above class 0's (75 Gbps) %.0f B", q1, q0)
	}
	for k := 0; k < 2; k++ {
		if q, _ := classWindow(mq, k, 100_000, end); q >= q1/2 {
			t.Errorf("MultiQ: class %d mean queue %.0f B, want below half of class 1's without MultiQ (%.0f B)", k, q, q1)
		}
	}
	// Draft 9.4: the sojourn time, not the class queue, is what a class's
	// packets wait; with it in the queue term class 1's standing queue
	// falls below half of what the queue length kept.
	if q, _ := classWindow(soj, 1, 100_000, end); q >= q1/2 {
		t.Errorf("sojourn: class 1 mean queue %.0f B, want below half of class 1's with the queue length (%.0f B)", q, q1)
	}
	if len(plain.Summary.Classes) != 2 || plain.Summary.Classes[1].GuaranteedGbps != 25 {
		t.Errorf("summary classes %+v", plain.Summary.Classes)
	}
}

// The sojourn time travels in the hop records' rxTimestamp and
// residenceTime and leaves their egress time as it was, so a run with
// network.switch.sojourn is the run without it in every measured figure.
// Oracle: the run without sojourn (series, flows, summary).
func TestSojournLeavesDynamics(t *testing.T) {
	c := lookupShort(t, "qos-dwrr-2class", 200_000)
	off := runCfg(t, c)
	c.Network.Switch.Sojourn = true
	on := runCfg(t, c)
	var files [2]map[string][]byte
	for i, r := range []*Result{off, on} {
		dir := t.TempDir()
		if _, err := r.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		files[i] = map[string][]byte{}
		for _, f := range []string{"timeseries.csv", "flows.csv", "flow_series.csv", "class_series.csv", "summary.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			files[i][f] = b
		}
	}
	for f, b := range files[0] {
		if !reflect.DeepEqual(b, files[1][f]) {
			t.Errorf("%s: differs with network.switch.sojourn", f)
		}
	}
}

// Sampled telemetry on the four-flows experiment (cut to 1.6 ms): packets
// are left unstamped, every one of them reaches the sender as an ACK
// without records (counted, no update), and the run still shares the link
// (utilization over the busy period above 0.9 and every flow sending).
// Oracles: the counters' identity (each unstamped data packet is acked
// once: per-packet ACKs, nothing lost) and the run with full telemetry's
// figures as the bar.
func TestSampledFourFlows(t *testing.T) {
	const end = 1_600_000
	full := runCfg(t, lookupShort(t, "full-four-flows", end))
	for _, name := range []string{"sampled-four-flows", "sampled-four-flows-congestion"} {
		r := runCfg(t, lookupShort(t, name, end))
		s := r.Summary
		if s.Unsampled == 0 || s.Unsampled > s.DataPackets {
			t.Errorf("%s: %d of %d data packets unstamped", name, s.Unsampled, s.DataPackets)
		}
		// ACKs of the packets still in flight at the end are not counted.
		if s.AcksNoTelemetry > s.Unsampled || s.Unsampled-s.AcksNoTelemetry > 200 {
			t.Errorf("%s: %d ACKs without telemetry for %d unstamped packets", name, s.AcksNoTelemetry, s.Unsampled)
		}
		if s.UtilBusy < 0.9 {
			t.Errorf("%s: utilization %.3f (full telemetry %.3f)", name, s.UtilBusy, full.Summary.UtilBusy)
		}
	}
	if full.Summary.Unsampled != 0 || full.Summary.AcksNoTelemetry != 0 {
		t.Errorf("full telemetry: %d unstamped, %d ACKs without telemetry", full.Summary.Unsampled, full.Summary.AcksNoTelemetry)
	}
}

// TestQoSOutputDigests pins the SHA-256 of every file Result.Write
// produces for the QoS and sampled-telemetry scenarios (cut short) to
// testdata/qos_digests.golden (oracle: the simulator when the file was
// written; refreshed only with go test -update).
func TestQoSOutputDigests(t *testing.T) {
	var lines []string
	for _, n := range []struct {
		name string
		end  uint64
	}{{"qos-dwrr-2class", 300_000}, {"qos-dwrr-2class-multiq", 300_000}, {"qos-dwrr-2class-sojourn", 300_000}, {"sampled-incast-16to1-congestion", 0}, {"sampled-four-flows", 1_600_000}} {
		r := runCfg(t, lookupShort(t, n.name, n.end))
		dir := t.TempDir()
		if _, err := r.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			sum := sha256.Sum256(b)
			lines = append(lines, fmt.Sprintf("%s %s %s", n.name, filepath.ToSlash(rel), hex.EncodeToString(sum[:])))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checkDigests(t, "testdata/qos_digests.golden", lines, *update)
}

// Skipping idle cycles changes nothing with DWRR class queues, MultiQ and
// sampled telemetry either (as TestSkipEquivalence; oracle: the NoSkip
// run).
func TestQoSSkipEquivalence(t *testing.T) {
	inc := lookupShort(t, "sampled-incast-16to1-congestion", 0)
	inc.Traffic.Incast[0].Bytes = 50_000
	for _, c := range []Config{lookupShort(t, "qos-dwrr-2class", 80_000), lookupShort(t, "qos-dwrr-2class-multiq", 80_000), inc} {
		a := runCfg(t, c)
		b, err := Run(context.Background(), c, Options{NoSkip: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.Stats.UnexpectedProgress != 0 {
			t.Errorf("%s: UnexpectedProgress = %d", c.Name, b.Stats.UnexpectedProgress)
		}
		if !reflect.DeepEqual(a.Flows, b.Flows) || fmt.Sprint(a.Series) != fmt.Sprint(b.Series) || fmt.Sprint(a.Summary) != fmt.Sprint(b.Summary) {
			t.Errorf("%s: results differ with and without idle skipping", c.Name)
		}
	}
}
