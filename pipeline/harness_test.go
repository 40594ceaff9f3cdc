package pipeline

import (
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Test bench pieces: scripted drivers and recording sinks as engine
// components, and a NIC (Rx + Tx with their queues) wired into an engine.

type arrival struct {
	at engine.Cycle
	f  []byte
}

type stamped[T any] struct {
	at engine.Cycle
	v  T
}

// driver pushes scripted items into a FIFO at (or, under back-pressure,
// after) their cycles, as many per cycle as fit.
type driver[T any] struct {
	q      *engine.FIFO[T]
	script []stamped[T]
	i      int
	pushed []engine.Cycle // cycle each item was actually pushed
}

func (d *driver[T]) Tick(now engine.Cycle) bool {
	p := false
	for d.i < len(d.script) && d.script[d.i].at <= now && d.q.Push(now, d.script[d.i].v) {
		d.pushed = append(d.pushed, now)
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

// sink pops one item per cycle from a FIFO, but only from cycle from on
// (from = engine.Never: never pops), recording the cycle of each pop.
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
	if now < s.from && s.from != engine.Never {
		return s.from, true
	}
	return engine.Never, false
}

// nic is one NIC's Rx and Tx with their queues.
type nic struct {
	rx      *Rx
	tx      *Tx
	in      *engine.TimedQueue[Frame]
	events  *engine.FIFO[Event]
	replies *engine.FIFO[Reply]
	sends   *engine.FIFO[PktSend]
	out     *engine.FIFO[Frame]
	rxID    engine.ID
	txID    engine.ID
}

type depths struct{ events, replies, sends, out int }

var defaultDepths = depths{events: 16, replies: 16, sends: 16, out: 16}

// must(f())(t) returns f's value or fails the test with its error.
func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

func addNIC(t testing.TB, e *engine.Engine, name string, rc RxConfig, tc TxConfig, flows *FlowTable, cc RxCC, d depths) *nic {
	t.Helper()
	n := &nic{in: engine.NewTimedQueue[Frame](name + ".in")}
	n.events = must(engine.NewFIFO[Event](name+".events", d.events))(t)
	n.replies = must(engine.NewFIFO[Reply](name+".replies", d.replies))(t)
	n.sends = must(engine.NewFIFO[PktSend](name+".sends", d.sends))(t)
	n.out = must(engine.NewFIFO[Frame](name+".out", d.out))(t)
	n.rx = must(NewRx(rc, flows, n.in, n.events, n.replies, cc))(t)
	n.tx = must(NewTx(tc, flows, n.sends, n.replies, n.out))(t)
	n.rxID = must(e.Add(name+".rx", n.rx))(t)
	n.txID = must(e.Add(name+".tx", n.tx))(t)
	for _, c := range []struct {
		q          engine.Queue
		prod, cons engine.ID
	}{{n.replies, n.rxID, n.txID}} {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// feed connects the Rx input queue to the test driver (NoID) and pushes the
// arrivals into it.
func (n *nic) feed(t testing.TB, e *engine.Engine, in []arrival) {
	t.Helper()
	if err := e.Connect(n.in, engine.NoID, n.rxID); err != nil {
		t.Fatal(err)
	}
	for _, a := range in {
		n.in.Push(0, a.at, Frame{Data: a.f})
	}
}

// attach registers a sink on the events FIFO and one on the out FIFO, and a
// driver for the sends FIFO; from sets when the sinks start popping.
func (n *nic) attach(t testing.TB, e *engine.Engine, name string, eventsFrom, outFrom engine.Cycle, script []stamped[PktSend]) (*sink[Event], *sink[Frame], *driver[PktSend]) {
	t.Helper()
	es := &sink[Event]{q: n.events, from: eventsFrom}
	fs := &sink[Frame]{q: n.out, from: outFrom}
	dr := &driver[PktSend]{q: n.sends, script: script}
	esID := must(e.Add(name+".cc", es))(t)
	fsID := must(e.Add(name+".mac", fs))(t)
	drID := must(e.Add(name+".sched", dr))(t)
	for _, c := range []struct {
		q          engine.Queue
		prod, cons engine.ID
	}{{n.events, n.rxID, esID}, {n.out, n.txID, fsID}, {n.sends, drID, n.txID}} {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			t.Fatal(err)
		}
	}
	return es, fs, dr
}

func newEngine(t testing.TB, noSkip bool) *engine.Engine {
	t.Helper()
	return must(engine.New(engine.Config{Freq: engine.GHz, NoSkip: noSkip}))(t)
}

// Addresses of the two test hosts.
var (
	pathAB = wire.Path{SrcMAC: wire.MAC{2, 0, 0, 0, 0, 0xA}, DstMAC: wire.MAC{2, 0, 0, 0, 0, 0xB},
		SrcIP: wire.IPv4Addr{10, 0, 0, 10}, DstIP: wire.IPv4Addr{10, 0, 0, 11}, DSCP: 26, ECN: wire.ECT0, TTL: 64, UDPSrcPort: 0xC001}
	pathBA = pathAB.Reverse()
)

// testFlows returns the flow table of host A (paths A->B) or B (paths
// B->A): flows 1, 2, 3, each with the same QPN on both hosts.
func testFlows(t testing.TB, reverse bool) *FlowTable {
	t.Helper()
	p := pathAB
	if reverse {
		p = pathBA
	}
	var fs []FlowContext
	for q := wire.QPN(1); q <= 3; q++ {
		pp := p
		pp.UDPSrcPort += uint16(q)
		fs = append(fs, FlowContext{QPN: q, RemoteQPN: q, Path: pp, PKey: wire.DefaultPKey})
	}
	return must(NewFlowTable(8, fs))(t)
}

// hopsFor returns n deterministic hop records for packet k of flow q in
// encoding enc: timestamps and counters grow with k, queues vary with q.
func hopsFor(t testing.TB, enc telemetry.Encoding, q wire.QPN, k, n int) []telemetry.Hop {
	t.Helper()
	hs := make([]telemetry.Hop, n)
	for i := range hs {
		h, err := telemetry.FromPhysical(enc, telemetry.Physical{SwitchID: uint32(10 + i), PortID: uint32(q),
			SpeedGbps: 100, TsNs: uint64(1000*k + 100*i), TxBytes: uint64(1100 * k), QlenBytes: uint64(800 * (int(q) + i))})
		if err != nil {
			t.Fatal(err)
		}
		hs[i] = h
	}
	return hs
}

// dataFrame builds a data packet of flow q (A->B) with PSN psn and payload
// bytes, carrying an INT request stamped with hops.
func dataFrame(t testing.TB, enc telemetry.Encoding, q wire.QPN, psn wire.PSN, payload int, ackReq bool, hops []telemetry.Hop) []byte {
	t.Helper()
	p := pathAB
	p.UDPSrcPort += uint16(q)
	f := must(wire.AppendData(nil, &wire.Data{Path: p, Opcode: wire.OpRCSendOnly,
		Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: q, PSN: psn, MigReq: true, AckReq: ackReq},
		INT:       wire.INTRequest{Enabled: true, Encoding: enc, MaxHops: 5}, Payload: make([]byte, payload)}))(t)
	for _, h := range hops {
		var err error
		if f, _, err = wire.PushHop(f, enc, h, 0); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// ackFrame builds an ACK of flow q (B->A) for PSN psn echoing hops.
func ackFrame(t testing.TB, enc telemetry.Encoding, q wire.QPN, psn wire.PSN, hops []telemetry.Hop) []byte {
	t.Helper()
	p := pathBA
	p.UDPSrcPort += uint16(q)
	return must(wire.AppendAck(nil, &wire.Ack{Path: p,
		Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: q, PSN: psn, MigReq: true},
		Syndrome:  wire.MakeSyndrome(wire.AckTypeACK, wire.CreditsInvalid), MSN: wire.MSN(psn),
		Echo: wire.Echo{Enabled: true, Encoding: enc, MaxHops: 5, Hops: hops}}))(t)
}

func decode(f []byte) *wire.Packet {
	var p wire.Packet
	wire.Decode(f, &p)
	return &p
}
