package coverage

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// Sampler evaluates the model's description for one transaction at a time
// and counts the bins each hits. One goroutine per Sampler.
type Sampler struct {
	m   *Model
	sim *rtl.Sim
}

// NewSampler returns a sampler of m.
func (m *Model) NewSampler() (*Sampler, error) {
	sim, err := rtl.NewSim(m.f)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	sf := sim.Module()
	if len(sf.Nodes) != len(m.f.Nodes) {
		return nil, fmt.Errorf("coverage: %s: the simulator's module has %d nodes, the model's %d", m.Design, len(sf.Nodes), len(m.f.Nodes))
	}
	for i, n := range sf.Nodes {
		if n.Name != m.f.Nodes[i].Name {
			return nil, fmt.Errorf("coverage: %s: node %d is %s in the simulator, %s in the model", m.Design, i, n.Name, m.f.Nodes[i].Name)
		}
	}
	return &Sampler{m: m, sim: sim}, nil
}

func (s *Sampler) node(id int) rtl.Bits { return s.sim.NodeValue(id) }

// Sample evaluates one transaction, given as its input field values in
// port order, and adds its hits to c.
func (s *Sampler) Sample(in []uint64, c *Counts) {
	for i, x := range in {
		s.sim.SetInUint(i, x)
	}
	s.sim.Eval()
	for p := range s.m.Points {
		if b := s.m.Points[p].sample(s); b >= 0 {
			c.Bins[p][b]++
		}
	}
	c.Vectors++
}

// Counts are per-bin hit counts over some vectors, laid out as the model's
// points and bins.
type Counts struct {
	Vectors int64
	Bins    [][]uint64
}

// NewCounts returns zero counts for m.
func (m *Model) NewCounts() *Counts {
	c := &Counts{Bins: make([][]uint64, len(m.Points))}
	for i, p := range m.Points {
		c.Bins[i] = make([]uint64, len(p.Bins))
	}
	return c
}

// Add adds o's counts to c (same model).
func (c *Counts) Add(o *Counts) {
	c.Vectors += o.Vectors
	for i := range c.Bins {
		for b := range c.Bins[i] {
			c.Bins[i][b] += o.Bins[i][b]
		}
	}
}

// Run samples every vector of vs (in parallel over workers goroutines, 0:
// one per CPU; the counts do not depend on it).
func (m *Model) Run(ctx context.Context, vs *grade.Vectors, workers int) (*Counts, error) {
	if len(vs.In.Fields) != len(m.f.Inputs) {
		return nil, fmt.Errorf("coverage: %s has %d inputs, the vector set %s %d fields", m.Design, len(m.f.Inputs), vs.Source, len(vs.In.Fields))
	}
	for i, f := range vs.In.Fields {
		if n := m.f.Inputs[i]; n.Name != f.Name || n.Width != f.Width {
			return nil, fmt.Errorf("coverage: %s input %d is %s (%d bits); the vector set's field %d is %s (%d bits)", m.Design, i, n.Name, n.Width, i, f.Name, f.Width)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	n := vs.Len()
	workers = max(1, min(workers, n))
	parts := make([]*Counts, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			s, err := m.NewSampler()
			if err != nil {
				errs[w] = err
				return
			}
			c := m.NewCounts()
			lo, hi := n*w/workers, n*(w+1)/workers
			for k := lo; k < hi; k++ {
				if (k-lo)%1024 == 0 && ctx.Err() != nil {
					errs[w] = ctx.Err()
					return
				}
				s.Sample(vs.Input(k), c)
			}
			parts[w] = c
		}(w)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	total := m.NewCounts()
	for _, c := range parts {
		total.Add(c)
	}
	return total, nil
}
