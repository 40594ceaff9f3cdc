package nicmodel

import (
	"fmt"
	"math/big"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// dataDepartures returns the departure cycles of the data packets of QP q
// recorded on a link, in order.
func dataDepartures(t testing.TB, l *link, q wire.QPN) []engine.Cycle {
	t.Helper()
	var out []engine.Cycle
	for _, g := range l.got {
		p := decoded(t, g.v)
		if p.Class == wire.ClassData && p.DestQP == q {
			out = append(out, g.at)
		}
	}
	return out
}

// TestWindowLimited runs one flow of 100 packets with congestion control
// off, a 10,000-byte window, pacing at the line rate and a loop of about
// 4.4 us, so the window is what limits it (one BDP would be ~48 KB).
// Checks (oracle: the window rule of section 7.2, bytes in flight <= W):
// at the end of every executed cycle A's bytes in flight are at most W;
// the first 10 packets leave back to back at the line rate (87.2 ns each:
// gaps of 87 or 88 cycles); every later packet leaves at least one loop
// (2 x 2000 cycles of propagation) after the packet 10 before it, since it
// needs that packet's ACK; the scheduler counts window blocks; the flow
// completes.
func TestWindowLimited(t *testing.T) {
	cfg := testConfig(CCNone)
	cfg.HPCC.WInitBytes = 10000
	cfg.Scheduler.InitRateBps = cfg.LineRateBps()
	b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 1, delay: 2000})
	b.open(t, 1, 100_000, 0)
	var worst uint64
	b.e.SetCycleHook(func(now engine.Cycle) {
		f := must(b.a.sched.Flow(1))(t)
		if f.Inflight > f.WindowBytes {
			t.Fatalf("cycle %d: %d bytes in flight > W = %d", now, f.Inflight, f.WindowBytes)
		}
		worst = max(worst, f.Inflight)
	})
	b.runIdle(t, 1_000_000)
	dep := dataDepartures(t, b.ab, 1)
	if len(dep) != 100 {
		t.Fatalf("%d data packets, want 100", len(dep))
	}
	for k := 1; k < 10; k++ {
		if g := dep[k] - dep[k-1]; g != 87 && g != 88 {
			t.Errorf("packet %d left %d cycles after packet %d; want 87 or 88 (line rate)", k, g, k-1)
		}
	}
	for k := 10; k < 100; k++ {
		if g := dep[k] - dep[k-10]; g < 4000 {
			t.Fatalf("packet %d left %d cycles after packet %d: faster than one loop (window 10 packets)", k, g, k-10)
		}
	}
	if worst != 10000 {
		t.Errorf("most bytes in flight %d, want the window 10000", worst)
	}
	c := b.a.Counters()
	if c.Scheduler.WindowBlocks == 0 {
		t.Errorf("no window blocks counted")
	}
	if r := b.a.Completed(); len(r) != 1 || r[0].Bytes != 100_000 {
		t.Fatalf("completions %+v", r)
	}
}

// gapOf is the pacing oracle of docs/scheduler.md computed with math/big:
// the gap per byte G = ceil(f * 8 * 2^GF / bps) of a rate in bit/s, or
// G = ceil(f * 2^(RF+GF) / (1e9 * R)) of a raw rate R in bytes/ns with RF
// fraction bits.
func gapOfBps(f engine.Freq, bps uint64, gf int) *big.Int {
	num := new(big.Int).Lsh(new(big.Int).SetUint64(uint64(f)*8), uint(gf))
	return ceilDiv(num, new(big.Int).SetUint64(bps))
}

func gapOfRaw(f engine.Freq, r uint64, rf, gf int) *big.Int {
	num := new(big.Int).Lsh(new(big.Int).SetUint64(uint64(f)), uint(rf+gf))
	den := new(big.Int).Mul(big.NewInt(1_000_000_000), new(big.Int).SetUint64(r))
	return ceilDiv(num, den)
}

func ceilDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q
}

