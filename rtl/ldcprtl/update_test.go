package ldcprtl

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// testConfigs are the configurations the description is checked in: the
// default; a narrow one (cw u24.8, a table-only 1/cw unit without
// Newton-Raphson, n up to 15 so the n clamp is reachable, gamma 1/16); and
// inexact parameters (alpha 0.3, beta 0.7, gamma 0.2, eta 0.6, CwMax 100.3,
// all quantized by Rnd into their formats). The first two are
// cc/ldcp's and ldcpvec's test configurations.
func testConfigs() map[string]ldcp.Config {
	narrow := ldcp.DefaultConfig()
	narrow.AckPktsBits, narrow.Gamma = 4, 1.0/16
	narrow.Formats.Cw, narrow.Formats.Param, narrow.Formats.RecipCw = fixedpoint.MustFormat("u24.8"), fixedpoint.MustFormat("u12.4"), fixedpoint.MustFormat("u24.5")
	narrow.RecipCw = ldcp.RecipParams{TableBits: 8, EntryBits: 12, NRSteps: 0}
	odd := ldcp.DefaultConfig()
	odd.Alpha, odd.Beta, odd.Gamma, odd.Eta, odd.CwMaxPkts = 0.3, 0.7, 0.2, 0.6, 100.3
	return map[string]ldcp.Config{"default": ldcp.DefaultConfig(), "narrow": narrow, "inexact": odd}
}

// evaluator runs packed ldcp_update_in words through the rtl evaluator of
// the combinational module and compares with packed golden outputs.
type evaluator struct {
	sim     *rtl.Sim
	in, out fieldtable.Table
}

func newEvaluator(t *testing.T, m *rtl.Module, d *ldcp.Datapath) *evaluator {
	t.Helper()
	sim, err := rtl.NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	in, out := d.InputTable(), d.OutputTable()
	if len(m.Inputs) != len(in.Fields) || len(m.Outputs) != len(out.Fields) {
		t.Fatalf("ports: %d in, %d out; tables %d, %d", len(m.Inputs), len(m.Outputs), len(in.Fields), len(out.Fields))
	}
	for i, f := range in.Fields {
		if m.Inputs[i].Name != f.Name || m.Inputs[i].Width != f.Width {
			t.Fatalf("input %d: port %s (%d bits), field %s (%d bits)", i, m.Inputs[i].Name, m.Inputs[i].Width, f.Name, f.Width)
		}
	}
	for i, f := range out.Fields {
		if m.Outputs[i].Name != f.Name || m.Outputs[i].Node.Width != f.Width {
			t.Fatalf("output %d: port %s, field %s (%d bits)", i, m.Outputs[i].Name, f.Name, f.Width)
		}
	}
	return &evaluator{sim: sim, in: in, out: out}
}

// diff evaluates one transaction and returns "" or the differing fields.
func (e *evaluator) diff(iw, ow []uint64) string {
	for i, f := range e.in.Fields {
		e.sim.SetInUint(i, fieldtable.Get(iw, f))
	}
	e.sim.Eval()
	mism := ""
	for i, f := range e.out.Fields {
		if got, want := e.sim.Out(i).Uint64(), fieldtable.Get(ow, f); got != want {
			mism += fmt.Sprintf(" %s: got %#x want %#x;", f.Name, got, want)
		}
	}
	return mism
}

// TestUpdateEvaluatorVsGolden checks the description, run by the rtl
// evaluator, against the golden datapath (cc/ldcp Update, through the
// expected outputs of ldcpvec's vector sets) on every level-1 and level-2
// directed class and constrained-random vectors (one in eight with every
// input bit uniformly random), in three configurations.
func TestUpdateEvaluatorVsGolden(t *testing.T) {
	n := int64(20000)
	if testing.Short() {
		n = 4000
	}
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			m, err := UpdateComb(cfg)
			if err != nil {
				t.Fatal(err)
			}
			model, err := ldcpvec.New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			set, err := vectors.Generate(model, vectors.Options{Level: 2, Seed: 7, Count: n, NoJSONL: true})
			if err != nil {
				t.Fatal(err)
			}
			e := newEvaluator(t, m, model.Datapath())
			bad, first := 0, ""
			for k := 0; k < set.Len(); k++ {
				if d := e.diff(set.Input(k), set.Output(k)); d != "" {
					bad++
					if first == "" {
						first = fmt.Sprintf("vector %d (%s):%s", k, set.Class(k), d)
					}
				}
			}
			if bad != 0 {
				t.Fatalf("%d of %d vectors differ from the golden datapath; first: %s", bad, set.Len(), first)
			}
			t.Logf("%d vectors (%d nodes) bit-exact", set.Len(), len(m.Nodes))
		})
	}
}

