package network

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// classFrame is dataFrame with an IPv4 DSCP (the traffic class the
// switches classify by).
func classFrame(t testing.TB, src, dst, n int, enc telemetry.Encoding, dscp uint8, sport uint16, psn uint32) []byte {
	t.Helper()
	a, b := HostAddr(src), HostAddr(dst)
	d := wire.Data{Path: wire.Path{SrcMAC: a.MAC, DstMAC: b.MAC, SrcIP: a.IP, DstIP: b.IP, DSCP: dscp, ECN: wire.ECT0, TTL: 64, UDPSrcPort: sport},
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

// fanIn is two 400 Gbps senders into one 100 Gbps receiver on one switch
// (ports 0, 1: senders; port 2: receiver), so that the receiver's port is
// backlogged in both classes for most of the run.
func fanIn() Topology {
	return Topology{Kind: KindStar, Hosts: 3, HostLink: LinkSpec{Gbps: 400, DelayNs: 1000}}
}

// incastClasses sends K frames of payload n from host 0 in DSCP 10 and K
// from host 1 in DSCP 20 to host 2, all at cycle 0, and returns the rig
// after the run.
func incastClasses(t *testing.T, cfg Config, topo Topology, K, n int) *rig {
	t.Helper()
	r := newRig(t, topo, cfg, false)
	for k := 0; k < K; k++ {
		r.eps[0].sends = append(r.eps[0].sends, scripted{0, classFrame(t, 0, 2, n, cfg.Encoding, 10, 50000, uint32(k))})
		r.eps[1].sends = append(r.eps[1].sends, scripted{0, classFrame(t, 1, 2, n, cfg.Encoding, 20, 50001, uint32(k))})
	}
	r.run(t, 100_000_000)
	if got := len(r.eps[2].got); got != 2*K {
		t.Fatalf("received %d frames, want %d", got, 2*K)
	}
	return r
}

func twoClasses(w0, w1 uint32, quantum uint64) QoSConfig {
	return QoSConfig{Classes: []ClassSpec{{DSCP: 10, Weight: w0}, {DSCP: 20, Weight: w1}}, QuantumBytes: quantum}
}

// DWRR shares: two classes backlogged at one 100 Gbps port with equal
// frames are served in the ratio of their weights. Oracle: the DWRR
// fairness bound (Shreedhar and Varghese 1995): over any prefix of the
// service while both classes stay backlogged, the frames served satisfy
// |n0/w0 - n1/w1| <= 1 + max frame/quantum = 2 (quantum = one frame's wire
// bytes), i.e. |n0*w1 - n1*w0| <= 2*w0*w1; a FIFO (1:1 service, the
// arrival interleaving) fails it for unequal weights. Both classes'
// frames are all delivered (work conserving: the last frame leaves when
// the port has sent every byte back to back, as a FIFO would).
func TestDWRRShares(t *testing.T) {
	const K, n = 120, 1000
	cases := []struct{ w0, w1 uint32 }{{3, 1}, {1, 1}, {1, 4}, {7, 2}}
	var fifoLast engine.Cycle
	{
		cfg := DefaultConfig()
		cfg.Encoding = telemetry.IFA
		r := incastClasses(t, cfg, fanIn(), K, n)
		fifoLast = r.eps[2].got[2*K-1].at
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d:%d", c.w0, c.w1), func(t *testing.T) {
			cfg := DefaultConfig()
			L := len(classFrame(t, 0, 2, n, telemetry.IFA, 10, 1, 0))
			cfg.Switch.QoS = twoClasses(c.w0, c.w1, uint64(L+cfg.MACOverheadBytes))
			r := incastClasses(t, cfg, fanIn(), K, n)
			got := r.eps[2].got
			var n0, n1 int64
			bound := 2 * int64(c.w0) * int64(c.w1)
			for i, g := range got {
				if decode(t, g.frame).UDPSrcPort == 50000 {
					n0++
				} else {
					n1++
				}
				if n0 == K || n1 == K {
					break // one class ran out: no longer both backlogged
				}
				if i < 4 {
					continue // the queue is still forming (class 1's first frame may not be there)
				}
				if d := n0*int64(c.w1) - n1*int64(c.w0); d > bound || d < -bound {
					t.Fatalf("after %d frames: class 0 %d, class 1 %d: |n0*w1 - n1*w0| = %d > %d", i+1, n0, n1, d, bound)
				}
			}
			if last := got[2*K-1].at; last != fifoLast {
				t.Errorf("last arrival %d, want %d (the FIFO port's: work conserving)", last, fifoLast)
			}
			for k := 0; k < 2; k++ {
				cc, q := r.n.Switch(0).Class(2, k)
				if cc.TxFrames != K || q != 0 {
					t.Errorf("class %d: %+v, queue %d; want %d frames, empty", k, cc, q, K)
				}
			}
		})
	}
}

