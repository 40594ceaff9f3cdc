package pipeline

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// link moves frames from a NIC's MAC FIFO to the peer's Rx input after a
// fixed delay, one per cycle, optionally as an INT switch pushing nhops
// records (wire.PushHop) whose fields come from the cycle and a byte count.
type link struct {
	from   *engine.FIFO[Frame]
	to     *engine.TimedQueue[Frame]
	delay  engine.Cycle
	enc    telemetry.Encoding
	nhops  int
	bytes  uint64
	sent   []stamped[Frame]
	stamps map[[3]uint32][]telemetry.Hop // (probe?, QPN, PSN) -> records pushed
}

func (l *link) Tick(now engine.Cycle) bool {
	f, ok := l.from.Pop(now)
	if !ok {
		return false
	}
	data := f.Data
	l.bytes += uint64(len(data))
	if l.nhops > 0 {
		p := decode(data)
		var hs []telemetry.Hop
		for i := 0; i < l.nhops; i++ {
			h, err := telemetry.FromPhysical(l.enc, telemetry.Physical{SwitchID: uint32(i + 1), PortID: 7, SpeedGbps: 100,
				TsNs: uint64(now) + uint64(i), TxBytes: l.bytes, QlenBytes: uint64(now%7) * 1000})
			if err != nil {
				panic(err) // test bench: deterministic valid inputs
			}
			var res wire.PushResult
			data, res, err = wire.PushHop(data, l.enc, h, 0)
			if err != nil {
				panic(err)
			}
			if res == wire.Pushed {
				hs = append(hs, h)
			}
		}
		if p.Class == wire.ClassData || p.Class == wire.ClassProbe {
			l.stamps[stampKey(p.Class == wire.ClassProbe, p.DestQP, p.PSN)] = hs
		}
	}
	l.sent = append(l.sent, stamped[Frame]{now, Frame{Data: append([]byte(nil), data...)}})
	l.to.Push(now, now+l.delay, Frame{Data: data})
	return true
}

// stampKey names a forward packet: probes carry the flow's next PSN, which
// the next data packet of the flow reuses.
func stampKey(probe bool, q wire.QPN, psn wire.PSN) [3]uint32 {
	var p uint32
	if probe {
		p = 1
	}
	return [3]uint32{p, uint32(q), uint32(psn)}
}

func (l *link) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

type loopResult struct {
	events []stamped[Event]
	ab, ba []stamped[Frame]
	rxA    RxCounters
	rxB    RxCounters
	txA    TxCounters
	txB    TxCounters
	stats  engine.Stats
	stamps map[[3]uint32][]telemetry.Hop
	bufs   engine.BuffersStats
}

// runLoopback: host A (sender) -> INT switch link (2 hops, 40 cycles) ->
// host B (receiver) -> plain link (40 cycles) -> host A. A's scheduler is a
// script of data packets and probes on three flows; A's HPCC++ module sink
// records the events.
func runLoopback(t *testing.T, noSkip bool, enc telemetry.Encoding, ackEvery int) loopResult {
	return runLoopbackBufs(t, noSkip, enc, ackEvery, false)
}

