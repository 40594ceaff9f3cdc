package ldcp

import (
	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// binding ties one field of a transaction table to a Go value.
type binding ccutil.Binding[State, Event, Output]

// transaction is a laid-out table with its bindings.
type transaction = ccutil.Transaction[State, Event, Output]

// stateBindings are the flow-table fields, named prefix+name (st_ before,
// ns_ after the update).
func (d *Datapath) stateBindings(prefix, when string) []binding {
	c := d.cfg
	fc := c.Formats.Cw
	seq := func(name, doc string, get func(*State) *uint32) binding {
		return binding{fieldtable.Spec{Name: prefix + name, Width: c.SeqBits, Format: "uint", Doc: when + doc},
			func(s *State, _ *Event, _ *Output) uint64 { return uint64(*get(s)) },
			func(s *State, _ *Event, _ *Output, v uint64) { *get(s) = uint32(v) }}
	}
	return []binding{
		{fieldtable.Spec{Name: prefix + "stage", Width: 2, Format: "uint", Doc: when + "stage: 0 idle, 1 fast start, 2 stable (3 decodes as stable)"},
			func(s *State, _ *Event, _ *Output) uint64 { return uint64(s.Stage) },
			func(s *State, _ *Event, _ *Output, v uint64) { s.Stage = Stage(v) }},
		{fieldtable.Spec{Name: prefix + "cw", Width: fc.W, Format: fc.String(), Doc: when + "congestion window cw, packets"},
			func(s *State, _ *Event, _ *Output) uint64 { return s.Cw },
			func(s *State, _ *Event, _ *Output, v uint64) { s.Cw = v }},
		seq("start", "PSN of the message's first packet", func(s *State) *uint32 { return &s.Start }),
		seq("una", "snd_una, oldest unacknowledged PSN", func(s *State) *uint32 { return &s.Una }),
		seq("nxt", "snd_nxt, next PSN to send", func(s *State) *uint32 { return &s.Nxt }),
		seq("end", "PSN after the message's last packet", func(s *State) *uint32 { return &s.End }),
		{fieldtable.Spec{Name: prefix + "next_send", Width: c.TimeBits, Format: "uint", Doc: when + "sub-packet timer deadline, ns (wrapping)"},
			func(s *State, _ *Event, _ *Output) uint64 { return s.NextSend },
			func(s *State, _ *Event, _ *Output, v uint64) { s.NextSend = v }},
	}
}

// eventBindings are the event fields (ev_ prefix).
func (d *Datapath) eventBindings() []binding {
	c := d.cfg
	return []binding{
		{fieldtable.Spec{Name: "ev_kind", Width: 2, Format: "uint", Doc: "event: 0 start, 1 send, 2 ack, 3 timeout"},
			func(_ *State, e *Event, _ *Output) uint64 { return uint64(e.Kind) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.Kind = Kind(v) }},
		{fieldtable.Spec{Name: "ev_now", Width: c.TimeBits, Format: "uint", Doc: "event time, ns (wrapping)"},
			func(_ *State, e *Event, _ *Output) uint64 { return e.NowNs },
			func(_ *State, e *Event, _ *Output, v uint64) { e.NowNs = v }},
		{fieldtable.Spec{Name: "ev_seq", Width: c.SeqBits, Format: "uint", Doc: "start: first PSN of the message"},
			func(_ *State, e *Event, _ *Output) uint64 { return uint64(e.Seq) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.Seq = uint32(v) }},
		{fieldtable.Spec{Name: "ev_msg_pkts", Width: c.MsgPktsBits(), Format: "uint", Doc: "start: message length, packets (0 is invalid)"},
			func(_ *State, e *Event, _ *Output) uint64 { return uint64(e.MsgPkts) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.MsgPkts = uint32(v) }},
		{fieldtable.Spec{Name: "ev_ack_seq", Width: c.SeqBits, Format: "uint", Doc: "ack: cumulative PSN (receiver's next expected)"},
			func(_ *State, e *Event, _ *Output) uint64 { return uint64(e.AckSeq) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.AckSeq = uint32(v) }},
		{fieldtable.Spec{Name: "ev_ece", Width: 1, Format: "bool", Doc: "ack: ECN-Echo"},
			func(_ *State, e *Event, _ *Output) uint64 { return ccutil.B2U(e.ECE) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.ECE = v != 0 }},
		{fieldtable.Spec{Name: "ev_nak", Width: 1, Format: "bool", Doc: "ack: sequence-error NAK (go-back-N)"},
			func(_ *State, e *Event, _ *Output) uint64 { return ccutil.B2U(e.NAK) },
			func(_ *State, e *Event, _ *Output, v uint64) { e.NAK = v != 0 }},
	}
}

// outputBindings are the output-only fields (out_ prefix).
func (d *Datapath) outputBindings() []binding {
	c := d.cfg
	flag := func(name, doc string, get func(*Output) *bool) binding {
		return binding{fieldtable.Spec{Name: "out_" + name, Width: 1, Format: "bool", Doc: doc},
			func(_ *State, _ *Event, o *Output) uint64 { return ccutil.B2U(*get(o)) },
			func(_ *State, _ *Event, o *Output, v uint64) { *get(o) = v != 0 }}
	}
	return []binding{
		{fieldtable.Spec{Name: "out_rule", Width: 3, Format: "uint", Doc: "window rule: 0 none, 1 ai, 2 md, 3 sub_ai, 4 sub_md"},
			func(_ *State, _ *Event, o *Output) uint64 { return uint64(o.Rule) },
			func(_ *State, _ *Event, o *Output, v uint64) { o.Rule = Rule(v) }},
		{fieldtable.Spec{Name: "out_n", Width: c.AckPktsBits, Format: "uint", Doc: "ack: packets acknowledged, clamped to 2^AckPktsBits-1"},
			func(_ *State, _ *Event, o *Output) uint64 { return uint64(o.N) },
			func(_ *State, _ *Event, o *Output, v uint64) { o.N = uint32(v) }},
		flag("allowed", "send: the packet may leave now", func(o *Output) *bool { return &o.Allowed }),
		{fieldtable.Spec{Name: "out_block", Width: 3, Format: "uint", Doc: "send refused: 0 no, 1 idle, 2 no data, 3 window, 4 timer"},
			func(_ *State, _ *Event, o *Output) uint64 { return uint64(o.Block) },
			func(_ *State, _ *Event, o *Output, v uint64) { o.Block = Block(v) }},
		{fieldtable.Spec{Name: "out_psn", Width: c.SeqBits, Format: "uint", Doc: "send: PSN transmitted"},
			func(_ *State, _ *Event, o *Output) uint64 { return uint64(o.PSN) },
			func(_ *State, _ *Event, o *Output, v uint64) { o.PSN = uint32(v) }},
		flag("ect", "send: ECN-capable (else ECN-incapable, WRED-droppable)", func(o *Output) *bool { return &o.ECT }),
		flag("last", "send: the message's last packet", func(o *Output) *bool { return &o.Last }),
		flag("done", "every packet of the message acknowledged", func(o *Output) *bool { return &o.Done }),
		flag("invalid", "event ignored (start with 0 packets, idle flow, ack beyond snd_nxt)", func(o *Output) *bool { return &o.Invalid }),
		flag("stale", "ack older than snd_una, ignored", func(o *Output) *bool { return &o.Stale }),
		flag("full_ack", "fast start ended: IW acknowledged, cw = IW", func(o *Output) *bool { return &o.FullAck }),
		flag("loss", "fast start ended by a loss: cw = packets acknowledged", func(o *Output) *bool { return &o.Loss }),
		flag("go_back_n", "snd_nxt went back to snd_una", func(o *Output) *bool { return &o.GoBackN }),
		flag("sub", "cw < 1 after the event", func(o *Output) *bool { return &o.Sub }),
		flag("timer_armed", "sub-packet timer re-armed", func(o *Output) *bool { return &o.TimerArmed }),
		{fieldtable.Spec{Name: "out_interval", Width: c.TimeBits, Format: "uint", Doc: "RTT/cw when the timer was armed, ns"},
			func(_ *State, _ *Event, o *Output) uint64 { return o.IntervalNs },
			func(_ *State, _ *Event, o *Output, v uint64) { o.IntervalNs = v }},
	}
}

func newTransaction(name string, bs []binding) (transaction, error) {
	cbs := make([]ccutil.Binding[State, Event, Output], len(bs))
	for i, b := range bs {
		cbs[i] = ccutil.Binding[State, Event, Output](b)
	}
	return ccutil.NewTransaction("ldcp", name, cbs)
}

// ModelName is the name of the LDCP update transaction ("ldcp_update"): the
// prefix of its field tables (ldcp_update_in, ldcp_update_out).
const ModelName = "ldcp_update"

func (d *Datapath) buildTransactions() error {
	var err error
	in := append(d.stateBindings("st_", "before: "), d.eventBindings()...)
	if d.inTx, err = newTransaction(ModelName+"_in", in); err != nil {
		return err
	}
	out := append(d.stateBindings("ns_", "after: "), d.outputBindings()...)
	d.outTx, err = newTransaction(ModelName+"_out", out)
	return err
}

// InputTable is the layout of one update's inputs: the flow state before
// (st_*) and the event (ev_*). It is the source of the stimulus vector files
// and of the RTL input ports.
func (d *Datapath) InputTable() fieldtable.Table { return d.inTx.Table }

// OutputTable is the layout of one update's outputs: the flow state after
// (ns_*) and the output-only fields (out_*). Output.Cw and Output.Stage are
// the ns_ fields.
func (d *Datapath) OutputTable() fieldtable.Table { return d.outTx.Table }

// PackInput writes the state before and the event into word (at least
// InputTable().Words() long). A value too wide for its field is an error
// naming the field.
func (d *Datapath) PackInput(st State, ev Event, word []uint64) error {
	return d.inTx.Pack(&st, &ev, nil, word)
}

// UnpackInput reads the state before and the event from word.
func (d *Datapath) UnpackInput(word []uint64) (State, Event, error) {
	var st State
	var ev Event
	err := d.inTx.Unpack(&st, &ev, nil, word)
	return st, ev, err
}

// PackOutput writes the state after and the outputs into word (at least
// OutputTable().Words() long).
func (d *Datapath) PackOutput(next State, out Output, word []uint64) error {
	return d.outTx.Pack(&next, nil, &out, word)
}

// UnpackOutput reads the state after and the outputs from word; Output.Cw
// and Output.Stage are filled from the state.
func (d *Datapath) UnpackOutput(word []uint64) (State, Output, error) {
	var st State
	var out Output
	err := d.outTx.Unpack(&st, nil, &out, word)
	out.Cw, out.Stage = st.Cw, st.Stage
	return st, out, err
}

// FlowStateBits is the number of bits one flow occupies in the flow table
// (the st_ fields of InputTable).
func (d *Datapath) FlowStateBits() int {
	n := 0
	for _, b := range d.stateBindings("st_", "") {
		n += b.Spec.Width
	}
	return n
}
