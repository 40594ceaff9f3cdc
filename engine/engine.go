package engine

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/queue"
)

// Component is a cycle-stepped block of a model. It owns its state and talks
// to other components only through the queues of this package.
//
// Contract (what lets the engine skip cycles without changing results):
//   - Tick(now) executes cycle now and returns true when it changed any state
//     (including any Push or Pop on a queue). Returning false promises that
//     nothing changed, so that ticking it again with the same inputs in a
//     later cycle, before NextWake, would also change nothing.
//   - NextWake(now), asked after a Tick that returned false, returns the
//     earliest cycle > now at which Tick could make progress through the
//     passage of time alone (a timer expiring, a pacer earning a token), and
//     false when only new input can wake it. Input arriving (a push into one
//     of its input queues, a slot freed in a full output FIFO) wakes it
//     without NextWake. A wake earlier than needed costs one spurious Tick; a
//     wake later than needed changes results, which the NoSkip cross-check
//     (Stats.UnexpectedProgress) detects.
type Component interface {
	Tick(now Cycle) bool
	NextWake(now Cycle) (Cycle, bool)
}

// Sleeper is an optional interface of a [Component] that can tell, right
// after a Tick that made progress, when it next needs to be ticked.
// Without it, a component that made progress in cycle n is due in cycle n+1
// (it may have more to do), which costs a Tick that finds nothing to do
// whenever the work it just did leaves it waiting: a pipeline stage that
// took an entry it holds for L cycles, a transmitter that started a frame.
//
// SleepUntil(now) is asked only after a Tick(now) that returned true. It
// returns the earliest cycle > now at which Tick could make progress
// without new input arriving, with the meaning NextWake has after a Tick
// that made no progress, but counting the work the component already has:
// (now+1, true) when it may have more to do in the next cycle (input left
// in a queue it reads, a stage head ready, a stall that may clear); a later
// cycle for a timer; false when only new input (a queue's wake-up) can let
// it progress. A cycle earlier than needed costs one Tick that returns
// false; a later one changes results, which the NoSkip cross-check
// (Stats.UnexpectedProgress) detects as for NextWake.
type Sleeper interface {
	SleepUntil(now Cycle) (Cycle, bool)
}

// ID names a component registered with an [Engine]; IDs are 0, 1, 2, ... in
// registration order, which is also the order of ticking within a cycle.
type ID int32

// NoID marks a queue end that is not a registered component (a test driver
// outside the engine). Queues never wake NoID.
const NoID ID = -1

// Config sets up an [Engine].
type Config struct {
	// Freq is the clock frequency, used for time conversions by the model
	// ([Engine.Freq]). Required.
	Freq Freq
	// NoSkip ticks every component in every cycle instead of only the
	// components that are due, and never jumps over idle cycles. Results are
	// identical either way; NoSkip exists to prove it and to find components
	// that break the [Component] contract (Stats.UnexpectedProgress).
	NoSkip bool
}

// Validate reports the first invalid field, naming it and its value.
func (c Config) Validate() error {
	if err := c.Freq.Validate(); err != nil {
		return fmt.Errorf("engine: Config.Freq: %w", err)
	}
	return nil
}

// Stats counts what the engine did; all counters are 64-bit and start at 0
// when the engine is created.
type Stats struct {
	// Cycles is the number of cycles the clock advanced, executed or skipped.
	Cycles uint64
	// BusyCycles is the number of cycles executed (at least one Tick). With
	// NoSkip every cycle is executed.
	BusyCycles uint64
	// Ticks is the number of Tick calls; Progress the number that returned
	// true.
	Ticks, Progress uint64
	// Wakes is the number of components made due by a timer (NextWake or a
	// TimedQueue delivery); spurious wakes (due to a superseded NextWake) are
	// included.
	Wakes uint64
	// UnexpectedProgress counts, in NoSkip mode only, Ticks that returned
	// true in a cycle in which the component was not due: with skipping on,
	// it would not have been ticked, so results would differ. A correct model
	// keeps it at 0.
	UnexpectedProgress uint64
}

