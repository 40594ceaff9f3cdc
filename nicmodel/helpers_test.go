package nicmodel

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Test bench: two NICs wired back to back through fixed-delay links. The
// link from A to B can act as one INT switch: it pushes a telemetry record
// (wire.PushHop) into every data packet, stamped with the packet's
// departure time, the link's cumulative bytes and a queue length from a
// script, as an egress port of the NIC's line rate would.

// link moves frames from one NIC's Out to another's In after a fixed
// propagation delay.
type link struct {
	from  *engine.TimedQueue[pipeline.Frame]
	to    *engine.TimedQueue[pipeline.Frame]
	delay engine.Cycle
	freq  engine.Freq
	// INT switch emulation (stamp = true).
	stamp    bool
	enc      telemetry.Encoding
	gbps     uint32
	txBytes  uint64
	qlen     func(now engine.Cycle) uint64 // queue length to report; nil = 0
	frames   uint64
	pushErrs int
	// rec records every frame with its departure cycle (the cycle the link
	// took it from the NIC), after stamping.
	rec bool
	got []stamped[[]byte]
	// keep holds the delivered frames themselves (not copies), to check
	// that a NIC with Options.KeepInputFrames leaves them alone.
	keepRefs bool
	refs     [][]byte
}

func (l *link) Tick(now engine.Cycle) bool {
	p := false
	for {
		f, ok := l.from.Pop(now)
		if !ok {
			return p
		}
		p = true
		l.frames++
		data := f.Data
		l.txBytes += uint64(len(data))
		if l.stamp {
			var q uint64
			if l.qlen != nil {
				q = l.qlen(now)
			}
			h, err := telemetry.FromPhysical(l.enc, telemetry.Physical{SwitchID: 9, PortID: 3, SpeedGbps: l.gbps,
				TsNs: l.freq.NS(now), TxBytes: l.txBytes, QlenBytes: q})
			if err == nil {
				data, _, err = wire.PushHop(data, l.enc, h, 0)
			}
			if err != nil {
				l.pushErrs++
			}
		}
		if l.rec {
			l.got = append(l.got, stamped[[]byte]{now, append([]byte(nil), data...)})
		}
		if l.keepRefs {
			l.refs = append(l.refs, data)
		}
		l.to.Push(now, now+l.delay, pipeline.Frame{Data: data})
	}
}

func (l *link) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// pairPath returns the addressing of QP q from host a to host b.
func pairPath(a, b byte, q wire.QPN) wire.Path {
	return wire.Path{
		SrcMAC: wire.MAC{2, 0, 0, 0, 0, a}, DstMAC: wire.MAC{2, 0, 0, 0, 0, b},
		SrcIP: wire.IPv4Addr{10, 0, 0, a}, DstIP: wire.IPv4Addr{10, 0, 0, b},
		DSCP: 26, ECN: wire.ECT0, TTL: 64, UDPSrcPort: uint16(49152 + q),
	}
}

// qpPair returns the QP contexts of flows 1..n from A (sender) to B: QP q
// on A talks to QP q on B.
func qpPair(n int) (a, b []pipeline.FlowContext) {
	for q := wire.QPN(1); q <= wire.QPN(n); q++ {
		a = append(a, pipeline.FlowContext{QPN: q, RemoteQPN: q, Path: pairPath(1, 2, q), PKey: 0xFFFF})
		b = append(b, pipeline.FlowContext{QPN: q, RemoteQPN: q, Path: pairPath(2, 1, q), PKey: 0xFFFF})
	}
	return a, b
}

// bench is two NICs and two links in one engine.
type bench struct {
	e      *engine.Engine
	a, b   *NIC
	ab, ba *link
}

type benchOpts struct {
	cfgA, cfgB Config
	flows      int
	delay      engine.Cycle // one-way propagation, cycles
	noSkip     bool
	trace      TraceOptions
	qlen       func(now engine.Cycle) uint64
	onComplete func(FlowRecord)
	keepInput  bool // Options.KeepInputFrames on both NICs
}

func newBench(t testing.TB, o benchOpts) *bench {
	t.Helper()
	e, err := engine.New(engine.Config{Freq: o.cfgA.ClockHz, NoSkip: o.noSkip})
	if err != nil {
		t.Fatal(err)
	}
	qa, qb := qpPair(o.flows)
	a, err := New(o.cfgA, qa, Options{Name: "A", Trace: o.trace, OnComplete: o.onComplete, KeepInputFrames: o.keepInput})
	if err != nil {
		t.Fatal(err)
	}
	b, err := New(o.cfgB, qb, Options{Name: "B", Trace: o.trace, KeepInputFrames: o.keepInput})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []*NIC{a, b} {
		if err := n.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	ab := &link{from: a.Out(), to: b.In(), delay: o.delay, freq: e.Freq(), stamp: o.cfgA.Tx.INTOnData, enc: o.cfgA.HPCC.Encoding,
		gbps: o.cfgA.HPCC.NICSpeedGbps, qlen: o.qlen, rec: true}
	ba := &link{from: b.Out(), to: a.In(), delay: o.delay, freq: e.Freq(), rec: true}
	abID, err := e.Add("link_ab", ab)
	if err != nil {
		t.Fatal(err)
	}
	baID, err := e.Add("link_ba", ba)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.ConnectOut(abID); err != nil {
		t.Fatal(err)
	}
	if err := b.ConnectOut(baID); err != nil {
		t.Fatal(err)
	}
	return &bench{e: e, a: a, b: b, ab: ab, ba: ba}
}

func (b *bench) open(t testing.TB, q wire.QPN, bytes uint64, start engine.Cycle) FlowID {
	t.Helper()
	id, err := b.a.OpenFlow(FlowSpec{QPN: q, Bytes: bytes, Start: start})
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// runIdle runs until the model is idle, failing beyond limit cycles.
func (b *bench) runIdle(t testing.TB, limit engine.Cycle) {
	t.Helper()
	if !b.e.RunUntilIdle(limit) {
		t.Fatalf("not idle after %d cycles", limit)
	}
}

// testConfig returns DefaultConfig with a smaller QP table.
func testConfig(cc CCMode) Config {
	c := DefaultConfig()
	c.QPs = 64
	c.CC = cc
	c.HPCC.Mode = cc.hpccMode()
	return c
}

func must[T any](v T, err error) func(testing.TB) T {
	return func(t testing.TB) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// decoded decodes a recorded frame.
func decoded(t testing.TB, f []byte) wire.Packet {
	t.Helper()
	var p wire.Packet
	wire.Decode(f, &p)
	if p.Class == wire.ClassMalformed {
		t.Fatalf("recorded frame is malformed (%v): %x", p.Reason, f)
	}
	return p
}

var _ = fmt.Sprintf

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		if i > 0 {
			out = append(out, s[:i])
		}
		if i == len(s) {
			break
		}
		s = s[i+1:]
	}
	return out
}

func fieldValue(word []uint64, off, width int) uint64 {
	var v uint64
	for i := 0; i < width; i++ {
		b := off + i
		v |= (word[b/64] >> uint(b%64) & 1) << uint(i)
	}
	return v
}
