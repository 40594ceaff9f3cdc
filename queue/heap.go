// Package queue holds the model's one priority queue: a binary min-heap
// whose items carry their order as two plain integers, so that every
// comparison is compiled inline.
//
// Why this shape: a generic heap ordered by a method of its element type
// (Heap[T Lesser[T]]) calls that method through the instantiation's
// dictionary, an indirect call per comparison; measured in the scheduler's
// paced decision it doubled the cost (101 -> 218 ns). Here the order is
// data (Key, then Tie, both uint64), compared by the heap itself; the
// payload V is only moved. Go compiles one body per GC shape of V, with
// the item's size and field offsets as constants, so the sift loops are
// the same machine code as the hand-written heaps they replace (see
// BenchmarkHeap and the scheduler's BenchmarkDecision).
package queue

// Item is one heap entry: ordered by Key, then by Tie (both ascending);
// Val is the caller's payload. Users put the time (a cycle) in Key and a
// unique tie-breaker (a component id, a flow id, a push sequence number)
// in Tie, so that the order of equal times is deterministic.
type Item[V any] struct {
	Key, Tie uint64
	Val      V
}

// Before reports whether a orders before b: (Key, Tie) lexicographically.
func (a *Item[V]) Before(b *Item[V]) bool {
	return a.Key < b.Key || a.Key == b.Key && a.Tie < b.Tie
}

// Heap is a binary min-heap of Items ordered by (Key, Tie). Items with the
// same (Key, Tie) leave in an unspecified order; callers that need a total
// order give each item a distinct Tie. The zero Heap is empty and usable.
type Heap[V any] struct {
	s []Item[V]
}

// Len returns the number of items held.
func (h *Heap[V]) Len() int { return len(h.s) }

// Min returns a pointer to the least item, valid until the next Push or
// Pop. Precondition: Len() > 0.
func (h *Heap[V]) Min() *Item[V] { return &h.s[0] }

// Push adds an item.
func (h *Heap[V]) Push(key, tie uint64, v V) {
	h.s = append(h.s, Item[V]{Key: key, Tie: tie, Val: v})
	s := h.s
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s[i].Before(&s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

// Pop removes and returns the least item. Precondition: Len() > 0. The
// vacated slot is zeroed, so a payload holding references does not keep
// them alive.
func (h *Heap[V]) Pop() Item[V] {
	s := h.s
	t := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s[last] = Item[V]{}
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if r := l + 1; r < len(s) && s[r].Before(&s[l]) {
			m = r
		}
		if !s[m].Before(&s[i]) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	h.s = s
	return t
}

// Reset empties the heap, keeping its storage.
func (h *Heap[V]) Reset() {
	clear(h.s)
	h.s = h.s[:0]
}