// runLoopbackBufs is runLoopback; with recycle, both NICs' Tx pipelines
// take frame buffers from the engine's free list and their Rx pipelines
// release the frames they consume to it.
func runLoopbackBufs(t *testing.T, noSkip bool, enc telemetry.Encoding, ackEvery int, recycle bool) loopResult {
	t.Helper()
	e := newEngine(t, noSkip)
	txA := DefaultTxConfig()
	txA.Encoding = enc
	txB := txA
	txB.AckEvery, txB.AckTimeout = ackEvery, 100
	a := addNIC(t, e, "A", DefaultRxConfig(), txA, testFlows(t, false), nil, defaultDepths)
	b := addNIC(t, e, "B", DefaultRxConfig(), txB, testFlows(t, true), nil, defaultDepths)
	if recycle {
		for _, n := range []*nic{a, b} {
			n.tx.UseBuffers(e.Buffers())
			n.rx.ReleaseTo(e.Buffers())
		}
	}
	var script []stamped[PktSend]
	psn := map[wire.QPN]wire.PSN{1: 0xFFFFFC, 2: 0, 3: 500}
	for k := 0; k < 30; k++ {
		q := wire.QPN(1 + (k*7)%3)
		kind, bytes := SendData, uint32(64+37*k%900)
		if k == 11 || k == 23 {
			kind, bytes = SendProbe, 0
		}
		script = append(script, stamped[PktSend]{engine.Cycle(5 + 2*k + (k/10)*50), PktSend{Kind: kind, Flow: q, PSN: psn[q], Bytes: bytes}})
		if kind == SendData {
			psn[q] = psn[q].Add(1)
		}
	}
	es := &sink[Event]{q: a.events}
	dr := &driver[PktSend]{q: a.sends, script: script}
	esID := must(e.Add("A.cc", es))(t)
	drID := must(e.Add("A.sched", dr))(t)
	// B's events FIFO gets nothing on the receiver side but is drained.
	bes := &sink[Event]{q: b.events}
	besID := must(e.Add("B.cc", bes))(t)
	ab := &link{from: a.out, to: b.in, delay: 40, enc: enc, nhops: 2, stamps: map[[3]uint32][]telemetry.Hop{}}
	ba := &link{from: b.out, to: a.in, delay: 40}
	abID := must(e.Add("link.ab", ab))(t)
	baID := must(e.Add("link.ba", ba))(t)
	for _, c := range []struct {
		q          engine.Queue
		prod, cons engine.ID
	}{{a.events, a.rxID, esID}, {a.sends, drID, a.txID}, {a.out, a.txID, abID}, {b.in, abID, b.rxID}, {b.out, b.txID, baID}, {a.in, baID, a.rxID}, {b.events, b.rxID, besID},
		{b.sends, engine.NoID, b.txID}} {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			t.Fatal(err)
		}
	}
	e.Run(2000)
	return loopResult{events: es.got, ab: ab.sent, ba: ba.sent, rxA: a.rx.Counters(), rxB: b.rx.Counters(),
		txA: a.tx.Counters(), txB: b.tx.Counters(), stats: e.Stats(), stamps: ab.stamps, bufs: e.Buffers().Stats()}
}

