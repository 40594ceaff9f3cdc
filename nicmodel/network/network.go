package network

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/hpccgold/hpccgold/engine"
)

// NodeKind says whether a node is a host or a switch.
type NodeKind uint8

// Node kinds.
const (
	HostNode NodeKind = iota + 1
	SwitchNode
)

// Node names a host or a switch of a Builder by kind and index.
type Node struct {
	Kind  NodeKind
	Index int
}

// String returns "host N" or "switch N".
func (n Node) String() string {
	if n.Kind == HostNode {
		return fmt.Sprintf("host %d", n.Index)
	}
	return fmt.Sprintf("switch %d", n.Index)
}

type linkRec struct {
	a, b Node
	spec LinkSpec
}

// Builder assembles a topology: hosts (one NIC each, so exactly one link),
// switches, and full-duplex links. Topology helpers (Star, Dumbbell,
// LeafSpine) use it; it is exported for custom topologies.
type Builder struct {
	hosts    []string
	switches []string
	links    []linkRec
}

// NewBuilder returns an empty topology.
func NewBuilder() *Builder { return &Builder{} }

// AddHost adds a host and returns it; hosts are numbered 0, 1, 2, ...
func (b *Builder) AddHost(name string) Node {
	b.hosts = append(b.hosts, name)
	return Node{HostNode, len(b.hosts) - 1}
}

// AddSwitch adds a switch and returns it; switches are numbered 0, 1, ...
// and switch i stamps device ID i+1.
func (b *Builder) AddSwitch(name string) Node {
	b.switches = append(b.switches, name)
	return Node{SwitchNode, len(b.switches) - 1}
}

// Link connects a and c with a full-duplex link. Problems are reported by
// Build. A switch's ports are numbered in the order its links are added.
func (b *Builder) Link(a, c Node, l LinkSpec) { b.links = append(b.links, linkRec{a, c, l}) }

// hostRec is a host's place in the network.
type hostRec struct {
	name   string
	addr   Addr
	sw     int
	swPort uint16
	link   LinkSpec
	ep     Endpoint
	up     *uplink
}

// Network is a set of hosts and switches on one engine.
type Network struct {
	cfg      Config
	clk      clock
	hosts    []hostRec
	switches []*Switch
	eng      *engine.Engine
}

