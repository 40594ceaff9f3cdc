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

// ClassCounters are one traffic-class queue's status registers (64-bit,
// wrapping): what its hop records report and what it sent.
type ClassCounters struct {
	TxFrames    uint64 // frames of the class serialized
	TxWireBytes uint64 // their wire bytes (frame + MAC overhead): the class's telemetry txBytes
	MaxQBytes   uint64 // high-water mark of the class queue, bytes
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
	Unsampled   uint64       // packets requesting telemetry that sampling left unstamped at their first switch (SampleConfig)
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
	inFS    uint64 // instant it joined the egress queue, fs (the sojourn's ingress stamp)
	first   bool   // it entered the switch from a host (sampling: this switch decides)
	probe   bool   // a probe: sampling never skips it
	flow    uint32 // its flow hash with salt 0 (sampling's flow-table index)
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

// front returns the oldest entry (size > 0).
func (q *fifo) front() *queued { return &q.buf[q.head] }

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
	seq   uint64 // frames sent to the peer switch: the link's sequence number (arrivalTie)
	// out, when set, is the outbox of this port's partition: the peer is
	// in another partition (Parts), so frames go there and cross at the
	// window's barrier instead of into the peer's queue.
	out *[]crossing
}

// arrivalTie orders frames that join their egress queues in the same cycle
// at one switch (engine.TimedQueue.PushTie): by ingress port, then by the
// link's own sequence number (the frames of one link arrive in the order
// they were sent). The order thus depends only on the receiving switch and
// its links, never on which transmitter ran first, so a network split over
// several engines orders them as one engine does. The sequence number keeps
// its low 48 bits: it would repeat after 2^48 frames on one link (days of
// simulated time at 400 Gbps).
func arrivalTie(port uint16, seq uint64) uint64 {
	return uint64(port)<<48 | seq&(1<<48-1)
}

// class is one traffic-class queue of a port.
type class struct {
	q       fifo
	bytes   uint64 // frame bytes queued
	weight  uint64 // DWRR weight * quantum: credit per turn, bytes
	deficit uint64 // DWRR credit left in the current turn, bytes
	cnt     ClassCounters
	log     *QueueLog
}

// port is an egress port.
type port struct {
	num     uint16
	name    string
	gbps    uint32
	bps     uint64
	to      peer
	cls     []class // traffic-class queues (one without QoS)
	frames  int     // frames queued over all classes
	qBytes  uint64  // bytes queued over all classes (the buffer limit's measure)
	cur     int     // DWRR: the class whose turn it is
	started bool    // DWRR: the current class has received its turn's credit
	busy    uint64  // instant (fs) the transmitter finishes the frame it is sending
	active  bool    // in the switch's active list
	cnt     PortCounters
	log     *QueueLog
	sampled []uint64 // sampling: per flow-table entry, 1 + the fs instant of the last record (0: never)
}

// pick returns the class whose head frame the port sends next: Deficit
// Weighted Round Robin over the backlogged classes (QoSConfig). frames > 0.
func (p *port) pick(ovh uint64) int {
	if len(p.cls) == 1 {
		return 0
	}
	for {
		c := &p.cls[p.cur]
		if c.q.size > 0 {
			if !p.started {
				c.deficit += c.weight
				p.started = true
			}
			if n := uint64(len(c.q.front().frame)) + ovh; n <= c.deficit {
				c.deficit -= n
				return p.cur
			}
		} else {
			c.deficit = 0
		}
		p.cur++
		if p.cur == len(p.cls) {
			p.cur = 0
		}
		p.started = false
	}
}

// Switch is an output-queued store-and-forward switch as one engine
// component. Frames arrive through one ingress TimedQueue (every link into
// the switch pushes into it, visible at the cycle the frame joins its
// egress queue; frames joining in the same cycle are taken in order of
// ingress port, then of their link's sequence: arrivalTie); the switch routes each (ECMP by flow hash among the
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
	// classOf maps a DSCP to its traffic class (QoSConfig; 0 when no
	// class claims it).
	classOf [64]uint8
	// forge, when set, makes this switch forge its hop records (forge.go).
	forge *forger
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

