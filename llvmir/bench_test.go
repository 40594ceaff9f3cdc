package llvmir

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// benchSet is the workload of the HPCC++ benchmarks: the default
// configuration's golden vector set (every level-1 directed class plus
// 100 000 constrained-random vectors), its stimulus file, the unpacked Go
// inputs and the compiled check program. Built once per test binary.
type benchSet struct {
	cfg  hpcc.Config
	d    *hpcc.Datapath
	st   []hpcc.State
	in   []hpcc.Input
	stim string
	prog string
}

var (
	benchOnce sync.Once
	benchData *benchSet
	benchErr  error

	sharedOnce sync.Once
	sharedDir  string // removed by TestMain
	sharedErr  error
)

// sharedSubdir returns a directory under the test binary's shared
// temporary directory, for builds reused across tests.
func sharedSubdir(name string) (string, error) {
	sharedOnce.Do(func() { sharedDir, sharedErr = os.MkdirTemp("", "hpccgold-llvmir-test-") })
	if sharedErr != nil {
		return "", sharedErr
	}
	dir := filepath.Join(sharedDir, name)
	return dir, os.MkdirAll(dir, 0o755)
}

func loadBench(b *testing.B) *benchSet {
	tools := needTools(b)
	benchOnce.Do(func() {
		s := &benchSet{cfg: hpcc.DefaultConfig()}
		if s.d, benchErr = hpcc.NewDatapath(s.cfg); benchErr != nil {
			return
		}
		set, err := vectors.GenerateHPCC(s.cfg, vectors.Options{Level: 1, Seed: 1, Count: 100000, NoJSONL: true})
		if err != nil {
			benchErr = err
			return
		}
		for k := 0; k < set.Len(); k++ {
			st, in, err := s.d.UnpackInput(set.Input(k))
			if err != nil {
				benchErr = err
				return
			}
			s.st, s.in = append(s.st, st), append(s.in, in)
		}
		vdir, err := sharedSubdir("bench_vectors")
		if err != nil {
			benchErr = err
			return
		}
		if benchErr = set.Write(vdir); benchErr != nil {
			return
		}
		s.stim = filepath.Join(vdir, "stimulus.hex")
		m, err := hpccrtl.UpdateComb(s.cfg)
		if err != nil {
			benchErr = err
			return
		}
		md, err := Lower(m, Options{Groups: FlowUpdateGroups()})
		if err != nil {
			benchErr = err
			return
		}
		dir, err := sharedSubdir("bench_model")
		if err != nil {
			benchErr = err
			return
		}
		if _, benchErr = Emit(dir, md); benchErr != nil {
			return
		}
		s.prog, benchErr = tools.Build(context.Background(), dir, md, "-O2")
		benchData = s
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchData
}

// TestMain removes the shared directory of reused builds.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// threadCPU returns the CPU time (user + system) the calling OS thread has
// used: getrusage(RUSAGE_THREAD), RUSAGE_THREAD being 1 on Linux.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// goUpdates runs n golden-datapath updates cycling over the set and
// returns the CPU time of the (locked) thread that ran them, the measure
// the check program uses too, so other processes' load on a shared
// machine does not count.
func (s *benchSet) goUpdates(n int) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sink uint64
	t0 := threadCPU()
	for i, k := 0, 0; i < n; i++ {
		ns, out := s.d.Update(s.st[k], s.in[k])
		sink += ns.W ^ out.Rate
		if k++; k == len(s.st) {
			k = 0
		}
	}
	el := threadCPU() - t0
	if sink == 1 { // keep the results live
		println()
	}
	return el
}

// BenchmarkHPCCUpdate measures updates per second of the HPCC++ per-ACK
// update on the same golden vectors: "go" is the golden datapath
// (cc/hpcc.Datapath.Update on unpacked State/Input values), "llvm_c" and
// "llvm_dpi" the compiled LLVM IR through its plain C entry (structs) and
// its DPI-C entry (packed vectors), timed inside the check program (inputs
// unpacked beforehand, as for Go). updates/s is per CPU second of the
// timing thread on both sides; ns/op is wall time and, for the llvm
// entries, includes the program's start-up.
func BenchmarkHPCCUpdate(b *testing.B) {
	s := loadBench(b)
	b.Run("go", func(b *testing.B) {
		b.ResetTimer()
		el := s.goUpdates(b.N)
		b.ReportMetric(float64(b.N)/el.Seconds(), "updates/s")
	})
	for _, entry := range []string{"c", "dpi"} {
		b.Run("llvm_"+entry, func(b *testing.B) {
			rs, err := Bench(context.Background(), s.prog, int64(b.N), s.stim)
			if err != nil {
				b.Fatal(err)
			}
			for _, r := range rs {
				if r.Entry == entry {
					b.ReportMetric(r.UpdatesPerSec, "updates/s")
				}
			}
		})
	}
}

// BenchmarkHPCCUpdateRatio reports compiled-model updates/s divided by
// golden-datapath updates/s over the same vectors (goal: >= 1), both in
// CPU time of the timing thread. Go and the compiled model run alternately,
// five rounds of 1 M updates each, and each side's best round counts, so
// load from other processes on a shared machine does not decide the ratio.
// Run with -benchtime=1x.
func BenchmarkHPCCUpdateRatio(b *testing.B) {
	s := loadBench(b)
	const n, rounds = 1000000, 5
	for i := 0; i < b.N; i++ {
		best := map[string]float64{}
		for r := 0; r < rounds; r++ {
			best["go"] = max(best["go"], n/s.goUpdates(n).Seconds())
			rs, err := Bench(context.Background(), s.prog, n, s.stim)
			if err != nil {
				b.Fatal(err)
			}
			for _, x := range rs {
				best[x.Entry] = max(best[x.Entry], x.UpdatesPerSec)
			}
		}
		b.ReportMetric(best["go"], "go_updates/s")
		b.ReportMetric(best["c"], "llvm_c_updates/s")
		b.ReportMetric(best["c"]/best["go"], "llvm_c/go")
		b.ReportMetric(best["dpi"]/best["go"], "llvm_dpi/go")
	}
}

// BenchmarkRandomModuleVsSim compares the compiled model of a random
// 80-node module with rtl.Sim, the Go evaluator, on the same inputs.
func BenchmarkRandomModuleVsSim(b *testing.B) {
	tools := needTools(b)
	r := rand.New(rand.NewPCG(42, 42))
	m := randModule("rndbench", r, 80)
	md, prog := emitBuild(b, tools, m, Options{}, "-O2")
	stim, _ := simVectors(b, m, md, r, 1000)
	path := filepath.Join(filepath.Dir(prog), "bench.hex")
	if err := os.WriteFile(path, []byte(strings.Join(stim, "\n")+"\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("sim", func(b *testing.B) {
		sim, err := rtl.NewSim(m)
		if err != nil {
			b.Fatal(err)
		}
		ins := make([][]rtl.Bits, 1000)
		for k := range ins {
			for _, p := range sim.Module().Inputs {
				ins[k] = append(ins[k], randBits(r, p.Width))
			}
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			for j, v := range ins[i%len(ins)] {
				sim.SetIn(j, v)
			}
			sim.Eval()
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
	})
	b.Run("llvm_c", func(b *testing.B) {
		rs, err := Bench(context.Background(), prog, int64(b.N), path)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(rs[0].UpdatesPerSec, "updates/s")
	})
}
