package network_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// A two-tier leaf-spine: the path of one flow, resolved with the switches'
// own ECMP hash, and its empty-network hop list.
func Example() {
	topo := network.Topology{Kind: network.KindLeafSpine, Leaves: 2, Spines: 2, HostsPerLeaf: 2,
		HostLink: network.LinkSpec{Gbps: 25, DelayNs: 1000}, FabricLink: network.LinkSpec{Gbps: 100, DelayNs: 1000}}
	n, err := topo.Build(network.DefaultConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	path, err := n.Path(0, 3, 49152)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, h := range path {
		name := "host 0 uplink"
		if h.Switch >= 0 {
			name = n.Switch(h.Switch).PortName(h.Port)
		}
		fmt.Printf("%-22s %3d Gbps, then %d ns\n", name, h.Gbps, h.DelayNs)
	}
	fmt.Println(network.HostAddr(3).IP)
	// Output:
	// host 0 uplink           25 Gbps, then 1000 ns
	// leaf0.p3->spine1       100 Gbps, then 1000 ns
	// spine1.p1->leaf1       100 Gbps, then 1000 ns
	// leaf1.p1->h3            25 Gbps, then 1000 ns
	// 10.0.0.4
}
