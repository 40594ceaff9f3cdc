package network

import (
	"math/rand/v2"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// arrival is a frame in flight to a switch: it becomes visible at the
// cycle it joins its egress queue (last bit arrived + forwarding latency).
type arrival struct {
	port  uint16 // ingress port
	frame []byte
}

// PortCounters are one egress port's status registers (64-bit, wrapping).
type PortCounters struct {
	TxFrames    uint64       // frames serialized
	TxBytes     uint64       // their bytes (frame length without FCS, after any hop record was pushed)
	TxWireBytes uint64       // TxBytes + MAC overhead per frame: the telemetry txBytes counter
	RxFrames    uint64       // frames routed to this port (enqueued or dropped)
	Drops       uint64       // frames dropped at enqueue (buffer, shared buffer or Not-ECT threshold)
	DropBytes   uint64       // their bytes
	BufferDrops uint64       // of Drops: the port or shared buffer was full
	NotECTDrops uint64       // of Drops: Not-ECT packet at or above switch.ecn.drop_not_ect_bytes
	ECNMarks    uint64       // packets marked CE at enqueue
	Stamped     uint64       // hop records pushed (wire.PushHop returned Pushed)
	Exceeded    uint64       // packets whose hop limit or MTU stopped the push (E flag set)
	StampErrors uint64       // PushHop errors (a frame that did not decode or requested another encoding); forwarded unstamped
	MaxQBytes   uint64       // high-water mark of the queue, bytes
	MaxQAt      engine.Cycle // first cycle it was reached
	// FirstTxNs and LastEndNs bound the port's busy period: the instant the
	// first frame started serialization and the instant the last frame's
	// last bit left, ns (floor); both 0 before the first frame.
	FirstTxNs, LastEndNs uint64
}

// SwitchCounters are a switch's status registers outside its ports.
type SwitchCounters struct {
	Arrivals  uint64 // frames taken from the ingress
	Malformed uint64 // frames that are not IPv4 with a 20-byte header (dropped)
	NoRoute   uint64 // frames for an address that is not a host of the network (dropped)
	MaxShared uint64 // high-water mark of the sum of egress queues, bytes
}

// queued is a frame waiting in an egress queue.
type queued struct {
	frame   []byte
	wantINT bool   // parsed at enqueue: the frame requests a hop record
	ect     bool   // ECN-capable at arrival (marked at dequeue with ECNConfig.MarkAtDequeue)
	ipOff   uint16 // offset of its IPv4 header
}

// fifo is an unbounded ring of frames (its bound is the byte limit the
// switch enforces at enqueue).
type fifo struct {
	buf        []queued
	head, size int
}

func (q *fifo) push(e queued) {
	if q.size == len(q.buf) {
		n := max(16, 2*len(q.buf))
		nb := make([]queued, n)
		for i := 0; i < q.size; i++ {
			nb[i] = q.buf[(q.head+i)&(len(q.buf)-1)]
		}
		q.buf, q.head = nb, 0
	}
	q.buf[(q.head+q.size)&(len(q.buf)-1)] = e
	q.size++
}

func (q *fifo) pop() queued {
	e := q.buf[q.head]
	q.buf[q.head] = queued{}
	q.head = (q.head + 1) & (len(q.buf) - 1)
	q.size--
	return e
}

// peer is where an egress port delivers: a host NIC's input or another
// switch's ingress.
type peer struct {
	host  *engine.TimedQueue[pipeline.Frame]
	sw    *engine.TimedQueue[arrival]
	swIn  uint16 // ingress port number at the peer switch
	swIdx int    // the peer switch's index
	delay uint64 // propagation + the peer switch's forwarding latency, fs
}

// port is an egress port.
type port struct {
	num    uint16
	name   string
	gbps   uint32
	bps    uint64
	to     peer
	q      fifo
	qBytes uint64
	busy   uint64 // instant (fs) the transmitter finishes the frame it is sending
	active bool   // in the switch's active list
	cnt    PortCounters
	log    *QueueLog
}

// Switch is an output-queued store-and-forward switch as one engine
// component. Frames arrive through one ingress TimedQueue (every link into
// the switch pushes into it, visible at the cycle the frame joins its
// egress queue); the switch routes each (ECMP by flow hash among the
// shortest paths), applies the buffer limits and WRED/ECN at enqueue, and
// serializes each egress queue at its port's line rate. At the instant a
// frame starts serialization the port takes one snapshot (HPCC++ draft
// section 6.1: ts, txBytes and qlen are sampled together at egress) and,
// with INT on, pushes a hop record (wire.PushHop) holding:
//
//	ts      = that instant, ns (floor of the femtosecond time)
//	txBytes = the port's TxWireBytes before this frame (frame bytes + MAC overhead of every frame sent before)
//	qlen    = the bytes left in the egress queue after this frame left it
//	B       = the port's line rate (speed code)
//	switch  = the switch's device ID, port = the egress port number (IFA)
//
// as the HPCC authors' ns-3 switch does at dequeue (txBytes before the
// packet, queue after it). The frame reaches the peer at start +
// serialization + propagation delay (+ the peer switch's forwarding
// latency). Nothing runs between events: the engine wakes the switch when
// a frame arrives and when a busy port can start its next frame.
type Switch struct {
	id     uint32
	name   string
	cfg    *Config
	clk    clock
	in     *engine.TimedQueue[arrival]
	ports  []port
	routes [][]uint16 // by host index: egress ports on shortest paths (ascending)
	salt   uint32
	rng    *rand.Rand
	shared uint64
	active []uint16
	cnt    SwitchCounters
	ovh    uint64
	pmax32 uint64
	engID  engine.ID
}

// ID returns the switch's device ID (the IFA deviceID it stamps).
func (s *Switch) ID() uint32 { return s.id }

// Name returns the switch's name.
func (s *Switch) Name() string { return s.name }

// Ports returns the number of ports.
func (s *Switch) Ports() int { return len(s.ports) }

// Counters returns the switch-wide counters.
func (s *Switch) Counters() SwitchCounters { return s.cnt }

// Port returns port p's counters and its current queue length in bytes.
func (s *Switch) Port(p int) (PortCounters, uint64) {
	if p < 0 || p >= len(s.ports) {
		return PortCounters{}, 0
	}
	return s.ports[p].cnt, s.ports[p].qBytes
}

// PortName returns port p's name ("<switch>.p<n>-><peer>").
func (s *Switch) PortName(p int) string {
	if p < 0 || p >= len(s.ports) {
		return ""
	}
	return s.ports[p].name
}

// PortGbps returns port p's line rate.
func (s *Switch) PortGbps(p int) uint32 {
	if p < 0 || p >= len(s.ports) {
		return 0
	}
	return s.ports[p].gbps
}

// QueueBytes returns port p's current egress queue length, bytes.
func (s *Switch) QueueBytes(p int) uint64 {
	if p < 0 || p >= len(s.ports) {
		return 0
	}
	return s.ports[p].qBytes
}

// Tick takes every frame that joins an egress queue in this cycle, then
// starts serialization on every port that is free during this cycle.
func (s *Switch) Tick(now engine.Cycle) bool {
	progress := false
	for {
		a, ok := s.in.Pop(now)
		if !ok {
			break
		}
		progress = true
		s.enqueue(now, a.frame)
	}
	end := s.clk.start(now + 1) // a port free before this instant starts its next frame in this cycle
	for i := 0; i < len(s.active); {
		p := &s.ports[s.active[i]]
		for p.q.size > 0 && p.busy < end {
			s.transmit(now, p)
			progress = true
		}
		if p.q.size == 0 {
			p.active = false
			last := len(s.active) - 1
			s.active[i] = s.active[last]
			s.active = s.active[:last]
			continue
		}
		i++
	}
	return progress
}

// NextWake returns the cycle in which the earliest busy port with a
// non-empty queue becomes free.
func (s *Switch) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	w := engine.Never
	for _, i := range s.active {
		w = min(w, s.clk.at(s.ports[i].busy))
	}
	if w == engine.Never {
		return w, false
	}
	return max(w, now+1), true
}

