package network

import "fmt"

// Topology kinds.
const (
	KindStar      = "star"       // one switch, Hosts hosts
	KindDumbbell  = "dumbbell"   // two switches joined by FabricLink; LeftHosts on the first, RightHosts on the second
	KindLeafSpine = "leaf-spine" // Leaves leaf switches, each linked to every one of Spines spine switches; HostsPerLeaf hosts per leaf
)

// Topology describes one of the standard topologies. Host numbering:
// star: 0..Hosts-1; dumbbell: left hosts 0..LeftHosts-1, then right
// hosts; leaf-spine: hosts 0..HostsPerLeaf-1 under leaf 0, the next
// HostsPerLeaf under leaf 1, and so on. An N-to-1 incast is a star of N+1
// hosts (or senders and receiver placed on a dumbbell or leaf-spine).
type Topology struct {
	Kind         string   `json:"kind"`
	Hosts        int      `json:"hosts,omitempty"`
	LeftHosts    int      `json:"left_hosts,omitempty"`
	RightHosts   int      `json:"right_hosts,omitempty"`
	Leaves       int      `json:"leaves,omitempty"`
	Spines       int      `json:"spines,omitempty"`
	HostsPerLeaf int      `json:"hosts_per_leaf,omitempty"`
	HostLink     LinkSpec `json:"host_link"`
	// FabricLink is every switch-to-switch link: the dumbbell's bottleneck,
	// the leaf-spine uplinks. Unused by a star.
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
		for _, k := range []string{"hosts", "left_hosts", "right_hosts", "leaves", "spines", "hosts_per_leaf"} {
			if v, ok := fields[k]; ok && v != 0 {
				return fmt.Errorf("network: topology.%s=%d: not used by kind %q", k, v, kind)
			}
		}
		return nil
	}
	all := map[string]int{"hosts": t.Hosts, "left_hosts": t.LeftHosts, "right_hosts": t.RightHosts, "leaves": t.Leaves,
		"spines": t.Spines, "hosts_per_leaf": t.HostsPerLeaf}
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
	default:
		return fmt.Errorf("network: topology.kind=%q: must be %q, %q or %q", t.Kind, KindStar, KindDumbbell, KindLeafSpine)
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