// Build validates the configuration and the topology, numbers ports,
// computes the shortest-path routes of every switch to every host, and
// returns the network. Endpoints are attached afterwards (Attach).
func (b *Builder) Build(cfg Config) (*Network, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	nh, ns := len(b.hosts), len(b.switches)
	if nh < 2 {
		return nil, fmt.Errorf("network: topology: %d hosts: need at least 2", nh)
	}
	if nh > MaxHosts {
		return nil, fmt.Errorf("network: topology: %d hosts: at most %d", nh, MaxHosts)
	}
	if ns < 1 || ns >= 1<<20 {
		return nil, fmt.Errorf("network: topology: %d switches: must be in [1,2^20-1]", ns)
	}
	n := &Network{cfg: cfg, clk: newClock(cfg.ClockHz)}
	n.hosts = make([]hostRec, nh)
	for i, name := range b.hosts {
		n.hosts[i] = hostRec{name: name, addr: HostAddr(i), sw: -1}
	}
	pm := cfg.Switch.ECN.pmax32()
	var classOf [64]uint8
	for c, k := range cfg.Switch.QoS.Classes {
		classOf[k.DSCP] = uint8(c)
	}
	for i, name := range b.switches {
		id := uint32(i + 1)
		n.switches = append(n.switches, &Switch{id: id, name: name, cfg: &n.cfg, clk: n.clk,
			in:   engine.NewTimedQueue[arrival](name + ".ingress"),
			salt: uint32(mix64(cfg.Seed ^ uint64(id)<<32)), rng: rand.New(rand.NewPCG(cfg.Seed, uint64(id))),
			ovh: uint64(cfg.MACOverheadBytes), pmax32: pm, engID: engine.NoID, classOf: classOf})
	}
	valid := func(x Node) bool {
		return (x.Kind == HostNode && x.Index >= 0 && x.Index < nh) || (x.Kind == SwitchNode && x.Index >= 0 && x.Index < ns)
	}
	type end struct {
		sw   int
		port uint16
	}
	for li, l := range b.links {
		field := fmt.Sprintf("links[%d]", li)
		if !valid(l.a) || !valid(l.b) {
			return nil, fmt.Errorf("network: %s: %v - %v: no such node", field, l.a, l.b)
		}
		if l.a == l.b {
			return nil, fmt.Errorf("network: %s: %v linked to itself", field, l.a)
		}
		if l.a.Kind == HostNode && l.b.Kind == HostNode {
			return nil, fmt.Errorf("network: %s: host %d - host %d: hosts connect only to switches", field, l.a.Index, l.b.Index)
		}
		if err := l.spec.validate(field); err != nil {
			return nil, err
		}
		// Switch ends get a new port each.
		var ends [2]end
		for k, x := range [2]Node{l.a, l.b} {
			ends[k] = end{-1, 0}
			if x.Kind == SwitchNode {
				s := n.switches[x.Index]
				if len(s.ports) >= 1<<16 {
					return nil, fmt.Errorf("network: %s: switch %q: more than 65536 ports", field, s.name)
				}
				if cfg.Switch.INT {
					if _, err := cfg.Encoding.SpeedCode(l.spec.Gbps); err != nil {
						return nil, fmt.Errorf("network: %s.gbps=%d: switch %q stamps %v telemetry: %w", field, l.spec.Gbps, s.name, cfg.Encoding, err)
					}
				}
				s.ports = append(s.ports, newPort(&cfg.Switch, uint16(len(s.ports)), l.spec.Gbps))
				ends[k] = end{x.Index, uint16(len(s.ports) - 1)}
			}
		}
		for k, x := range [2]Node{l.a, l.b} {
			if x.Kind != HostNode {
				continue
			}
			h := &n.hosts[x.Index]
			if h.sw >= 0 {
				return nil, fmt.Errorf("network: %s: host %d (%s) has a second link: a host has one NIC and one link", field, x.Index, h.name)
			}
			o := ends[1-k]
			h.sw, h.swPort, h.link = o.sw, o.port, l.spec
		}
		// Wire the egress ports to their peers.
		for k, x := range [2]Node{l.a, l.b} {
			if x.Kind != SwitchNode {
				continue
			}
			p := &n.switches[x.Index].ports[ends[k].port]
			y := [2]Node{l.a, l.b}[1-k]
			p.to.delay = nsFS(l.spec.DelayNs)
			if y.Kind == SwitchNode {
				peer := n.switches[y.Index]
				p.to.sw, p.to.swIn, p.to.swIdx = peer.in, ends[1-k].port, y.Index
				p.to.delay += nsFS(cfg.Switch.LatencyNs)
				p.name = fmt.Sprintf("%s.p%d->%s", n.switches[x.Index].name, p.num, peer.name)
			} else {
				p.name = fmt.Sprintf("%s.p%d->%s", n.switches[x.Index].name, p.num, n.hosts[y.Index].name)
			}
		}
	}
	for i := range n.hosts {
		if n.hosts[i].sw < 0 {
			return nil, fmt.Errorf("network: topology: host %d (%s): no link", i, n.hosts[i].name)
		}
	}
	if err := n.route(b); err != nil {
		return nil, err
	}
	if err := n.installForgers(); err != nil {
		return nil, err
	}
	return n, nil
}

// newPort returns egress port num at gbps with its class queues and, with
// sampling, its flow table.
func newPort(sw *SwitchConfig, num uint16, gbps uint32) port {
	p := port{num: num, gbps: gbps, bps: uint64(gbps) * 1_000_000_000, cls: make([]class, sw.QoS.NumClasses())}
	for c, k := range sw.QoS.Classes {
		p.cls[c].weight = uint64(k.Weight) * sw.QoS.QuantumBytes
	}
	if sw.Sample.Mode != SampleEvery {
		p.sampled = make([]uint64, sw.Sample.TableEntries)
	}
	return p
}

// route computes, for every switch and destination host, the egress ports
// that lie on a shortest path (BFS over switches; hosts do not forward).
func (n *Network) route(b *Builder) error {
	ns := len(n.switches)
	// adjacency of switches: for switch s, port p: peer switch index or -1.
	peerSw := make([][]int, ns)
	for s := range n.switches {
		peerSw[s] = make([]int, len(n.switches[s].ports))
		for p := range peerSw[s] {
			peerSw[s][p] = -1
		}
	}
	for si, s := range n.switches {
		for pi := range s.ports {
			if s.ports[pi].to.sw != nil {
				peerSw[si][pi] = s.ports[pi].to.swIdx
			}
		}
	}
	dist := make([]int, ns)
	queue := make([]int, 0, ns)
	for _, s := range n.switches {
		s.routes = make([][]uint16, len(n.hosts))
	}
	for d := range n.hosts {
		for i := range dist {
			dist[i] = -1
		}
		h := &n.hosts[d]
		dist[h.sw] = 1
		queue = append(queue[:0], h.sw)
		for len(queue) > 0 {
			s := queue[0]
			queue = queue[1:]
			for _, t := range peerSw[s] {
				if t >= 0 && dist[t] < 0 {
					dist[t] = dist[s] + 1
					queue = append(queue, t)
				}
			}
		}
		for si, s := range n.switches {
			if dist[si] < 0 {
				for src := range n.hosts {
					if n.hosts[src].sw == si {
						return fmt.Errorf("network: topology: host %d (%s) cannot reach host %d (%s)", src, n.hosts[src].name, d, h.name)
					}
				}
				continue
			}
			var ports []uint16
			if si == h.sw {
				ports = []uint16{h.swPort}
			} else {
				for pi, t := range peerSw[si] {
					if t >= 0 && dist[t] == dist[si]-1 {
						ports = append(ports, uint16(pi))
					}
				}
			}
			s.routes[d] = ports
		}
	}
	return nil
}

