package scenario

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// NS3Case is a scenario written as an input case of the HPCC authors' ns-3
// simulator (github.com/alibaba-edu/High-Precision-Congestion-Control,
// simulation/, driver scratch/third), for speed and behaviour comparisons
// on the same topology and the same flows: the files of a case directory
// by name (config.txt, topo.txt, flow.txt, trace.txt). The simulator reads
// the paths in config.txt relative to its working directory, so the case
// directory (named Name) is run from its parent:
//
//	cd PARENT && LD_LIBRARY_PATH=BUILD BUILD/scratch/third Name/config.txt
//
// and writes Name/fct.txt (one line per completed flow) and Name/pfc.txt.
type NS3Case struct {
	Name  string
	Flows int               // flows in flow.txt
	Files map[string][]byte // by file name
}

// ns3Start is the simulated time at which the ns-3 cases start their
// flows, s (the authors' traffic generator and the shared cases use 2 s).
const ns3Start = 2.0

// MakeNS3Case writes c as an ns-3 case named name. Topology: hosts are
// ns-3 nodes 0..H-1 and switches H..H+S-1 in hpccgold's numbering, links
// in hpccgold's order (so ports are numbered alike). Flows: every flow of
// the workload as hpccgold generates it (same sources, destinations,
// sizes and start times), priority group 3, destination port 100,
// starting at 2 s + StartNs. Settings: the simulator's shipped
// mix/config.txt with CC_MODE 3 (HPCC), U_TARGET = hpcc.eta, MI_THRESH =
// hpcc.max_stage, RATE_AI = host rate x (1 - eta) / hpcc.w_ai_flows (the
// draft's W_ai rule, as hpccgold applies it), PACKET_PAYLOAD_SIZE =
// nic.mtu, 32 MB switch buffers, ECN maps for every link speed of the
// topology (the shipped thresholds scaled with the speed; HPCC ignores
// ECN), tracing off, and SIMULATOR_STOP_TIME = 2 s + stopNs. Only
// cc=hpcc with the W_ai rule (hpcc.w_ai_bytes = 0) and one host link
// speed are written; anything else is an error naming the field.
func MakeNS3Case(c Config, name string, stopNs uint64) (*NS3Case, error) {
	if name == "" || strings.ContainsAny(name, "/\\ \t\n") {
		return nil, fmt.Errorf("scenario: ns-3 case name %q: must be a non-empty file name without spaces", name)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if c.CC != nicmodel.CCHPCC {
		return nil, cerr("cc", c.CC, "ns-3 cases are written for hpcc only (CC_MODE 3)")
	}
	if c.HPCC.WAIBytes != 0 {
		return nil, cerr("hpcc.w_ai_bytes", c.HPCC.WAIBytes, "ns-3 cases take W_ai from the rule (set it to 0)")
	}
	if stopNs == 0 {
		return nil, fmt.Errorf("scenario: ns-3 case %s: stop time 0", name)
	}
	b, err := c.Topology.Builder()
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	nh, ns := b.Counts()
	links := b.Links()
	node := func(x network.Node) int {
		if x.Kind == network.HostNode {
			return x.Index
		}
		return nh + x.Index
	}
	var topo bytes.Buffer
	fmt.Fprintf(&topo, "%d %d %d\n", nh+ns, ns, len(links))
	ids := make([]string, ns)
	for i := range ids {
		ids[i] = fmt.Sprint(nh + i)
	}
	fmt.Fprintln(&topo, strings.Join(ids, " "))
	var speeds []uint32
	for _, l := range links {
		fmt.Fprintf(&topo, "%d %d %dGbps %dns 0\n", node(l.A), node(l.B), l.Spec.Gbps, l.Spec.DelayNs)
		if !slices.Contains(speeds, l.Spec.Gbps) {
			speeds = append(speeds, l.Spec.Gbps)
		}
	}
	slices.Sort(speeds)
	gbps := make([]uint32, nh)
	for i := range gbps {
		gbps[i] = c.Topology.HostLink.Gbps
	}
	flows, err := c.Traffic.Generate(gbps)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(flows) == 0 {
		return nil, fmt.Errorf("scenario: traffic: no flows")
	}
	var fl bytes.Buffer
	fmt.Fprintf(&fl, "%d\n", len(flows))
	for _, f := range flows {
		// Seconds with 9 decimals: exact to the ns.
		fmt.Fprintf(&fl, "%d %d 3 100 %d %d.%09d\n", f.Src, f.Dst, f.Bytes, int(ns3Start)+int(f.StartNs/1e9), f.StartNs%1e9)
	}
	// Mb/s, rounded to 1 bit/s so that the decimal text is short.
	rateAI := math.Round(float64(c.Topology.HostLink.Gbps)*1e9*(1-c.HPCC.Eta)/float64(c.HPCC.WAIFlows)) / 1e6
	var kmax, kmin, pmax []string
	for _, g := range speeds {
		// The shipped maps: K_min 400 KB, K_max 1600 KB, P_max 0.2 at 100
		// Gbps, proportional to the speed.
		bps := uint64(g) * 1_000_000_000
		kmin = append(kmin, fmt.Sprintf("%d %d", bps, 4*g))
		kmax = append(kmax, fmt.Sprintf("%d %d", bps, 16*g))
		pmax = append(pmax, fmt.Sprintf("%d 0.2", bps))
	}
	stop := ns3Start + float64(stopNs)/1e9
	var cfg bytes.Buffer
	fmt.Fprintf(&cfg, `ENABLE_QCN 1
USE_DYNAMIC_PFC_THRESHOLD 1

PACKET_PAYLOAD_SIZE %d

TOPOLOGY_FILE ./%[2]s/topo.txt
FLOW_FILE ./%[2]s/flow.txt
TRACE_FILE ./%[2]s/trace.txt
TRACE_OUTPUT_FILE ./%[2]s/mix.tr
FCT_OUTPUT_FILE ./%[2]s/fct.txt
PFC_OUTPUT_FILE ./%[2]s/pfc.txt

SIMULATOR_STOP_TIME %.9f

CC_MODE 3
ALPHA_RESUME_INTERVAL 1
RATE_DECREASE_INTERVAL 4
CLAMP_TARGET_RATE 0
RP_TIMER 900 
EWMA_GAIN 0.00390625
FAST_RECOVERY_TIMES 1
RATE_AI %gMb/s
RATE_HAI 100Mb/s
MIN_RATE 100Mb/s
DCTCP_RATE_AI 1000Mb/s

ERROR_RATE_PER_LINK 0.0000
L2_CHUNK_SIZE 4000
L2_ACK_INTERVAL 1
L2_BACK_TO_ZERO 0

HAS_WIN 1
GLOBAL_T 1
VAR_WIN 1
FAST_REACT 1
U_TARGET %g
MI_THRESH %d
INT_MULTI 1
MULTI_RATE 0
SAMPLE_FEEDBACK 0
PINT_LOG_BASE 1.05
PINT_PROB 1.0

RATE_BOUND 1

ACK_HIGH_PRIO 0

LINK_DOWN 0 0 0

ENABLE_TRACE 0

KMAX_MAP %d %s
KMIN_MAP %d %s
PMAX_MAP %d %s
BUFFER_SIZE 32
QLEN_MON_FILE ./%[2]s/qlen.txt
QLEN_MON_START 2000000000
QLEN_MON_END 2000000000
`, c.NIC.MTU, name, stop, rateAI, c.HPCC.Eta, c.HPCC.MaxStage,
		len(speeds), strings.Join(kmax, " "), len(speeds), strings.Join(kmin, " "), len(speeds), strings.Join(pmax, " "))
	return &NS3Case{Name: name, Flows: len(flows), Files: map[string][]byte{
		"config.txt": cfg.Bytes(), "topo.txt": topo.Bytes(), "flow.txt": fl.Bytes(), "trace.txt": []byte("0\n"),
	}}, nil
}
