package network

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// paperFatTree is the HPCC paper's evaluation topology (section 5.1): 5
// pods of 4 ToRs and 4 aggregation switches, 16 hosts per ToR, 16 cores.
func paperFatTree() Topology {
	return Topology{Kind: KindFatTree, Pods: 5, TorsPerPod: 4, AggsPerPod: 4, HostsPerTor: 16, CoresPerAgg: 4,
		HostLink: LinkSpec{Gbps: 100, DelayNs: 1000}, FabricLink: LinkSpec{Gbps: 400, DelayNs: 1000}}
}

// The paper's fat tree has the counts the paper and the authors'
// mix/fat.txt give (oracle: 320 hosts, 20 ToR, 20 aggregation, 16 core
// switches; 320 host links and 160 fabric links, so every ToR has 16 + 4
// ports, every aggregation switch 4 + 4, every core 5), and every path has
// the Clos length: 2 transmissions under one ToR, 4 inside a pod, 6
// across pods, with 400 Gbps on every fabric hop and no oversubscription.
func TestFatTreeStructure(t *testing.T) {
	topo := paperFatTree()
	if got := topo.NumHosts(); got != 320 {
		t.Fatalf("NumHosts = %d, want 320", got)
	}
	n, err := topo.Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if n.Hosts() != 320 || len(n.Switches()) != 56 {
		t.Fatalf("%d hosts, %d switches; want 320, 56", n.Hosts(), len(n.Switches()))
	}
	for i, s := range n.Switches() {
		var want int
		var prefix string
		switch {
		case i < 20:
			want, prefix = 20, "tor"
		case i < 40:
			want, prefix = 8, "agg"
		default:
			want, prefix = 5, "core"
		}
		if s.Ports() != want || !strings.HasPrefix(s.Name(), prefix) {
			t.Errorf("switch %d (%s): %d ports, want %s with %d", i, s.Name(), s.Ports(), prefix, want)
		}
	}
	for h := 0; h < 320; h++ {
		sw, port, l := n.HostLink(h)
		if sw != h/16 || port != h%16 || l.Gbps != 100 {
			t.Errorf("host %d: switch %d port %d %d Gbps, want ToR %d port %d 100 Gbps", h, sw, port, l.Gbps, h/16, h%16)
		}
	}
	cases := []struct {
		name     string
		src, dst int
		hops     int
	}{
		{"same ToR", 0, 15, 2},
		{"same pod", 0, 16, 4},
		{"same pod, last ToR", 5, 63, 4},
		{"across pods", 0, 64, 6},
		{"across pods, far", 3, 319, 6},
	}
	for _, c := range cases {
		for sport := uint16(49152); sport < 49152+64; sport += 7 {
			p, err := n.Path(c.src, c.dst, sport)
			if err != nil {
				t.Fatal(err)
			}
			if len(p) != c.hops {
				t.Fatalf("%s: path %+v: %d hops, want %d", c.name, p, len(p), c.hops)
			}
			for k, h := range p {
				want := uint32(400)
				if k == 0 || k == len(p)-1 {
					want = 100
				}
				if h.Gbps != want {
					t.Errorf("%s: hop %d at %d Gbps, want %d", c.name, k, h.Gbps, want)
				}
			}
			if c.hops == 6 {
				// ToR, agg of the source pod, core, agg of the destination
				// pod, ToR of the destination.
				srcPod, dstPod := c.src/64, c.dst/64
				agg1, core, agg2 := p[2].Switch-20, p[3].Switch-40, p[4].Switch-20
				if agg1/4 != srcPod || agg2/4 != dstPod || core/4 != agg1%4 || core/4 != agg2%4 {
					t.Errorf("%s: aggs %d, %d and core %d are not a Clos path from pod %d to pod %d", c.name, agg1, agg2, core, srcPod, dstPod)
				}
			}
		}
	}
}

