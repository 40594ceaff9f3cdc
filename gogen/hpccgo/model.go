package hpccgo

import (
	"bytes"
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// Model is one generated hpcc_update: the golden per-event update of one
// configuration, compiled to straight-line Go. It is immutable and safe for
// concurrent use; its methods allocate nothing.
type Model struct {
	id         int // index in generated
	name, doc  string
	configJSON string // hpcc.Config.JSON of the configuration it was printed for
}

// Models returns the generated models, in a fixed order.
func Models() []*Model { return append([]*Model(nil), generated...) }

// For returns the generated model of configuration c, if there is one (c's
// JSON form equals the one the model was printed for).
func For(c hpcc.Config) (*Model, bool) {
	js, err := c.JSON()
	if err != nil {
		return nil, false
	}
	for _, m := range generated {
		if bytes.Equal(js, []byte(m.configJSON)) {
			return m, true
		}
	}
	return nil, false
}

// Name is the model's name (Default, Compact, Receiver, MultiQ, Sojourn).
func (m *Model) Name() string { return m.name }

// Doc describes the model's configuration in one sentence.
func (m *Model) Doc() string { return m.doc }

// ConfigJSON is the JSON form (hpcc.Config.JSON) of the model's configuration.
func (m *Model) ConfigJSON() []byte { return []byte(m.configJSON) }

// Step replaces *st, the flow's state, with its next state and writes the
// outputs to *out, reading the event from *in: hpcc.Datapath.Step of the
// model's configuration, bit for bit. st and out may not overlap in (st may
// be the state the outputs are computed from: every input is read before
// anything is written).
func (m *Model) Step(st *hpcc.State, in *hpcc.Input, out *hpcc.Output) { step(m.id, st, in, out) }

// Update returns the flow's next state and the outputs of event in on state
// st: hpcc.Datapath.Update, bit for bit.
func (m *Model) Update(st hpcc.State, in hpcc.Input) (hpcc.State, hpcc.Output) {
	var out hpcc.Output
	step(m.id, &st, &in, &out)
	return st, out
}

// UpdateBatch runs Step on n = len(in) independent events: event k updates
// st[k] in place and writes out[k], as hpcc.Datapath.UpdateBatch does. It
// fails, naming the lengths, when st or out is shorter than in, and then
// updates nothing.
func (m *Model) UpdateBatch(st []hpcc.State, in []hpcc.Input, out []hpcc.Output) error {
	if len(st) < len(in) || len(out) < len(in) {
		return fmt.Errorf("hpccgo: %s: UpdateBatch: %d states and %d outputs for %d events: need one of each per event", m.name, len(st), len(out), len(in))
	}
	batch(m.id, st, in, out)
	return nil
}

// b2u is 1 for true, 0 for false (the generated input reads of boolean
// State fields).
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