// Engine is the cycle engine: it holds the current cycle and the registered
// components, ticks the components that are due in each cycle in ascending ID
// order, and jumps over cycles in which no component is due.
type Engine struct {
	cfg   Config
	now   Cycle
	comps []Component
	names []string
	// sleepers[id] is comps[id] as a Sleeper, nil if it is not one.
	sleepers []Sleeper
	due      []ID // scratch: the IDs tickDue ticks; len(due) == len(comps)
	// cur holds the components due in the cycle being executed (or, between
	// cycles, in cycle now); next those due in the cycle after it.
	cur, next *dueSet
	sets      [2]dueSet
	// armed[id] is the cycle of the latest timer armed from NextWake, Never
	// when it fired or none is armed.
	armed  []Cycle
	timers queue.Heap[struct{}] // wake-ups: Key = cycle, Tie = component ID
	stats  Stats
	// settle is the cycle after the latest one in which a component made
	// progress (Never before any). The model is not idle before that cycle
	// has executed, as when every component that made progress was due in
	// the next cycle; a Sleeper need not be, and the point at which
	// RunUntilIdle returns must not depend on that.
	settle  Cycle
	stop    bool
	running bool
	hook    func(now Cycle)
	bufs    Buffers
}

// New returns an engine at cycle 0 with no components.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, settle: Never}
	e.cur, e.next = &e.sets[0], &e.sets[1]
	return e, nil
}

// Freq returns the clock frequency.
func (e *Engine) Freq() Freq { return e.cfg.Freq }

// NoSkip reports whether the engine ticks every component in every cycle.
func (e *Engine) NoSkip() bool { return e.cfg.NoSkip }

// Now returns the current cycle: during Tick, the cycle being executed;
// between runs, the next cycle to execute.
func (e *Engine) Now() Cycle { return e.now }

// Stats returns the counters.
func (e *Engine) Stats() Stats { return e.stats }

// Name returns the name given to [Engine.Add] for id, or "" for an unknown id.
func (e *Engine) Name(id ID) string {
	if id < 0 || int(id) >= len(e.names) {
		return ""
	}
	return e.names[id]
}

// Buffers returns the engine's free list of byte buffers, shared by all of
// its components (see [Buffers] for who may release a buffer).
func (e *Engine) Buffers() *Buffers { return &e.bufs }

// Len returns the number of registered components.
func (e *Engine) Len() int { return len(e.comps) }

// Add registers c under name and returns its ID. A component is due in the
// current cycle when added, so that it can start its work.
func (e *Engine) Add(name string, c Component) (ID, error) {
	if c == nil {
		return NoID, fmt.Errorf("engine: Add %q: nil component", name)
	}
	if e.running {
		return NoID, fmt.Errorf("engine: Add %q: called during a cycle", name)
	}
	if len(e.comps) >= 1<<31-1 {
		return NoID, fmt.Errorf("engine: Add %q: too many components", name)
	}
	id := ID(len(e.comps))
	e.comps = append(e.comps, c)
	e.names = append(e.names, name)
	e.due = append(e.due, 0) // tickDue's scratch holds every ID
	sl, _ := c.(Sleeper)
	e.sleepers = append(e.sleepers, sl)
	e.armed = append(e.armed, Never)
	e.cur.grow(len(e.comps))
	e.next.grow(len(e.comps))
	e.cur.add(id)
	return id, nil
}

// Connect attaches q to its producer and consumer so that it wakes them
// (see [FIFO] and [TimedQueue]). Either end may be NoID (a driver outside the
// engine); a queue can be connected once.
func (e *Engine) Connect(q Queue, producer, consumer ID) error {
	for _, x := range [...]struct {
		what string
		id   ID
	}{{"producer", producer}, {"consumer", consumer}} {
		if x.id != NoID && (x.id < 0 || int(x.id) >= len(e.comps)) {
			return fmt.Errorf("engine: Connect %q: %s=%d: not a registered component", q.Name(), x.what, x.id)
		}
	}
	return q.bind(e, producer, consumer)
}

// SetCycleHook sets fn to be called after each executed cycle with that
// cycle's number (after every due component ticked). Skipped cycles do not
// call it: nothing changed in them. Use it to sample waveforms. nil removes
// the hook.
func (e *Engine) SetCycleHook(fn func(now Cycle)) { e.hook = fn }

// Stop asks a running [Engine.Run] or [Engine.RunUntilIdle] to return after
// the current cycle. It is meant to be called from a Tick (a test bench that
// saw its last packet).
func (e *Engine) Stop() { e.stop = true }

