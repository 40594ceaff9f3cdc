package ldcprtl

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/rtl"
)

// TestPortRecordBindsEveryField checks the typed port record of
// ldcp_update: every input field of the datapath's table is bound to
// exactly one slot, in table order, with the field's width, and no slot is
// left unbound. Oracle: the datapath's input table.
func TestPortRecordBindsEveryField(t *testing.T) {
	d, err := ldcp.NewDatapath(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	m := rtl.NewModule("ports_test", "port record test")
	p, err := bindPorts(d, m)
	if err != nil {
		t.Fatal(err)
	}
	fields := d.InputTable().Fields
	slots := p.slots()
	if len(slots) != len(fields) || len(m.Inputs) != len(fields) {
		t.Fatalf("%d slots, %d ports, %d fields", len(slots), len(m.Inputs), len(fields))
	}
	for k, f := range fields {
		n := *slots[f.Name]
		if n == nil || n != m.Inputs[k] || n.Name != f.Name || n.Width != f.Width {
			t.Errorf("field %d %s (%d bits): bound to %+v, port %d is %s", k, f.Name, f.Width, n, k, m.Inputs[k].Name)
		}
	}
}
