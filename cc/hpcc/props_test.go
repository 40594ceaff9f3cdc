package hpcc

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/telemetry"
)

// hopCase describes one hop of a generated step in physical terms; every
// field shrinks toward a simple value, so a failing case shrinks to a
// readable minimal one.
type hopCase struct {
	SpeedIdx     int    // index into the encoding's valid speeds
	DtsNs        uint64 // egress time since the previous sample
	RatePermille uint64 // txRate during dts, in 1/1000 of the link speed
	QlenPrev     uint64 // bytes
	QlenCur      uint64 // bytes
	TsPrev       uint64 // previous egress time, ns (large values exercise wraps)
	TxPrev       uint64 // previous txBytes counter, bytes
}

// stepCase is one event from a given state.
type stepCase struct {
	NHops    int
	WcBytes  uint64 // Wc in bytes (integer for readability)
	WBytes   uint64
	UMicro   uint64 // U in 1e-6
	IncStage int
	SeqAhead int64 // in.Seq - lastUpdateSeq (negative: before)
	Hops     []hopCase
}

func params(n int) *gopter.TestParameters {
	p := gopter.DefaultTestParameters()
	p.MinSuccessfulTests = n
	p.MaxShrinkCount = 2000
	p.Rng.Seed(20240601) // fixed seed: reproducible runs; regressions live in regressions_test.go
	return p
}

func validSpeeds(e telemetry.Encoding, maxGbps uint32) []uint32 {
	var s []uint32
	for _, g := range e.SpeedTable() {
		if g != 0 && g <= maxGbps {
			s = append(s, g)
		}
	}
	return s
}

// genStep generates step cases for config c: U around eta and across its
// range, windows in [W_min, W_max], small and large dts, idle to overloaded
// links, queues up to several BDPs, counters anywhere in their range.
func genStep(c Config) gopter.Gen {
	sp := validSpeeds(c.Encoding, c.MaxLinkSpeedGbps)
	hopGen := gen.Struct(reflect.TypeOf(hopCase{}), map[string]gopter.Gen{
		"SpeedIdx": gen.IntRange(0, len(sp)-1),
		"DtsNs": gen.Frequency(map[int]gopter.Gen{
			6: gen.UInt64Range(1, 2*uint64(c.BaseRTTNs)),
			2: gen.UInt64Range(1, c.MaxDeltaTsNs),
			1: gen.UInt64Range(1, 16),
		}),
		"RatePermille": gen.Frequency(map[int]gopter.Gen{4: gen.UInt64Range(0, 1000), 1: gen.UInt64Range(0, 3000)}),
		"QlenPrev":     gen.Frequency(map[int]gopter.Gen{3: gen.Const(uint64(0)), 4: gen.UInt64Range(0, 400000), 1: gen.UInt64Range(0, 1<<24)}),
		"QlenCur":      gen.Frequency(map[int]gopter.Gen{3: gen.Const(uint64(0)), 4: gen.UInt64Range(0, 400000), 1: gen.UInt64Range(0, 1<<24)}),
		"TsPrev":       gen.UInt64Range(0, 1<<62),
		"TxPrev":       gen.UInt64Range(0, 1<<62),
	})
	return gen.Struct(reflect.TypeOf(stepCase{}), map[string]gopter.Gen{
		"NHops":    gen.IntRange(1, c.MaxHops),
		"WcBytes":  gen.UInt64Range(uint64(c.WMinBytes), uint64(c.WMaxBytes)),
		"WBytes":   gen.UInt64Range(uint64(c.WMinBytes), uint64(c.WMaxBytes)),
		"UMicro":   gen.Frequency(map[int]gopter.Gen{3: gen.UInt64Range(0, 3_000_000), 2: gen.UInt64Range(900_000, 1_000_000), 1: gen.UInt64Range(0, 200_000_000)}),
		"IncStage": gen.IntRange(0, c.MaxStage),
		"SeqAhead": gen.Int64Range(-3, 3),
		"Hops":     gen.SliceOfN(c.MaxHops, hopGen),
	})
}