// Wake makes component id due in cycle at (at least the cycle after the
// current one when called during a cycle, the current one otherwise). Use it
// for input that does not arrive through a queue of this package.
func (e *Engine) Wake(id ID, at Cycle) error {
	if id < 0 || int(id) >= len(e.comps) {
		return fmt.Errorf("engine: Wake: id=%d: not a registered component", id)
	}
	if !e.running && at <= e.now {
		e.cur.add(id)
		return nil
	}
	e.wakeAt(id, at, e.now)
	return nil
}

// Idle reports whether no component is due and no wake is pending: the
// model will never make progress again without outside input.
func (e *Engine) Idle() bool { return !e.cur.any && e.settle != e.now && e.timers.Len() == 0 }

// Run executes cycles until Now() == until (cycles now..until-1), skipping
// idle ones, or until Stop is called. It returns the cycle reached.
func (e *Engine) Run(until Cycle) Cycle {
	e.run(until, false)
	return e.now
}

// RunUntilIdle executes cycles until the model is idle ([Engine.Idle]), Stop
// is called, or Now() reaches limit. It reports whether the model is idle;
// then Now() is the cycle after the last executed one.
func (e *Engine) RunUntilIdle(limit Cycle) bool {
	return e.run(limit, true)
}

func (e *Engine) run(until Cycle, untilIdle bool) bool {
	e.stop = false
	for e.now < until && !e.stop {
		if !e.cur.any {
			if e.timers.Len() == 0 {
				switch {
				case e.settle == e.now:
					// Execute it: nothing to tick, but not idle yet.
				case untilIdle:
					return true
				case !e.cfg.NoSkip:
					e.advance(until)
					return false
				}
			} else if t := Cycle(e.timers.Min().Key); !e.cfg.NoSkip && t > e.now {
				if t >= until {
					e.advance(until)
					return false
				}
				e.advance(t)
			}
		}
		e.cycle()
	}
	return untilIdle && e.Idle()
}

func (e *Engine) advance(to Cycle) {
	e.stats.Cycles += uint64(to - e.now)
	e.now = to
}

// cycle executes cycle e.now and advances to e.now+1.
func (e *Engine) cycle() {
	now := e.now
	if e.timers.Len() > 0 && Cycle(e.timers.Min().Key) <= now {
		e.fireTimers(now)
	}
	e.running = true
	var progress uint64
	if e.cfg.NoSkip {
		p0 := e.stats.Progress
		e.tickAll(now)
		progress = e.stats.Progress - p0
	} else {
		progress = e.tickDue(now)
	}
	if progress != 0 {
		e.settle = now + 1
	}
	e.running = false
	e.cur, e.next = e.next, e.cur
	e.stats.BusyCycles++
	e.stats.Cycles++
	e.now = now + 1
	if e.hook != nil {
		e.hook(now)
	}
}

// fireTimers makes due in cycle now every component whose timer is at or
// before now.
func (e *Engine) fireTimers(now Cycle) {
	for e.timers.Len() > 0 && Cycle(e.timers.Min().Key) <= now {
		t := e.timers.Pop()
		id, at := ID(t.Tie), Cycle(t.Key)
		if e.armed[id] == at {
			e.armed[id] = Never
		}
		if !e.cur.has(id) {
			e.stats.Wakes++
			e.cur.add(id)
		}
	}
}

// tickDue ticks the components in e.cur in ascending ID order, emptying
// e.cur, and returns the number that made progress. A component that made
// progress is due next cycle (a Sleeper when it asks).
func (e *Engine) tickDue(now Cycle) uint64 {
	// Collect the due IDs first (nothing joins e.cur during the cycle:
	// wake-ups go to e.next or to timers), so that the ticking loop keeps
	// little state alive across the calls into components.
	cur := e.cur
	ids := e.due[:cap(e.due)] // room for every ID
	n := 0
	leaf := cur.leaf
	for si, sw := range cur.summary {
		if sw == 0 {
			continue
		}
		cur.summary[si] = 0
		for sw != 0 {
			wi := si<<6 | bits.TrailingZeros64(sw)
			sw &= sw - 1
			w := leaf[wi]
			leaf[wi] = 0
			for w != 0 {
				ids[n] = ID(wi<<6 | bits.TrailingZeros64(w))
				n++
				w &= w - 1
			}
		}
	}
	cur.any = false
	next := e.next
	var progress uint64
	for _, id := range ids[:n] {
		if !e.comps[id].Tick(now) {
			e.sleep(id, now)
			continue
		}
		progress++
		if sl := e.sleepers[id]; sl != nil {
			at, ok := sl.SleepUntil(now)
			if !ok {
				continue
			}
			if at > now+1 {
				if e.armed[id] != at {
					e.armed[id] = at
					e.timers.Push(uint64(at), uint64(id), struct{}{})
				}
				continue
			}
		}
		w := uint(id) >> 6
		next.leaf[w] |= 1 << (uint(id) & 63)
		next.summary[w>>6] |= 1 << (w & 63)
		next.any = true
	}
	e.stats.Ticks += uint64(n)
	e.stats.Progress += progress
	return progress
}

