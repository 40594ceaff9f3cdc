package network

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

func star(n int, gbps uint32, delay uint64) Topology {
	return Topology{Kind: KindStar, Hosts: n, HostLink: LinkSpec{Gbps: gbps, DelayNs: delay}}
}

func decode(t testing.TB, f []byte) *wire.Packet {
	t.Helper()
	var p wire.Packet
	wire.Decode(f, &p)
	if p.Class == wire.ClassMalformed {
		t.Fatalf("frame malformed: %v", p.Reason)
	}
	return &p
}

// One frame, one switch: the arrival cycles follow from the link model
// alone (expected values computed by hand from docs/network.md): the
// sender's MAC departs at d = ceil((L+24)*8/100) cycles, the switch takes
// the frame at d + 1000 (1 us propagation), pushes a 32-byte IFA record
// and starts it at once, and the frame arrives at host 1 at
// floor(((d+1000) ns + (L+32+24)*8/100 ns + 1000 ns)).
func TestOneHopTiming(t *testing.T) {
	cfg := DefaultConfig()
	r := newRig(t, star(2, 100, 1000), cfg, false)
	f := dataFrame(t, 0, 1, 1000, telemetry.IFA, wire.ECT0, 50000, 1)
	L := uint64(len(f))
	r.eps[0].sends = []scripted{{0, f}}
	r.run(t, 1_000_000)
	d := (L + 24) * 8 / 100
	if (L+24)*8%100 != 0 {
		d++
	}
	startNs := d + 1000
	wantFS := startNs*1_000_000 + (L+32+24)*80000 + 1000*1_000_000
	want := engine.Cycle(wantFS / 1_000_000)
	got := r.eps[1].got
	if len(got) != 1 {
		t.Fatalf("host 1 received %d frames, want 1", len(got))
	}
	if got[0].at != want {
		t.Errorf("arrival cycle = %d, want %d (L=%d d=%d)", got[0].at, want, L, d)
	}
	p := decode(t, got[0].frame)
	if p.INT.HopCount != 1 {
		t.Fatalf("HopCount = %d, want 1", p.INT.HopCount)
	}
	ph, err := telemetry.ToPhysical(telemetry.IFA, p.Hops[0])
	if err != nil {
		t.Fatal(err)
	}
	wantHop := telemetry.Physical{SwitchID: 1, PortID: 1, SpeedGbps: 100, TsNs: startNs, TxBytes: 0, QlenBytes: 0}
	if ph != wantHop {
		t.Errorf("hop = %+v, want %+v", ph, wantHop)
	}
	pc, q := r.n.Switch(0).Port(1)
	if pc.TxFrames != 1 || pc.TxBytes != L+32 || pc.TxWireBytes != L+32+24 || pc.Stamped != 1 || q != 0 {
		t.Errorf("port counters %+v qlen %d", pc, q)
	}
}

