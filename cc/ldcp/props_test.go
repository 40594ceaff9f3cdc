package ldcp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

func params(n int) *gopter.TestParameters {
	p := gopter.DefaultTestParameters()
	p.MinSuccessfulTests = n
	p.MaxShrinkCount = 2000
	p.Rng.Seed(20240917) // fixed seed: reproducible runs; regressions are kept as table rows
	return p
}

// namedConfig is a configuration the properties run on.
type namedConfig struct {
	Config
	name string
}

// testConfigs: the defaults; a delayed-ACK-heavy narrow configuration
// (n up to 15, gamma 1/16, beta 1, cw u24.8 with a table-only reciprocal);
// and parameters that are not exactly representable (alpha 0.3, beta 0.7,
// gamma 0.2, eta 0.6, CwMax 100.3), so the quantization terms of the bounds
// are exercised.
func testConfigs() []namedConfig {
	def := DefaultConfig()
	narrow := DefaultConfig()
	narrow.AckPktsBits, narrow.Gamma, narrow.Beta = 4, 1.0/16, 1
	narrow.Formats.Cw, narrow.Formats.Param, narrow.Formats.RecipCw = fixedpoint.MustFormat("u24.8"), fixedpoint.MustFormat("u12.4"), fixedpoint.MustFormat("u24.5")
	narrow.RecipCw = RecipParams{TableBits: 8, EntryBits: 12, NRSteps: 0}
	odd := DefaultConfig()
	odd.Alpha, odd.Beta, odd.Gamma, odd.Eta, odd.CwMaxPkts = 0.3, 0.7, 0.2, 0.6, 100.3
	return []namedConfig{{def, "default"}, {narrow, "narrow"}, {odd, "inexact-params"}}
}

// stepCase is one event from a reachable state, in terms that shrink to
// readable values.
type stepCase struct {
	Stable   bool
	CwRaw    uint64 // cw register (stable stage; fast start uses IW)
	Start    uint32
	Acked    uint32 // una - start
	Inflight uint32 // nxt - una
	Left     uint32 // end - nxt
	Now      uint64
	TimerOff int64 // next_send - now, ns
	Kind     int
	AckOff   int64 // ack_seq - una
	ECE, NAK bool
	MsgPkts  uint32
}

// genStep generates step cases for datapath d: cw anywhere in [gamma,
// CwMax] with weight near 1 and on small and integer values, sequence
// registers anywhere (PSN wraps included), ACKs around [una, nxt].
func genStep(d *Datapath) gopter.Gen {
	c := d.cfg
	lo, hi, one := d.gammaCw.RawUint(), d.cwMax.RawUint(), d.one.RawUint()
	f := uint(d.fCw.F())
	seqMax := uint32(mask64(c.SeqBits))
	return gen.Struct(reflect.TypeOf(stepCase{}), map[string]gopter.Gen{
		"Stable": gen.Frequency(map[int]gopter.Gen{4: gen.Const(true), 1: gen.Const(false)}),
		"CwRaw": gen.Frequency(map[int]gopter.Gen{
			4: gen.UInt64Range(lo, hi),
			3: gen.UInt64Range(lo, one+(one>>2)),
			2: gen.UInt64Range(max(lo, one-64), one+64),
			1: gen.UInt64Range(1, hi>>f).Map(func(k uint64) uint64 { return k << f }),
		}),
		"Start":    gen.UInt32Range(0, seqMax),
		"Acked":    gen.UInt32Range(0, c.IWPkts-1),
		"Inflight": gen.Frequency(map[int]gopter.Gen{3: gen.UInt32Range(0, 8), 2: gen.UInt32Range(0, uint32(c.CwMaxPkts)+2)}),
		"Left":     gen.Frequency(map[int]gopter.Gen{1: gen.Const(uint32(0)), 4: gen.UInt32Range(0, 300)}),
		"Now":      gen.UInt64Range(0, mask64(c.TimeBits)),
		"TimerOff": gen.Frequency(map[int]gopter.Gen{3: gen.Int64Range(-3, 3), 2: gen.Int64Range(-1e6, 1e6)}),
		"Kind":     gen.IntRange(0, 3),
		"AckOff":   gen.Int64Range(-3, int64(c.CwMaxPkts)+4),
		"ECE":      gen.Bool(),
		"NAK":      gen.Frequency(map[int]gopter.Gen{4: gen.Const(false), 1: gen.Const(true)}),
		"MsgPkts":  gen.UInt32Range(0, 1000),
	})
}

