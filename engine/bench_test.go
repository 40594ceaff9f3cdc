package engine

import (
	"fmt"
	"testing"
)

// relay moves one token per cycle from in to out; a ring of relays primed
// with tokens is busy in every cycle, which measures the engine's per-cycle
// and per-tick overhead including two FIFO operations per tick.
type relay struct {
	in, out *FIFO[uint64]
	moved   uint64
}

func (r *relay) Tick(now Cycle) bool {
	if !r.out.CanPush(now) {
		return false
	}
	v, ok := r.in.Pop(now)
	if !ok {
		return false
	}
	r.out.Push(now, v+1)
	r.moved++
	return true
}

func (r *relay) NextWake(Cycle) (Cycle, bool) { return 0, false }

func buildRing(b *testing.B, n int, noSkip bool) *Engine {
	e, err := New(Config{Freq: GHz, NoSkip: noSkip})
	if err != nil {
		b.Fatal(err)
	}
	fifos := make([]*FIFO[uint64], n)
	for i := range fifos {
		fifos[i], _ = NewFIFO[uint64](fmt.Sprint(i), 4)
	}
	ids := make([]ID, n)
	for i := range ids {
		ids[i], _ = e.Add(fmt.Sprint(i), &relay{in: fifos[i], out: fifos[(i+1)%n]})
	}
	for i := range fifos {
		if err := e.Connect(fifos[i], ids[(i+n-1)%n], ids[i]); err != nil {
			b.Fatal(err)
		}
		// Prime with two tokens per FIFO, visible in cycle 1 (the push wakes
		// the consumer then).
		fifos[i].Push(0, 0)
		fifos[i].Push(0, 0)
	}
	return e
}

// BenchmarkBusyCycles reports the cost of one busy cycle (every component
// ticks and moves a token) for rings of 1, 4 and 8 components; the custom
// metric Mcycles/s is busy cycles per second.
func BenchmarkBusyCycles(b *testing.B) {
	for _, n := range []int{1, 4, 8} {
		for _, noSkip := range []bool{false, true} {
			b.Run(fmt.Sprintf("components=%d/noskip=%v", n, noSkip), func(b *testing.B) {
				e := buildRing(b, n, noSkip)
				b.ResetTimer()
				e.Run(e.Now() + Cycle(b.N))
				b.StopTimer()
				if s := e.Stats(); s.Progress < uint64(b.N-1)*uint64(n) {
					b.Fatalf("ring not busy: %+v", s)
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcycles/s")
			})
		}
	}
}

// ticker wakes every period cycles through NextWake and does one unit of work.
type ticker struct {
	period, next Cycle
	n            uint64
}

func (t *ticker) Tick(now Cycle) bool {
	if now < t.next {
		return false
	}
	t.n++
	t.next = now + t.period
	return false
}

func (t *ticker) NextWake(Cycle) (Cycle, bool) { return t.next, true }

// BenchmarkIdleSkip reports simulated cycles per second when a component
// wakes once every 1000 cycles: idle cycles are skipped, so the cost is that
// of the wake-ups alone. One benchmark op is one wake-up (1000 cycles).
func BenchmarkIdleSkip(b *testing.B) {
	e, _ := New(Config{Freq: GHz})
	tk := &ticker{period: 1000}
	if _, err := e.Add("t", tk); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	e.Run(Cycle(b.N) * 1000)
	b.StopTimer()
	b.ReportMetric(float64(e.Stats().Cycles)/b.Elapsed().Seconds()/1e6, "Mcycles/s")
}

// BenchmarkTimedQueueLink reports the cost per delivered element of a link
// modelled as a TimedQueue (one push and one pop, consumer woken only at the
// delivery cycle) with 12 elements in flight.
func BenchmarkTimedQueueLink(b *testing.B) {
	e, _ := New(Config{Freq: GHz})
	tq := NewTimedQueue[uint64]("wire")
	lp := &loopback{q: tq, gap: 80, delay: 1000}
	id, _ := e.Add("lp", lp)
	if err := e.Connect(tq, id, id); err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		tq.Push(0, Cycle(1+80*i), 0)
	}
	b.ResetTimer()
	for lp.n < uint64(b.N) {
		e.Run(e.Now() + 1_000_000)
	}
	b.StopTimer()
	b.ReportMetric(float64(e.Stats().BusyCycles)/float64(lp.n), "executed-cycles/elem")
}

// loopback pops each delivered element and sends it again, arriving after
// delay+gap cycles.
type loopback struct {
	q          *TimedQueue[uint64]
	gap, delay Cycle
	n          uint64
}

func (l *loopback) Tick(now Cycle) bool {
	v, ok := l.q.Pop(now)
	if !ok {
		return false
	}
	l.n++
	l.q.Push(now, now+l.delay+l.gap, v+1)
	return true
}

