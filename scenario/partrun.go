package scenario

import (
	"fmt"
	"sync"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// parRun is a run split into partitions of the network (run.workers > 1),
// each on its own engine and, during a window, its own goroutine: a
// conservative parallel discrete-event run whose window is the lookahead of
// network.Parts (the least delay, in cycles, of a link between two
// partitions), with the frames that crossed partitions delivered at every
// window's barrier. Nothing a partition does in a window depends on another
// partition's work in the same window, so the run is the one-engine run
// cycle for cycle, and every file it writes is the same byte for byte
// (TestWorkersIdentical).
//
// The one thing that couples partitions inside a window is the end of a run
// to completion: the one-engine run stops at the end of the cycle in which
// its last flow completes, and every partition must stop there too. A flow
// completes at its sender, so each partition counts its senders' flows not
// yet done (left). A window first runs only the partitions with flows left,
// each stopping at the end of the cycle its own last flow completes in; if
// all of them did, the run ends after the latest such cycle, and every
// partition runs (or resumes) up to it; otherwise every partition runs (or
// resumes) to the window's end. A partition that stopped early resumes
// exactly where it stopped (engine.Engine.Run), and partitions are
// independent within a window, so this is the run without the stop.
type parRun struct {
	engs  []*engine.Engine
	parts *network.Parts
	// left[p] counts the flows not yet complete whose sender is in
	// partition p; stopAt[p] makes the completion that brings it to 0 stop
	// partition p's engine. Written only by partition p's goroutine
	// during a window.
	left   []int
	stopAt []bool
	wg     sync.WaitGroup
}

// newParRun splits net into up to k partitions (network.Network.Partition)
// and registers them, partition 0 on e and each other on a new engine of
// e's clock.
func newParRun(net *network.Network, e *engine.Engine, k int, noSkip bool) (*parRun, error) {
	hp, sp, err := net.Partition(k)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, p := range hp {
		n = max(n, p+1)
	}
	for _, p := range sp {
		n = max(n, p+1)
	}
	pr := &parRun{engs: []*engine.Engine{e}, left: make([]int, n), stopAt: make([]bool, n)}
	for len(pr.engs) < n {
		x, err := engine.New(engine.Config{Freq: e.Freq(), NoSkip: noSkip})
		if err != nil {
			return nil, err
		}
		pr.engs = append(pr.engs, x)
	}
	if pr.parts, err = net.RegisterParts(pr.engs, hp, sp); err != nil {
		return nil, err
	}
	return pr, nil
}

// completed counts a flow of host's completion in host's partition (from
// that partition's goroutine), stopping the partition when it was its last
// and the window asked for it.
func (pr *parRun) completed(host int) {
	p := pr.parts.HostPart(host)
	pr.left[p]--
	if pr.left[p] == 0 && pr.stopAt[p] {
		pr.engs[p].Stop()
	}
}

// remaining returns the number of flows not complete (between windows).
func (pr *parRun) remaining() int {
	n := 0
	for _, l := range pr.left {
		n += l
	}
	return n
}

// idle reports whether every partition's engine is idle (between windows,
// when no frame is held between partitions).
func (pr *parRun) idle() bool {
	for _, e := range pr.engs {
		if !e.Idle() {
			return false
		}
	}
	return true
}

// stats sums the partitions' engine counters; Cycles is the clock's
// advance (the same in every partition).
func (pr *parRun) stats() engine.Stats {
	var st engine.Stats
	for _, e := range pr.engs {
		x := e.Stats()
		st.Cycles = max(st.Cycles, x.Cycles)
		st.BusyCycles += x.BusyCycles
		st.Ticks += x.Ticks
		st.Progress += x.Progress
		st.Wakes += x.Wakes
		st.UnexpectedProgress += x.UnexpectedProgress
	}
	return st
}

// runEach runs partition p's engine to until for every p in ps, each on
// its own goroutine (inline when there is one).
func (pr *parRun) runEach(ps []int, until engine.Cycle) {
	if len(ps) == 1 {
		pr.engs[ps[0]].Run(until)
		return
	}
	for _, p := range ps {
		pr.wg.Add(1)
		go func(e *engine.Engine) {
			defer pr.wg.Done()
			e.Run(until)
		}(pr.engs[p])
	}
	pr.wg.Wait()
}

// runTo runs every partition from the current cycle to t in windows of
// the lookahead, exchanging the frames that cross partitions at each
// window's end, or until the cycle after the one the last flow completed
// in; every partition's engine is then at the same cycle.
func (pr *parRun) runTo(t engine.Cycle) error {
	look := pr.parts.Lookahead()
	var first, all []int
	for p := range pr.engs {
		all = append(all, p)
	}
	for now := pr.engs[0].Now(); now < t; now = pr.engs[0].Now() {
		w := t
		if look < t-now {
			w = now + look
		}
		first = first[:0]
		for p, l := range pr.left {
			if l > 0 {
				first = append(first, p)
				pr.stopAt[p] = true
			}
		}
		pr.runEach(first, w)
		// The run stops in this window when every partition with flows
		// left completed them: after the latest cycle one did.
		stop, end := len(first) > 0, engine.Cycle(0)
		for _, p := range first {
			pr.stopAt[p] = false
			stop = stop && pr.left[p] == 0
			end = max(end, pr.engs[p].Now())
		}
		if !stop {
			end = w
		}
		var rest []int
		for _, p := range all {
			if pr.engs[p].Now() < end {
				rest = append(rest, p)
			}
		}
		if len(rest) > 0 {
			pr.runEach(rest, end)
		}
		for p, e := range pr.engs {
			if e.Now() != end {
				return fmt.Errorf("partition %d at cycle %d after a window ending at %d", p, e.Now(), end)
			}
		}
		if err := pr.parts.Exchange(end); err != nil {
			return err
		}
		if stop {
			return nil // the last flow completed in cycle end-1
		}
	}
	return nil
}