// enqueue routes one frame and admits it to its egress queue.
func (s *Switch) enqueue(now engine.Cycle, f []byte) {
	s.cnt.Arrivals++
	h, ok := parse(f)
	if !ok {
		s.cnt.Malformed++
		return
	}
	hi := int(h.dst - hostIPBase)
	if h.dst < hostIPBase || hi >= len(s.routes) || len(s.routes[hi]) == 0 {
		s.cnt.NoRoute++
		return
	}
	cand := s.routes[hi]
	pi := cand[0]
	if len(cand) > 1 {
		pi = cand[flowHash(s.salt, h.src, h.dst, h.sport, h.dport)%uint32(len(cand))]
	}
	p := &s.ports[pi]
	p.cnt.RxFrames++
	n := uint64(len(f))
	sw := &s.cfg.Switch
	if p.qBytes+n > sw.BufferBytes || (sw.SharedBufferBytes != 0 && s.shared+n > sw.SharedBufferBytes) {
		p.cnt.Drops++
		p.cnt.BufferDrops++
		p.cnt.DropBytes += n
		return
	}
	ect := h.ecn == wire.ECT0 || h.ecn == wire.ECT1
	if e := &sw.ECN; e.Enabled {
		q := p.qBytes
		if ect {
			if !e.MarkAtDequeue && s.mark(q) {
				wire.IPv4(f[h.ipOff:]).SetECN(wire.CE)
				p.cnt.ECNMarks++
			}
		} else if h.ecn == wire.NotECT && e.DropNotECTBytes > 0 && q >= e.DropNotECTBytes {
			p.cnt.Drops++
			p.cnt.NotECTDrops++
			p.cnt.DropBytes += n
			return
		}
	}
	p.q.push(queued{frame: f, wantINT: h.wantINT, ect: ect, ipOff: uint16(h.ipOff)})
	p.qBytes += n
	s.shared += n
	if p.qBytes > p.cnt.MaxQBytes {
		p.cnt.MaxQBytes, p.cnt.MaxQAt = p.qBytes, now
	}
	s.cnt.MaxShared = max(s.cnt.MaxShared, s.shared)
	if p.log != nil {
		p.log.add(now, p.qBytes)
	}
	if !p.active {
		p.active = true
		s.active = append(s.active, pi)
	}
}

