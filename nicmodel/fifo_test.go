package nicmodel

import (
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
	"github.com/hpccgold/hpccgold/telemetry"
)

func scheduler_FlowID(q wire.QPN) scheduler.FlowID { return scheduler.FlowID(q) }

// ackFrame builds an ACK of psn on QP q (as the peer would send it to NIC
// A) echoing one IFA hop.
func ackFrame(t testing.TB, q wire.QPN, psn wire.PSN, k int) []byte {
	t.Helper()
	h := must(telemetry.FromPhysical(telemetry.IFA, telemetry.Physical{SwitchID: 9, PortID: 3, SpeedGbps: 100,
		TsNs: uint64(1000 + 90*k), TxBytes: uint64(1090 * k), QlenBytes: uint64(k%5) * 1000}))(t)
	f, err := wire.AppendAck(nil, &wire.Ack{Path: pairPath(2, 1, q), Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: q, PSN: psn},
		Syndrome: wire.MakeSyndrome(wire.AckTypeACK, wire.CreditsInvalid),
		Echo:     wire.Echo{Enabled: true, Encoding: telemetry.IFA, MaxHops: 5, Hops: []telemetry.Hop{h}}})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// singleNIC is NIC A alone, its port driven by a script and its output
// drained.
func singleNIC(t testing.TB, cfg Config, noSkip, trace bool) (*engine.Engine, *NIC) {
	t.Helper()
	e := must(engine.New(engine.Config{Freq: cfg.ClockHz, NoSkip: noSkip}))(t)
	qa, _ := qpPair(4)
	n := must(New(cfg, qa, Options{Name: "A", Trace: TraceOptions{Vectors: trace}}))(t)
	if err := n.Register(e); err != nil {
		t.Fatal(err)
	}
	drain := &link{from: n.Out(), to: engine.NewTimedQueue[pipeline.Frame]("void"), delay: 1, freq: cfg.ClockHz}
	id := must(e.Add("drain", drain))(t)
	if err := n.ConnectOut(id); err != nil {
		t.Fatal(err)
	}
	return e, n
}

// TestFIFOFull sends a burst of 40 ACKs with telemetry, one per cycle from
// cycle 100, into a NIC whose HPCC++ module takes one event per 16 cycles
// (module.ii_cycles = 16) through a 4-deep event FIFO.
//
// Drop policy (rx.output_full = drop), derived by hand from the documented
// timing: ACK k reaches the port in cycle 100+k, enters the parse stage in
// 101+k (4 cycles), dispatch in 105+k (2 cycles) and is pushed in 107+k.
// The module takes the first event in 108, then one every 16 cycles (124,
// 140, ...), and a slot freed by a pop is usable the cycle after. So the
// pushes of cycles 107-111 fill the FIFO (5 accepted: one was popped in
// 108), those of 112-124 are dropped, 125 is accepted, 126-140 dropped,
// 141 accepted, 142-146 dropped: 7 events, 33 drops.
//
// Back-pressure policy: nothing is dropped, the Rx pipeline stalls and the
// frames wait in the MAC Rx FIFO; all 40 events are taken, the last in
// cycle 108 + 39*16 = 732.
//
// Back-pressure with a 4-deep MAC Rx FIFO: the port cannot push back, so
// frames that find the MAC FIFO full are dropped and counted there; every
// frame is accounted for (taken by Rx or dropped by the MAC) and every
// frame Rx took becomes an event.
func TestFIFOFull(t *testing.T) {
	run := func(policy pipeline.Policy, macDepth int, noSkip bool) (*NIC, engine.Stats) {
		cfg := testConfig(CCHPCC)
		cfg.Module.IICycles = 16
		cfg.FIFOs.Events = 4
		cfg.FIFOs.RxMAC = macDepth
		cfg.Rx.OutputFull = policy
		e, n := singleNIC(t, cfg, noSkip, true)
		for k := 0; k < 40; k++ {
			n.In().Push(0, engine.Cycle(100+k), pipeline.Frame{Data: ackFrame(t, 1+wire.QPN(k%3), wire.PSN(k), k)})
		}
		if !e.RunUntilIdle(100_000) {
			t.Fatal("not idle")
		}
		return n, e.Stats()
	}
	t.Run("drop", func(t *testing.T) {
		n, _ := run(pipeline.Drop, 64, false)
		c := n.Counters()
		if c.Rx.Events != 7 || c.Rx.Drops[pipeline.DropEventFull] != 33 || c.Module.Events != 7 {
			t.Errorf("Rx events %d, event-full drops %d, module events %d; want 7, 33, 7",
				c.Rx.Events, c.Rx.Drops[pipeline.DropEventFull], c.Module.Events)
		}
		if c.Module.StallII != 6 {
			t.Errorf("II stalls %d, want 6 (every event after the first waited for the II)", c.Module.StallII)
		}
	})
	t.Run("backpressure", func(t *testing.T) {
		n, _ := run(pipeline.BackPressure, 64, false)
		c := n.Counters()
		var drops uint64
		for _, d := range c.Rx.Drops {
			drops += d
		}
		if drops != 0 || c.MAC.RxDrops != 0 || c.Module.Events != 40 || c.Rx.Stalls[pipeline.StallEvent] == 0 {
			t.Fatalf("drops %d, MAC drops %d, module events %d, event stalls %d; want 0, 0, 40, >0",
				drops, c.MAC.RxDrops, c.Module.Events, c.Rx.Stalls[pipeline.StallEvent])
		}
		rows := streamRows(t, n.rec, "events")
		if len(rows) != 40 || rows[39]["cycle"] != 732 {
			t.Fatalf("%d events traced, last taken in cycle %d; want 40, 732", len(rows), rows[len(rows)-1]["cycle"])
		}
		for _, f := range c.FIFOs {
			if f.Name == "rx_mac" && f.Max < 20 {
				t.Errorf("MAC Rx FIFO high-water mark %d: the frames should have waited there", f.Max)
			}
		}
	})
	t.Run("mac-overflow", func(t *testing.T) {
		n, _ := run(pipeline.BackPressure, 4, false)
		c := n.Counters()
		if c.MAC.RxDrops == 0 || c.MAC.RxFrames != 40 || c.Rx.Frames+c.MAC.RxDrops != 40 || c.Module.Events != c.Rx.Frames {
			t.Fatalf("MAC frames %d drops %d, Rx frames %d, module events %d", c.MAC.RxFrames, c.MAC.RxDrops, c.Rx.Frames, c.Module.Events)
		}
	})
	t.Run("skip-equivalence", func(t *testing.T) {
		for _, p := range []pipeline.Policy{pipeline.Drop, pipeline.BackPressure} {
			a, _ := run(p, 4, false)
			b, st := run(p, 4, true)
			if st.UnexpectedProgress != 0 {
				t.Fatalf("UnexpectedProgress %d", st.UnexpectedProgress)
			}
			ca, cb := a.Counters(), b.Counters()
			if ca.Rx != cb.Rx || ca.Module != cb.Module || ca.MAC != cb.MAC || streamHex(t, a.rec, "events") != streamHex(t, b.rec, "events") {
				t.Fatalf("%v: results differ with and without skipping", p)
			}
		}
	})
}