// Two hops (dumbbell, 25G host links, 100G bottleneck), IFA and Compact:
// each switch stamps its own device ID, egress port, speed and egress
// time; the txBytes of the second frame equals the wire bytes of the first
// (frame + hop records pushed so far + 24 bytes of MAC overhead).
func TestTwoHopStamps(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		t.Run(enc.String(), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Encoding = enc
			topo := Topology{Kind: KindDumbbell, LeftHosts: 1, RightHosts: 1, HostLink: LinkSpec{Gbps: 25, DelayNs: 500},
				FabricLink: LinkSpec{Gbps: 100, DelayNs: 700}}
			r := newRig(t, topo, cfg, false)
			f1 := dataFrame(t, 0, 1, 1000, enc, wire.ECT0, 50000, 1)
			f2 := dataFrame(t, 0, 1, 1000, enc, wire.ECT0, 50000, 2)
			r.eps[0].sends = []scripted{{0, f1}, {0, f2}}
			r.run(t, 1_000_000)
			if len(r.eps[1].got) != 2 {
				t.Fatalf("received %d frames, want 2", len(r.eps[1].got))
			}
			L := uint64(len(f1))
			hs := uint64(enc.HopSize())
			d1 := r.eps[0].departs[0]
			// Hop 1 (left switch, port 1 to the right switch, 100G):
			// starts when the frame arrives, d1 + 500 ns.
			s1 := uint64(d1) + 500
			// Hop 2 (right switch, port 0 to host 1, 25G): the frame
			// arrives after 100G serialization of L+hs+24 bytes and 700 ns.
			s2fs := s1*1_000_000 + (L+hs+24)*80000 + 700*1_000_000
			want := [][2]telemetry.Physical{
				{{SwitchID: 1, PortID: 1, SpeedGbps: 100, TsNs: s1}, {SwitchID: 2, PortID: 0, SpeedGbps: 25, TsNs: s2fs / 1_000_000}},
			}
			p := decode(t, r.eps[1].got[0].frame)
			if p.INT.HopCount != 2 {
				t.Fatalf("HopCount = %d, want 2", p.INT.HopCount)
			}
			for i := 0; i < 2; i++ {
				ph, err := telemetry.ToPhysical(enc, p.Hops[i])
				if err != nil {
					t.Fatal(err)
				}
				w := want[0][i]
				if enc == telemetry.Compact {
					w.SwitchID, w.PortID = 0, 0
					w.TsNs &= 1<<telemetry.CompactTsBits - 1
				}
				if ph != w {
					t.Errorf("frame 1 hop %d = %+v, want %+v", i, ph, w)
				}
			}
			// Frame 2's txBytes at each hop: the wire bytes of frame 1 there.
			p2 := decode(t, r.eps[1].got[1].frame)
			for i, wb := range []uint64{L + hs + 24, L + 2*hs + 24} {
				ph, _ := telemetry.ToPhysical(enc, p2.Hops[i])
				want := wb
				if enc == telemetry.Compact {
					want = wb / 128 * 128
				}
				if ph.TxBytes != want {
					t.Errorf("frame 2 hop %d txBytes = %d, want %d", i, ph.TxBytes, want)
				}
			}
		})
	}
}

// Two senders at line rate into one 100G port: the port is work
// conserving (the last frame leaves exactly when the serialization times
// of all frames, back to back from the first start, say), nothing is
// dropped with a large buffer, FIFO order holds per sender, and the
// NoSkip engine gives the same arrivals cycle for cycle.
func TestIncastWorkConserving(t *testing.T) {
	const K = 50
	var logs [2][]received
	for mode, noSkip := range []bool{false, true} {
		cfg := DefaultConfig()
		r := newRig(t, star(3, 100, 1000), cfg, noSkip)
		var L uint64
		for s := 0; s < 2; s++ {
			for k := 0; k < K; k++ {
				f := dataFrame(t, s, 2, 1000, 0, wire.ECT0, uint16(50000+s), uint32(k))
				L = uint64(len(f))
				r.eps[s].sends = append(r.eps[s].sends, scripted{0, f})
			}
		}
		r.run(t, 10_000_000)
		got := r.eps[2].got
		if len(got) != 2*K {
			t.Fatalf("received %d, want %d", len(got), 2*K)
		}
		first := uint64(r.eps[0].departs[0]) + 1000 // first start at the switch, ns
		wantLast := engine.Cycle((first*1_000_000 + 2*K*(L+24)*80000 + 1000*1_000_000) / 1_000_000)
		if got[len(got)-1].at != wantLast {
			t.Errorf("last arrival = %d, want %d", got[len(got)-1].at, wantLast)
		}
		next := [2]uint32{}
		for _, g := range got {
			p := decode(t, g.frame)
			s := int(p.UDPSrcPort - 50000)
			if uint32(p.PSN) != next[s] {
				t.Fatalf("sender %d: PSN %d, want %d", s, p.PSN, next[s])
			}
			next[s]++
		}
		pc, _ := r.n.Switch(0).Port(2)
		if pc.Drops != 0 || pc.TxFrames != 2*K {
			t.Errorf("port: %+v", pc)
		}
		if noSkip && r.e.Stats().UnexpectedProgress != 0 {
			t.Errorf("UnexpectedProgress = %d", r.e.Stats().UnexpectedProgress)
		}
		logs[mode] = got
	}
	if !reflect.DeepEqual(logs[0], logs[1]) {
		t.Error("arrivals differ with and without idle skipping")
	}
}

