package simvec

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/scenario"
)

// benchScenario is the HPCC paper's 16-to-1 incast (16 senders x 500 KB,
// 8000 sender datapath updates), the plain run and the captures compared.
const benchScenario = "hpcc-incast-16to1"

// BenchmarkRunOnly runs the scenario without an observer (the baseline).
func BenchmarkRunOnly(b *testing.B) {
	cfg, err := Resolve(Request{Scenario: benchScenario})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < b.N; i++ {
		if _, err := scenario.Run(context.Background(), cfg, scenario.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCapture runs the scenario capturing every update and builds the
// in-memory set (golden re-evaluation, coverage); vectors/s counts
// captured transactions per wall second, end to end.
func BenchmarkCapture(b *testing.B) {
	var n int
	for i := 0; i < b.N; i++ {
		s, err := Set(context.Background(), Request{Scenario: benchScenario})
		if err != nil {
			b.Fatal(err)
		}
		n = s.Len()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
}

// BenchmarkCaptureDir is BenchmarkCapture writing the files (hex, JSONL,
// capture.jsonl, manifest with hashes).
func BenchmarkCaptureDir(b *testing.B) {
	var n int64
	for i := 0; i < b.N; i++ {
		man, err := CaptureDir(context.Background(), b.TempDir(), Request{Scenario: benchScenario})
		if err != nil {
			b.Fatal(err)
		}
		n = man.Count
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "vectors/s")
}