// Class returns traffic class c's counters at port p and its current
// queue length in bytes.
func (s *Switch) Class(p, c int) (ClassCounters, uint64) {
	if p < 0 || p >= len(s.ports) || c < 0 || c >= len(s.ports[p].cls) {
		return ClassCounters{}, 0
	}
	k := &s.ports[p].cls[c]
	return k.cnt, k.bytes
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
		s.enqueue(now, a)
	}
	end := s.clk.start(now + 1) // a port free before this instant starts its next frame in this cycle
	for i := 0; i < len(s.active); {
		p := &s.ports[s.active[i]]
		for p.frames > 0 && p.busy < end {
			s.transmit(now, p)
			progress = true
		}
		if p.frames == 0 {
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
func (s *Switch) enqueue(now engine.Cycle, a arrival) {
	f := a.frame
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
	ci := 0
	if len(p.cls) > 1 {
		ci = int(s.classOf[wire.IPv4(f[h.ipOff:]).DSCP()])
	}
	c := &p.cls[ci]
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
		q := c.bytes
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
	e := queued{frame: f, wantINT: h.wantINT, ect: ect, ipOff: uint16(h.ipOff)}
	if sw.Sojourn {
		e.inFS = s.clk.start(now)
	}
	if p.sampled != nil {
		e.first = int(a.port) < len(s.ports) && s.ports[a.port].to.host != nil
		e.probe = h.probe
		e.flow = flowHash(0, h.src, h.dst, h.sport, h.dport)
	}
	c.q.push(e)
	c.bytes += n
	c.cnt.MaxQBytes = max(c.cnt.MaxQBytes, c.bytes)
	if c.log != nil {
		c.log.add(now, c.bytes)
	}
	p.frames++
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
	ci := p.pick(s.ovh)
	c := &p.cls[ci]
	e := c.q.pop()
	f := e.frame
	n := uint64(len(f))
	c.bytes -= n
	p.frames--
	p.qBytes -= n
	s.shared -= n
	if c.q.size == 0 && len(p.cls) > 1 { // DWRR: an emptied class loses its credit and its turn
		c.deficit = 0
		p.cur = (p.cur + 1) % len(p.cls)
		p.started = false
	}
	if c.log != nil {
		c.log.add(now, c.bytes)
	}
	start := max(s.clk.start(now), p.busy)
	if ec := &s.cfg.Switch.ECN; e.ect && ec.Enabled && ec.MarkAtDequeue && s.mark(c.bytes) {
		wire.IPv4(f[e.ipOff:]).SetECN(wire.CE)
		p.cnt.ECNMarks++
	}
	if s.cfg.Switch.INT && e.wantINT && s.sample(p, &e, start, c.bytes) {
		ph := telemetry.Physical{SwitchID: s.id, PortID: uint32(p.num),
			SpeedGbps: p.gbps, TsNs: start / 1_000_000, TxBytes: c.cnt.TxWireBytes, QlenBytes: c.bytes}
		if s.forge != nil {
			s.forge.apply(int(p.num), &ph)
		}
		hop, err := telemetry.FromPhysical(s.cfg.Encoding, ph)
		if err == nil && s.cfg.Switch.Sojourn {
			stampSojourn(&hop, e.inFS/1_000_000, start/1_000_000)
		}
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
	c.cnt.TxFrames++
	c.cnt.TxWireBytes += w
	if p.log != nil {
		p.log.add(now, p.qBytes)
	}
	at := s.clk.at(p.busy + p.to.delay)
	switch {
	case p.to.out != nil && p.to.host != nil:
		*p.to.out = append(*p.to.out, crossing{host: p.to.host, now: now, at: at, a: arrival{frame: f}})
	case p.to.out != nil:
		*p.to.out = append(*p.to.out, crossing{sw: p.to.sw, now: now, at: at, tie: arrivalTie(p.to.swIn, p.to.seq), a: arrival{port: p.to.swIn, frame: f}})
		p.to.seq++
	case p.to.host != nil:
		p.to.host.Push(now, at, pipeline.Frame{Data: f})
	default:
		p.to.sw.PushTie(now, at, arrivalTie(p.to.swIn, p.to.seq), arrival{port: p.to.swIn, frame: f})
		p.to.seq++
	}
}

// sample says whether a packet that requests telemetry gets this port's
// hop record (SampleConfig): always without sampling; at the first switch
// of its path when its flow's table entry is IntervalNs old or more (or
// unset), or, in mode congestion, when the class queue it leaves holds
// threshold_bytes or more; at a later switch when it already carries a
// record. start is the stamp instant (fs), q the class queue after the
// frame left.
func (s *Switch) sample(p *port, e *queued, start, q uint64) bool {
	if p.sampled == nil {
		return true
	}
	if !e.first {
		return stackLen(e.frame, int(e.ipOff)) > 0
	}
	if e.probe {
		return true // a probe asks for telemetry (draft 6.1): it gets every record, and does not set the flow's clock
	}
	sc := &s.cfg.Switch.Sample
	k := &p.sampled[e.flow%uint32(len(p.sampled))]
	if *k != 0 && start-(*k-1) < sc.IntervalNs*1_000_000 && !(sc.Mode == SampleCongestion && q >= sc.ThresholdBytes) {
		p.cnt.Unsampled++
		return false
	}
	*k = start + 1
	return true
}

// stackLen returns the hop count in the INT shim of a RoCEv2 SEND or
// probe frame whose IPv4 header is at ipOff (header.go parsed it as
// requesting telemetry), or 0 when the frame does not decode.
func stackLen(f []byte, ipOff int) int {
	var p wire.Packet
	wire.Decode(f, &p)
	if p.Class == wire.ClassMalformed || !p.HasINT {
		return 0
	}
	return p.INT.HopCount
}

// stampSojourn rewrites an IFA hop record stamped at egress instant egNs
// so that it carries the ingress instant inNs and the sojourn time egNs -
// inNs (HPCC++ draft section 9.4) as rxTimestamp and residenceTime. A
// sojourn beyond the 32-bit residence field (4.29 s) is reported as the
// field's maximum with the ingress time moved up to keep rx + residence
// = egNs: the egress instant, the one the datapath differences, is exact
// either way.
func stampSojourn(h *telemetry.Hop, inNs, egNs uint64) {
	res := min(egNs-inNs, 1<<telemetry.IFAResidenceBits-1)
	rx := egNs - res
	h.RxSec = uint32((rx / telemetry.NsPerSecond) & (1<<telemetry.IFARxSecBits - 1))
	h.RxNs = uint32(rx % telemetry.NsPerSecond)
	h.ResidenceNs = uint32(res)
}
