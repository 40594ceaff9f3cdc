package engine

import "math/bits"

// dueSet is a two-level bitset of component IDs: leaf bit i is set when
// component i is due; summary bit w is set when leaf word w may be non-zero.
// Adding is two OR operations; walking the set in ascending ID order costs
// one step per summary word (one per 4096 components) plus one per member,
// so a cycle in which a few of many components are due stays cheap, and the
// order is ascending without sorting.
type dueSet struct {
	leaf    []uint64
	summary []uint64
	any     bool // some bit may be set (exact after add, clear and a walk)
}

// grow makes room for IDs below n.
func (s *dueSet) grow(n int) {
	for len(s.leaf)*64 < n {
		s.leaf = append(s.leaf, 0)
	}
	for len(s.summary)*64 < len(s.leaf) {
		s.summary = append(s.summary, 0)
	}
}

func (s *dueSet) add(id ID) {
	w := uint(id) >> 6
	s.leaf[w] |= 1 << (uint(id) & 63)
	s.summary[w>>6] |= 1 << (w & 63)
	s.any = true
}

func (s *dueSet) has(id ID) bool {
	return s.leaf[uint(id)>>6]&(1<<(uint(id)&63)) != 0
}

// clear empties the set.
func (s *dueSet) clear() {
	for si, sw := range s.summary {
		for sw != 0 {
			b := bits.TrailingZeros64(sw)
			sw &^= 1 << b
			s.leaf[si<<6|b] = 0
		}
		s.summary[si] = 0
	}
	s.any = false
}
