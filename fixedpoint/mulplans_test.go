package fixedpoint

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"
)

// mulCastKey is one MulCast argument set without the operand values.
type mulCastKey struct {
	fx, fy, to Format
	q          Quantization
	o          Overflow
}

// randMulCastKeys draws n keys: operand formats up to 80 bits wide (wider
// than 64 never take a plan), targets up to 64 bits, every mode, and now
// and then an invalid target or mode (to.W + 256 packs like to.W and must
// still be refused).
func randMulCastKeys(r *rand.Rand, n int) []mulCastKey {
	ks := make([]mulCastKey, n)
	for i := range ks {
		k := mulCastKey{randFormat(r, 80), randFormat(r, 80), randFormat(r, 64), Quantization(r.Intn(7)), Overflow(r.Intn(4))}
		switch r.Intn(40) {
		case 0:
			k.to.W = 0
		case 1:
			k.q = numQuantization
		case 2:
			k.o = numOverflow
		case 3:
			k.to.W += 256
		}
		ks[i] = k
	}
	return ks
}

// clearMulPlans empties the shared plan cache, as it is at the start of a
// process (the tests of this package do not run in parallel).
func clearMulPlans() {
	for i := range mulPlans.slots {
		mulPlans.slots[i].p.Store(nil)
		mulPlans.slots[i].misses.Store(0)
	}
}

// TestMulCastPlanCache: MulCast through the plan cache (emptied first; its
// plans are stored once a key has been seen and its slot was free or
// missed often) gives
// for every call what the 64-bit cast engine gives (mulCastEngine, the
// path every call took before the cache; TestPropFastSlowPaths and the
// SystemC tests pin that one to math/big and SystemC) and what the key's
// MulCaster gives: the same Value or an error with the same text. 600
// random keys (more than the cache's 256 slots, so keys share slots and
// replace each other's plans) are called in random order, with values
// biased to MIN, MAX and their neighbours and now and then a zero Value.
// The test fails unless both hits and misses occurred.
func TestMulCastPlanCache(t *testing.T) {
	r := rand.New(rand.NewSource(29))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	keys := randMulCastKeys(r, 600)
	clearMulPlans()
	hits, misses := 0, 0
	for i := 0; i < n; i++ {
		k := keys[r.Intn(len(keys))]
		x, y := randValue(r, k.fx), randValue(r, k.fy)
		if r.Intn(50) == 0 {
			x = Value{}
		}
		pxy := uint64(x.p) | uint64(y.p)<<32
		if e := mulPlans.slot(pxy, k.to).p.Load(); e != nil && e.pxy == pxy && e.to == k.to && e.q == k.q && e.o == k.o {
			hits++
		} else {
			misses++
		}
		got, gerr := MulCast(x, y, k.to, k.q, k.o)
		want, werr := mulCastEngine(x, y, k.to, k.q, k.o)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
			t.Fatalf("MulCast(%s, %s, %s, %v, %v) = %v, %v; the cast engine gives %v, %v",
				x.Format(), y.Format(), k.to, k.q, k.o, got, gerr, want, werr)
		}
		if werr == nil {
			c, err := NewMulCaster(k.fx, k.fy, k.to, k.q, k.o)
			if err != nil {
				t.Fatal(err)
			}
			if p := c.MulCast(x, y); p != got {
				t.Fatalf("MulCast(%s, %s, %s, %v, %v) = %v; MulCaster gives %v", x.Format(), y.Format(), k.to, k.q, k.o, got, p)
			}
		}
	}
	if hits == 0 || misses == 0 {
		t.Fatalf("%d plan hits and %d misses: the test must see both", hits, misses)
	}
	t.Logf("%d calls: %d plan hits, %d misses", n, hits, misses)
}

// TestMulCastPlanCacheConcurrent: goroutines calling MulCast (the shared
// cache) on the same
// random keys at once (so that they race to store plans into the same
// slots) each get the cast engine's result. Run it under -race to check
// the cache's synchronization.
func TestMulCastPlanCacheConcurrent(t *testing.T) {
	keys := randMulCastKeys(rand.New(rand.NewSource(31)), 400)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := 0; g < 4; g++ { // 400 keys: slots are stored and replaced while others read them
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			r := rand.New(rand.NewSource(seed))
			for i := 0; i < 5000; i++ {
				k := keys[r.Intn(len(keys))]
				x, y := randValue(r, k.fx), randValue(r, k.fy)
				got, gerr := MulCast(x, y, k.to, k.q, k.o)
				want, werr := mulCastEngine(x, y, k.to, k.q, k.o)
				if fmt.Sprint(werr) != fmt.Sprint(gerr) || got != want {
					errs <- fmt.Errorf("MulCast(%s, %s, %s, %v, %v) = %v, %v; the cast engine gives %v, %v",
						x.Format(), y.Format(), k.to, k.q, k.o, got, gerr, want, werr)
					return
				}
			}
		}(int64(g))
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// TestMulCastAllocs: a plan hit allocates nothing, and two keys that share
// a slot and alternate allocate at most once per mulPlanReplace misses.
func TestMulCastAllocs(t *testing.T) {
	clearMulPlans()
	fx, fy, to := MustFormat("s31.15"), MustFormat("u29.7"), MustFormat("s33.21")
	x, y := mustV(FromInt(fx, -3, Sat)), mustV(FromInt(fy, 5, Sat))
	mustV(MulCast(x, y, to, Rnd, Sat))
	if e := mulPlans.slot(uint64(x.p)|uint64(y.p)<<32, to).p.Load(); e == nil {
		t.Fatal("no plan stored in an empty cache")
	}
	if a := testing.AllocsPerRun(100, func() { mustV(MulCast(x, y, to, Rnd, Sat)) }); a != 0 {
		t.Errorf("plan hit: %v allocations per call", a)
	}
	// A second key in the same slot: the same formats, another mode.
	i := 0
	a := testing.AllocsPerRun(1000, func() {
		i++
		mustV(MulCast(x, y, to, []Quantization{Rnd, Trn}[i&1], Sat))
	})
	// AllocsPerRun averages in integers: 0 means fewer allocations than
	// calls (about one per mulPlanReplace); a store on every miss gives 1.
	if a != 0 {
		t.Errorf("alternating keys of one slot: %v allocations per call", a)
	}
}
