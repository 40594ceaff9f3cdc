package nicmodel

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/scheduler"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Module test bench: the HPCC++ module alone, driven by scripted events
// and send records, its scheduler-side FIFOs drained by sinks.

type stamped[T any] struct {
	at engine.Cycle
	v  T
}

// driver pushes scripted items into a FIFO at (or, under back-pressure,
// after) their cycles.
type driver[T any] struct {
	q      *engine.FIFO[T]
	script []stamped[T]
	i      int
}

func (d *driver[T]) Tick(now engine.Cycle) bool {
	p := false
	for d.i < len(d.script) && d.script[d.i].at <= now && d.q.Push(now, d.script[d.i].v) {
		d.i++
		p = true
	}
	return p
}

func (d *driver[T]) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if d.i < len(d.script) && d.script[d.i].at > now {
		return d.script[d.i].at, true
	}
	return engine.Never, false
}

// sink pops one item per cycle from cycle from on, recording pop cycles.
type sink[T any] struct {
	q    *engine.FIFO[T]
	from engine.Cycle
	got  []stamped[T]
}

func (s *sink[T]) Tick(now engine.Cycle) bool {
	if now < s.from {
		return false
	}
	v, ok := s.q.Pop(now)
	if !ok {
		return false
	}
	s.got = append(s.got, stamped[T]{now, v})
	return true
}

func (s *sink[T]) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if now < s.from {
		return s.from, true
	}
	return engine.Never, false
}

type modBench struct {
	e      *engine.Engine
	m      *module
	algo   *hpccCC
	evs    *driver[pipeline.Event]
	sent   *driver[sendRecord]
	upd    *sink[scheduler.Update]
	acks   *sink[scheduler.Ack]
	d      *hpcc.Datapath
	core   *ccCore
	events *engine.FIFO[pipeline.Event]
}

type modOpts struct {
	lat, ii   int
	model     Model
	updDepth  int
	updFrom   engine.Cycle // cycle the update sink starts popping
	noSkip    bool
	events    []stamped[pipeline.Event]
	sends     []stamped[sendRecord]
	evDepth   int
	hpccCfg   hpcc.Config
	ackDepth  int
	ackFrom   engine.Cycle
	traceVecs bool
}

func newModBench(t testing.TB, o modOpts) *modBench {
	t.Helper()
	e := must(engine.New(engine.Config{Freq: engine.GHz, NoSkip: o.noSkip}))(t)
	if o.updDepth == 0 {
		o.updDepth = 16
	}
	if o.evDepth == 0 {
		o.evDepth = 64
	}
	if o.ackDepth == 0 {
		o.ackDepth = 16
	}
	if o.hpccCfg.Mode == 0 {
		o.hpccCfg = hpcc.DefaultConfig()
	}
	core := must(newCCCore(o.model, o.hpccCfg, nil))(t)
	b := &modBench{e: e, core: core}
	if core.d == nil {
		b.d = must(hpcc.NewDatapath(o.hpccCfg))(t)
	} else {
		b.d = core.d
	}
	b.events = must(engine.NewFIFO[pipeline.Event]("events", o.evDepth))(t)
	posts := must(engine.NewFIFO[post]("posts", 4))(t)
	sent := must(engine.NewFIFO[sendRecord]("sent", 64))(t)
	upd := must(engine.NewFIFO[scheduler.Update]("upd", o.updDepth))(t)
	acks := must(engine.NewFIFO[scheduler.Ack]("acks", o.ackDepth))(t)
	bells := must(engine.NewFIFO[scheduler.Doorbell]("bells", 4))(t)
	const qps = 8
	m := &module{hooks: trace.Nop{}, lat: engine.Cycle(o.lat), space: engine.Cycle(o.lat), ii: engine.Cycle(o.ii), qps: make([]qpState, qps),
		events: b.events, posts: posts, sent: sent, upd: upd, acks: acks, bells: bells}
	b.algo = newHPCCCC(core, qps, nil, &m.cnt)
	m.algo = b.algo
	b.m = m
	b.evs = &driver[pipeline.Event]{q: b.events, script: o.events}
	b.sent = &driver[sendRecord]{q: sent, script: o.sends}
	b.upd = &sink[scheduler.Update]{q: upd, from: o.updFrom}
	b.acks = &sink[scheduler.Ack]{q: acks, from: o.ackFrom}
	ids := map[string]engine.ID{}
	for _, c := range []struct {
		n string
		c engine.Component
	}{{"evs", b.evs}, {"sent", b.sent}, {"mod", m}, {"upd", b.upd}, {"acks", b.acks}} {
		ids[c.n] = must(e.Add(c.n, c.c))(t)
	}
	for _, c := range []struct {
		q          engine.Queue
		prod, cons engine.ID
	}{{b.events, ids["evs"], ids["mod"]}, {sent, ids["sent"], ids["mod"]}, {upd, ids["mod"], ids["upd"]},
		{acks, ids["mod"], ids["acks"]}, {posts, engine.NoID, ids["mod"]}, {bells, ids["mod"], engine.NoID}} {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			t.Fatal(err)
		}
	}
	return b
}

