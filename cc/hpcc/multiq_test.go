package hpcc

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/telemetry"
)

// multiQConfigs are the MultiQ configurations of the tests: both encodings,
// sender and receiver, a weight that quantizes exactly (0.25) and one that
// does not (0.4), a zero backlog threshold (the slides' "qlen_j != 0").
func multiQConfigs() []namedConfig {
	var cs []namedConfig
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
		cs = append(cs, namedConfig{c, e.String() + "/multiq-w0.4"})
		r := c
		r.Mode = Receiver
		r.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.25, BacklogBytes: 0}
		cs = append(cs, namedConfig{r, e.String() + "/multiq-receiver-w0.25-bl0"})
	}
	return cs
}

// TestMultiQCases checks the three cases of the slides' MultiQ U (seeds
// 002_..., "HPCC++ MultiQ Algorithm") in the float reference against values
// worked out by hand, and the golden datapath against them within its
// ErrorBounds, taking the same case: 100 Gbps link (B = 12.5 B/ns), T = 5000
// ns, class weight 0.4 (wB = 5 B/ns), backlog threshold 1500 bytes, dts =
// 1000 ns, starting U = 0 so U = 0.2*u'.
func TestMultiQCases(t *testing.T) {
	c := DefaultConfig()
	c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	r := mustRef(t, c)
	d := mustDP(t, c)
	b := d.ErrorBounds()
	cases := []struct {
		name  string
		tx, q uint64 // bytes sent in 1000 ns, queue (both samples)
		want  float64
		mq    MQCase
	}{
		// txRate 4 <= wB 5: q/(wB*T) + txRate/wB = 5000/25000 + 0.8 = 1.0
		{"within guarantee", 4000, 5000, 5000.0/25000 + 4.0/5, MQWithin},
		// txRate 8 > 5, backlog 5000 > 1500: q/(txRate*T) + 1 = 5000/40000 + 1
		{"above guarantee, backlog", 8000, 5000, 5000.0/40000 + 1, MQBacklog},
		// txRate 8 > 5, queue 1000 <= 1500: txRate/((txRate+B)/2) = 8/10.25
		{"above guarantee, no backlog", 8000, 1000, 8 / ((8 + 12.5) / 2), MQNoBacklog},
		// queue exactly at the threshold is not a backlog (qlen > threshold)
		{"above guarantee, queue at threshold", 8000, 1500, 8 / ((8 + 12.5) / 2), MQNoBacklog},
		{"above guarantee, queue one byte above", 8000, 1501, 1501.0/40000 + 1, MQBacklog},
		// txRate 12.5 = B: halfway to B is B itself, u' = 1
		{"at line rate, no backlog", 12500, 0, 1, MQNoBacklog},
		{"idle", 0, 0, 0, MQWithin},
	}
	for _, cs := range cases {
		prev := hop(t, c.Encoding, 1, 100, 1_000_000, 1<<30, cs.q)
		cur := hop(t, c.Encoding, 1, 100, 1_001_000, 1<<30+cs.tx, cs.q)
		rs := RefState{Valid: true, NHops: 1, W: 20000, Wc: 20000, U: 0}
		rs.Hops[0] = prev
		_, o := r.Update(rs, event(5, cur))
		if math.Abs(o.HopU[0]-cs.want) > 1e-12 || math.Abs(o.U-0.2*cs.want) > 1e-12 {
			t.Errorf("%s: float u' = %.15g U = %.15g, want u' %.15g", cs.name, o.HopU[0], o.U, cs.want)
		}
		st := State{Valid: true, NHops: 1, W: 20000 << 24, Wc: 20000 << 24}
		st.Hops[0] = d.record(&prev)
		_, fo := d.Update(st, event(5, cur))
		if u, tol := d.UValue(fo.U), 0.2*(b.HopRel*cs.want+b.HopAbs)+b.UAbs; math.Abs(u-0.2*cs.want) > tol {
			t.Errorf("%s: fixed U = %.12g, want %.12g within %.3g", cs.name, u, 0.2*cs.want, tol)
		}
		if got, _, _ := d.MultiQHop(1000, uint64(cs.tx), uint64(cs.q), cur.SpeedCode); got != cs.mq {
			t.Errorf("%s: case %s, want %s", cs.name, got, cs.mq)
		}
	}
	if _, err := NewReplayer(c, ReplayBoth); err != nil {
		t.Errorf("replay with MultiQ: %v", err)
	}
}

