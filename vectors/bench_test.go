package vectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// BenchmarkGenerateHPCC measures what one core does per generated vector
// for the default 5-hop HPCC++ configuration: draw a constrained-random
// transaction, run the golden datapath, detect classes and coverage
// ("model": the model alone, the baseline of the output kinds), and format
// the stimulus and expected lines as hex ("hex") or binary records ("bin")
// (one worker, one block at a time, no file I/O or hashing). Reported as
// vectors/s and vectors/cpu-s (CPU time of the benchmark's thread).
func BenchmarkGenerateHPCC(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name         string
		text, binary bool
	}{{"model", false, false}, {"hex", true, false}, {"bin", true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := newPlan(m, Options{Count: MaxCount, Workers: 1, NoJSONL: true, Binary: bc.binary})
			if err != nil {
				b.Fatal(err)
			}
			w, err := p.newWorker()
			if err != nil {
				b.Fatal(err)
			}
			blk := &block{n: blockSize, in: make([]uint64, blockSize*p.iw), out: make([]uint64, blockSize*p.ow)}
			first := int64(len(p.dirLabel))
			defer lockThread()()
			b.ResetTimer()
			start, cpu0 := time.Now(), threadCPU()
			n := 0
			for n < b.N {
				blk.first = first + int64(n)
				if err := p.compute(w, blk, bc.text, false); err != nil {
					b.Fatal(err)
				}
				n += blockSize
			}
			b.ReportMetric(float64(n)/time.Since(start).Seconds(), "vectors/s")
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(n)/cpu.Seconds(), "vectors/cpu-s")
			}
			b.ReportMetric(float64(len(blk.stim)+len(blk.exp))/blockSize, "bytes/vector")
		})
	}
}

// BenchmarkModelSetHPCC measures the model alone on a whole default set,
// the baseline of vectors gen's ratio: the plan of vectors gen --count N
// (every level-1 directed vector enumerated, N = b.N random ones), every
// vector generated and evaluated with classes and coverage counted, on
// GOMAXPROCS workers, and nothing formatted, hashed or written. Reported as
// vectors/cpu-s and cpu-s (CPU time of the whole process over the set's
// vectors, directed and random) and vectors (the set's size).
func BenchmarkModelSetHPCC(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	p, err := newPlan(m, Options{Count: int64(max(b.N, 1)), NoJSONL: true})
	if err != nil {
		b.Fatal(err)
	}
	free := make(chan *block, 4*p.opts.Workers+2) // blocks recycled as GenerateDir does
	acc, err := p.run(false, func(first int64, n int) *block {
		var b *block
		select {
		case b = <-free:
		default:
			b = &block{in: make([]uint64, blockSize*p.iw), out: make([]uint64, blockSize*p.ow)}
		}
		b.first, b.n, b.err = first, n, nil
		b.in, b.out = b.in[:n*p.iw], b.out[:n*p.ow]
		return b
	}, func(*block) error { return nil }, func(b *block) {
		select {
		case free <- b:
		default:
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	cpu, wall := processCPU()-cpu0, time.Since(start)
	if acc.classHits == nil {
		b.Fatal("no coverage")
	}
	n := float64(p.last - p.first)
	b.ReportMetric(n/wall.Seconds(), "vectors/s")
	if cpu > 0 {
		b.ReportMetric(n/cpu.Seconds(), "vectors/cpu-s")
		b.ReportMetric(cpu.Seconds(), "cpu-s")
	}
	b.ReportMetric(n, "vectors")
}

// BenchmarkGenerateDirHPCC measures GenerateDir end to end (random vectors,
// hex files or binary records, plain or zstd-compressed, SHA-256 of every file, atomic writes), on
// one worker and on GOMAXPROCS workers. Reported as vectors/s (wall) and
// vectors/cpu-s (CPU time of the whole process: every worker, hashing and
// the kernel's writes).
func BenchmarkGenerateDirHPCC(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name    string
		workers int
		jsonl   bool
		binary  bool
		zstd    bool
	}{{"workers1", 1, false, false, false}, {"workersMax", 0, false, false, false}, {"workersMax_jsonl", 0, true, false, false},
		{"workersMax_bin", 0, false, true, false}, {"workersMax_zstd", 0, false, false, true}, {"workersMax_bin_zstd", 0, false, true, true}} {
		b.Run(bc.name, func(b *testing.B) {
			dir := b.TempDir()
			opts := Options{Classes: []string{"first_ack"}, Count: int64(max(b.N, 1)), Workers: bc.workers, NoJSONL: !bc.jsonl, Binary: bc.binary}
			if bc.zstd {
				opts.Compress = CompressZstd
			}
			b.ResetTimer()
			start, cpu0 := time.Now(), processCPU()
			man, err := GenerateDir(dir, m, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(opts.Count)/time.Since(start).Seconds(), "vectors/s")
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(opts.Count)/cpu.Seconds(), "vectors/cpu-s")
			}
			var bytes int64
			for _, f := range man.Files {
				bytes += f.Bytes
			}
			b.ReportMetric(float64(bytes)/float64(man.Count), "bytes/vector")
		})
	}
}