// ackEvent is an ACK of psn on QP q echoing one IFA hop whose counters
// come from k (a steadily loaded 100 Gbit/s link with a queue that varies
// with k, so that U, the MI/AI choice and Wc commits all change).
func ackEvent(t testing.TB, q wire.QPN, psn wire.PSN, k int) pipeline.Event {
	t.Helper()
	h := must(telemetry.FromPhysical(telemetry.IFA, telemetry.Physical{SwitchID: 5, PortID: 2, SpeedGbps: 100,
		TsNs: uint64(1000 + 90*k), TxBytes: uint64(1_000_000 + 1090*k), QlenBytes: uint64((k * 7919) % 60000)}))(t)
	ev := pipeline.Event{Kind: pipeline.EventAck, Flow: q, PSN: psn, Syndrome: wire.MakeSyndrome(wire.AckTypeACK, wire.CreditsInvalid),
		HasINT: true, Encoding: telemetry.IFA, NHops: 1}
	ev.Hops[0] = h
	return ev
}

// expectedIssues applies the module's documented issue rule to events
// visible from cycles vis[k] on flows fl[k]: event k is taken at the first
// cycle >= vis[k] that is >= the previous take + II (in-order, one per II)
// and >= the take of the previous event of the same flow + latency (the
// read-after-write hazard; with latency 0 the II already separates them).
func expectedIssues(vis []engine.Cycle, fl []wire.QPN, lat, ii int) []engine.Cycle {
	out := make([]engine.Cycle, len(vis))
	last := map[wire.QPN]engine.Cycle{}
	for k := range vis {
		c := vis[k]
		if k > 0 {
			c = max(c, out[k-1]+engine.Cycle(ii))
		}
		if p, ok := last[fl[k]]; ok {
			c = max(c, p+engine.Cycle(lat))
		}
		out[k] = c
		last[fl[k]] = c
	}
	return out
}

