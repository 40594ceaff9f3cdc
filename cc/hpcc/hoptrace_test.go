package hpcc

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// traceConfigs are the configurations StepTrace is checked on: every mode
// and encoding, MultiQ and Sojourn (MultiQ untraced), and the format sets
// of TestFastMatchesSpecFormats that move every cast shift (two Newton
// steps, wide reciprocal entries, a left-shifted u').
func traceConfigs(t *testing.T) []namedConfig {
	cs := append(append(testConfigs(), multiQConfigs()...), sojournConfigs()...)
	for ci, mod := range []func(*Config){
		func(c *Config) { c.Formats.Term = fixedpoint.MustFormat("u48.28"); c.TableEntryBits = 48 },
		func(c *Config) { c.RecipDts.EntryBits = 40; c.RecipU.EntryBits = 40; c.Mode = Receiver },
		func(c *Config) { c.RecipDts.NRSteps = 2; c.RecipU.NRSteps = 2 },
		func(c *Config) { c.RecipDts.NRSteps = 0; c.RecipU.NRSteps = 0 },
	} {
		for _, e := range telemetry.Encodings() {
			c := DefaultConfigFor(e)
			mod(&c)
			if _, err := NewDatapath(c); err != nil {
				t.Fatalf("format set %d %s: %v", ci, e, err)
			}
			cs = append(cs, namedConfig{c, e.String() + "/formats" + string(rune('0'+ci))})
		}
	}
	return cs
}

// traceEvents returns n random (state, event) pairs of d, half of them with
// the stored hop count, identities and timestamps made to match (so that
// slots are valid, at delta ts up to 3T), as TestFastMatchesSpec draws them.
func traceEvents(d *Datapath, n int, seed uint64) ([]State, []Input) {
	rng := rand.New(rand.NewPCG(seed, 17))
	sts, ins := make([]State, n), make([]Input, n)
	for k := range n {
		st, in := randomStateInput(d, rng)
		if k%2 == 0 {
			st.NHops = in.NHops
			if k%4 == 0 {
				st.Valid = true
			}
			for i := range in.Hops {
				r := d.record(&in.Hops[i])
				st.Hops[i].ID = r.ID
				st.Hops[i].Ts = r.Ts - uint64(rng.IntN(3*int(d.cfg.BaseRTTNs)))
			}
		}
		sts[k], ins[k] = st, in
	}
	return sts, ins
}

// TestStepTraceMatchesStep: StepTrace's next state and outputs are Step's
// (the oracle, pruned where prune.go applies) bit for bit on random events
// of every configuration of traceConfigs and along a trace of physical
// events; OK is false exactly for MultiQ.
func TestStepTraceMatchesStep(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	for _, nc := range traceConfigs(t) {
		d := mustDP(t, nc.Config)
		sts, ins := traceEvents(d, n, 5)
		var tr Trace
		for k := range sts {
			s1, s2 := sts[k], sts[k]
			var o1, o2 Output
			d.Step(&s1, &ins[k], &o1)
			d.StepTrace(&s2, &ins[k], &o2, &tr)
			if s1 != s2 || o1 != o2 {
				t.Fatalf("%s case %d: StepTrace differs from Step\nstate %+v\ninput %+v\nstep  %+v %+v\ntrace %+v %+v", nc.name(), k, sts[k], ins[k], s1, o1, s2, o2)
			}
			if tr.OK == nc.MultiQ.Enabled {
				t.Fatalf("%s: trace OK = %v with MultiQ %v", nc.name(), tr.OK, nc.MultiQ.Enabled)
			}
		}
		g := newTraceGen(nc.Config, 9)
		s1, s2 := d.InitialState(), d.InitialState()
		for k := 0; k < n/4; k++ {
			in := g.next()
			var o1, o2 Output
			d.Step(&s1, &in, &o1)
			d.StepTrace(&s2, &in, &o2, &tr)
			if s1 != s2 || o1 != o2 {
				t.Fatalf("%s trace ack %d: StepTrace differs from Step\nstep  %+v %+v\ntrace %+v %+v", nc.name(), k, s1, o1, s2, o2)
			}
		}
	}
}

