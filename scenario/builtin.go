package scenario

import (
	"fmt"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
	"github.com/hpccgold/hpccgold/telemetry"
)

// longFlow is the size of a flow meant to outlast the run (1 TB).
const longFlow = 1 << 40

// seedsBase is the setup of the HPCC++ slides' receiver-based HPCC
// experiments (../shared/seeds/002_..., "Experiments: Configuration based
// on original HPCC paper"): a 2-stage fat tree (here 2 leaves of 8 hosts,
// 2 spines), 25 Gbps NICs, 100 Gbps switch links, 1 us per link (a
// network RTT of about 9 us through the spine), base RTT T = 9 us, eta
// 0.95, maxStage 5; Rx-HPCC with T = 4.5 us and the dynamic W_ai; IFA
// telemetry (the slides' metadata format).
func seedsBase() Config {
	nc := network.DefaultConfig()
	nc.Encoding = telemetry.IFA
	return Config{
		CC: nicmodel.CCHPCC, Model: nicmodel.Fixed,
		Topology: network.Topology{Kind: network.KindLeafSpine, Leaves: 2, Spines: 2, HostsPerLeaf: 8,
			HostLink: network.LinkSpec{Gbps: 25, DelayNs: 1000}, FabricLink: network.LinkSpec{Gbps: 100, DelayNs: 1000}},
		Network: nc,
		HPCC: HPCCParams{Encoding: telemetry.IFA, BaseRTTNs: 9000, RxBaseRTTNs: 0, Eta: 0.95, MaxStage: 5, WAIFlows: 10,
			RxDynamicWAI: true},
		LDCP:  DefaultLDCPParams(),
		DCQCN: DefaultDCQCNParams(),
		NIC:   NICParams{MTU: 1000, AckEvery: 1, RxAckEvery: 0, AckTimeoutNs: 0},
		Run:   RunParams{SampleNs: 1000, BottleneckHost: -1, FlowSeriesMax: 64, ClockHz: engine.GHz, LimitNs: 50_000_000},
	}
}

// paperBase is the HPCC paper's usual single-switch setup (Li et al.,
// SIGCOMM 2019): 100 Gbps hosts on one switch, 1 us links (base RTT about
// 4.2 us, derived), 1000-byte payloads, per-packet ACKs, eta 0.95,
// maxStage 5, W_ai by the draft's rule with N = 50, the paper's compact
// 8-byte INT.
func paperBase(hosts int) Config {
	nc := network.DefaultConfig()
	nc.Encoding = telemetry.Compact
	return Config{
		CC: nicmodel.CCHPCC, Model: nicmodel.Fixed,
		Topology: network.Topology{Kind: network.KindStar, Hosts: hosts, HostLink: network.LinkSpec{Gbps: 100, DelayNs: 1000}},
		Network:  nc,
		HPCC:     HPCCParams{Encoding: telemetry.Compact, Eta: 0.95, MaxStage: 5, WAIFlows: 50, RxDynamicWAI: true},
		LDCP:     DefaultLDCPParams(),
		DCQCN:    DefaultDCQCNParams(),
		NIC:      NICParams{MTU: 1000, AckEvery: 1, AckTimeoutNs: 0},
		Run:      RunParams{SampleNs: 1000, BottleneckHost: -1, FlowSeriesMax: 64, ClockHz: engine.GHz, LimitNs: 100_000_000},
	}
}

// workloadBase is the HPCC paper's workload experiments scaled to a
// two-tier leaf-spine: 4 leaves of 8 hosts at 100 Gbps, 2 spines with 400
// Gbps links (no oversubscription), 1 us links, compact INT; random flows
// from a CDF for arrivalNs at the given load, run to completion.
func workloadBase(cdf string, load float64, arrivalNs uint64) Config {
	c := paperBase(2)
	c.Topology = network.Topology{Kind: network.KindLeafSpine, Leaves: 4, Spines: 2, HostsPerLeaf: 8,
		HostLink: network.LinkSpec{Gbps: 100, DelayNs: 1000}, FabricLink: network.LinkSpec{Gbps: 400, DelayNs: 1000}}
	c.Traffic = network.Traffic{Random: &network.RandomLoad{CDF: cdf, Load: load, DurationNs: arrivalNs, Seed: 1}}
	c.Run.SampleNs = 5000
	c.Run.FlowSeriesMax = 0
	c.Run.LimitNs = 100_000_000
	return c
}

