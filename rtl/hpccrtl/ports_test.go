package hpccrtl

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestPortRecordBindsEveryField checks the typed port record of
// hpcc_update for each encoding and mode: every input field of the
// datapath's table is bound to exactly one slot, in table order, with the
// field's width, and every slot the configuration has is bound (no nil
// port for the builder to read). Oracle: the datapath's input table.
func TestPortRecordBindsEveryField(t *testing.T) {
	rx := hpcc.DefaultConfig()
	rx.Mode, rx.DynamicWAI = hpcc.Receiver, true
	rxc := hpcc.DefaultConfigFor(telemetry.Compact)
	rxc.Mode = hpcc.Receiver
	for name, cfg := range map[string]hpcc.Config{
		"ifa_sender": hpcc.DefaultConfig(), "compact_sender": hpcc.DefaultConfigFor(telemetry.Compact),
		"ifa_receiver_dynwai": rx, "compact_receiver": rxc,
	} {
		t.Run(name, func(t *testing.T) {
			d, err := hpcc.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m := rtl.NewModule("ports_test", "port record test")
			p, err := bindPorts(d, m)
			if err != nil {
				t.Fatal(err)
			}
			fields := d.InputTable().Fields
			slots := p.slots(cfg)
			if len(slots) != len(fields) || len(m.Inputs) != len(fields) {
				t.Fatalf("%d slots, %d ports, %d fields", len(slots), len(m.Inputs), len(fields))
			}
			for k, f := range fields {
				n := *slots[f.Name]
				if n == nil || n != m.Inputs[k] || n.Name != f.Name || n.Width != f.Width {
					t.Errorf("field %d %s (%d bits): bound to %+v, port %d is %s", k, f.Name, f.Width, n, k, m.Inputs[k].Name)
				}
			}
		})
	}
}