// build turns a step case into the fixed state, the float state (exact
// conversion) and the event.
func (sc stepCase) build(d *Datapath) (State, RefState, Event) {
	c := d.cfg
	sm := uint32(mask64(c.SeqBits))
	st := State{Stage: FastStart, Cw: d.iw.RawUint()}
	if sc.Stable {
		st.Stage, st.Cw = Stable, sc.CwRaw
	}
	inflight := sc.Inflight
	if !sc.Stable {
		// fast start: snd_nxt - start <= IW + acked (one packet per ACK
		// after the first RTT), una - start < IW
		inflight = min(inflight, c.IWPkts)
	}
	st.Start = sc.Start & sm
	st.Una = (st.Start + sc.Acked) & sm
	st.Nxt = (st.Una + inflight) & sm
	st.End = (st.Nxt + sc.Left) & sm
	now := sc.Now & mask64(c.TimeBits)
	st.NextSend = uint64(int64(now)+sc.TimerOff) & mask64(c.TimeBits)
	ev := Event{Kind: Kind(sc.Kind), NowNs: now, Seq: sc.Start, MsgPkts: sc.MsgPkts,
		AckSeq: uint32(int64(st.Una)+sc.AckOff) & sm, ECE: sc.ECE, NAK: sc.NAK}
	return st, d.RefState(st), ev
}

type stepStats struct {
	steps, nearOne, armed int
	maxCwErr, maxIvErr    float64
}

// checkStep runs both models from the same state and checks that every
// discrete output agrees exactly and cw and the timer interval within
// ErrorBounds; the only legitimate disagreement is the regime of the next
// state when the float cw lies within the bound of 1 (counted).
func checkStep(d *Datapath, r *Reference, b ErrorBounds, st State, rs RefState, ev Event, s *stepStats) error {
	c := d.cfg
	n, o := d.Update(st, ev)
	rn, ro := r.Update(rs, ev)
	s.steps++
	fv, rv := fixedView(d, n, o), refView(rn, ro)
	bound := b.Slack
	if o.Loss {
		bound += b.DCwMax // the packets acknowledged can exceed CwMax: both clamp
	}
	if o.Rule != NoRule {
		bound = b.Step(c, o.Rule, uint64(o.N), rs.Cw)
	}
	if e := math.Abs(fv.Cw - rv.Cw); e > bound {
		return fmt.Errorf("cw fixed %.12g float %.12g: |diff| %.3g > bound %.3g", fv.Cw, rv.Cw, e, bound)
	} else {
		s.maxCwErr = math.Max(s.maxCwErr, e)
	}
	if fv.Sub != rv.Sub || fv.TimerArmed != rv.TimerArmed {
		if math.Abs(rv.Cw-1) > bound {
			return fmt.Errorf("regime fixed sub=%v armed=%v, float sub=%v armed=%v, with float cw %.12g not within %.3g of 1", fv.Sub, fv.TimerArmed, rv.Sub, rv.TimerArmed, rv.Cw, bound)
		}
		s.nearOne++
		return nil
	}
	// Everything else is exact.
	a, bb := fv, rv
	a.Cw, bb.Cw, a.IntervalNs, bb.IntervalNs, a.NextSendNs, bb.NextSendNs = 0, 0, 0, 0, 0, 0
	if a != bb {
		return fmt.Errorf("discrete outputs differ:\nfixed %+v\nfloat %+v", fv, rv)
	}
	if fv.TimerArmed {
		s.armed++
		dcw := 0.0
		if o.Rule != NoRule {
			dcw = bound
		}
		ib := b.Interval(c, rn.Cw, dcw)
		if e := math.Abs(fv.IntervalNs - rv.IntervalNs); e > ib {
			return fmt.Errorf("interval fixed %v float %v: |diff| %.3g > bound %.3g", fv.IntervalNs, rv.IntervalNs, e, ib)
		} else {
			s.maxIvErr = math.Max(s.maxIvErr, e)
		}
		if e := math.Abs(r.serialDiff(fv.NextSendNs, rv.NextSendNs)); e > ib {
			return fmt.Errorf("deadline fixed %v float %v: |diff| %.3g > bound %.3g", fv.NextSendNs, rv.NextSendNs, e, ib)
		}
	} else if fv.NextSendNs != rv.NextSendNs {
		return fmt.Errorf("deadline changed without arming: fixed %v float %v", fv.NextSendNs, rv.NextSendNs)
	}
	return nil
}

