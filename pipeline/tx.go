package pipeline

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Tx is the Tx pipeline of Figure 4 (HPCC++ section 7.2): an engine
// component that turns PktSend commands from the scheduler and Replies from
// the Rx pipeline into frames, through two stages, into the MAC FIFO.
//
// Per cycle it starts at most one frame, choosing in strict priority: (1) an
// ACK whose delayed-ACK timer expired, (2) the reply at the head of the
// reply FIFO, (3) the PktSend at the head of the command FIFO. Replies and
// timer ACKs go first because they carry the feedback other senders'
// congestion control waits for; a reply that only updates the delayed-ACK
// state (no frame) is absorbed without using the frame slot, at most one
// reply per cycle.
//
// Receiver-side ACK policy, per flow: every data reply increments the
// flow's pending count and records its PSN, CE mark and telemetry; an ACK
// (PSN = the latest received PSN, MSN = messages completed, BECN = CE seen
// since the last ACK, echo = the latest packet's telemetry) goes out when
// pending reaches AckEvery, when the data packet had the A bit, or when the
// flow's timer (AckTimeout cycles after its first pending packet) expires. A
// reply with Notify (Rx-HPCC) sends a notification instead, which also
// acknowledges everything pending (slides: notifications "acknowledg[e] the
// received packets, thus eliminating the need for ACKs").
//
// The "build" stage stands for reading the QP context and writing the
// headers, the "egress" stage for checksum/ICRC insertion; the model computes
// the frame bytes (all of them, ICRC included) when the entry enters
// "build", and the stages give the timing.
type Tx struct {
	cfg     TxConfig
	flows   *FlowTable
	sends   *engine.FIFO[PktSend]
	replies *engine.FIFO[Reply]
	out     *engine.FIFO[Frame]

	build  stage[txFrame]
	egress stage[txFrame]
	ack    []ackState // per QPN slot of the flow table
	timers []ackTimer // armed delayed-ACK timers in deadline order (may hold stale entries)
	thead  int        // index of the first live entry of timers
	zero   []byte     // MTU zero bytes: the payload of data packets
	// replyStalled / sendStalled: the head reply / PktSend has had its
	// command stall counted.
	replyStalled, sendStalled bool
	cnt                       TxCounters
	bufs                      *engine.Buffers // nil: frames are allocated
}

type txFrame struct {
	data []byte
	kind FrameKind
}

// ackState is the receiver-side ACK context of one flow.
type ackState struct {
	pending  int          // data packets received and not yet acknowledged
	psn      wire.PSN     // PSN of the latest data packet
	msn      wire.MSN     // messages completed, 24-bit wrapping (AETH MSN)
	ce       bool         // a data packet since the last ACK arrived with CE
	deadline engine.Cycle // delayed-ACK deadline while pending > 0 and the timer is on; engine.Never otherwise
	echo     Reply        // telemetry of the latest data packet
}

type ackTimer struct {
	flow     wire.QPN
	deadline engine.Cycle
}

// NewTx returns a Tx pipeline reading PktSend commands and Rx replies and
// writing frames to out (the MAC FIFO). Its per-flow ACK state has one entry
// per QPN slot of flows (flows.Size()), so size the table to the flows in
// use. The caller registers it with the engine and connects the queues (Tx
// is the consumer of sends and replies, the producer of out).
func NewTx(cfg TxConfig, flows *FlowTable, sends *engine.FIFO[PktSend], replies *engine.FIFO[Reply], out *engine.FIFO[Frame]) (*Tx, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if flows == nil || sends == nil || replies == nil || out == nil {
		return nil, fmt.Errorf("pipeline: NewTx: flows, sends, replies and out are required")
	}
	t := &Tx{cfg: cfg, flows: flows, sends: sends, replies: replies, out: out,
		build: newStage[txFrame](cfg.Build), egress: newStage[txFrame](cfg.Egress),
		ack: make([]ackState, flows.Size()), zero: make([]byte, cfg.MTU)}
	for i := range t.ack {
		t.ack[i].deadline = engine.Never
	}
	return t, nil
}

// Counters returns a copy of the status registers.
func (t *Tx) Counters() TxCounters { return t.cnt }

