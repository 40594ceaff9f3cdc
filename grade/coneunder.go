package grade

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// Bound is an interval [Lo, Hi] of one node of at most 64 bits: the
// inputs whose value of Node lies in it.
type Bound struct {
	Node   *rtl.Node
	Lo, Hi uint64
}

// ConeRanges reruns the value analysis of a flat combinational module for
// bounds on a fixed set of nodes, cheaply: only the nodes that a bounded
// node can change and a target node reads (the cone between them) are
// recomputed; every other node keeps the analysis of the whole module,
// which is what the rerun would compute for it (none of its operands
// depends on a bounded node). Each run is therefore exactly the analysis
// of the inputs meeting the bounds (ValueRangesWhere's knownBitsUnder) at
// the targets, and sound: every value a target takes on such an input
// lies in its Range. It is what makes thousands of runs affordable, one
// per piece of a normalizer's input (a table entry of a reciprocal unit,
// where the analysis of the Newton step is tight).
//
// A ConeRanges is not safe for concurrent use (a run works in place).
type ConeRanges struct {
	f       *rtl.Module
	kb      []known
	order   []*rtl.Node // the cone, in topological order
	save    []known
	targets []*rtl.Node
	isBound map[int]bool
}

// NewConeRanges prepares runs of f's value analysis with bounds on the
// nodes bounded (each at most 64 bits), read at targets.
func NewConeRanges(f *rtl.Module, bounded, targets []*rtl.Node) (*ConeRanges, error) {
	c := &ConeRanges{f: f, kb: knownBits(f), targets: targets, isBound: map[int]bool{}}
	down := make([]bool, len(f.Nodes))
	for _, b := range bounded {
		if b.Width > 64 {
			return nil, fmt.Errorf("grade: cone ranges: bounded node %s is %d bits (at most 64)", b.Name, b.Width)
		}
		down[b.ID] = true
		c.isBound[b.ID] = true
	}
	for _, n := range f.Nodes {
		for _, a := range n.Args {
			if down[a.ID] {
				down[n.ID] = true
			}
		}
	}
	up := make([]bool, len(f.Nodes))
	for _, t := range targets {
		up[t.ID] = true
	}
	for i := len(f.Nodes) - 1; i >= 0; i-- {
		if !up[i] {
			continue
		}
		for _, a := range f.Nodes[i].Args {
			up[a.ID] = true
		}
	}
	for _, n := range f.Nodes {
		if down[n.ID] && up[n.ID] {
			c.order = append(c.order, n)
		}
	}
	c.save = make([]known, len(c.order))
	return c, nil
}

// Cone returns the number of nodes a run recomputes.
func (c *ConeRanges) Cone() int { return len(c.order) }

// Nodes returns the nodes a run recomputes, in topological order. A run
// reads nothing else but their operands' Ranges under ValueRanges (for
// operands outside the cone) and the bounds: two cones whose nodes have
// the same operations, widths, constants and tables, wired alike, over
// outside operands of equal ValueRanges, give equal runs.
func (c *ConeRanges) Nodes() []*rtl.Node { return c.order }

// Under runs the analysis for the inputs meeting every bound (each on a
// node given to NewConeRanges) and returns the Range of each target, in
// the order given. ok is false when no input meets them (a bound
// contradicts what the analysis knows of its node).
func (c *ConeRanges) Under(bs ...Bound) (rs []Range, ok bool) {
	at := map[int][]Bound{}
	for _, b := range bs {
		if !c.isBound[b.Node.ID] {
			return nil, false
		}
		at[b.Node.ID] = append(at[b.Node.ID], b)
	}
	for i, n := range c.order {
		c.save[i] = c.kb[n.ID]
	}
	defer func() {
		for i, n := range c.order {
			c.kb[n.ID] = c.save[i]
		}
	}()
	kb := c.kb
	for _, n := range c.order {
		args := make([]known, len(n.Args))
		for i, a := range n.Args {
			args[i] = kb[a.ID]
		}
		kb[n.ID] = infer(n, shapeOf(n), args)
		if n.Op == rtl.OpMux {
			kb[n.ID] = refineMux(n, kb)
		}
		for _, b := range at[n.ID] { // as knownBitsUnder bounds a node
			k := kb[n.ID]
			if !k.rng {
				return nil, false
			}
			k.lo, k.hi = max(k.lo, b.Lo), min(k.hi, b.Hi)
			blo, bhi := k.one[0], ^k.zero[0]&maxOf(n.Width)
			if k.lo > k.hi || blo > k.hi || bhi < k.lo {
				return nil, false
			}
			kb[n.ID] = withRange(k, n.Width)
		}
	}
	rs = make([]Range, len(c.targets))
	for i, t := range c.targets {
		k := kb[t.ID]
		rs[i] = Range{Zero: k.zero, One: k.one, Lo: k.lo, Hi: k.hi, HasRange: k.rng}
	}
	return rs, true
}
