package nicmodel

import (
	"sync"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// Datapaths shares HPCC++ golden datapaths among the NICs of one run
// (Options.Datapaths): NICs whose hpcc.Config is equal use one
// hpcc.Datapath. A datapath is read-only once built (its tables, ROMs and
// plans; Update takes and returns the flow state by value, and the lazily
// computed reciprocal units are guarded by a sync.Once), so sharing it
// changes no result; it saves building its reciprocal tables per NIC,
// about a fifth of a 60:1 incast's CPU time. Safe for concurrent use.
type Datapaths struct {
	mu    sync.Mutex
	built []sharedDatapath
}

type sharedDatapath struct {
	cfg hpcc.Config
	d   *hpcc.Datapath
}

// NewDatapaths returns an empty set.
func NewDatapaths() *Datapaths { return &Datapaths{} }

// Len returns the number of distinct datapaths built.
func (s *Datapaths) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.built)
}

// get returns the datapath of cfg, building it on first use. A nil set
// builds a new one every time.
func (s *Datapaths) get(cfg hpcc.Config) (*hpcc.Datapath, error) {
	if s == nil {
		return hpcc.NewDatapath(cfg)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, b := range s.built {
		if b.cfg == cfg {
			return b.d, nil
		}
	}
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	s.built = append(s.built, sharedDatapath{cfg: cfg, d: d})
	return d, nil
}
