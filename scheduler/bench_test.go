package scheduler

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// benchScheduler builds a scheduler driven by a fake clock with n flows
// backlogged with endless messages and unlimited windows, on a 10 Tbit/s
// port (a 1082-byte packet every 0.87 cycles, so the line-rate limiter lets
// a decision happen in nearly every cycle). paced sets each flow's rate to
// 1/n of the line, so flows wait in the pacing calendar between packets and
// one becomes eligible per cycle.
func benchScheduler(b *testing.B, n int, arb Arbiter, paced bool) (*Scheduler, *engine.FIFO[PktSend], engine.Cycle) {
	cfg := DefaultConfig()
	cfg.Flows = n
	cfg.Arbiter = arb
	cfg.LineRateBps = MaxLineRateBps
	cfg.InitRateBps = MaxLineRateBps
	cfg.WindowFormat = fixedpoint.MustFormat("u64.56")
	cfg.InitWindowBytes = 1 << 55
	cfg.RateFormat = fixedpoint.MustFormat("u40.16")
	var p Ports
	p.Doorbells, _ = engine.NewFIFO[Doorbell]("db", n)
	p.Updates, _ = engine.NewFIFO[Update]("up", n)
	p.Sends, _ = engine.NewFIFO[PktSend]("sends", 2)
	s, err := New(cfg, p)
	if err != nil {
		b.Fatal(err)
	}
	// Rate raw in u40.16 bytes/ns: (10 Tbit/s / 8 / n) bytes/ns * 2^24.
	perFlow := uint64(MaxLineRateBps/8/1_000_000_000) << 24 / uint64(n)
	for f := 0; f < n; f++ {
		p.Doorbells.Push(0, Doorbell{Flow: FlowID(f), Bytes: 1 << 50})
		if paced {
			p.Updates.Push(0, Update{Flow: FlowID(f), Rate: perFlow, SetRate: true})
		}
	}
	now := engine.Cycle(1)
	for ; p.Doorbells.Len() > 0 || p.Updates.Len() > 0; now++ {
		s.Tick(now)
		p.Sends.Pop(now)
	}
	return s, p.Sends, now
}

// BenchmarkDecision reports the cost of one scheduling decision (one PktSend)
// with 1 and 1,000 active flows, all eligible ("ready") or each paced at 1/n
// of the line ("paced", exercising the pacing calendar), for both arbiters.
// ns/op is per decision; cycles/decision shows how many scheduler cycles
// each decision took (1 means a decision every cycle).
func BenchmarkDecision(b *testing.B) {
	for _, n := range []int{1, 1000} {
		for _, arb := range []Arbiter{RoundRobin, DWRR} {
			for _, paced := range []bool{false, true} {
				if n == 1 && paced {
					continue
				}
				mode := "ready"
				if paced {
					mode = "paced"
				}
				b.Run(fmt.Sprintf("flows=%d/%v/%s", n, arb, mode), func(b *testing.B) {
					s, sends, now := benchScheduler(b, n, arb, paced)
					start := s.Counters().PktSends
					c0 := now
					b.ResetTimer()
					for s.Counters().PktSends-start < uint64(b.N) {
						s.Tick(now)
						sends.Pop(now)
						now++
					}
					b.StopTimer()
					b.ReportMetric(float64(now-c0)/float64(b.N), "cycles/decision")
				})
			}
		}
	}
}