// TestPacingLimited runs one flow with congestion control off and the
// initial rate set below the line rate, with a window that never limits.
// Oracle (docs/scheduler.md, pacing): with G = ceil(f*8*2^16/bps) and w =
// 1090 wire bytes (1000 payload + 90 overhead), packet k is sent at
// t0 + ceil(k*w*G / 2^16); every packet then takes the same path to the
// port (PktSend register, Tx stages, an idle MAC), so the departures at the
// port must be exactly dep[0] + ceil(k*w*G/2^16): single gaps are the floor
// or ceiling of w*G/2^16 cycles and their sum is exact. The measured rate
// is within the documented granularity: at most R, and above R/(1+R*2^-16)
// less one cycle over the run.
func TestPacingLimited(t *testing.T) {
	for _, bps := range []uint64{40e9, 13e9, 1e9} {
		cfg := testConfig(CCNone)
		cfg.Scheduler.InitRateBps = bps
		b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 1, delay: 300})
		const n = 60
		b.open(t, 1, n*1000, 0)
		b.runIdle(t, 10_000_000)
		dep := dataDepartures(t, b.ab, 1)
		if len(dep) != n {
			t.Fatalf("%d Gbit/s: %d packets, want %d", bps/1e9, len(dep), n)
		}
		g := gapOfBps(cfg.ClockHz, bps, cfg.Scheduler.GapFracBits)
		if fs := must(b.a.sched.Flow(1))(t); fs.Gap != g.Uint64() {
			t.Fatalf("scheduler G = %d, oracle %s", fs.Gap, g)
		}
		w := big.NewInt(int64(1000 + cfg.OverheadBytes()))
		one := new(big.Int).Lsh(big.NewInt(1), uint(cfg.Scheduler.GapFracBits))
		for k := 1; k < n; k++ {
			off := ceilDiv(new(big.Int).Mul(new(big.Int).Mul(big.NewInt(int64(k)), w), g), one)
			if got := dep[k] - dep[0]; uint64(got) != off.Uint64() {
				t.Fatalf("%d Gbit/s: packet %d left %d cycles after packet 0, want %s", bps/1e9, k, got, off)
			}
		}
		// Measured rate over the run, wire bits per second.
		span := float64(dep[n-1]-dep[0]) / float64(cfg.ClockHz)
		rate := float64((n-1)*int(w.Int64())*8) / span
		if rate > float64(bps)*(1+1e-12) {
			t.Errorf("%d Gbit/s: measured %.6g bit/s exceeds R", bps/1e9, rate)
		}
		if lo := float64(bps) / (1 + float64(bps)/8/float64(cfg.ClockHz)/65536) * (span - 1/float64(cfg.ClockHz)) / span; rate < lo {
			t.Errorf("%d Gbit/s: measured %.6g bit/s below the granularity bound %.6g", bps/1e9, rate, lo)
		}
	}
}

// TestPacingFollowsModule runs sender-based HPCC++ with the rates the
// module computes and checks the pacing against every rate register the
// module pushed (read back from the updates and pktsend vector traces):
// consecutive packets of a flow are at least floor(w*G(R)/2^16) cycles
// apart, G(R) from the math/big oracle for the R in force at the second
// packet's decision (an update pushed in cycle u is used from cycle u+2,
// docs/scheduler.md); and the scheduler's final G equals the oracle's for
// the last R.
func TestPacingFollowsModule(t *testing.T) {
	cfg := testConfig(CCHPCC)
	// A queue at the switch that comes and goes makes the rate move.
	qlen := func(now engine.Cycle) uint64 { return uint64(now/3000%4) * 20000 }
	b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 1, delay: 1000, qlen: qlen, trace: TraceOptions{Vectors: true}})
	b.open(t, 1, 400_000, 0)
	b.runIdle(t, 10_000_000)
	ups := streamRows(t, b.a.rec, "updates")
	sends := streamRows(t, b.a.rec, "pktsend")
	if len(ups) < 100 || len(sends) != 400 {
		t.Fatalf("%d updates, %d sends", len(ups), len(sends))
	}
	w := int64(1000 + cfg.OverheadBytes())
	one := new(big.Int).Lsh(big.NewInt(1), 16)
	rf := cfg.HPCC.Formats.Rate.F()
	distinct := map[uint64]bool{}
	u := 0
	var r uint64
	for k := 1; k < len(sends); k++ {
		// The decision of send k was made in cycle sends[k].cycle-1 (the
		// PktSend register pops the command a cycle after the push).
		decision := engine.Cycle(sends[k]["cycle"]) - 1
		for u < len(ups) && engine.Cycle(ups[u]["cycle"])+2 <= decision {
			r = ups[u]["rate"]
			u++
		}
		if r == 0 {
			continue // still at the initial rate
		}
		distinct[r] = true
		g := gapOfRaw(cfg.ClockHz, r, rf, 16)
		min := new(big.Int).Quo(new(big.Int).Mul(big.NewInt(w), g), one).Uint64()
		if gap := sends[k]["cycle"] - sends[k-1]["cycle"]; gap < min {
			t.Fatalf("send %d: %d cycles after the previous one, R=%d allows at least %d", k, gap, r, min)
		}
	}
	if len(distinct) < 5 {
		t.Errorf("only %d distinct rates: the scenario does not exercise rate changes", len(distinct))
	}
	last := ups[len(ups)-1]["rate"]
	if fs := must(b.a.sched.Flow(1))(t); fs.Gap != gapOfRaw(cfg.ClockHz, last, rf, 16).Uint64() {
		t.Errorf("final G = %d, oracle %s for R = %d", fs.Gap, gapOfRaw(cfg.ClockHz, last, rf, 16), last)
	}
}

