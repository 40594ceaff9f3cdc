package pipeline

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// runRx feeds frames to host A's Rx (sender side) and returns the events
// the HPCC++ module sink saw, with their pop cycles, and the Rx counters.
func runRx(t *testing.T, noSkip bool, rc RxConfig, d depths, eventsFrom engine.Cycle, in []arrival, until engine.Cycle) ([]stamped[Event], RxCounters, *nic) {
	t.Helper()
	e := newEngine(t, noSkip)
	n := addNIC(t, e, "A", rc, DefaultTxConfig(), testFlows(t, false), nil, d)
	es, _, _ := n.attach(t, e, "A", eventsFrom, 0, nil)
	n.feed(t, e, in)
	e.Run(until)
	if s := e.Stats(); s.UnexpectedProgress != 0 {
		t.Fatalf("engine: %d ticks made progress while not due (component broke the wake contract)", s.UnexpectedProgress)
	}
	return es.got, n.rx.Counters(), n
}

// TestRxBackToBackOneFlow: 20 ACKs of one flow arrive in consecutive cycles
// from cycle 10. With parse 4/4 and dispatch 2/2 the pipeline takes one per
// cycle, so event i reaches the HPCC++ module FIFO at 10+i+4+2 and is popped
// by the module one cycle later (FIFO two-phase rule): 17+i. Each event
// carries the flow, PSN and hop records of its ACK (the expected values are
// the inputs the frames were built from). Run with and without idle
// skipping, in both encodings.
func TestRxBackToBackOneFlow(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		for _, noSkip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%v/noskip=%t", enc, noSkip), func(t *testing.T) {
				var in []arrival
				for i := 0; i < 20; i++ {
					in = append(in, arrival{engine.Cycle(10 + i), ackFrame(t, enc, 1, wire.PSN(0xFFFFF0+i).Wrap(), hopsFor(t, enc, 1, i, 3))})
				}
				got, cnt, _ := runRx(t, noSkip, DefaultRxConfig(), defaultDepths, 0, in, 200)
				if len(got) != 20 {
					t.Fatalf("%d events, want 20 (counters %+v)", len(got), cnt)
				}
				for i, g := range got {
					ev := g.v
					if g.at != engine.Cycle(17+i) {
						t.Errorf("event %d at cycle %d, want %d", i, g.at, 17+i)
					}
					if ev.Kind != EventAck || ev.Flow != 1 || ev.PSN != wire.PSN(0xFFFFF0+i).Wrap() || ev.Arrival != engine.Cycle(10+i) {
						t.Errorf("event %d = kind %v flow %d psn %#x arrival %d", i, ev.Kind, ev.Flow, ev.PSN, ev.Arrival)
					}
					if !ev.HasINT || ev.Encoding != enc || !reflect.DeepEqual(ev.HopList(), hopsFor(t, enc, 1, i, 3)) {
						t.Errorf("event %d telemetry = %v %v %+v", i, ev.HasINT, ev.Encoding, ev.HopList())
					}
				}
				if cnt.Frames != 20 || cnt.Class[wire.ClassAck] != 20 || cnt.Events != 20 || cnt.WithINT != 20 {
					t.Errorf("counters %+v", cnt)
				}
			})
		}
	}
}

