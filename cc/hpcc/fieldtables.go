package hpcc

import (
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
)

// binding ties one field of a transaction table to a Go value.
type binding ccutil.Binding[State, Input, Output]

// transaction is a laid-out table with its bindings.
type transaction = ccutil.Transaction[State, Input, Output]

// stateBindings are the flow-table fields, named prefix+name (st_ before,
// ns_ after the update).
func (d *Datapath) stateBindings(prefix, when string) []binding {
	c := d.cfg
	fm := c.Formats
	lu := "lastUpdateSeq (serial number)"
	if c.Mode == Receiver {
		lu = "lastUpdateTime, ns (wrapping)"
	}
	bs := []binding{
		{fieldtable.Spec{Name: prefix + "valid", Width: 1, Format: "bool", Doc: when + ": flow has seen telemetry"},
			func(s *State, _ *Input, _ *Output) uint64 { return ccutil.B2U(s.Valid) },
			func(s *State, _ *Input, _ *Output, v uint64) { s.Valid = v != 0 }},
		{fieldtable.Spec{Name: prefix + "nhops", Width: c.NHopsBits(), Format: "uint", Doc: when + ": hop count of the stored telemetry"},
			func(s *State, _ *Input, _ *Output) uint64 { return uint64(s.NHops) },
			func(s *State, _ *Input, _ *Output, v uint64) { s.NHops = uint8(v) }},
		{fieldtable.Spec{Name: prefix + "w", Width: fm.W.W, Format: fm.W.String(), Doc: when + ": window W, bytes"},
			func(s *State, _ *Input, _ *Output) uint64 { return s.W },
			func(s *State, _ *Input, _ *Output, v uint64) { s.W = v }},
		{fieldtable.Spec{Name: prefix + "wc", Width: fm.W.W, Format: fm.W.String(), Doc: when + ": reference window Wc, bytes"},
			func(s *State, _ *Input, _ *Output) uint64 { return s.Wc },
			func(s *State, _ *Input, _ *Output, v uint64) { s.Wc = v }},
		{fieldtable.Spec{Name: prefix + "u", Width: fm.U.W, Format: fm.U.String(), Doc: when + ": normalized inflight U (EWMA)"},
			func(s *State, _ *Input, _ *Output) uint64 { return s.U },
			func(s *State, _ *Input, _ *Output, v uint64) { s.U = v }},
		{fieldtable.Spec{Name: prefix + "inc_stage", Width: c.IncStageBits(), Format: "uint", Doc: when + ": incStage"},
			func(s *State, _ *Input, _ *Output) uint64 { return uint64(s.IncStage) },
			func(s *State, _ *Input, _ *Output, v uint64) { s.IncStage = uint8(v) }},
		{fieldtable.Spec{Name: prefix + "last_update", Width: c.LastUpdateBits(), Format: "uint", Doc: when + ": " + lu},
			func(s *State, _ *Input, _ *Output) uint64 { return s.LastUpdate },
			func(s *State, _ *Input, _ *Output, v uint64) { s.LastUpdate = v }},
	}
	tsDoc := "egress time rx+residence: (seconds mod 2^20)<<30 | ns within the second"
	if c.Encoding == telemetry.Compact {
		tsDoc = "egress timestamp, ns (24-bit wrapping)"
	}
	for i := 0; i < c.MaxHops; i++ {
		i := i
		p := prefix + "hop" + strconv.Itoa(i) + "_"
		h := when + ": hop " + strconv.Itoa(i) + " "
		bs = append(bs,
			binding{fieldtable.Spec{Name: p + "ts", Width: c.HopTsBits(), Format: "uint", Doc: h + tsDoc},
				func(s *State, _ *Input, _ *Output) uint64 { return s.Hops[i].Ts },
				func(s *State, _ *Input, _ *Output, v uint64) { s.Hops[i].Ts = v }},
			binding{fieldtable.Spec{Name: p + "tx_bytes", Width: c.Encoding.TxBytesBits(), Format: "uint", Doc: h + txBytesDoc(c.Encoding)},
				func(s *State, _ *Input, _ *Output) uint64 { return uint64(s.Hops[i].TxBytes) },
				func(s *State, _ *Input, _ *Output, v uint64) { s.Hops[i].TxBytes = uint32(v) }},
			binding{fieldtable.Spec{Name: p + "qlen", Width: c.Encoding.QlenBits(), Format: "uint", Doc: h + stateQlenDoc(c)},
				func(s *State, _ *Input, _ *Output) uint64 { return uint64(s.Hops[i].Qlen) },
				func(s *State, _ *Input, _ *Output, v uint64) { s.Hops[i].Qlen = uint32(v) }},
		)
		if c.HopIDBits() > 0 {
			bs = append(bs, binding{fieldtable.Spec{Name: p + "id", Width: c.HopIDBits(), Format: "uint", Doc: h + "link identity deviceID<<16|egressPort"},
				func(s *State, _ *Input, _ *Output) uint64 { return s.Hops[i].ID },
				func(s *State, _ *Input, _ *Output, v uint64) { s.Hops[i].ID = v }})
		}
	}
	return bs
}

