package scheduler

import (
	"fmt"
	"math/big"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// windowCfg is the default configuration with a window register wide enough
// for tests and the given initial window.
func windowCfg(initWindow uint64) Config {
	cfg := DefaultConfig()
	cfg.InitWindowBytes = initWindow
	return cfg
}

// TestWindowLimited checks window enforcement with a loopback peer that
// acknowledges each packet rtt=2000 cycles after the Tx sink takes it.
// Strict mode with W=4500 and 1000-byte packets: 4 packets fit
// (4000 <= 4500, 5000 > 4500); the 5th waits for the first ack: packet 0 is
// taken by the sink in cycle 3, its ack is visible in 3+2000=2003, the sink
// forwards it to the Acks FIFO in 2003, the scheduler pops it in 2004, it
// takes effect in 2005, and the sink sees packet 4 in 2006. Overshoot mode
// sends while inflight < W: 5 packets. A cycle hook checks the bound
// inflight <= W (strict) or inflight < W + MTU (overshoot) in every cycle.
func TestWindowLimited(t *testing.T) {
	for _, tc := range []struct {
		mode       WindowMode
		firstBurst int
		bound      uint64
	}{{WindowStrict, 4, 4500}, {WindowOvershoot, 5, 4500 + 1000 - 1}} {
		for _, noSkip := range []bool{false, true} {
			cfg := windowCfg(4500)
			cfg.WindowMode = tc.mode
			b := newTestBench(t, cfg, []cmd{db(0, 0, 30_000)}, benchOpts{rtt: 2000, noSkip: noSkip})
			maxInflight := uint64(0)
			b.e.SetCycleHook(func(engine.Cycle) {
				st, _ := b.s.Flow(0)
				maxInflight = max(maxInflight, st.Inflight)
			})
			b.run(t, 10_000_000)
			log := b.sendsOf(0)
			if len(log) != 30 {
				t.Fatalf("%v: %d packets, want 30", tc.mode, len(log))
			}
			burst := 0
			for _, x := range log {
				if x.at < 2003 {
					burst++
				}
			}
			if burst != tc.firstBurst {
				t.Errorf("%v: %d packets before the first ack, want %d", tc.mode, burst, tc.firstBurst)
			}
			if tc.mode == WindowStrict && log[4].at != 2006 {
				t.Errorf("strict: packet 4 at %d, want 2006", log[4].at)
			}
			if maxInflight > tc.bound {
				t.Errorf("%v: max inflight %d, want <= %d", tc.mode, maxInflight, tc.bound)
			}
			if maxInflight < tc.bound-1000 {
				t.Errorf("%v: max inflight %d: the window was never used", tc.mode, maxInflight)
			}
			st, _ := b.s.Flow(0)
			if st.Acked != 30_000 || st.Inflight != 0 || st.State != FlowIdle {
				t.Errorf("%v: final flow status %+v", tc.mode, st)
			}
		}
	}
}

// TestWindowSmallerThanPacket: in strict mode a window below one packet
// stalls the flow (WindowBlocks counts it); a window update to 2000 bytes
// (raw u32.24 = 2000<<8) lets exactly 2 packets go, since no acks return.
func TestWindowSmallerThanPacket(t *testing.T) {
	cfg := windowCfg(500)
	b := newTestBench(t, cfg, []cmd{db(0, 0, 10_000), win(5000, 0, 2000<<8)}, benchOpts{})
	b.run(t, 10_000_000)
	log := b.sendsOf(0)
	if len(log) != 2 || log[0].at != 5003 {
		t.Errorf("sent %v; want 2 packets, the first seen at 5003 (update pushed 5000, effective 5002)", log)
	}
	c := b.s.Counters()
	if c.WindowBlocks != 2 || c.WindowUpdates != 1 {
		t.Errorf("WindowBlocks = %d, WindowUpdates = %d; want 2 (before and after the update), 1", c.WindowBlocks, c.WindowUpdates)
	}
	st, _ := b.s.Flow(0)
	if st.WindowBytes != 2000 || st.Window != 2000<<8 || st.State != FlowWindow {
		t.Errorf("flow status %+v", st)
	}
}

// TestRoundRobin: three flows always eligible at the line rate; round robin
// grants 0,1,2,0,1,2,... exactly.
func TestRoundRobin(t *testing.T) {
	cfg := windowCfg(1 << 20)
	script := []cmd{db(0, 0, 20_000), db(0, 1, 20_000), db(0, 2, 20_000)}
	b := newTestBench(t, cfg, script, benchOpts{})
	b.run(t, 10_000_000)
	if len(b.tx.log) != 60 {
		t.Fatalf("%d packets, want 60", len(b.tx.log))
	}
	// Doorbells are popped one per cycle (cycles 1, 2, 3), so flow 0 is alone
	// for the first grant, then 0 and 1... the strict rotation starts once
	// all three are eligible.
	var got []FlowID
	for _, x := range b.tx.log {
		got = append(got, x.cmd.Flow)
	}
	for i := 3; i < 57; i++ {
		if got[i] != got[i-3] {
			t.Fatalf("grant %d = flow %d, grant %d = flow %d: not a rotation; sequence %v", i, got[i], i-3, got[i-3], got[:12])
		}
	}
	if !slices.Equal(got[:3], []FlowID{0, 1, 2}) {
		t.Errorf("first grants %v, want [0 1 2]", got[:3])
	}
}

// TestDWRRWeights: quanta 1x, 2x, 3x the packet's wire size give the grant
// pattern 0,1,1,2,2,2 per round (each visit adds the quantum and the flow
// sends while the deficit covers a 1082-byte packet). The flows are paced at
// 200 Gbit/s, above the line rate, so only the line-rate limiter spaces
// packets and every flow stays eligible (a flow paced at the line rate would
// not be: its own pacer's phase differs from the limiter's by a fraction of
// a cycle, and DWRR passes over a flow that is not eligible).
func TestDWRRWeights(t *testing.T) {
	cfg := windowCfg(1 << 22)
	cfg.WindowFormat = fixedpoint.MustFormat("u40.32")
	cfg.Arbiter = DWRR
	cfg.Flows = 3
	cfg.Quanta = []uint32{1082, 2164, 3246}
	script := []cmd{rate(0, 0, rawRate(200)), rate(0, 1, rawRate(200)), rate(0, 2, rawRate(200)),
		db(10, 0, 100_000), db(10, 1, 100_000), db(10, 2, 100_000)}
	b := newTestBench(t, cfg, script, benchOpts{})
	b.run(t, 10_000_000)
	var got []FlowID
	for _, x := range b.tx.log {
		got = append(got, x.cmd.Flow)
	}
	// The first grants happen while doorbells are still arriving; from the
	// first grant of flow 0 after all three are eligible the pattern repeats.
	start := -1
	for i := 1; i < len(got); i++ {
		if got[i] == 0 && got[i-1] == 2 {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no round start in %v", got[:20])
	}
	pattern := []FlowID{0, 1, 1, 2, 2, 2}
	for r := 0; r < 15; r++ {
		if round := got[start+6*r : start+6*r+6]; !slices.Equal(round, pattern) {
			t.Fatalf("round %d = %v, want %v", r, round, pattern)
		}
	}
}

// TestDWRRByteFairness: flow 0 sends 200-byte messages (282 wire bytes),
// flow 1 one large message of 1000-byte packets (1082 wire bytes), equal
// quanta. While both are backlogged, DWRR keeps their wire bytes within
// quantum + largest packet of each other (the DRR fairness bound), and round
// robin instead keeps their packet counts within 1. Both flows are paced
// at 200 Gbit/s so that only the line rate limits them (see
// TestDWRRWeights).
func TestDWRRByteFairness(t *testing.T) {
	for _, arb := range []Arbiter{DWRR, RoundRobin} {
		cfg := windowCfg(1 << 22)
		cfg.WindowFormat = fixedpoint.MustFormat("u40.32")
		cfg.Arbiter = arb
		cfg.Flows = 2
		script := []cmd{rate(0, 0, rawRate(200)), rate(0, 1, rawRate(200)), db(5, 1, 2_000_000)}
		for i := 0; i < 250; i++ {
			script = append(script, db(5, 0, 200))
		}
		b := newTestBench(t, cfg, script, benchOpts{})
		b.run(t, 100_000_000)
		var bytes, pkts [2]int64
		worstBytes, worstPkts := int64(0), int64(0)
		for _, x := range b.tx.log {
			f := x.cmd.Flow
			bytes[f] += int64(x.cmd.Bytes) + int64(cfg.OverheadBytes)
			pkts[f]++
			if pkts[0] == 250 {
				break // flow 0 drained; fairness no longer applies
			}
			if x.at > 260 { // all 250 doorbells applied by cycle ~252
				worstBytes = max(worstBytes, abs(bytes[0]-bytes[1]))
				worstPkts = max(worstPkts, abs(pkts[0]-pkts[1]))
			}
		}
		switch arb {
		case DWRR:
			if bound := int64(cfg.Quantum) + int64(cfg.maxWire()); worstBytes > bound {
				t.Errorf("dwrr: wire bytes differ by %d, bound %d", worstBytes, bound)
			}
		case RoundRobin:
			if worstPkts > 1 {
				t.Errorf("rr: packet counts differ by %d, want <= 1", worstPkts)
			}
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestRateUpdateImmediate: a flow paced at 1 Gbit/s (a 1082-byte packet
// every 8656 cycles) gets 100 Gbit/s in the middle of a gap. The new rate
// applies to the current interval at once: the next packet follows the last
// one by ceil(1082*G_100G/2^16) cycles, not 8656.
func TestRateUpdateImmediate(t *testing.T) {
	cfg := windowCfg(1 << 20)
	r1, r100 := rawRate(1), rawRate(100)
	script := []cmd{rate(0, 0, r1), db(0, 0, 3000), rate(1000, 0, r100)}
	b := newTestBench(t, cfg, script, benchOpts{})
	b.run(t, 10_000_000)
	log := b.sendsOf(0)
	if len(log) != 3 {
		t.Fatalf("%d packets", len(log))
	}
	// Packet 0 seen at 3; the update (pushed 1000) applies from 1002, when
	// packet 1's recomputed time 2 + ceil(1082*G100/65536) = 2 + 87 = 89 is
	// already past, so packet 1 goes at once: pushed 1002, seen 1003.
	g100, _ := gapOracle(cfg, r100)
	if want := engine.Cycle(2 + ceilShift(bigMul(1082, g100), 16) + 1); want != 90 {
		t.Fatalf("oracle arithmetic: %d", want)
	}
	if log[0].at != 3 || log[1].at != 1003 {
		t.Errorf("sends at %v; want packet 0 at 3, packet 1 at 1003", log)
	}
	if gap := log[2].at - log[1].at; uint64(gap) != ceilShift(bigMul(1082, g100), 16) && uint64(gap) != ceilShift(bigMul(1082, g100), 16)-1 {
		t.Errorf("gap after update %d cycles, want about %d", gap, ceilShift(bigMul(1082, g100), 16))
	}
}

// TestBurstCredit: with BurstBytes = 3 packets' wire bytes, a flow paced at
// 10 Gbit/s that was idle sends its first 4 packets at the line rate
// (credit for 3 intervals plus the one it is in), then at 10 Gbit/s.
func TestBurstCredit(t *testing.T) {
	cfg := windowCfg(1 << 20)
	cfg.BurstBytes = 3 * 1082
	script := []cmd{rate(0, 0, rawRate(10)), db(100_000, 0, 10_000)}
	b := newTestBench(t, cfg, script, benchOpts{})
	b.run(t, 10_000_000)
	log := b.sendsOf(0)
	var gaps []engine.Cycle
	for i := 1; i < len(log); i++ {
		gaps = append(gaps, log[i].at-log[i-1].at)
	}
	// Line gap per packet 1082*8/100 = 86.56 cycles -> 86 or 87; 10 Gbit/s
	// gives 865.6 -> 865 or 866.
	for i, g := range gaps {
		line := g == 86 || g == 87
		paced := g == 865 || g == 866
		if (i < 3 && !line) || (i >= 4 && !paced) {
			t.Errorf("gaps %v: gap %d = %d", gaps, i, g)
			break
		}
	}
}

func bigMul(a, b uint64) *big.Int {
	return new(big.Int).Mul(new(big.Int).SetUint64(a), new(big.Int).SetUint64(b))
}

// TestCounters checks the command-error counters and message queue limits
// with hand-counted expectations.
func TestCounters(t *testing.T) {
	cfg := windowCfg(1 << 20)
	cfg.Flows = 4
	cfg.MaxMessages = 2
	script := []cmd{
		rate(0, 2, 0), // pause flow 2 (popped in 1)
		db(0, 9, 100), // bad flow
		{at: 0, u: &Update{Flow: 4, SetRate: true}},    // bad flow
		{at: 0, a: &Ack{Flow: 5}},                      // bad flow
		db(10, 2, 100), db(10, 2, 100), db(10, 2, 100), // paused: queued; the third is dropped (MaxMessages=2)
		db(10, 1, 100), db(10, 1, 100), // popped in 14 and 15: two packets
		{at: 10, a: &Ack{Flow: 1, AckedBytes: 0}},     // stale (0 <= 0)
		{at: 100, a: &Ack{Flow: 1, AckedBytes: 500}},  // beyond sent 200: clamped to 200, advances
		{at: 101, a: &Ack{Flow: 1, AckedBytes: 150}},  // stale
		{at: 200, d: &Doorbell{Flow: 1, Reset: true}}, // reset
		rate(300, 3, 1), // slowest rate: gap saturates
	}
	// PaceWaits = 1: flow 1's first message is sent in 15; its second,
	// applied in 15 after that decision, must wait for the pacer
	// (15 + 182*0.08 = 29.56, eligible in 30).
	b := newTestBench(t, cfg, script, benchOpts{})
	b.run(t, 10_000_000)
	c := b.s.Counters()
	want := Counters{
		PktSends: 2, PayloadBytes: 200, WireBytes: 2*82 + 200,
		Doorbells: 4, DoorbellDrops: 1, FlowResets: 1, PaceWaits: 1,
		Updates: 2, RateUpdates: 2, RatePauses: 1, RateClamped: 1,
		Acks: 1, AckStale: 2, AckBeyondSent: 1, BadFlowID: 3,
	}
	if c != want {
		t.Errorf("Counters =\n%+v\nwant\n%+v", c, want)
	}
	st, _ := b.s.Flow(2)
	if st.State != FlowPaused || st.Backlog != 200 || st.Messages != 2 {
		t.Errorf("flow 2 %+v; want paused with 2 messages, 200 bytes", st)
	}
	st, _ = b.s.Flow(1)
	if st.Sent != 0 || st.Acked != 0 || st.Window != uint64(cfg.InitWindowBytes)<<8 {
		t.Errorf("flow 1 after reset %+v", st)
	}
	if _, err := b.s.Flow(4); err == nil {
		t.Error("Flow(4) with Flows=4: no error")
	}
}

// TestValidate checks that each bad field is named with its value.
func TestValidate(t *testing.T) {
	tests := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.Flows = 0 }, "scheduler: Flows=0: must be in [1,1048576]"},
		{func(c *Config) { c.ClockHz = 0 }, "scheduler: ClockHz: engine: Freq=0 Hz"},
		{func(c *Config) { c.LineRateBps = 0 }, "scheduler: LineRateBps=0: must be in"},
		{func(c *Config) { c.MTU = 0 }, "scheduler: MTU=0: must be in [1,65536]"},
		{func(c *Config) { c.OverheadBytes = -1 }, "scheduler: OverheadBytes=-1"},
		{func(c *Config) { c.RateFormat = fixedpoint.MustFormat("s32.8") }, "scheduler: RateFormat=s32.8: must be unsigned"},
		{func(c *Config) { c.WindowFormat = fixedpoint.MustFormat("u70.40") }, "scheduler: WindowFormat=u70.40: must be unsigned with W <= 64"},
		{func(c *Config) { c.RateUnit = 7 }, "scheduler: RateUnit=RateUnit(7)"},
		{func(c *Config) { c.GapBits = 0 }, "scheduler: GapBits=0: must be in [1,64]"},
		{func(c *Config) { c.GapFracBits = 33 }, "scheduler: GapFracBits=33: must be in [0,32]"},
		{func(c *Config) { c.WindowMode = 9 }, "scheduler: WindowMode=WindowMode(9)"},
		{func(c *Config) { c.Arbiter = 9 }, "scheduler: Arbiter=Arbiter(9)"},
		{func(c *Config) { c.Quantum = 1000 }, "scheduler: Quantum=1000: must be in [1082,16777216]"},
		{func(c *Config) { c.Quanta = []uint32{5000} }, "scheduler: len(Quanta)=1: must be 0 or Flows=1024"},
		{func(c *Config) { c.Flows = 2; c.Quanta = []uint32{5000, 10} }, "scheduler: Quanta[1]=10"},
		{func(c *Config) { c.BurstBytes = 1 << 25 }, "scheduler: BurstBytes=33554432"},
		{func(c *Config) { c.MaxMessages = 0 }, "scheduler: MaxMessages=0"},
		{func(c *Config) { c.InitWindowBytes = 1 << 24 }, "scheduler: InitWindowBytes=16777216: must be at most 16777215"},
		{func(c *Config) { c.InitRateBps = c.LineRateBps + 1 }, "scheduler: InitRateBps=100000000001"},
		{func(c *Config) { c.LineRateBps = 1; c.GapBits = 20 }, "scheduler: LineRateBps=1: too slow"},
		{func(c *Config) { c.RateFormat = fixedpoint.MustFormat("u64.0"); c.ClockHz = 999_999_999 }, "scheduler: RateFormat=u64.0: too wide"},
	}
	for _, tt := range tests {
		c := DefaultConfig()
		tt.mod(&c)
		err := c.Validate()
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("Validate() = %v, want prefix %q", err, tt.want)
		}
	}
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Errorf("DefaultConfig().Validate() = %v", err)
	}
	if _, err := New(c, Ports{}); err == nil || err.Error() != "scheduler: Ports.Sends: nil: the PktSend FIFO is required" {
		t.Errorf("New without Sends: %v", err)
	}
}

// scenario is a random scheduler workload for the skipping test.
func randomScenario(r *rand.Rand) (Config, []cmd, benchOpts) {
	cfg := DefaultConfig()
	cfg.Flows = 1 + r.IntN(12)
	cfg.Arbiter = Arbiter(r.IntN(2))
	cfg.WindowMode = WindowMode(r.IntN(2))
	cfg.BurstBytes = uint32(r.IntN(3) * 1082)
	cfg.MTU = 200 + r.IntN(1000)
	cfg.Quantum = uint32(cfg.MTU+cfg.OverheadBytes) + uint32(r.IntN(3000))
	cfg.InitWindowBytes = uint64(500 + r.IntN(20000))
	cfg.MaxMessages = 1 + r.IntN(8)
	cfg.GapFracBits = r.IntN(20)
	var script []cmd
	at := engine.Cycle(0)
	for i := 0; i < 60; i++ {
		at += engine.Cycle(r.IntN(2000))
		if r.IntN(8) == 0 {
			at += engine.Cycle(r.IntN(30_000)) // long idle stretch
		}
		f := FlowID(r.IntN(cfg.Flows + 1)) // sometimes a bad flow ID
		switch r.IntN(6) {
		case 0, 1:
			script = append(script, cmd{at: at, d: &Doorbell{Flow: f, Bytes: uint64(1 + r.IntN(20_000)), Reset: r.IntN(10) == 0}})
		case 2:
			script = append(script, rate(at, f, uint64(r.IntN(1<<28))))
		case 3:
			script = append(script, win(at, f, uint64(r.IntN(30_000))<<8))
		case 4:
			script = append(script, cmd{at: at, u: &Update{Flow: f, Window: uint64(r.IntN(30_000)) << 8, Rate: uint64(r.IntN(1 << 28)), SetWindow: true, SetRate: true}})
		case 5:
			script = append(script, cmd{at: at, a: &Ack{Flow: f, AckedBytes: uint64(r.IntN(50_000))}})
		}
	}
	slices.SortStableFunc(script, func(a, b cmd) int { return int(a.at) - int(b.at) })
	o := benchOpts{rtt: engine.Cycle(r.IntN(5000)), sendsCap: 1 + r.IntN(3)}
	if r.IntN(3) == 0 {
		o.sinkFrom = engine.Cycle(r.IntN(20_000)) // Tx pipeline stalled at first: output stalls
	}
	return cfg, script, o
}

// TestSkipEquivalence is the wake-time correctness test: random workloads
// (window and rate updates, pauses, acks, resets, bad IDs, both arbiters and
// window modes, burst credit, a stalled Tx sink, long idle stretches) give
// the same PktSend log, counters and final flow table whether the engine
// skips idle cycles or ticks every cycle. Oracle: the NoSkip run. NoSkip
// also checks that the scheduler never progresses in a cycle where it was
// not due (its NextWake is never late).
func TestSkipEquivalence(t *testing.T) {
	n := 60
	if testing.Short() {
		n = 20
	}
	var sends int
	for seed := 1; seed <= n; seed++ {
		cfg, script, o := randomScenario(rand.New(rand.NewPCG(uint64(seed), 99)))
		if err := cfg.Validate(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		var logs [2][]sent
		var cnt [2]Counters
		var flows [2][]FlowStatus
		var ends [2]engine.Cycle
		for i, noSkip := range []bool{true, false} {
			o.noSkip = noSkip
			b := newTestBench(t, cfg, script, o)
			b.run(t, 5_000_000)
			logs[i], cnt[i], ends[i] = b.tx.log, b.s.Counters(), b.e.Now()
			for f := 0; f < cfg.Flows; f++ {
				st, _ := b.s.Flow(FlowID(f))
				flows[i] = append(flows[i], st)
			}
		}
		if !slices.Equal(logs[0], logs[1]) {
			t.Errorf("seed %d: send logs differ (NoSkip %d sends, skip %d)\n%v\n%v", seed, len(logs[0]), len(logs[1]), head(logs[0]), head(logs[1]))
		}
		if cnt[0] != cnt[1] {
			t.Errorf("seed %d: counters differ\n%+v\n%+v", seed, cnt[0], cnt[1])
		}
		if !reflect.DeepEqual(flows[0], flows[1]) || ends[0] != ends[1] {
			t.Errorf("seed %d: final state differs (end %d vs %d)", seed, ends[0], ends[1])
		}
		sends += len(logs[0])
	}
	if sends < 20*n {
		t.Errorf("only %d sends over %d scenarios: the workloads do not exercise the scheduler", sends, n)
	}
}

func head(s []sent) string {
	if len(s) > 6 {
		s = s[:6]
	}
	return fmt.Sprint(s)
}

// TestPktSendFields checks packetization, offsets, PSNs and message flags:
// with MTU 1000, a 2500-byte message gives 1000, 1000, 500 (first, -, last)
// and a following 700-byte one gives 700 (first and last); PSNs count
// packets since reset and wrap at 2^24 (the flow's packet counter is preset
// to 2^24-2 to reach the wrap).
func TestPktSendFields(t *testing.T) {
	cfg := windowCfg(1 << 20)
	b := newTestBench(t, cfg, []cmd{db(0, 0, 2500), db(0, 0, 700)}, benchOpts{})
	b.s.flows[0].packets = 1<<24 - 2
	b.run(t, 1_000_000)
	var got []PktSend
	for _, x := range b.sendsOf(0) {
		got = append(got, x.cmd)
	}
	want := []PktSend{
		{Flow: 0, Bytes: 1000, Offset: 0, PSN: 1<<24 - 2, First: true},
		{Flow: 0, Bytes: 1000, Offset: 1000, PSN: 1<<24 - 1},
		{Flow: 0, Bytes: 500, Offset: 2000, PSN: 0, Last: true},
		{Flow: 0, Bytes: 700, Offset: 2500, PSN: 1, First: true, Last: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("PktSends\n%+v\nwant\n%+v", got, want)
	}
}

// TestOutputBackPressure: with a one-entry Sends FIFO and a Tx pipeline that
// takes nothing before cycle 1000, the scheduler pushes its first PktSend in
// cycle 2, then waits (one OutputStalls episode) without polling: the pop in
// cycle 1000 wakes it, it pushes the next packet in 1001 (the line-rate
// limiter allowed it since 2 + 86.56), and the sink sees it in 1002.
func TestOutputBackPressure(t *testing.T) {
	cfg := windowCfg(1 << 20)
	b := newTestBench(t, cfg, []cmd{db(0, 0, 3000)}, benchOpts{sinkFrom: 1000, sendsCap: 1})
	b.run(t, 1_000_000)
	log := b.sendsOf(0)
	if len(log) != 3 || log[0].at != 1000 || log[1].at != 1002 {
		t.Errorf("sends %v; want 3, seen at 1000 and 1002 first", log)
	}
	c := b.s.Counters()
	if c.OutputStalls != 1 {
		t.Errorf("OutputStalls = %d, want 1", c.OutputStalls)
	}
	// The scheduler executed only around the events, not the 998 stalled
	// cycles: ticks of all three components stay far below 1000.
	if s := b.e.Stats(); s.Ticks > 100 {
		t.Errorf("engine ticks = %d: the stalled scheduler was polled", s.Ticks)
	}
}
