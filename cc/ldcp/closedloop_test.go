package ldcp

import (
	"container/heap"
	"math/rand/v2"
	"testing"
)

// This file is a test harness, not a network model: N senders, each on its
// own 100 Gbps NIC, send one message each through one 100 Gbps bottleneck
// FIFO to receivers that follow Receiver's ACK policy. The switch applies
// the draft's marking (section 2.1) to ECN-capable packets (p = 0 below
// Kmin, linear to Pmax at Kmax, 1 above, drop above BufMax) and WRED
// dropping to ECN-incapable ones (drop when q >= K, Eq. (3)). It checks that
// the sender state machine, driven only through Update, completes every
// message: fast start, its loss transition and go-back-N, the stable stage
// and the sub-packet regime working together.

type loopParams struct {
	flows       int
	msgPkts     uint32
	kMin, kMax  int // packets
	pMax        float64
	k           int // non-ECT drop threshold, packets
	bufMax      int // packets
	oneWayNs    uint64
	pktNs       uint64 // serialization of one 1000-byte packet at 100 Gbps
	rtoNs       uint64
	delayedAckM uint32
}

type loopStats struct {
	doneNs                    uint64
	completed                 int
	maxQueue                  int
	dropNotECT, dropECT, mark int
	losses, fullAcks, timeout int
	subEntries                int
	minCw                     float64
}

type loopEvent struct {
	at   uint64
	seq  uint64 // tie-break: insertion order (deterministic)
	kind int    // 0 try send, 1 arrive at switch, 2 depart switch, 3 arrive at receiver, 4 ACK at sender, 5 RTO check
	flow int
	psn  uint32
	ect  bool
	ce   bool
	last bool
	ack  AckDecision
}

type loopQueue []loopEvent

func (q loopQueue) Len() int { return len(q) }
func (q loopQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q loopQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *loopQueue) Push(x any)   { *q = append(*q, x.(loopEvent)) }
func (q *loopQueue) Pop() any     { o := *q; e := o[len(o)-1]; *q = o[:len(o)-1]; return e }

