package pipeline

import (
	"fmt"

	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// FlowContext is the QP context of one flow: what the Tx pipeline needs to
// address its packets and what the Rx pipeline needs to accept them.
type FlowContext struct {
	QPN       wire.QPN  // local QP number: the flow id, < the table size
	RemoteQPN wire.QPN  // the peer's QP number (DestQP of packets we send)
	Path      wire.Path // addressing of packets we send (data, or replies on the receiver side)
	PKey      uint16    // partition key
}

// FlowTable is the immutable QP context table, indexed by local QPN. The Rx
// and Tx pipelines of one NIC share it read-only.
type FlowTable struct {
	ctx   []FlowContext
	valid []bool
	n     int
}

// MaxFlows is the largest table size: the 24-bit QPN space.
const MaxFlows = 1 << 24

// NewFlowTable returns a table of size entries (QPNs 0..size-1) holding
// flows. Errors name the offending flow and field: size outside [1,
// MaxFlows], a QPN outside the table or used twice, a RemoteQPN above 24
// bits, an invalid path.
func NewFlowTable(size int, flows []FlowContext) (*FlowTable, error) {
	if size < 1 || size > MaxFlows {
		return nil, fmt.Errorf("pipeline: FlowTable size=%d: must be in [1,%d]", size, MaxFlows)
	}
	t := &FlowTable{ctx: make([]FlowContext, size), valid: make([]bool, size)}
	for i := range flows {
		f := &flows[i]
		if int(f.QPN) >= size {
			return nil, fmt.Errorf("pipeline: flows[%d].QPN=%d: must be < table size %d", i, f.QPN, size)
		}
		if t.valid[f.QPN] {
			return nil, fmt.Errorf("pipeline: flows[%d].QPN=%d: used twice", i, f.QPN)
		}
		if f.RemoteQPN > wire.QPNMask {
			return nil, fmt.Errorf("pipeline: flows[%d].RemoteQPN=%#x: must fit 24 bits", i, uint32(f.RemoteQPN))
		}
		if err := f.Path.Validate(); err != nil {
			return nil, fmt.Errorf("pipeline: flows[%d]: %w", i, err)
		}
		t.ctx[f.QPN], t.valid[f.QPN] = *f, true
		t.n++
	}
	return t, nil
}

// Size returns the number of QPN slots.
func (t *FlowTable) Size() int { return len(t.ctx) }

// Len returns the number of flows.
func (t *FlowTable) Len() int { return t.n }

// Lookup returns the context of flow q, or false when q is not a flow.
func (t *FlowTable) Lookup(q wire.QPN) (*FlowContext, bool) {
	if int(q) >= len(t.ctx) || !t.valid[q] {
		return nil, false
	}
	return &t.ctx[q], true
}
