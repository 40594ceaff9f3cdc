package hpccrtl

import (
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
)

// stHopPorts are the flow-table ports of one hop slot (st_hop<i>_*): the
// stored telemetry the event is differenced against.
type stHopPorts struct {
	ts, txBytes, qlen *rtl.Node
	id                *rtl.Node // nil without identity tracking
}

// inHopPorts are the event's telemetry ports of one hop slot (in_hop<i>_*).
type inHopPorts struct {
	speed                  *rtl.Node
	ts                     *rtl.Node // Compact only
	rxSec, rxNs, residence *rtl.Node // IFA only
	txBytes, qlen          *rtl.Node
	deviceID, egressPort   *rtl.Node // IFA with identity tracking only
}

// updatePorts is the typed record of hpcc_update's input ports (a layout,
// as Amaranth's or a Chisel bundle): the builder reads ports as fields, so
// a misspelt port is a compile error, not a nil node. bindPorts fills it
// from the transaction's input table and fails on any field without a slot
// or any slot of the configuration without its field.
type updatePorts struct {
	stValid, stNHops, stW, stWc, stU, stIncStage, stLastUpdate *rtl.Node
	stHops                                                     [hpcc.MaxHopsLimit]stHopPorts
	seq, sndNxt                                                *rtl.Node // sender only
	now                                                        *rtl.Node // receiver only
	nflows                                                     *rtl.Node // receiver with DynamicWAI only
	nhops                                                      *rtl.Node
	hops                                                       [hpcc.MaxHopsLimit]inHopPorts
}

// slots names every port of configuration c and the record field it
// binds to; it is the one place where port names are spelt.
func (p *updatePorts) slots(c hpcc.Config) map[string]**rtl.Node {
	s := map[string]**rtl.Node{
		"st_valid": &p.stValid, "st_nhops": &p.stNHops, "st_w": &p.stW, "st_wc": &p.stWc, "st_u": &p.stU,
		"st_inc_stage": &p.stIncStage, "st_last_update": &p.stLastUpdate, "in_nhops": &p.nhops,
	}
	if c.Mode == hpcc.Sender {
		s["in_seq"], s["in_snd_nxt"] = &p.seq, &p.sndNxt
	} else {
		s["in_now"] = &p.now
		if c.DynamicWAI {
			s["in_nflows"] = &p.nflows
		}
	}
	ids := c.HopIDBits() > 0
	for i := 0; i < c.MaxHops; i++ {
		st, in := "st_hop"+strconv.Itoa(i)+"_", "in_hop"+strconv.Itoa(i)+"_"
		sh, ih := &p.stHops[i], &p.hops[i]
		s[st+"ts"], s[st+"tx_bytes"], s[st+"qlen"] = &sh.ts, &sh.txBytes, &sh.qlen
		s[in+"speed"], s[in+"tx_bytes"], s[in+"qlen"] = &ih.speed, &ih.txBytes, &ih.qlen
		if c.Encoding.CarriesIdentity() {
			s[in+"rx_sec"], s[in+"rx_ns"], s[in+"residence"] = &ih.rxSec, &ih.rxNs, &ih.residence
		} else {
			s[in+"ts"] = &ih.ts
		}
		if ids {
			s[st+"id"], s[in+"device_id"], s[in+"egress_port"] = &sh.id, &ih.deviceID, &ih.egressPort
		}
	}
	return s
}

// bindPorts creates one input port per field of d's input table, in table
// order (the emitted port order), and binds each to its slot of the record.
func bindPorts(d *hpcc.Datapath, m *rtl.Module) (*updatePorts, error) {
	p := &updatePorts{}
	slots := p.slots(d.Config())
	for _, f := range d.InputTable().Fields {
		s, ok := slots[f.Name]
		if !ok {
			return nil, fmt.Errorf("hpccrtl: input field %s has no port slot", f.Name)
		}
		*s = m.In(f.Name, f.Width, false).WithDoc(f.Doc)
		delete(slots, f.Name)
	}
	for name := range slots {
		return nil, fmt.Errorf("hpccrtl: port slot %s has no input field", name)
	}
	return p, nil
}
