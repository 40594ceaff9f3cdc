package network

import "fmt"

// Topology kinds.
const (
	KindStar      = "star"       // one switch, Hosts hosts
	KindDumbbell  = "dumbbell"   // two switches joined by FabricLink; LeftHosts on the first, RightHosts on the second
	KindLeafSpine = "leaf-spine" // Leaves leaf switches, each linked to every one of Spines spine switches; HostsPerLeaf hosts per leaf
	KindFatTree   = "fat-tree"   // three tiers: Pods pods of TorsPerPod ToRs and AggsPerPod aggregation switches, AggsPerPod*CoresPerAgg cores
)

// Topology describes one of the standard topologies. Host numbering:
// star: 0..Hosts-1; dumbbell: left hosts 0..LeftHosts-1, then right
// hosts; leaf-spine: hosts 0..HostsPerLeaf-1 under leaf 0, the next
// HostsPerLeaf under leaf 1, and so on. An N-to-1 incast is a star of N+1
// hosts (or senders and receiver placed on a dumbbell or leaf-spine).
type Topology struct {
	Kind         string `json:"kind"`
	Hosts        int    `json:"hosts,omitempty"`
	LeftHosts    int    `json:"left_hosts,omitempty"`
	RightHosts   int    `json:"right_hosts,omitempty"`
	Leaves       int    `json:"leaves,omitempty"`
	Spines       int    `json:"spines,omitempty"`
	HostsPerLeaf int    `json:"hosts_per_leaf,omitempty"`
	// Fat tree: pods, ToR and aggregation switches per pod, hosts per ToR,
	// core switches per aggregation switch (cores = AggsPerPod *
	// CoresPerAgg).
	Pods        int      `json:"pods,omitempty"`
	TorsPerPod  int      `json:"tors_per_pod,omitempty"`
	AggsPerPod  int      `json:"aggs_per_pod,omitempty"`
	HostsPerTor int      `json:"hosts_per_tor,omitempty"`
	CoresPerAgg int      `json:"cores_per_agg,omitempty"`
	HostLink    LinkSpec `json:"host_link"`
	// FabricLink is every switch-to-switch link: the dumbbell's bottleneck,
	// the leaf-spine uplinks, the fat tree's ToR-aggregation and
	// aggregation-core links. Unused by a star.
	FabricLink LinkSpec `json:"fabric_link"`
}

// Limit on the number of switches or hosts a standard topology may ask for.
const maxTopoCount = 1 << 16

func count(field string, v, lo int) error {
	if v < lo || v > maxTopoCount {
		return fmt.Errorf("network: topology.%s=%d: must be in [%d,%d]", field, v, lo, maxTopoCount)
	}
	return nil
}

// Validate checks the fields the kind uses and that the others are unset.
func (t Topology) Validate() error {
	unused := func(kind string, fields map[string]int) error {
		for _, k := range []string{"hosts", "left_hosts", "right_hosts", "leaves", "spines", "hosts_per_leaf",
			"pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor", "cores_per_agg"} {
			if v, ok := fields[k]; ok && v != 0 {
				return fmt.Errorf("network: topology.%s=%d: not used by kind %q", k, v, kind)
			}
		}
		return nil
	}
	all := map[string]int{"hosts": t.Hosts, "left_hosts": t.LeftHosts, "right_hosts": t.RightHosts, "leaves": t.Leaves,
		"spines": t.Spines, "hosts_per_leaf": t.HostsPerLeaf, "pods": t.Pods, "tors_per_pod": t.TorsPerPod,
		"aggs_per_pod": t.AggsPerPod, "hosts_per_tor": t.HostsPerTor, "cores_per_agg": t.CoresPerAgg}
	only := func(keep ...string) map[string]int {
		m := map[string]int{}
		for k, v := range all {
			m[k] = v
		}
		for _, k := range keep {
			delete(m, k)
		}
		return m
	}
	switch t.Kind {
	case KindStar:
		if err := count("hosts", t.Hosts, 2); err != nil {
			return err
		}
		if err := unused(t.Kind, only("hosts")); err != nil {
			return err
		}
	case KindDumbbell:
		if err := count("left_hosts", t.LeftHosts, 1); err != nil {
			return err
		}
		if err := count("right_hosts", t.RightHosts, 1); err != nil {
			return err
		}
		if err := unused(t.Kind, only("left_hosts", "right_hosts")); err != nil {
			return err
		}
		if err := t.FabricLink.validate("topology.fabric_link"); err != nil {
			return err
		}
	case KindLeafSpine:
		if err := count("leaves", t.Leaves, 1); err != nil {
			return err
		}
		if err := count("spines", t.Spines, 1); err != nil {
			return err
		}
		if err := count("hosts_per_leaf", t.HostsPerLeaf, 1); err != nil {
			return err
		}
		if t.Leaves*t.HostsPerLeaf < 2 {
			return fmt.Errorf("network: topology: leaves=%d hosts_per_leaf=%d: need at least 2 hosts", t.Leaves, t.HostsPerLeaf)
		}
		if t.Leaves*t.HostsPerLeaf > MaxHosts {
			return fmt.Errorf("network: topology: leaves=%d hosts_per_leaf=%d: more than %d hosts", t.Leaves, t.HostsPerLeaf, MaxHosts)
		}
		if err := unused(t.Kind, only("leaves", "spines", "hosts_per_leaf")); err != nil {
			return err
		}
		if err := t.FabricLink.validate("topology.fabric_link"); err != nil {
			return err
		}
	case KindFatTree:
		for _, f := range []struct {
			name string
			v    int
		}{{"pods", t.Pods}, {"tors_per_pod", t.TorsPerPod}, {"aggs_per_pod", t.AggsPerPod}, {"hosts_per_tor", t.HostsPerTor},
			{"cores_per_agg", t.CoresPerAgg}} {
			if err := count(f.name, f.v, 1); err != nil {
				return err
			}
		}
		// Bound the products before forming them (each factor is at most
		// 2^16, so a pairwise product fits an int).
		if n := t.Pods * t.TorsPerPod; n > MaxHosts {
			return fmt.Errorf("network: topology: pods=%d tors_per_pod=%d: more than %d ToRs", t.Pods, t.TorsPerPod, MaxHosts)
		} else if n*t.HostsPerTor > MaxHosts || n*t.HostsPerTor < 2 {
			return fmt.Errorf("network: topology: pods=%d tors_per_pod=%d hosts_per_tor=%d: %d hosts: must be in [2,%d]",
				t.Pods, t.TorsPerPod, t.HostsPerTor, n*t.HostsPerTor, MaxHosts)
		}
		if t.AggsPerPod*t.CoresPerAgg > maxTopoCount {
			return fmt.Errorf("network: topology: aggs_per_pod=%d cores_per_agg=%d: more than %d cores", t.AggsPerPod, t.CoresPerAgg, maxTopoCount)
		}
		if err := unused(t.Kind, only("pods", "tors_per_pod", "aggs_per_pod", "hosts_per_tor", "cores_per_agg")); err != nil {
			return err
		}
		if err := t.FabricLink.validate("topology.fabric_link"); err != nil {
			return err
		}
	default:
		return fmt.Errorf("network: topology.kind=%q: must be %q, %q, %q or %q", t.Kind, KindStar, KindDumbbell, KindLeafSpine, KindFatTree)
	}
	return t.HostLink.validate("topology.host_link")
}

