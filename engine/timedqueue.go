package engine

import "github.com/hpccgold/hpccgold/queue"

// TimedQueue carries elements that each become visible at a cycle chosen by
// the producer: a link that delivers a frame after its serialization and
// propagation delay, a switch port that releases a packet after its queueing
// delay. It needs no ticking and costs nothing per cycle: when connected to an
// [Engine] ([Engine.Connect]) it wakes its consumer at the cycle its head
// element becomes visible, so only delivery cycles are executed.
//
// Elements are ordered by visibility cycle; elements with the same cycle
// leave in push order (stable), or in the order of the ties the producers
// gave ([TimedQueue.PushTie]). Every method takes the current cycle; calls
// must be made with non-decreasing now. The queue is unbounded (a link's
// occupancy is bounded by its rate times its delay); Len and MaxLevel report
// its occupancy.
//
// The zero TimedQueue is unusable; create one with [NewTimedQueue].
//
// Most producers push in order of visibility cycle (a link delivers frames in
// the order it sends them), so elements pushed no earlier than the last one
// in the in-order ring go to its tail, and only the others go into a binary
// heap; the head is the earlier of the two heads (by cycle, then tie: the
// push order, or the producers' tie with [TimedQueue.PushTie]). In-order traffic thus costs O(1) per element.
type TimedQueue[T any] struct {
	name string
	// ring holds elements in (at, tie) order: each was pushed with an
	// (at, tie) after the previous one's. rhead is its oldest, rn its length.
	ring       []timedItem[T]
	rhead, rn  int
	h          queue.Heap[T] // the others, by (at, tie)
	seq        uint64        // Push's tie: the next push sequence number
	pushes     uint64
	pops       uint64
	maxLevel   int
	eng        *Engine
	prod, cons ID
}

// timedItem is an element with its visibility cycle (Key) and tie (Tie: the
// push sequence number, or the producer's tie): (at, tie) is the order in
// which elements leave.
type timedItem[T any] = queue.Item[T]

// NewTimedQueue returns an empty TimedQueue; name identifies it in errors and
// traces.
func NewTimedQueue[T any](name string) *TimedQueue[T] {
	return &TimedQueue[T]{name: name, prod: NoID, cons: NoID}
}

// Name returns the name given to [NewTimedQueue].
func (q *TimedQueue[T]) Name() string { return q.name }

// Len returns the number of elements held, visible or not.
func (q *TimedQueue[T]) Len() int { return q.rn + q.h.Len() }

// MaxLevel returns the highest Len reached since creation.
func (q *TimedQueue[T]) MaxLevel() int { return q.maxLevel }

// Counts returns the number of pushes and pops since creation.
func (q *TimedQueue[T]) Counts() (pushes, pops uint64) { return q.pushes, q.pops }

// head returns the element that leaves first, nil when empty.
func (q *TimedQueue[T]) head() *timedItem[T] {
	switch {
	case q.rn == 0 && q.h.Len() == 0:
		return nil
	case q.rn == 0:
		return q.h.Min()
	case q.h.Len() == 0:
		return &q.ring[q.rhead]
	}
	if r, m := &q.ring[q.rhead], q.h.Min(); r.Before(m) {
		return r
	}
	return q.h.Min()
}

// HeadAt returns the cycle at which the head (earliest) element becomes
// visible, or (Never, false) when the queue is empty.
func (q *TimedQueue[T]) HeadAt() (Cycle, bool) {
	if h := q.head(); h != nil {
		return Cycle(h.Key), true
	}
	return Never, false
}

// Push adds v in cycle now, to become visible in cycle at. An at earlier than
// now+1 is raised to now+1: as with [FIFO], nothing pushed in cycle n is
// visible before cycle n+1. Elements visible in the same cycle leave in push
// order. A queue takes either Push or [TimedQueue.PushTie], never both.
func (q *TimedQueue[T]) Push(now, at Cycle, v T) {
	seq := q.seq
	q.seq++
	q.push(now, at, seq, v)
}

// PushTie adds v in cycle now, to become visible in cycle at (raised to
// now+1 if earlier, as for Push), with elements visible in the same cycle
// leaving in ascending tie order instead of push order: the order then
// depends only on what the producers chose, not on which producer pushed
// first. A switch ingress fed by several links uses (ingress port, per-link
// sequence number) as the tie, so that simultaneous arrivals are ordered the
// same way whatever order the links' transmitters run in: in one engine or
// in partitions of a network on several engines whose frames cross at window
// barriers. Ties must be unique among the elements held.
//
// Unlike Push, PushTie may be called between runs with a now earlier than
// the consumer's engine's current cycle (a frame sent in another partition
// during the window just finished, delivered at the barrier), provided at is
// not earlier than that current cycle: the consumer is woken at cycle at.
func (q *TimedQueue[T]) PushTie(now, at Cycle, tie uint64, v T) {
	q.push(now, at, tie, v)
}

func (q *TimedQueue[T]) push(now, at Cycle, tie uint64, v T) {
	if at <= now {
		at = now + 1
	}
	q.pushes++
	var isHead bool
	inOrder := q.rn == 0
	if !inOrder {
		t := &q.ring[(q.rhead+q.rn-1)&(len(q.ring)-1)]
		inOrder = Cycle(t.Key) < at || Cycle(t.Key) == at && t.Tie < tie
	}
	if inOrder {
		// In order: the ring's tail.
		if q.rn == len(q.ring) {
			q.growRing()
		}
		i := (q.rhead + q.rn) & (len(q.ring) - 1)
		r := &q.ring[i]
		r.Key, r.Tie, r.Val = uint64(at), tie, v
		q.rn++
		isHead = q.rn == 1 && (q.h.Len() == 0 || r.Before(q.h.Min()))
	} else {
		q.h.Push(uint64(at), tie, v)
		m := q.h.Min()
		isHead = m.Key == uint64(at) && m.Tie == tie && (q.rn == 0 || m.Before(&q.ring[q.rhead]))
	}
	if n := q.rn + q.h.Len(); n > q.maxLevel {
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
	return h != nil && Cycle(h.Key) <= now
}

// Peek returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Peek(now Cycle) (T, bool) {
	if h := q.head(); h != nil && Cycle(h.Key) <= now {
		return h.Val, true
	}
	var zero T
	return zero, false
}

// Pop removes and returns the head element if it is visible in cycle now.
func (q *TimedQueue[T]) Pop(now Cycle) (T, bool) {
	var zero T
	h := q.head()
	if h == nil || Cycle(h.Key) > now {
		return zero, false
	}
	v := h.Val
	if q.rn > 0 && h == &q.ring[q.rhead] {
		*h = timedItem[T]{} // drop references for the garbage collector
		q.rhead = (q.rhead + 1) & (len(q.ring) - 1)
		q.rn--
	} else {
		q.h.Pop()
	}
	q.pops++
	if h := q.head(); h != nil && Cycle(h.Key) > now && q.eng != nil && q.cons != NoID {
		// The next element becomes visible later: wake the consumer then
		// (also in the next cycle, where a consumer that made progress by
		// popping used to be due anyway: a Sleeper need not be). An
		// element visible already is the consumer's to take in this cycle
		// or to count as input left (Sleeper).
		q.eng.wakeAt(q.cons, Cycle(h.Key), now)
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
