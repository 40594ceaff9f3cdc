package intguard

import (
	"strconv"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
)

type binding = ccutil.Binding[hpcc.State, hpcc.Input, Verdict]
type transaction = ccutil.Transaction[hpcc.State, hpcc.Input, Verdict]

// tables lays out the guard's input table (a subset of cc/hpcc's
// hpcc_update input table, same names and widths: the flow's stored path
// and hop records, the event's hop fields) and its output table.
func (g *Guard) tables() (in, out transaction, err error) {
	dp := g.cfg.Datapath
	e := g.enc
	var ib []binding
	u := func(name string, w int, doc string, get func(*hpcc.State, *hpcc.Input) uint64, set func(*hpcc.State, *hpcc.Input, uint64)) {
		ib = append(ib, binding{Spec: fieldtable.Spec{Name: name, Width: w, Format: "uint", Doc: doc},
			Get: func(s *hpcc.State, in *hpcc.Input, _ *Verdict) uint64 { return get(s, in) },
			Set: func(s *hpcc.State, in *hpcc.Input, _ *Verdict, v uint64) { set(s, in, v) }})
	}
	ib = append(ib, binding{Spec: fieldtable.Spec{Name: "st_valid", Width: 1, Format: "bool", Doc: "before: flow has seen telemetry"},
		Get: func(s *hpcc.State, _ *hpcc.Input, _ *Verdict) uint64 { return ccutil.B2U(s.Valid) },
		Set: func(s *hpcc.State, _ *hpcc.Input, _ *Verdict, v uint64) { s.Valid = v != 0 }})
	u("st_nhops", dp.NHopsBits(), "before: hop count of the stored telemetry",
		func(s *hpcc.State, _ *hpcc.Input) uint64 { return uint64(s.NHops) }, func(s *hpcc.State, _ *hpcc.Input, v uint64) { s.NHops = uint8(v) })
	for i := 0; i < dp.MaxHops; i++ {
		i := i
		p, h := "st_hop"+strconv.Itoa(i)+"_", "before: hop "+strconv.Itoa(i)+" "
		u(p+"ts", dp.HopTsBits(), h+"stored egress timestamp (cc/hpcc HopState.Ts form)",
			func(s *hpcc.State, _ *hpcc.Input) uint64 { return s.Hops[i].Ts }, func(s *hpcc.State, _ *hpcc.Input, v uint64) { s.Hops[i].Ts = v })
		u(p+"tx_bytes", e.TxBytesBits(), h+"stored txBytes, "+unitDoc(e.TxBytesUnit()),
			func(s *hpcc.State, _ *hpcc.Input) uint64 { return uint64(s.Hops[i].TxBytes) },
			func(s *hpcc.State, _ *hpcc.Input, v uint64) { s.Hops[i].TxBytes = uint32(v) })
		if g.ids {
			u(p+"id", dp.HopIDBits(), h+"stored link identity deviceID<<16|egressPort",
				func(s *hpcc.State, _ *hpcc.Input) uint64 { return s.Hops[i].ID }, func(s *hpcc.State, _ *hpcc.Input, v uint64) { s.Hops[i].ID = v })
		}
	}
	u("in_nhops", dp.NHopsBits(), "hop count of this event's telemetry",
		func(_ *hpcc.State, in *hpcc.Input) uint64 { return uint64(in.NHops) }, func(_ *hpcc.State, in *hpcc.Input, v uint64) { in.NHops = uint8(v) })
	for i := 0; i < dp.MaxHops; i++ {
		i := i
		p, h := "in_hop"+strconv.Itoa(i)+"_", "hop "+strconv.Itoa(i)+" "
		f := func(name string, w int, doc string, get func(*telemetry.Hop) uint64, set func(*telemetry.Hop, uint64)) {
			u(p+name, w, h+doc, func(_ *hpcc.State, in *hpcc.Input) uint64 { return get(&in.Hops[i]) },
				func(_ *hpcc.State, in *hpcc.Input, v uint64) { set(&in.Hops[i], v) })
		}
		f("speed", e.SpeedBits(), "speed code",
			func(x *telemetry.Hop) uint64 { return uint64(x.SpeedCode) }, func(x *telemetry.Hop, v uint64) { x.SpeedCode = uint8(v) })
		if e == telemetry.Compact {
			f("ts", telemetry.CompactTsBits, "egress timestamp, ns (wraps at 2^24 ns)",
				func(x *telemetry.Hop) uint64 { return uint64(x.Ts) }, func(x *telemetry.Hop, v uint64) { x.Ts = uint32(v) })
		} else {
			f("rx_sec", telemetry.IFARxSecBits, "rxTimestampSec (wraps at 2^20 s)",
				func(x *telemetry.Hop) uint64 { return uint64(x.RxSec) }, func(x *telemetry.Hop, v uint64) { x.RxSec = uint32(v) })
			f("rx_ns", telemetry.IFARxNsBits, "rxTimeStampNs (< 10^9)",
				func(x *telemetry.Hop) uint64 { return uint64(x.RxNs) }, func(x *telemetry.Hop, v uint64) { x.RxNs = uint32(v) })
			f("residence", telemetry.IFAResidenceBits, "residenceTime, ns",
				func(x *telemetry.Hop) uint64 { return uint64(x.ResidenceNs) }, func(x *telemetry.Hop, v uint64) { x.ResidenceNs = uint32(v) })
		}
		f("tx_bytes", e.TxBytesBits(), "txBytes, "+unitDoc(e.TxBytesUnit()),
			func(x *telemetry.Hop) uint64 { return uint64(x.TxBytes) }, func(x *telemetry.Hop, v uint64) { x.TxBytes = uint32(v) })
		f("qlen", e.QlenBits(), "queue length, "+unitDoc(e.QlenUnit()),
			func(x *telemetry.Hop) uint64 { return uint64(x.Qlen) }, func(x *telemetry.Hop, v uint64) { x.Qlen = uint32(v) })
		if g.ids {
			f("device_id", telemetry.IFADeviceIDBits, "deviceID",
				func(x *telemetry.Hop) uint64 { return uint64(x.DeviceID) }, func(x *telemetry.Hop, v uint64) { x.DeviceID = uint32(v) })
			f("egress_port", telemetry.IFAPortBits, "egressPort",
				func(x *telemetry.Hop) uint64 { return uint64(x.EgressPort) }, func(x *telemetry.Hop, v uint64) { x.EgressPort = uint16(v) })
		}
	}
	if in, err = ccutil.NewTransaction("intguard", ModelName+"_in", ib); err != nil {
		return in, out, err
	}

	var ob []binding
	o := func(name string, w int, format, doc string, get func(*Verdict) uint64, set func(*Verdict, uint64)) {
		ob = append(ob, binding{Spec: fieldtable.Spec{Name: name, Width: w, Format: format, Doc: doc},
			Get: func(_ *hpcc.State, _ *hpcc.Input, v *Verdict) uint64 { return get(v) },
			Set: func(_ *hpcc.State, _ *hpcc.Input, v *Verdict, x uint64) { set(v, x) }})
	}
	mh := dp.MaxHops
	o("out_drop_event", 1, "bool", "the event is dropped: every hop of the path failed the time check",
		func(v *Verdict) uint64 { return ccutil.B2U(v.DropEvent) }, func(v *Verdict, x uint64) { v.DropEvent = x != 0 })
	o("out_drop", mh, "uint", "hop mask: hop records dropped (path | time)",
		func(v *Verdict) uint64 { return uint64(v.Drop) }, func(v *Verdict, x uint64) { v.Drop = uint8(x) })
	checkDoc := [NumChecks]string{"queue length clamped to the buffer", "txBytes delta clamped to B*(1+tol)*dts",
		"speed code clamped to the slowest deployed speed", "path changed (hop count or identity)", "egress-time delta zero or negative"}
	for k := Check(0); k < NumChecks; k++ {
		k := k
		o("out_"+k.String(), mh, "uint", "hop mask: "+checkDoc[k],
			func(v *Verdict) uint64 { return uint64(v.Fired[k]) }, func(v *Verdict, x uint64) { v.Fired[k] = uint8(x) })
	}
	for i := 0; i < mh; i++ {
		i := i
		p, h := "out_hop"+strconv.Itoa(i)+"_", "hop "+strconv.Itoa(i)+" "
		o(p+"speed", e.SpeedBits(), "uint", h+"speed code to the update",
			func(v *Verdict) uint64 { return uint64(v.Hops[i].Speed) }, func(v *Verdict, x uint64) { v.Hops[i].Speed = uint8(x) })
		o(p+"qlen", e.QlenBits(), "uint", h+"queue length to the update",
			func(v *Verdict) uint64 { return uint64(v.Hops[i].Qlen) }, func(v *Verdict, x uint64) { v.Hops[i].Qlen = uint32(x) })
		o(p+"st_ts", dp.HopTsBits(), "uint", h+"stored timestamp to the update (the event's own when dropped)",
			func(v *Verdict) uint64 { return v.Hops[i].StTs }, func(v *Verdict, x uint64) { v.Hops[i].StTs = x })
		o(p+"st_tx_bytes", e.TxBytesBits(), "uint", h+"stored txBytes to the update (tx - dBmax when clamped)",
			func(v *Verdict) uint64 { return uint64(v.Hops[i].StTxBytes) }, func(v *Verdict, x uint64) { v.Hops[i].StTxBytes = uint32(x) })
	}
	out, err = ccutil.NewTransaction("intguard", ModelName+"_out", ob)
	return in, out, err
}

