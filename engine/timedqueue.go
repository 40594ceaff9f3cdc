package engine

// TimedQueue carries elements that each become visible at a cycle chosen by
// the producer: a link that delivers a frame after its serialization and
// propagation delay, a switch port that releases a packet after its queueing
// delay. It needs no ticking and costs nothing per cycle: when connected to an
// [Engine] ([Engine.Connect]) it wakes its consumer at the cycle its head
// element becomes visible, so only delivery cycles are executed.
//
// Elements are ordered by visibility cycle; elements with the same cycle
// leave in push order (stable). Every method takes the current cycle; calls
// must be made with non-decreasing now. The queue is unbounded (a link's
// occupancy is bounded by its rate times its delay); Len and MaxLevel report
// its occupancy.
//
// The zero TimedQueue is unusable; create one with [NewTimedQueue].
type TimedQueue[T any] struct {
	name       string
	h          []timedItem[T]
	seq        uint64
	pushes     uint64
	pops       uint64
	maxLevel   int
	eng        *Engine
	prod, cons ID
}

type timedItem[T any] struct {
	at  Cycle
	seq uint64
	v   T
}

func (a *timedItem[T]) less(b *timedItem[T]) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// NewTimedQueue returns an empty TimedQueue; name identifies it in errors and
// traces.
func NewTimedQueue[T any](name string) *TimedQueue[T] {
	return &TimedQueue[T]{name: name, prod: NoID, cons: NoID}
}

// Name returns the name given to [NewTimedQueue].
func (q *TimedQueue[T]) Name() string { return q.name }

// Len returns the number of elements held, visible or not.
func (q *TimedQueue[T]) Len() int { return len(q.h) }

// MaxLevel returns the highest Len reached since creation.
func (q *TimedQueue[T]) MaxLevel() int { return q.maxLevel }

// Counts returns the number of pushes and pops since creation.
func (q *TimedQueue[T]) Counts() (pushes, pops uint64) { return q.pushes, q.pops }

// HeadAt returns the cycle at which the head (earliest) element becomes
// visible, or (Never, false) when the queue is empty.
func (q *TimedQueue[T]) HeadAt() (Cycle, bool) {
	if len(q.h) == 0 {
		return Never, false
	}
	return q.h[0].at, true
}

// Push adds v in cycle now, to become visible in cycle at. An at earlier than
// now+1 is raised to now+1: as with [FIFO], nothing pushed in cycle n is
// visible before cycle n+1.
func (q *TimedQueue[T]) Push(now, at Cycle, v T) {
	if at <= now {
		at = now + 1
	}
	q.h = append(q.h, timedItem[T]{at: at, seq: q.seq, v: v})
	q.seq++
	q.pushes++
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].less(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
	if len(q.h) > q.maxLevel {
		q.maxLevel = len(q.h)
	}
	if i == 0 && q.eng != nil && q.cons != NoID {
		q.eng.wakeAt(q.cons, at, now)
	}
}

// CanPop reports whether the head element is visible in cycle now.
func (q *TimedQueue[T]) CanPop(now Cycle) bool { return len(q.h) > 0 && q.h[0].at <= now }

// Peek returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Peek(now Cycle) (T, bool) {
	if !q.CanPop(now) {
		var zero T
		return zero, false
	}
	return q.h[0].v, true
}

// Pop removes and returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Pop(now Cycle) (T, bool) {
	var zero T
	if !q.CanPop(now) {
		return zero, false
	}
	v := q.h[0].v
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h[last] = timedItem[T]{}
	q.h = q.h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(q.h) {
			break
		}
		m := l
		if r := l + 1; r < len(q.h) && q.h[r].less(&q.h[l]) {
			m = r
		}
		if !q.h[m].less(&q.h[i]) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	q.pops++
	if len(q.h) > 0 && q.h[0].at > now && q.eng != nil && q.cons != NoID {
		// The next element becomes visible later: wake the consumer then
		// (also in the next cycle, where a consumer that made progress by
		// popping used to be due anyway: a Sleeper need not be). An
		// element visible already is the consumer's to take in this cycle
		// or to count as input left (Sleeper).
		q.eng.wakeAt(q.cons, q.h[0].at, now)
	}
	return v, true
}

func (q *TimedQueue[T]) bind(e *Engine, producer, consumer ID) error {
	if q.eng != nil {
		return errAlreadyConnected(q.name)
	}
	q.eng, q.prod, q.cons = e, producer, consumer
	return nil
}
