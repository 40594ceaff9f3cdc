package ldcprtl

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/rtl"
)

// updatePorts is the typed record of ldcp_update's input ports (a layout,
// as Amaranth's or a Chisel bundle): the description reads ports as
// fields, so a misspelt port is a compile error, not a nil node from a map
// lookup. bindPorts fills it from the datapath's input table and fails on
// a field without a slot or a slot without a field.
type updatePorts struct {
	stStage, stCw, stStart, stUna, stNxt, stEnd, stNextSend *rtl.Node // flow state before the event
	evKind, evNow, evSeq, evMsgPkts, evAckSeq, evECE, evNAK *rtl.Node // the event
}

// slots names every input port and the record field it binds to: the one
// place where the port names are spelt.
func (p *updatePorts) slots() map[string]**rtl.Node {
	return map[string]**rtl.Node{
		"st_stage": &p.stStage, "st_cw": &p.stCw, "st_start": &p.stStart, "st_una": &p.stUna,
		"st_nxt": &p.stNxt, "st_end": &p.stEnd, "st_next_send": &p.stNextSend,
		"ev_kind": &p.evKind, "ev_now": &p.evNow, "ev_seq": &p.evSeq, "ev_msg_pkts": &p.evMsgPkts,
		"ev_ack_seq": &p.evAckSeq, "ev_ece": &p.evECE, "ev_nak": &p.evNAK,
	}
}

// bindPorts creates one input port per field of d's input table, in table
// order (the emitted port order), and binds each to its slot of the record.
func bindPorts(d *ldcp.Datapath, m *rtl.Module) (*updatePorts, error) {
	p := &updatePorts{}
	slots := p.slots()
	for _, f := range d.InputTable().Fields {
		s, ok := slots[f.Name]
		if !ok {
			return nil, fmt.Errorf("ldcprtl: input field %s has no port slot", f.Name)
		}
		*s = m.In(f.Name, f.Width, false).WithDoc(f.Doc)
		delete(slots, f.Name)
	}
	for name := range slots {
		return nil, fmt.Errorf("ldcprtl: port slot %s has no input field", name)
	}
	return p, nil
}