// TestLoopback runs two NICs back to back through an INT-stamping switch
// and checks the whole telemetry loop of Figure 4: every data packet is
// acknowledged (per packet, or delayed every 3 with a timer), every probe
// answered, and each ACK/probe-reply event at the sender carries exactly the
// records the switch pushed on the acknowledged packet (the oracle is the
// switch's own log). The run is repeated with idle skipping off: every
// recorded frame, event, cycle and counter must be identical, and skipping
// must have executed fewer cycles.
func TestLoopback(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		for _, every := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/AckEvery=%d", enc, every), func(t *testing.T) {
				r := runLoopback(t, false, enc, every)
				var acks, probes int
				for _, g := range r.events {
					ev := g.v
					switch ev.Kind {
					case EventAck:
						acks++
					case EventProbeReply:
						probes++
					default:
						t.Fatalf("unexpected event %v", ev.Kind)
					}
					want := r.stamps[stampKey(ev.Kind == EventProbeReply, ev.Flow, ev.PSN)]
					if !ev.HasINT || !reflect.DeepEqual(ev.HopList(), want) {
						t.Errorf("%v flow %d psn %d echoes %+v, switch pushed %+v", ev.Kind, ev.Flow, ev.PSN, ev.HopList(), want)
					}
				}
				if probes != 2 {
					t.Errorf("%d probe replies, want 2", probes)
				}
				if every == 1 && acks != 28 {
					t.Errorf("%d ACKs, want 28 (one per data packet)", acks)
				}
				// Delayed: at least ceil(10/3)+ceil(10/3)+ceil(8/3) = 11 ACKs
				// (fewer would leave packets unacknowledged), fewer than 28.
				if every == 3 && (acks >= 28 || acks < 11) {
					t.Errorf("%d ACKs for 28 data packets with AckEvery=3", acks)
				}
				if uint64(acks) != r.txB.Frames[FrameAck] || uint64(probes) != r.txB.Frames[FrameProbeReply] {
					t.Errorf("sender saw %d ACKs %d probe replies; receiver sent %v", acks, probes, r.txB.Frames)
				}
				// The last ACK of each flow acknowledges its last PSN. Flow q
				// gets packets k with k%3 == q-1 (10 each); flow 3's k=11 and
				// k=23 are probes, so it sends 8 data packets, 500..507; flow 1
				// wraps from 0xFFFFFC to 5.
				last := map[wire.QPN]wire.PSN{}
				for _, g := range r.events {
					if g.v.Kind == EventAck {
						last[g.v.Flow] = g.v.PSN
					}
				}
				if want := (map[wire.QPN]wire.PSN{1: 5, 2: 9, 3: 507}); !reflect.DeepEqual(last, want) {
					t.Errorf("last acknowledged PSNs %v, want %v", last, want)
				}
				if r.rxA.Drops != [NumDropReasons]uint64{} || r.rxB.Drops != [NumDropReasons]uint64{} ||
					r.txA.Drops != [NumDropReasons]uint64{} || r.txB.Drops != [NumDropReasons]uint64{} {
					t.Errorf("drops: rxA %v rxB %v txA %v txB %v", r.rxA.Drops, r.rxB.Drops, r.txA.Drops, r.txB.Drops)
				}
				n := runLoopback(t, true, enc, every)
				if n.stats.UnexpectedProgress != 0 {
					t.Fatalf("NoSkip: UnexpectedProgress = %d", n.stats.UnexpectedProgress)
				}
				if !reflect.DeepEqual(r.events, n.events) || !reflect.DeepEqual(r.ab, n.ab) || !reflect.DeepEqual(r.ba, n.ba) ||
					r.rxA != n.rxA || r.rxB != n.rxB || r.txA != n.txA || r.txB != n.txB {
					t.Fatalf("results differ with and without idle skipping")
				}
				if r.stats.BusyCycles >= n.stats.BusyCycles {
					t.Errorf("skipping executed %d cycles, NoSkip %d", r.stats.BusyCycles, n.stats.BusyCycles)
				}
			})
		}
	}
}

// TestLoopbackRecycledBuffers runs the loopback with frame buffers recycled
// through the engine's free list (Tx.UseBuffers, Rx.ReleaseTo) and requires
// the results of the run that allocates every frame: every frame on both
// links byte for byte, every event, counter and cycle. The links keep
// copies of what they carried, so a buffer reused too early (while a frame
// still needed it) would show up as a differing frame or event. Buffers
// must actually be reused: fewer allocations than frames.
func TestLoopbackRecycledBuffers(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		for _, every := range []int{1, 3} {
			t.Run(fmt.Sprintf("%v/AckEvery=%d", enc, every), func(t *testing.T) {
				want := runLoopbackBufs(t, false, enc, every, false)
				got := runLoopbackBufs(t, false, enc, every, true)
				if !reflect.DeepEqual(got.events, want.events) || !reflect.DeepEqual(got.ab, want.ab) || !reflect.DeepEqual(got.ba, want.ba) ||
					got.rxA != want.rxA || got.rxB != want.rxB || got.txA != want.txA || got.txB != want.txB || got.stats != want.stats {
					t.Fatalf("results differ when frame buffers are recycled")
				}
				frames := uint64(len(got.ab) + len(got.ba))
				if s := got.bufs; s.Gets != frames || s.Puts == 0 || s.Allocs >= frames {
					t.Fatalf("buffers %+v for %d frames: want one Get per frame and some reuse", s, frames)
				}
			})
		}
	}
}