// mix64 is the SplitMix64 finalizer (a bijective 64-bit mixer).
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Config returns the network configuration.
func (n *Network) Config() Config { return n.cfg }

// Hosts returns the number of hosts.
func (n *Network) Hosts() int { return len(n.hosts) }

// HostName returns host i's name.
func (n *Network) HostName(i int) string { return n.hosts[i].name }

// HostLink returns host i's link: the switch and port it connects to and
// the link's speed and delay.
func (n *Network) HostLink(i int) (sw, port int, l LinkSpec) {
	h := &n.hosts[i]
	return h.sw, int(h.swPort), h.link
}

// Switches returns the switches in index order.
func (n *Network) Switches() []*Switch { return append([]*Switch(nil), n.switches...) }

// Switch returns switch i.
func (n *Network) Switch(i int) *Switch { return n.switches[i] }

// Attach gives host i its endpoint (NIC). Call before Register.
func (n *Network) Attach(i int, ep Endpoint) error {
	if i < 0 || i >= len(n.hosts) {
		return fmt.Errorf("network: Attach: host=%d: must be in [0,%d)", i, len(n.hosts))
	}
	if ep == nil {
		return fmt.Errorf("network: Attach: host=%d: nil endpoint", i)
	}
	if n.eng != nil {
		return fmt.Errorf("network: Attach: host=%d: network already registered", i)
	}
	n.hosts[i].ep = ep
	return nil
}

// Watch starts an exact queue-length log of switch sw's egress port p and
// returns it. Call before running.
func (n *Network) Watch(sw, p int) (*QueueLog, error) {
	if sw < 0 || sw >= len(n.switches) || p < 0 || p >= len(n.switches[sw].ports) {
		return nil, fmt.Errorf("network: Watch: switch=%d port=%d: no such port", sw, p)
	}
	pt := &n.switches[sw].ports[p]
	if pt.log == nil {
		pt.log = &QueueLog{}
	}
	return pt.log, nil
}

// WatchClass starts an exact queue-length log of traffic class c's queue
// at switch sw's egress port p and returns it. Call before running.
func (n *Network) WatchClass(sw, p, c int) (*QueueLog, error) {
	if sw < 0 || sw >= len(n.switches) || p < 0 || p >= len(n.switches[sw].ports) {
		return nil, fmt.Errorf("network: WatchClass: switch=%d port=%d: no such port", sw, p)
	}
	pt := &n.switches[sw].ports[p]
	if c < 0 || c >= len(pt.cls) {
		return nil, fmt.Errorf("network: WatchClass: class=%d: must be in [0,%d)", c, len(pt.cls))
	}
	k := &pt.cls[c]
	if k.log == nil {
		k.log = &QueueLog{}
	}
	return k.log, nil
}

// Register adds every endpoint, uplink and switch to e, in the order
// host 0's NIC, host 0's uplink, host 1's ..., switch 0, switch 1, ...,
// and connects their queues. Every host must have an endpoint.
func (n *Network) Register(e *engine.Engine) error {
	_, err := n.register([]*engine.Engine{e}, make([]int, len(n.hosts)), make([]int, len(n.switches)))
	return err
}