// Per-class telemetry: with QoS each hop record reports its class queue's
// own counters. Oracle: the frames as received, in order: the txBytes of
// the k-th frame of a class is the sum of the wire bytes (frame as sent on
// the port, with its record, + MAC overhead) of the class's earlier
// frames, and its qlen is the class's queue after it left, which is never
// above the class's high-water mark and 0 for the class's last frame.
func TestClassTelemetry(t *testing.T) {
	const K, n = 60, 1000
	cfg := DefaultConfig()
	cfg.Switch.QoS = twoClasses(3, 1, 1500)
	r := incastClasses(t, cfg, fanIn(), K, n)
	var sent [2]uint64
	var last [2]uint64
	for _, g := range r.eps[2].got {
		p := decode(t, g.frame)
		c := int(p.UDPSrcPort - 50000)
		ph, err := telemetry.ToPhysical(cfg.Encoding, p.Hops[0])
		if err != nil {
			t.Fatal(err)
		}
		if ph.TxBytes != sent[c] {
			t.Fatalf("class %d PSN %d: txBytes %d, want %d (the class's own wire bytes before it)", c, p.PSN, ph.TxBytes, sent[c])
		}
		cc, _ := r.n.Switch(0).Class(2, c)
		if ph.QlenBytes > cc.MaxQBytes {
			t.Fatalf("class %d PSN %d: qlen %d above the class's high-water mark %d", c, p.PSN, ph.QlenBytes, cc.MaxQBytes)
		}
		sent[c] += uint64(len(g.frame) + cfg.MACOverheadBytes)
		last[c] = ph.QlenBytes
	}
	for c := 0; c < 2; c++ {
		cc, _ := r.n.Switch(0).Class(2, c)
		if cc.TxWireBytes != sent[c] || last[c] != 0 {
			t.Errorf("class %d: TxWireBytes %d, want %d; last qlen %d, want 0", c, cc.TxWireBytes, sent[c], last[c])
		}
	}
	pc, _ := r.n.Switch(0).Port(2)
	if pc.TxWireBytes != sent[0]+sent[1] {
		t.Errorf("port TxWireBytes %d, want %d", pc.TxWireBytes, sent[0]+sent[1])
	}
}

// One class is the plain FIFO port: the received frames (bytes and
// cycles) are identical with qos.classes = [one class] and without QoS,
// for both encodings. Oracle: the FIFO run.
func TestOneClassIsFIFO(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		var runs [2][]received
		for i, qos := range []QoSConfig{{}, {Classes: []ClassSpec{{DSCP: 10, Weight: 5}}}} {
			cfg := DefaultConfig()
			cfg.Encoding = enc
			cfg.Switch.QoS = qos
			runs[i] = incastClasses(t, cfg, fanIn(), 40, 1000).eps[2].got
		}
		if !reflect.DeepEqual(runs[0], runs[1]) {
			t.Errorf("%v: one class differs from no QoS", enc)
		}
	}
}