// streamRows parses a recorded vector stream back into named fields.
// streamHex returns the hex lines of the recorder's stream name.
func streamHex(t testing.TB, rec *trace.Recorder, name string) string {
	t.Helper()
	_, hex, ok := rec.Stream(name)
	if !ok {
		t.Fatalf("no trace stream %q", name)
	}
	return hex
}

func streamRows(t testing.TB, rec *trace.Recorder, name string) []map[string]uint64 {
	t.Helper()
	table, hex, ok := rec.Stream(name)
	if !ok {
		t.Fatalf("no trace stream %q", name)
	}
	var rows []map[string]uint64
	word := make([]uint64, table.Words())
	for _, line := range splitLines(hex) {
		if err := table.ParseHex(line, word); err != nil {
			t.Fatal(err)
		}
		m := map[string]uint64{}
		for _, f := range table.Fields {
			m[f.Name] = fieldValue(word, f.Offset, f.Width)
		}
		rows = append(rows, m)
	}
	return rows
}

// TestDelayedAck runs one flow of 37 packets to a receiver that sends one
// ACK per 4 data packets. Oracle (pipeline.TxConfig.AckEvery and the BTH A
// bit on a message's last packet, tx.ack_req_last): with a timer that never
// fires, the receiver acknowledges PSNs 3, 7, ..., 35 (every 4th) and 36
// (the last, A bit) -- 10 ACKs; without ack_req_last the last packet waits
// for the timer. With a timer shorter than the packet spacing (a 4 Gbit/s
// flow: 2180 cycles between packets, timer 500), every packet but the last
// is acknowledged by the timer (36 timer ACKs, 37 ACKs in all).
func TestDelayedAck(t *testing.T) {
	for _, tc := range []struct {
		name       string
		timeout    int
		bps        uint64
		ackReqLast bool
		wantPSNs   []wire.PSN
		wantTimer  uint64
	}{
		{"every-4", 100_000, 0, true, []wire.PSN{3, 7, 11, 15, 19, 23, 27, 31, 35, 36}, 0},
		{"every-4/no-A-bit", 100_000, 0, false, []wire.PSN{3, 7, 11, 15, 19, 23, 27, 31, 35, 36}, 1},
		{"timer", 500, 4e9, true, nil, 36},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(CCHPCC)
			cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles, cfg.Tx.AckReqLast = 4, tc.timeout, tc.ackReqLast
			cfg.Scheduler.InitRateBps = tc.bps
			cfgA := cfg
			if tc.bps != 0 {
				cfgA.CC = CCNone // keep the sender's rate at init_rate_bps
			}
			b := newBench(t, benchOpts{cfgA: cfgA, cfgB: cfg, flows: 1, delay: 500})
			b.open(t, 1, 37_000, 0)
			b.runIdle(t, 10_000_000)
			var psns []wire.PSN
			for _, g := range b.ba.got {
				if p := decoded(t, g.v); p.Class == wire.ClassAck {
					psns = append(psns, p.PSN)
				}
			}
			want := tc.wantPSNs
			if want == nil {
				for k := wire.PSN(0); k < 37; k++ {
					want = append(want, k)
				}
			}
			if len(psns) != len(want) {
				t.Fatalf("ACK PSNs %v, want %v", psns, want)
			}
			for i := range want {
				if psns[i] != want[i] {
					t.Fatalf("ACK PSNs %v, want %v", psns, want)
				}
			}
			if c := b.b.Counters().Tx; c.AckTimeouts != tc.wantTimer {
				t.Errorf("timer ACKs %d, want %d", c.AckTimeouts, tc.wantTimer)
			}
			if r := b.a.Completed(); len(r) != 1 {
				t.Fatalf("flow did not complete: %+v", r)
			}
			if c := b.a.Counters().Module; c.AcksAdvanced != uint64(len(want)) {
				t.Errorf("sender processed %d advancing ACKs, want %d", c.AcksAdvanced, len(want))
			}
		})
	}
}