// TestPropStepEquivalence: from the same reachable state and event, the
// golden datapath and the float reference agree exactly on every discrete
// output (stage, PSNs, rule, n, send decision and ECN codepoint, flags) and
// within ErrorBounds on cw and the timer interval, except the regime of the
// result when cw ends within the bound of 1 (counted). Oracle: the float
// reference; bounds: ErrorBounds, derived from the formats.
func TestPropStepEquivalence(t *testing.T) {
	for _, nc := range testConfigs() {
		d, r := mustDP(t, nc.Config), mustRef(t, nc.Config)
		b := d.ErrorBounds()
		var stats stepStats
		props := gopter.NewProperties(params(5000))
		props.Property(nc.name, prop.ForAll(func(sc stepCase) bool {
			st, rs, ev := sc.build(d)
			if err := checkStep(d, r, b, st, rs, ev, &stats); err != nil {
				t.Logf("%s: %v (event %+v)", nc.name, err, ev)
				return false
			}
			return true
		}, genStep(d)))
		props.TestingRun(t)
		t.Logf("%s: %d steps, max |dcw| %.3g, max |dinterval| %.3g ns over %d armed, regime near 1: %d",
			nc.name, stats.steps, stats.maxCwErr, stats.maxIvErr, stats.armed, stats.nearOne)
	}
}

// TestPropAlgebra: properties of the draft's rules that must hold exactly in
// both models, from reachable states (stable, gamma <= cw <= CwMax):
//   - an ECE ACK never raises cw, an unmarked ACK never lowers it;
//   - cw stays within [gamma, CwMax] after any event;
//   - the rule is monotone in n: more acknowledged packets give a cw at least
//     as large (ECE = 0) or at most as large (ECE = 1);
//   - a Send is allowed only when a whole packet fits (cw >= 1) or the
//     sub-packet timer has expired (cw < 1);
//   - stable-stage packets are ECN-capable; fast-start packets before the
//     IW-th are ECN-incapable unless they are the message's last.
//
// Oracle: the draft's formulas (section 2.2, 2.3, 3.1).
func TestPropAlgebra(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		gq, mq := d.gamma.Float64(), d.cwMax.Float64()
		props := gopter.NewProperties(params(3000))
		props.Property(nc.name+" ack", prop.ForAll(func(sc stepCase, extra uint32) bool {
			sc.Stable, sc.Kind, sc.NAK = true, int(Ack), false
			sc.AckOff = max(1, min(sc.AckOff, int64(sc.Inflight)))
			if sc.Inflight == 0 {
				sc.Inflight = 1
			}
			st, rs, ev := sc.build(d)
			n, o := d.Update(st, ev)
			rn, _ := r.Update(rs, ev)
			cw, fcw := d.CwPackets(st.Cw), d.CwPackets(n.Cw)
			if sc.ECE && (fcw > cw || rn.Cw > rs.Cw) || !sc.ECE && (fcw < cw || rn.Cw < rs.Cw) {
				t.Logf("ECE=%v: fixed %v -> %v, float %v -> %v (%s)", sc.ECE, cw, fcw, rs.Cw, rn.Cw, o.Rule)
				return false
			}
			if fcw < gq || fcw > mq || rn.Cw < c.Gamma || rn.Cw > c.CwMaxPkts {
				t.Logf("cw out of [gamma, CwMax]: fixed %v float %v", fcw, rn.Cw)
				return false
			}
			// Monotone in n: acknowledge `extra` more packets at once.
			more := sc
			more.Inflight += extra
			more.AckOff += int64(extra)
			st2, rs2, ev2 := more.build(d)
			n2, _ := d.Update(st2, ev2)
			rn2, _ := r.Update(rs2, ev2)
			if sc.ECE && (n2.Cw > n.Cw || rn2.Cw > rn.Cw) || !sc.ECE && (n2.Cw < n.Cw || rn2.Cw < rn.Cw) {
				t.Logf("not monotone in n (ECE=%v, +%d): fixed %v -> %v, float %v -> %v", sc.ECE, extra, fcw, d.CwPackets(n2.Cw), rn.Cw, rn2.Cw)
				return false
			}
			return true
		}, genStep(d), gen.UInt32Range(0, 40)))
		props.Property(nc.name+" any event", prop.ForAll(func(sc stepCase) bool {
			st, rs, ev := sc.build(d)
			n, o := d.Update(st, ev)
			rn, ro := r.Update(rs, ev)
			fcw := d.CwPackets(n.Cw)
			if fcw < gq || fcw > mq || rn.Cw < c.Gamma || rn.Cw > c.CwMaxPkts {
				t.Logf("cw out of [gamma, CwMax]: fixed %v float %v", fcw, rn.Cw)
				return false
			}
			if ev.Kind != Send {
				return true
			}
			for _, x := range []struct {
				allowed, ect, last bool
				cw                 float64
			}{{o.Allowed, o.ECT, o.Last, d.CwPackets(st.Cw)}, {ro.Allowed, ro.ECT, ro.Last, rs.Cw}} {
				if !x.allowed {
					continue
				}
				inflight := float64((st.Nxt - st.Una) & uint32(mask64(c.SeqBits)))
				if x.cw >= 1 && inflight+1 > x.cw {
					t.Logf("send allowed with inflight %v and cw %v", inflight, x.cw)
					return false
				}
				if x.cw < 1 && r.serialDiff(float64(ev.NowNs), float64(st.NextSend)) < 0 {
					t.Logf("send allowed before the deadline: now %d deadline %d", ev.NowNs, st.NextSend)
					return false
				}
				off := (st.Nxt - st.Start) & uint32(mask64(c.SeqBits))
				if st.Stage == Stable && !x.ect || st.Stage == FastStart && off < c.IWPkts-1 && !x.last && x.ect {
					t.Logf("ECN codepoint: stage %s offset %d last %v ect %v", st.Stage, off, x.last, x.ect)
					return false
				}
			}
			return true
		}, genStep(d)))
		props.TestingRun(t)
	}
}

