package fixedpoint

import "sync/atomic"

// mulPlans is the plan cache of plain MulCast: the one package-level
// variable besides constant tables. It is a memo of a pure function (the
// plan64 of a pair of operand formats, a target and two modes, exactly what
// NewMulCaster derives), so no result depends on its contents, only the
// time a call takes. It is safe for concurrent use and never blocks: a slot
// holds an atomic pointer to a fully built entry that is never modified,
// read by an atomic load and replaced by an atomic store. A miss runs the
// 64-bit cast engine (what every call did before the cache) and stores its
// key's plan when the slot is empty or has missed mulPlanReplace times
// since its last store, so keys that share a slot and alternate cost at
// most one allocation per mulPlanReplace calls, and a slot taken by a key
// used once is soon given to a key used often.
var mulPlans mulPlanCache

// mulPlanReplace is the number of misses after which a slot's plan is
// replaced by the missing key's.
const mulPlanReplace = 64

// mulPlanBits is log2 of the number of slots of the MulCast plan cache (a
// slot holds one key). A datapath uses a few dozen format pairs.
const mulPlanBits = 8

// mulPlanCache is a direct-mapped cache of immutable MulCast plans: plans[i]
// is slot i's plan (nil: none yet), misses[i] the misses since it was
// stored. The plans are an array of bare pointers (8 bytes a slot) so that
// a lookup is one scaled load; the counters, touched only on misses, live
// apart.
type mulPlanCache struct {
	plans  [1 << mulPlanBits]atomic.Pointer[mulPlanEntry]
	misses [1 << mulPlanBits]atomic.Uint32
}

// mulPlanEntry is one cached plan and its full key. It is never modified
// after it is stored.
type mulPlanEntry struct {
	pxy  uint64 // the operands' packed formats, X low, Y high (both valid, at most 64 bits wide)
	to   Format // the target (valid)
	q    Quantization
	o    Overflow
	plan plan64
}

// mulPlanIndex returns the slot of the key (xp, yp, to, ...): the top
// mulPlanBits bits of the sum of the key parts, each times its own odd
// constant (the xxHash32 primes, in the order that spreads the structured
// key sets of TestMulPlanIndexSpread as a random index would). The products
// are independent, so the index is ready one multiply and two adds after
// the operand formats are: the lookup is on every MulCast's dependency
// chain, and the former index (the parts combined by shifts and xors, then
// one 64-bit multiply) put four more steps on it. The modes are compared
// but not hashed: a datapath mostly uses one rounding mode. Any key maps to
// some slot; MulCast compares the entry's full key before using its plan.
func mulPlanIndex(xp, yp pfmt, to Format) uint32 {
	return (uint32(xp)*0x9e3779b1 + uint32(yp)*0xc2b2ae3d + (uint32(to.W)*0x85ebca77 + uint32(to.I)*0x27d4eb2f)) >> (32 - mulPlanBits)
}

// miss is MulCast for a key without a cached plan: the 64-bit cast engine
// (with every argument checked), and, when the operands are at most 64
// bits wide and the plan's fast path applies, the plan stored in the key's
// slot if the slot is empty or has missed mulPlanReplace times.
func (c *mulPlanCache) miss(x, y Value, to Format, q Quantization, o Overflow) (Value, error) {
	v, err := mulCastEngine(x, y, to, q, o)
	if err != nil {
		return v, err
	}
	// mulCastEngine accepted the arguments: both operands have formats, to
	// and the modes are valid.
	if uint8(x.p) > 64 || uint8(y.p) > 64 {
		return v, nil
	}
	i := mulPlanIndex(x.p, y.p, to)
	if c.plans[i].Load() != nil && c.misses[i].Add(1) < mulPlanReplace {
		return v, nil
	}
	if p, ok := newPlan64(x.p.frac()+y.p.frac()-to.F(), to, q, o); ok {
		c.plans[i].Store(&mulPlanEntry{pxy: uint64(x.p) | uint64(y.p)<<32, to: to, q: q, o: o, plan: p})
		c.misses[i].Store(0)
	}
	return v, nil
}