// eventBindings are the event fields (in_ prefix): mode-dependent scalars,
// the hop count and the per-hop wire fields the datapath reads.
func (d *Datapath) eventBindings() []binding {
	c := d.cfg
	var bs []binding
	if c.Mode == Sender {
		bs = append(bs,
			binding{fieldtable.Spec{Name: "in_seq", Width: c.SeqBits, Format: "uint", Doc: "ACK sequence number"},
				func(_ *State, in *Input, _ *Output) uint64 { return in.Seq },
				func(_ *State, in *Input, _ *Output, v uint64) { in.Seq = v }},
			binding{fieldtable.Spec{Name: "in_snd_nxt", Width: c.SeqBits, Format: "uint", Doc: "sender snd_nxt"},
				func(_ *State, in *Input, _ *Output) uint64 { return in.SndNxt },
				func(_ *State, in *Input, _ *Output, v uint64) { in.SndNxt = v }})
	} else {
		bs = append(bs, binding{fieldtable.Spec{Name: "in_now", Width: c.TimeBits, Format: "uint", Doc: "event time, ns (wrapping)"},
			func(_ *State, in *Input, _ *Output) uint64 { return in.NowNs },
			func(_ *State, in *Input, _ *Output, v uint64) { in.NowNs = v }})
		if c.DynamicWAI {
			bs = append(bs, binding{fieldtable.Spec{Name: "in_nflows", Width: c.FlowCountBits, Format: "uint", Doc: "receiver-measured concurrent flows N (0 read as 1)"},
				func(_ *State, in *Input, _ *Output) uint64 { return uint64(in.NFlows) },
				func(_ *State, in *Input, _ *Output, v uint64) { in.NFlows = uint32(v) }})
		}
	}
	bs = append(bs, binding{fieldtable.Spec{Name: "in_nhops", Width: c.NHopsBits(), Format: "uint", Doc: "hop count of this event's telemetry"},
		func(_ *State, in *Input, _ *Output) uint64 { return uint64(in.NHops) },
		func(_ *State, in *Input, _ *Output, v uint64) { in.NHops = uint8(v) }})
	e := c.Encoding
	for i := 0; i < c.MaxHops; i++ {
		i := i
		p := "in_hop" + strconv.Itoa(i) + "_"
		h := "hop " + strconv.Itoa(i) + " "
		field := func(name string, width int, doc string, get func(*telemetry.Hop) uint64, set func(*telemetry.Hop, uint64)) binding {
			return binding{fieldtable.Spec{Name: p + name, Width: width, Format: "uint", Doc: h + doc},
				func(_ *State, in *Input, _ *Output) uint64 { return get(&in.Hops[i]) },
				func(_ *State, in *Input, _ *Output, v uint64) { set(&in.Hops[i], v) }}
		}
		bs = append(bs, field("speed", e.SpeedBits(), "speed code",
			func(h *telemetry.Hop) uint64 { return uint64(h.SpeedCode) }, func(h *telemetry.Hop, v uint64) { h.SpeedCode = uint8(v) }))
		if e == telemetry.Compact {
			bs = append(bs, field("ts", telemetry.CompactTsBits, "egress timestamp, ns (wraps at 2^24 ns)",
				func(h *telemetry.Hop) uint64 { return uint64(h.Ts) }, func(h *telemetry.Hop, v uint64) { h.Ts = uint32(v) }))
		} else {
			bs = append(bs,
				field("rx_sec", telemetry.IFARxSecBits, "rxTimestampSec: ingress time, whole seconds (wraps at 2^20 s)",
					func(h *telemetry.Hop) uint64 { return uint64(h.RxSec) }, func(h *telemetry.Hop, v uint64) { h.RxSec = uint32(v) }),
				field("rx_ns", telemetry.IFARxNsBits, "rxTimeStampNs: ingress time within the second, ns (< 10^9)",
					func(h *telemetry.Hop) uint64 { return uint64(h.RxNs) }, func(h *telemetry.Hop, v uint64) { h.RxNs = uint32(v) }),
				field("residence", telemetry.IFAResidenceBits, "residenceTime: egress minus ingress time, ns",
					func(h *telemetry.Hop) uint64 { return uint64(h.ResidenceNs) }, func(h *telemetry.Hop, v uint64) { h.ResidenceNs = uint32(v) }))
		}
		bs = append(bs,
			field("tx_bytes", e.TxBytesBits(), txBytesDoc(e),
				func(h *telemetry.Hop) uint64 { return uint64(h.TxBytes) }, func(h *telemetry.Hop, v uint64) { h.TxBytes = uint32(v) }),
			field("qlen", e.QlenBits(), qlenDoc(e),
				func(h *telemetry.Hop) uint64 { return uint64(h.Qlen) }, func(h *telemetry.Hop, v uint64) { h.Qlen = uint32(v) }))
		if c.HopIDBits() > 0 {
			bs = append(bs,
				field("device_id", telemetry.IFADeviceIDBits, "deviceID",
					func(h *telemetry.Hop) uint64 { return uint64(h.DeviceID) }, func(h *telemetry.Hop, v uint64) { h.DeviceID = uint32(v) }),
				field("egress_port", telemetry.IFAPortBits, "egressPort",
					func(h *telemetry.Hop) uint64 { return uint64(h.EgressPort) }, func(h *telemetry.Hop, v uint64) { h.EgressPort = uint16(v) }))
		}
	}
	return bs
}

