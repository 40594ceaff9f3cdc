package scheduler

import (
	"math/rand/v2"
	"testing"
)

// TestFlowSetNext checks the two-level bitset arbiter against a plain bool
// slice (the oracle: scan from `from`, wrapping) over random add/remove
// sequences on sizes that cross leaf-word (64) and summary-word (4096)
// boundaries, first with dense then with sparse sets.
func TestFlowSetNext(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 200, 4095, 4096, 4097, 9000} {
		r := rand.New(rand.NewPCG(uint64(n), 3))
		s := newFlowSet(n)
		ref := make([]bool, n)
		count := 0
		naive := func(from int) int {
			for k := 0; k < n; k++ {
				if i := (from + k) % n; ref[i] {
					return i
				}
			}
			return -1
		}
		for step := 0; step < 4000; step++ {
			i := r.IntN(n)
			if r.IntN(3) == 0 && n > 100 {
				i = (r.IntN(n/64+1)*64 + r.IntN(3) - 1 + n) % n // near word edges
			}
			// First half: dense (add or remove at random); second half: sparse
			// (a few members far apart, so the summary level is exercised).
			add := r.IntN(2) == 0
			if step >= 2000 {
				add = r.IntN(count+1) == 0
				if !add && count > 0 {
					for !ref[i] { // remove an existing member
						i = r.IntN(n)
					}
				}
			}
			if add {
				s.add(uint32(i))
				if !ref[i] {
					count++
				}
				ref[i] = true
			} else {
				s.remove(uint32(i))
				if ref[i] {
					count--
				}
				ref[i] = false
			}
			from := r.IntN(n)
			if got, want := s.next(uint32(from)), naive(from); got != want {
				t.Fatalf("n=%d step %d: next(%d) = %d, want %d", n, step, from, got, want)
			}
			if s.n != count || s.has(uint32(i)) != ref[i] {
				t.Fatalf("n=%d step %d: n=%d has(%d)=%v; want %d, %v", n, step, s.n, i, s.has(uint32(i)), count, ref[i])
			}
		}
	}
}