// TestMultiQWeightOne: with w = 1 and an infinite backlog threshold, wB = B
// and MultiQ's case 1 is single-class HPCC++: the kq and kr ROMs are the
// same, and every update whose valid hops all have tx_rate <= B (case 1)
// equals the single-class datapath's bit for bit; a hop above B (coarse
// Compact txBytes units, or a corrupt sample) takes case 3. Oracle: the
// single-class datapath.
func TestMultiQWeightOne(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		d1 := mustDP(t, c)
		c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 1, BacklogBytes: 1e18}
		dm := mustDP(t, c)
		for i, tb := range d1.Tables() {
			if mt := dm.Tables()[i]; !reflect.DeepEqual(tb.Entries, mt.Entries) {
				t.Errorf("%s: table %s differs with w = 1", e, tb.Name)
			}
		}
		g := newTraceGen(c, 31)
		st := d1.InitialState()
		compared, above := 0, 0
		for k := 0; k < 3000; k++ {
			in := g.next()
			n1, o1 := d1.Update(st, in)
			nm, om := dm.Update(st, in)
			within := true
			for i := 0; i < c.MaxHops; i++ {
				if o1.HopValid>>uint(i)&1 == 0 {
					continue
				}
				r := dm.record(&in.Hops[i])
				dTx := (uint64(r.TxBytes) - uint64(st.Hops[i].TxBytes)) & uint64(dm.txMask)
				q := uint64(min(r.Qlen, st.Hops[i].Qlen))
				if mc, _, _ := dm.MultiQHop(dm.deltaTs(r.Ts, st.Hops[i].Ts), dTx, q, in.Hops[i].SpeedCode); mc != MQWithin {
					within = false
				}
			}
			if within {
				compared++
				if o1 != om || n1 != nm {
					t.Fatalf("%s ack %d: single-class %+v, MultiQ w=1 %+v", e, k, o1, om)
				}
			} else {
				above++
			}
			st = n1
		}
		if compared < 2000 {
			t.Errorf("%s: only %d of 3000 events compared (%d with a hop above B)", e, compared, above)
		}
	}
}

// TestMultiQConfigErrors: a weight that rounds to 0 in u17.1, and one so
// small that a saturated q_term could change case 2's u', are refused with
// the field named.
func TestMultiQConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		w    float64
		want string
	}{
		{1e-7, "MultiQ.ClassWeight=1e-07: rounds to 0"},
		{1.0 / 512, "q_term_bl"},
		{1.5, "MultiQ.ClassWeight=1.5"},
	} {
		c := DefaultConfig()
		c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: tc.w, BacklogBytes: 1500}
		_, err := NewDatapath(c)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("w=%v: err = %v, want it to mention %q", tc.w, err, tc.want)
		}
	}
}

// TestMultiQHopCompare: the case MultiQHop reports follows its compare
// registers (within exactly when tx_rate <= mq_wb, raw), and the backlog
// decision is exactly q > floor(BacklogBytes/qlen unit), over random
// measurements around the threshold. Oracle: the documented rule,
// recomputed here.
func TestMultiQHopCompare(t *testing.T) {
	for _, nc := range multiQConfigs() {
		d := mustDP(t, nc.Config)
		var bl uint64
		for _, k := range d.Constants() {
			if k.Name == "mq_backlog" {
				bl = k.Raw
			}
		}
		if want := uint64(math.Floor(nc.MultiQ.BacklogBytes / float64(nc.Encoding.QlenUnit()))); bl != want {
			t.Errorf("%s: mq_backlog %d, want %d", nc.name(), bl, want)
		}
		rng := rand.New(rand.NewPCG(5, 6))
		for k := 0; k < 20000; k++ {
			dts := 1 + rng.Uint64N(nc.MaxDeltaTsNs)
			dTx := rng.Uint64N(1 << uint(nc.Encoding.TxBytesBits()))
			q := rng.Uint64N(bl + 3)
			code := d.cfg.Encoding.SpeedCodes() - 1
			codeU := uint8(rng.IntN(code + 1))
			if !d.speedOK[codeU] {
				continue
			}
			c, x, wb := d.MultiQHop(dts, dTx, q, codeU)
			switch {
			case x <= wb && c != MQWithin, x > wb && q > bl && c != MQBacklog, x > wb && q <= bl && c != MQNoBacklog:
				t.Fatalf("%s: dts %d dTx %d q %d: case %s with tx_rate %d, wb %d, backlog %d", nc.name(), dts, dTx, q, c, x, wb, bl)
			}
		}
	}
}