// UseBuffers makes Tx take the buffer of every frame it builds from b
// (b.Get) instead of allocating it. The frames it outputs still belong to
// their consumer, which may release them to b when done ([Rx.ReleaseTo]).
// nil (the default) allocates every frame.
func (t *Tx) UseBuffers(b *engine.Buffers) { t.bufs = b }

// Levels returns the number of entries in the build and egress stages.
func (t *Tx) Levels() (build, egress int) { return t.build.level(), t.egress.level() }

// Pending returns the number of unacknowledged data packets of flow q on the
// receiver side (0 for an unknown flow).
func (t *Tx) Pending(q wire.QPN) int {
	if int(q) >= len(t.ack) {
		return 0
	}
	return t.ack[q].pending
}

// Tick executes cycle now: egress output, build -> egress, then new work.
func (t *Tx) Tick(now engine.Cycle) bool {
	progress := t.tickEgress(now)
	progress = t.tickBuild(now) || progress
	progress = t.tickStart(now) || progress
	return progress
}

// NextWake returns the earliest of the stage heads still in flight and the
// next live delayed-ACK deadline.
func (t *Tx) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	a, aok := t.build.nextReady(now)
	b, bok := t.egress.nextReady(now)
	w, wok := minWake(a, aok, b, bok)
	t.dropStaleTimers()
	if t.thead < len(t.timers) {
		if d := t.timers[t.thead].deadline; d > now {
			w, wok = minWake(w, wok, d, true)
		}
	}
	return w, wok
}

// SleepUntil (engine.Sleeper), asked after a Tick that made progress:
// the next cycle while a reply or PktSend is waiting, else the earliest of
// the stage heads' ready cycles and the next live delayed-ACK deadline
// (each at least the next cycle).
func (t *Tx) SleepUntil(now engine.Cycle) (engine.Cycle, bool) {
	if t.replies.Len() > 0 || t.sends.Len() > 0 {
		return now + 1, true
	}
	a, aok := t.build.wakeAt(now)
	b, bok := t.egress.wakeAt(now)
	w, wok := minWake(a, aok, b, bok)
	t.dropStaleTimers()
	if t.thead < len(t.timers) {
		w, wok = minWake(w, wok, max(t.timers[t.thead].deadline, now+1), true)
	}
	return w, wok
}

func (t *Tx) tickEgress(now engine.Cycle) bool {
	sl, ok := t.egress.front(now)
	if !ok {
		return false
	}
	f := &sl.v
	switch {
	case t.out.Push(now, Frame{Data: f.data}):
		t.cnt.Frames[f.kind]++
		t.cnt.Bytes += uint64(len(f.data))
	case t.cfg.EgressFull == Drop:
		t.cnt.Drops[DropEgressFull]++
	default:
		if sl.stalled {
			return false
		}
		sl.stalled = true
		t.cnt.Stalls[StallEgress]++
		return true
	}
	t.egress.pop()
	return true
}

func (t *Tx) tickBuild(now engine.Cycle) bool {
	sl, ok := t.build.front(now)
	if !ok {
		return false
	}
	if !t.egress.canPush(now) {
		if sl.stalled {
			return false
		}
		sl.stalled = true
		t.cnt.Stalls[StallBuild]++
		return true
	}
	*t.egress.push(now) = sl.v
	t.build.pop()
	return true
}

