package engine_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
)

// producer sends one number every 100 cycles, three times.
type producer struct {
	out  *engine.FIFO[int]
	next engine.Cycle
	n    int
}

func (p *producer) Tick(now engine.Cycle) bool {
	if p.n == 3 || now < p.next || !p.out.CanPush(now) {
		return false
	}
	p.out.Push(now, p.n)
	p.n++
	p.next = now + 100
	return true
}

func (p *producer) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if p.n < 3 && p.next > now {
		return p.next, true
	}
	return 0, false
}

// consumer prints what it receives, with the cycle and time.
type consumer struct {
	in *engine.FIFO[int]
	f  engine.Freq
}

func (c *consumer) Tick(now engine.Cycle) bool {
	v, ok := c.in.Pop(now)
	if ok {
		fmt.Printf("cycle %d (%d ns): got %d\n", now, c.f.NS(now), v)
	}
	return ok
}

func (c *consumer) NextWake(engine.Cycle) (engine.Cycle, bool) { return 0, false }

// Two components joined by a FIFO: a push in cycle n is seen in cycle n+1,
// and the idle cycles between pushes are skipped: each push costs three
// executed cycles (the push, the pop, and the consumer finding nothing more).
func Example() {
	e, _ := engine.New(engine.Config{Freq: 500 * engine.MHz})
	q, _ := engine.NewFIFO[int]("q", 2)
	p := &producer{out: q}
	c := &consumer{in: q, f: e.Freq()}
	pid, _ := e.Add("producer", p)
	cid, _ := e.Add("consumer", c)
	_ = e.Connect(q, pid, cid)
	e.RunUntilIdle(1_000_000)
	s := e.Stats()
	fmt.Printf("idle at cycle %d after executing %d of %d cycles\n", e.Now(), s.BusyCycles, s.Cycles)
	// Output:
	// cycle 1 (2 ns): got 0
	// cycle 101 (202 ns): got 1
	// cycle 201 (402 ns): got 2
	// idle at cycle 203 after executing 9 of 203 cycles
}
