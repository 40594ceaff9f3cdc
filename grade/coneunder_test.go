package grade

import (
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
)

// TestConeRangesMatchesUnder checks ConeRanges against the analysis it
// abbreviates. Oracle: knownBitsUnder over the whole module (the analysis
// ValueRangesWhere and the path proofs run) with the same bounds: at every
// target the Range must be identical, and so must the verdict that no
// input meets the bounds. Bounds: random intervals (a table entry's piece,
// a binade, a single value) of hop 0's MultiQ reciprocal input mq_y and
// its 1/dts unit input, alone and together, on the MultiQ hpcc_update; the
// targets are the reciprocal outputs and the products that read them.
func TestConeRangesMatchesUnder(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	cfg.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		t.Fatal(err)
	}
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*rtl.Node{}
	for _, n := range f.Nodes {
		byName[n.Name] = n
	}
	y, rq, u := byName["h0_mq_y"], byName["h0_recip_mq"], byName["h0_u_nbl"]
	if y == nil || rq == nil || u == nil {
		t.Fatal("no h0_mq_y, h0_recip_mq or h0_u_nbl in the MultiQ hpcc_update")
	}
	// the 1/dts unit's input: the first normalizer's operand
	p := newProver(f)
	norms := p.normalizers()
	if len(norms) == 0 {
		t.Fatal("no normalizer")
	}
	dts := norms[0]
	targets := []*rtl.Node{rq, u, y, byName["h0_mq_rho"], byName["h0_q_term_bl"]}
	cr, err := NewConeRanges(f, []*rtl.Node{y, dts}, targets)
	if err != nil {
		t.Fatal(err)
	}
	if cr.Cone() == 0 || cr.Cone() >= len(f.Nodes)/2 {
		t.Fatalf("cone of %d nodes of %d", cr.Cone(), len(f.Nodes))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	piece := func(w int) (lo, hi uint64) {
		l := 1 + rng.IntN(w)
		lo = uint64(1) << uint(l-1)
		switch rng.IntN(3) {
		case 0: // a binade
			return lo, lo<<1 - 1
		case 1: // one 2^-10 piece of it
			if l > 11 {
				s := uint64(1) << uint(l-11)
				lo += uint64(rng.IntN(1024)) * s
				return lo, lo + s - 1
			}
		}
		return lo, lo // one value
	}
	met := 0
	for i := 0; i < 60; i++ {
		var bs []Bound
		var ks []*bound
		if i%3 != 2 {
			lo, hi := piece(y.Width)
			bs, ks = append(bs, Bound{y, lo, hi}), append(ks, &bound{id: y.ID, lo: lo, hi: hi})
		}
		if i%3 != 0 {
			lo, hi := piece(dts.Width)
			bs, ks = append(bs, Bound{dts, lo, hi}), append(ks, &bound{id: dts.ID, lo: lo, hi: hi})
		}
		got, ok := cr.Under(bs...)
		want, wok := knownBitsUnder(f, ks...)
		if ok != wok {
			t.Fatalf("bounds %v: met %v, knownBitsUnder says %v", bs, ok, wok)
		}
		if !ok {
			continue
		}
		met++
		for j, tg := range targets {
			k := want[tg.ID]
			w := Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
			if got[j] != w {
				t.Fatalf("bounds %v: %s: %+v, knownBitsUnder %+v", bs, tg.Name, got[j], w)
			}
		}
	}
	if met < 30 {
		t.Fatalf("only %d of 60 bound sets met: the comparison checks too little", met)
	}
	// and the base analysis is restored after each run
	if got, _ := cr.Under(); got[0] != ValueRanges(f)[rq.ID] {
		t.Fatalf("unbounded run after bounded ones: %+v, ValueRanges %+v", got[0], ValueRanges(f)[rq.ID])
	}
}