// mark draws the WRED/ECN decision for an ECN-capable packet arriving at a
// queue of q bytes (ECNConfig).
func (s *Switch) mark(q uint64) bool {
	e := &s.cfg.Switch.ECN
	if q < e.KMinBytes {
		return false
	}
	if q >= e.KMaxBytes {
		return true
	}
	thr := engine.MulDiv(q-e.KMinBytes, s.pmax32, e.KMaxBytes-e.KMinBytes, false)
	if thr == 0 {
		return false
	}
	if thr >= 1<<32 {
		return true
	}
	return uint64(s.rng.Uint32()) < thr
}

// transmit starts serializing the head of p's queue in cycle now.
func (s *Switch) transmit(now engine.Cycle, p *port) {
	e := p.q.pop()
	f := e.frame
	n := uint64(len(f))
	p.qBytes -= n
	s.shared -= n
	start := max(s.clk.start(now), p.busy)
	if ec := &s.cfg.Switch.ECN; e.ect && ec.Enabled && ec.MarkAtDequeue && s.mark(p.qBytes) {
		wire.IPv4(f[e.ipOff:]).SetECN(wire.CE)
		p.cnt.ECNMarks++
	}
	if s.cfg.Switch.INT && e.wantINT {
		hop, err := telemetry.FromPhysical(s.cfg.Encoding, telemetry.Physical{SwitchID: s.id, PortID: uint32(p.num),
			SpeedGbps: p.gbps, TsNs: start / 1_000_000, TxBytes: p.cnt.TxWireBytes, QlenBytes: p.qBytes})
		if err == nil {
			var res wire.PushResult
			f, res, err = wire.PushHop(f, s.cfg.Encoding, hop, s.cfg.Switch.MTUBytes)
			switch res {
			case wire.Pushed:
				p.cnt.Stamped++
			case wire.HopLimit, wire.FrameLimit:
				p.cnt.Exceeded++
			}
		}
		if err != nil {
			p.cnt.StampErrors++
		}
	}
	n = uint64(len(f))
	w := n + s.ovh
	p.busy = start + serFS(w, p.bps)
	if p.cnt.TxFrames == 0 {
		p.cnt.FirstTxNs = start / 1_000_000
	}
	p.cnt.LastEndNs = p.busy / 1_000_000
	p.cnt.TxFrames++
	p.cnt.TxBytes += n
	p.cnt.TxWireBytes += w
	if p.log != nil {
		p.log.add(now, p.qBytes)
	}
	at := s.clk.at(p.busy + p.to.delay)
	if p.to.host != nil {
		p.to.host.Push(now, at, pipeline.Frame{Data: f})
	} else {
		p.to.sw.Push(now, at, arrival{port: p.to.swIn, frame: f})
	}
}
