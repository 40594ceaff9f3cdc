package nicmodel

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// TestRxHPCCNotifications runs receiver-based HPCC (section 6.2) on two
// flows through a switch whose queue comes and goes, with delayed ACKs
// every 8 packets for reliability. Oracle: the receiver-mode golden
// datapath (hpcc.Datapath.Update, Mode receiver) replayed over the data
// packets in arrival order, with now = the cycle each packet enters the Rx
// dispatch stage (arrival + 1 + rx.parse.latency, in ns at 1 GHz) and the
// records the switch stamped; a notification is due exactly when the
// datapath commits (line 29: now > lastUpdateTime + T). Checks: the
// receiver's notifications on the wire are exactly those, in order, each
// carrying floor(W) bytes; per flow, consecutive notifications are more
// than T apart (at most once per T); the sender applies every one (its
// final window register is the last W, its rate R = W/T); both flows
// complete.
func TestRxHPCCNotifications(t *testing.T) {
	cfg := testConfig(CCHPCCRx)
	cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 8, 3000
	qlen := func(now engine.Cycle) uint64 { return uint64(now/4000%3) * 30000 }
	const delay = 700
	b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 2, delay: delay, qlen: qlen})
	b.open(t, 1, 300_000, 0)
	b.open(t, 2, 200_000, 20_000)
	b.runIdle(t, 10_000_000)
	if r := b.a.Completed(); len(r) != 2 {
		t.Fatalf("completed %+v", r)
	}
	cfgR := cfg.HPCC
	d := must(hpcc.NewDatapath(cfgR))(t)
	type note struct {
		q    wire.QPN
		w    uint32
		atNs uint64
	}
	var want []note
	st := map[wire.QPN]hpcc.State{}
	for _, g := range b.ab.got {
		p := decoded(t, g.v)
		if p.Class != wire.ClassData {
			continue
		}
		now := g.at + delay + 1 + engine.Cycle(cfg.Rx.Parse.Latency)
		in := hpcc.Input{NowNs: cfg.ClockHz.NS(now), NHops: uint8(p.INT.HopCount)}
		copy(in.Hops[:], p.HopList())
		next, out := d.Update(st[p.DestQP], in)
		st[p.DestQP] = next
		if out.Notify {
			want = append(want, note{p.DestQP, uint32(out.W >> 8), in.NowNs})
		}
	}
	var got []note
	for _, g := range b.ba.got {
		if p := decoded(t, g.v); p.Class == wire.ClassNotify {
			got = append(got, note{q: p.DestQP, w: p.Window})
		}
	}
	if len(want) < 6 {
		t.Fatalf("only %d notifications expected: the scenario is too short to test", len(want))
	}
	if len(got) != len(want) {
		t.Fatalf("%d notifications on the wire, oracle %d", len(got), len(want))
	}
	last := map[wire.QPN]uint64{}
	for i := range want {
		if got[i].q != want[i].q || got[i].w != want[i].w {
			t.Fatalf("notification %d: flow %d W %d, oracle flow %d W %d", i, got[i].q, got[i].w, want[i].q, want[i].w)
		}
		if l, ok := last[want[i].q]; ok && want[i].atNs-l <= uint64(cfg.HPCC.BaseRTTNs) {
			t.Fatalf("flow %d notified %d ns after the previous notification, T = %d", want[i].q, want[i].atNs-l, cfg.HPCC.BaseRTTNs)
		}
		last[want[i].q] = want[i].atNs
	}
	c := b.a.Counters()
	if c.Module.NotifyApply != uint64(len(want)) || c.Module.NotifyEvents != uint64(len(want)) {
		t.Errorf("sender applied %d notifications (%d events), want %d", c.Module.NotifyApply, c.Module.NotifyEvents, len(want))
	}
	if rc := b.b.Counters().RxHPCC; rc.Notifies != uint64(len(want)) || rc.Calls != 500 {
		t.Errorf("receiver Rx-HPCC counters %+v: want %d notifies, 500 calls", rc, len(want))
	}
	for _, q := range []wire.QPN{1, 2} {
		var lw uint32
		for _, n := range want {
			if n.q == q {
				lw = n.w
			}
		}
		fs := must(b.a.sched.Flow(scheduler_FlowID(q)))(t)
		if wr := b.a.cc.(*hpccWiring).mod.algo.(*hpccRxCC).core.windowFromBytes(lw); fs.Window != wr || fs.Rate != b.a.cc.(*hpccWiring).mod.algo.(*hpccRxCC).core.rate(wr) {
			t.Errorf("flow %d: scheduler W %d R %d, want W %d (last notification %d bytes) R %d", q, fs.Window, fs.Rate, wr, lw, b.a.cc.(*hpccWiring).mod.algo.(*hpccRxCC).core.rate(wr))
		}
	}
}