// TestStepTraceValues: every value StepTrace records equals the operation
// of docs/datapath.md it names, computed here op by op with the
// specification's arithmetic (fixedpoint Values, the units' Recip, the
// spec plans of UpdateSpec) and math/big for the exact products: per valid
// slot the 1/dts unit's leading one, mantissa, table entry and output (and
// the output cast of its Newton result), the three exact products, txRate,
// r_term, q_term and u'; and 1/U of the new U whenever the multiplicative
// step ran on a non-first event. Oracle: UpdateSpec's operations.
func TestStepTraceValues(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	checked := 0
	for _, nc := range traceConfigs(t) {
		if nc.MultiQ.Enabled {
			continue
		}
		d := mustDP(t, nc.Config)
		sp := &d.spec
		rcD, rcU := d.recipDts.Config(), d.recipU.Config()
		tabD, tabU := d.recipDts.Table(), d.recipU.Table()
		sts, ins := traceEvents(d, n, 6)
		var tr Trace
		for k := range sts {
			st, in := sts[k], ins[k]
			next := st
			var out Output
			d.StepTrace(&next, &in, &out, &tr)
			for i := 0; i < d.maxHops; i++ {
				if out.HopValid>>uint(i)&1 == 0 {
					continue
				}
				checked++
				ht := &tr.Hops[i]
				r := d.record(&in.Hops[i])
				prev := st.Hops[i]
				dts := d.deltaTs(r.Ts, prev.Ts)
				dB := (uint64(r.TxBytes) - uint64(prev.TxBytes)) & uint64(d.txMask)
				q := uint64(min(r.Qlen, prev.Qlen&d.qMask))
				code := in.Hops[i].SpeedCode & d.codeMask & 15
				fail := func(what string, got, want any) {
					t.Fatalf("%s case %d hop %d (dts %d, dB %d, q %d, code %d): %s = %v, want %v", nc.name(), k, i, dts, dB, q, code, what, got, want)
				}
				if ht.Dts != dts || ht.DB != dB || ht.QIn != q || ht.Code != code {
					fail("operands (dts, dB, q, code)", [4]uint64{ht.Dts, ht.DB, ht.QIn, uint64(ht.Code)}, [4]uint64{dts, dB, q, uint64(code)})
				}
				checkRecip(fail, "1/dts", rcD, tabD, dts, ht.Rd, &d.fast.rDts)
				rd, _ := d.recipDts.Recip(bits64(d.fDts, dts))
				if ht.Rd.Out != rd.RawUint() {
					fail("1/dts", ht.Rd.Out, rd.RawUint())
				}
				x := sp.tx.MulCast(bits64(d.fDB, dB), rd)
				qT := sp.qTerm.MulCast(bits64(d.fQ, q), d.kq[code])
				rT := sp.rTerm.MulCast(x, d.kr[code])
				up := sp.up.AddCast(qT, rT)
				for _, c := range []struct {
					name      string
					got, want uint64
				}{{"txRate", ht.Tx, x.RawUint()}, {"q_term", ht.Q, qT.RawUint()}, {"r_term", ht.R, rT.RawUint()}, {"u'", ht.U, up.RawUint()}} {
					if c.got != c.want {
						fail(c.name, c.got, c.want)
					}
				}
				for _, c := range []struct {
					name   string
					hi, lo uint64
					a, b   uint64
				}{{"dB*1/dts", ht.PTxHi, ht.PTxLo, dB, rd.RawUint()}, {"txRate*kr", ht.PRHi, ht.PRLo, x.RawUint(), d.kr[code].RawUint()}, {"q*kq", ht.PQHi, ht.PQLo, q, d.kq[code].RawUint()}} {
					got := new(big.Int).Lsh(new(big.Int).SetUint64(c.hi), 64)
					got.Or(got, new(big.Int).SetUint64(c.lo))
					want := new(big.Int).Mul(new(big.Int).SetUint64(c.a), new(big.Int).SetUint64(c.b))
					if got.Cmp(want) != 0 {
						fail(c.name, got, want)
					}
				}
			}
			if out.MI && !out.First {
				if !tr.UOK {
					t.Fatalf("%s case %d: multiplicative step without a 1/U trace", nc.name(), k)
				}
				fail := func(what string, got, want any) {
					t.Fatalf("%s case %d: U %#x: %s = %v, want %v", nc.name(), k, next.U, what, got, want)
				}
				ru, _ := d.recipU.Recip(bits64(d.fU, next.U))
				if tr.RecipU.Out != ru.RawUint() {
					fail("1/U", tr.RecipU.Out, ru.RawUint())
				}
				checkRecip(fail, "1/U", rcU, tabU, next.U, tr.RecipU, &d.fast.rU)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no valid hop traced")
	}
}

// checkRecip checks a unit's trace for input x: the leading one, the
// mantissa and the table entry by their definitions (fixedpoint's
// reciprocal unit: the input shifted so its leading one is at bit In.W-1,
// the entry indexed by the TableBits bits below it), and the output cast of
// the Newton result (the unit's Scale for P) giving Out.
func checkRecip(fail func(string, any, any), name string, rc fixedpoint.ReciprocalConfig, table []uint64, x uint64, rt RecipTrace, rr *fixedpoint.RawReciprocal) {
	if x == 0 {
		if rt.P != -1 || rt.Out != rr.Recip(0) {
			fail(name+" of 0 (P, Out)", [2]uint64{uint64(rt.P), rt.Out}, [2]uint64{^uint64(0), rr.Recip(0)})
		}
		return
	}
	p := bits.Len64(x) - 1
	m := x << uint(rc.In.W-1-p)
	idx := m >> uint(rc.In.W-1-rc.TableBits) & (1<<uint(rc.TableBits) - 1)
	if rt.P != p || rt.M != m || rt.Seed != table[idx] {
		fail(name+" (P, M, Seed)", [3]uint64{uint64(rt.P), rt.M, rt.Seed}, [3]uint64{uint64(p), m, table[idx]})
	}
	if rr.NRSteps() == 0 && rt.Y != rt.Seed {
		fail(name+" Newton result with no step", rt.Y, rt.Seed)
	}
	if got := rr.Scale(p).Cast(rt.Y); got != rt.Out {
		fail(name+" output cast of Y", got, rt.Out)
	}
}
