package engine

import "fmt"

// FIFO is a bounded typed first-in first-out queue with clock-edge
// (two-phase) semantics, the only way hpccgold components pass data to each
// other within a cycle-stepped model:
//
//   - an element pushed in cycle n is visible to Peek/Pop from cycle n+1;
//   - a slot freed by a Pop in cycle n can be filled from cycle n+1, so
//     CanPush in cycle n depends only on the state at the start of cycle n
//     and on the pushes already made in cycle n (a registered "full" flag).
//
// Hence results never depend on the order in which the producer and the
// consumer are ticked within a cycle. Every method takes the current cycle;
// calls must be made with non-decreasing now (the engine's current cycle when
// called from Tick).
//
// A FIFO connected to an [Engine] ([Engine.Connect]) wakes its consumer in the
// cycle after a push and its producer in the cycle after a pop that freed a
// slot of a full FIFO. An unconnected FIFO works the same way for tests
// driven by a fake clock.
//
// The zero FIFO is unusable; create one with [NewFIFO].
type FIFO[T any] struct {
	// Hot fields first: they share a cache line.
	n         int   // elements stored (visible and staged)
	head      int   // index of the oldest element
	mask      int   // len(buf)-1; len(buf) is a power of two >= capacity
	capacity  int   // maximum elements stored
	pushCycle Cycle // cycle of the latest Push
	pushed    int   // pushes made in pushCycle (staged: not yet visible)
	popCycle  Cycle // cycle of the latest Pop
	popped    int   // pops made in popCycle (slots not yet free)
	buf       []T
	consW     waker // wakes the consumer after a push
	prodW     waker // wakes the producer after a pop from full
	maxLevel  int
	pushes    uint64
	pops      uint64
	rejects   uint64
	name      string
	bound     bool
}

// NewFIFO returns an empty FIFO holding at most capacity elements. name
// identifies it in errors and traces.
func NewFIFO[T any](name string, capacity int) (*FIFO[T], error) {
	if capacity < 1 || capacity > 1<<30 {
		return nil, fmt.Errorf("engine: FIFO %q: capacity=%d: must be in [1, %d]", name, capacity, 1<<30)
	}
	size := 1
	for size < capacity {
		size <<= 1
	}
	return &FIFO[T]{
		name: name, buf: make([]T, size), mask: size - 1, capacity: capacity,
		pushCycle: Never, popCycle: Never,
	}, nil
}

// Name returns the name given to [NewFIFO].
func (f *FIFO[T]) Name() string { return f.name }

// Cap returns the capacity in elements.
func (f *FIFO[T]) Cap() int { return f.capacity }

// Len returns the number of elements stored, visible or staged: the FIFO's
// level at the end of the current cycle once every component has ticked (the
// value a waveform shows for the cycle).
func (f *FIFO[T]) Len() int { return f.n }

// MaxLevel returns the highest level reached since creation (high-water mark).
func (f *FIFO[T]) MaxLevel() int { return f.maxLevel }

// Counts returns the number of accepted pushes, pops and rejected pushes
// (Push on a full FIFO) since creation.
func (f *FIFO[T]) Counts() (pushes, pops, rejects uint64) { return f.pushes, f.pops, f.rejects }

// Visible returns the number of elements a consumer can pop in cycle now:
// those pushed before cycle now.
func (f *FIFO[T]) Visible(now Cycle) int {
	if f.pushCycle == now {
		return f.n - f.pushed
	}
	return f.n
}

// CanPop reports whether an element is visible in cycle now.
func (f *FIFO[T]) CanPop(now Cycle) bool { return f.Visible(now) > 0 }

// Free returns the number of elements a producer may still push in cycle now:
// capacity minus the level at the start of the cycle minus pushes already made
// in this cycle. Pops made in this cycle do not count until cycle now+1.
func (f *FIFO[T]) Free(now Cycle) int {
	used := f.n
	if f.popCycle == now {
		used += f.popped
	}
	return f.capacity - used
}

// CanPush reports whether a Push in cycle now would be accepted.
func (f *FIFO[T]) CanPush(now Cycle) bool { return f.Free(now) > 0 }

// Push appends v in cycle now and reports whether it was accepted. A push on
// a full FIFO (CanPush false) is rejected, counted, and changes nothing else;
// the caller decides whether that is back-pressure or a counted drop.
func (f *FIFO[T]) Push(now Cycle, v T) bool {
	used := f.n
	if f.popCycle == now {
		used += f.popped
	}
	if used >= f.capacity {
		f.rejects++
		return false
	}
	f.buf[(f.head+f.n)&f.mask] = v
	f.n++
	if f.n > f.maxLevel {
		f.maxLevel = f.n
	}
	f.pushes++
	if f.pushCycle == now {
		f.pushed++
		return true
	}
	f.pushCycle = now
	f.pushed = 1
	if f.consW.e != nil {
		// First push of the cycle: the consumer sees it next cycle.
		f.consW.wake(now)
	}
	return true
}

// Peek returns the oldest element visible in cycle now without removing it.
func (f *FIFO[T]) Peek(now Cycle) (T, bool) {
	if f.Visible(now) == 0 {
		var zero T
		return zero, false
	}
	return f.buf[f.head], true
}

// Front returns a pointer to the oldest element visible in cycle now, or
// nil: Peek without copying the element (for large elements). The pointer
// is valid until the element is popped or the FIFO is next pushed; a
// caller that reads the element and then pops it uses Front and then
// [FIFO.Discard].
func (f *FIFO[T]) Front(now Cycle) *T {
	if f.Visible(now) == 0 {
		return nil
	}
	return &f.buf[f.head]
}

// Discard removes the oldest element visible in cycle now, as Pop does,
// without returning it; it reports whether there was one.
func (f *FIFO[T]) Discard(now Cycle) bool {
	if f.Visible(now) == 0 {
		return false
	}
	var zero T
	f.buf[f.head] = zero // drop references for the garbage collector
	f.head = (f.head + 1) & f.mask
	f.popped1(now)
	return true
}

// popped1 does the bookkeeping of one pop in cycle now: counters, the
// registered full flag and the producer's wake-up.
func (f *FIFO[T]) popped1(now Cycle) {
	f.pops++
	if f.popCycle != now {
		f.popCycle = now
		f.popped = 0
	}
	// The producer saw the FIFO full in this cycle if the level at the start
	// of the cycle (plus this cycle's pushes) was the capacity.
	wasFull := f.n+f.popped == f.capacity
	f.n--
	f.popped++
	if wasFull && f.prodW.e != nil {
		f.prodW.wake(now)
	}
}

// Pop removes and returns the oldest element visible in cycle now.
func (f *FIFO[T]) Pop(now Cycle) (T, bool) {
	var zero T
	if f.Visible(now) == 0 {
		return zero, false
	}
	v := f.buf[f.head]
	f.buf[f.head] = zero // drop references for the garbage collector
	f.head = (f.head + 1) & f.mask
	f.popped1(now)
	return v, true
}

func (f *FIFO[T]) bind(e *Engine, producer, consumer ID) error {
	if f.bound {
		return errAlreadyConnected(f.name)
	}
	f.bound = true
	f.prodW, f.consW = newWaker(e, producer), newWaker(e, consumer)
	return nil
}

// Queue is implemented by the queues of this package ([FIFO], [TimedQueue]) so
// that [Engine.Connect] can attach them to the components at their ends.
type Queue interface {
	Name() string
	bind(e *Engine, producer, consumer ID) error
}
