package fixedpoint

import (
	"fmt"
	"math"
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
	for i := range mulPlans.plans {
		mulPlans.plans[i].Store(nil)
		mulPlans.misses[i].Store(0)
	}
}

// lookup returns the plan entry cached for the key, or nil: MulCast's
// lookup, for the tests.
func (c *mulPlanCache) lookup(x, y Value, to Format, q Quantization, o Overflow) *mulPlanEntry {
	e := c.plans[mulPlanIndex(x.p, y.p, to)].Load()
	if e == nil || e.pxy != uint64(x.p)|uint64(y.p)<<32 || e.to != to || e.q != q || e.o != o {
		return nil
	}
	return e
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
		if mulPlans.lookup(x, y, k.to, k.q, k.o) != nil {
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
	if mulPlans.lookup(x, y, to, Rnd, Sat) == nil {
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

// TestMulPlanIndexSpread: the plan cache's index spreads the key sets a
// datapath has over the slots about as a uniformly random assignment would.
// The oracle is that assignment's expected number of keys that find their
// slot taken, n - S(1 - (1 - 1/S)^n) for n keys and S slots: each set may
// have at most twice that plus one. The sets are structured as datapaths
// are (one operand pair into many targets that differ in I only, many
// operand pairs that differ in I only into one target, a grid of widths
// and integer bits) and random, so an index that ignores a key part or
// folds it away (an early version dropped the target's I) fails.
func TestMulPlanIndexSpread(t *testing.T) {
	type key struct {
		x, y pfmt
		to   Format
	}
	f := func(w, i int, s bool) Format { return Format{W: w, I: i, Signed: s} }
	sets := map[string][]key{}
	x, y := pack(f(32, 16, true)), pack(f(32, 8, false))
	for w := 16; w <= 32; w += 16 {
		for i := 0; i < 16; i++ {
			sets["one pair, targets of I 0..15"] = append(sets["one pair, targets of I 0..15"], key{x, y, f(w, i, true)})
		}
	}
	for _, w := range []int{16, 24, 32} {
		for i := 0; i < 12; i++ {
			sets["pairs of I 0..11, one target"] = append(sets["pairs of I 0..11, one target"], key{pack(f(w, i, true)), pack(f(w, i+2, false)), f(32, 20, true)})
		}
	}
	for _, w := range []int{8, 16, 24, 32, 48, 64} {
		for i := 0; i <= w; i += 4 {
			for _, s := range []bool{false, true} {
				sets["squares, widths 8..64"] = append(sets["squares, widths 8..64"], key{pack(f(w, i, s)), pack(f(w, i, s)), f(w, i, s)})
			}
		}
	}
	r := rand.New(rand.NewSource(37))
	for _, n := range []int{16, 64, 128} {
		name := fmt.Sprintf("%d random keys", n)
		for len(sets[name]) < n {
			sets[name] = append(sets[name], key{pack(randFormat(r, 64)), pack(randFormat(r, 64)), randFormat(r, 64)})
		}
	}
	const slots = 1 << mulPlanBits
	for name, ks := range sets {
		seen := map[key]bool{}
		used := map[uint32]bool{}
		for _, k := range ks {
			if !seen[k] {
				seen[k] = true
				used[mulPlanIndex(k.x, k.y, k.to)] = true
			}
		}
		n := float64(len(seen))
		want := n - slots*(1-math.Pow(1-1.0/slots, n))
		got := len(seen) - len(used)
		if float64(got) > 2*want+1 {
			t.Errorf("%s: %d keys, %d find their slot taken; a random index gives %.1f on average", name, len(seen), got, want)
		}
		t.Logf("%s: %d keys, %d find their slot taken (random index: %.1f)", name, len(seen), got, want)
	}
}