// A small per-port buffer (and a small shared buffer) drops by tail drop:
// delivered + dropped = sent, the queue never exceeds the limit.
func TestBufferDrops(t *testing.T) {
	for _, c := range []struct {
		name           string
		buffer, shared uint64
	}{{"port", 4000, 0}, {"shared", 1 << 20, 5000}} {
		t.Run(c.name, func(t *testing.T) {
			const K = 40
			cfg := DefaultConfig()
			cfg.Switch.BufferBytes, cfg.Switch.SharedBufferBytes = c.buffer, c.shared
			r := newRig(t, star(3, 100, 1000), cfg, false)
			for s := 0; s < 2; s++ {
				for k := 0; k < K; k++ {
					r.eps[s].sends = append(r.eps[s].sends, scripted{0, dataFrame(t, s, 2, 1000, 0, wire.ECT0, uint16(50000+s), uint32(k))})
				}
			}
			r.run(t, 10_000_000)
			pc, _ := r.n.Switch(0).Port(2)
			if pc.Drops == 0 || pc.BufferDrops != pc.Drops {
				t.Errorf("drops = %d (buffer %d), want > 0, all buffer drops", pc.Drops, pc.BufferDrops)
			}
			if uint64(len(r.eps[2].got))+pc.Drops != 2*K {
				t.Errorf("delivered %d + dropped %d != sent %d", len(r.eps[2].got), pc.Drops, 2*K)
			}
			lim := c.buffer
			if c.shared > 0 {
				lim = min(lim, c.shared)
			}
			if pc.MaxQBytes > lim {
				t.Errorf("max queue %d > limit %d", pc.MaxQBytes, lim)
			}
		})
	}
}

// WRED/ECN: with K_min = 0 and K_max = 1 byte every ECN-capable packet
// that finds a non-empty queue is marked and no other; Not-ECT packets are
// never marked, and with drop_not_ect_bytes = 1 they are dropped exactly
// when the queue is non-empty. Marked frames still decode (the IPv4
// checksum was updated; the ICRC masks the ECN bits).
func TestECNThresholds(t *testing.T) {
	for _, ecn := range []wire.ECN{wire.ECT0, wire.NotECT} {
		t.Run(fmt.Sprint(ecn), func(t *testing.T) {
			const K = 30
			cfg := DefaultConfig()
			cfg.Switch.ECN = ECNConfig{Enabled: true, KMinBytes: 0, KMaxBytes: 1, PMax: 0.5, DropNotECTBytes: 1}
			r := newRig(t, star(3, 100, 1000), cfg, false)
			for s := 0; s < 2; s++ {
				for k := 0; k < K; k++ {
					r.eps[s].sends = append(r.eps[s].sends, scripted{engine.Cycle(k * 300), dataFrame(t, s, 2, 1000, 0, ecn, uint16(50000+s), uint32(k))})
				}
			}
			r.run(t, 10_000_000)
			pc, _ := r.n.Switch(0).Port(2)
			ce := 0
			for _, g := range r.eps[2].got {
				if decode(t, g.frame).ECN == wire.CE {
					ce++
				}
			}
			// The two senders' frames arrive in the same cycle: the second
			// finds the first queued (the first starts at once only after
			// the arrivals of the cycle are enqueued).
			if ecn == wire.ECT0 {
				if pc.ECNMarks != K || ce != K || pc.Drops != 0 {
					t.Errorf("marks=%d CE received=%d drops=%d, want %d, %d, 0", pc.ECNMarks, ce, pc.Drops, K, K)
				}
			} else {
				if pc.ECNMarks != 0 || ce != 0 || pc.NotECTDrops != K || len(r.eps[2].got) != K {
					t.Errorf("marks=%d CE=%d NotECT drops=%d received=%d, want 0, 0, %d, %d", pc.ECNMarks, ce, pc.NotECTDrops, len(r.eps[2].got), K, K)
				}
			}
		})
	}
}