// TestUpdateDirectedSweeps checks the evaluator against the golden
// datapath (ldcp.Datapath.Update, packed with its own PackInput and
// PackOutput) on sweeps the vector classes sample only sparsely: every
// entry of the 1/cw ROM read by an AI ACK (cw >= 1, at several binades) and
// by a timer arm (a send with cw < 1, and an MD ACK taking cw below 1);
// every cw register value around the regime boundary cw = 1, gamma and
// CwMax with ECE 0 and 1 and n in {1, 2, NMax}; window checks at every
// inflight around floor(cw); timer deadlines around now, across the time
// wrap; and all four event kinds on every stage code, including 3.
func TestUpdateDirectedSweeps(t *testing.T) {
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			d, err := ldcp.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := UpdateComb(cfg)
			if err != nil {
				t.Fatal(err)
			}
			e := newEvaluator(t, m, d)
			iw := make([]uint64, d.InputTable().Words())
			ow := make([]uint64, d.OutputTable().Words())
			count, bad := 0, 0
			check := func(st ldcp.State, ev ldcp.Event) {
				t.Helper()
				next, out := d.Update(st, ev)
				if err := d.PackInput(st, ev, iw); err != nil {
					t.Fatal(err)
				}
				if err := d.PackOutput(next, out, ow); err != nil {
					t.Fatal(err)
				}
				count++
				if diff := e.diff(iw, ow); diff != "" {
					bad++
					if bad <= 5 {
						t.Errorf("state %+v event %+v:%s", st, ev, diff)
					}
				}
			}
			fc := cfg.Formats.Cw
			cwF := uint(fc.F())
			one := uint64(1) << cwF
			cwMask := uint64(1)<<uint(fc.W) - 1
			seqMask := uint32(1)<<uint(cfg.SeqBits) - 1
			timeMask := uint64(1)<<uint(cfg.TimeBits) - 1
			u := d.RecipUnit()
			kBits := u.Config.TableBits
			var cwMax, gammaCw, iwCw uint64
			for _, k := range d.Constants() {
				switch k.Name {
				case "gamma":
					gammaCw = k.Raw << (cwF - uint(k.Format.F()))
				case "cw_max":
					cwMax = k.Raw
				case "iw":
					iwCw = k.Raw
				}
			}
			stable := func(cw uint64, inflight uint32) ldcp.State {
				return ldcp.State{Stage: ldcp.Stable, Cw: cw, Start: 100, Una: 1000, Nxt: (1000 + inflight) & seqMask, End: 90000, NextSend: 5}
			}
			ack := func(st ldcp.State, n uint32, ece bool) ldcp.Event {
				return ldcp.Event{Kind: ldcp.Ack, NowNs: 777, AckSeq: (st.Una + n) & seqMask, ECE: ece}
			}
			// 1/cw ROM: mantissa index i after the leading one, at binades
			// 2^0, 2^3 and 2^(I-2) (AI), 2^-1 and 2^-3 (timer).
			for i := uint64(0); i < 1<<uint(kBits); i++ {
				for _, p := range []int{0, 3, fc.I - 2, -1, -3} {
					lead := int(cwF) + p
					if lead < kBits || lead >= fc.W {
						continue
					}
					cw := (uint64(1)<<uint(lead) | i<<uint(lead-kBits)) & cwMask
					if cw >= one {
						if cw > cwMax {
							continue
						}
						check(stable(cw, 3), ack(stable(cw, 3), 1, false))
						check(stable(cw, 3), ack(stable(cw, 3), 2, true)) // MD, possibly below 1: timer armed
					} else if cw >= gammaCw {
						st := stable(cw, 0)
						check(st, ldcp.Event{Kind: ldcp.Send, NowNs: 5})
					}
				}
			}
			// cw around 1, gamma, CwMax and IW, every rule.
			for _, c0 := range []uint64{one, gammaCw, cwMax, iwCw, 2 * one} {
				for dc := int64(-40); dc <= 40; dc++ {
					cw := uint64(int64(c0)+dc) & cwMask
					for _, n := range []uint32{1, 2, uint32(cfg.NMax()), uint32(cfg.NMax()) + 1} {
						st := stable(cw, n+1)
						check(st, ack(st, n, false))
						check(st, ack(st, n, true))
					}
					check(stable(cw, 2), ldcp.Event{Kind: ldcp.Timeout})
				}
			}
			// Window check: inflight around floor(cw).
			for _, c0 := range []uint64{one, one + one/2, 2 * one, 7*one - 1, 7 * one, cwMax} {
				fl := uint32(c0 >> cwF)
				for di := int64(-2); di <= 2; di++ {
					inf := uint32(int64(fl) + di)
					check(stable(c0, inf), ldcp.Event{Kind: ldcp.Send})
				}
			}
			// Sub-packet timer around the deadline and across the wrap.
			for _, dl := range []uint64{0, 1, timeMask, timeMask - 3, 1 << uint(cfg.TimeBits-1), 1<<uint(cfg.TimeBits-1) - 1} {
				for dn := int64(-2); dn <= 2; dn++ {
					st := stable(one/2, 0)
					st.NextSend = dl
					check(st, ldcp.Event{Kind: ldcp.Send, NowNs: uint64(int64(dl)+dn) & timeMask})
				}
			}
			// Every event kind on every stage code with random fields.
			r := rand.New(rand.NewSource(5))
			for i := 0; i < 4000; i++ {
				st := ldcp.State{Stage: ldcp.Stage(i & 3), Cw: r.Uint64() & cwMask, Start: r.Uint32() & seqMask,
					NextSend: r.Uint64() & timeMask}
				st.Una = (st.Start + uint32(r.Intn(200))) & seqMask
				st.Nxt = (st.Una + uint32(r.Intn(200))) & seqMask
				st.End = (st.Nxt + uint32(r.Intn(3))) & seqMask
				ev := ldcp.Event{Kind: ldcp.Kind(i >> 2 & 3), NowNs: r.Uint64() & timeMask, Seq: r.Uint32() & seqMask,
					MsgPkts: uint32(r.Intn(3)), AckSeq: (st.Una + uint32(r.Intn(400)) - 100) & seqMask, ECE: r.Intn(2) == 1, NAK: r.Intn(4) == 0}
				check(st, ev)
			}
			if bad != 0 {
				t.Fatalf("%d of %d directed transactions differ", bad, count)
			}
			t.Logf("%d directed transactions bit-exact", count)
		})
	}
}