func unitDoc(u uint64) string {
	if u == 1 {
		return "bytes"
	}
	return strconv.FormatUint(u, 10) + "-byte units"
}

// InputTable is the layout of one guard transaction's inputs.
func (g *Guard) InputTable() fieldtable.Table { return g.in.Table }

// OutputTable is the layout of one guard transaction's outputs.
func (g *Guard) OutputTable() fieldtable.Table { return g.out.Table }

// PackInput packs (st, in) into word as the input table lays it out.
func (g *Guard) PackInput(st hpcc.State, in hpcc.Input, word []uint64) error {
	return g.in.Pack(&st, &in, nil, word)
}

// UnpackInput reads a packed input.
func (g *Guard) UnpackInput(word []uint64) (hpcc.State, hpcc.Input, error) {
	var st hpcc.State
	var in hpcc.Input
	err := g.in.Unpack(&st, &in, nil, word)
	return st, in, err
}

// PackOutput packs a verdict into word as the output table lays it out.
func (g *Guard) PackOutput(v Verdict, word []uint64) error { return g.out.Pack(nil, nil, &v, word) }

// UnpackOutput reads a packed output.
func (g *Guard) UnpackOutput(word []uint64) (Verdict, error) {
	var v Verdict
	err := g.out.Unpack(nil, nil, &v, word)
	return v, err
}