// The WRED draw: p = (q-K_min)/(K_max-K_min)*P_max. Over 200000 draws at
// each queue length the marked fraction is within 5 standard deviations of
// p (binomial), and the same seed gives the same decisions.
func TestWREDProbability(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Switch.ECN = ECNConfig{Enabled: true, KMinBytes: 10000, KMaxBytes: 50000, PMax: 0.2}
	n, err := star(2, 100, 0).Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := star(2, 100, 0).Build(cfg)
	if err != nil {
		t.Fatal(err)
	}
	s, s2 := n.Switch(0), m.Switch(0)
	for _, q := range []uint64{0, 9999, 10000, 20000, 30000, 49999, 50000, 80000} {
		p := 0.0
		switch {
		case q >= 50000:
			p = 1
		case q >= 10000:
			p = float64(q-10000) / 40000 * 0.2
		}
		const N = 200000
		hits := 0
		for i := 0; i < N; i++ {
			a, b := s.mark(q), s2.mark(q)
			if a != b {
				t.Fatalf("q=%d draw %d: same seed, different decision", q, i)
			}
			if a {
				hits++
			}
		}
		got := float64(hits) / N
		sd := 5 * math.Sqrt(p*(1-p)/N)
		if got < p-sd-1e-12 || got > p+sd+1e-12 {
			t.Errorf("q=%d: marked fraction %.5f, want %.5f +- %.5f", q, got, p, sd)
		}
	}
}

// ECMP on a leaf-spine: 64 flows (UDP source ports) from leaf 0 to leaf 1
// spread over all 4 spines, and every frame takes the spine Network.Path
// predicts.
func TestECMPLeafSpine(t *testing.T) {
	cfg := DefaultConfig()
	topo := Topology{Kind: KindLeafSpine, Leaves: 2, Spines: 4, HostsPerLeaf: 2, HostLink: LinkSpec{Gbps: 100, DelayNs: 1000},
		FabricLink: LinkSpec{Gbps: 100, DelayNs: 1000}}
	r := newRig(t, topo, cfg, false)
	want := map[int]uint64{}
	for k := 0; k < 64; k++ {
		sport := uint16(49152 + k*37)
		path, err := r.n.Path(0, 2, sport)
		if err != nil {
			t.Fatal(err)
		}
		if len(path) != 4 || path[2].Switch < 2 {
			t.Fatalf("path %+v: want host, leaf, spine, leaf", path)
		}
		want[path[2].Switch]++
		r.eps[0].sends = append(r.eps[0].sends, scripted{0, dataFrame(t, 0, 2, 500, telemetry.IFA, wire.ECT0, sport, uint32(k))})
	}
	r.run(t, 10_000_000)
	if len(r.eps[2].got) != 64 {
		t.Fatalf("received %d, want 64", len(r.eps[2].got))
	}
	for sp := 2; sp < 6; sp++ {
		var tx uint64
		s := r.n.Switch(sp)
		for p := 0; p < s.Ports(); p++ {
			c, _ := s.Port(p)
			tx += c.TxFrames
		}
		if tx != want[sp] || tx == 0 {
			t.Errorf("spine %d forwarded %d frames, Path predicts %d (want > 0)", sp, tx, want[sp])
		}
	}
	// Each received frame carries 3 hops: leaf 0, a spine, leaf 1.
	for _, g := range r.eps[2].got {
		p := decode(t, g.frame)
		if p.INT.HopCount != 3 || p.Hops[0].DeviceID != 1 || p.Hops[2].DeviceID != 2 || p.Hops[1].DeviceID < 3 {
			t.Fatalf("hops %+v", p.HopList())
		}
	}
}