func runLoop(t *testing.T, c Config, p loopParams) loopStats {
	d := mustDP(t, c)
	c.DelayedAckPkts = p.delayedAckM
	rx := mustRx(t, c)
	rng := rand.New(rand.NewPCG(1, uint64(p.flows)))
	var q loopQueue
	var seq uint64
	push := func(e loopEvent) { seq++; e.seq = seq; heap.Push(&q, e) }
	st := make([]State, p.flows)
	rs := make([]RxState, p.flows)
	nicFree := make([]uint64, p.flows)
	pendingTry := make([]bool, p.flows)
	lastProgress := make([]uint64, p.flows)
	done := make([]bool, p.flows)
	stats := loopStats{minCw: 1e9}
	var fifo []loopEvent
	linkBusy := false
	for f := 0; f < p.flows; f++ {
		st[f], _ = d.Update(d.InitialState(), Event{Kind: Start, Seq: uint32(f * 1000), MsgPkts: p.msgPkts})
		rs[f] = rx.Start(uint32(f * 1000))
		push(loopEvent{at: 0, kind: 0, flow: f})
		push(loopEvent{at: p.rtoNs, kind: 5, flow: f})
	}
	try := func(f int, now uint64) {
		if pendingTry[f] || done[f] {
			return
		}
		pendingTry[f] = true
		push(loopEvent{at: max(now, nicFree[f]), kind: 0, flow: f})
	}
	for q.Len() > 0 && stats.completed < p.flows {
		e := heap.Pop(&q).(loopEvent)
		now := e.at
		if now > 50_000_000 {
			t.Fatalf("flows=%d: not done after 50 ms (%d of %d complete)", p.flows, stats.completed, p.flows)
		}
		f := e.flow
		switch e.kind {
		case 0: // the NIC may transmit for flow f
			pendingTry[f] = false
			if done[f] || now < nicFree[f] {
				if !done[f] {
					try(f, now)
				}
				continue
			}
			var o Output
			st[f], o = d.Update(st[f], Event{Kind: Send, NowNs: now})
			switch {
			case o.Allowed:
				nicFree[f] = now + p.pktNs
				push(loopEvent{at: now + p.oneWayNs, kind: 1, flow: f, psn: o.PSN, ect: o.ECT, last: o.Last})
				try(f, nicFree[f])
			case o.Block == BlockTimer:
				pendingTry[f] = true
				push(loopEvent{at: st[f].NextSend, kind: 0, flow: f})
			}
		case 1: // arrival at the bottleneck
			n := len(fifo)
			if linkBusy {
				n++
			}
			stats.maxQueue = max(stats.maxQueue, n)
			if !e.ect {
				if n >= p.k {
					stats.dropNotECT++
					continue
				}
			} else {
				if n >= p.bufMax {
					stats.dropECT++
					continue
				}
				var prob float64
				switch {
				case n >= p.kMax:
					prob = 1
				case n >= p.kMin:
					prob = float64(n-p.kMin) / float64(p.kMax-p.kMin) * p.pMax
				}
				if rng.Float64() < prob {
					e.ce = true
					stats.mark++
				}
			}
			if !linkBusy {
				linkBusy = true
				e.kind = 2
				e.at = now + p.pktNs
				push(e)
			} else {
				fifo = append(fifo, e)
			}
		case 2: // departure from the bottleneck
			e.kind, e.at = 3, now+p.oneWayNs
			push(e)
			if len(fifo) > 0 {
				nx := fifo[0]
				fifo = fifo[1:]
				nx.kind, nx.at = 2, now+p.pktNs
				push(nx)
			} else {
				linkBusy = false
			}
		case 3: // arrival at the receiver
			var a AckDecision
			rs[f], a = rx.OnData(rs[f], e.psn, e.ce, e.last)
			if a.Send {
				push(loopEvent{at: now + 2*p.oneWayNs, kind: 4, flow: f, ack: a})
			}
		case 4: // ACK at the sender
			if done[f] {
				continue
			}
			before := d.isSub(st[f].Cw)
			var o Output
			st[f], o = d.Update(st[f], Event{Kind: Ack, NowNs: now, AckSeq: e.ack.AckSeq, ECE: e.ack.ECE, NAK: e.ack.NAK})
			if o.N > 0 || o.GoBackN {
				lastProgress[f] = now
			}
			stats.losses += b2i(o.Loss)
			stats.fullAcks += b2i(o.FullAck)
			if !before && o.Sub {
				stats.subEntries++
			}
			if o.Stage == Stable {
				stats.minCw = min(stats.minCw, d.CwPackets(o.Cw))
			}
			if o.Done {
				done[f] = true
				stats.completed++
				stats.doneNs = now
				continue
			}
			try(f, now)
		case 5: // retransmission timer check
			if done[f] {
				continue
			}
			if now-lastProgress[f] >= p.rtoNs && st[f].Nxt != st[f].Una {
				var o Output
				st[f], o = d.Update(st[f], Event{Kind: Timeout, NowNs: now})
				stats.timeout++
				stats.losses += b2i(o.Loss)
				lastProgress[f] = now
				try(f, now)
			}
			push(loopEvent{at: now + p.rtoNs/2, kind: 5, flow: f})
		}
	}
	return stats
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestClosedLoop: incasts through one bottleneck, driven only through the
// golden datapath's Update and Receiver.OnData:
//   - 16 flows of 200 packets (3.2x IW each): the fast-start bursts overrun
//     K, so first-RTT packets are WRED-dropped (ECN-incapable drops > 0)
//     while no ECN-capable packet is lost; losses end fast start
//     (transition 1) and go-back-N recovers; every message completes.
//   - 1 flow of 200 packets: no loss, transition 2 (a full IW acknowledged),
//     done in about 200 packet times plus one RTT.
//   - 400 flows of 20 packets with delayed ACKs (m = 2): the fair share is
//     below one packet, so windows enter the sub-packet regime and the
//     timer RTT/cw paces them; every message completes.
//
// Oracle: the draft's claims (sections 2.1-2.3, 3.1) and conservation
// (every message completes; the queue never exceeds BufMax).
func TestClosedLoop(t *testing.T) {
	base := loopParams{kMin: 5, kMax: 40, pMax: 0.2, k: 16, bufMax: 400, oneWayNs: 1250, pktNs: 80, rtoNs: 200_000, delayedAckM: 1}
	c := DefaultConfig()
	for _, tc := range []struct {
		name  string
		flows int
		msg   uint32
		m     uint32
		check func(s loopStats) string
	}{
		{"16-flow incast", 16, 200, 1, func(s loopStats) string {
			if s.dropNotECT == 0 || s.dropECT != 0 || s.losses == 0 {
				return "want first-RTT WRED drops, no ECN-capable drop and fast-start losses"
			}
			return ""
		}},
		{"single flow", 1, 200, 1, func(s loopStats) string {
			if s.dropNotECT+s.dropECT != 0 || s.fullAcks != 1 || s.losses != 0 || s.doneNs > 200*80+3*5000 {
				return "want no drop, transition 2, completion within 200 packet times + 3 RTT"
			}
			return ""
		}},
		{"400-flow incast", 400, 20, 2, func(s loopStats) string {
			if s.subEntries == 0 || s.minCw >= 1 {
				return "want windows in the sub-packet regime"
			}
			return ""
		}},
	} {
		p := base
		p.flows, p.msgPkts, p.delayedAckM = tc.flows, tc.msg, tc.m
		s := runLoop(t, c, p)
		if s.completed != tc.flows || s.maxQueue > p.bufMax {
			t.Errorf("%s: %d of %d messages complete, max queue %d", tc.name, s.completed, tc.flows, s.maxQueue)
		}
		if msg := tc.check(s); msg != "" {
			t.Errorf("%s: %s: %+v", tc.name, msg, s)
		}
		t.Logf("%s: done at %.1f us, max queue %d pkts, drops not-ECT %d ECT %d, marks %d, fast-start losses %d, full IW %d, timeouts %d, sub-packet entries %d, min cw %.3f",
			tc.name, float64(s.doneNs)/1000, s.maxQueue, s.dropNotECT, s.dropECT, s.mark, s.losses, s.fullAcks, s.timeout, s.subEntries, s.minCw)
	}
}