// fatTreeBase is the HPCC paper's main evaluation (Li et al., SIGCOMM
// 2019, section 5.1; the authors' simulator's mix/fat.txt): a three-tier
// fat tree of 320 hosts (5 pods of 4 ToRs and 4 aggregation switches, 16
// hosts per ToR, 16 cores), 100 Gbps host links, 400 Gbps fabric links,
// 1 us per link, ECMP by flow hash, compact INT; random flows from a CDF
// arriving for arrivalNs at the given load (the authors' traffic_gen.py
// model), run until every flow completes. T is derived from the longest
// path (6 links).
func fatTreeBase(cdf string, load float64, arrivalNs uint64) Config {
	c := paperBase(2)
	c.Topology = network.Topology{Kind: network.KindFatTree, Pods: 5, TorsPerPod: 4, AggsPerPod: 4, HostsPerTor: 16, CoresPerAgg: 4,
		HostLink: network.LinkSpec{Gbps: 100, DelayNs: 1000}, FabricLink: network.LinkSpec{Gbps: 400, DelayNs: 1000}}
	c.Traffic = network.Traffic{Random: &network.RandomLoad{CDF: cdf, Load: load, DurationNs: arrivalNs, Seed: 1,
		MaxFlows: maxFlowCount}}
	c.Run.SampleNs = 10_000
	c.Run.FlowSeriesMax = 0
	c.Run.LimitNs = 200_000_000
	return c
}

