package nicmodel

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// ACKs without telemetry under sampled telemetry (HPCC++ draft section 6,
// network.SampleConfig): an ACK whose echoed stack holds no hop record
// (HasINT with NHops = 0) or that carries no INT at all updates nothing
// (W, U, Wc, the stored telemetry L and the round stay), still advances
// una, and is counted NoTelemetry. Oracle: the golden datapath run
// sequentially on the telemetry-carrying ACKs alone (with each one's own
// una): the module's updates must equal it update for update, and the
// acknowledged bytes must reach the scheduler for every ACK. Without the
// rule, an empty-stack ACK would store an empty L and the next ACK would
// see a path change (no measurement): the oracle then differs.
func TestAckWithoutTelemetry(t *testing.T) {
	for _, every := range []int{2, 3, 5} {
		var evs []stamped[pipeline.Event]
		var withINT []pipeline.Event
		empty := 0
		for k := 0; k < 40; k++ {
			ev := ackEvent(t, 1, wire.PSN(k), k)
			switch {
			case k%every == 0:
				withINT = append(withINT, ev)
			case k%2 == 1:
				ev.NHops, ev.Hops = 0, [wire.MaxHops]telemetry.Hop{} // sampled out: the shim, no records
				empty++
			default:
				ev.HasINT, ev.NHops, ev.Hops = false, 0, [wire.MaxHops]telemetry.Hop{}
				empty++
			}
			evs = append(evs, stamped[pipeline.Event]{engine.Cycle(100 + 3*k), ev})
		}
		var sends []stamped[sendRecord]
		for i := 0; i < 64; i++ {
			sends = append(sends, stamped[sendRecord]{0, sendRecord{qpn: 1, end: uint64(1000 * (i + 1))}})
		}
		b := newModBench(t, modOpts{lat: 2, ii: 1, model: Fixed, events: evs, sends: sends})
		b.e.RunUntilIdle(100_000)
		if len(b.upd.got) != len(withINT) {
			t.Fatalf("every %d: %d updates, want %d (one per ACK with telemetry)", every, len(b.upd.got), len(withINT))
		}
		var st hpcc.State
		for i, ev := range withINT {
			next, out := b.d.Update(st, hpcc.Input{Seq: uint64(ev.PSN) + 1, SndNxt: 64, NHops: 1, Hops: ev.Hops})
			st = next
			if g := b.upd.got[i].v; g.Window != out.W || g.Rate != out.Rate {
				t.Fatalf("every %d: update %d = W %d R %d, want %d %d (golden datapath on the ACKs with telemetry)", every, i, g.Window, g.Rate, out.W, out.Rate)
			}
		}
		if b.algo.fx[1] != st {
			t.Errorf("every %d: state %+v, want %+v", every, b.algo.fx[1], st)
		}
		if got := b.m.cnt.NoTelemetry; got != uint64(empty) {
			t.Errorf("every %d: NoTelemetry = %d, want %d", every, got, empty)
		}
		if c := b.m.cnt; c.AcksAdvanced != 40 || len(b.acks.got) != 40 {
			t.Errorf("every %d: %d ACKs advanced una, %d reached the scheduler; want 40 (every ACK advances it)", every, c.AcksAdvanced, len(b.acks.got))
		}
	}
}

// The receiver (Rx-HPCC) under sampled telemetry: a data packet whose
// stack holds no hop record updates nothing and notifies nothing (counted
// NoHops). Oracle: the receiver-mode golden datapath run on the packets
// with records alone; the flow state after the run equals it.
func TestRxHPCCWithoutHops(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	cfg.Mode = hpcc.Receiver
	core := must(newCCCore(Fixed, cfg, nil))(t)
	r := newRxHPCC(core, engine.GHz, 4, 0)
	var st hpcc.State
	calls := 0
	for k := 0; k < 30; k++ {
		ev := ackEvent(t, 1, wire.PSN(k), k)
		now := engine.Cycle(1000 + 500*k)
		hops := ev.Hops[:1]
		if k%3 != 0 {
			hops = ev.Hops[:0]
		}
		notify, w := r.OnTelemetry(now, 1, wire.PSN(k), telemetry.IFA, hops)
		if len(hops) == 0 {
			if notify || w != 0 {
				t.Fatalf("packet %d without records: notify %v w %d", k, notify, w)
			}
			continue
		}
		calls++
		in := hpcc.Input{NowNs: uint64(now), NHops: 1, Hops: ev.Hops}
		next, out := core.d.Update(st, in)
		st = next
		if notify != out.Notify {
			t.Fatalf("packet %d: notify %v, want %v", k, notify, out.Notify)
		}
	}
	if r.fx[1] != st {
		t.Errorf("state %+v, want %+v", r.fx[1], st)
	}
	if r.cnt.NoHops != 20 || r.cnt.Calls != uint64(calls) {
		t.Errorf("NoHops %d Calls %d, want 20, %d", r.cnt.NoHops, r.cnt.Calls, calls)
	}
}
