package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFIFOTwoPhase checks the clock-edge rules of FIFO step by step with a
// fake clock; the expected values follow from the two rules in the FIFO doc
// (a push in cycle n is visible from n+1; a slot freed in n is usable from
// n+1).
func TestFIFOTwoPhase(t *testing.T) {
	f, err := NewFIFO[int]("q", 2)
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		now     Cycle
		op      string // "push v", "pop", or "check"
		v       int
		ok      bool // result of the op
		visible int  // Visible(now) after the op
		free    int  // Free(now) after the op
		level   int  // Len() after the op
	}
	steps := []step{
		{0, "push", 1, true, 0, 1, 1},   // staged, not visible in cycle 0
		{0, "pop", 0, false, 0, 1, 1},   // nothing visible yet
		{1, "check", 0, true, 1, 1, 1},  // visible from cycle 1
		{1, "push", 2, true, 1, 0, 2},   // full now
		{1, "push", 3, false, 1, 0, 2},  // rejected: full
		{2, "pop", 1, true, 1, 0, 1},    // pop in cycle 2: slot not usable until 3
		{2, "push", 3, false, 1, 0, 1},  // still rejected in cycle 2
		{3, "check", 0, true, 1, 1, 1},  // slot usable in cycle 3
		{3, "push", 3, true, 1, 0, 2},   // accepted
		{3, "pop", 2, true, 0, 0, 1},    // 2 visible; 3 staged
		{4, "pop", 3, true, 0, 1, 0},    // 3 visible in cycle 4; slot from 3's pop free now
		{9, "check", 0, true, 0, 2, 0},  // empty, all free
		{9, "push", 4, true, 0, 1, 1},   //
		{9, "push", 5, true, 0, 0, 2},   // two pushes in one cycle
		{10, "check", 0, true, 2, 0, 2}, // both visible
	}
	for i, s := range steps {
		var ok bool
		switch s.op {
		case "push":
			ok = f.Push(s.now, s.v)
		case "pop":
			var v int
			v, ok = f.Pop(s.now)
			if ok && v != s.v {
				t.Errorf("step %d: Pop(%d) = %d, want %d", i, s.now, v, s.v)
			}
		case "check":
			ok = true
		}
		if ok != s.ok {
			t.Errorf("step %d: %s in cycle %d: ok = %v, want %v", i, s.op, s.now, ok, s.ok)
		}
		if got := f.Visible(s.now); got != s.visible {
			t.Errorf("step %d: Visible(%d) = %d, want %d", i, s.now, got, s.visible)
		}
		if got := f.Free(s.now); got != s.free {
			t.Errorf("step %d: Free(%d) = %d, want %d", i, s.now, got, s.free)
		}
		if got := f.Len(); got != s.level {
			t.Errorf("step %d: Len() = %d, want %d", i, got, s.level)
		}
	}
	pushes, pops, rejects := f.Counts()
	if pushes != 5 || pops != 3 || rejects != 2 || f.MaxLevel() != 2 {
		t.Errorf("Counts = %d, %d, %d, MaxLevel %d; want 5, 3, 2, 2", pushes, pops, rejects, f.MaxLevel())
	}
}

// TestFIFOOrderIndependent checks that a producer and a consumer sharing a
// FIFO get the same per-cycle results whichever ticks first in each cycle
// (the reason for two-phase semantics). Oracle: the two orders against each
// other, over several capacities and producer/consumer rhythms.
func TestFIFOOrderIndependent(t *testing.T) {
	run := func(capacity int, consumerFirst bool, prodEvery, consEvery int) []string {
		f, err := NewFIFO[int]("q", capacity)
		if err != nil {
			t.Fatal(err)
		}
		var log []string
		next := 0
		for c := Cycle(0); c < 200; c++ {
			produce := func() {
				if int(c)%prodEvery == 0 && f.CanPush(c) {
					f.Push(c, next)
					log = append(log, fmt.Sprintf("%d push %d", c, next))
					next++
				}
			}
			consume := func() {
				if int(c)%consEvery == 0 {
					if v, ok := f.Pop(c); ok {
						log = append(log, fmt.Sprintf("%d pop %d", c, v))
					}
				}
			}
			if consumerFirst {
				consume()
				produce()
			} else {
				produce()
				consume()
			}
		}
		slices.Sort(log) // within a cycle the two orders interleave differently
		return log
	}
	for _, capacity := range []int{1, 2, 5} {
		for _, r := range [][2]int{{1, 1}, {1, 3}, {3, 1}, {2, 5}} {
			a := run(capacity, false, r[0], r[1])
			b := run(capacity, true, r[0], r[1])
			if !slices.Equal(a, b) {
				t.Errorf("cap %d rhythm %v: producer-first and consumer-first differ", capacity, r)
			}
		}
	}
}