// build turns a step case into the fixed state, the float state (the same
// real values: Datapath.RefState) and the event.
func (sc stepCase) build(t testing.TB, d *Datapath) (State, RefState, Input) {
	c := d.cfg
	e := c.Encoding
	sp := validSpeeds(e, c.MaxLinkSpeedGbps)
	st := State{Valid: true, NHops: uint8(sc.NHops), IncStage: uint8(sc.IncStage), LastUpdate: 1 << 20}
	st.W = uint64(sc.WBytes) << uint(c.Formats.W.F())
	st.Wc = uint64(sc.WcBytes) << uint(c.Formats.W.F())
	st.U = uint64(math.Round(float64(sc.UMicro) * 1e-6 * math.Ldexp(1, c.Formats.U.F())))
	st.U = min(st.U, mask64(c.Formats.U.W))
	in := Input{Seq: uint64(int64(st.LastUpdate) + sc.SeqAhead), SndNxt: 1<<20 + 99999, NowNs: 1 << 20, NHops: uint8(sc.NHops)}
	if c.Mode == Receiver {
		in.NowNs = uint64(int64(1<<20) + sc.SeqAhead*int64(c.BaseRTTNs))
	}
	for i, h := range sc.Hops {
		g := sp[h.SpeedIdx]
		prev, err := telemetry.FromPhysical(e, telemetry.Physical{SwitchID: uint32(i + 1), PortID: 3, SpeedGbps: g, TsNs: h.TsPrev, TxBytes: h.TxPrev, QlenBytes: h.QlenPrev})
		if err != nil {
			t.Fatal(err)
		}
		tx := h.TxPrev + h.DtsNs*uint64(g)*h.RatePermille/8000
		cur, err := telemetry.FromPhysical(e, telemetry.Physical{SwitchID: uint32(i + 1), PortID: 3, SpeedGbps: g, TsNs: h.TsPrev + h.DtsNs, TxBytes: tx, QlenBytes: h.QlenCur})
		if err != nil {
			t.Fatal(err)
		}
		st.Hops[i] = d.record(&prev)
		in.Hops[i] = cur
	}
	return st, d.RefState(st), in
}

// stepStats counts the legitimate disagreements of checkStep.
type stepStats struct {
	steps, nearEta, nearTie int
	maxWRel, maxUErr        float64
}