// sleep arms the timer of a component that made no progress from its
// NextWake.
func (e *Engine) sleep(id ID, now Cycle) {
	if w, ok := e.comps[id].NextWake(now); ok && e.armed[id] != w {
		if w <= now {
			w = now + 1
		}
		e.armed[id] = w
		e.timers.Push(uint64(w), uint64(id), struct{}{})
	}
}

// sleepAfterProgress asks a Sleeper that made progress in cycle now when it
// is next due: it reports true for the next cycle, and otherwise arms the
// timer (if any) as sleep does.
func (e *Engine) sleepAfterProgress(sl Sleeper, id ID, now Cycle) bool {
	w, ok := sl.SleepUntil(now)
	if !ok {
		return false
	}
	if w <= now+1 {
		return true
	}
	if e.armed[id] != w {
		e.armed[id] = w
		e.timers.Push(uint64(w), uint64(id), struct{}{})
	}
	return false
}

// progressed marks id, which made progress in cycle now, due when it asks
// (next cycle unless it is a Sleeper that says otherwise).
func (e *Engine) progressed(id ID, now Cycle) {
	if sl := e.sleepers[id]; sl == nil || e.sleepAfterProgress(sl, id, now) {
		e.next.add(id)
	}
}

func (e *Engine) tickOne(id ID, now Cycle) {
	e.stats.Ticks++
	c := e.comps[id]
	if c.Tick(now) {
		e.stats.Progress++
		e.progressed(id, now)
		return
	}
	e.sleep(id, now)
}

func (e *Engine) tickAll(now Cycle) {
	for i, c := range e.comps {
		id := ID(i)
		if e.cur.has(id) {
			e.tickOne(id, now)
			continue
		}
		e.stats.Ticks++
		if c.Tick(now) {
			e.stats.Progress++
			e.stats.UnexpectedProgress++
			e.progressed(id, now)
		}
	}
	e.cur.clear()
}

// tickNext makes id due in cycle now+1 (called by queues and after
// progress). Outside a cycle (a test driver pushing between runs) it arms a
// timer instead, since the list being built then is that of cycle e.now.
func (e *Engine) tickNext(id ID, now Cycle) {
	if e.running && now == e.now {
		e.next.add(id)
		return
	}
	e.tickNextLater(id, now)
}

//go:noinline
func (e *Engine) tickNextLater(id ID, now Cycle) {
	e.timers.Push(uint64(now+1), uint64(id), struct{}{})
}

// wakeAt arms a timer making id due in cycle at (raised to now+1 if earlier).
func (e *Engine) wakeAt(id ID, at, now Cycle) {
	if at <= now+1 {
		e.tickNext(id, now)
		return
	}
	e.timers.Push(uint64(at), uint64(id), struct{}{})
}

// waker wakes one component in the cycle after the current one; queues hold
// one per connected end, with the component's bit positions precomputed so
// that the common case is a few OR operations inlined into Push and Pop.
type waker struct {
	e     *Engine // nil: not connected (nothing to wake)
	id    ID
	word  int // leaf word of id
	sword int // summary word of id
	bit   uint64
	sbit  uint64
}

func newWaker(e *Engine, id ID) waker {
	if id == NoID {
		return waker{id: NoID}
	}
	w := int(id) >> 6
	return waker{e: e, id: id, word: w, sword: w >> 6, bit: 1 << (uint(id) & 63), sbit: 1 << (uint(w) & 63)}
}

// wake makes the component due in cycle now+1.
func (w *waker) wake(now Cycle) {
	e := w.e
	if e.running && now == e.now {
		n := e.next
		n.leaf[w.word] |= w.bit
		n.summary[w.sword] |= w.sbit
		n.any = true
		return
	}
	e.tickNextLater(w.id, now)
}

func errAlreadyConnected(name string) error {
	return fmt.Errorf("engine: queue %q: already connected", name)
}
