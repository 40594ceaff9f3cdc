package scheduler

import "math/bits"

// flowSet is the eligible-flow vector of a rotating-priority arbiter: leaf
// bit i is set when flow i is eligible, summary bit w when leaf word w is
// non-zero. next(from) finds the first member at or after from, wrapping, in
// O(words of the summary) = O(Flows/4096) plus constant work, which is what
// keeps a decision cheap with many active flows.
type flowSet struct {
	leaf    []uint64
	summary []uint64
	n       int // members
}

func newFlowSet(n int) flowSet {
	words := (n + 63) / 64
	return flowSet{leaf: make([]uint64, words), summary: make([]uint64, (words+63)/64)}
}

func (s *flowSet) has(i uint32) bool { return s.leaf[i>>6]&(1<<(i&63)) != 0 }

func (s *flowSet) add(i uint32) {
	w := i >> 6
	m := uint64(1) << (i & 63)
	if s.leaf[w]&m != 0 {
		return
	}
	s.leaf[w] |= m
	s.summary[w>>6] |= 1 << (w & 63)
	s.n++
}

func (s *flowSet) remove(i uint32) {
	w := i >> 6
	m := uint64(1) << (i & 63)
	if s.leaf[w]&m == 0 {
		return
	}
	s.leaf[w] &^= m
	if s.leaf[w] == 0 {
		s.summary[w>>6] &^= 1 << (w & 63)
	}
	s.n--
}

// firstFrom returns the smallest member >= from, or -1.
func (s *flowSet) firstFrom(from uint32) int {
	w := from >> 6
	if int(w) >= len(s.leaf) {
		return -1
	}
	if x := s.leaf[w] &^ (1<<(from&63) - 1); x != 0 {
		return int(w)<<6 | bits.TrailingZeros64(x)
	}
	// Next non-zero leaf word after w, through the summary.
	w++
	for sw := int(w >> 6); sw < len(s.summary); sw++ {
		x := s.summary[sw]
		if sw == int(w>>6) {
			x &^= 1<<(w&63) - 1
		}
		if x != 0 {
			lw := sw<<6 | bits.TrailingZeros64(x)
			return lw<<6 | bits.TrailingZeros64(s.leaf[lw])
		}
	}
	return -1
}

// next returns the first member at or after from, wrapping to 0, or -1 when
// the set is empty.
func (s *flowSet) next(from uint32) int {
	if s.n == 0 {
		return -1
	}
	if i := s.firstFrom(from); i >= 0 {
		return i
	}
	return s.firstFrom(0)
}
