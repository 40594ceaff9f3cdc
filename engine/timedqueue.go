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
//
// Most producers push in order of visibility cycle (a link delivers frames in
// the order it sends them), so elements pushed no earlier than the last one
// in the in-order ring go to its tail, and only the others go into a binary
// heap; the head is the earlier of the two heads (by cycle, then push
// order). In-order traffic thus costs O(1) per element.
type TimedQueue[T any] struct {
	name string
	// ring holds elements in (at, seq) order: each was pushed with an at no
	// earlier than the previous one's. rhead is its oldest, rn its length.
	ring       []timedItem[T]
	rhead, rn  int
	h          []timedItem[T] // the others, a min-heap by (at, seq)
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
func (q *TimedQueue[T]) Len() int { return q.rn + len(q.h) }

// MaxLevel returns the highest Len reached since creation.
func (q *TimedQueue[T]) MaxLevel() int { return q.maxLevel }

// Counts returns the number of pushes and pops since creation.
func (q *TimedQueue[T]) Counts() (pushes, pops uint64) { return q.pushes, q.pops }

// head returns the element that leaves first, nil when empty.
func (q *TimedQueue[T]) head() *timedItem[T] {
	switch {
	case q.rn == 0 && len(q.h) == 0:
		return nil
	case q.rn == 0:
		return &q.h[0]
	case len(q.h) == 0:
		return &q.ring[q.rhead]
	}
	if r := &q.ring[q.rhead]; r.less(&q.h[0]) {
		return r
	}
	return &q.h[0]
}

// HeadAt returns the cycle at which the head (earliest) element becomes
// visible, or (Never, false) when the queue is empty.
func (q *TimedQueue[T]) HeadAt() (Cycle, bool) {
	if h := q.head(); h != nil {
		return h.at, true
	}
	return Never, false
}

// Push adds v in cycle now, to become visible in cycle at. An at earlier than
// now+1 is raised to now+1: as with [FIFO], nothing pushed in cycle n is
// visible before cycle n+1.
func (q *TimedQueue[T]) Push(now, at Cycle, v T) {
	if at <= now {
		at = now + 1
	}
	it := timedItem[T]{at: at, seq: q.seq}
	q.seq++
	q.pushes++
	var isHead bool
	if q.rn == 0 || q.ring[(q.rhead+q.rn-1)&(len(q.ring)-1)].at <= at {
		// In order: the ring's tail.
		if q.rn == len(q.ring) {
			q.growRing()
		}
		i := (q.rhead + q.rn) & (len(q.ring) - 1)
		q.ring[i] = it
		q.ring[i].v = v
		q.rn++
		isHead = q.rn == 1 && (len(q.h) == 0 || it.less(&q.h[0]))
	} else {
		it.v = v
		q.h = append(q.h, it)
		i := len(q.h) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !q.h[i].less(&q.h[p]) {
				break
			}
			q.h[i], q.h[p] = q.h[p], q.h[i]
			i = p
		}
		isHead = i == 0 && (q.rn == 0 || q.h[0].less(&q.ring[q.rhead]))
	}
	if n := q.rn + len(q.h); n > q.maxLevel {
		q.maxLevel = n
	}
	if isHead && q.eng != nil && q.cons != NoID {
		q.eng.wakeAt(q.cons, at, now)
	}
}

// growRing doubles the ring (at least 8 slots), keeping its order.
func (q *TimedQueue[T]) growRing() {
	n := max(8, 2*len(q.ring))
	r := make([]timedItem[T], n)
	for k := 0; k < q.rn; k++ {
		r[k] = q.ring[(q.rhead+k)&(len(q.ring)-1)]
	}
	q.ring, q.rhead = r, 0
}

// CanPop reports whether the head element is visible in cycle now.
func (q *TimedQueue[T]) CanPop(now Cycle) bool {
	h := q.head()
	return h != nil && h.at <= now
}

// Peek returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Peek(now Cycle) (T, bool) {
	if h := q.head(); h != nil && h.at <= now {
		return h.v, true
	}
	var zero T
	return zero, false
}

// Pop removes and returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Pop(now Cycle) (T, bool) {
	var zero T
	h := q.head()
	if h == nil || h.at > now {
		return zero, false
	}
	v := h.v
	if q.rn > 0 && h == &q.ring[q.rhead] {
		*h = timedItem[T]{} // drop references for the garbage collector
		q.rhead = (q.rhead + 1) & (len(q.ring) - 1)
		q.rn--
	} else {
		q.popHeap()
	}
	q.pops++
	if h := q.head(); h != nil && h.at > now && q.eng != nil && q.cons != NoID {
		// The next element becomes visible later: wake the consumer then
		// (also in the next cycle, where a consumer that made progress by
		// popping used to be due anyway: a Sleeper need not be). An
		// element visible already is the consumer's to take in this cycle
		// or to count as input left (Sleeper).
		q.eng.wakeAt(q.cons, h.at, now)
	}
	return v, true
}

// popHeap removes the heap's minimum.
func (q *TimedQueue[T]) popHeap() {
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
}

func (q *TimedQueue[T]) bind(e *Engine, producer, consumer ID) error {
	if q.eng != nil {
		return errAlreadyConnected(q.name)
	}
	q.eng, q.prod, q.cons = e, producer, consumer
	return nil
}
