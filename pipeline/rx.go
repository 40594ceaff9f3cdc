package pipeline

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Rx is the Rx pipeline of Figure 4 (HPCC++ section 7.2): an engine
// component that takes at most one frame per cycle from its input queue
// through two stages and emits one Event (to the HPCC++ module) or one Reply
// (to the Tx pipeline) per accepted packet.
//
// Stage "parse" runs wire.Decode (every check of docs/wire.md, including the
// ICRC and the hop records). When a frame leaves it, malformed frames and
// frames for unknown flows are dropped and counted; ACKs, notifications and
// probe replies become an Event; data packets and probes become a Reply
// (data packets carrying telemetry first go through the RxCC hook, if any,
// which may turn the reply into a notification request). Stage "dispatch"
// holds the Event or Reply for its latency and pushes it into its FIFO.
type Rx struct {
	cfg     RxConfig
	flows   *FlowTable
	in      FrameSource
	events  *engine.FIFO[Event]
	replies *engine.FIFO[Reply]
	cc      RxCC

	parse    stage[rxParsed]
	dispatch stage[rxOut]
	// inStalled: the frame at the head of the input queue has had its
	// ingress stall counted.
	inStalled bool
	cnt       RxCounters
	bufs      *engine.Buffers // nil: frames are not released
}

type rxParsed struct {
	pkt     wire.Packet
	arrival engine.Cycle
}

type rxOut struct {
	toCC bool
	ev   Event
	rp   Reply
}

// NewRx returns an Rx pipeline reading frames from in and writing events to
// the HPCC++ module's input FIFO and replies to the Tx pipeline's reply FIFO.
// cc may be nil (no receiver-based HPCC). The caller registers the
// component with the engine and connects the queues (engine.Connect) with
// Rx as the consumer of in and the producer of events and replies, so that
// input wakes it and a freed output slot ends a back-pressure stall.
func NewRx(cfg RxConfig, flows *FlowTable, in FrameSource, events *engine.FIFO[Event], replies *engine.FIFO[Reply], cc RxCC) (*Rx, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if flows == nil || in == nil || events == nil || replies == nil {
		return nil, fmt.Errorf("pipeline: NewRx: flows, in, events and replies are required")
	}
	return &Rx{cfg: cfg, flows: flows, in: in, events: events, replies: replies, cc: cc,
		parse: newStage[rxParsed](cfg.Parse), dispatch: newStage[rxOut](cfg.Dispatch)}, nil
}

// Counters returns a copy of the status registers.
func (r *Rx) Counters() RxCounters { return r.cnt }

// ReleaseTo makes Rx the owner of every frame it takes from its input: once
// a frame has left the parse stage (or was dropped at ingress), Rx hands its
// Data to b.Put for reuse (typically by a Tx pipeline of the same engine,
// [Tx.UseBuffers]). The input's producer must then neither keep nor touch a
// frame's Data after pushing it. Nothing Rx emits refers to the frame (events
// and replies hold copies of the fields and hop records). nil (the default)
// releases nothing.
func (r *Rx) ReleaseTo(b *engine.Buffers) { r.bufs = b }

// release hands a consumed frame's buffer back, when releasing is on.
func (r *Rx) release(data []byte) {
	if r.bufs != nil {
		r.bufs.Put(data)
	}
}

// Levels returns the number of entries in the parse and dispatch stages
// (for waveforms).
func (r *Rx) Levels() (parse, dispatch int) { return r.parse.level(), r.dispatch.level() }

// Tick executes cycle now: dispatch output, parse -> dispatch, input ->
// parse, in that order (last stage first).
func (r *Rx) Tick(now engine.Cycle) bool {
	progress := r.tickDispatch(now)
	progress = r.tickParse(now) || progress
	progress = r.tickIngress(now) || progress
	return progress
}

// NextWake returns the ready cycle of a stage head still in flight. Input
// arriving and output FIFOs being popped wake Rx through the queues.
func (r *Rx) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	a, aok := r.parse.nextReady(now)
	b, bok := r.dispatch.nextReady(now)
	return minWake(a, aok, b, bok)
}

// SleepUntil (engine.Sleeper), asked after a Tick that made progress:
// the next cycle while input is waiting, else the earlier stage head's
// ready cycle (at least the next cycle).
func (r *Rx) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if r.in.CanPop(now + 1) { // read-only: what the next cycle will see
		return now + 1, true
	}
	a, aok := r.parse.wakeAt(now)
	b, bok := r.dispatch.wakeAt(now)
	return minWake(a, aok, b, bok)
}