// TestRxInterleavedFlows: ACKs, a notification and probe replies of three
// flows interleave (some in consecutive cycles, some with gaps). Each flow's
// events come out in its arrival order with its own PSNs and hops, and the
// overall order is the arrival order (the pipeline is in-order).
func TestRxInterleavedFlows(t *testing.T) {
	enc := telemetry.Compact
	type want struct {
		kind  EventKind
		flow  wire.QPN
		psn   wire.PSN
		hops  []telemetry.Hop
		win   uint32
		nhint bool
	}
	var in []arrival
	var wants []want
	at := engine.Cycle(5)
	for k := 0; k < 12; k++ {
		q := wire.QPN(1 + k%3)
		psn := wire.PSN(100*int(q) + k)
		hops := hopsFor(t, enc, q, k, 1+k%3)
		switch {
		case k == 7:
			p := pathBA
			p.UDPSrcPort += uint16(q)
			f := must(wire.AppendNotify(nil, &wire.Notify{Path: p, Transport: wire.Transport{DestQP: q, PSN: psn}, Window: 65536}))(t)
			in = append(in, arrival{at, f})
			wants = append(wants, want{kind: EventNotify, flow: q, psn: psn, win: 65536, nhint: true})
		case k%5 == 4:
			p := pathBA
			p.UDPSrcPort += uint16(q)
			f := must(wire.AppendProbeReply(nil, &wire.ProbeReply{Path: p, Transport: wire.Transport{DestQP: q, PSN: psn},
				Echo: wire.Echo{Enabled: true, Encoding: enc, MaxHops: 5, Hops: hops}}))(t)
			in = append(in, arrival{at, f})
			wants = append(wants, want{kind: EventProbeReply, flow: q, psn: psn, hops: hops, nhint: true})
		default:
			in = append(in, arrival{at, ackFrame(t, enc, q, psn, hops)})
			wants = append(wants, want{kind: EventAck, flow: q, psn: psn, hops: hops, nhint: true})
		}
		if k%4 == 3 {
			at += 9 // a gap
		} else {
			at++
		}
	}
	got, cnt, _ := runRx(t, false, DefaultRxConfig(), defaultDepths, 0, in, 300)
	if len(got) != len(wants) {
		t.Fatalf("%d events, want %d", len(got), len(wants))
	}
	for i, g := range got {
		w, ev := wants[i], g.v
		if ev.Kind != w.kind || ev.Flow != w.flow || ev.PSN != w.psn || ev.Window != w.win || ev.HasINT != (w.hops != nil) {
			t.Errorf("event %d = %v flow %d psn %d W %d int %t; want %+v", i, ev.Kind, ev.Flow, ev.PSN, ev.Window, ev.HasINT, w)
		}
		if w.hops != nil && !reflect.DeepEqual(ev.HopList(), w.hops) {
			t.Errorf("event %d hops differ", i)
		}
		if g.at != in[i].at+7 {
			t.Errorf("event %d at %d, want arrival+7 = %d", i, g.at, in[i].at+7)
		}
	}
	if cnt.Class[wire.ClassNotify] != 1 || cnt.Class[wire.ClassProbeReply] != 2 || cnt.Class[wire.ClassAck] != 9 {
		t.Errorf("class counters %v", cnt.Class)
	}
}

// TestRxEventFIFOFull: 30 ACKs back to back; the HPCC++ module (event sink)
// does not pop until cycle 100. The event FIFO holds 2.
//   - OutputFull=Drop: the first 2 events fill the FIFO, the other 28 are
//     dropped at dispatch (DropEventFull = 28); nothing stalls.
//   - OutputFull=BackPressure, IngressFull=Drop: the FIFO (2), the dispatch
//     stage (2) and the parse stage (4) fill, each later frame is dropped
//     at ingress: DropIngressFull = 30-8 = 22, and the 8 held events arrive
//     in order once the sink starts.
//   - BackPressure everywhere: nothing is lost; frames wait in the input
//     queue; all 30 arrive in order; one stall counted at each point
//     (event, parse, ingress) per entry that waited.
func TestRxEventFIFOFull(t *testing.T) {
	enc := telemetry.IFA
	var in []arrival
	for i := 0; i < 30; i++ {
		in = append(in, arrival{engine.Cycle(1 + i), ackFrame(t, enc, 2, wire.PSN(i), hopsFor(t, enc, 2, i, 2))})
	}
	d := defaultDepths
	d.events = 2
	cases := []struct {
		name            string
		ingress, output Policy
		wantEvents      int
		drops           map[DropReason]uint64
		stalls          map[StallPoint]bool
	}{
		{"output drop", BackPressure, Drop, 2, map[DropReason]uint64{DropEventFull: 28}, nil},
		{"ingress drop", Drop, BackPressure, 8, map[DropReason]uint64{DropIngressFull: 22}, map[StallPoint]bool{StallEvent: true, StallParse: true}},
		{"backpressure", BackPressure, BackPressure, 30, map[DropReason]uint64{}, map[StallPoint]bool{StallEvent: true, StallParse: true, StallIngress: true}},
	}
	for _, c := range cases {
		var ref RxCounters // the skipping run's counters; NoSkip must match
		for _, noSkip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/noskip=%t", c.name, noSkip), func(t *testing.T) {
				rc := DefaultRxConfig()
				rc.IngressFull, rc.OutputFull = c.ingress, c.output
				got, cnt, _ := runRx(t, noSkip, rc, d, 100, in, 400)
				if !noSkip {
					ref = cnt
				} else if cnt != ref {
					t.Fatalf("counters differ with idle skipping off:\n skip   %+v\n noskip %+v", ref, cnt)
				}
				if len(got) != c.wantEvents {
					t.Fatalf("%d events, want %d (drops %v stalls %v)", len(got), c.wantEvents, cnt.Drops, cnt.Stalls)
				}
				for i, g := range got {
					if g.v.PSN != wire.PSN(i) {
						t.Fatalf("event %d has PSN %d: order or loss wrong", i, g.v.PSN)
					}
				}
				for r := DropReason(0); r < numDropReasons; r++ {
					if cnt.Drops[r] != c.drops[r] {
						t.Errorf("Drops[%v] = %d, want %d", r, cnt.Drops[r], c.drops[r])
					}
				}
				for s := StallPoint(0); s < StallBuild; s++ {
					if (cnt.Stalls[s] > 0) != c.stalls[s] {
						t.Errorf("Stalls[%v] = %d, want non-zero %t", s, cnt.Stalls[s], c.stalls[s])
					}
				}
				// Conservation: every frame taken is an event or a counted drop.
				var drops uint64
				for _, v := range cnt.Drops {
					drops += v
				}
				if cnt.Frames != 30 || cnt.Events+drops != 30 {
					t.Errorf("frames %d events %d drops %d: not conserved", cnt.Frames, cnt.Events, drops)
				}
			})
		}
	}
}

