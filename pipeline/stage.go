package pipeline

import "github.com/hpccgold/hpccgold/engine"

// stage is one pipeline stage: a ring of at most depth entries, each ready
// to leave latency cycles after it entered, leaving in entry order. It
// accepts at most one entry per cycle (initiation interval 1). Entries are
// stored in place (callers fill them through the pointer from push) so large
// entries are never copied.
type stage[T any] struct {
	buf       []stageSlot[T]
	head, n   int
	latency   engine.Cycle
	lastEntry engine.Cycle // cycle of the latest push; engine.Never before the first
	maxLevel  int
}

type stageSlot[T any] struct {
	ready   engine.Cycle
	stalled bool // the entry's first stall has been counted
	v       T
}

func newStage[T any](c StageConfig) stage[T] {
	return stage[T]{buf: make([]stageSlot[T], c.Depth), latency: engine.Cycle(c.Latency), lastEntry: engine.Never}
}

// canPush reports whether an entry can enter in cycle now.
func (s *stage[T]) canPush(now engine.Cycle) bool {
	return s.n < len(s.buf) && s.lastEntry != now
}

// push makes room for an entry entering in cycle now and returns it to be
// filled. Precondition: canPush(now).
func (s *stage[T]) push(now engine.Cycle) *T {
	sl := &s.buf[(s.head+s.n)%len(s.buf)]
	sl.ready, sl.stalled = now+s.latency, false
	s.n++
	if s.n > s.maxLevel {
		s.maxLevel = s.n
	}
	s.lastEntry = now
	return &sl.v
}

// front returns the oldest entry if it is ready in cycle now.
func (s *stage[T]) front(now engine.Cycle) (*stageSlot[T], bool) {
	if s.n == 0 || s.buf[s.head].ready > now {
		return nil, false
	}
	return &s.buf[s.head], true
}

// pop removes the oldest entry. Precondition: n > 0.
func (s *stage[T]) pop() {
	var zero T
	s.buf[s.head].v = zero
	s.head = (s.head + 1) % len(s.buf)
	s.n--
}

// nextReady returns the ready cycle of the oldest entry if it is later than
// now (a timer the component must ask the engine for).
func (s *stage[T]) nextReady(now engine.Cycle) (engine.Cycle, bool) {
	if s.n == 0 {
		return engine.Never, false
	}
	r := s.buf[s.head].ready
	return r, r > now
}

// wakeAt returns when the stage may next act: the head's ready cycle, at
// least now+1, when it holds an entry (a head that is ready but blocked may
// move next cycle, or, if not, costs one Tick that finds nothing to do).
func (s *stage[T]) wakeAt(now engine.Cycle) (engine.Cycle, bool) {
	if s.n == 0 {
		return engine.Never, false
	}
	return max(s.buf[s.head].ready, now+1), true
}

// level returns the number of entries held (for waveforms).
func (s *stage[T]) level() int { return s.n }

func minWake(a engine.Cycle, aok bool, b engine.Cycle, bok bool) (engine.Cycle, bool) {
	switch {
	case aok && bok:
		return min(a, b), true
	case aok:
		return a, true
	}
	return b, bok
}
