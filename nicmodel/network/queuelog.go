package network

import (
	"sort"

	"github.com/hpccgold/hpccgold/engine"
)

// QueueLog is the exact history of one egress queue's length: one entry
// per cycle in which the length changed, holding the length at the end of
// that cycle (bytes). The length holds from the entry's cycle until the
// next entry. Intra-cycle peaks (a frame arriving and leaving in the same
// cycle) are not in the log; PortCounters.MaxQBytes has them.
type QueueLog struct {
	t []engine.Cycle
	v []uint64
}

func (l *QueueLog) add(now engine.Cycle, v uint64) {
	if n := len(l.t); n > 0 && l.t[n-1] == now {
		l.v[n-1] = v
		return
	}
	l.t = append(l.t, now)
	l.v = append(l.v, v)
}

// Len returns the number of entries.
func (l *QueueLog) Len() int { return len(l.t) }

// Entry returns entry i: the cycle and the length from then on.
func (l *QueueLog) Entry(i int) (engine.Cycle, uint64) { return l.t[i], l.v[i] }

// At returns the queue length during cycle c (0 before the first entry).
func (l *QueueLog) At(c engine.Cycle) uint64 {
	i := sort.Search(len(l.t), func(i int) bool { return l.t[i] > c })
	if i == 0 {
		return 0
	}
	return l.v[i-1]
}

// Max returns the largest end-of-cycle length in [from, to) and the first
// cycle it was reached (from itself when the queue entered the interval at
// that length).
func (l *QueueLog) Max(from, to engine.Cycle) (uint64, engine.Cycle) {
	best, at := l.At(from), from
	for i := sort.Search(len(l.t), func(i int) bool { return l.t[i] > from }); i < len(l.t) && l.t[i] < to; i++ {
		if l.v[i] > best {
			best, at = l.v[i], l.t[i]
		}
	}
	return best, at
}

// Percentile returns the time-weighted p-quantile (p in [0,1]) of the
// queue length over the cycles [from, to): the smallest length L such that
// the queue was at most L for at least a fraction p of those cycles.
func (l *QueueLog) Percentile(p float64, from, to engine.Cycle) uint64 {
	if to <= from {
		return 0
	}
	type seg struct {
		v uint64
		d uint64
	}
	var segs []seg
	cur, t := l.At(from), from
	for i := sort.Search(len(l.t), func(i int) bool { return l.t[i] > from }); i < len(l.t) && l.t[i] < to; i++ {
		segs = append(segs, seg{cur, uint64(l.t[i] - t)})
		cur, t = l.v[i], l.t[i]
	}
	segs = append(segs, seg{cur, uint64(to - t)})
	sort.Slice(segs, func(i, j int) bool { return segs[i].v < segs[j].v })
	total := uint64(to - from)
	need := p * float64(total)
	var acc uint64
	for _, s := range segs {
		acc += s.d
		if float64(acc) >= need {
			return s.v
		}
	}
	return segs[len(segs)-1].v
}

// SettleCycle returns the first cycle c in [from, to) from which the queue
// stays below x bytes until to, and false if it is at or above x in the
// last cycle before to.
func (l *QueueLog) SettleCycle(x uint64, from, to engine.Cycle) (engine.Cycle, bool) {
	if l.At(to-1) >= x {
		return to, false
	}
	settle := from
	for i := sort.Search(len(l.t), func(i int) bool { return l.t[i] > from }) - 1; i < len(l.t); i++ {
		if i < 0 {
			continue
		}
		if l.t[i] >= to {
			break
		}
		if l.v[i] >= x && i+1 < len(l.t) {
			settle = max(from, l.t[i+1])
		}
	}
	return settle, true
}
