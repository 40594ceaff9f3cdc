package pipeline

import (
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// repeater pushes v into q once per cycle, n times.
type repeater[T any] struct {
	q    *engine.FIFO[T]
	v    func(i int) T
	i, n int
}

func (r *repeater[T]) Tick(now engine.Cycle) bool {
	if r.i < r.n && r.q.Push(now, r.v(r.i)) {
		r.i++
		return true
	}
	return false
}

func (r *repeater[T]) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// drain pops one item per cycle and discards it.
type drain[T any] struct {
	q *engine.FIFO[T]
	n int
}

func (d *drain[T]) Tick(now engine.Cycle) bool {
	if _, ok := d.q.Pop(now); ok {
		d.n++
		return true
	}
	return false
}

func (d *drain[T]) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// benchNIC wires one NIC whose Rx reads a FIFO fed by a repeater of frames
// and whose Tx reads a repeater of PktSends; sinks drain events and frames.
func benchNIC(b *testing.B, frames func(int) Frame, nf int, sends func(int) PktSend, ns int) (*engine.Engine, *nic) {
	e := newEngine(b, false)
	tc := DefaultTxConfig()
	flows := testFlows(b, true)
	in := must(engine.NewFIFO[Frame]("in", 16))(b)
	n := &nic{}
	n.events = must(engine.NewFIFO[Event]("events", 16))(b)
	n.replies = must(engine.NewFIFO[Reply]("replies", 16))(b)
	n.sends = must(engine.NewFIFO[PktSend]("sends", 16))(b)
	n.out = must(engine.NewFIFO[Frame]("out", 16))(b)
	n.rx = must(NewRx(DefaultRxConfig(), flows, in, n.events, n.replies, nil))(b)
	n.tx = must(NewTx(tc, flows, n.sends, n.replies, n.out))(b)
	src := &repeater[Frame]{q: in, v: frames, n: nf}
	cmd := &repeater[PktSend]{q: n.sends, v: sends, n: ns}
	es := &drain[Event]{q: n.events}
	fs := &drain[Frame]{q: n.out}
	srcID := must(e.Add("src", src))(b)
	cmdID := must(e.Add("cmd", cmd))(b)
	n.rxID = must(e.Add("rx", n.rx))(b)
	n.txID = must(e.Add("tx", n.tx))(b)
	esID := must(e.Add("cc", es))(b)
	fsID := must(e.Add("mac", fs))(b)
	for _, c := range []struct {
		q          engine.Queue
		prod, cons engine.ID
	}{{in, srcID, n.rxID}, {n.sends, cmdID, n.txID}, {n.replies, n.rxID, n.txID}, {n.events, n.rxID, esID}, {n.out, n.txID, fsID}} {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			b.Fatal(err)
		}
	}
	return e, n
}

// BenchmarkRxAckEvent: per received ACK echoing 5 IFA hops, through Rx
// (decode, ICRC, hop parse, event) into the HPCC++ module FIFO, one per
// cycle, engine and sink included. ns/op is per packet.
func BenchmarkRxAckEvent(b *testing.B) {
	enc := telemetry.IFA
	f := Frame{Data: ackFrame(b, enc, 1, 7, hopsFor(b, enc, 1, 3, 5))}
	b.ReportAllocs()
	e, n := benchNIC(b, func(int) Frame { return f }, b.N, nil, 0)
	b.ResetTimer()
	e.RunUntilIdle(engine.Cycle(b.N) + 100)
	if c := n.rx.Counters(); c.Events != uint64(b.N) {
		b.Fatalf("%d events, want %d", c.Events, b.N)
	}
}

// BenchmarkReceiverAck: per received data packet (1 KiB, 5 IFA hops)
// through Rx -> Tx -> an ACK frame echoing the hops, one per cycle. ns/op is
// per packet.
func BenchmarkReceiverAck(b *testing.B) {
	enc := telemetry.IFA
	f := Frame{Data: dataFrame(b, enc, 1, 7, 1024, false, hopsFor(b, enc, 1, 3, 5))}
	b.ReportAllocs()
	e, n := benchNIC(b, func(int) Frame { return f }, b.N, nil, 0)
	b.ResetTimer()
	e.RunUntilIdle(engine.Cycle(b.N) + 100)
	if c := n.tx.Counters(); c.Frames[FrameAck] != uint64(b.N) {
		b.Fatalf("%d ACKs, want %d", c.Frames[FrameAck], b.N)
	}
}

// BenchmarkTxData: per PktSend (1 KiB payload, INT request) through Tx into
// the MAC FIFO, one per cycle. ns/op is per packet.
func BenchmarkTxData(b *testing.B) {
	b.ReportAllocs()
	e, n := benchNIC(b, nil, 0, func(i int) PktSend {
		return PktSend{Flow: wire.QPN(1 + i%3), PSN: wire.PSN(i).Wrap(), Bytes: 1024}
	}, b.N)
	b.ResetTimer()
	e.RunUntilIdle(engine.Cycle(b.N) + 100)
	if c := n.tx.Counters(); c.Frames[FrameData] != uint64(b.N) {
		b.Fatalf("%d frames, want %d", c.Frames[FrameData], b.N)
	}
}