// checkStep runs both models from the same state and checks the documented
// bounds (ErrorBounds). It returns a description of the first violation.
func checkStep(d *Datapath, r *Reference, b ErrorBounds, st State, rs RefState, in Input, s *stepStats) error {
	next, o := d.Update(st, in)
	_, ro := r.Update(rs, in)
	s.steps++
	if o.First != ro.First || o.HopValid != ro.HopValid || o.UpdateWc != ro.UpdateWc || o.Notify != ro.Notify {
		return fmt.Errorf("flags differ: fixed %+v float %v", o, ro)
	}
	c := d.cfg
	w := d.WBytes(next.W)
	if w < c.WMinBytes || w > c.WMaxBytes {
		return fmt.Errorf("fixed W=%v outside [%v,%v]", w, c.WMinBytes, c.WMaxBytes)
	}
	if o.SelHop != ro.SelHop {
		// Legitimate only for a near-tie of the two hops' u'.
		a, bb := ro.HopU[sel(o.SelHop)], ro.HopU[sel(ro.SelHop)]
		tol := 2 * (b.HopRel*math.Max(a, bb) + b.HopAbs)
		if math.Abs(a-bb) > tol {
			return fmt.Errorf("selected hop fixed %d float %d with u' %v vs %v (tolerance %v)", o.SelHop, ro.SelHop, a, bb, tol)
		}
		s.nearTie++
		return nil
	}
	u := d.UValue(next.U)
	uTol := b.URel*ro.U + b.UAbs
	if du := math.Abs(u - ro.U); du > uTol {
		return fmt.Errorf("U fixed %.12g float %.12g: |diff| %.3g > %.3g", u, ro.U, du, uTol)
	} else {
		s.maxUErr = math.Max(s.maxUErr, du)
	}
	if o.MI != ro.MI {
		if math.Abs(ro.U-c.Eta) > uTol+b.EtaAbs {
			return fmt.Errorf("MI fixed %v float %v with U=%.12g not near eta (tolerance %v)", o.MI, ro.MI, ro.U, uTol+b.EtaAbs)
		}
		s.nearEta++
		return nil
	}
	if o.IncStage != uint8(ro.IncStage) {
		return fmt.Errorf("incStage fixed %d float %d", o.IncStage, ro.IncStage)
	}
	rel := math.Abs(w-ro.W) / ro.W
	if rel > b.WRel || rel > 1.0/1024 {
		return fmt.Errorf("W fixed %.9g float %.9g: relative %.3g > %.3g", w, ro.W, rel, b.WRel)
	}
	s.maxWRel = math.Max(s.maxWRel, rel)
	rate := d.RateBytesPerNs(o.Rate)
	// R = W * inv_t: W's bound, one LSB of the rate format, the quantization
	// of the inv_t table entry (computed exactly from the table), and a few
	// float64 roundings of the comparison itself.
	if rr := math.Abs(rate-ro.RateBytesPerNs) / ro.RateBytesPerNs; rr > b.WRel+math.Ldexp(1, -c.Formats.Rate.F())/ro.RateBytesPerNs+invTRelErr(d)+4*0x1p-52 {
		return fmt.Errorf("rate fixed %.9g float %.9g: relative %.3g", rate, ro.RateBytesPerNs, rr)
	}
	return nil
}

// invTRelErr is the relative error of the inv_t table entry against 1/T,
// |entry*T - 1|, computed exactly with big.Rat from the datapath's table.
func invTRelErr(d *Datapath) float64 {
	for _, t := range d.Tables() {
		if t.Name != "inv_t" {
			continue
		}
		v := new(big.Rat).SetFrac(new(big.Int).SetUint64(t.Entries[0]), new(big.Int).Lsh(big.NewInt(1), uint(t.Format.F())))
		e := new(big.Rat).Sub(new(big.Rat).Quo(v, t.Reals[0]), big.NewRat(1, 1))
		f, _ := new(big.Rat).Abs(e).Float64()
		return f
	}
	panic("hpcc test: datapath has no inv_t table")
}

func sel(h uint8) int {
	if h == NoHop {
		return 0
	}
	return int(h)
}

// TestPropStepEquivalence: from the same state and telemetry, the fixed U is
// within URel*U + UAbs of the float U, the fixed W within WRel (about 2^-16.8
// for the defaults; the budget is 2^-10) of the float W, and the
// flags agree, except for the documented near-eta and near-tie cases, which
// are counted. Oracle: the float reference; bounds: ErrorBounds (derived from
// the formats).
func TestPropStepEquivalence(t *testing.T) {
	for _, nc := range testConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		b := d.ErrorBounds()
		var stats stepStats
		props := gopter.NewProperties(params(3000))
		props.Property(nc.name(), prop.ForAll(func(sc stepCase) bool {
			st, rs, in := sc.build(t, d)
			if err := checkStep(d, r, b, st, rs, in, &stats); err != nil {
				t.Logf("%s: %v", nc.name(), err)
				return false
			}
			return true
		}, genStep(c)))
		props.TestingRun(t)
		t.Logf("%s: %d steps, max W rel error %.3g (2^%.1f), max |dU| %.3g, near-eta %d, near-tie %d",
			nc.name(), stats.steps, stats.maxWRel, math.Log2(stats.maxWRel), stats.maxUErr, stats.nearEta, stats.nearTie)
	}
}