// TestModuleBackToBack drives the module with telemetry events pushed one
// per cycle, for one flow and for interleaved flows, at several latencies
// and initiation intervals. Oracles: (1) the issue cycles follow the rule
// of expectedIssues (stated in the module's doc) and every update leaves
// exactly `latency` cycles after its event was taken; (2) read-after-write
// exactness: the sequence of (W, R) updates per flow equals calling the
// golden datapath hpcc.Datapath.Update sequentially on that flow's events,
// whatever the latency; (3) the hazard counters equal the number of events
// delayed by a same-flow update in flight and the cycles they waited.
func TestModuleBackToBack(t *testing.T) {
	for _, tc := range []struct {
		name    string
		flows   []wire.QPN // flow of event k is flows[k % len]
		lat, ii int
	}{
		{"one-flow/lat=0", []wire.QPN{1}, 0, 1},
		{"one-flow/lat=1", []wire.QPN{1}, 1, 1},
		{"one-flow/lat=4", []wire.QPN{1}, 4, 1},
		{"one-flow/lat=4/ii=2", []wire.QPN{1}, 4, 2},
		{"two-flows/lat=2", []wire.QPN{1, 2}, 2, 1},
		{"two-flows/lat=4", []wire.QPN{1, 2}, 4, 1},
		{"three-flows/lat=7/ii=3", []wire.QPN{3, 1, 2}, 7, 3},
		{"irregular/lat=3", []wire.QPN{1, 1, 2, 1, 3, 3, 2}, 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const n = 40
			const t0 = 300 // after the 192 send records (one taken per cycle)
			// Each flow first "sends" 64 packets (snd_nxt = 64) so that ACKs
			// advance una and Wc commits happen.
			var sends []stamped[sendRecord]
			for _, q := range []wire.QPN{1, 2, 3} {
				for i := 0; i < 64; i++ {
					sends = append(sends, stamped[sendRecord]{0, sendRecord{qpn: q, end: uint64(1000 * (i + 1))}})
				}
			}
			var evs []stamped[pipeline.Event]
			var vis []engine.Cycle
			var fl []wire.QPN
			psn := map[wire.QPN]wire.PSN{}
			for k := 0; k < n; k++ {
				q := tc.flows[k%len(tc.flows)]
				ev := ackEvent(t, q, psn[q], k)
				psn[q]++
				evs = append(evs, stamped[pipeline.Event]{t0 + engine.Cycle(k), ev})
				vis = append(vis, t0+engine.Cycle(k)+1)
				fl = append(fl, q)
			}
			b := newModBench(t, modOpts{lat: tc.lat, ii: tc.ii, events: evs, sends: sends})
			b.e.RunUntilIdle(100000)
			want := expectedIssues(vis, fl, tc.lat, tc.ii)
			if len(b.upd.got) != n {
				t.Fatalf("%d updates, want %d", len(b.upd.got), n)
			}
			// The sink pops every cycle, so an update pushed in cycle c is
			// popped in c+1; it was issued `lat` cycles before it was pushed.
			var hazards, hazardCycles uint64
			lastTake := map[wire.QPN]engine.Cycle{}
			for k, g := range b.upd.got {
				issued := g.at - 1 - engine.Cycle(tc.lat)
				if issued != want[k] {
					t.Fatalf("event %d (flow %d) taken in cycle %d, want %d", k, fl[k], issued, want[k])
				}
				// A hazard delays the event when its flow's previous update
				// was still in flight at the cycle the event could
				// otherwise go (visible and II free).
				free := vis[k]
				if k > 0 {
					free = max(free, want[k-1]+engine.Cycle(tc.ii))
				}
				if p, ok := lastTake[fl[k]]; ok && p+engine.Cycle(tc.lat) > free {
					hazards++
					hazardCycles += uint64(p + engine.Cycle(tc.lat) - free)
				}
				lastTake[fl[k]] = want[k]
			}
			// Sequential oracle per flow.
			st := map[wire.QPN]hpcc.State{}
			una := map[wire.QPN]uint64{}
			for k, g := range b.upd.got {
				ev := evs[k].v
				una[ev.Flow] = uint64(ev.PSN) + 1
				in := hpcc.Input{Seq: una[ev.Flow], SndNxt: 64, NHops: 1, Hops: ev.Hops}
				next, out := b.d.Update(st[ev.Flow], in)
				st[ev.Flow] = next
				if u := g.v; u.Flow != scheduler.FlowID(ev.Flow) || u.Window != out.W || u.Rate != out.Rate || !u.SetWindow || !u.SetRate {
					t.Fatalf("update %d = %+v, want flow %d W %d R %d (sequential golden datapath)", k, u, ev.Flow, out.W, out.Rate)
				}
			}
			for q, s := range st {
				if got := b.algo.fx[q]; got != s {
					t.Errorf("flow %d state %+v, want %+v", q, got, s)
				}
			}
			c := b.m.cnt
			if c.StallHazard != hazards || c.HazardCycles != hazardCycles {
				t.Errorf("hazard stalls %d (%d cycles), want %d (%d cycles)", c.StallHazard, c.HazardCycles, hazards, hazardCycles)
			}
			if c.CCIssued != n || c.CCRetired != n || c.AcksAdvanced != n || c.Events != n {
				t.Errorf("counters %+v", c)
			}
			if len(b.acks.got) != n || b.acks.got[n-1].v.AckedBytes == 0 {
				t.Errorf("%d acks to the scheduler, want %d", len(b.acks.got), n)
			}
		})
	}
}