// tickStart starts at most one frame and absorbs at most one reply.
func (t *Tx) tickStart(now engine.Cycle) bool {
	progress := false
	room := t.build.canPush(now)
	// (1) expired delayed-ACK timer.
	t.dropStaleTimers()
	if room && t.thead < len(t.timers) && t.timers[t.thead].deadline <= now {
		q := t.timers[t.thead].flow
		t.thead++
		t.cnt.AckTimeouts++
		t.startAck(now, q, false)
		room, progress = false, true
	}
	// (2) one reply (read in place: a Reply is large).
	if r := t.replies.Front(now); r != nil && !t.knownFlow(r.Flow) {
		t.replies.Discard(now)
		t.cnt.Replies++
		t.cnt.Drops[DropUnknownFlow]++
		t.replyStalled = false
		progress = true
	} else if r != nil {
		st := &t.ack[r.Flow]
		needsFrame := r.Kind == ReplyProbe || r.Notify ||
			(t.cfg.AckEvery > 0 && (st.pending+1 >= t.cfg.AckEvery || r.AckReq))
		switch {
		case !needsFrame || room:
			t.cnt.Replies++
			t.replyStalled = false
			t.takeReply(now, r, needsFrame)
			t.replies.Discard(now)
			if needsFrame {
				room = false
			}
			progress = true
		case !t.replyStalled:
			t.replyStalled = true
			t.cnt.Stalls[StallCommand]++
			progress = true
		}
	}
	// (3) one PktSend.
	if c, ok := t.sends.Peek(now); ok {
		switch {
		case room:
			c, _ = t.sends.Pop(now)
			t.cnt.Commands++
			t.sendStalled = false
			if t.startSend(now, &c) {
				room = false
			}
			progress = true
		case !t.sendStalled:
			t.sendStalled = true
			t.cnt.Stalls[StallCommand]++
			progress = true
		}
	}
	return progress
}

// knownFlow reports whether q is a flow of the table (Rx forwards only
// those, but the reply FIFO is an interface other drivers may use).
func (t *Tx) knownFlow(q wire.QPN) bool {
	_, ok := t.flows.Lookup(q)
	return ok
}

// dropStaleTimers advances past timer entries whose flow was acknowledged
// (or re-armed) since they were queued, and compacts the slice.
func (t *Tx) dropStaleTimers() {
	for t.thead < len(t.timers) {
		e := t.timers[t.thead]
		if st := &t.ack[e.flow]; st.pending > 0 && st.deadline == e.deadline {
			break
		}
		t.thead++
	}
	if t.thead == len(t.timers) {
		t.timers, t.thead = t.timers[:0], 0
	} else if t.thead > 1024 && t.thead*2 > len(t.timers) {
		n := copy(t.timers, t.timers[t.thead:])
		t.timers, t.thead = t.timers[:n], 0
	}
}

// takeReply applies one reply; needsFrame was computed by the caller with
// the same rule, and the caller guaranteed build room when it is true.
func (t *Tx) takeReply(now engine.Cycle, r *Reply, needsFrame bool) {
	if r.Kind == ReplyProbe {
		t.startProbeReply(now, r)
		return
	}
	st := &t.ack[r.Flow]
	st.pending++
	st.psn = r.PSN
	if r.EndMsg {
		st.msn = st.msn.Add(1)
	}
	st.ce = st.ce || r.CE
	st.echo = *r
	switch {
	case r.Notify:
		t.startAck(now, r.Flow, true)
	case needsFrame:
		t.startAck(now, r.Flow, false)
	default:
		t.cnt.Coalesced++
		if st.pending == 1 && t.cfg.AckTimeout > 0 && t.cfg.AckEvery > 0 {
			st.deadline = now + engine.Cycle(t.cfg.AckTimeout)
			t.timers = append(t.timers, ackTimer{flow: r.Flow, deadline: st.deadline})
		}
	}
}

// startAck builds an ACK (or, with notify, an Rx-HPCC notification) that
// acknowledges everything pending on flow q, and clears the pending state.
func (t *Tx) startAck(now engine.Cycle, q wire.QPN, notify bool) {
	st := &t.ack[q]
	ctx, _ := t.flows.Lookup(q)
	tr := wire.Transport{PKey: ctx.PKey, DestQP: ctx.RemoteQPN, PSN: st.psn, MigReq: true, BECN: st.ce}
	syn := wire.MakeSyndrome(wire.AckTypeACK, wire.CreditsInvalid)
	var data []byte
	var err error
	kind := FrameAck
	if notify {
		kind = FrameNotify
		data, err = wire.AppendNotify(t.alloc(0), &wire.Notify{Path: ctx.Path, Transport: tr, Syndrome: syn,
			MSN: st.msn, Window: st.echo.Window})
	} else {
		a := wire.Ack{Path: ctx.Path, Transport: tr, Syndrome: syn, MSN: st.msn}
		if e := &st.echo; e.HasINT {
			a.Echo = wire.Echo{Enabled: true, Encoding: e.Encoding, MaxHops: e.MaxHops, Exceeded: e.Exceeded, Hops: e.Hops[:e.NHops]}
		}
		data, err = wire.AppendAck(t.alloc(len(a.Echo.Hops)*a.Echo.Encoding.HopSize()), &a)
	}
	st.pending, st.ce, st.deadline = 0, false, engine.Never
	t.enterBuild(now, data, kind, err)
}