// TestRxMalformedCounted: valid ACKs interleaved with broken frames. Each
// broken frame is dropped and counted under its wire.Reason (or as an
// unknown flow); the valid ones still produce their events in order.
func TestRxMalformedCounted(t *testing.T) {
	enc := telemetry.Compact
	good := func(psn int) []byte { return ackFrame(t, enc, 3, wire.PSN(psn), hopsFor(t, enc, 3, psn, 2)) }
	badICRC := good(50)
	badICRC[len(badICRC)-1] ^= 1
	badPort := good(51)
	badPort[wire.EthernetHeaderLen+wire.IPv4HeaderLen+wire.UDPDstPortOffset+1] ^= 1
	unknown := ackFrame(t, enc, 7, 52, nil) // QPN 7 is not a flow of the table
	outside := ackFrame(t, enc, 1<<20, 53, nil)
	in := []arrival{
		{1, good(0)}, {2, badICRC}, {3, good(1)}, {4, []byte{1, 2, 3}}, {5, badPort},
		{6, good(2)}, {7, unknown}, {8, nil}, {9, good(3)}, {10, outside},
	}
	got, cnt, _ := runRx(t, false, DefaultRxConfig(), defaultDepths, 0, in, 100)
	if len(got) != 4 {
		t.Fatalf("%d events, want 4", len(got))
	}
	for i, g := range got {
		if g.v.PSN != wire.PSN(i) {
			t.Errorf("event %d PSN %d", i, g.v.PSN)
		}
	}
	want := map[wire.Reason]uint64{wire.ReasonICRC: 1, wire.ReasonUDPPort: 1, wire.ReasonEthernetShort: 2}
	for r := wire.Reason(0); int(r) < wire.NumReasons; r++ {
		if cnt.Malformed[r] != want[r] {
			t.Errorf("Malformed[%v] = %d, want %d", r, cnt.Malformed[r], want[r])
		}
	}
	if cnt.Drops[DropMalformed] != 4 || cnt.Drops[DropUnknownFlow] != 2 || cnt.Class[wire.ClassMalformed] != 4 || cnt.Frames != 10 {
		t.Errorf("counters %+v", cnt)
	}
}

// FuzzRx drives arbitrary frames through a running Rx: no panic, and every
// frame taken is accounted for as an event, a reply or a counted drop.
func FuzzRx(f *testing.F) {
	f.Add(ackFrame(f, telemetry.IFA, 1, 1, hopsFor(f, telemetry.IFA, 1, 1, 2)), dataFrame(f, telemetry.Compact, 2, 3, 17, true, hopsFor(f, telemetry.Compact, 2, 3, 3)))
	f.Add([]byte{}, []byte{0xff})
	f.Fuzz(func(t *testing.T, a, b []byte) {
		e := newEngine(t, false)
		n := addNIC(t, e, "A", DefaultRxConfig(), DefaultTxConfig(), testFlows(t, false), nil, defaultDepths)
		n.attach(t, e, "A", 0, 0, nil)
		n.feed(t, e, []arrival{{1, a}, {2, b}, {3, a}, {4, b}})
		e.Run(100)
		c := n.rx.Counters()
		var drops uint64
		for _, v := range c.Drops {
			drops += v
		}
		if c.Frames != 4 || c.Events+c.Replies+drops != 4 {
			t.Fatalf("frames %d events %d replies %d drops %d", c.Frames, c.Events, c.Replies, drops)
		}
	})
}