// TestModuleSkipEquivalence repeats the back-to-back runs with idle
// skipping off: updates, their cycles, acks and counters must be identical
// and no component may make progress in a cycle in which it was not due.
func TestModuleSkipEquivalence(t *testing.T) {
	for _, lat := range []int{0, 3, 9} {
		var evs []stamped[pipeline.Event]
		for k := 0; k < 30; k++ {
			q := wire.QPN(1 + k%3/2)
			evs = append(evs, stamped[pipeline.Event]{engine.Cycle(5 + k + (k/10)*200), ackEvent(t, q, wire.PSN(k), k)})
		}
		run := func(noSkip bool) (*modBench, engine.Stats) {
			b := newModBench(t, modOpts{lat: lat, ii: 2, events: evs, noSkip: noSkip, updDepth: 2, updFrom: 50})
			b.e.Run(2000)
			return b, b.e.Stats()
		}
		s, ss := run(false)
		n, ns := run(true)
		if ns.UnexpectedProgress != 0 {
			t.Fatalf("lat=%d: NoSkip UnexpectedProgress=%d", lat, ns.UnexpectedProgress)
		}
		if !reflect.DeepEqual(s.upd.got, n.upd.got) || !reflect.DeepEqual(s.acks.got, n.acks.got) || s.m.cnt != n.m.cnt {
			t.Fatalf("lat=%d: results differ with and without skipping", lat)
		}
		if ss.BusyCycles >= ns.BusyCycles {
			t.Errorf("lat=%d: skipping executed %d cycles, NoSkip %d", lat, ss.BusyCycles, ns.BusyCycles)
		}
		if s.m.cnt.StallCredit == 0 {
			t.Errorf("lat=%d: the 2-deep update FIFO drained from cycle 50 should have caused credit stalls", lat)
		}
	}
}

// TestModuleCredits checks the credit rule: with an update FIFO of depth D
// that nobody pops, the module issues exactly D updates (every one of
// which retires into the FIFO, none lost) and then stalls; once the sink
// starts popping, every event is processed.
func TestModuleCredits(t *testing.T) {
	for _, d := range []int{1, 2, 5} {
		var evs []stamped[pipeline.Event]
		for k := 0; k < 12; k++ {
			evs = append(evs, stamped[pipeline.Event]{engine.Cycle(k), ackEvent(t, wire.QPN(1+k%4), 0, k)})
		}
		b := newModBench(t, modOpts{lat: 3, ii: 1, events: evs, updDepth: d, updFrom: 500})
		b.e.Run(400)
		if b.m.cnt.CCIssued != uint64(d) || b.m.cnt.CCRetired != uint64(d) || b.m.cnt.StallCredit != 1 {
			t.Fatalf("depth %d: issued %d retired %d credit stalls %d before the sink pops; want %d, %d, 1",
				d, b.m.cnt.CCIssued, b.m.cnt.CCRetired, b.m.cnt.StallCredit, d, d)
		}
		b.e.RunUntilIdle(10000)
		if len(b.upd.got) != 12 {
			t.Fatalf("depth %d: %d updates after draining, want 12", d, len(b.upd.got))
		}
	}
}

// TestModuleFloatModel runs the same events through the float reference:
// the updates must be the reference's W and R rounded to nearest into the
// register formats (the oracle is hpcc.Reference called sequentially), and
// they must differ from the golden datapath's somewhere (else the
// selection did nothing) while staying within 1% of them.
func TestModuleFloatModel(t *testing.T) {
	var evs []stamped[pipeline.Event]
	for k := 0; k < 30; k++ {
		evs = append(evs, stamped[pipeline.Event]{engine.Cycle(100 + k), ackEvent(t, 1, wire.PSN(k), k)})
	}
	var sends []stamped[sendRecord]
	for i := 0; i < 64; i++ {
		sends = append(sends, stamped[sendRecord]{0, sendRecord{qpn: 1, end: uint64(1000 * (i + 1))}})
	}
	fb := newModBench(t, modOpts{lat: 2, ii: 1, model: Float, events: evs, sends: sends})
	fb.e.RunUntilIdle(10000)
	xb := newModBench(t, modOpts{lat: 2, ii: 1, model: Fixed, events: evs, sends: sends})
	xb.e.RunUntilIdle(10000)
	ref := must(hpcc.NewReference(hpcc.DefaultConfig()))(t)
	rs := ref.InitialState()
	fW, fR := hpcc.DefaultConfig().Formats.W, hpcc.DefaultConfig().Formats.Rate
	differ := false
	for k, g := range fb.upd.got {
		next, out := ref.Update(rs, hpcc.Input{Seq: uint64(k + 1), SndNxt: 64, NHops: 1, Hops: evs[k].v.Hops})
		rs = next
		wantW := quantize(out.W, fW.F(), fb.core.wMax)
		wantR := quantize(out.RateBytesPerNs, fR.F(), fb.core.rMax)
		if g.v.Window != wantW || g.v.Rate != wantR {
			t.Fatalf("float update %d = W %d R %d, want %d %d", k, g.v.Window, g.v.Rate, wantW, wantR)
		}
		x := xb.upd.got[k].v
		if x.Window != g.v.Window {
			differ = true
		}
		if r := float64(x.Window) / float64(g.v.Window); r < 0.99 || r > 1.01 {
			t.Errorf("update %d: fixed W %d vs float W %d", k, x.Window, g.v.Window)
		}
	}
	if !differ {
		t.Errorf("float and fixed models gave identical windows: model selection had no effect")
	}
}

