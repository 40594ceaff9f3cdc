package nicmodel

import (
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Benchmarks of the whole NIC (go test -bench . ./nicmodel). Each runs two
// NICs back to back (sender A, receiver B, 1 us links, per-packet ACKs,
// sender-based HPCC++ on the golden datapath) and reports:
//
//	sim-cycles/s   simulated cycles per wall second (idle cycles skipped)
//	busy-cycles/s  executed (non-idle) engine cycles per wall second
//	ns/pkt         wall time per data packet, all of its work on both
//	               NICs included: A's scheduler, PktSend register, Tx and
//	               MAC; B's MAC, Rx, Tx (the ACK) and MAC; A's MAC, Rx and
//	               HPCC++ module
//	pkts/s         data packets per wall second
//	cpu-ns/pkt     process CPU time (user + system, all threads: GC
//	               included) per data packet, from getrusage: on a shared
//	               machine this is the load-independent figure
//	busy-cycles/cpu-s  executed cycles per CPU second
//	sim-cycles/cpu-s   simulated cycles (executed or skipped) per CPU second
//
// Each iteration builds the two NICs with the timer stopped and then runs a
// garbage collection, so that the collection of what the set-up allocated
// (the datapath's reciprocal tables, the QP tables) is not charged to the
// run that follows.

// cpuTime returns the process's user + system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runBench(b *testing.B, flows int, bytesPerFlow uint64, cc CCMode) {
	runBenchCfg(b, flows, bytesPerFlow, testConfig(cc))
}

func runBenchCfg(b *testing.B, flows int, bytesPerFlow uint64, cfg Config) {
	b.Helper()
	cfg.QPs = flows + 1
	cfg.FIFOs.Posts = flows + 1
	var busy, cycles, pkts uint64
	var wall, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bn := newBench(b, benchOpts{cfgA: cfg, cfgB: cfg, flows: flows, delay: 1000})
		bn.ab.rec, bn.ba.rec = false, false
		for q := 1; q <= flows; q++ {
			bn.open(b, wire.QPN(q), bytesPerFlow, 0)
		}
		runtime.GC()
		b.StartTimer()
		t0, c0 := time.Now(), cpuTime()
		if !bn.e.RunUntilIdle(engine.Never - 1) {
			b.Fatal("not idle")
		}
		wall += time.Since(t0)
		cpu += cpuTime() - c0
		st := bn.e.Stats()
		busy += st.BusyCycles
		cycles += st.Cycles
		c := bn.a.Counters()
		pkts += c.Scheduler.PktSends
		if len(bn.a.Completed()) != flows {
			b.Fatalf("%d of %d flows completed", len(bn.a.Completed()), flows)
		}
	}
	s := wall.Seconds()
	b.ReportMetric(float64(cycles)/s, "sim-cycles/s")
	b.ReportMetric(float64(busy)/s, "busy-cycles/s")
	b.ReportMetric(float64(wall.Nanoseconds())/float64(pkts), "ns/pkt")
	b.ReportMetric(float64(pkts)/s, "pkts/s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(pkts), "cpu-ns/pkt")
	b.ReportMetric(float64(busy)/cpu.Seconds(), "busy-cycles/cpu-s")
	b.ReportMetric(float64(cycles)/cpu.Seconds(), "sim-cycles/cpu-s")
}

// BenchmarkOneFlow: one 4 MB flow (4000 packets) at 100 Gbit/s.
func BenchmarkOneFlow(b *testing.B) { runBench(b, 1, 4_000_000, CCHPCC) }

// BenchmarkThousandFlows: 1000 concurrent flows of 20 packets each sharing
// the port (round-robin arbitration), every QP's HPCC++ state in use.
func BenchmarkThousandFlows(b *testing.B) { runBench(b, 1000, 20_000, CCHPCC) }

// BenchmarkOneFlowRxHPCC: one 4 MB flow with receiver-based HPCC and
// delayed ACKs every 8 packets.
func BenchmarkOneFlowRxHPCC(b *testing.B) {
	b.Helper()
	runBench(b, 1, 4_000_000, CCHPCCRx)
}

// BenchmarkOneFlowNoINT: one 4 MB flow with congestion control off and
// no telemetry, so the link does no switch work (no decode, hop push or
// ICRC recomputation): the NICs' own cost per packet.
func BenchmarkOneFlowNoINT(b *testing.B) {
	cfg := testConfig(CCNone)
	cfg.Tx.INTOnData = false
	runBenchCfg(b, 1, 4_000_000, cfg)
}

// BenchmarkIdle measures the cost of idle cycles: a single packet every
// 10 ms of simulated time, so almost every cycle is skipped.
func BenchmarkIdle(b *testing.B) {
	cfg := testConfig(CCHPCC)
	var cycles uint64
	var wall time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		bn := newBench(b, benchOpts{cfgA: cfg, cfgB: cfg, flows: 1, delay: 1000})
		bn.ab.rec, bn.ba.rec = false, false
		for k := 0; k < 10; k++ {
			bn.open(b, 1, 1000, engine.Cycle(k)*10_000_000)
		}
		b.StartTimer()
		t0 := time.Now()
		bn.e.RunUntilIdle(engine.Never - 1)
		wall += time.Since(t0)
		cycles += bn.e.Stats().Cycles
	}
	b.ReportMetric(float64(cycles)/wall.Seconds(), "sim-cycles/s")
}