// BenchmarkGeneratePipeHPCC measures GeneratePipe (vectors gen --out -)
// end to end into io.Discard, hex and binary records, on GOMAXPROCS
// workers: random vectors, both files' SHA-256 and CRC-32C, the
// interleaved stream and its CRC-32C; what a real pipe adds is the
// kernel's copy. Reported as vectors/s (wall), vectors/cpu-s (CPU time of
// the whole process) and bytes/vector of the stream.
func BenchmarkGeneratePipeHPCC(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		binary bool
	}{{"hex", false}, {"bin", true}} {
		b.Run(bc.name, func(b *testing.B) {
			opts := Options{Classes: []string{"first_ack"}, Count: int64(max(b.N, 1)), NoJSONL: true, Binary: bc.binary}
			b.ResetTimer()
			start, cpu0 := time.Now(), processCPU()
			man, err := GeneratePipe(context.Background(), io.Discard, m, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(opts.Count)/time.Since(start).Seconds(), "vectors/s")
			if cpu := processCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(opts.Count)/cpu.Seconds(), "vectors/cpu-s")
			}
			b.ReportMetric(float64(man.Pipe.Bytes)/float64(man.Count), "bytes/vector")
		})
	}
}

// BenchmarkCheckHPCC measures Check on a 5-hop HPCC++ expected.hex against
// an identical DUT file (every line compared, golden file hashed), as
// lines/s.
func BenchmarkCheckHPCC(b *testing.B) {
	dir := b.TempDir()
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	const n = 200_000
	if _, err := GenerateDir(dir, m, Options{Classes: []string{"first_ack"}, Count: n - 10, NoJSONL: true}); err != nil {
		b.Fatal(err)
	}
	dut, err := os.ReadFile(filepath.Join(dir, ExpectedFile))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(dut)))
	defer lockThread()()
	b.ResetTimer()
	start, cpu0 := time.Now(), threadCPU()
	for i := 0; i < b.N; i++ {
		rep, err := CheckReader(dir, bytes.NewReader(dut), "dut", CheckOptions{})
		if err != nil || !rep.OK() || rep.Checked != n {
			b.Fatalf("%+v %v", rep, err)
		}
	}
	b.ReportMetric(float64(b.N)*n/time.Since(start).Seconds(), "lines/s")
	if cpu := threadCPU() - cpu0; cpu > 0 {
		b.ReportMetric(float64(b.N)*n/cpu.Seconds(), "lines/cpu-s")
	}
}

