package hpcc

import (
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// sameDts gives every hop the first hop's dts. The draft's tau follows the
// selected hop (line 7), so with different dts per hop raising one hop's u'
// can move the selection to a hop with a smaller tau and lower U: the
// monotonicity below is a property of the draft only for a common dts (the
// usual case: one ACK samples every hop at nearly the same time).
func (sc stepCase) sameDts() stepCase {
	hs := append([]hopCase(nil), sc.Hops...)
	for i := range hs {
		hs[i].DtsNs = hs[0].DtsNs
	}
	sc.Hops = hs
	return sc
}

// TestPropMonotoneU: more queue (added to a hop's current and previous
// qlen) or more txRate (added per mille of B) at any hop never lowers U, in
// the fixed datapath and in the float reference. Oracle: the algebra of lines
// 5-9 (u' increasing in qlen and txRate, max and EWMA increasing in u').
func TestPropMonotoneU(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		props := gopter.NewProperties(params(1500))
		props.Property(nc.name()+" queue", prop.ForAll(func(sc stepCase, j int, extra uint64) bool {
			sc = sc.sameDts()
			j %= sc.NHops
			more := sc
			more.Hops = append([]hopCase(nil), sc.Hops...)
			more.Hops[j].QlenPrev += extra
			more.Hops[j].QlenCur += extra
			return monotone(t, d, r, sc, more)
		}, genStep(c), gen.IntRange(0, MaxHopsLimit-1), gen.UInt64Range(1, 200000)))
		props.Property(nc.name()+" txRate", prop.ForAll(func(sc stepCase, j int, extra uint64) bool {
			// Physical rates only (<= B): above line rate over a long dts the
			// txBytes counter could wrap, which MaxDeltaTsNs excludes only for
			// rates up to B.
			sc = sc.sameDts()
			sc.Hops = append([]hopCase(nil), sc.Hops...)
			for i := range sc.Hops {
				sc.Hops[i].RatePermille = min(sc.Hops[i].RatePermille, 1000)
			}
			j %= sc.NHops
			more := sc
			more.Hops = append([]hopCase(nil), sc.Hops...)
			more.Hops[j].RatePermille = min(more.Hops[j].RatePermille+extra, 1000)
			return monotone(t, d, r, sc, more)
		}, genStep(c), gen.IntRange(0, MaxHopsLimit-1), gen.UInt64Range(1, 500)))
		props.TestingRun(t)
	}
}

func monotone(t *testing.T, d *Datapath, r *Reference, base, more stepCase) bool {
	st, rs, in := base.build(t, d)
	st2, rs2, in2 := more.build(t, d)
	n1, _ := d.Update(st, in)
	n2, _ := d.Update(st2, in2)
	f1, _ := r.Update(rs, in)
	f2, _ := r.Update(rs2, in2)
	if n2.U < n1.U || f2.U < f1.U {
		t.Logf("U decreased: fixed %d -> %d, float %.17g -> %.17g", n1.U, n2.U, f1.U, f2.U)
		return false
	}
	return true
}

// TestPropDecreaseBound: whenever the new U is at or above eta, W <= Wc +
// W_ai (line 13 with U/eta >= 1), in both models. Oracle: the algebra of
// line 13; the fixed datapath guarantees it with the eta/U <= 1 clamp.
func TestPropDecreaseBound(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		props := gopter.NewProperties(params(3000))
		props.Property(nc.name(), prop.ForAll(func(sc stepCase) bool {
			st, rs, in := sc.build(t, d)
			next, _ := d.Update(st, in)
			rnext, _ := r.Update(rs, in)
			wc := bits64(d.fW, st.Wc)
			boundV, err := fixedpoint.AddCast(wc, d.waiFor(&in), d.fW, fixedpoint.Trn, fixedpoint.Sat)
			if err != nil {
				t.Log(err)
				return false
			}
			bound := boundV.RawUint()
			if fixedpoint.Cmp(bits64(d.fU, next.U), d.eta) >= 0 && next.W > bound {
				t.Logf("fixed: U=%v >= eta but W=%v > Wc+W_ai=%v", d.UValue(next.U), d.WBytes(next.W), d.WBytes(bound))
				return false
			}
			if rnext.U >= c.Eta && rnext.W > (rs.Wc+r.wai(in))*(1+1e-15) {
				t.Logf("float: U=%v >= eta but W=%v > Wc+W_ai=%v", rnext.U, rnext.W, rs.Wc+r.wai(in))
				return false
			}
			return true
		}, genStep(c)))
		props.TestingRun(t)
	}
}

// TestPropWindowBounds: for any bit pattern of state and event (the vector
// generator's random level), the fixed W and Wc written back stay within
// [W_min, W_max] when the old Wc was, and W always does. Oracle: the clamp
// of ComputeWind (documented bound).
func TestPropWindowBounds(t *testing.T) {
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		lo, hi := d.wmin.RawUint(), d.wmax.RawUint()
		props := gopter.NewProperties(params(2000))
		props.Property(nc.name(), prop.ForAll(func(seed uint64) bool {
			st, in := randomStateInput(d, rand.New(rand.NewPCG(seed, 1)))
			next, out := d.Update(st, in)
			if next.W < lo || next.W > hi || out.W != next.W {
				t.Logf("seed %d: W raw %d outside [%d,%d]", seed, next.W, lo, hi)
				return false
			}
			if out.UpdateWc && (next.Wc < lo || next.Wc > hi) {
				t.Logf("seed %d: committed Wc raw %d outside [%d,%d]", seed, next.Wc, lo, hi)
				return false
			}
			return true
		}, gen.UInt64()))
		props.TestingRun(t)
	}
}

// TestPropRxCommitOncePerT: in receiver mode (Rx-HPCC, lines 28-34) Wc is
// committed, and a notification sent, at most once per T: two commits are
// always more than T apart, in both models, for random event streams with
// gaps from 0 to 3T. Oracle: line 29.
func TestPropRxCommitOncePerT(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		if c.Mode != Receiver {
			continue
		}
		d, r := mustDP(t, c), mustRef(t, c)
		props := gopter.NewProperties(params(200))
		props.Property(nc.name(), prop.ForAll(func(seed uint64) bool {
			g := newTraceGen(c, seed)
			rng := rand.New(rand.NewPCG(seed, 2))
			st, rs := d.InitialState(), r.InitialState()
			now := uint64(1) << 31 // TimeBits = 32: the stream crosses the wrap
			var lastF, lastR uint64
			var haveF, haveR bool
			for k := 0; k < 300; k++ {
				in := g.next()
				now += rng.Uint64N(3 * uint64(c.BaseRTTNs))
				in.NowNs = now & mask64(c.TimeBits)
				var o Output
				var ro RefOutput
				st, o = d.Update(st, in)
				rs, ro = r.Update(rs, in)
				if o.UpdateWc != o.Notify || ro.UpdateWc != ro.Notify {
					return false
				}
				if o.UpdateWc {
					if haveF && now-lastF <= uint64(c.BaseRTTNs) {
						t.Logf("fixed: commits at %d and %d", lastF, now)
						return false
					}
					lastF, haveF = now, true
				}
				if ro.UpdateWc {
					if haveR && now-lastR <= uint64(c.BaseRTTNs) {
						t.Logf("float: commits at %d and %d", lastR, now)
						return false
					}
					lastR, haveR = now, true
				}
			}
			return true
		}, gen.UInt64()))
		props.TestingRun(t)
	}
}