// TestUpdatePipelined runs the pipelined ldcp_update (0..4 stages) in the
// rtl evaluator with the testbench protocol (valid handshake, idle cycles
// every 7 transactions) on a golden vector set: every output equals the
// golden datapath's, in order, Stages cycles later.
func TestUpdatePipelined(t *testing.T) {
	cfg := ldcp.DefaultConfig()
	model, err := ldcpvec.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := vectors.Generate(model, vectors.Options{Level: 1, Seed: 3, Count: 2000, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	stim, exp := make([][]uint64, set.Len()), make([][]uint64, set.Len())
	for k := range stim {
		stim[k], exp[k] = set.Input(k), set.Output(k)
	}
	for stages := 0; stages <= 4; stages++ {
		m, rep, err := Update(cfg, stages)
		if err != nil {
			t.Fatal(err)
		}
		if stages > 0 && len(rep) != stages {
			t.Fatalf("stages=%d: %d stage reports", stages, len(rep))
		}
		b := verilog.Bench{DUT: m, In: model.Input(), Out: model.Output(), ValidIn: ValidIn, ValidOut: ValidOut}
		res, err := b.Evaluate(stim, exp, 7)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed != 0 || res.Passed != len(stim) {
			t.Fatalf("stages=%d: %d passed, %d failed; first: %s", stages, res.Passed, res.Failed, res.First)
		}
	}
}

// TestUpdateBadConfig: an invalid configuration is an error naming the
// field (from ldcp.Config.Validate), not a panic.
func TestUpdateBadConfig(t *testing.T) {
	cfg := ldcp.DefaultConfig()
	cfg.SeqBits = 4
	if _, err := UpdateComb(cfg); err == nil {
		t.Fatal("UpdateComb accepted SeqBits=4")
	}
	if _, _, err := Update(cfg, 2); err == nil {
		t.Fatal("Update accepted SeqBits=4")
	}
	if _, _, err := Update(ldcp.DefaultConfig(), -1); err == nil {
		t.Fatal("Update accepted Stages=-1")
	}
}

// BenchmarkEvaluatorUpdate measures the rtl evaluator (Go) on the
// combinational ldcp_update: updates per second.
func BenchmarkEvaluatorUpdate(b *testing.B) {
	cfg := ldcp.DefaultConfig()
	m, err := UpdateComb(cfg)
	if err != nil {
		b.Fatal(err)
	}
	model, err := ldcpvec.New(cfg)
	if err != nil {
		b.Fatal(err)
	}
	set, err := vectors.Generate(model, vectors.Options{Level: 1, Seed: 1, Count: 2000, NoJSONL: true})
	if err != nil {
		b.Fatal(err)
	}
	sim, err := rtl.NewSim(m)
	if err != nil {
		b.Fatal(err)
	}
	in := set.InputTable()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		iw := set.Input(i % set.Len())
		for k, f := range in.Fields {
			sim.SetInUint(k, fieldtable.Get(iw, f))
		}
		sim.Eval()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
