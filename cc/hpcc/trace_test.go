package hpcc

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// traceGen synthesizes a long telemetry trace for one flow: random hop
// counts and speeds, links between 30% and 100% busy, incast episodes where
// one hop's queue grows by 2-15 KB per ACK and then drains, utilization
// wandering around eta, counters that
// start just below their wrap, duplicate telemetry (dts = 0), idle gaps
// beyond MaxDeltaTsNs, and rare path changes (hop count or, for IFA, one
// hop's identity).
type traceGen struct {
	c    Config
	rng  *rand.Rand
	sp   []uint32
	now  uint64
	seq  uint64
	nh   int
	hops [MaxHopsLimit]struct {
		speed   uint32
		sw      uint32
		tx      uint64
		q       uint64
		busy    float64
		incast  int // remaining ACKs of an incast episode
		tsSkew  uint64
		drainBy uint64
	}
}

func newTraceGen(c Config, seed uint64) *traceGen {
	g := &traceGen{c: c, rng: rand.New(rand.NewPCG(seed, 0x5eed)), sp: validSpeeds(c.Encoding, c.MaxLinkSpeedGbps)}
	g.now = uint64(1)<<62 + g.rng.Uint64N(1<<40) // far from 0: exercises the ts wrap arithmetic
	g.nh = 1 + g.rng.IntN(c.MaxHops)
	for i := range g.hops {
		h := &g.hops[i]
		h.speed = g.sp[g.rng.IntN(len(g.sp))]
		h.sw = uint32(i + 1)
		h.tx = c.Encoding.TxWrapBytes() - g.rng.Uint64N(1<<20) // wraps soon
		h.busy = 0.5 + 0.5*g.rng.Float64()
		h.tsSkew = g.rng.Uint64N(3000)
	}
	return g
}

func (g *traceGen) next() Input {
	c := g.c
	r := g.rng
	// Time step: mostly 50 ns .. 2 us; sometimes a duplicate, sometimes an
	// idle gap beyond MaxDeltaTsNs.
	dt := uint64(50 + r.IntN(1950))
	switch x := r.IntN(1000); {
	case x < 10:
		dt = 0
	case x < 12:
		dt = c.MaxDeltaTsNs + 1 + r.Uint64N(c.MaxDeltaTsNs)
	}
	g.now += dt
	if r.IntN(2000) == 0 { // path change: hop count
		g.nh = 1 + r.IntN(c.MaxHops)
	}
	if r.IntN(3000) == 0 { // path change: one hop's identity
		g.hops[r.IntN(c.MaxHops)].sw += 100
	}
	g.seq += 1000
	in := Input{Seq: g.seq, SndNxt: g.seq + 60000, NowNs: g.now, NFlows: uint32(1 + r.IntN(64)), NHops: uint8(g.nh)}
	for i := 0; i < g.nh; i++ {
		h := &g.hops[i]
		b := float64(h.speed) / 8
		// Utilization random walk in [0.5, 1.05]: U crosses eta often.
		h.busy = math.Min(1.05, math.Max(0.5, h.busy+0.02*(r.Float64()-0.5)))
		if dt > c.MaxDeltaTsNs {
			h.tx += uint64(float64(c.MaxDeltaTsNs) * b * h.busy) // gap: counter moved, sample will be stale
		} else {
			h.tx += uint64(float64(dt) * b * math.Min(1, h.busy))
		}
		if h.incast == 0 && r.IntN(600) == 0 {
			h.incast = 20 + r.IntN(80)
			h.drainBy = uint64(5000 + r.IntN(25000))
		}
		if h.incast > 0 {
			h.q += uint64(2000 + r.IntN(13000))
			h.incast--
		} else {
			h.q -= min(h.q, h.drainBy)
		}
		p := telemetry.Physical{SwitchID: h.sw, PortID: 7, SpeedGbps: h.speed, TsNs: g.now + h.tsSkew, TxBytes: h.tx, QlenBytes: h.q}
		hop, err := telemetry.FromPhysical(c.Encoding, p)
		if err != nil {
			panic(err) // generator bug: all values are in range by construction
		}
		if c.Encoding == telemetry.IFA && r.IntN(3) == 0 {
			// Move part of the time into the residence field (same egress time).
			res := uint32(min(uint64(hop.RxNs), uint64(r.IntN(5000))))
			hop.RxNs -= res
			hop.ResidenceNs = res
		}
		in.Hops[i] = hop
	}
	return in
}

// traceStats summarizes a trace comparison.
type traceStats struct {
	acks, resyncs, nearEta, nearTie, incDiff int
	maxWRel, maxUAbs                         float64
	windowMax                                []float64 // max W rel error per 1000 ACKs
}