// txBytesDoc states the unit and meaning of the txBytes field of encoding e:
// the egress port's cumulative transmitted-bytes counter, in units of
// e.TxBytesUnit() bytes, wrapping at 2^TxBytesBits units.
func txBytesDoc(e telemetry.Encoding) string {
	return fmt.Sprintf("txBytes: egress port's transmitted-bytes counter, %s (wraps at 2^%d)",
		unitText(e.TxBytesUnit()), e.TxBytesBits())
}

// qlenDoc states the unit and meaning of the queue-length field of encoding e:
// the egress queue's occupancy sampled with txBytes, in units of e.QlenUnit()
// bytes, saturating at 2^QlenBits-1 (a switch cannot report more).
func qlenDoc(e telemetry.Encoding) string {
	return fmt.Sprintf("qlen: egress queue length, %s (saturates at 2^%d-1)",
		unitText(e.QlenUnit()), e.QlenBits())
}

// stateQlenDoc is qlenDoc for the flow table's stored sample: with Sojourn
// the slot holds the saturated sojourn time instead.
func stateQlenDoc(c Config) string {
	if c.Sojourn {
		return fmt.Sprintf("qlen slot: sojourn time (residence) in ns, saturated at 2^%d-1 (draft 9.4)", c.Encoding.QlenBits())
	}
	return qlenDoc(c.Encoding)
}

// unitText names a count's unit: "bytes" for 1, "units of N bytes" otherwise.
func unitText(n uint64) string {
	if n == 1 {
		return "bytes"
	}
	return fmt.Sprintf("units of %d bytes", n)
}

