package nicmodel

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// TestSinglePacketTiming checks the NIC's latencies end to end on a flow
// of one packet, against the timing documented in docs/nicmodel.md
// (section Timing), for the default stages and for others. With stage
// latencies Lp, Ld (Rx parse, dispatch), Lb, Le (Tx build, egress), link
// delay d and serialization times sd, sa (data, ACK frame, ceiling in
// cycles at the line rate):
//
//	s                     the host posts the flow (FlowSpec.Start)
//	s+1                   the module takes the post, pushes the doorbell (FlowRecord.Posted)
//	s+3                   the scheduler's decision: PktSend
//	s+5                   the Tx pipeline takes the command
//	s+6+Lb+Le             the MAC takes the frame; it departs sd cycles later
//	arrival+3+Lp+Ld+Lb+Le the receiver's MAC takes the ACK (per-packet ACK)
//	arrival+2+Lp+Ld       the sender's module takes the ACK (FlowRecord.Done)
//
// so Done - Start = 11 + 2(Lb+Le) + 2(Lp+Ld) + 2d + sd + sa.
func TestSinglePacketTiming(t *testing.T) {
	for _, tc := range []struct {
		lp, ld, lb, le int
		d              engine.Cycle
	}{{4, 2, 3, 2, 1000}, {1, 1, 1, 1, 10}, {7, 3, 5, 4, 333}} {
		cfg := testConfig(CCHPCC)
		cfg.Rx.Parse, cfg.Rx.Dispatch = pipeline.StageConfig{Latency: tc.lp, Depth: tc.lp}, pipeline.StageConfig{Latency: tc.ld, Depth: tc.ld}
		cfg.Tx.Build, cfg.Tx.Egress = pipeline.StageConfig{Latency: tc.lb, Depth: tc.lb}, pipeline.StageConfig{Latency: tc.le, Depth: tc.le}
		b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 1, delay: tc.d})
		const s = 50
		b.open(t, 1, 1000, s)
		b.runIdle(t, 100_000)
		r := b.a.Completed()
		if len(r) != 1 {
			t.Fatalf("completed %+v", r)
		}
		// Data frame: 14+20+8+12+8 (shim) +1000 +4 = 1066 bytes, + 24 = 1090
		// on the wire: 87.2 ns -> 88 cycles. ACK: 14+20+8+12+4 (AETH) +8
		// (shim) +32 (one IFA hop) +4 = 102, + 24 = 126: 10.08 ns -> 11.
		const sd, sa = 88, 11
		want := engine.Cycle(11+2*(tc.lb+tc.le)+2*(tc.lp+tc.ld)+sd+sa) + 2*tc.d
		if r[0].Start != s || r[0].Posted != s+1 || r[0].Done-r[0].Start != want {
			t.Errorf("%+v: record %+v, want Start %d Posted %d FCT %d", tc, r[0], s, s+1, want)
		}
		if dep := dataDepartures(t, b.ab, 1); len(dep) != 1 || dep[0] != s+engine.Cycle(6+tc.lb+tc.le+sd) {
			t.Errorf("%+v: departure %v, want %d", tc, dep, s+6+tc.lb+tc.le+sd)
		}
	}
}

