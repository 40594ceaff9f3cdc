package network

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// Flow is one message of Bytes payload bytes from host Src to host Dst,
// started at StartNs. A long flow is a flow larger than the run.
type Flow struct {
	Src     int    `json:"src"`
	Dst     int    `json:"dst"`
	Bytes   uint64 `json:"bytes"`
	StartNs uint64 `json:"start_ns"`
	// Class is the flow's traffic class: an index into
	// switch.qos.classes, whose DSCP its packets (and its ACKs) carry; 0
	// without QoS.
	Class int `json:"class,omitempty"`
	// Group names the generator that made the flow ("flows", "incast0",
	// "random"); it is not read from configuration files.
	Group string `json:"-"`
}

// Incast is a burst (or Repeat bursts, PeriodNs apart) in which every
// sender starts a flow of Bytes bytes to Receiver at the same instant.
type Incast struct {
	Senders  []int  `json:"senders"`
	Receiver int    `json:"receiver"`
	Bytes    uint64 `json:"bytes"`
	StartNs  uint64 `json:"start_ns"`
	Repeat   int    `json:"repeat"`          // number of bursts; 0 means 1
	PeriodNs uint64 `json:"period_ns"`       // between burst starts (Repeat > 1)
	Class    int    `json:"class,omitempty"` // traffic class of every flow of the burst (Flow.Class)
}

// RandomLoad is open-loop traffic with flow sizes from a CDF: every
// participating host starts flows as a Poisson process to a destination
// drawn uniformly among the other participants, at the rate that loads
// its host link to Load on average (the HPCC authors' traffic_gen.py:
// mean inter-arrival = mean size * 8 / (Load * link rate)), from StartNs
// for DurationNs.
type RandomLoad struct {
	// CDF is a built-in name ("websearch", "hadoop") or a CDF file path.
	CDF        string  `json:"cdf"`
	Load       float64 `json:"load"`
	StartNs    uint64  `json:"start_ns"`
	DurationNs uint64  `json:"duration_ns"`
	// Hosts lists the participants; empty means every host.
	Hosts []int `json:"hosts,omitempty"`
	// Seed seeds the generator (PCG; draws are documented in Generate).
	Seed uint64 `json:"seed"`
	// MaxFlows bounds the number of flows generated (0: 100000).
	MaxFlows int `json:"max_flows"`
	// Class is the traffic class of every generated flow (Flow.Class).
	Class int `json:"class,omitempty"`
}

// Traffic is the workload of a run: explicit flows (long flows, flows
// that come and go), incast bursts and random load, combined.
type Traffic struct {
	Flows  []Flow      `json:"flows,omitempty"`
	Incast []Incast    `json:"incast,omitempty"`
	Random *RandomLoad `json:"random,omitempty"`
}

// MaxFlowBytes bounds one flow's size (2^48 bytes).
const MaxFlowBytes = 1 << 48

func checkFlowBytes(field string, b uint64) error {
	if b < 1 || b > MaxFlowBytes {
		return fmt.Errorf("network: %s=%d: must be in [1,2^48]", field, b)
	}
	return nil
}

// checkClass checks a traffic class index against MaxClasses (the
// configured classes are checked where the network configuration is
// known: MaxClassOf).
func checkClass(field string, c int) error {
	if c < 0 || c >= MaxClasses {
		return fmt.Errorf("network: %s=%d: must be in [0,%d)", field, c, MaxClasses)
	}
	return nil
}

// MaxClassOf returns the field name and value of the largest traffic
// class any explicit flow or incast of t uses ("", 0 when none uses a
// class above 0), for checking against the configured classes.
func (t *Traffic) MaxClassOf() (field string, class int) {
	for i, f := range t.Flows {
		if f.Class > class {
			field, class = fmt.Sprintf("traffic.flows[%d].class", i), f.Class
		}
	}
	for i, in := range t.Incast {
		if in.Class > class {
			field, class = fmt.Sprintf("traffic.incast[%d].class", i), in.Class
		}
	}
	if r := t.Random; r != nil && r.Class > class {
		field, class = "traffic.random.class", r.Class
	}
	return field, class
}

