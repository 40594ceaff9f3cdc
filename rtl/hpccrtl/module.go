package hpccrtl

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
)

// ModuleName is the module name of the HPCC++ module of Figure 4.
const ModuleName = "hpcc_module"

// Handshake ports of hpcc_module.
const (
	EvValid  = "ev_valid"  // in: a telemetry event is offered
	EvReady  = "ev_ready"  // out: the offered event is taken this cycle
	UpdValid = "upd_valid" // out: a window/rate update for the scheduler
)

// ModuleOptions configures hpcc_module.
type ModuleOptions struct {
	// Stages is the pipeline depth of the hpcc_update instance (its
	// latency L in cycles).
	Stages int
	// FlowBits sets the flow-table depth, 2^FlowBits flows (1..16).
	FlowBits int
}

// Validate checks the options.
func (o ModuleOptions) Validate() error {
	if o.Stages < 0 || o.Stages > 16 {
		return fmt.Errorf("hpccrtl: ModuleOptions.Stages=%d: must be in [0,16]", o.Stages)
	}
	if o.FlowBits < 1 || o.FlowBits > 16 {
		return fmt.Errorf("hpccrtl: ModuleOptions.FlowBits=%d: must be in [1,16]", o.FlowBits)
	}
	return nil
}

// Latency is the cycles from an event's acceptance to its update output:
// one for the flow-table read, Stages for hpcc_update.
func (o ModuleOptions) Latency() int { return 1 + o.Stages }

// SameFlowSpacing is the minimum distance in cycles between the acceptance
// of two events of the same flow: Stages+1 (ev_ready is held low until the
// earlier event's result has reached the write-back register). Events of
// different flows are accepted every cycle.
func (o ModuleOptions) SameFlowSpacing() int { return o.Stages + 1 }

// outNames maps hpcc_module's update outputs to hpcc_update's output fields.
var outNames = []struct{ mod, upd string }{
	{"upd_w", "ns_w"}, {"upd_wc", "ns_wc"}, {"upd_u", "ns_u"}, {"upd_inc_stage", "ns_inc_stage"},
	{"upd_rate", "out_rate"}, {"upd_first", "out_first"}, {"upd_mi", "out_mi"}, {"upd_update_wc", "out_update_wc"},
	{"upd_notify", "out_notify"}, {"upd_sel_hop", "out_sel_hop"}, {"upd_hop_valid", "out_hop_valid"},
}

// ModuleTables returns hpcc_module's transaction layouts, derived from the
// golden datapath's field tables: the event (ev_flow, ev_init, then every
// in_* field of InputTable) and the update sent to the scheduler (upd_flow,
// then W, Wc, U, incStage, the rate and the event flags).
func ModuleTables(cfg hpcc.Config, opts ModuleOptions) (in, out fieldtable.Table, err error) {
	if err := opts.Validate(); err != nil {
		return in, out, err
	}
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return in, out, err
	}
	return moduleTables(d, opts)
}

func moduleTables(d *hpcc.Datapath, opts ModuleOptions) (in, out fieldtable.Table, err error) {
	is := []fieldtable.Spec{
		{Name: "ev_flow", Width: opts.FlowBits, Format: "uint", Doc: "flow index (flow-table address)"},
		{Name: "ev_init", Width: 1, Format: "bool", Doc: "start the flow: use the initial (zero) state instead of the table entry"},
	}
	for _, f := range d.InputTable().Fields {
		if strings.HasPrefix(f.Name, "in_") {
			is = append(is, fieldtable.Spec{Name: f.Name, Width: f.Width, Format: f.Format, Doc: f.Doc})
		}
	}
	os := []fieldtable.Spec{{Name: "upd_flow", Width: opts.FlowBits, Format: "uint", Doc: "flow of this update"}}
	ut := d.OutputTable()
	for _, n := range outNames {
		f := ut.Fields[ut.Index(n.upd)]
		os = append(os, fieldtable.Spec{Name: n.mod, Width: f.Width, Format: f.Format, Doc: f.Doc})
	}
	if in, err = fieldtable.New(ModuleName+"_in", is); err != nil {
		return in, out, err
	}
	out, err = fieldtable.New(ModuleName+"_out", os)
	return in, out, err
}

