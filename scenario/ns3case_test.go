package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// An ns-3 case of the fat-tree scenario describes the same network and
// the same flows (oracle: hpccgold's own Builder and Traffic.Generate,
// and the ns-3 driver's input formats: topology "nodes switches links",
// the switch ids, one "a b RATE DELAY error" line per link; flows "src
// dst pg dport bytes start_s" after their count): 376 nodes, 56 switches,
// 480 links in hpccgold's order, every flow with its start at exactly
// 2 s + start_ns, and ECN maps for both link speeds.
func TestMakeNS3Case(t *testing.T) {
	c, err := Lookup("fattree-websearch-30")
	if err != nil {
		t.Fatal(err)
	}
	c.Traffic.Random.DurationNs = 200_000
	k, err := MakeNS3Case(c, "ft", 5_000_000)
	if err != nil {
		t.Fatal(err)
	}
	topo := strings.Split(strings.TrimSpace(string(k.Files["topo.txt"])), "\n")
	if topo[0] != "376 56 480" || len(topo) != 2+480 {
		t.Fatalf("topology header %q with %d lines, want \"376 56 480\" and 482 lines", topo[0], len(topo))
	}
	if ids := strings.Fields(topo[1]); len(ids) != 56 || ids[0] != "320" || ids[55] != "375" {
		t.Errorf("switch ids %v: want 320..375", ids)
	}
	b, _ := c.Topology.Builder()
	for i, l := range b.Links() {
		node := func(n network.Node) int {
			if n.Kind == network.HostNode {
				return n.Index
			}
			return 320 + n.Index
		}
		a, z := node(l.A), node(l.B)
		want := fmt.Sprintf("%d %d %dGbps %dns 0", a, z, l.Spec.Gbps, l.Spec.DelayNs)
		if topo[2+i] != want {
			t.Fatalf("link %d: %q, want %q", i, topo[2+i], want)
		}
	}
	gbps := make([]uint32, 320)
	for i := range gbps {
		gbps[i] = 100
	}
	flows, err := c.Traffic.Generate(gbps)
	if err != nil {
		t.Fatal(err)
	}
	fl := strings.Split(strings.TrimSpace(string(k.Files["flow.txt"])), "\n")
	if fl[0] != fmt.Sprint(len(flows)) || len(fl) != len(flows)+1 || k.Flows != len(flows) || len(flows) < 5 {
		t.Fatalf("flow.txt declares %s flows in %d lines, Generate made %d", fl[0], len(fl)-1, len(flows))
	}
	for i, f := range flows {
		want := fmt.Sprintf("%d %d 3 100 %d 2.%09d", f.Src, f.Dst, f.Bytes, f.StartNs)
		if fl[1+i] != want {
			t.Errorf("flow %d: %q, want %q", i, fl[1+i], want)
		}
	}
	cfg := string(k.Files["config.txt"])
	for _, want := range []string{"FLOW_FILE ./ft/flow.txt", "SIMULATOR_STOP_TIME 2.005000000", "CC_MODE 3", "U_TARGET 0.95",
		"MI_THRESH 5", "RATE_AI 100Mb/s", "PACKET_PAYLOAD_SIZE 1000", "ENABLE_TRACE 0",
		"KMAX_MAP 2 100000000000 1600 400000000000 6400", "KMIN_MAP 2 100000000000 400 400000000000 1600"} {
		if !strings.Contains(cfg, want+"\n") {
			t.Errorf("config.txt lacks %q", want)
		}
	}
}

// What an ns-3 case cannot express is refused with the field.
func TestMakeNS3CaseErrors(t *testing.T) {
	base, err := Lookup("hpcc-incast-16to1")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mod  func(*Config) (string, uint64)
		want string
	}{
		{"ldcp", func(c *Config) (string, uint64) { c.CC = nicmodel.CCLDCP; return "x", 1 }, "cc=ldcp"},
		{"w_ai", func(c *Config) (string, uint64) { c.HPCC.WAIBytes = 100; return "x", 1 }, "hpcc.w_ai_bytes=100"},
		{"name", func(c *Config) (string, uint64) { return "a/b", 1 }, `case name "a/b"`},
		{"stop", func(c *Config) (string, uint64) { return "x", 0 }, "stop time 0"},
	}
	for _, tc := range cases {
		c := base
		c.Traffic = cloneTraffic(base.Traffic)
		name, stop := tc.mod(&c)
		if _, err := MakeNS3Case(c, name, stop); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.want)
		}
	}
}