// outputBindings are the output-only fields (out_ prefix).
func (d *Datapath) outputBindings() []binding {
	c := d.cfg
	nh := uint64(c.MaxHops)
	return []binding{
		{fieldtable.Spec{Name: "out_rate", Width: c.Formats.Rate.W, Format: c.Formats.Rate.String(), Doc: "pacing rate R = W/T, bytes per ns"},
			func(_ *State, _ *Input, o *Output) uint64 { return o.Rate },
			func(_ *State, _ *Input, o *Output, v uint64) { o.Rate = v }},
		{fieldtable.Spec{Name: "out_first", Width: 1, Format: "bool", Doc: "first event of the flow"},
			func(_ *State, _ *Input, o *Output) uint64 { return ccutil.B2U(o.First) },
			func(_ *State, _ *Input, o *Output, v uint64) { o.First = v != 0 }},
		{fieldtable.Spec{Name: "out_mi", Width: 1, Format: "bool", Doc: "multiplicative step (line 12)"},
			func(_ *State, _ *Input, o *Output) uint64 { return ccutil.B2U(o.MI) },
			func(_ *State, _ *Input, o *Output, v uint64) { o.MI = v != 0 }},
		{fieldtable.Spec{Name: "out_update_wc", Width: 1, Format: "bool", Doc: "Wc and incStage committed"},
			func(_ *State, _ *Input, o *Output) uint64 { return ccutil.B2U(o.UpdateWc) },
			func(_ *State, _ *Input, o *Output, v uint64) { o.UpdateWc = v != 0 }},
		{fieldtable.Spec{Name: "out_notify", Width: 1, Format: "bool", Doc: "receiver: send a notification with W"},
			func(_ *State, _ *Input, o *Output) uint64 { return ccutil.B2U(o.Notify) },
			func(_ *State, _ *Input, o *Output, v uint64) { o.Notify = v != 0 }},
		{fieldtable.Spec{Name: "out_sel_hop", Width: bitsFor(nh), Format: "uint", Doc: fmt.Sprintf("hop of the maximum u' (%d = none)", nh)},
			func(_ *State, _ *Input, o *Output) uint64 {
				if o.SelHop == NoHop {
					return nh
				}
				return uint64(o.SelHop)
			},
			func(_ *State, _ *Input, o *Output, v uint64) {
				o.SelHop = uint8(v)
				if v == nh {
					o.SelHop = NoHop
				}
			}},
		{fieldtable.Spec{Name: "out_hop_valid", Width: c.MaxHops, Format: "uint", Doc: "bit i: hop i produced a measurement"},
			func(_ *State, _ *Input, o *Output) uint64 { return uint64(o.HopValid) },
			func(_ *State, _ *Input, o *Output, v uint64) { o.HopValid = uint8(v) }},
	}
}

func newTransaction(name string, bs []binding) (transaction, error) {
	cbs := make([]ccutil.Binding[State, Input, Output], len(bs))
	for i, b := range bs {
		cbs[i] = ccutil.Binding[State, Input, Output](b)
	}
	return ccutil.NewTransaction("hpcc", name, cbs)
}

func (d *Datapath) buildTransactions() error {
	var err error
	in := append(d.stateBindings("st_", "before"), d.eventBindings()...)
	if d.inTx, err = newTransaction("hpcc_update_in", in); err != nil {
		return err
	}
	out := append(d.stateBindings("ns_", "after"), d.outputBindings()...)
	d.outTx, err = newTransaction("hpcc_update_out", out)
	return err
}

// InputTable is the layout of one update's inputs: the flow state before
// (st_*), the event scalars (in_seq, in_snd_nxt or in_now, in_nflows,
// in_nhops) and the per-hop wire fields (in_hop<i>_*). It is the source of
// the stimulus vector files and of the RTL input ports.
func (d *Datapath) InputTable() fieldtable.Table { return d.inTx.Table }

// OutputTable is the layout of one update's outputs: the flow state after
// (ns_*) and the output-only fields (out_rate, out_first, out_mi,
// out_update_wc, out_notify, out_sel_hop, out_hop_valid). Output's W, Wc, U
// and IncStage are the ns_ fields.
func (d *Datapath) OutputTable() fieldtable.Table { return d.outTx.Table }

// PackInput writes the state before and the event into word (at least
// InputTable().Words() long). A value too wide for its field is an error
// naming the field.
func (d *Datapath) PackInput(st State, in Input, word []uint64) error {
	return d.inTx.Pack(&st, &in, nil, word)
}

// UnpackInput reads the state before and the event from word. Fields not
// in the table (IFA Ins and IngressPort, the other mode's scalars) are zero.
func (d *Datapath) UnpackInput(word []uint64) (State, Input, error) {
	var st State
	var in Input
	err := d.inTx.Unpack(&st, &in, nil, word)
	return st, in, err
}

// PackOutput writes the state after and the outputs into word (at least
// OutputTable().Words() long).
func (d *Datapath) PackOutput(next State, out Output, word []uint64) error {
	return d.outTx.Pack(&next, nil, &out, word)
}

// UnpackOutput reads the state after and the outputs from word; Output's W,
// Wc, U and IncStage are filled from the state.
func (d *Datapath) UnpackOutput(word []uint64) (State, Output, error) {
	var st State
	var out Output
	err := d.outTx.Unpack(&st, nil, &out, word)
	out.W, out.Wc, out.U, out.IncStage = st.W, st.Wc, st.U, st.IncStage
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