// Module builds hpcc_module, the HPCC++ module of the draft's Figure 4:
//
//	cycle t      ev_valid && ev_ready: the event is accepted; the flow table
//	             is read (registered read) and the event is registered (stage R).
//	cycle t+1    the flow's state is the RAM word, or the write-back
//	             register when it holds a result for this flow written at the
//	             same edge as the read (read-after-write forwarding), or the
//	             zero state when ev_init was set; it enters hpcc_update.
//	cycle t+1+L  hpcc_update's result (L = Stages): upd_valid with the flow's
//	             new W, Wc, U, incStage, rate and flags goes to the scheduler;
//	             the new state is written to the flow table and to the
//	             write-back register.
//
// ev_ready is low while an event of the same flow accepted 1..L cycles
// earlier is still inside hpcc_update (its result would arrive too late
// for forwarding): same-flow events are spaced Stages+1 cycles, other flows
// flow at one event per cycle. The update outputs have no back-pressure.
func Module(cfg hpcc.Config, opts ModuleOptions) (*rtl.Module, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	upd, _, err := Update(cfg, opts.Stages)
	if err != nil {
		return nil, err
	}
	inT, _, err := moduleTables(d, opts)
	if err != nil {
		return nil, err
	}
	L, fb := opts.Stages, opts.FlowBits
	m := rtl.NewModule(ModuleName, "HPCC++ module (draft-miao-tsv-hpcc section 7.2, Figure 4): flow table + hpcc_update")
	addParams(m, cfg, opts.Stages)
	m.AddParam("FlowBits", fmt.Sprint(fb))

	ev := map[string]*rtl.Node{}
	for _, f := range inT.Fields {
		ev[f.Name] = m.In(f.Name, f.Width, false).WithDoc(f.Doc)
	}
	evValid := m.In(EvValid, 1, false).WithDoc("an event is offered")
	port := func(name string) (*rtl.Node, error) { // an event port of the module, by its field name
		if n := ev[name]; n != nil {
			return n, nil
		}
		return nil, fmt.Errorf("hpccrtl: hpcc_module: no event port %s", name)
	}
	flow, err := port("ev_flow")
	if err != nil {
		return nil, err
	}
	evInit, err := port("ev_init")
	if err != nil {
		return nil, err
	}

	// Flow/valid chain: position k holds the event accepted k+1 cycles ago
	// (k = 0 is stage R, k = L is aligned with hpcc_update's outputs).
	fl := make([]*rtl.Node, L+1)
	vl := make([]*rtl.Node, L+1)
	vl[0] = m.Reg("r_valid", 1, false, true, rtl.Bits{})
	fl[0] = m.Reg("r_flow", fb, false, false, rtl.Bits{})
	for k := 1; k <= L; k++ {
		vl[k] = m.Reg(fmt.Sprintf("p%d_valid", k), 1, false, true, rtl.Bits{})
		m.SetNext(vl[k], vl[k-1], nil)
		fl[k] = m.Delay(fl[k-1], fmt.Sprintf("p%d_flow", k))
	}
	// Stall while a same-flow event is 1..L cycles old (positions 0..L-1).
	var hits []*rtl.Node
	for k := 0; k < L; k++ {
		hits = append(hits, m.And(vl[k], m.Eq(fl[k], flow)))
	}
	conflict := m.OrAll(hits...).Named("conflict")
	ready := m.Not(conflict).Named("ready")
	accept := m.And(evValid, ready).Named("accept")
	m.SetNext(vl[0], accept, nil)
	m.SetNext(fl[0], flow, nil)
	rInit := m.Delay(evInit, "r_init")

	// Flow table: one RAM per state field (st_* of the field table), all
	// addressed by the flow, plus the write-back register.
	wbValid := m.Reg("wb_valid", 1, false, true, rtl.Bits{})
	wbFlow := m.Reg("wb_flow", fb, false, false, rtl.Bits{})
	fwd := m.And(wbValid, m.Eq(wbFlow, fl[0])).Named("fwd_wb")
	type field struct {
		mem *rtl.Mem
		wb  *rtl.Node
	}
	fields := map[string]field{}
	args := make([]*rtl.Node, len(upd.Inputs))
	for i, in := range upd.Inputs {
		switch {
		case strings.HasPrefix(in.Name, "st_"):
			name := strings.TrimPrefix(in.Name, "st_")
			mem := m.NewMem("ft_"+name, in.Width, fb, "flow table: "+in.Doc)
			rdata := m.MemRead(mem, flow, accept, "ft_"+name+"_rd")
			wb := m.Reg("wb_"+name, in.Width, false, false, rtl.Bits{})
			fields[name] = field{mem, wb}
			st := m.Mux(fwd, wb, rdata)
			args[i] = m.Mux(rInit, m.Const(in.Width, false, 0), st).Named("st_" + name)
		case in.Name == ValidIn:
			args[i] = vl[0]
		default:
			n, err := port(in.Name)
			if err != nil {
				return nil, err
			}
			args[i] = m.Delay(n, "r_"+strings.TrimPrefix(in.Name, "in_"))
		}
	}
	u := m.Instance(upd, "u_update", args)
	outValid := u.Out(ValidOut)
	for _, o := range upd.Outputs {
		if !strings.HasPrefix(o.Name, "ns_") {
			continue
		}
		f, ok := fields[strings.TrimPrefix(o.Name, "ns_")]
		if !ok {
			return nil, fmt.Errorf("hpccrtl: update output %s has no state input", o.Name)
		}
		m.MemWrite(f.mem, outValid, fl[L], u.Out(o.Name))
		m.SetNext(f.wb, u.Out(o.Name), nil)
	}
	m.SetNext(wbValid, outValid, nil)
	m.SetNext(wbFlow, fl[L], nil)

	m.Out(EvReady, ready, "the offered event is taken at this clock edge")
	m.Out(UpdValid, outValid, "window/rate update for the scheduler")
	m.Out("upd_flow", fl[L], "flow of this update")
	for _, n := range outNames {
		m.Out(n.mod, u.Out(n.upd), "")
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}