// ECMP on the fat tree: 256 flows from pod 0 to pod 1 reach every one of
// the 16 cores (Path, the switches' own hash), and on a small fat tree
// (2 pods, 2 ToRs and 2 aggregation switches each, 2 cores per
// aggregation switch) every frame crosses the 5 switches Path predicts,
// in order, stamped into its INT stack.
func TestFatTreeECMP(t *testing.T) {
	n, err := paperFatTree().Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	cores := map[int]bool{}
	for k := 0; k < 256; k++ {
		p, err := n.Path(k%64, 64+k%64, uint16(49152+k*61))
		if err != nil {
			t.Fatal(err)
		}
		cores[p[3].Switch] = true
	}
	if len(cores) != 16 {
		t.Errorf("256 flows used %d cores, want all 16", len(cores))
	}

	topo := Topology{Kind: KindFatTree, Pods: 2, TorsPerPod: 2, AggsPerPod: 2, HostsPerTor: 2, CoresPerAgg: 2,
		HostLink: LinkSpec{Gbps: 100, DelayNs: 1000}, FabricLink: LinkSpec{Gbps: 400, DelayNs: 1000}}
	r := newRig(t, topo, DefaultConfig(), false)
	const dst = 7 // pod 1, ToR 3
	var want [][]uint32
	used := map[int]bool{}
	for k := 0; k < 32; k++ {
		sport := uint16(49152 + k*37)
		p, err := r.n.Path(0, dst, sport)
		if err != nil {
			t.Fatal(err)
		}
		var ids []uint32
		for _, h := range p[1:] {
			ids = append(ids, uint32(h.Switch+1))
		}
		want = append(want, ids)
		used[p[3].Switch] = true
		r.eps[0].sends = append(r.eps[0].sends, scripted{0, dataFrame(t, 0, dst, 500, telemetry.IFA, wire.ECT0, sport, uint32(k))})
	}
	if len(used) != 4 {
		t.Errorf("32 flows used %d of 4 cores", len(used))
	}
	r.run(t, 10_000_000)
	got := r.eps[dst].got
	if len(got) != 32 {
		t.Fatalf("received %d frames, want 32", len(got))
	}
	for _, g := range got {
		p := decode(t, g.frame)
		k := int(p.PSN)
		hops := p.HopList()
		if len(hops) != 5 {
			t.Fatalf("frame %d: %d hop records, want 5", k, len(hops))
		}
		for i, h := range hops {
			if h.DeviceID != want[k][i] {
				t.Errorf("frame %d: hop %d stamped by device %d, Path predicts %d", k, i, h.DeviceID, want[k][i])
			}
		}
	}
}

// Fat-tree fields are validated with the field and value, and fields of
// other kinds are refused.
func TestFatTreeValidation(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Topology)
		want string
	}{
		{"pods", func(t *Topology) { t.Pods = 0 }, "topology.pods=0"},
		{"tors", func(t *Topology) { t.TorsPerPod = -1 }, "topology.tors_per_pod=-1"},
		{"aggs", func(t *Topology) { t.AggsPerPod = 0 }, "topology.aggs_per_pod=0"},
		{"hosts", func(t *Topology) { t.HostsPerTor = 0 }, "topology.hosts_per_tor=0"},
		{"cores", func(t *Topology) { t.CoresPerAgg = 0 }, "topology.cores_per_agg=0"},
		{"one host", func(t *Topology) { t.Pods, t.TorsPerPod, t.HostsPerTor = 1, 1, 1 }, "1 hosts: must be in [2,"},
		{"too many hosts", func(t *Topology) { t.Pods, t.TorsPerPod, t.HostsPerTor = 1024, 64, 64 }, "hosts: must be in [2,"},
		{"leaf field", func(t *Topology) { t.Leaves = 2 }, "topology.leaves=2: not used"},
		{"fabric", func(t *Topology) { t.FabricLink.Gbps = 0 }, "topology.fabric_link.gbps=0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			topo := paperFatTree()
			c.mod(&topo)
			_, err := topo.Build(DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}
