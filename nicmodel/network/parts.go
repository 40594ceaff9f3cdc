package network

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
)

// crossing is a frame sent over a link whose receiver is in another
// partition, held in its sender's partition's outbox until the window's
// barrier: the receiving queue (a switch's ingress or a host NIC's input),
// the cycle it was sent in, the cycle it becomes visible and, for a switch,
// its arrival tie.
type crossing struct {
	sw      *engine.TimedQueue[arrival]
	host    *engine.TimedQueue[pipeline.Frame]
	now, at engine.Cycle
	tie     uint64
	a       arrival
}

// Parts is a network split into partitions, each registered on its own
// engine, for a conservative parallel discrete-event run: every link whose
// ends are in different partitions delivers a frame no earlier than
// Lookahead cycles after the cycle it was sent in, so each partition can run
// a window of Lookahead cycles on its own (its own goroutine) without
// missing input, and the frames that crossed partitions during the window
// are delivered at its barrier (Exchange), before any partition runs the
// next window. Because a switch orders simultaneous arrivals by ingress port
// and per-link sequence (arrivalTie) and every other queue has one
// producer, the delivered frames take the places they take in a run on one
// engine, so the partitioned run is the same run cycle for cycle.
//
// The engines' components and the network's are used by one goroutine at a
// time: a partition's goroutine during a window, the caller of Exchange
// between windows.
type Parts struct {
	n                *Network
	engs             []*engine.Engine
	hostPart, swPart []int
	out              [][]crossing // per sending partition
	lookahead        engine.Cycle
}

// Partition returns a split of the network into at most k partitions
// (fewer when there are fewer hosts): hostPart[h] and swPart[s] are the
// partitions of host h and switch s. Hosts are split into k contiguous
// groups of equal size (within one), so that each partition holds about the
// same number of NICs, where most of a run's work is; a switch with hosts
// goes to the partition of most of its hosts (the lowest on a tie), so that
// a leaf or ToR stays with its hosts when the groups allow; a switch
// without hosts (spine, aggregation, core) goes, in index order, to the
// partition holding most of its already placed neighbours, a tie to the
// partition with the fewest switch ports so far, then the lowest. It
// depends only on the topology and k.
func (n *Network) Partition(k int) (hostPart, swPart []int, err error) {
	nh, ns := len(n.hosts), len(n.switches)
	if k < 1 {
		return nil, nil, fmt.Errorf("network: Partition: k=%d: must be >= 1", k)
	}
	k = min(k, nh)
	hostPart = make([]int, nh)
	for h := range hostPart {
		hostPart[h] = h * k / nh
	}
	swPart = make([]int, ns)
	for s := range swPart {
		swPart[s] = -1
	}
	load := make([]int, k)
	votes := make([]int, k)
	pick := func(s int) {
		best := 0
		for p := 1; p < k; p++ {
			if votes[p] > votes[best] || votes[p] == votes[best] && load[p] < load[best] {
				best = p
			}
		}
		swPart[s] = best
		load[best] += len(n.switches[s].ports)
	}
	// Switches with hosts: the majority of their hosts.
	for s := range n.switches {
		clear(votes)
		any := false
		for h := range n.hosts {
			if n.hosts[h].sw == s {
				votes[hostPart[h]]++
				any = true
			}
		}
		if any {
			best := 0
			for p := 1; p < k; p++ {
				if votes[p] > votes[best] {
					best = p
				}
			}
			swPart[s] = best
			load[best] += len(n.switches[s].ports)
		}
	}
	// The others: by placed neighbours, repeatedly (a switch two hops
	// from any host is placed once its neighbours are).
	for left := true; left; {
		left = false
		placed := false
		for s, sw := range n.switches {
			if swPart[s] >= 0 {
				continue
			}
			clear(votes)
			seen := false
			for pi := range sw.ports {
				if t := sw.ports[pi].to; t.sw != nil && swPart[t.swIdx] >= 0 {
					votes[swPart[t.swIdx]]++
					seen = true
				}
			}
			if !seen {
				left = true
				continue
			}
			pick(s)
			placed = true
		}
		if left && !placed {
			// Not connected to a placed switch (Build refuses a topology
			// in which hosts cannot reach each other, but a switch may
			// hang off on its own): by load alone.
			for s := range swPart {
				if swPart[s] < 0 {
					clear(votes)
					pick(s)
				}
			}
			left = false
		}
	}
	return hostPart, swPart, nil
}

// RegisterParts registers the network on len(engs) engines, one per
// partition: host h's endpoint and uplink on engs[hostPart[h]], switch s on
// engs[swPart[s]], each engine's components in the order of Register (hosts
// in index order, then switches). Every host must have an endpoint, and
// every engine must run at the network's clock. It returns the partitions;
// with one engine the run is Register's.
func (n *Network) RegisterParts(engs []*engine.Engine, hostPart, swPart []int) (*Parts, error) {
	if len(engs) < 1 {
		return nil, fmt.Errorf("network: RegisterParts: no engines")
	}
	if len(hostPart) != len(n.hosts) || len(swPart) != len(n.switches) {
		return nil, fmt.Errorf("network: RegisterParts: %d host and %d switch partitions for %d hosts and %d switches", len(hostPart), len(swPart), len(n.hosts), len(n.switches))
	}
	for _, x := range [...]struct {
		what  string
		parts []int
	}{{"host", hostPart}, {"switch", swPart}} {
		for i, p := range x.parts {
			if p < 0 || p >= len(engs) {
				return nil, fmt.Errorf("network: RegisterParts: %s %d: partition %d: must be in [0,%d)", x.what, i, p, len(engs))
			}
		}
	}
	for i, e := range engs {
		if e == nil {
			return nil, fmt.Errorf("network: RegisterParts: engine %d: nil", i)
		}
	}
	return n.register(engs, hostPart, swPart)
}

// Len returns the number of partitions.
func (ps *Parts) Len() int { return len(ps.engs) }

// HostPart returns the partition of host h.
func (ps *Parts) HostPart(h int) int { return ps.hostPart[h] }

// Lookahead returns the window length in cycles: the least number of cycles
// between the cycle a frame is sent over a link between two partitions and
// the cycle it becomes visible (its delay in whole cycles, rounded down, at
// least 1); engine.Never when no link crosses partitions.
func (ps *Parts) Lookahead() engine.Cycle { return ps.lookahead }

// Exchange delivers the frames sent across partitions during the window
// that every partition has just run up to (not including) cycle end, in
// the order of their sending partitions and, within one, the order sent.
// The order of delivery does not matter to the result (a switch's ingress
// orders by tie, a host's input has one sender, whose frames stay in
// order), but it is fixed. A frame visible before end means the window was
// longer than the lookahead: it is an error and nothing is delivered.
func (ps *Parts) Exchange(end engine.Cycle) error {
	for p := range ps.out {
		for i := range ps.out[p] {
			if c := &ps.out[p][i]; c.at < end {
				return fmt.Errorf("network: partition %d: a frame sent in cycle %d is visible in cycle %d, before the window's end %d (window longer than the lookahead %d)", p, c.now, c.at, end, ps.lookahead)
			}
		}
	}
	for p := range ps.out {
		for i := range ps.out[p] {
			c := &ps.out[p][i]
			if c.host != nil {
				c.host.Push(c.now, c.at, pipeline.Frame{Data: c.a.frame})
			} else {
				c.sw.PushTie(c.now, c.at, c.tie, c.a)
			}
		}
		clear(ps.out[p])
		ps.out[p] = ps.out[p][:0]
	}
	return nil
}