// mqStats counts the legitimate disagreements of the MultiQ property.
type mqStats struct {
	stepStats
	nearCase int
	cases    [4]int
}

// refHopRate is the float reference's txRate (bytes/ns) and wB of hop i.
func refHopRate(c Config, cur, prev telemetry.Hop) (txRate, wB float64, ok bool) {
	dts, ok := c.hopValid(cur, prev)
	if !ok {
		return 0, 0, false
	}
	g, _ := c.Encoding.SpeedGbps(cur.SpeedCode)
	return float64(telemetry.DeltaTxBytes(c.Encoding, cur, prev)) / float64(dts), c.MultiQ.ClassWeight * float64(g) / 8, true
}

// genStepMQ is genStep with link rates spread around the class's guarantee
// (RatePermille of B: below, at and above w*B, up to 1.5 B) and queues
// around the backlog threshold.
func genStepMQ(c Config) gopter.Gen {
	sp := validSpeeds(c.Encoding, c.MaxLinkSpeedGbps)
	wp := uint64(c.MultiQ.ClassWeight * 1000)
	bl := uint64(c.MultiQ.BacklogBytes)
	hopGen := gen.Struct(reflect.TypeOf(hopCase{}), map[string]gopter.Gen{
		"SpeedIdx": gen.IntRange(0, len(sp)-1),
		"DtsNs": gen.Frequency(map[int]gopter.Gen{
			6: gen.UInt64Range(1, 2*uint64(c.BaseRTTNs)),
			1: gen.UInt64Range(1, c.MaxDeltaTsNs),
		}),
		"RatePermille": gen.Frequency(map[int]gopter.Gen{
			3: gen.UInt64Range(0, 1000), 2: gen.UInt64Range(wp-wp/10, wp+wp/10), 1: gen.UInt64Range(0, 1500),
		}),
		"QlenPrev": gen.Frequency(map[int]gopter.Gen{2: gen.Const(uint64(0)), 4: gen.UInt64Range(0, 2*bl+2000), 3: gen.UInt64Range(0, 400000)}),
		"QlenCur":  gen.Frequency(map[int]gopter.Gen{2: gen.Const(uint64(0)), 4: gen.UInt64Range(0, 2*bl+2000), 3: gen.UInt64Range(0, 400000)}),
		"TsPrev":   gen.UInt64Range(0, 1<<62),
		"TxPrev":   gen.UInt64Range(0, 1<<62),
	})
	return gen.Struct(reflect.TypeOf(stepCase{}), map[string]gopter.Gen{
		"NHops":    gen.IntRange(1, c.MaxHops),
		"WcBytes":  gen.UInt64Range(uint64(c.WMinBytes), uint64(c.WMaxBytes)),
		"WBytes":   gen.UInt64Range(uint64(c.WMinBytes), uint64(c.WMaxBytes)),
		"UMicro":   gen.Frequency(map[int]gopter.Gen{3: gen.UInt64Range(0, 3_000_000), 2: gen.UInt64Range(900_000, 1_000_000)}),
		"IncStage": gen.IntRange(0, c.MaxStage),
		"SeqAhead": gen.Int64Range(-3, 3),
		"Hops":     gen.SliceOfN(c.MaxHops, hopGen),
	})
}

