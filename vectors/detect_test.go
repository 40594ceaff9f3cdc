package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// detectConfigs are the configurations of the detection tests: the
// default ones, and reciprocal units with other table sizes and
// Newton-Raphson step counts (0 and 2 steps), so that the traced unit
// runs every path of fixedpoint.RawReciprocal.Recip.
func detectConfigs(t *testing.T) map[string]hpcc.Config {
	cs := hpccConfigs()
	a := hpcc.DefaultConfig()
	a.RecipDts = hpcc.RecipParams{TableBits: 6, EntryBits: 12, NRSteps: 2}
	a.RecipU = hpcc.RecipParams{TableBits: 6, EntryBits: 8, NRSteps: 0}
	cs["recip_6_12_2"] = a
	for name, c := range cs {
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return cs
}

// TestRecipTraceMatchesRecip checks recipTrace, the one run of a
// reciprocal unit the detectors share, against its oracles: the unit's
// own Recip (the output) and lowBits (the Newton result's low bits,
// computed by the wide casts), on both units of every configuration of
// detectConfigs, for log-uniform inputs, every power of two and its
// neighbours, 0 and inputs wider than the unit's In register (traced as
// not traceable: p = -1, the output still Recip's).
func TestRecipTraceMatchesRecip(t *testing.T) {
	for name, cfg := range detectConfigs(t) {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.cx == nil || m.cx.w == nil {
			t.Fatalf("%s: no constructed classes", name)
		}
		units := []struct {
			name string
			rr   *fixedpoint.RawReciprocal
			rc   fixedpoint.ReciprocalConfig
		}{{"recip_dts", &m.cx.a.recip, m.cx.a.recipCfg}, {"recip_u", &m.cx.w.recip, m.cx.w.rc}}
		for _, u := range units {
			inW := u.rc.In.W
			xs := []uint64{0, 1, 2, 3}
			for p := 0; p < 64; p++ {
				xs = append(xs, uint64(1)<<uint(p), uint64(1)<<uint(p)-1, uint64(1)<<uint(p)+1)
			}
			r := NewRand(21, 0)
			for n := 0; n < 20000; n++ {
				xs = append(xs, r.LogUniform(uint64(1)<<uint(inW)-1))
			}
			for _, x := range xs {
				out, y, p := recipTrace(u.rr, inW, x)
				if want := u.rr.Recip(x); out != want {
					t.Fatalf("%s %s: recipTrace(%#x) = %#x, Recip %#x", name, u.name, x, out, want)
				}
				traceable := x != 0 && x>>uint(inW) == 0
				if traceable != (p >= 0) {
					t.Fatalf("%s %s: recipTrace(%#x): p = %d, want traced = %v", name, u.name, x, p, traceable)
				}
				if p < 0 {
					continue
				}
				c1, d1, ok1 := lowBitsAt(u.rc, u.rr.NRSteps(), y, p)
				c2, d2, ok2 := lowBits(u.rr, u.rc, x)
				if c1 != c2 || d1 != d2 || ok1 != ok2 {
					t.Fatalf("%s %s: x=%#x: lowBitsAt = %d,%d,%v, lowBits %d,%d,%v", name, u.name, x, c1, d1, ok1, c2, d2, ok2)
				}
			}
		}
	}
}

// TestDetectCachesMatchFresh checks that the constructed classes'
// detectors give the same answer with the per-update caches they share
// (hopAt, recipU, wBase, filled by whichever detector asks first and
// reset by observe, from the datapath's trace) as each detector run alone
// on a fresh cache that restates the values (hopArith, recipTrace): the
// oracle is the detector's definition evaluated from scratch. Constrained-
// random vectors and every directed vector (so each class's hits are
// among them) of the detectConfigs configurations.
func TestDetectCachesMatchFresh(t *testing.T) {
	for name, cfg := range detectConfigs(t) {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := m.cx
		ev, _ := m.NewEvaluator()
		e := ev.(*hpccEval)
		out := make([]uint64, m.out.Words())
		hits := NewHits(len(m.classes), 1<<16)
		check := func(what string) {
			if e.o.first {
				return // constructed.detect marks nothing on a first event
			}
			for i, c := range k.classes {
				o := e.o // a copy: fresh caches, the same observation, the values restated (not the datapath's trace)
				o.hvSet, o.urSet, o.wbSet, o.useTrace = 0, false, false, false
				if got, want := hits.Has(k.idx[i]), c.detect(&o); got != want {
					t.Fatalf("%s: %s: class %s: detected %v with the shared caches, %v alone", name, what, c.name, got, want)
				}
			}
		}
		in := make([]uint64, m.in.Words())
		for j := uint64(0); j < 5000; j++ {
			clear(in)
			clear(out)
			hits.resetClasses()
			if err := e.EvalRandom(NewRand(5, j), in, out, hits); err != nil {
				t.Fatal(err)
			}
			check("random vector")
		}
		err = m.Directed(1, func(c int, in []uint64) error {
			clear(out)
			hits.resetClasses()
			if err := e.Eval(in, out, hits); err != nil {
				return err
			}
			check("directed vector of " + m.classes[c].Name)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

// TestCastEdgeFastPath checks castEdge.pre and round, whose 1..63
// dropped-bit casts take a branch-free path, against their definition on
// the u128 operations (shift right by d, add bit d-1; the low d bits
// against one half), for casts of -5..133 dropped bits, random and
// log-uniform products, and products placed at a tie and one below it.
func TestCastEdgeFastPath(t *testing.T) {
	r := NewRand(3, 0)
	for n := 0; n < 1000000; n++ {
		c := castEdge{d: int(r.Below(139)) - 5, max: r.LogUniform(^uint64(0))}
		p := u128{r.LogUniform(^uint64(0)), r.LogUniform(^uint64(0))}
		if r.Below(4) == 0 {
			p.hi = 0
		}
		if c.d >= 1 && c.d <= 64 && r.Below(4) == 0 { // at a tie, or one below
			h := pow2(c.d - 1).lo
			p.lo = p.lo&^(h*2-1) | h
			if r.Below(2) == 0 {
				p.lo--
			}
		}
		var pre u128
		rnd := rndOther
		if c.d < 1 {
			pre = p.shl(-c.d)
		} else {
			pre = p.shr(min(c.d, 127))
			if c.d > 127 {
				pre = u128{}
			}
			if c.d <= 128 && p.bit(c.d-1) {
				pre = pre.add64(1)
			}
			lo, half := p.low(c.d), pow2(min(c.d-1, 127))
			switch {
			case c.d <= 128 && lo.cmp(half) == 0:
				rnd = rndTie
			case c.d >= 2 && c.d <= 128 && lo.add64(1).cmp(half) == 0:
				rnd = rndBelowTie
			}
		}
		if c.d > 128 {
			continue // beyond the casts castEdge describes (d < 128)
		}
		if got := c.pre(p); got != pre {
			t.Fatalf("d=%d p=%#x:%#x: pre = %#x:%#x, want %#x:%#x", c.d, p.hi, p.lo, got.hi, got.lo, pre.hi, pre.lo)
		}
		if got := c.round(p); got != rnd {
			t.Fatalf("d=%d p=%#x:%#x: round = %d, want %d", c.d, p.hi, p.lo, got, rnd)
		}
	}
}

// TestTraceMatchesRestatement checks the per-hop values the detectors read
// from the datapath's run (hpcc.Datapath.StepTrace, through hopAt and
// recipU) against the restatement they computed before (the oracle:
// hopArith.fromRd on recipTrace's 1/dts, recipTrace of the new U, Seed's
// mantissa and entry), field for field, for every valid hop slot and every
// multiplicative step, on constrained-random vectors and the whole level-1
// directed set of the detectConfigs configurations; and that the trace is
// used (its operands are the observed ones) on all but the slots whose
// stored ns is not below 10^9.
func TestTraceMatchesRestatement(t *testing.T) {
	for name, cfg := range detectConfigs(t) {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		k := m.cx
		if k == nil {
			continue
		}
		ev, _ := m.NewEvaluator()
		e := ev.(*hpccEval)
		out := make([]uint64, m.out.Words())
		hits := NewHits(len(m.classes), 1<<16)
		traced, hops := 0, 0
		check := func(what string) {
			o := &e.o
			if o.first || !o.tr.OK {
				return
			}
			for i := 0; i < m.maxHops; i++ {
				if !o.valid[i] {
					continue
				}
				hops++
				a, b := *o, *o
				a.hvSet, b.hvSet, b.useTrace = 0, 0, false
				va, vb := *k.hopAt(&a, i), *k.hopAt(&b, i)
				ra, rb := a.hr[i], b.hr[i]
				if t := &o.tr.Hops[i]; t.Dts == o.dts[i] && t.DB == o.dTx[i] && t.QIn == o.minQ[i] && t.Code == o.code[i] {
					traced++
				}
				if va != vb || ra != rb {
					t.Fatalf("%s: %s: hop %d: traced %+v %+v, restated %+v %+v", name, what, i, va, ra, vb, rb)
				}
			}
			if o.out.MI {
				a, b := *o, *o
				a.urSet, b.urSet, b.useTrace = false, false, false
				if ra, rb := *k.recipU(&a), *k.recipU(&b); ra != rb {
					t.Fatalf("%s: %s: 1/U of U=%#x: traced %+v, restated %+v", name, what, o.next.U, ra, rb)
				}
			}
		}
		in := make([]uint64, m.in.Words())
		for j := uint64(0); j < 20000; j++ {
			clear(in)
			if err := e.EvalRandom(NewRand(7, j), in, out, hits); err != nil {
				t.Fatal(err)
			}
			check("random vector")
		}
		err = m.Directed(1, func(c int, in []uint64) error {
			if err := e.Eval(in, out, hits); err != nil {
				return err
			}
			check("directed vector of " + m.classes[c].Name)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if hops == 0 || traced*10 < hops*9 {
			t.Fatalf("%s: %d of %d valid hops read from the trace", name, traced, hops)
		}
	}
}

// TestSeedEdgeMatchesRecipSeed checks seedEdge (one Seed, the unit's
// narrow casts where it has them) against its definition: the unit's
// output with the table entry one LSB lower and higher (recipSeed, wide
// casts, entry bounds) against Recip, for both units of every
// configuration of detectConfigs, on every power of two and its
// neighbours and log-uniform inputs of the In register.
func TestSeedEdgeMatchesRecipSeed(t *testing.T) {
	for name, cfg := range detectConfigs(t) {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if m.cx == nil || m.cx.w == nil {
			t.Fatalf("%s: no constructed classes", name)
		}
		for _, u := range []struct {
			name     string
			rr       *fixedpoint.RawReciprocal
			inW      int
			entryMax uint64
		}{{"recip_dts", &m.cx.a.recip, m.cx.a.recipCfg.In.W, m.cx.a.recipEntryMax}, {"recip_u", &m.cx.w.recip, m.cx.w.rc.In.W, m.cx.w.recipEntryMax}} {
			var xs []uint64
			for p := 0; p < u.inW; p++ {
				xs = append(xs, uint64(1)<<uint(p), uint64(1)<<uint(p+1)-1, uint64(1)<<uint(p)+1)
			}
			r := NewRand(22, 0)
			for n := 0; n < 50000; n++ {
				xs = append(xs, max(r.LogUniform(uint64(1)<<uint(u.inW)-1), 1))
			}
			edges := 0
			for _, x := range xs {
				want := u.rr.Recip(x)
				vl, okl := recipSeed(u.rr, u.entryMax, x, -1)
				vh, okh := recipSeed(u.rr, u.entryMax, x, 1)
				wl, wh := okl && vl != want, okh && vh != want
				if l, h := seedEdge(u.rr, u.entryMax, x); l != wl || h != wh {
					t.Fatalf("%s %s: seedEdge(%#x) = %v, %v; recipSeed says %v, %v", name, u.name, x, l, h, wl, wh)
				}
				if wl || wh {
					edges++
				}
			}
			if edges == 0 {
				t.Fatalf("%s %s: no input depends on its entry's last bit", name, u.name)
			}
		}
	}
}
