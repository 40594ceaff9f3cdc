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

// mulPlanSlots is the number of slots of the MulCast plan cache (a power of
// two; a slot holds one key). A datapath uses a few dozen format pairs.
const mulPlanSlots = 256

// mulPlanCache is a direct-mapped cache of immutable MulCast plans.
type mulPlanCache struct {
	slots [mulPlanSlots]mulPlanSlot
}

// mulPlanSlot is one slot: its plan (nil: none yet) and the misses since
// the plan was stored.
type mulPlanSlot struct {
	p      atomic.Pointer[mulPlanEntry]
	misses atomic.Uint32
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

// slot returns the slot of the key (pxy, to, ...): a multiplicative hash of
// the operand formats and the target's W and I (the modes are compared but
// not hashed: a datapath mostly uses one rounding mode).
func (c *mulPlanCache) slot(pxy uint64, to Format) *mulPlanSlot {
	h := (pxy ^ uint64(to.W)<<9 ^ uint64(to.I)<<41) * 0x9e3779b97f4a7c15
	return &c.slots[h>>(64-8)&(mulPlanSlots-1)]
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
	pxy := uint64(x.p) | uint64(y.p)<<32
	s := c.slot(pxy, to)
	if s.p.Load() != nil && s.misses.Add(1) < mulPlanReplace {
		return v, nil
	}
	if p, ok := newPlan64(x.p.frac()+y.p.frac()-to.F(), to, q, o); ok {
		s.p.Store(&mulPlanEntry{pxy: pxy, to: to, q: q, o: o, plan: p})
		s.misses.Store(0)
	}
	return v, nil
}