// TestPropMultiQ: from the same state and telemetry, the MultiQ golden
// datapath and the float reference (ref.go hopU, the slides' three cases
// with the exact weight w) agree within ErrorBounds: U within URel*U + UAbs
// (URel about 2^-16 for w = 0.4, dominated by the weight's quantization
// |w_q - w|/w; 2^-21 for w = 0.25, which u17.1 holds exactly), W within
// WRel (below 2^-15, the budget is 2^-10), flags equal; except events where
// a hop's txRate is within MQCaseRel of wB, where the two compares may
// decide differently (case 1 and case 3 do not meet at txRate = wB), and
// the near-eta and near-tie cases of TestPropStepEquivalence; all counted.
// Oracle: the float reference.
func TestPropMultiQ(t *testing.T) {
	for _, nc := range multiQConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		b := d.ErrorBounds()
		var stats mqStats
		props := gopter.NewProperties(params(3000))
		props.Property(nc.name(), prop.ForAll(func(sc stepCase) bool {
			st, rs, in := sc.build(t, d)
			for i := 0; i < int(in.NHops); i++ {
				x, wb, ok := refHopRate(c, in.Hops[i], rs.Hops[i])
				if ok && math.Abs(x-wb) <= b.MQCaseRel*wb {
					stats.nearCase++
					return true
				}
				if ok {
					dts, _ := c.hopValid(in.Hops[i], rs.Hops[i])
					q := min(uint64(in.Hops[i].Qlen), uint64(st.Hops[i].Qlen))
					mc, _, _ := d.MultiQHop(dts, uint64(telemetry.DeltaTxBytes(c.Encoding, in.Hops[i], rs.Hops[i])/c.Encoding.TxBytesUnit()), q, in.Hops[i].SpeedCode)
					stats.cases[mc]++
				}
			}
			if err := checkStep(d, r, b, st, rs, in, &stats.stepStats); err != nil {
				t.Logf("%s: %v", nc.name(), err)
				return false
			}
			return true
		}, genStepMQ(c)))
		props.TestingRun(t)
		if stats.cases[MQWithin] == 0 || stats.cases[MQBacklog] == 0 || stats.cases[MQNoBacklog] == 0 {
			t.Errorf("%s: cases within/backlog/no-backlog %v: a case never ran", nc.name(), stats.cases[1:])
		}
		t.Logf("%s: %d steps, hop cases within/backlog/no-backlog %v, max W rel error %.3g (2^%.1f, bound 2^%.1f), max |dU| %.3g, near-case %d, near-eta %d, near-tie %d",
			nc.name(), stats.steps, stats.cases[1:], stats.maxWRel, math.Log2(stats.maxWRel), math.Log2(b.WRel), stats.maxUErr, stats.nearCase, stats.nearEta, stats.nearTie)
	}
}

// TestMultiQTablesGenerationRule: the MultiQ ROMs hold the documented
// exact values rounded half up: kq = qlen unit/(w_q*B*T), kr = tx
// unit/(w_q*B), mq_wb = w_q*B/tx unit and mq_bh = B/tx unit in
// Formats.TxRate, with w_q = round(w*2^16)/2^16. Oracle: big.Rat
// arithmetic written here from the formulas.
func TestMultiQTablesGenerationRule(t *testing.T) {
	for _, nc := range multiQConfigs() {
		d := mustDP(t, nc.Config)
		e := nc.Encoding
		wq := new(big.Rat).SetFrac64(int64(math.Floor(nc.MultiQ.ClassWeight*65536+0.5)), 65536)
		for _, tb := range d.Tables() {
			for code, g := range e.SpeedTable() {
				if g == 0 || g > nc.MaxLinkSpeedGbps {
					continue
				}
				bq := new(big.Rat).Mul(big.NewRat(int64(g), 8), wq) // w_q*B, bytes/ns
				var want *big.Rat
				switch tb.Name {
				case "kq":
					want = new(big.Rat).Quo(big.NewRat(int64(e.QlenUnit()), 1), new(big.Rat).Mul(bq, big.NewRat(int64(nc.BaseRTTNs), 1)))
				case "kr":
					want = new(big.Rat).Quo(big.NewRat(int64(e.TxBytesUnit()), 1), bq)
				case "mq_wb":
					want = new(big.Rat).Quo(bq, big.NewRat(int64(e.TxBytesUnit()), 1))
				case "mq_bh":
					want = new(big.Rat).Quo(big.NewRat(int64(g), 8), big.NewRat(int64(e.TxBytesUnit()), 1))
				default:
					continue
				}
				scaled := new(big.Rat).Mul(want, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(tb.Format.F()+64))))
				scaled.Quo(scaled, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), 64)))
				// round half up: floor(x + 1/2)
				scaled.Add(scaled, big.NewRat(1, 2))
				fl := new(big.Int).Quo(scaled.Num(), scaled.Denom())
				if fl.Uint64() != tb.Entries[code] {
					t.Errorf("%s: %s[%d] = %#x, want %#x (%s)", nc.name(), tb.Name, code, tb.Entries[code], fl.Uint64(), fmt.Sprint(want.FloatString(12)))
				}
			}
		}
	}
}
