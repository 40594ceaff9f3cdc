package cosim

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hpccgold/hpccgold/verilog"
)

var benchOnce sync.Once
var benchVectors string

// benchSet generates one vector set (every level-2 directed class plus
// 100k random vectors) shared by the benchmarks of one run.
func benchSet(b *testing.B) string {
	benchOnce.Do(func() {
		_, err := Run(context.Background(), Options{Model: hpccModel(b), Stages: 3, Simulator: verilog.Icarus,
			Level: 2, Seed: 3, Count: 100000, WorkDir: filepath.Join(buildCache, "bench-gen"), Limit: 1, CacheDir: buildCache})
		if err != nil {
			b.Fatal(err)
		}
		benchVectors = filepath.Join(buildCache, "bench-gen", "vectors")
	})
	return benchVectors
}

// benchUpdate runs hpcc_update co-simulation b.N times on limit vectors and
// reports simulated vectors per second (after $readmemh), end-to-end
// vectors per second, and the build time of the first (uncached) build.
func benchUpdate(b *testing.B, sim verilog.Simulator, limit int) {
	if err := verilog.LookupTools().Need(verilog.FlowVerilator, verilog.FlowIcarus); err != nil {
		b.Skip(err)
	}
	vec := benchSet(b)
	work := b.TempDir()
	var simRate, e2e, build float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{Model: hpccModel(b), Stages: 3, Simulator: sim,
			Vectors: vec, Limit: limit, WorkDir: work, CacheDir: buildCache})
		if err != nil {
			b.Fatal(err)
		}
		if err := rep.Err(); err != nil {
			b.Fatal(err)
		}
		simRate += rep.SimRate
		e2e += rep.VectorsPerSecond()
		if !rep.Cached {
			build = rep.BuildTime.Seconds()
		}
	}
	b.ReportMetric(simRate/float64(b.N), "vectors/s")
	b.ReportMetric(e2e/float64(b.N), "vectors/s-e2e")
	if build > 0 {
		b.ReportMetric(build, "build-s")
	}
}

// BenchmarkVerilatorUpdate: the Verilated hpcc_update (3 stages) on ~170k
// golden vectors. Goal: >= 1M vectors/s simulated.
func BenchmarkVerilatorUpdate(b *testing.B) { benchUpdate(b, verilog.Verilator, 0) }

// BenchmarkIcarusUpdate: hpcc_update under Icarus on the first 5000 vectors.
func BenchmarkIcarusUpdate(b *testing.B) { benchUpdate(b, verilog.Icarus, 5000) }