// NumHosts returns the number of hosts the topology has (0 if invalid).
func (t Topology) NumHosts() int {
	switch t.Kind {
	case KindStar:
		return t.Hosts
	case KindDumbbell:
		return t.LeftHosts + t.RightHosts
	case KindLeafSpine:
		return t.Leaves * t.HostsPerLeaf
	case KindFatTree:
		return t.Pods * t.TorsPerPod * t.HostsPerTor
	}
	return 0
}

// Builder returns a Builder holding the topology (validated).
func (t Topology) Builder() (*Builder, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	b := NewBuilder()
	switch t.Kind {
	case KindStar:
		s := b.AddSwitch("sw0")
		for i := 0; i < t.Hosts; i++ {
			b.Link(b.AddHost(fmt.Sprintf("h%d", i)), s, t.HostLink)
		}
	case KindDumbbell:
		l, r := b.AddSwitch("left"), b.AddSwitch("right")
		for i := 0; i < t.LeftHosts+t.RightHosts; i++ {
			s := l
			if i >= t.LeftHosts {
				s = r
			}
			b.Link(b.AddHost(fmt.Sprintf("h%d", i)), s, t.HostLink)
		}
		b.Link(l, r, t.FabricLink)
	case KindLeafSpine:
		leaves := make([]Node, t.Leaves)
		for i := range leaves {
			leaves[i] = b.AddSwitch(fmt.Sprintf("leaf%d", i))
		}
		for i := 0; i < t.Leaves*t.HostsPerLeaf; i++ {
			b.Link(b.AddHost(fmt.Sprintf("h%d", i)), leaves[i/t.HostsPerLeaf], t.HostLink)
		}
		for j := 0; j < t.Spines; j++ {
			s := b.AddSwitch(fmt.Sprintf("spine%d", j))
			for _, l := range leaves {
				b.Link(l, s, t.FabricLink)
			}
		}
	case KindFatTree:
		tors := make([]Node, t.Pods*t.TorsPerPod)
		for i := range tors {
			tors[i] = b.AddSwitch(fmt.Sprintf("tor%d", i))
		}
		aggs := make([]Node, t.Pods*t.AggsPerPod)
		for i := range aggs {
			aggs[i] = b.AddSwitch(fmt.Sprintf("agg%d", i))
		}
		cores := make([]Node, t.AggsPerPod*t.CoresPerAgg)
		for i := range cores {
			cores[i] = b.AddSwitch(fmt.Sprintf("core%d", i))
		}
		for i := 0; i < len(tors)*t.HostsPerTor; i++ {
			b.Link(b.AddHost(fmt.Sprintf("h%d", i)), tors[i/t.HostsPerTor], t.HostLink)
		}
		for p := 0; p < t.Pods; p++ {
			for i := 0; i < t.TorsPerPod; i++ {
				for j := 0; j < t.AggsPerPod; j++ {
					b.Link(tors[p*t.TorsPerPod+i], aggs[p*t.AggsPerPod+j], t.FabricLink)
				}
			}
		}
		for p := 0; p < t.Pods; p++ {
			for j := 0; j < t.AggsPerPod; j++ {
				for k := 0; k < t.CoresPerAgg; k++ {
					b.Link(aggs[p*t.AggsPerPod+j], cores[j*t.CoresPerAgg+k], t.FabricLink)
				}
			}
		}
	}
	return b, nil
}

// Build validates the topology and builds the network.
func (t Topology) Build(cfg Config) (*Network, error) {
	b, err := t.Builder()
	if err != nil {
		return nil, err
	}
	return b.Build(cfg)
}