// Sojourn time (HPCC++ draft 9.4): with switch.sojourn each IFA record
// carries rxTimestamp = the instant the frame joined its egress queue and
// residenceTime = the egress instant minus it. Oracle: the run without
// sojourn (every frame, byte for byte in everything but those two fields,
// at the same cycle, with the same egress time rx + residence) and the
// ingress instants by hand: the sender's departure cycle + 1000 ns of
// propagation (zero forwarding latency).
func TestSojourn(t *testing.T) {
	const K, n = 40, 1000
	var runs [2]*rig
	for i, on := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.Switch.Sojourn = on
		runs[i] = incastClasses(t, cfg, fanIn(), K, n)
	}
	off, on := runs[0].eps[2].got, runs[1].eps[2].got
	var next [2]int
	sawQueue := false
	for i := range on {
		if off[i].at != on[i].at || len(off[i].frame) != len(on[i].frame) {
			t.Fatalf("frame %d: at %d len %d, want %d, %d", i, on[i].at, len(on[i].frame), off[i].at, len(off[i].frame))
		}
		po, pn := decode(t, off[i].frame), decode(t, on[i].frame)
		ho, hn := po.Hops[0], pn.Hops[0]
		es, ens := telemetry.EgressTime(telemetry.IFA, ho)
		gs, gns := telemetry.EgressTime(telemetry.IFA, hn)
		if es != gs || ens != gns {
			t.Fatalf("frame %d: egress %d.%09d, want %d.%09d", i, gs, gns, es, ens)
		}
		s := int(pn.UDPSrcPort - 50000)
		in := uint64(runs[1].eps[s].departs[next[s]]) + 1000
		next[s]++
		eg := uint64(ens) + uint64(es)*telemetry.NsPerSecond
		if hn.ResidenceNs != uint32(eg-in) || uint64(hn.RxNs)+uint64(hn.RxSec)*telemetry.NsPerSecond != in {
			t.Fatalf("frame %d: rx %d.%09d residence %d, want rx %d residence %d", i, hn.RxSec, hn.RxNs, hn.ResidenceNs, in, eg-in)
		}
		sawQueue = sawQueue || hn.ResidenceNs > 0
		hn.RxSec, hn.RxNs, hn.ResidenceNs = ho.RxSec, ho.RxNs, ho.ResidenceNs
		if hn != ho {
			t.Fatalf("frame %d: record %+v, want %+v apart from the times", i, hn, ho)
		}
	}
	if !sawQueue {
		t.Error("no frame waited: the test does not exercise a sojourn")
	}
	// The 32-bit residence saturates with the egress time kept exact.
	for _, c := range []struct{ in, eg, rx, res uint64 }{
		{5, 5, 5, 0},
		{1_000_000_000 - 1, 1_000_000_000 + 7, 1_000_000_000 - 1, 8},
		{0, 5_000_000_000, 5_000_000_000 - (1<<32 - 1), 1<<32 - 1},
	} {
		var h telemetry.Hop
		stampSojourn(&h, c.in, c.eg)
		if got := uint64(h.RxSec)*telemetry.NsPerSecond + uint64(h.RxNs); got != c.rx || uint64(h.ResidenceNs) != c.res {
			t.Errorf("stampSojourn(%d, %d): rx %d residence %d, want %d, %d", c.in, c.eg, got, h.ResidenceNs, c.rx, c.res)
		}
	}
}

// sampleOracle models the first switch's egress port of TestSampling
// independently of the switch: one FIFO server at 100 Gbps fed by the
// senders' frames (arrival = departure cycle + 500 ns, ties in host
// order), start = max(arrival, previous end) in fs, a stamped frame 32
// bytes (one IFA record) longer on the wire, and the SampleConfig rule on
// the flow table (entry = flowHash(0, ...) mod TableEntries; the queue is
// the bytes that arrived by the start's cycle and have not started). It
// returns, per sender, whether each frame was stamped.
func sampleOracle(sc SampleConfig, r *rig, lens [2]int) [2][]bool {
	type fr struct {
		at   uint64 // arrival cycle (ns)
		host int
	}
	var frs []fr
	for h := 0; h < 2; h++ {
		for _, d := range r.eps[h].departs {
			frs = append(frs, fr{uint64(d) + 500, h})
		}
	}
	sortStable(frs, func(a, b fr) bool { return a.at < b.at || a.at == b.at && a.host < b.host })
	var out [2][]bool
	table := make([]uint64, sc.TableEntries) // 1 + last stamp instant, fs
	var busy uint64
	for i, f := range frs {
		start := max(f.at*1_000_000, busy)
		var q uint64
		for _, g := range frs[i+1:] {
			if g.at > start/1_000_000 {
				break
			}
			q += uint64(lens[g.host])
		}
		k := &table[flowHash(0, hostIPBase+uint32(f.host), hostIPBase+2, uint16(50000+f.host), roceUDPPort)%uint32(len(table))]
		stamp := *k == 0 || start-(*k-1) >= sc.IntervalNs*1_000_000 || sc.Mode == SampleCongestion && q >= sc.ThresholdBytes
		w := uint64(lens[f.host] + 24)
		if stamp {
			*k = start + 1
			w += telemetry.IFAHopSize
		}
		busy = start + w*80_000 // 100 Gbps: 80000 fs per byte
		out[f.host] = append(out[f.host], stamp)
	}
	return out
}