// Frames that cannot be routed are counted and dropped.
func TestMalformedAndNoRoute(t *testing.T) {
	r := newRig(t, star(2, 100, 10), DefaultConfig(), false)
	bad := make([]byte, 60) // EtherType 0
	far := dataFrame(t, 0, 9, 100, 0, wire.ECT0, 50000, 0)
	r.eps[0].sends = []scripted{{0, bad}, {0, far}}
	r.run(t, 100000)
	c := r.n.Switch(0).Counters()
	if c.Malformed != 1 || c.NoRoute != 1 || len(r.eps[1].got) != 0 {
		t.Errorf("counters %+v, received %d", c, len(r.eps[1].got))
	}
}

// Bad configurations and topologies are rejected with the field and value.
func TestValidationErrors(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Topology, *Config)
		want string
	}{
		{"kind", func(t *Topology, c *Config) { t.Kind = "ring" }, `topology.kind="ring"`},
		{"hosts", func(t *Topology, c *Config) { t.Hosts = 1 }, "topology.hosts=1"},
		{"unused", func(t *Topology, c *Config) { t.Spines = 2 }, "topology.spines=2: not used"},
		{"gbps", func(t *Topology, c *Config) { t.HostLink.Gbps = 0 }, "topology.host_link.gbps=0"},
		{"speed code", func(t *Topology, c *Config) { t.HostLink.Gbps = 30 }, "gbps=30"},
		{"compact 10G", func(t *Topology, c *Config) { t.HostLink.Gbps = 10; c.Encoding = telemetry.Compact }, "gbps=10"},
		{"buffer", func(t *Topology, c *Config) { c.Switch.BufferBytes = 0 }, "switch.buffer_bytes=0"},
		{"kmax", func(t *Topology, c *Config) { c.Switch.ECN = ECNConfig{Enabled: true, KMinBytes: 5, KMaxBytes: 5} }, "switch.ecn.k_max_bytes=5"},
		{"pmax", func(t *Topology, c *Config) {
			c.Switch.ECN = ECNConfig{Enabled: true, KMinBytes: 5, KMaxBytes: 6, PMax: 1.5}
		}, "switch.ecn.p_max=1.5"},
		{"ecn off", func(t *Topology, c *Config) { c.Switch.ECN = ECNConfig{KMinBytes: 5} }, "switch.ecn.enabled=false"},
		{"overhead", func(t *Topology, c *Config) { c.MACOverheadBytes = -1 }, "mac_overhead_bytes=-1"},
		{"mtu", func(t *Topology, c *Config) { c.Switch.MTUBytes = 10 }, "switch.mtu_bytes=10"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo := star(3, 100, 1000)
			cfg := DefaultConfig()
			c.mod(&topo, &cfg)
			_, err := topo.Build(cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	// Builder-level errors.
	b := NewBuilder()
	h0, h1 := b.AddHost("a"), b.AddHost("b")
	s := b.AddSwitch("s")
	b.Link(h0, s, LinkSpec{Gbps: 100})
	b.Link(h1, s, LinkSpec{Gbps: 100})
	b.Link(h0, s, LinkSpec{Gbps: 100})
	if _, err := b.Build(DefaultConfig()); err == nil || !strings.Contains(err.Error(), "second link") {
		t.Errorf("two links on a host: err = %v", err)
	}
	b = NewBuilder()
	h0, h1 = b.AddHost("a"), b.AddHost("b")
	s, s2 := b.AddSwitch("s"), b.AddSwitch("t")
	b.Link(h0, s, LinkSpec{Gbps: 100})
	b.Link(h1, s2, LinkSpec{Gbps: 100})
	if _, err := b.Build(DefaultConfig()); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("disconnected: err = %v", err)
	}
}

// QueueLog statistics on a hand-made history (expected values by hand):
// 0 until cycle 10, 100 in [10,20), 300 in [20,25), 50 in [25,40), 0 from 40.
func TestQueueLog(t *testing.T) {
	var l QueueLog
	l.add(10, 5)
	l.add(10, 100) // same cycle: the end-of-cycle value wins
	l.add(20, 300)
	l.add(25, 50)
	l.add(40, 0)
	if l.Len() != 4 {
		t.Fatalf("Len = %d, want 4", l.Len())
	}
	if v, at := l.Max(0, 100); v != 300 || at != 20 {
		t.Errorf("Max = %d at %d, want 300 at 20", v, at)
	}
	if v, at := l.Max(22, 100); v != 300 || at != 22 {
		t.Errorf("Max from 22 = %d at %d, want 300 at 22", v, at)
	}
	// Over [0,100): 0 for 10+60=70 cycles, 50 for 15, 100 for 10, 300 for 5.
	for _, c := range []struct {
		p    float64
		want uint64
	}{{0.5, 0}, {0.7, 0}, {0.71, 50}, {0.85, 50}, {0.9, 100}, {0.95, 100}, {0.96, 300}, {1, 300}} {
		if got := l.Percentile(c.p, 0, 100); got != c.want {
			t.Errorf("Percentile(%v) = %d, want %d", c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		x    uint64
		want engine.Cycle
	}{{1, 40}, {60, 25}, {101, 25}, {200, 25}, {301, 0}} {
		got, ok := l.SettleCycle(c.x, 0, 100)
		if !ok || got != c.want {
			t.Errorf("SettleCycle(%d) = %d, %v; want %d", c.x, got, ok, c.want)
		}
	}
	if _, ok := l.SettleCycle(10, 0, 30); ok {
		t.Error("SettleCycle(10, 0, 30): queue is 300 at cycle 29, want not settled")
	}
}

// TestECNMarkAtDequeue repeats TestECNThresholds' deterministic setting
// (every ECN-capable packet is marked when q >= 1 byte) with two senders
// whose frames arrive in the same cycle, pair after pair. Marking at
// arrival marks the frame that joins behind the other (sender 1's, the
// second enqueued); marking at dequeue (ECNConfig.MarkAtDequeue, q = the
// bytes left behind) marks the frame that leaves with the other still
// queued (sender 0's). Expected counts follow from the queue contents at
// each instant: K marks either way, all on one sender.
func TestECNMarkAtDequeue(t *testing.T) {
	for _, deq := range []bool{false, true} {
		t.Run(fmt.Sprint("dequeue=", deq), func(t *testing.T) {
			const K = 30
			cfg := DefaultConfig()
			cfg.Switch.ECN = ECNConfig{Enabled: true, KMinBytes: 0, KMaxBytes: 1, PMax: 0.5, MarkAtDequeue: deq}
			r := newRig(t, star(3, 100, 1000), cfg, false)
			for s := 0; s < 2; s++ {
				for k := 0; k < K; k++ {
					r.eps[s].sends = append(r.eps[s].sends, scripted{engine.Cycle(k * 300), dataFrame(t, s, 2, 1000, 0, wire.ECT0, uint16(50000+s), uint32(k))})
				}
			}
			r.run(t, 10_000_000)
			pc, _ := r.n.Switch(0).Port(2)
			var ce [2]int
			for _, g := range r.eps[2].got {
				p := decode(t, g.frame)
				if p.ECN == wire.CE {
					ce[p.IPv4().Src()[3]-1]++
				}
			}
			want := [2]int{0, K}
			if deq {
				want = [2]int{K, 0}
			}
			if pc.ECNMarks != K || ce != want {
				t.Errorf("marks=%d CE by sender=%v, want %d and %v", pc.ECNMarks, ce, K, want)
			}
		})
	}
}