// TestFIFOCapacityValidate checks the capacity range and error text.
func TestFIFOCapacityValidate(t *testing.T) {
	if _, err := NewFIFO[int]("rx", 0); err == nil || err.Error() != `engine: FIFO "rx": capacity=0: must be in [1, 1073741824]` {
		t.Errorf("NewFIFO(0) error = %v", err)
	}
	if f, err := NewFIFO[int]("rx", 3); err != nil || f.Cap() != 3 || f.Name() != "rx" {
		t.Errorf("NewFIFO(3) = %v, %v", f, err)
	}
}

// TestTimedQueue checks ordering by visibility cycle, stable order among
// equal cycles, and that at <= now is raised to now+1. Expected order worked
// out by hand from the pushes below.
func TestTimedQueue(t *testing.T) {
	q := NewTimedQueue[string]("link")
	q.Push(0, 10, "a")
	q.Push(0, 5, "b")
	q.Push(1, 10, "c") // same cycle as a: after a
	q.Push(2, 0, "d")  // raised to 3
	q.Push(2, 5, "e")  // after b
	if at, ok := q.HeadAt(); !ok || at != 3 {
		t.Fatalf("HeadAt = %d, %v; want 3", at, ok)
	}
	want := []struct {
		at Cycle
		v  string
	}{{3, "d"}, {5, "b"}, {5, "e"}, {10, "a"}, {10, "c"}}
	now := Cycle(2)
	for _, w := range want {
		if w.at-1 >= now {
			if v, ok := q.Pop(w.at - 1); ok {
				t.Fatalf("Pop(%d) returned %q, due at %d", w.at-1, v, w.at)
			}
		}
		now = w.at
		v, ok := q.Pop(now)
		if !ok || v != w.v {
			t.Errorf("Pop(%d) = %q, %v; want %q", now, v, ok, w.v)
		}
	}
	if q.Len() != 0 || q.MaxLevel() != 5 {
		t.Errorf("Len %d MaxLevel %d; want 0, 5", q.Len(), q.MaxLevel())
	}
	if _, ok := q.HeadAt(); ok {
		t.Error("HeadAt on empty queue reported an element")
	}
}

// TestFIFOFrontDiscard checks Front and Discard against Peek and Pop: two
// FIFOs receive the same random pushes, one is drained with Pop, the other
// with Front (which must point at the element Peek returns) then Discard;
// every result, level, free count and counter must agree in every cycle.
// Oracle: Peek/Pop, themselves checked by TestFIFOTwoPhase.
func TestFIFOFrontDiscard(t *testing.T) {
	a, _ := NewFIFO[[4]int]("a", 3)
	b, _ := NewFIFO[[4]int]("b", 3)
	rng := uint64(12345)
	next := func() uint64 { rng = rng*6364136223846793005 + 1442695040888963407; return rng >> 33 }
	for now := Cycle(0); now < 2000; now++ {
		for k := next() % 3; k > 0; k-- {
			v := [4]int{int(now), int(k), int(next()), 0}
			if pa, pb := a.Push(now, v), b.Push(now, v); pa != pb {
				t.Fatalf("cycle %d: Push %v vs %v", now, pa, pb)
			}
		}
		for k := next() % 3; k > 0; k-- {
			pv, pok := a.Peek(now)
			fp := b.Front(now)
			if pok != (fp != nil) || pok && *fp != pv {
				t.Fatalf("cycle %d: Peek = %v, %v; Front = %v", now, pv, pok, fp)
			}
			v, ok := a.Pop(now)
			if d := b.Discard(now); d != ok || ok && v != pv {
				t.Fatalf("cycle %d: Pop = %v, %v; Discard = %v", now, v, ok, d)
			}
		}
		ap, aq, ar := a.Counts()
		bp, bq, br := b.Counts()
		if a.Visible(now) != b.Visible(now) || a.Free(now) != b.Free(now) || a.Len() != b.Len() ||
			ap != bp || aq != bq || ar != br || a.MaxLevel() != b.MaxLevel() {
			t.Fatalf("cycle %d: state differs", now)
		}
	}
	if b.Front(2000) != nil && b.Len() == 0 {
		t.Fatal("Front of an empty FIFO")
	}
}