func sortStable[T any](s []T, less func(a, b T) bool) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && less(s[j], s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Sampled telemetry (HPCC++ draft section 6): at the first switch a flow's
// packets get records at most once per interval, and (mode congestion)
// whenever the queue they leave holds threshold bytes; a later switch
// stamps exactly the packets that already carry a record, so a packet
// carries every hop's record or none. Oracle: sampleOracle (an
// independent model of the first switch's port and the rule) on a
// dumbbell of two switches; and the Unsampled counter.
func TestSampling(t *testing.T) {
	const K, n = 200, 1000
	topo := Topology{Kind: KindDumbbell, LeftHosts: 2, RightHosts: 1, HostLink: LinkSpec{Gbps: 100, DelayNs: 500},
		FabricLink: LinkSpec{Gbps: 100, DelayNs: 700}}
	for _, sc := range []SampleConfig{
		{Mode: SampleInterval, IntervalNs: 2000, TableEntries: 64},
		{Mode: SampleInterval, IntervalNs: 9000, TableEntries: 64},
		{Mode: SampleInterval, IntervalNs: 9000, TableEntries: 1},
		{Mode: SampleCongestion, IntervalNs: 9000, ThresholdBytes: 30_000, TableEntries: 64},
	} {
		t.Run(fmt.Sprintf("%v-%d-%d", sc.Mode, sc.IntervalNs, sc.TableEntries), func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Switch.Sample = sc
			r := newRig(t, topo, cfg, false)
			var lens [2]int
			for h := 0; h < 2; h++ {
				for k := 0; k < K; k++ {
					f := classFrame(t, h, 2, n, cfg.Encoding, 26, uint16(50000+h), uint32(k))
					lens[h] = len(f)
					r.eps[h].sends = append(r.eps[h].sends, scripted{0, f})
				}
			}
			r.run(t, 100_000_000)
			if len(r.eps[2].got) != 2*K {
				t.Fatalf("received %d, want %d", len(r.eps[2].got), 2*K)
			}
			var got [2][]bool
			stamped := 0
			for _, g := range r.eps[2].got {
				p := decode(t, g.frame)
				if p.INT.HopCount != 0 && p.INT.HopCount != 2 {
					t.Fatalf("PSN %d: %d hops: a sampled path carries every record or none", p.PSN, p.INT.HopCount)
				}
				s := p.UDPSrcPort - 50000
				got[s] = append(got[s], p.INT.HopCount == 2)
				if p.INT.HopCount == 2 {
					stamped++
				}
			}
			want := sampleOracle(sc, r, lens)
			for s := 0; s < 2; s++ {
				if !reflect.DeepEqual(got[s], want[s]) {
					t.Errorf("flow %d: stamped %v, want %v", s, got[s], want[s])
				}
			}
			hops, err := r.n.Path(0, 2, 50000)
			if err != nil {
				t.Fatal(err)
			}
			pc, _ := r.n.Switch(0).Port(hops[1].Port)
			if pc.Unsampled != uint64(2*K-stamped) || pc.Stamped != uint64(stamped) || stamped == 0 || stamped == 2*K {
				t.Errorf("uplink Unsampled = %d, Stamped = %d; stamped %d of %d", pc.Unsampled, pc.Stamped, stamped, 2*K)
			}
		})
	}
}

func TestQoSValidation(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"quantum", func(c *Config) { c.Switch.QoS = twoClasses(1, 1, 10) }, "switch.qos.quantum_bytes=10"},
		{"quantum no classes", func(c *Config) { c.Switch.QoS.QuantumBytes = 1500 }, "switch.qos.quantum_bytes=1500: no classes"},
		{"weight", func(c *Config) { c.Switch.QoS = twoClasses(0, 1, 1500) }, "switch.qos.classes[0].weight=0"},
		{"weight max", func(c *Config) { c.Switch.QoS = twoClasses(1, 1001, 1500) }, "switch.qos.classes[1].weight=1001"},
		{"dscp", func(c *Config) { c.Switch.QoS = twoClasses(1, 1, 1500); c.Switch.QoS.Classes[1].DSCP = 64 }, "switch.qos.classes[1].dscp=64"},
		{"dscp twice", func(c *Config) { c.Switch.QoS = twoClasses(1, 1, 1500); c.Switch.QoS.Classes[1].DSCP = 10 }, "switch.qos.classes[1].dscp=10: also class 0's"},
		{"classes", func(c *Config) {
			c.Switch.QoS.QuantumBytes = 1500
			for i := 0; i < 9; i++ {
				c.Switch.QoS.Classes = append(c.Switch.QoS.Classes, ClassSpec{DSCP: uint8(i), Weight: 1})
			}
		}, "9 classes"},
		{"sojourn compact", func(c *Config) { c.Encoding = telemetry.Compact; c.Switch.Sojourn = true }, "switch.sojourn=true: encoding=compact"},
		{"sojourn no int", func(c *Config) { c.Switch.INT = false; c.Switch.Sojourn = true }, "switch.sojourn=true: switch.int=false"},
		{"sample mode", func(c *Config) { c.Switch.Sample.Mode = 7 }, "switch.sample.mode=SampleMode(7)"},
		{"sample every", func(c *Config) { c.Switch.Sample.IntervalNs = 5 }, "switch.sample.mode=every with"},
		{"sample interval", func(c *Config) { c.Switch.Sample = SampleConfig{Mode: SampleInterval, TableEntries: 1} }, "switch.sample.interval_ns=0"},
		{"sample table", func(c *Config) { c.Switch.Sample = SampleConfig{Mode: SampleInterval, IntervalNs: 9} }, "switch.sample.table_entries=0"},
		{"sample threshold", func(c *Config) {
			c.Switch.Sample = SampleConfig{Mode: SampleCongestion, IntervalNs: 9, TableEntries: 1}
		}, "switch.sample.threshold_bytes=0"},
		{"sample threshold interval", func(c *Config) {
			c.Switch.Sample = SampleConfig{Mode: SampleInterval, IntervalNs: 9, TableEntries: 1, ThresholdBytes: 5}
		}, "switch.sample.threshold_bytes=5: only mode congestion"},
		{"sample no int", func(c *Config) {
			c.Switch.INT = false
			c.Switch.Sample = SampleConfig{Mode: SampleInterval, IntervalNs: 9, TableEntries: 1}
		}, "switch.int=false: sampling needs INT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := DefaultConfig()
			c.mod(&cfg)
			err := cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
	var m SampleMode
	if err := m.UnmarshalText([]byte("congestion")); err != nil || m != SampleCongestion {
		t.Errorf("UnmarshalText(congestion) = %v, %v", m, err)
	}
	if err := m.UnmarshalText([]byte("Every")); err == nil {
		t.Error("UnmarshalText(Every): no error")
	}
}