// Generate returns every flow of the workload, sorted by start time (ties
// in generation order: explicit flows, then incasts in order and by
// sender, then random flows). hostGbps[i] is host i's link rate. Errors
// name the field and value.
//
// Random draws, from rand.NewPCG(Seed, 0x6870636367): for each arrival, in
// time order over all participants (a host's next arrival is drawn when
// its previous one is placed): the inter-arrival as -ln(1-u)*mean with u
// = Uint64>>11 / 2^53, the destination as the (Uint64>>32 * (n-1)) >> 32
// -th other participant, and the size as CDF.Bytes(u).
func (t *Traffic) Generate(hostGbps []uint32) ([]Flow, error) {
	nh := len(hostGbps)
	host := func(field string, h int) error {
		if h < 0 || h >= nh {
			return fmt.Errorf("network: %s=%d: must be a host in [0,%d)", field, h, nh)
		}
		return nil
	}
	var out []Flow
	for i, f := range t.Flows {
		field := fmt.Sprintf("traffic.flows[%d]", i)
		if err := host(field+".src", f.Src); err != nil {
			return nil, err
		}
		if err := host(field+".dst", f.Dst); err != nil {
			return nil, err
		}
		if f.Src == f.Dst {
			return nil, fmt.Errorf("network: %s: src=dst=%d: a flow needs two hosts", field, f.Src)
		}
		if err := checkFlowBytes(field+".bytes", f.Bytes); err != nil {
			return nil, err
		}
		if err := checkClass(field+".class", f.Class); err != nil {
			return nil, err
		}
		f.Group = "flows"
		out = append(out, f)
	}
	for i, in := range t.Incast {
		field := fmt.Sprintf("traffic.incast[%d]", i)
		if len(in.Senders) == 0 {
			return nil, fmt.Errorf("network: %s.senders: empty", field)
		}
		if err := host(field+".receiver", in.Receiver); err != nil {
			return nil, err
		}
		seen := map[int]bool{}
		for k, s := range in.Senders {
			if err := host(fmt.Sprintf("%s.senders[%d]", field, k), s); err != nil {
				return nil, err
			}
			if s == in.Receiver {
				return nil, fmt.Errorf("network: %s.senders[%d]=%d: is the receiver", field, k, s)
			}
			if seen[s] {
				return nil, fmt.Errorf("network: %s.senders[%d]=%d: listed twice", field, k, s)
			}
			seen[s] = true
		}
		if err := checkFlowBytes(field+".bytes", in.Bytes); err != nil {
			return nil, err
		}
		if err := checkClass(field+".class", in.Class); err != nil {
			return nil, err
		}
		rep := max(in.Repeat, 1)
		if in.Repeat < 0 || in.Repeat > 1_000_000 {
			return nil, fmt.Errorf("network: %s.repeat=%d: must be in [0,1000000]", field, in.Repeat)
		}
		if rep > 1 && in.PeriodNs == 0 {
			return nil, fmt.Errorf("network: %s.period_ns=0: repeat=%d needs a period", field, in.Repeat)
		}
		for r := 0; r < rep; r++ {
			for _, s := range in.Senders {
				out = append(out, Flow{Src: s, Dst: in.Receiver, Bytes: in.Bytes, StartNs: in.StartNs + uint64(r)*in.PeriodNs,
					Class: in.Class, Group: fmt.Sprintf("incast%d", i)})
			}
		}
	}
	if r := t.Random; r != nil {
		fl, err := r.generate(hostGbps)
		if err != nil {
			return nil, err
		}
		out = append(out, fl...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartNs < out[j].StartNs })
	return out, nil
}

func (r *RandomLoad) generate(hostGbps []uint32) ([]Flow, error) {
	nh := len(hostGbps)
	if !(r.Load > 0 && r.Load <= 1) {
		return nil, fmt.Errorf("network: traffic.random.load=%v: must be in (0,1]", r.Load)
	}
	if r.DurationNs == 0 {
		return nil, fmt.Errorf("network: traffic.random.duration_ns=0: must be positive")
	}
	if err := checkClass("traffic.random.class", r.Class); err != nil {
		return nil, err
	}
	if r.MaxFlows < 0 {
		return nil, fmt.Errorf("network: traffic.random.max_flows=%d: must be >= 0", r.MaxFlows)
	}
	maxFlows := r.MaxFlows
	if maxFlows == 0 {
		maxFlows = 100000
	}
	cdf, err := LoadCDF(r.CDF)
	if err != nil {
		return nil, fmt.Errorf("network: traffic.random.cdf: %w", err)
	}
	hosts := r.Hosts
	if len(hosts) == 0 {
		hosts = make([]int, nh)
		for i := range hosts {
			hosts[i] = i
		}
	}
	seen := map[int]bool{}
	for k, h := range hosts {
		if h < 0 || h >= nh {
			return nil, fmt.Errorf("network: traffic.random.hosts[%d]=%d: must be a host in [0,%d)", k, h, nh)
		}
		if seen[h] {
			return nil, fmt.Errorf("network: traffic.random.hosts[%d]=%d: listed twice", k, h)
		}
		seen[h] = true
	}
	if len(hosts) < 2 {
		return nil, fmt.Errorf("network: traffic.random.hosts: %d participants: need at least 2", len(hosts))
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0x6870636367))
	unif := func() float64 { return float64(rng.Uint64()>>11) / (1 << 53) }
	// Mean inter-arrival per host, ns.
	gap := make([]float64, len(hosts))
	next := make([]float64, len(hosts))
	for k, h := range hosts {
		gap[k] = cdf.Mean() * 8 / (r.Load * float64(hostGbps[h])) // bytes*8 / (Gbit/s) = ns
		next[k] = float64(r.StartNs) - math.Log(1-unif())*gap[k]
	}
	end := float64(r.StartNs + r.DurationNs)
	var out []Flow
	for {
		k := 0
		for j := range next {
			if next[j] < next[k] {
				k = j
			}
		}
		if next[k] >= end {
			break
		}
		if len(out) >= maxFlows {
			return nil, fmt.Errorf("network: traffic.random: more than max_flows=%d flows in duration_ns=%d at load=%v", maxFlows, r.DurationNs, r.Load)
		}
		d := int((rng.Uint64() >> 32 * uint64(len(hosts)-1)) >> 32)
		if d >= k {
			d++
		}
		out = append(out, Flow{Src: hosts[k], Dst: hosts[d], Bytes: cdf.Bytes(unif()), StartNs: uint64(next[k]), Class: r.Class, Group: "random"})
		next[k] -= math.Log(1-unif()) * gap[k]
	}
	return out, nil
}