func incastSenders(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// slides are the figures the HPCC++ slides report for their three
// receiver-based HPCC experiments.
var slidesRef = map[string][]ReferenceFigure{
	"seeds-incast-2to1": {
		{"feedback packets, HPCC (ACKs)", "114924", "seeds 002 slides, In-cast 2"},
		{"feedback packets, Rx-HPCC (NPs)", "21913 (5.2x fewer)", "seeds 002 slides, In-cast 2"},
	},
	"seeds-incast-8to1": {
		{"feedback packets, HPCC (ACKs)", "128724", "seeds 002 slides, In-cast 8"},
		{"feedback packets, Rx-HPCC (NPs)", "45249 (2.8x fewer)", "seeds 002 slides, In-cast 8"},
	},
	"seeds-come-and-go": {
		{"feedback packets, HPCC (ACKs)", "193116", "seeds 002 slides, Flow Come and Go"},
		{"feedback packets, Rx-HPCC (NPs)", "110940 (1.74x fewer)", "seeds 002 slides, Flow Come and Go"},
	},
}

// builtin is one built-in scenario.
type builtin struct {
	name, summary string
	make          func() Config
}

func builtins() []builtin {
	return append(paperBuiltins(), qosBuiltins()...)
}

// paperBuiltins are the seeds' and the HPCC paper's experiments.
func paperBuiltins() []builtin {
	return []builtin{
		{"seeds-incast-2to1", "slides: 2 long flows at 25 Gbps into one 25 Gbps host across a 100 Gbps leaf-spine, 4 ms (W_ai N=10)", func() Config {
			c := seedsBase()
			c.HPCC.WAIFlows = 10
			c.Traffic = network.Traffic{Flows: []network.Flow{{Src: 0, Dst: 8, Bytes: longFlow}, {Src: 1, Dst: 8, Bytes: longFlow}}}
			c.Run.DurationNs = 4_000_000
			return c
		}},
		{"seeds-incast-8to1", "slides: 8 long flows at 25 Gbps into one 25 Gbps host across a 100 Gbps leaf-spine, 4 ms (W_ai N=100)", func() Config {
			c := seedsBase()
			c.HPCC.WAIFlows = 100
			for s := 0; s < 8; s++ {
				c.Traffic.Flows = append(c.Traffic.Flows, network.Flow{Src: s, Dst: 8, Bytes: longFlow})
			}
			c.Run.DurationNs = 4_000_000
			return c
		}},
		{"seeds-come-and-go", "slides: 4 flows into one 25 Gbps host join 1 ms apart and leave in turn (sizes for leaving at 4-7 ms at fair shares)", func() Config {
			c := seedsBase()
			c.HPCC.WAIFlows = 100
			// Fair-share sizes: flow i is alone, then shares with 2, 3, 4
			// flows, ... for 1 ms each: (25+12.5+8.33+6.25) Gbit/s * 1 ms
			// = 6.51 MB for the first and last, (12.5+8.33+6.25+8.33) =
			// 4.43 MB for the middle two.
			sizes := []uint64{6_510_417, 4_427_083, 4_427_083, 6_510_417}
			for i, b := range sizes {
				c.Traffic.Flows = append(c.Traffic.Flows, network.Flow{Src: i, Dst: 8, Bytes: b, StartNs: uint64(i) * 1_000_000})
			}
			return c
		}},
		{"hpcc-two-flows", "HPCC paper: two 50 MB flows into one host on a 100 Gbps switch", func() Config {
			c := paperBase(3)
			c.Traffic = network.Traffic{Flows: []network.Flow{{Src: 0, Dst: 2, Bytes: 50_000_000}, {Src: 1, Dst: 2, Bytes: 50_000_000}}}
			return c
		}},
		{"hpcc-incast-16to1", "HPCC paper: 16 senders x 500 KB into one host on a 100 Gbps switch", func() Config {
			c := paperBase(17)
			c.Traffic = network.Traffic{Incast: []network.Incast{{Senders: incastSenders(16), Receiver: 16, Bytes: 500_000}}}
			return c
		}},
		{"hpcc-incast-60to1", "HPCC paper: 60 senders x 500 KB into one host on a 100 Gbps switch", func() Config {
			c := paperBase(61)
			c.Traffic = network.Traffic{Incast: []network.Incast{{Senders: incastSenders(60), Receiver: 60, Bytes: 500_000}}}
			return c
		}},
		{"hpcc-four-flows", "HPCC paper: four long flows into one host start 2 ms apart, 9 ms", func() Config {
			c := paperBase(5)
			for i := 0; i < 4; i++ {
				c.Traffic.Flows = append(c.Traffic.Flows, network.Flow{Src: i, Dst: 4, Bytes: longFlow, StartNs: uint64(i) * 2_000_000})
			}
			c.Run.DurationNs = 9_000_000
			c.Run.SampleNs = 2000
			return c
		}},
		{"demo-incast-4to1", "small: 4 senders x 200 KB into one host on a 100 Gbps switch (seconds to run; for hpccgold demo)", func() Config {
			c := paperBase(5)
			c.Traffic = network.Traffic{Incast: []network.Incast{{Senders: incastSenders(4), Receiver: 4, Bytes: 200_000}}}
			return c
		}},
		{ForgedINTName, "forged-telemetry study base: 4 x 2 MB into one host through one 100 Gbps switch, 1 MiB buffer, 3 ms (honest switch, no guard; docs/scenarios.md)", func() Config {
			return forgedINTBase()
		}},
		{"websearch-30", "WebSearch flow sizes at 30% load, 32 hosts on a 100/400 Gbps leaf-spine, 3 ms of arrivals", func() Config {
			return workloadBase("websearch", 0.3, 3_000_000)
		}},
		{"websearch-50", "WebSearch flow sizes at 50% load, 32 hosts on a 100/400 Gbps leaf-spine, 3 ms of arrivals", func() Config {
			return workloadBase("websearch", 0.5, 3_000_000)
		}},
		{"hadoop-30", "Hadoop flow sizes at 30% load, 32 hosts on a 100/400 Gbps leaf-spine, 1 ms of arrivals", func() Config {
			return workloadBase("hadoop", 0.3, 1_000_000)
		}},
		{"hadoop-50", "Hadoop flow sizes at 50% load, 32 hosts on a 100/400 Gbps leaf-spine, 1 ms of arrivals", func() Config {
			return workloadBase("hadoop", 0.5, 1_000_000)
		}},
		{"fattree-websearch-30", "HPCC paper main evaluation: WebSearch flow sizes at 30% load, 320-host fat tree (100/400 Gbps), 10 ms of arrivals", func() Config {
			return fatTreeBase("websearch", 0.3, 10_000_000)
		}},
		{"fattree-websearch-50", "HPCC paper main evaluation: WebSearch flow sizes at 50% load, 320-host fat tree (100/400 Gbps), 10 ms of arrivals", func() Config {
			return fatTreeBase("websearch", 0.5, 10_000_000)
		}},
		{"fattree-hadoop-30", "HPCC paper main evaluation: Hadoop flow sizes at 30% load, 320-host fat tree (100/400 Gbps), 10 ms of arrivals", func() Config {
			return fatTreeBase("hadoop", 0.3, 10_000_000)
		}},
		{"fattree-hadoop-50", "HPCC paper main evaluation: Hadoop flow sizes at 50% load, 320-host fat tree (100/400 Gbps), 10 ms of arrivals", func() Config {
			return fatTreeBase("hadoop", 0.5, 10_000_000)
		}},
	}
}

// Names returns the built-in scenario names in a fixed order.
func Names() []string {
	var n []string
	for _, b := range builtins() {
		n = append(n, b.name)
	}
	return n
}

// Lookup returns the configuration of a built-in scenario.
func Lookup(name string) (Config, error) {
	for _, b := range builtins() {
		if b.name == name {
			c := b.make()
			c.Name, c.Description = b.name, b.summary
			c.Reference = append([]ReferenceFigure(nil), slidesRef[b.name]...)
			return c, nil
		}
	}
	names := Names()
	sort.Strings(names)
	return Config{}, fmt.Errorf("scenario: unknown scenario %q (built-in: %s)", name, strings.Join(names, ", "))
}