// TestTrajectory: over long ACK sequences (>= 10^4 ACKs per configuration)
// the fixed-point cw follows the float cw without drift. The ECE bits come
// from an equilibrium-seeking marker driven by the float cw (mark with
// probability rising linearly from 0 at a target window to 1 at twice it),
// with targets 0.3 (sub-packet incast), 4 and 60 packets in turn, and n of 1
// (per-packet ACK) or up to 8 (delayed ACK). The error of each step is
// bounded by ErrorBounds.Step, so the trajectory error stays within the sum
// of the steps' bounds; the bound is reset when the two models disagree on
// the regime (cw within the accumulated bound of 1): the fixed state is
// then re-synchronized to the float one (quantized), and those events are
// counted. Oracle: the float reference.
func TestTrajectory(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		b := d.ErrorBounds()
		rng := rand.New(rand.NewPCG(7, uint64(len(nc.name))))
		steps := 30000
		if testing.Short() {
			steps = 10000
		}
		cwF := float64(c.IWPkts)
		cwX := d.CwRaw(cwF)
		acc, maxErr, maxRatio, resyncs, subSteps := b.RoundCw, 0.0, 0.0, 0, 0
		targets := []float64{0.3, 4, 60}
		for k := 0; k < steps; k++ {
			target := targets[(k/2500)%len(targets)]
			p := math.Min(math.Max((cwF-target)/target, 0), 1)
			ece := rng.Float64() < p
			n := uint64(1)
			if rng.IntN(4) == 0 {
				n = uint64(1 + rng.IntN(8))
			}
			nextX, rule := d.Window(cwX, ece, n)
			nextF, ruleF := r.Window(cwF, ece, n)
			if rule != ruleF {
				if math.Abs(cwF-1) > acc {
					t.Fatalf("%s step %d: rule fixed %s float %s at float cw %.12g (accumulated bound %.3g)", nc.name, k, rule, ruleF, cwF, acc)
				}
				resyncs++
				cwF = nextF
				cwX = d.CwRaw(cwF)
				acc = b.RoundCw
				continue
			}
			acc += b.Step(c, rule, min(n, c.NMax()), cwF)
			cwF, cwX = nextF, nextX
			if cwF < 1 {
				subSteps++
			}
			e := math.Abs(d.CwPackets(cwX) - cwF)
			if e > acc {
				t.Fatalf("%s step %d: |cw fixed - float| = %.3g > accumulated bound %.3g (fixed %.12g float %.12g)", nc.name, k, e, acc, d.CwPackets(cwX), cwF)
			}
			maxErr = math.Max(maxErr, e)
			maxRatio = math.Max(maxRatio, e/acc)
		}
		if subSteps == 0 {
			t.Errorf("%s: the trace never entered the sub-packet regime", nc.name)
		}
		t.Logf("%s: %d ACKs (%d sub-packet), max |dcw| %.3g packets, max error/accumulated bound %.3g, regime re-syncs %d",
			nc.name, steps, subSteps, maxErr, maxRatio, resyncs)
	}
}

// TestRandomBitsDefined: any bit pattern of state and event (as the vector
// generator's random level produces) gives a defined output that packs into
// the output table (every field within its width), and Update is a pure
// function (same input, same output). Oracle: the field widths.
func TestRandomBitsDefined(t *testing.T) {
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		rng := rand.New(rand.NewPCG(3, 4))
		in := make([]uint64, d.InputTable().Words())
		out := make([]uint64, d.OutputTable().Words())
		for i := 0; i < 20000; i++ {
			for w := range in {
				in[w] = rng.Uint64()
			}
			if rem := d.InputTable().Width % 64; rem != 0 {
				in[len(in)-1] &= mask64(rem)
			}
			st, ev, err := d.UnpackInput(in)
			if err != nil {
				t.Fatal(err)
			}
			n, o := d.Update(st, ev)
			if err := d.PackOutput(n, o, out); err != nil {
				t.Fatalf("%s: %v (state %+v event %+v)", nc.name, err, st, ev)
			}
			n2, o2 := d.Update(st, ev)
			if n2 != n || o2 != o {
				t.Fatalf("%s: Update is not deterministic", nc.name)
			}
		}
	}
}