func (t *Tx) startProbeReply(now engine.Cycle, r *Reply) {
	ctx, _ := t.flows.Lookup(r.Flow)
	pr := wire.ProbeReply{Path: ctx.Path, Transport: wire.Transport{PKey: ctx.PKey, DestQP: ctx.RemoteQPN, PSN: r.PSN, MigReq: true},
		Echo: wire.Echo{Enabled: true, Encoding: r.Encoding, MaxHops: r.MaxHops, Exceeded: r.Exceeded, Hops: r.Hops[:r.NHops]}}
	data, err := wire.AppendProbeReply(t.alloc(r.NHops*r.Encoding.HopSize()), &pr)
	t.enterBuild(now, data, FrameProbeReply, err)
}

// startSend builds the frame of a PktSend; it reports whether a frame
// entered the build stage (false: the command was dropped and counted).
func (t *Tx) startSend(now engine.Cycle, c *PktSend) bool {
	ctx, ok := t.flows.Lookup(c.Flow)
	if !ok {
		t.cnt.Drops[DropUnknownFlow]++
		return false
	}
	tr := wire.Transport{PKey: ctx.PKey, DestQP: ctx.RemoteQPN, PSN: c.PSN, MigReq: true, AckReq: c.AckReq}
	req := wire.INTRequest{Enabled: true, Encoding: t.cfg.Encoding, MaxHops: t.cfg.MaxHops}
	room := t.cfg.MaxHops * t.cfg.Encoding.HopSize() // switches push without reallocating
	switch {
	case c.Kind == SendData && int64(c.Bytes) <= int64(t.cfg.MTU):
		if !t.cfg.INTOnData {
			req, room = wire.INTRequest{}, 0
		}
		data, err := wire.AppendData(t.alloc(room+int(c.Bytes)), &wire.Data{Path: ctx.Path, Opcode: wire.OpRCSendOnly,
			Transport: tr, INT: req, Payload: t.zero[:c.Bytes]})
		return t.enterBuild(now, data, FrameData, err)
	case c.Kind == SendProbe && c.Bytes == 0:
		tr.AckReq = false
		data, err := wire.AppendProbe(t.alloc(room), &wire.Probe{Path: ctx.Path, Transport: tr, INT: req})
		return t.enterBuild(now, data, FrameProbe, err)
	}
	t.cnt.Drops[DropBadCommand]++
	return false
}

// frameOverhead bounds the bytes of every header, shim, notify body, pad
// and ICRC of one frame (Ethernet+VLAN 18, IPv4 20, UDP 8, BTH 12, AETH 4,
// shim 8, notify body 8, pad 3, ICRC 4, Ethernet minimum padding).
const frameOverhead = 96

// alloc returns an empty slice with room for every header plus extra bytes
// (hop records, payload, room for switches to push records).
func (t *Tx) alloc(extra int) []byte {
	if t.bufs != nil {
		return t.bufs.Get(frameOverhead + extra)
	}
	return make([]byte, 0, frameOverhead+extra)
}

// enterBuild puts a built frame into the build stage (the caller checked
// room). A build error cannot happen with a validated config, flow table and
// decoded replies; if one does, the frame is dropped as a bad command.
func (t *Tx) enterBuild(now engine.Cycle, data []byte, kind FrameKind, err error) bool {
	if err != nil {
		t.cnt.Drops[DropBadCommand]++
		return false
	}
	*t.build.push(now) = txFrame{data: data, kind: kind}
	return true
}

// interface checks
var (
	_ engine.Component = (*Tx)(nil)
	_ engine.Component = (*Rx)(nil)
	_ engine.Sleeper   = (*Tx)(nil)
	_ engine.Sleeper   = (*Rx)(nil)
)
