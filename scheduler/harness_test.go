package scheduler

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
)

// The test bench: a driver that pushes scripted doorbells, updates and acks
// at given cycles; the scheduler; and a Tx sink that pops PktSend commands
// (at most one per cycle, optionally only from a given cycle on), logs them
// with their cycle, and, when rtt > 0, returns an Ack for each packet rtt
// cycles later through a TimedQueue (a loopback peer).

type cmd struct {
	at engine.Cycle
	d  *Doorbell
	u  *Update
	a  *Ack
}

type driver struct {
	script []cmd
	i      int
	p      Ports
}

func (d *driver) Tick(now engine.Cycle) bool {
	progress := false
	for d.i < len(d.script) && d.script[d.i].at <= now {
		c := d.script[d.i]
		ok := false
		switch {
		case c.d != nil:
			ok = d.p.Doorbells.Push(now, *c.d)
		case c.u != nil:
			ok = d.p.Updates.Push(now, *c.u)
		case c.a != nil:
			ok = d.p.Acks.Push(now, *c.a)
		}
		if !ok {
			break
		}
		d.i++
		progress = true
	}
	return progress
}

func (d *driver) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if d.i < len(d.script) && d.script[d.i].at > now {
		return d.script[d.i].at, true
	}
	return 0, false
}

type sent struct {
	at  engine.Cycle
	cmd PktSend
}

type txSink struct {
	in      *engine.FIFO[PktSend]
	acks    *engine.FIFO[Ack]
	wire    *engine.TimedQueue[Ack]
	rtt     engine.Cycle
	from    engine.Cycle // pop nothing before this cycle
	log     []sent
	ackedTo map[FlowID]uint64
}

func (t *txSink) Tick(now engine.Cycle) bool {
	progress := false
	if now >= t.from {
		if c, ok := t.in.Pop(now); ok {
			t.log = append(t.log, sent{now, c})
			progress = true
			if t.rtt > 0 {
				t.wire.Push(now, now+t.rtt, Ack{Flow: c.Flow, AckedBytes: c.Offset + uint64(c.Bytes)})
			}
		}
	}
	if t.rtt > 0 && t.acks.CanPush(now) {
		if a, ok := t.wire.Pop(now); ok {
			t.acks.Push(now, a)
			progress = true
		}
	}
	return progress
}

func (t *txSink) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	w := engine.Never
	if t.in.Visible(now) > 0 && t.from > now {
		w = t.from
	}
	if at, ok := t.wire.HeadAt(); ok && at > now {
		w = min(w, at)
	}
	if w == engine.Never {
		return 0, false
	}
	return w, true
}

type testBench struct {
	e    *engine.Engine
	s    *Scheduler
	tx   *txSink
	drv  *driver
	hook func(now engine.Cycle)
}

type benchOpts struct {
	noSkip   bool
	rtt      engine.Cycle
	sinkFrom engine.Cycle
	sendsCap int
}

func newTestBench(t testing.TB, cfg Config, script []cmd, o benchOpts) *testBench {
	t.Helper()
	e, err := engine.New(engine.Config{Freq: cfg.ClockHz, NoSkip: o.noSkip})
	if err != nil {
		t.Fatal(err)
	}
	capSends := o.sendsCap
	if capSends == 0 {
		capSends = 4
	}
	mk := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	var p Ports
	var e1, e2, e3, e4 error
	p.Doorbells, e1 = engine.NewFIFO[Doorbell]("doorbells", 64)
	p.Updates, e2 = engine.NewFIFO[Update]("updates", 64)
	p.Acks, e3 = engine.NewFIFO[Ack]("acks", 64)
	p.Sends, e4 = engine.NewFIFO[PktSend]("sends", capSends)
	mk(e1)
	mk(e2)
	mk(e3)
	mk(e4)
	s, err := New(cfg, p)
	mk(err)
	drv := &driver{script: script, p: p}
	tx := &txSink{in: p.Sends, acks: p.Acks, wire: engine.NewTimedQueue[Ack]("peer"), rtt: o.rtt, from: o.sinkFrom}
	dID, err := e.Add("driver", drv)
	mk(err)
	sID, err := e.Add("scheduler", s)
	mk(err)
	tID, err := e.Add("tx", tx)
	mk(err)
	mk(e.Connect(p.Doorbells, dID, sID))
	mk(e.Connect(p.Updates, dID, sID))
	// Acks has two producers (driver and sink); the sink's pushes wake the
	// scheduler the same way, so either ID works as producer.
	mk(e.Connect(p.Acks, tID, sID))
	mk(e.Connect(p.Sends, sID, tID))
	mk(e.Connect(tx.wire, tID, tID))
	return &testBench{e: e, s: s, tx: tx, drv: drv}
}

// run runs the bench until idle or limit and fails the test if the engine
// saw a component break its contract.
func (b *testBench) run(t testing.TB, limit engine.Cycle) {
	t.Helper()
	b.e.RunUntilIdle(limit)
	if u := b.e.Stats().UnexpectedProgress; u != 0 {
		t.Fatalf("engine UnexpectedProgress = %d", u)
	}
}

// sendsOf returns the send log restricted to one flow.
func (b *testBench) sendsOf(f FlowID) []sent {
	var r []sent
	for _, x := range b.tx.log {
		if x.cmd.Flow == f {
			r = append(r, x)
		}
	}
	return r
}

func (x sent) String() string {
	return fmt.Sprintf("%d:f%d+%d@%d", x.at, x.cmd.Flow, x.cmd.Bytes, x.cmd.Offset)
}

func db(at engine.Cycle, f FlowID, bytes uint64) cmd {
	return cmd{at: at, d: &Doorbell{Flow: f, Bytes: bytes}}
}

func rate(at engine.Cycle, f FlowID, r uint64) cmd {
	return cmd{at: at, u: &Update{Flow: f, Rate: r, SetRate: true}}
}

func win(at engine.Cycle, f FlowID, w uint64) cmd {
	return cmd{at: at, u: &Update{Flow: f, Window: w, SetWindow: true}}
}