func TestAckTarget(t *testing.T) {
	// Table: QP with snd_nxt and una; an ACK of psn. The expected una'
	// follows the PSN's 24-bit serial arithmetic (docs/wire.md): the ACK
	// acknowledges every packet up to the one with that PSN.
	for _, tc := range []struct {
		snd, una    uint64
		psn         wire.PSN
		want        uint64
		adv, beyond bool
	}{
		{0, 0, 0, 0, false, true},
		{10, 0, 0, 1, true, false},
		{10, 0, 9, 10, true, false},
		{10, 5, 4, 5, false, false},
		{10, 5, 10, 5, false, true},
		{1 << 24, 1<<24 - 3, 0xFFFFFF, 1 << 24, true, false}, // PSN wrapped
		{1<<24 + 2, 1<<24 - 3, 1, 1<<24 + 2, true, false},
		{1<<24 + 2, 1<<24 - 3, 0xFFFFFD, 1<<24 - 2, true, false},
	} {
		q := &qpState{sndNxt: tc.snd, una: tc.una}
		una, adv, beyond := ackTarget(q, tc.psn)
		if una != tc.want || adv != tc.adv || beyond != tc.beyond {
			t.Errorf("snd %d una %d psn %#x: got (%d,%v,%v), want (%d,%v,%v)", tc.snd, tc.una, tc.psn, una, adv, beyond, tc.want, tc.adv, tc.beyond)
		}
	}
}

var _ = fmt.Sprint

// TestModuleMatchesRTLSchedule ties the module's timing to the RTL
// hpcc_module's: with the latency and same-flow spacing that package
// rtl/hpccrtl derives from the hpcc_update stage count, a stream of events
// offered back to back on pseudo-random flows must wait, in total, exactly
// the cycles hpccrtl.ModuleOptions.Schedule predicts for the RTL's
// ev_ready handshake (the oracle co-simulated under Verilator and Icarus by
// the RTL's own tests).
func TestModuleMatchesRTLSchedule(t *testing.T) {
	for _, stages := range []int{0, 1, 3, 6} {
		cfg := DefaultConfig()
		cfg.Module.Stages = stages
		lat, space := cfg.moduleTiming()
		var flows []uint32
		var evs []stamped[pipeline.Event]
		x := uint32(12345)
		for k := 0; k < 200; k++ {
			x = x*1103515245 + 12345
			q := 1 + (x>>16)%3
			if k%7 < 3 {
				q = 1 // bursts of one flow
			}
			flows = append(flows, q)
			evs = append(evs, stamped[pipeline.Event]{engine.Cycle(10 + k), ackEvent(t, wire.QPN(q), 0, k)})
		}
		b := newModBench(t, modOpts{lat: lat, ii: 1, events: evs})
		b.m.space = engine.Cycle(space)
		b.e.RunUntilIdle(100000)
		want := hpccrtl.ModuleOptions{Stages: stages, FlowBits: 4}.Schedule(flows, 0)
		if got := b.m.cnt.HazardCycles; got != uint64(want) {
			t.Errorf("stages %d: the module waited %d cycles for hazards, the RTL schedule %d", stages, got, want)
		}
		if len(b.upd.got) != 200 {
			t.Fatalf("stages %d: %d updates", stages, len(b.upd.got))
		}
	}
}
