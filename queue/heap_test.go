package queue

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestHeapOrder is a property test: random interleavings of Push and Pop
// (keys drawn from a small range so that ties on Key are common), checked
// against the oracle of a slice kept sorted by (Key, Tie) with the
// standard library's sort: every Pop must return the oracle's least item,
// with its payload, and Min must agree with it.
func TestHeapOrder(t *testing.T) {
	for _, tc := range []struct {
		name      string
		keys      uint64 // keys drawn from [0, keys)
		ops       int
		pushRatio float64
	}{
		{"ties", 4, 5000, 0.6},
		{"spread", 1 << 40, 5000, 0.55},
		{"grow-then-drain", 100, 2000, 1.0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, 2))
			var h Heap[string]
			var oracle []Item[string]
			tie := uint64(0)
			cmp := func(a, b Item[string]) int {
				switch {
				case a.Key != b.Key:
					if a.Key < b.Key {
						return -1
					}
					return 1
				case a.Tie < b.Tie:
					return -1
				case a.Tie > b.Tie:
					return 1
				}
				return 0
			}
			check := func() {
				t.Helper()
				if h.Len() != len(oracle) {
					t.Fatalf("Len %d, oracle %d", h.Len(), len(oracle))
				}
				if len(oracle) == 0 {
					return
				}
				if m := h.Min(); *m != oracle[0] {
					t.Fatalf("Min %+v, oracle %+v", *m, oracle[0])
				}
				got := h.Pop()
				if got != oracle[0] {
					t.Fatalf("Pop %+v, oracle %+v", got, oracle[0])
				}
				oracle = oracle[1:]
			}
			for i := 0; i < tc.ops; i++ {
				if r.Float64() < tc.pushRatio {
					// Ties are distinct but pushed in random order.
					tie = r.Uint64N(1 << 20)
					it := Item[string]{Key: r.Uint64N(tc.keys), Tie: tie<<12 | uint64(i&0xfff), Val: string(rune('a' + i%26))}
					h.Push(it.Key, it.Tie, it.Val)
					j, _ := slices.BinarySearchFunc(oracle, it, cmp)
					oracle = slices.Insert(oracle, j, it)
				} else {
					check()
				}
			}
			for len(oracle) > 0 {
				check()
			}
			if h.Len() != 0 {
				t.Fatalf("Len %d after drain", h.Len())
			}
		})
	}
}

// TestHeapPopZeroes checks that Pop clears the vacated slot (a payload
// holding a reference must not be kept alive by the heap's storage).
func TestHeapPopZeroes(t *testing.T) {
	var h Heap[*int]
	a, b := new(int), new(int)
	h.Push(2, 0, a)
	h.Push(1, 0, b)
	if got := h.Pop(); got.Val != b {
		t.Fatalf("Pop returned %p, want %p", got.Val, b)
	}
	if spare := h.s[:cap(h.s)][1]; spare.Val != nil {
		t.Fatalf("vacated slot still holds %p", spare.Val)
	}
	h.Reset()
	if h.Len() != 0 || h.s[:1][0].Val != nil {
		t.Fatal("Reset left items")
	}
}

// handHeap is the hand-written heap the package replaced (the scheduler's
// calendar before it), kept here as the benchmark's baseline.
type handEntry struct {
	at uint64
	id uint32
}

type handHeap struct{ h []handEntry }

func (c *handHeap) less(i, j int) bool {
	return c.h[i].at < c.h[j].at || (c.h[i].at == c.h[j].at && c.h[i].id < c.h[j].id)
}

func (c *handHeap) push(e handEntry) {
	c.h = append(c.h, e)
	i := len(c.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !c.less(i, p) {
			break
		}
		c.h[i], c.h[p] = c.h[p], c.h[i]
		i = p
	}
}

func (c *handHeap) pop() handEntry {
	e := c.h[0]
	last := len(c.h) - 1
	c.h[0] = c.h[last]
	c.h = c.h[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(c.h) {
			break
		}
		m := l
		if r := l + 1; r < len(c.h) && c.less(r, l) {
			m = r
		}
		if !c.less(m, i) {
			break
		}
		c.h[i], c.h[m] = c.h[m], c.h[i]
		i = m
	}
	return e
}

// BenchmarkHeap compares Heap with the hand-written heap it replaced on a
// steady state of n items (pop the least, push it back later): ns/op is
// one pop plus one push.
func BenchmarkHeap(b *testing.B) {
	for _, n := range []int{16, 1000} {
		b.Run("queue/n="+strconv.Itoa(n), func(b *testing.B) {
			var h Heap[uint32]
			for i := 0; i < n; i++ {
				h.Push(uint64(i*7919%n), uint64(i), uint32(i))
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				it := h.Pop()
				h.Push(it.Key+uint64(n), it.Tie, it.Val)
			}
		})
		b.Run("hand/n="+strconv.Itoa(n), func(b *testing.B) {
			var h handHeap
			for i := 0; i < n; i++ {
				h.push(handEntry{at: uint64(i * 7919 % n), id: uint32(i)})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := h.pop()
				e.at += uint64(n)
				h.push(e)
			}
		})
	}
}
