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
	// inRuns copy the event layout's in_* fields from an InputTable line,
	// outRuns the update layout's fields after upd_flow from an
	// OutputTable line: each run a range of consecutive fields of equal
	// widths in both layouts.
	inRuns, outRuns []bitRun
	flowIn, initIn  int      // ev_flow's and ev_init's index in in
	uw, ow          []uint64 // scratch: one InputTable and one OutputTable line
}

// bitRun is a range of bits copied from one packed line to another.
type bitRun struct{ src, dst, n int }

// addRun appends the copy of a width-bit field at src to dst, merged into
// the last run when it continues it in both lines.
func addRun(runs []bitRun, src, dst, width int) []bitRun {
	if k := len(runs) - 1; k >= 0 && runs[k].src+runs[k].n == src && runs[k].dst+runs[k].n == dst {
		runs[k].n += width
		return runs
	}
	return append(runs, bitRun{src: src, dst: dst, n: width})
}

// copyRuns copies the runs' bits from src to dst (whose bits there are
// zero), 64 at a time.
func copyRuns(dst, src []uint64, runs []bitRun) {
	for _, r := range runs {
		for k := 0; k < r.n; k += 64 {
			w := min(64, r.n-k)
			fieldtable.PutBits(dst, r.dst+k, w, fieldtable.GetBits(src, r.src+k, w))
		}
	}
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
	mm := &ModuleModel{d: d, opts: opts, flows: make([]hpcc.State, 1<<uint(opts.FlowBits)), in: in, out: out,
		uw: make([]uint64, d.InputTable().Words()), ow: make([]uint64, d.OutputTable().Words())}
	mm.flowIn, mm.initIn = in.Index("ev_flow"), in.Index("ev_init")
	if mm.flowIn < 0 || mm.initIn < 0 || in.Fields[mm.initIn].Width != 1 || out.Index("upd_flow") != 0 {
		return nil, fmt.Errorf("hpccrtl: module layouts %s, %s: want ev_flow, a 1-bit ev_init and upd_flow first", in.Name, out.Name)
	}
	ut, ot := d.InputTable(), d.OutputTable()
	for _, f := range in.Fields {
		if f.Name == "ev_flow" || f.Name == "ev_init" {
			continue
		}
		k := ut.Index(f.Name)
		if k < 0 || ut.Fields[k].Width != f.Width {
			return nil, fmt.Errorf("hpccrtl: module event field %s: not a field of %s of the same width", f.Name, ut.Name)
		}
		mm.inRuns = addRun(mm.inRuns, ut.Fields[k].Offset, f.Offset, f.Width)
	}
	for _, n := range outNames {
		k, j := ot.Index(n.upd), out.Index(n.mod)
		if k < 0 || j < 0 || ot.Fields[k].Width != out.Fields[j].Width {
			return nil, fmt.Errorf("hpccrtl: module update field %s: not %s of %s with its width", n.mod, n.upd, ot.Name)
		}
		mm.outRuns = addRun(mm.outRuns, ot.Fields[k].Offset, out.Fields[j].Offset, out.Fields[j].Width)
	}
	return mm, nil
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

// PackEvent writes ev as one line of the module's event layout (word:
// Tables' in.Words() words).
func (mm *ModuleModel) PackEvent(ev Event, word []uint64) error {
	if len(word) != mm.in.Words() {
		return fmt.Errorf("hpccrtl: event line of %d words, layout %s has %d", len(word), mm.in.Name, mm.in.Words())
	}
	if err := mm.d.PackInput(hpcc.State{}, ev.In, mm.uw); err != nil {
		return err
	}
	clear(word)
	if err := fieldtable.Put(word, mm.in.Fields[mm.flowIn], uint64(ev.Flow)); err != nil {
		return err
	}
	if ev.Init {
		fieldtable.PutBits(word, mm.in.Fields[mm.initIn].Offset, 1, 1)
	}
	copyRuns(word, mm.uw, mm.inRuns)
	return nil
}

// PackUpdate writes the module's update for an event of flow (its next
// state and output) as one line of the update layout (word: Tables'
// out.Words() words).
func (mm *ModuleModel) PackUpdate(flow uint32, next hpcc.State, out hpcc.Output, word []uint64) error {
	if len(word) != mm.out.Words() {
		return fmt.Errorf("hpccrtl: update line of %d words, layout %s has %d", len(word), mm.out.Name, mm.out.Words())
	}
	if err := mm.d.PackOutput(next, out, mm.ow); err != nil {
		return err
	}
	clear(word)
	if err := fieldtable.Put(word, mm.out.Fields[0], uint64(flow)); err != nil {
		return err
	}
	copyRuns(word, mm.ow, mm.outRuns)
	return nil
}

// Step packs ev into stim (one line of the event layout), applies it
// (Apply) and packs the module's update into exp (one line of the update
// layout): the lines Vectors makes for ev, without allocating.
func (mm *ModuleModel) Step(ev Event, stim, exp []uint64) error {
	if err := mm.PackEvent(ev, stim); err != nil {
		return err
	}
	next, out, err := mm.Apply(ev)
	if err != nil {
		return err
	}
	return mm.PackUpdate(ev.Flow, next, out, exp)
}

// Schedule returns the cycles the RTL's handshake takes for events of the
// given flows offered as the generated testbench offers them (back to back,
// one idle cycle after every gap events when gap > 0): the number of cycles
// an offered event waited for ev_ready. An event is accepted unless an
// event of its flow was accepted 1..Stages cycles earlier.
func (o ModuleOptions) Schedule(flows []uint32, gap int) (stalls int) {
	s := o.NewScheduler(gap)
	for _, f := range flows {
		s.Offer(f)
	}
	return s.Stalls()
}

// Scheduler is Schedule event by event, for a stream too long to hold:
// Offer each event's flow in order; Stalls is then Schedule of the flows
// offered. Its memory is one cycle number per flow seen.
type Scheduler struct {
	stages, gap int
	last        []int          // per flow < 2^16: acceptance cycle + 1 (0: never accepted)
	far         map[uint32]int // flows >= 2^16, the same
	cycle       int            // the cycle the offered event is checked in
	sinceGap    int            // events offered since the last idle cycle
	stalls      int
	started     bool
}

// NewScheduler returns a Scheduler of the handshake rule of o for events
// offered with an idle cycle after every gap events (0: back to back).
func (o ModuleOptions) NewScheduler(gap int) *Scheduler {
	return &Scheduler{stages: o.Stages, gap: gap}
}

// Offer offers the next event, of flow, and returns the cycles it waits
// for ev_ready. The testbench offers an event in the cycle after the
// previous one was taken (and one cycle later after every gap events);
// it is taken in the first cycle in which no event of its flow was taken
// 1..Stages cycles before.
func (s *Scheduler) Offer(flow uint32) (stalls int) {
	if !s.started {
		s.started, s.sinceGap, s.cycle = true, 1, 1
	} else if s.gap > 0 && s.sinceGap == s.gap {
		s.sinceGap, s.cycle = 1, s.cycle+2 // an idle cycle, then the offer
	} else {
		s.sinceGap, s.cycle = s.sinceGap+1, s.cycle+1
	}
	var t int // acceptance cycle + 1 of flow's last event, 0: none
	if flow < 1<<16 {
		if int(flow) >= len(s.last) {
			s.last = append(s.last, make([]int, int(flow)+1-len(s.last))...)
		}
		t = s.last[flow]
	} else {
		t = s.far[flow]
	}
	if t > 0 {
		if d := s.cycle - (t - 1); d >= 1 && d <= s.stages {
			stalls = s.stages + 1 - d // wait until the distance is Stages+1
		}
	}
	s.stalls += stalls
	s.cycle += stalls
	if flow < 1<<16 {
		s.last[flow] = s.cycle + 1
	} else {
		if s.far == nil {
			s.far = map[uint32]int{}
		}
		s.far[flow] = s.cycle + 1
	}
	return stalls
}

// Stalls returns the cycles the events offered so far waited for
// ev_ready.
func (s *Scheduler) Stalls() int { return s.stalls }

// Vectors applies events in order (the acceptance order, which the RTL
// keeps) and returns the packed event lines and the expected update lines
// (Step for each event).
func (mm *ModuleModel) Vectors(events []Event) (stim, exp [][]uint64, err error) {
	stim, exp = make([][]uint64, len(events)), make([][]uint64, len(events))
	for i, ev := range events {
		stim[i], exp[i] = make([]uint64, mm.in.Words()), make([]uint64, mm.out.Words())
		if err := mm.Step(ev, stim[i], exp[i]); err != nil {
			return nil, nil, fmt.Errorf("hpccrtl: event %d: %w", i, err)
		}
	}
	return stim, exp, nil
}