func (r *Rx) tickDispatch(now engine.Cycle) bool {
	sl, ok := r.dispatch.front(now)
	if !ok {
		return false
	}
	o := &sl.v
	var pushed bool
	if o.toCC {
		pushed = r.events.Push(now, o.ev)
	} else {
		pushed = r.replies.Push(now, o.rp)
	}
	switch {
	case pushed:
		if o.toCC {
			r.cnt.Events++
		} else {
			r.cnt.Replies++
		}
	case r.cfg.OutputFull == Drop:
		if o.toCC {
			r.cnt.Drops[DropEventFull]++
		} else {
			r.cnt.Drops[DropReplyFull]++
		}
	default: // BackPressure
		if sl.stalled {
			return false
		}
		sl.stalled = true
		if o.toCC {
			r.cnt.Stalls[StallEvent]++
		} else {
			r.cnt.Stalls[StallReply]++
		}
		return true
	}
	r.dispatch.pop()
	return true
}

func (r *Rx) tickParse(now engine.Cycle) bool {
	sl, ok := r.parse.front(now)
	if !ok {
		return false
	}
	p := &sl.v.pkt
	if p.Class == wire.ClassMalformed {
		r.cnt.Class[wire.ClassMalformed]++
		r.cnt.Malformed[p.Reason]++
		r.cnt.Drops[DropMalformed]++
		r.release(p.Frame)
		r.parse.pop()
		return true
	}
	if _, ok := r.flows.Lookup(p.DestQP); !ok {
		r.cnt.Class[p.Class]++
		r.cnt.Drops[DropUnknownFlow]++
		r.release(p.Frame)
		r.parse.pop()
		return true
	}
	if !r.dispatch.canPush(now) {
		if sl.stalled {
			return false
		}
		sl.stalled = true
		r.cnt.Stalls[StallParse]++
		return true
	}
	r.cnt.Class[p.Class]++
	if p.HasINT {
		r.cnt.WithINT++
	}
	o := r.dispatch.push(now)
	switch p.Class {
	case wire.ClassAck, wire.ClassNotify, wire.ClassProbeReply:
		o.toCC = true
		r.fillEvent(&o.ev, p, sl.v.arrival)
	default: // ClassData, ClassProbe
		o.toCC = false
		r.fillReply(now, &o.rp, p, sl.v.arrival)
	}
	r.release(p.Frame)
	r.parse.pop()
	return true
}

func (r *Rx) fillEvent(e *Event, p *wire.Packet, arrival engine.Cycle) {
	*e = Event{Flow: p.DestQP, PSN: p.PSN, ECNEcho: p.BECN, Arrival: arrival}
	switch p.Class {
	case wire.ClassAck:
		e.Kind = EventAck
	case wire.ClassNotify:
		e.Kind, e.Window = EventNotify, p.Window
	default:
		e.Kind = EventProbeReply
	}
	if p.AETHOff >= 0 {
		e.MSN, e.Syndrome = p.MSN, p.Syndrome
	}
	if p.HasINT && p.INT.Kind == wire.KindEcho {
		e.HasINT, e.Encoding, e.Exceeded, e.NHops = true, p.INT.Encoding, p.INT.Exceeded, p.INT.HopCount
		copy(e.Hops[:], p.HopList())
	}
}

func (r *Rx) fillReply(now engine.Cycle, rp *Reply, p *wire.Packet, arrival engine.Cycle) {
	*rp = Reply{Kind: ReplyData, Flow: p.DestQP, PSN: p.PSN, AckReq: p.AckReq, CE: p.ECN == wire.CE, Arrival: arrival,
		EndMsg: p.Opcode == wire.OpRCSendOnly || p.Opcode == wire.OpRCSendLast}
	if p.Class == wire.ClassProbe {
		rp.Kind, rp.AckReq, rp.EndMsg = ReplyProbe, false, false
	}
	if p.HasINT {
		rp.HasINT, rp.Encoding, rp.MaxHops, rp.Exceeded, rp.NHops = true, p.INT.Encoding, p.INT.MaxHops, p.INT.Exceeded, p.INT.HopCount
		copy(rp.Hops[:], p.HopList())
	}
	if r.cc != nil && rp.Kind == ReplyData && p.HasINT {
		r.cnt.CCCalls++
		if notify, w := r.cc.OnTelemetry(now, p.DestQP, p.PSN, p.INT.Encoding, p.HopList()); notify {
			rp.Notify, rp.Window = true, w
			r.cnt.Notifies++
		}
	}
}

func (r *Rx) tickIngress(now engine.Cycle) bool {
	if !r.in.CanPop(now) {
		return false
	}
	if !r.parse.canPush(now) {
		if r.cfg.IngressFull == BackPressure {
			if r.inStalled {
				return false
			}
			r.inStalled = true
			r.cnt.Stalls[StallIngress]++
			return true
		}
		f, _ := r.in.Pop(now)
		r.cnt.Frames++
		r.cnt.Bytes += uint64(len(f.Data))
		r.cnt.Drops[DropIngressFull]++
		r.inStalled = false
		r.release(f.Data)
		return true
	}
	f, _ := r.in.Pop(now)
	r.inStalled = false
	r.cnt.Frames++
	r.cnt.Bytes += uint64(len(f.Data))
	sl := r.parse.push(now)
	sl.arrival = now
	wire.Decode(f.Data, &sl.pkt)
	return true
}
