package vectors

import (
	"io"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// BenchmarkOutputHPCC measures the output path of vectors gen per vector,
// on blocks of blockSize random vectors of the default 5-hop HPCC++
// configuration (evaluated once, before timing): formatting a block's
// stimulus and expected lines ("hex_format") or binary records
// ("bin_format") as the workers do, and the writer's pass over them
// ("hex_write", "bin_write": SHA-256, CRC-32C, line count and the copy,
// into io.Discard, so no kernel work). Reported as cpu-ns/vector (CPU time
// of the benchmark's thread) and bytes/vector.
func BenchmarkOutputHPCC(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, bin := range []bool{false, true} {
		p, err := newPlan(m, Options{Count: 8 * blockSize, Workers: 1, NoJSONL: true, Binary: bin})
		if err != nil {
			b.Fatal(err)
		}
		w, err := p.newWorker()
		if err != nil {
			b.Fatal(err)
		}
		blk := &block{first: int64(len(p.dirLabel)), n: blockSize, in: make([]uint64, blockSize*p.iw), out: make([]uint64, blockSize*p.ow)}
		if err := p.compute(w, blk, true, false); err != nil {
			b.Fatal(err)
		}
		kind := "hex"
		if bin {
			kind = "bin"
		}
		per := float64(len(blk.stim)+len(blk.exp)) / blockSize
		b.Run(kind+"_format", func(b *testing.B) {
			defer lockThread()()
			b.ResetTimer()
			cpu0 := threadCPU()
			for i := 0; i < b.N; i += blockSize {
				p.formatBlock(blk, false)
			}
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/vector")
			}
			b.ReportMetric(per, "bytes/vector")
		})
		b.Run(kind+"_write", func(b *testing.B) {
			stim, exp := newHashWriter(io.Discard), newHashWriter(io.Discard)
			defer lockThread()()
			b.ResetTimer()
			cpu0 := threadCPU()
			for i := 0; i < b.N; i += blockSize {
				if err := stim.write(blk.stim); err != nil {
					b.Fatal(err)
				}
				if err := exp.write(blk.exp); err != nil {
					b.Fatal(err)
				}
			}
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/vector")
			}
			b.ReportMetric(per, "bytes/vector")
		})
	}
}
