package coverage

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// obsTarget is what a point's hit must make observable to count as
// observed: for a mux point, its mux with the unselected arm (mux >= 0);
// for a point whose Node names a node of the description, that node; for a
// functional point over several fields (a cross, the txRate point), every
// node it reads (nodes, each by a single-bit flip).
type obsTarget struct {
	mux   int
	nodes []int
}

// obsTargets resolves each point's target (see obsTarget).
func (m *Model) obsTargets() []obsTarget {
	byName := make(map[string]*rtl.Node, len(m.f.Nodes))
	for _, n := range m.f.Nodes {
		byName[n.Name] = n
	}
	ts := make([]obsTarget, len(m.Points))
	for i, p := range m.Points {
		t := obsTarget{mux: -1}
		n := byName[p.Node]
		switch {
		case p.Kind == KindMux && n != nil && n.Op == rtl.OpMux:
			t.mux = n.ID
		case n != nil:
			t.nodes = []int{n.ID}
		default:
			for _, s := range p.src {
				t.nodes = append(t.nodes, s.ID)
			}
		}
		ts[i] = t
	}
	return ts
}

// ObservedSampler samples like Sampler and also counts each hit a second
// time when it is observed (observe.go): the point's target node is
// observable at a module output on that vector. One goroutine per sampler.
type ObservedSampler struct {
	s       *Sampler
	o       *observer
	targets []obsTarget
}

// NewObservedSampler returns an observed sampler of m.
func (m *Model) NewObservedSampler() (*ObservedSampler, error) {
	s, err := m.NewSampler()
	if err != nil {
		return nil, err
	}
	return &ObservedSampler{s: s, o: newObserver(m.f), targets: m.obsTargets()}, nil
}

// Sample evaluates one transaction (input field values in port order),
// adds its hits to plain and its observed hits to observed.
func (s *ObservedSampler) Sample(in []uint64, plain, observed *Counts) {
	sim := s.s.sim
	for i, x := range in {
		sim.SetInUint(i, x)
	}
	sim.Eval()
	s.o.load(sim.NodeValue)
	for p := range s.s.m.Points {
		b := s.s.m.Points[p].sample(s.s)
		if b < 0 {
			continue
		}
		plain.Bins[p][b]++
		if s.observed(p) {
			observed.Bins[p][b]++
		}
	}
	plain.Vectors++
	observed.Vectors++
}

// observed reports whether point p's target is observable on the loaded
// vector.
func (s *ObservedSampler) observed(p int) bool {
	t := s.targets[p]
	if t.mux >= 0 {
		return s.o.muxObservable(t.mux)
	}
	for _, id := range t.nodes {
		if !s.o.flipObservable(id) {
			return false
		}
	}
	return len(t.nodes) > 0
}

// Simulations returns the number of forward witness simulations run so far
// (the observed figure's main cost).
func (s *ObservedSampler) Simulations() int64 { return s.o.sims }

// RunObserved samples every vector of vs like Run and returns the plain
// counts (equal to Run's) and the observed counts (each at most the plain
// one), in parallel over workers goroutines (0: one per CPU; the counts do
// not depend on it).
func (m *Model) RunObserved(ctx context.Context, vs *grade.Vectors, workers int) (plain, observed *Counts, err error) {
	if len(vs.In.Fields) != len(m.f.Inputs) {
		return nil, nil, fmt.Errorf("coverage: %s has %d inputs, the vector set %s %d fields", m.Design, len(m.f.Inputs), vs.Source, len(vs.In.Fields))
	}
	for i, f := range vs.In.Fields {
		if n := m.f.Inputs[i]; n.Name != f.Name || n.Width != f.Width {
			return nil, nil, fmt.Errorf("coverage: %s input %d is %s (%d bits); the vector set's field %d is %s (%d bits)", m.Design, i, n.Name, n.Width, i, f.Name, f.Width)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := vs.Len()
	workers = max(1, min(workers, n))
	type part struct{ plain, obs *Counts }
	parts := make([]part, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s, err := m.NewObservedSampler()
			if err != nil {
				errs[w] = err
				return
			}
			pc, oc := m.NewCounts(), m.NewCounts()
			lo, hi := n*w/workers, n*(w+1)/workers
			for k := lo; k < hi; k++ {
				if (k-lo)%256 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				s.Sample(vs.Input(k), pc, oc)
			}
			parts[w] = part{pc, oc}
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	plain, observed = m.NewCounts(), m.NewCounts()
	for _, p := range parts {
		plain.Add(p.plain)
		observed.Add(p.obs)
	}
	return plain, observed, nil
}
