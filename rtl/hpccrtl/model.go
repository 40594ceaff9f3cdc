package hpccrtl

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// Event is one telemetry event offered to hpcc_module.
type Event struct {
	Flow uint32     // flow-table index, < 2^FlowBits
	Init bool       // start the flow from the initial state
	In   hpcc.Input // the event as the golden datapath takes it
}

// ModuleModel is the Go model of hpcc_module at transaction level: events
// are applied in acceptance order to a flow table through the golden
// datapath (cc/hpcc Update). Because the RTL forwards or stalls every
// read-after-write hazard, its update stream must equal this model's.
type ModuleModel struct {
	d     *hpcc.Datapath
	opts  ModuleOptions
	flows []hpcc.State
	in    fieldtable.Table // module event layout
	out   fieldtable.Table // module update layout
}

// NewModuleModel returns the model with every flow in the initial state.
func NewModuleModel(cfg hpcc.Config, opts ModuleOptions) (*ModuleModel, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	in, out, err := moduleTables(d, opts)
	if err != nil {
		return nil, err
	}
	return &ModuleModel{d: d, opts: opts, flows: make([]hpcc.State, 1<<uint(opts.FlowBits)), in: in, out: out}, nil
}

// Tables returns the module's event and update layouts.
func (mm *ModuleModel) Tables() (in, out fieldtable.Table) { return mm.in, mm.out }

// Apply runs one accepted event and returns the flow's new state and the
// update the module reports.
func (mm *ModuleModel) Apply(ev Event) (hpcc.State, hpcc.Output, error) {
	if int(ev.Flow) >= len(mm.flows) {
		return hpcc.State{}, hpcc.Output{}, fmt.Errorf("hpccrtl: event flow %d: must be < %d", ev.Flow, len(mm.flows))
	}
	st := mm.flows[ev.Flow]
	if ev.Init {
		st = mm.d.InitialState()
	}
	next, out := mm.d.Update(st, ev.In)
	mm.flows[ev.Flow] = next
	return next, out, nil
}

// PackEvent writes ev as one line of the module's event layout.
func (mm *ModuleModel) PackEvent(ev Event, word []uint64) error {
	uw := make([]uint64, mm.d.InputTable().Words())
	if err := mm.d.PackInput(hpcc.State{}, ev.In, uw); err != nil {
		return err
	}
	for i := range word {
		word[i] = 0
	}
	ut := mm.d.InputTable()
	for _, f := range mm.in.Fields {
		var v uint64
		switch f.Name {
		case "ev_flow":
			v = uint64(ev.Flow)
		case "ev_init":
			if ev.Init {
				v = 1
			}
		default:
			v = fieldtable.Get(uw, ut.Fields[ut.Index(f.Name)])
		}
		if err := fieldtable.Put(word, f, v); err != nil {
			return err
		}
	}
	return nil
}

// PackUpdate writes the module's update for an event of flow (its next
// state and output) as one line of the update layout.
func (mm *ModuleModel) PackUpdate(flow uint32, next hpcc.State, out hpcc.Output, word []uint64) error {
	uw := make([]uint64, mm.d.OutputTable().Words())
	if err := mm.d.PackOutput(next, out, uw); err != nil {
		return err
	}
	ot := mm.d.OutputTable()
	for i := range word {
		word[i] = 0
	}
	if err := fieldtable.Put(word, mm.out.Fields[0], uint64(flow)); err != nil {
		return err
	}
	for _, n := range outNames {
		v := fieldtable.Get(uw, ot.Fields[ot.Index(n.upd)])
		if err := fieldtable.Put(word, mm.out.Fields[mm.out.Index(n.mod)], v); err != nil {
			return err
		}
	}
	return nil
}

// Schedule returns the cycles the RTL's handshake takes for events of the
// given flows offered as the generated testbench offers them (back to back,
// one idle cycle after every gap events when gap > 0): the number of cycles
// an offered event waited for ev_ready. An event is accepted unless an
// event of its flow was accepted 1..Stages cycles earlier.
func (o ModuleOptions) Schedule(flows []uint32, gap int) (stalls int) {
	last := map[uint32]int{}
	L := o.Stages
	cycle := 0
	sent, sinceGap := 0, 0
	curValid := false
	var cur uint32
	for sent < len(flows) || curValid {
		// The offered event is taken at this edge if ready.
		if curValid {
			t, seen := last[cur]
			if seen && cycle-t >= 1 && cycle-t <= L {
				stalls++
				cycle++
				continue
			}
			last[cur] = cycle
			curValid = false
		}
		if sent < len(flows) && !(gap > 0 && sinceGap == gap) {
			cur, curValid = flows[sent], true
			sent++
			sinceGap++
		} else {
			sinceGap = 0
		}
		cycle++
	}
	return stalls
}

// Vectors applies events in order (the acceptance order, which the RTL
// keeps) and returns the packed event lines and the expected update lines.
func (mm *ModuleModel) Vectors(events []Event) (stim, exp [][]uint64, err error) {
	for i, ev := range events {
		w := make([]uint64, mm.in.Words())
		if err := mm.PackEvent(ev, w); err != nil {
			return nil, nil, fmt.Errorf("hpccrtl: event %d: %w", i, err)
		}
		next, out, err := mm.Apply(ev)
		if err != nil {
			return nil, nil, fmt.Errorf("hpccrtl: event %d: %w", i, err)
		}
		o := make([]uint64, mm.out.Words())
		if err := mm.PackUpdate(ev.Flow, next, out, o); err != nil {
			return nil, nil, fmt.Errorf("hpccrtl: event %d: %w", i, err)
		}
		stim, exp = append(stim, w), append(exp, o)
	}
	return stim, exp, nil
}