// TestFIFODiscardWakesProducer checks that Discard, like Pop, wakes the
// producer of a full FIFO in the next cycle: a producer that filled the
// FIFO and made no progress since is ticked again exactly once, in the cycle
// after the consumer discarded an element.
func TestFIFODiscardWakesProducer(t *testing.T) {
	e, _ := New(Config{Freq: GHz})
	f, _ := NewFIFO[int]("q", 1)
	p := &pusher{f: f}
	pid, _ := e.Add("p", p)
	if err := e.Connect(f, pid, NoID); err != nil {
		t.Fatal(err)
	}
	e.Run(10)
	if len(p.ticks) != 2 || p.ticks[0] != 0 || p.ticks[1] != 1 {
		t.Fatalf("producer ticked in %v, want [0 1] (push, then blocked)", p.ticks)
	}
	if !f.Discard(10) {
		t.Fatal("Discard found nothing")
	}
	e.Run(20)
	if len(p.ticks) != 4 || p.ticks[2] != 11 || p.ticks[3] != 12 {
		t.Fatalf("producer ticked in %v, want [0 1 11 12] (woken in 11 by the discard in 10)", p.ticks)
	}
}

// pusher pushes into f whenever it can.
type pusher struct {
	f     *FIFO[int]
	ticks []Cycle
}

func (p *pusher) Tick(now Cycle) bool {
	p.ticks = append(p.ticks, now)
	return p.f.Push(now, int(now))
}

func (p *pusher) NextWake(Cycle) (Cycle, bool) { return 0, false }

// TestTimedQueueOrderProperty drives a TimedQueue with random pushes,
// mostly in order of visibility cycle (the in-order ring) with some earlier
// ones (the heap), and pops, and checks every pop, HeadAt and Len against
// an oracle: the pending elements kept in a slice, the next one being the
// earliest cycle, ties in push order (the rule in the TimedQueue doc). (The
// consumer's wake-ups are covered by the engine's equivalence tests, whose
// link feeds a TimedQueue.)
func TestTimedQueueOrderProperty(t *testing.T) {
	type el struct {
		at  Cycle
		seq int
	}
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		q := NewTimedQueue[int]("q")
		var ref []el
		seq := 0
		last := Cycle(0)
		now := Cycle(0)
		for step := 0; step < 2000; step++ {
			switch r := rng.IntN(10); {
			case r < 5: // push, mostly in order
				at := last + Cycle(rng.IntN(4))
				if rng.IntN(5) == 0 {
					at = now + Cycle(rng.IntN(20))
				}
				if at <= now {
					at = now + 1
				}
				last = max(last, at)
				q.Push(now, at, seq)
				ref = append(ref, el{at, seq})
				seq++
			case r < 8: // pop
				best := -1
				for i, e := range ref {
					if e.at <= now && (best < 0 || e.at < ref[best].at || e.at == ref[best].at && e.seq < ref[best].seq) {
						best = i
					}
				}
				v, ok := q.Pop(now)
				if ok != (best >= 0) || ok && v != ref[best].seq {
					t.Fatalf("seed %d step %d: Pop(%d) = %d, %v; want %v", seed, step, now, v, ok, ref[best:][:min(1, len(ref)-max(best, 0))])
				}
				if ok {
					ref = append(ref[:best], ref[best+1:]...)
				}
			default:
				now += Cycle(rng.IntN(3))
			}
			var want Cycle = Never
			for _, e := range ref {
				want = min(want, e.at)
			}
			if at, ok := q.HeadAt(); at != want || ok != (len(ref) > 0) || q.Len() != len(ref) {
				t.Fatalf("seed %d step %d: HeadAt %d, %v, Len %d; want %d, %d", seed, step, at, ok, q.Len(), want, len(ref))
			}
		}
	}
}

