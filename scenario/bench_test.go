package scenario

import (
	"context"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkScenario runs every built-in scenario (cc=hpcc, fixed model) to
// its end, without writing files, and reports simulated data packets per
// wall-clock second and the heap in use at the end. The goals (an
// event-driven packet simulator on this machine): 16:1 incast of 500 KB in
// 0.2 s, 60:1 in 0.7 s, two 50 MB flows in 2 s, memory under 1 GiB.
//
// The fat-tree scenarios (minutes each) are left to BenchmarkFatTree's
// short variants and to `hpccgold bench` for the full runs.
//
//	go test -run - -bench Scenario -benchtime 1x ./scenario
func BenchmarkScenario(b *testing.B) {
	for _, name := range Names() {
		if strings.HasPrefix(name, "fattree-") {
			continue
		}
		b.Run(name, func(b *testing.B) {
			c, err := Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			var pk uint64
			var setup float64
			var ms runtime.MemStats
			for i := 0; i < b.N; i++ {
				r, err := Run(context.Background(), c, Options{})
				if err != nil {
					b.Fatal(err)
				}
				pk += r.Stats.DataPackets
				setup += r.Stats.Setup.Seconds()
				if c.Run.DurationNs == 0 && r.Summary.Completed != r.Summary.Flows {
					b.Fatalf("%d of %d flows completed", r.Summary.Completed, r.Summary.Flows)
				}
				runtime.ReadMemStats(&ms)
			}
			b.ReportMetric(float64(pk)/b.Elapsed().Seconds(), "datapkts/s")
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
			b.ReportMetric(setup/float64(b.N), "setup-s")
		})
	}
}

// BenchmarkCC runs three built-in scenarios under each congestion control
// (fixed model, no files) and reports simulated data packets per
// wall-clock second: the cost of the CC module and port (cc=ldcp, dcqcn)
// next to the HPCC++ module on the same work.
//
//	go test -run - -bench CC -benchtime 1x ./scenario
func BenchmarkCC(b *testing.B) {
	for _, name := range []string{"hpcc-incast-16to1", "hpcc-incast-60to1", "hpcc-two-flows"} {
		for _, cc := range CCs {
			b.Run(name+"/"+cc.String(), func(b *testing.B) {
				c, err := Lookup(name)
				if err != nil {
					b.Fatal(err)
				}
				c.CC = cc
				var pk uint64
				for i := 0; i < b.N; i++ {
					r, err := Run(context.Background(), c, Options{})
					if err != nil {
						b.Fatal(err)
					}
					if r.Summary.Completed != r.Summary.Flows {
						b.Fatalf("%d of %d flows completed", r.Summary.Completed, r.Summary.Flows)
					}
					pk += r.Stats.DataPackets
				}
				b.ReportMetric(float64(pk)/b.Elapsed().Seconds(), "datapkts/s")
			})
		}
	}
}

// BenchmarkFatTree runs the HPCC paper's fat-tree scenarios with 1 ms of
// arrivals instead of 10 (the full runs are measured by `hpccgold bench`,
// docs/scenarios.md) to completion and reports simulated data packets
// per wall-clock second.
//
//	go test -run - -bench FatTree -benchtime 1x ./scenario
func BenchmarkFatTree(b *testing.B) {
	for _, name := range Names() {
		if !strings.HasPrefix(name, "fattree-") {
			continue
		}
		b.Run(name, func(b *testing.B) {
			c, err := Lookup(name)
			if err != nil {
				b.Fatal(err)
			}
			c.Traffic.Random.DurationNs = 1_000_000
			var pk uint64
			for i := 0; i < b.N; i++ {
				r, err := Run(context.Background(), c, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Verdict(); err != nil {
					b.Fatal(err)
				}
				pk += r.Stats.DataPackets
			}
			b.ReportMetric(float64(pk)/b.Elapsed().Seconds(), "datapkts/s")
		})
	}
}