func (l *loopback) NextWake(Cycle) (Cycle, bool) { return 0, false }

// spinner makes progress in every cycle and does nothing else.
type spinner struct{ n uint64 }

func (s *spinner) Tick(Cycle) bool              { s.n++; return true }
func (s *spinner) NextWake(Cycle) (Cycle, bool) { return 0, false }

// BenchmarkEngineOverhead reports the engine's own cost per busy cycle with
// 1, 4 and 16 components that make progress in every cycle and do no work
// (no queue operations): the floor under any model's per-cycle cost.
func BenchmarkEngineOverhead(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("components=%d", n), func(b *testing.B) {
			e, _ := New(Config{Freq: GHz})
			for i := 0; i < n; i++ {
				if _, err := e.Add("s", &spinner{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			e.Run(Cycle(b.N))
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mcycles/s")
		})
	}
}

// delay holds each token it takes from in for lat cycles, then passes it
// on; as a Sleeper (sleepy) it asks for the cycle its head is ready instead
// of being ticked in the cycle after each step.
type delay struct {
	in, out *FIFO[uint64]
	lat     Cycle
	ready   [8]Cycle // ring of held tokens' ready cycles, oldest at head
	vals    [8]uint64
	head, n int
}

func (d *delay) Tick(now Cycle) bool {
	p := false
	if d.n > 0 && d.ready[d.head] <= now && d.out.CanPush(now) {
		d.out.Push(now, d.vals[d.head])
		d.head, d.n = (d.head+1)&7, d.n-1
		p = true
	}
	if d.n < 8 {
		if v, ok := d.in.Pop(now); ok {
			i := (d.head + d.n) & 7
			d.ready[i], d.vals[i] = now+d.lat, v
			d.n++
			p = true
		}
	}
	return p
}

func (d *delay) NextWake(now Cycle) (Cycle, bool) {
	if d.n > 0 && d.ready[d.head] > now {
		return d.ready[d.head], true
	}
	return 0, false
}

type sleepyDelay struct{ *delay }

func (d sleepyDelay) SleepUntil(now Cycle) (Cycle, bool) {
	if d.in.Len() > 0 && d.n < 8 {
		return now + 1, true
	}
	if d.n > 0 {
		return max(d.ready[d.head], now+1), true
	}
	return 0, false
}

// pacer pushes a token every gap cycles; drain pops whatever arrives.
type pacer struct {
	out  *FIFO[uint64]
	gap  Cycle
	next Cycle
	n    uint64
}

func (p *pacer) Tick(now Cycle) bool {
	if now < p.next || !p.out.CanPush(now) {
		return false
	}
	p.out.Push(now, p.n)
	p.n++
	p.next = now + p.gap
	return true
}

func (p *pacer) NextWake(now Cycle) (Cycle, bool) { return max(p.next, now+1), true }

type drain struct {
	in *FIFO[uint64]
	n  uint64
}

func (d *drain) Tick(now Cycle) bool {
	if _, ok := d.in.Pop(now); ok {
		d.n++
		return true
	}
	return false
}

func (d *drain) NextWake(Cycle) (Cycle, bool) { return 0, false }

// BenchmarkSleeper runs a token every 20 cycles through four pipeline
// stages of latency 4 (a source, the stages, a sink), with the stages as
// plain components and as Sleepers; one op is one token through the chain.
// It reports ticks per token: a plain stage is ticked again in the cycle
// after each step, a Sleeper only when its head is due.
func BenchmarkSleeper(b *testing.B) {
	for _, sleepy := range []bool{false, true} {
		b.Run(fmt.Sprintf("sleeper=%v", sleepy), func(b *testing.B) {
			e, _ := New(Config{Freq: GHz})
			q := make([]*FIFO[uint64], 5)
			for i := range q {
				q[i], _ = NewFIFO[uint64](fmt.Sprint(i), 4)
			}
			ids := make([]ID, 6)
			ids[0], _ = e.Add("src", &pacer{out: q[0], gap: 20})
			for i := 0; i < 4; i++ {
				d := &delay{in: q[i], out: q[i+1], lat: 4}
				var c Component = d
				if sleepy {
					c = sleepyDelay{d}
				}
				ids[i+1], _ = e.Add(fmt.Sprint("stage", i), c)
			}
			sink := &drain{in: q[4]}
			ids[5], _ = e.Add("sink", sink)
			for i := range q {
				if err := e.Connect(q[i], ids[i], ids[i+1]); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for sink.n < uint64(b.N) {
				e.Run(e.Now() + 20*Cycle(b.N-int(sink.n)) + 100)
			}
			b.StopTimer()
			s := e.Stats()
			b.ReportMetric(float64(s.Ticks)/float64(sink.n), "ticks/token")
			b.ReportMetric(float64(s.BusyCycles)/float64(sink.n), "executed-cycles/token")
		})
	}
}