// TestTimedQueueTieOrderProperty is TestTimedQueueOrderProperty for
// PushTie: producers on four ports push elements with ties port<<48 |
// per-port sequence, in an order unrelated to the ties, and every pop,
// HeadAt and Len is checked against the oracle: the pending elements in a
// slice, the next one being the earliest cycle, ties in ascending tie order
// (the rule in PushTie's doc), whatever the push order.
func TestTimedQueueTieOrderProperty(t *testing.T) {
	type el struct {
		at  Cycle
		tie uint64
	}
	for seed := uint64(1); seed <= 30; seed++ {
		rng := rand.New(rand.NewPCG(seed, 11))
		q := NewTimedQueue[uint64]("q")
		var ref []el
		var seq [4]uint64
		var last [4]Cycle
		now := Cycle(0)
		for step := 0; step < 2000; step++ {
			switch r := rng.IntN(10); {
			case r < 5: // push on a random port, in order per port
				p := rng.IntN(4)
				at := max(last[p], now+1) + Cycle(rng.IntN(3))
				last[p] = at
				tie := uint64(p)<<48 | seq[p]
				seq[p]++
				q.PushTie(now, at, tie, tie)
				ref = append(ref, el{at, tie})
			case r < 8: // pop
				best := -1
				for i, e := range ref {
					if e.at <= now && (best < 0 || e.at < ref[best].at || e.at == ref[best].at && e.tie < ref[best].tie) {
						best = i
					}
				}
				v, ok := q.Pop(now)
				if ok != (best >= 0) || ok && v != ref[best].tie {
					t.Fatalf("seed %d step %d: Pop(%d) = %#x, %v; want %v", seed, step, now, v, ok, ref[best:][:min(1, len(ref)-max(best, 0))])
				}
				if ok {
					ref = append(ref[:best], ref[best+1:]...)
				}
			default:
				now += Cycle(rng.IntN(3))
			}
			var want Cycle = Never
			for _, e := range ref {
				want = min(want, e.at)
			}
			if at, ok := q.HeadAt(); at != want || ok != (len(ref) > 0) || q.Len() != len(ref) {
				t.Fatalf("seed %d step %d: HeadAt %d, %v, Len %d; want %d, %d", seed, step, at, ok, q.Len(), want, len(ref))
			}
		}
	}
}

// popRecorder pops its TimedQueue whenever ticked and records the cycle of
// every element it took.
type popRecorder struct {
	q   *TimedQueue[int]
	got []Cycle
}

func (r *popRecorder) Tick(now Cycle) bool {
	p := false
	for {
		if _, ok := r.q.Pop(now); !ok {
			return p
		}
		p = true
		r.got = append(r.got, now)
	}
}

func (r *popRecorder) NextWake(Cycle) (Cycle, bool) { return Never, false }

// TestPushTieBetweenRuns: an element pushed with PushTie between runs, with
// the cycle it was sent in (earlier than the engine's current cycle, as a
// frame from another partition delivered at a window barrier), wakes the
// consumer at exactly its visibility cycle, also when that is the engine's
// current cycle (oracle: the visibility cycles chosen).
func TestPushTieBetweenRuns(t *testing.T) {
	e, err := New(Config{Freq: 1_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	r := &popRecorder{q: NewTimedQueue[int]("in")}
	id, err := e.Add("rec", r)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Connect(r.q, NoID, id); err != nil {
		t.Fatal(err)
	}
	e.Run(100)
	r.q.PushTie(40, 130, 2, 0) // sent at 40, visible at 130
	r.q.PushTie(60, 100, 1, 0) // sent at 60, visible now (100)
	r.q.PushTie(99, 130, 1, 0)
	e.Run(200)
	want := []Cycle{100, 130, 130}
	if !slices.Equal(r.got, want) {
		t.Fatalf("pops at %v, want %v", r.got, want)
	}
}
