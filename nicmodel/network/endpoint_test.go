package network

import (
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// scriptEP is the test endpoint: a host that transmits scripted frames,
// each starting at its scheduled cycle or as soon as its MAC is free,
// serialized at the host's line rate (whole cycles, ceiling, as
// nicmodel's MAC does), and records every frame it receives with its
// arrival cycle.
type scriptEP struct {
	name    string
	in, out *engine.TimedQueue[pipeline.Frame]
	freq    engine.Freq
	bps     uint64
	ovh     uint64
	sends   []scripted
	next    int
	free    engine.Cycle
	got     []received
	eng     *engine.Engine
	id      engine.ID
	departs []engine.Cycle
}

type scripted struct {
	at    engine.Cycle
	frame []byte
}

type received struct {
	at    engine.Cycle
	frame []byte
}

func newScriptEP(name string, gbps uint32) *scriptEP {
	return &scriptEP{name: name, in: engine.NewTimedQueue[pipeline.Frame](name + ".in"),
		out: engine.NewTimedQueue[pipeline.Frame](name + ".out"), freq: engine.GHz, bps: uint64(gbps) * 1e9, ovh: 24}
}

func (s *scriptEP) In() *engine.TimedQueue[pipeline.Frame]  { return s.in }
func (s *scriptEP) Out() *engine.TimedQueue[pipeline.Frame] { return s.out }
func (s *scriptEP) Register(e *engine.Engine) error {
	id, err := e.Add(s.name, s)
	if err != nil {
		return err
	}
	s.eng, s.id = e, id
	return e.Connect(s.in, engine.NoID, id)
}
func (s *scriptEP) ConnectOut(c engine.ID) error { return s.eng.Connect(s.out, s.id, c) }

func (s *scriptEP) Tick(now engine.Cycle) bool {
	p := false
	for {
		f, ok := s.in.Pop(now)
		if !ok {
			break
		}
		p = true
		s.got = append(s.got, received{now, f.Data})
	}
	for s.next < len(s.sends) && s.sends[s.next].at <= now && s.free <= now {
		f := s.sends[s.next].frame
		s.next++
		x := s.freq.TransferCycles((uint64(len(f))+s.ovh)*8, s.bps)
		s.free = now + x
		s.out.Push(now, s.free, pipeline.Frame{Data: f})
		s.departs = append(s.departs, s.free)
		p = true
	}
	return p
}

func (s *scriptEP) NextWake(now engine.Cycle) (engine.Cycle, bool) {
	if s.next < len(s.sends) {
		return max(s.sends[s.next].at, s.free, now+1), true
	}
	return engine.Never, false
}

// dataFrame builds a RoCEv2 data packet from host src to host dst with a
// payload of n bytes, an INT request in encoding enc (enc 0: none), ECN
// codepoint ecn and UDP source port sport.
func dataFrame(t testing.TB, src, dst int, n int, enc telemetry.Encoding, ecn wire.ECN, sport uint16, psn uint32) []byte {
	t.Helper()
	a, b := HostAddr(src), HostAddr(dst)
	d := wire.Data{Path: wire.Path{SrcMAC: a.MAC, DstMAC: b.MAC, SrcIP: a.IP, DstIP: b.IP, ECN: ecn, TTL: 64, UDPSrcPort: sport},
		Opcode: wire.OpRCSendOnly, Transport: wire.Transport{PKey: 0xFFFF, DestQP: 7, PSN: wire.PSN(psn)}, Payload: make([]byte, n)}
	if enc != 0 {
		d.INT = wire.INTRequest{Enabled: true, Encoding: enc, MaxHops: 5}
	}
	f, err := wire.AppendData(nil, &d)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rig is a network of script endpoints on one engine.
type rig struct {
	e   *engine.Engine
	n   *Network
	eps []*scriptEP
}

func newRig(t testing.TB, topo Topology, cfg Config, noSkip bool) *rig {
	t.Helper()
	n, err := topo.Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Freq: cfg.ClockHz, NoSkip: noSkip})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{e: e, n: n}
	for i := 0; i < n.Hosts(); i++ {
		_, _, l := n.HostLink(i)
		ep := newScriptEP(n.HostName(i), l.Gbps)
		r.eps = append(r.eps, ep)
		if err := n.Attach(i, ep); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.Register(e); err != nil {
		t.Fatal(err)
	}
	return r
}

func (r *rig) run(t testing.TB, limit engine.Cycle) {
	t.Helper()
	if !r.e.RunUntilIdle(limit) {
		t.Fatalf("not idle after %d cycles", limit)
	}
}