// register adds host h's endpoint and uplink to engs[hostPart[h]] and
// switch s to engs[swPart[s]], each engine's components in the order of
// Register, and sends every frame of a link whose ends are on different
// engines through its sender's partition's outbox.
func (n *Network) register(engs []*engine.Engine, hostPart, swPart []int) (*Parts, error) {
	if n.eng != nil {
		return nil, errors.New("network: registered twice")
	}
	for _, e := range engs {
		if e.Freq() != n.cfg.ClockHz {
			return nil, fmt.Errorf("network: engine clock %v differs from clock_hz=%d", e.Freq(), uint64(n.cfg.ClockHz))
		}
	}
	ps := &Parts{n: n, engs: engs, hostPart: hostPart, swPart: swPart, out: make([][]crossing, len(engs)), lookahead: engine.Never}
	cross := func(from, to int, delayFS uint64) *[]crossing {
		if from == to {
			return nil
		}
		// A frame sent in cycle c over this link becomes visible no
		// earlier than at(start(c) + delay) >= c + floor(delay in
		// cycles), and never before c+1 (engine.TimedQueue.Push).
		ps.lookahead = min(ps.lookahead, max(1, n.clk.at(delayFS)))
		return &ps.out[from]
	}
	for i := range n.hosts {
		h := &n.hosts[i]
		if h.ep == nil {
			return nil, fmt.Errorf("network: host %d (%s): no endpoint attached", i, h.name)
		}
		e := engs[hostPart[i]]
		if err := h.ep.Register(e); err != nil {
			return nil, fmt.Errorf("network: host %d (%s): %w", i, h.name, err)
		}
		sw := n.switches[h.sw]
		h.up = &uplink{from: h.ep.Out(), to: sw.in, port: h.swPort, clk: n.clk, ovh: uint64(n.cfg.MACOverheadBytes),
			delay: nsFS(h.link.DelayNs) + nsFS(n.cfg.Switch.LatencyNs)}
		h.up.out = cross(hostPart[i], swPart[h.sw], h.up.delay)
		id, err := e.Add(h.name+".uplink", h.up)
		if err != nil {
			return nil, fmt.Errorf("network: %w", err)
		}
		if err := h.ep.ConnectOut(id); err != nil {
			return nil, fmt.Errorf("network: host %d (%s): %w", i, h.name, err)
		}
		p := &sw.ports[h.swPort]
		p.to.host = h.ep.In()
		p.to.out = cross(swPart[h.sw], hostPart[i], p.to.delay)
	}
	for si, s := range n.switches {
		for pi := range s.ports {
			if p := &s.ports[pi]; p.to.sw != nil {
				p.to.out = cross(swPart[si], swPart[p.to.swIdx], p.to.delay)
			}
		}
		e := engs[swPart[si]]
		id, err := e.Add(s.name, s)
		if err != nil {
			return nil, fmt.Errorf("network: %w", err)
		}
		s.engID = id
		if err := e.Connect(s.in, engine.NoID, id); err != nil {
			return nil, fmt.Errorf("network: %w", err)
		}
	}
	n.eng = engs[0]
	return ps, nil
}

// Uplink returns the counters of host i's link into the network.
func (n *Network) Uplink(i int) UplinkCounters {
	if u := n.hosts[i].up; u != nil {
		return u.cnt
	}
	return UplinkCounters{}
}

// Hop is one transmission along a path: the transmitter (host uplink when
// Switch < 0, else a switch egress port), its line rate and the delay to
// the next node (propagation plus the next switch's forwarding latency).
type Hop struct {
	Switch, Port int
	Gbps         uint32
	DelayNs      uint64
}

// Path returns the hops a packet of the flow (src, dst, UDP source port
// sport) takes, resolving ECMP with the switches' hash exactly as they
// forward.
func (n *Network) Path(src, dst int, sport uint16) ([]Hop, error) {
	if src < 0 || src >= len(n.hosts) || dst < 0 || dst >= len(n.hosts) || src == dst {
		return nil, fmt.Errorf("network: Path: src=%d dst=%d: need two different hosts in [0,%d)", src, dst, len(n.hosts))
	}
	lat := n.cfg.Switch.LatencyNs
	h := &n.hosts[src]
	hops := []Hop{{Switch: -1, Port: 0, Gbps: h.link.Gbps, DelayNs: h.link.DelayNs + lat}}
	sip, dip := uint32(hostIPBase+src), uint32(hostIPBase+dst)
	s := h.sw
	for guard := 0; guard <= len(n.switches); guard++ {
		sw := n.switches[s]
		cand := sw.routes[dst]
		if len(cand) == 0 {
			return nil, fmt.Errorf("network: Path: no route from switch %q to host %d", sw.name, dst)
		}
		pi := cand[0]
		if len(cand) > 1 {
			pi = cand[flowHash(sw.salt, sip, dip, sport, roceUDPPort)%uint32(len(cand))]
		}
		p := &sw.ports[pi]
		d := p.to.delay / 1_000_000
		hops = append(hops, Hop{Switch: s, Port: int(pi), Gbps: p.gbps, DelayNs: d})
		if p.to.sw == nil {
			return hops, nil
		}
		s = p.to.swIdx
	}
	return nil, fmt.Errorf("network: Path: routing loop from host %d to host %d", src, dst)
}

// Link is one full-duplex link of a Builder: its two ends and its spec.
type Link struct {
	A, B Node
	Spec LinkSpec
}

// Counts returns the number of hosts and switches added so far.
func (b *Builder) Counts() (hosts, switches int) { return len(b.hosts), len(b.switches) }

// Links returns the links in the order they were added (the order that
// numbers the switches' ports).
func (b *Builder) Links() []Link {
	out := make([]Link, len(b.links))
	for i, l := range b.links {
		out[i] = Link{A: l.a, B: l.b, Spec: l.spec}
	}
	return out
}