// The sampling rule at its edges, on one port's flow table (expected
// values by hand from SampleConfig's rule, interval 1000 ns = 10^9 fs,
// threshold 3000 bytes): the first packet is stamped; one fs before the
// interval is not, at the interval it is; a queue of threshold-1 does not
// trigger, threshold does (mode congestion), without the interval; a probe
// is stamped and leaves the entry; a packet that did not come from a host
// follows its stack (here: an empty one, so no record).
func TestSampleRule(t *testing.T) {
	const iv = 1_000_000_000 // 1000 ns in fs
	sc := SampleConfig{Mode: SampleCongestion, IntervalNs: 1000, ThresholdBytes: 3000, TableEntries: 4}
	cfg := DefaultConfig()
	cfg.Switch.Sample = sc
	s := &Switch{cfg: &cfg}
	p := &port{sampled: make([]uint64, 4)}
	rows := []struct {
		name  string
		e     queued
		start uint64
		q     uint64
		want  bool
		entry uint64 // table entry of flow 1 afterwards
	}{
		{"first", queued{first: true, flow: 1}, 5, 0, true, 6},
		{"inside", queued{first: true, flow: 1}, 5 + iv - 1, 0, false, 6},
		{"other entry", queued{first: true, flow: 2}, 5 + iv - 1, 0, true, 6},
		{"below threshold", queued{first: true, flow: 1}, 10, 2999, false, 6},
		{"threshold", queued{first: true, flow: 1}, 11, 3000, true, 12},
		{"probe", queued{first: true, flow: 1, probe: true}, 13, 0, true, 12},
		{"same entry (5 mod 4)", queued{first: true, flow: 5}, 11 + iv - 1, 0, false, 12},
		{"interval", queued{first: true, flow: 1}, 11 + iv, 0, true, 12 + iv},
		{"later switch, empty stack", queued{flow: 1, frame: classFrame(t, 0, 1, 100, telemetry.IFA, 26, 1, 0), ipOff: wire.EthernetHeaderLen}, 1 << 40, 0, false, 12 + iv},
	}
	unsampled := uint64(0)
	for _, r := range rows {
		if got := s.sample(p, &r.e, r.start, r.q); got != r.want {
			t.Errorf("%s: sample = %v, want %v", r.name, got, r.want)
		}
		if !r.want && r.e.first {
			unsampled++
		}
		if p.sampled[1] != r.entry {
			t.Errorf("%s: entry = %d, want %d", r.name, p.sampled[1], r.entry)
		}
	}
	if p.cnt.Unsampled != unsampled {
		t.Errorf("Unsampled = %d, want %d", p.cnt.Unsampled, unsampled)
	}
	sc.Mode, sc.ThresholdBytes = SampleInterval, 0
	cfg.Switch.Sample = sc
	p = &port{sampled: make([]uint64, 4)}
	s.sample(p, &queued{first: true, flow: 1}, 0, 0)
	if s.sample(p, &queued{first: true, flow: 1}, 1, 1<<30) {
		t.Error("mode interval: a deep queue triggered a record")
	}
}