var _ = scheduler.FlowIdle

// TestFloatModelNIC runs the same congested scenario with the golden
// datapath and with the float reference (model = float) for both roles:
// both complete every flow, the float run's windows differ from the
// fixed run's (the selection takes effect) and its flow completion times
// stay within 5% of the fixed run's (the datapath's formats are chosen for
// a per-step relative error on W below 2^-10, docs/datapath.md).
func TestFloatModelNIC(t *testing.T) {
	for _, cc := range []CCMode{CCHPCC, CCHPCCRx} {
		run := func(m Model) (*bench, []FlowRecord) {
			cfg := testConfig(cc)
			cfg.Model = m
			if cc == CCHPCCRx {
				cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 4, 3000
			}
			qlen := func(now engine.Cycle) uint64 { return uint64(now/3000%3) * 25000 }
			b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 2, delay: 800, qlen: qlen, trace: TraceOptions{Vectors: true}})
			b.open(t, 1, 300_000, 0)
			b.open(t, 2, 300_000, 0)
			b.runIdle(t, 10_000_000)
			return b, b.a.Completed()
		}
		fb, fr := run(Fixed)
		lb, lr := run(Float)
		if len(fr) != 2 || len(lr) != 2 {
			t.Fatalf("%v: completed %d fixed, %d float", cc, len(fr), len(lr))
		}
		for i := range fr {
			a, b := float64(fr[i].Done-fr[i].Start), float64(lr[i].Done-lr[i].Start)
			if b < a*0.95 || b > a*1.05 {
				t.Errorf("%v flow %d: FCT fixed %v, float %v", cc, fr[i].QPN, a, b)
			}
		}
		// cc=hpcc: the sender's W and R registers must differ somewhere.
		// cc=hpcc-rx: the notified windows are whole bytes and come out
		// equal here, so check the receiver's flow state instead: the
		// reference's U (float64) is not the datapath's U (24 fraction
		// bits).
		if cc == CCHPCC && streamHex(t, fb.a.rec, "updates") == streamHex(t, lb.a.rec, "updates") {
			t.Errorf("%v: float and fixed runs sent identical updates", cc)
		}
		if cc == CCHPCCRx {
			if lb.b.rxcc.fl == nil || lb.b.rxcc.fx != nil || fb.b.rxcc.fx == nil {
				t.Fatalf("receiver model not selected")
			}
			fu := hpcc.Real(fb.b.cfg.HPCC.Formats.U, fb.b.rxcc.fx[1].U)
			if lu := lb.b.rxcc.fl[1].U; lu == fu || lu < fu*0.99 || lu > fu*1.01 {
				t.Errorf("receiver U: float %v, fixed %v", lu, fu)
			}
		}
	}
}

// notifyWindows lists the W of every notification recorded on a link.
func notifyWindows(t testing.TB, l *link) string {
	var s []byte
	for _, g := range l.got {
		if p := decoded(t, g.v); p.Class == wire.ClassNotify {
			s = append(s, fmt.Sprintf("%d/%d ", p.DestQP, p.Window)...)
		}
	}
	return string(s)
}