// TestFlowAPI checks the flow API: OpenFlow's errors; flows opened from
// OnComplete (closed-loop traffic) on an idle QP start new connections
// (the QP resets, PSNs restart at 0); a flow opened while its QP is busy
// queues behind on the same connection (no reset) and completes after it;
// records are in completion order with Start <= Posted <= Done and every
// byte acknowledged.
func TestFlowAPI(t *testing.T) {
	cfg := testConfig(CCHPCC)
	var b *bench
	chained := 0
	onDone := func(r FlowRecord) {
		if r.QPN == 1 && chained < 3 {
			chained++
			if _, err := b.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 20_000}); err != nil {
				t.Error(err)
			}
		}
	}
	b = newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 2, delay: 500, onComplete: onDone})
	if _, err := b.a.OpenFlow(FlowSpec{QPN: 7, Bytes: 1}); err == nil || !strings.Contains(err.Error(), "QPN=7") {
		t.Errorf("unknown QP: %v", err)
	}
	if _, err := b.a.OpenFlow(FlowSpec{QPN: 1}); err == nil || !strings.Contains(err.Error(), "Bytes=0") {
		t.Errorf("zero bytes: %v", err)
	}
	// At most scheduler.max_messages flows open per QP.
	lim := testConfig(CCHPCC)
	lim.Scheduler.MaxMessages = 2
	nl := must(New(lim, []pipeline.FlowContext{{QPN: 1, Path: pairPath(1, 2, 1)}}, Options{}))(t)
	for i := 0; i < 3; i++ {
		_, err := nl.OpenFlow(FlowSpec{QPN: 1, Bytes: 10})
		if (err != nil) != (i == 2) || i == 2 && !strings.Contains(err.Error(), "max_messages=2") {
			t.Errorf("flow %d on a QP limited to 2 messages: %v", i, err)
		}
	}
	b.open(t, 1, 30_000, 0)
	b.open(t, 2, 50_000, 0)
	b.open(t, 2, 10_000, 100) // QP 2 busy: same connection
	b.runIdle(t, 10_000_000)
	rs := b.a.Completed()
	if len(rs) != 6 {
		t.Fatalf("%d flows completed, want 6: %+v", len(rs), rs)
	}
	var q2 []FlowRecord
	for i, r := range rs {
		if r.Start > r.Posted || r.Posted > r.Done {
			t.Errorf("record %+v out of order", r)
		}
		if i > 0 && r.Done < rs[i-1].Done {
			t.Errorf("records not in completion order")
		}
		if r.QPN == 2 {
			q2 = append(q2, r)
		}
	}
	if len(q2) != 2 || q2[0].Bytes != 50_000 || q2[1].Bytes != 10_000 || q2[1].Done <= q2[0].Done {
		t.Errorf("QP 2 flows %+v", q2)
	}
	c := b.a.Counters().Module
	// Resets: QP 1 four times (its first flow and three chained ones), QP 2 once.
	if c.Resets != 5 || c.Posts != 6 || c.Completions != 6 {
		t.Errorf("resets %d posts %d completions %d; want 5, 6, 6", c.Resets, c.Posts, c.Completions)
	}
	st := must(b.a.QP(2))(t)
	if st.Acked != 60_000 || st.Posted != 60_000 || st.SndNxt != 60 || st.Una != 60 {
		t.Errorf("QP 2 status %+v", st)
	}
	// The real-valued W and R are the raw registers scaled by their
	// formats (u32.24 bytes, u32.8 bytes per ns).
	if st.WBytes != float64(st.Scheduler.Window)/256 || st.RateGbps != 8*float64(st.Scheduler.Rate)/(1<<24) || st.RateGbps <= 0 {
		t.Errorf("QP 2 W %v bytes R %v Gbit/s from raw %d, %d", st.WBytes, st.RateGbps, st.Scheduler.Window, st.Scheduler.Rate)
	}
	// PSNs restart at 0 on each new connection of QP 1: its data packets'
	// PSNs are 0..29 then 0..19 three times.
	var psns []wire.PSN
	for _, g := range b.ab.got {
		if p := decoded(t, g.v); p.Class == wire.ClassData && p.DestQP == 1 {
			psns = append(psns, p.PSN)
		}
	}
	k := 0
	for _, n := range []int{30, 20, 20, 20} {
		for i := 0; i < n; i++ {
			if k >= len(psns) || psns[k] != wire.PSN(i) {
				t.Fatalf("QP 1 PSNs %v: want 0..29 then 0..19 three times", psns)
			}
			k++
		}
	}
}

// FuzzNICRx feeds arbitrary bytes into a NIC's port. Whatever the frame,
// the NIC must not panic, must take it (MAC and Rx count one more frame)
// and must account for it: either an event to the module, a reply to the
// Tx pipeline, or exactly one counted drop. One NIC (receiver-based HPCC,
// so that data frames also run Rx-HPCC) serves every input; each input is
// pushed after the previous one has been fully processed.
func FuzzNICRx(f *testing.F) {
	f.Add(ackFrame(f, 1, 3, 1))
	qa, _ := qpPair(1)
	d, _ := wire.AppendData(nil, &wire.Data{Path: qa[0].Path, Opcode: wire.OpRCSendOnly,
		Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: 1, PSN: 9}, Payload: make([]byte, 64)})
	f.Add(d)
	f.Add(d[:40])
	f.Add([]byte{})
	f.Add(make([]byte, 60))
	e, n := singleNIC(f, testConfig(CCHPCCRx), false, false)
	f.Fuzz(func(t *testing.T, frame []byte) {
		before := n.Counters()
		n.In().Push(e.Now(), e.Now()+1, pipeline.Frame{Data: append([]byte(nil), frame...)})
		if !e.RunUntilIdle(e.Now() + 100_000) {
			t.Fatal("not idle")
		}
		c := n.Counters()
		sum := func(c *Counters) uint64 {
			s := c.Rx.Events + c.Rx.Replies
			for _, x := range c.Rx.Drops {
				s += x
			}
			return s
		}
		if c.MAC.RxFrames-before.MAC.RxFrames != 1 || c.Rx.Frames-before.Rx.Frames != 1 || sum(&c)-sum(&before) != 1 {
			t.Fatalf("frame not accounted for: before %+v after %+v", before.Rx, c.Rx)
		}
	})
}