// runTrace steps both models independently through n ACKs. When the MI/AI
// decision, the selected hop or incStage differ, the case must be a
// near-eta or near-tie case (checked against the per-step bounds widened by
// the state difference accumulated so far), is counted, and the float state
// is re-synchronized to the fixed state; otherwise W must stay within band
// (relative) of the float W.
func runTrace(t *testing.T, d *Datapath, r *Reference, seed uint64, n int, band float64) traceStats {
	g := newTraceGen(d.cfg, seed)
	b := d.ErrorBounds()
	c := d.cfg
	st, rs := d.InitialState(), r.InitialState()
	var s traceStats
	wmax := 0.0
	for k := 0; k < n; k++ {
		in := g.next()
		uDrift := math.Abs(d.UValue(st.U) - rs.U) // state difference carried in
		next, o := d.Update(st, in)
		rnext, ro := r.Update(rs, in)
		s.acks++
		if o.HopValid != ro.HopValid || o.UpdateWc != ro.UpdateWc || o.First != ro.First {
			t.Fatalf("seed %d ack %d: flags differ: fixed %+v float %v", seed, k, o, ro)
		}
		u := d.UValue(next.U)
		uTol := b.URel*ro.U + b.UAbs + uDrift
		diverged := false
		switch {
		case o.SelHop != ro.SelHop:
			a, bb := ro.HopU[sel(o.SelHop)], ro.HopU[sel(ro.SelHop)]
			if math.Abs(a-bb) > 2*(b.HopRel*math.Max(a, bb)+b.HopAbs) {
				t.Fatalf("seed %d ack %d: selected hop fixed %d float %d, u' %v vs %v", seed, k, o.SelHop, ro.SelHop, a, bb)
			}
			s.nearTie++
			diverged = true
		case math.Abs(u-ro.U) > uTol:
			t.Fatalf("seed %d ack %d: U fixed %.12g float %.12g beyond %.3g", seed, k, u, ro.U, uTol)
		case o.MI != ro.MI:
			if math.Abs(ro.U-c.Eta) > uTol+b.EtaAbs {
				t.Fatalf("seed %d ack %d: MI fixed %v float %v at U=%.12g (not near eta)", seed, k, o.MI, ro.MI, ro.U)
			}
			s.nearEta++
			diverged = true
		case int(o.IncStage) != ro.IncStage:
			s.incDiff++
			diverged = true
		}
		s.maxUAbs = math.Max(s.maxUAbs, math.Abs(u-ro.U))
		if diverged {
			s.resyncs++
			rnext = d.RefState(next)
		} else {
			rel := math.Abs(d.WBytes(next.W)-ro.W) / ro.W
			if rel > band {
				t.Fatalf("seed %d ack %d: W fixed %.9g float %.9g: relative %.3g beyond band %.3g", seed, k, d.WBytes(next.W), ro.W, rel, band)
			}
			s.maxWRel = math.Max(s.maxWRel, rel)
			wmax = math.Max(wmax, rel)
		}
		if (k+1)%1000 == 0 {
			s.windowMax = append(s.windowMax, wmax)
			wmax = 0
		}
		st, rs = next, rnext
	}
	return s
}

// TestTraceNoDrift: over long random traces (12,000 ACKs per seed, both
// encodings, both modes) the fixed-point W trajectory stays within the band
// 2^-10 of the independently stepped float trajectory, incStage and the
// MI/AI decision agree except near eta (or at a near-tie of two hops'
// u'), and those cases stay rare (below 1% of ACKs). No drift: the worst
// error of the last 1000 ACKs is not above the band and no larger than 4x
// the worst of the first 2000 plus one per-step bound.
func TestTraceNoDrift(t *testing.T) {
	const n = 12000
	const band = 1.0 / 1024
	for _, nc := range testConfigs() {
		d, r := mustDP(t, nc.Config), mustRef(t, nc.Config)
		b := d.ErrorBounds()
		for _, seed := range []uint64{1, 2, 3} {
			s := runTrace(t, d, r, seed, n, band)
			if s.resyncs > n/100 {
				t.Errorf("%s seed %d: %d divergences (near-eta %d, near-tie %d, incStage %d) in %d ACKs: more than 1%%",
					nc.name(), seed, s.resyncs, s.nearEta, s.nearTie, s.incDiff, n)
			}
			first := math.Max(s.windowMax[0], s.windowMax[1])
			last := s.windowMax[len(s.windowMax)-1]
			if last > 4*first+b.WRel {
				t.Errorf("%s seed %d: drift: last-window W error %.3g vs first %.3g", nc.name(), seed, last, first)
			}
			t.Logf("%s seed %d: %d ACKs, max W rel %.3g (2^%.1f), max |dU| %.3g, near-eta %d, near-tie %d, incStage-only %d",
				nc.name(), seed, s.acks, s.maxWRel, math.Log2(s.maxWRel), s.maxUAbs, s.nearEta, s.nearTie, s.incDiff)
		}
	}
}