// BenchmarkHPCCStages measures, stage by stage, where one vector's CPU
// goes in the default 5-hop HPCC++ configuration: each stage runs alone
// over the same 4,096 constrained-random vectors (prepared once), so its
// figure is its own cost per vector (CPU time of the benchmark's thread,
// cpu-ns/vector): the random draw, packing the input, the golden
// datapath (Step, and StepTrace, the run generation makes when the
// constructed classes read its trace), packing the output, the observation, the detectors of
// the directed classes and of each constructed class (each on a fresh
// per-update cache, so each pays for the hop values it reads; "constructed"
// is all of them sharing one cache, as generation runs them), the hex
// lines, the binary records, and SHA-256 and CRC-32C of the hex lines.
func BenchmarkHPCCStages(b *testing.B) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	const n = 4096
	type vec struct {
		st, next hpcc.State
		in       hpcc.Input
		out      hpcc.Output
		o        hobs
		inW      []uint64
		outW     []uint64
	}
	vs := make([]vec, n)
	ev, _ := m.NewEvaluator()
	e := ev.(*hpccEval)
	hits := NewHits(len(m.classes), 1<<16)
	var hexBuf []byte
	for j := range vs {
		v := &vs[j]
		v.inW, v.outW = make([]uint64, m.in.Words()), make([]uint64, m.out.Words())
		if err := e.EvalRandom(NewRand(1, uint64(j)), v.inW, v.outW, hits); err != nil {
			b.Fatal(err)
		}
		v.o = e.o
		v.st, v.in, v.next, v.out = e.o.st, e.o.in, e.o.next, e.o.out
		hexBuf = append(appendHex(hexBuf, m.in, v.inW), '\n')
		hexBuf = append(appendHex(hexBuf, m.out, v.outW), '\n')
	}
	sc := &codecScratch{}
	var r Rand
	var buf []byte
	var tr hpcc.Trace
	stages := []struct {
		name string
		f    func(v *vec, j int)
	}{
		{"draw", func(v *vec, j int) { r.Reset(1, uint64(j)); m.randomStructs(&r, &v.st, &v.in) }},
		{"pack_in", func(v *vec, j int) { _ = m.packIn(sc, &v.st, &v.in, v.inW) }},
		{"step", func(v *vec, j int) { v.next = v.st; m.d.Step(&v.next, &v.in, &v.out) }},
		{"step_trace", func(v *vec, j int) { v.next = v.st; m.d.StepTrace(&v.next, &v.in, &v.out, &tr) }},
		{"pack_out", func(v *vec, j int) { _ = m.packOut(sc, &v.next, &v.out, v.outW) }},
		{"observe", func(v *vec, j int) { m.observe(&v.o) }},
		{"detect_directed", func(v *vec, j int) { cx := m.cx; m.cx = nil; m.detectAll(&v.o, hits); m.cx = cx }},
		{"constructed", func(v *vec, j int) { v.o.hvSet, v.o.urSet, v.o.wbSet = 0, false, false; m.cx.detect(&v.o, hits) }},
	}
	for _, c := range m.cx.classes {
		stages = append(stages, struct {
			name string
			f    func(v *vec, j int)
		}{"cx_" + c.name, func(v *vec, j int) {
			v.o.hvSet, v.o.urSet, v.o.wbSet = 0, false, false
			if !v.o.first {
				c.detect(&v.o)
			}
		}})
	}
	stages = append(stages, []struct {
		name string
		f    func(v *vec, j int)
	}{
		{"hex", func(v *vec, j int) { buf = appendHex(appendHex(buf[:0], m.in, v.inW), m.out, v.outW) }},
		{"bin", func(v *vec, j int) { buf = appendRecord(appendRecord(buf[:0], m.in, v.inW), m.out, v.outW) }},
	}...)
	per := len(hexBuf) / n
	for _, s := range stages {
		b.Run(s.name, func(b *testing.B) {
			defer lockThread()()
			b.ResetTimer()
			cpu0 := threadCPU()
			for i := 0; i < b.N; i++ {
				j := i % n
				s.f(&vs[j], j)
			}
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/vector")
			}
		})
	}
	sha := sha256.New()
	var crc uint32
	for _, s := range []struct {
		name string
		f    func(p []byte)
	}{{"sha256_hex", func(p []byte) { sha.Write(p) }}, {"crc32c_hex", func(p []byte) { crc = crc32.Update(crc, castagnoli, p) }}} {
		b.Run(s.name, func(b *testing.B) {
			defer lockThread()()
			b.SetBytes(int64(per))
			b.ResetTimer()
			cpu0 := threadCPU()
			for i := 0; i < b.N; i++ {
				j := i % n
				s.f(hexBuf[j*per : (j+1)*per])
			}
			if cpu := threadCPU() - cpu0; cpu > 0 {
				b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/vector")
			}
		})
	}
}
