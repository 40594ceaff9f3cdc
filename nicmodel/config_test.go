package nicmodel

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/scheduler"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestDefaultConfigRoundTrip: the default configuration is valid, and
// writing it as JSON and reading it back gives the same configuration
// (every field is written and read).
func TestDefaultConfigRoundTrip(t *testing.T) {
	c := DefaultConfig()
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	b := must(c.JSON())(t)
	got := must(LoadConfig(bytes.NewReader(b)))(t)
	if !reflect.DeepEqual(got, c) {
		t.Fatalf("round trip changed the configuration:\n%+v\nwant\n%+v", got, c)
	}
}

// TestLoadHandWritten reads the hand-written example testdata/
// nic25g_rxhpcc.json (the slides' 25 Gbit/s Rx-HPCC setting): the keys it
// sets take effect, the hpcc section takes the compact encoding's
// defaults, the mode follows cc, and the derived scheduler and Tx
// configurations carry the one-source facts (line rate from
// hpcc.nic_speed_gbps, clock, formats, encoding, hop limit, initial
// window, overhead 14+20+8+12+4+8+24 = 90 bytes).
func TestLoadHandWritten(t *testing.T) {
	f := must(os.Open("testdata/nic25g_rxhpcc.json"))(t)
	defer f.Close()
	c := must(LoadConfig(f))(t)
	if c.CC != CCHPCCRx || c.HPCC.Mode.String() != "receiver" || c.HPCC.Encoding != telemetry.Compact || !c.HPCC.DynamicWAI {
		t.Fatalf("cc %v mode %v encoding %v dynamic %v", c.CC, c.HPCC.Mode, c.HPCC.Encoding, c.HPCC.DynamicWAI)
	}
	if c.Tx.AckEvery != 4 || c.Module.Stages != 6 || c.FIFOs.Events != 32 || c.FIFOs.Acks != DefaultConfig().FIFOs.Acks {
		t.Fatalf("sections not merged over the defaults: %+v %+v %+v", c.Tx, c.Module, c.FIFOs)
	}
	s := c.DerivedScheduler()
	want := scheduler.Config{Flows: 64, ClockHz: 500 * engine.MHz, LineRateBps: 25e9, MTU: 1000, OverheadBytes: 90,
		RateFormat: c.HPCC.Formats.Rate, RateUnit: scheduler.BytesPerNs,
		WindowFormat: c.HPCC.Formats.W, GapBits: 32, GapFracBits: 16,
		Quantum: 1090, Quanta: []uint32{}, MaxMessages: 256, InitWindowBytes: 28125}
	s.Quanta = []uint32{}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("derived scheduler config\n%+v\nwant\n%+v", s, want)
	}
	if tx := c.DerivedTx(); tx.Encoding != telemetry.Compact || tx.MaxHops != 5 || tx.AckEvery != 4 || tx.MTU != 1024 {
		t.Errorf("derived tx config %+v", tx)
	}
	e := must(engine.New(engine.Config{Freq: c.ClockHz}))(t)
	qa, _ := qpPair(2)
	n := must(New(c, qa, Options{}))(t)
	if err := n.Register(e); err != nil {
		t.Fatal(err)
	}
}

// TestConfigRejects checks that bad input is a clear error naming the
// field and its value: unknown keys at every level, and Validate's checks.
func TestConfigRejects(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`{"clock": 1}`, `unknown field "clock"`},
		{`{"tx": {"ack_evry": 2}}`, `unknown field "ack_evry"`},
		{`{"fifos": {"event": 2}}`, `unknown field "event"`},
		{`{"hpcc": {"etaa": 0.9}}`, `unknown field "etaa"`},
		{`{"hpcc": {"eta": 0.9, "eta": 0.8}}`, "key eta: given twice"},
		{`{"Tx": {}}`, `did you mean "tx"?`},
		{`null`, "the input is null"},
		{`{"cc": "timely"}`, `cc="timely"`}, // dcqcn and ldcp are modes now (ccconfig.go)
		{`{"model": "double"}`, `model="double"`},
		{`{"cc": "hpcc-rx", "hpcc": {"mode": "sender"}}`, `hpcc.mode=sender: must be receiver with cc=hpcc-rx`},
		{`{"module": {"stages": 17}}`, `module.stages=17`},
		{`{"module": {"latency_cycles": 4}}`, `unknown field "latency_cycles"`},
		{`{} {}`, `trailing data`},
		{`{"rx": {"output_full": "spill"}}`, `policy="spill": must be backpressure or drop`},
	} {
		_, err := LoadConfig(strings.NewReader(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadConfig(%s) = %v, want an error containing %q", tc.json, err, tc.want)
		}
	}
	if _, err := LoadConfig(strings.NewReader(`{"cc": "hpcc-rx", "hpcc": {"dynamic_w_ai": true}}`)); err != nil {
		t.Errorf("hpcc-rx with dynamic W_ai: %v (mode must default to receiver)", err)
	}
	for _, tc := range []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"clock", func(c *Config) { c.ClockHz = 0 }, "clock_hz"},
		{"qps", func(c *Config) { c.QPs = 0 }, "qps=0"},
		{"mac", func(c *Config) { c.MACOverheadBytes = -1 }, "mac_overhead_bytes=-1"},
		{"stages", func(c *Config) { c.Module.Stages = -1 }, "module.stages=-1"},
		{"ii", func(c *Config) { c.Module.IICycles = 0 }, "module.ii_cycles=0"},
		{"fifo", func(c *Config) { c.FIFOs.SentLog = 0 }, "fifos.sent_log=0"},
		{"mtu", func(c *Config) { c.Scheduler.MTU = 2000 }, "scheduler.mtu=2000"},
		{"path-mtu", func(c *Config) { c.Tx.PathMTU = 1000 }, "MTU=1000"},
		{"parse", func(c *Config) { c.Rx.Parse.Latency = 0 }, "Parse.Latency=0"},
		{"mode", func(c *Config) { c.CC = CCHPCCRx }, "hpcc.mode=sender"},
		{"no-acks", func(c *Config) { c.Tx.AckEvery = 0 }, "tx.ack_every=0"},
		{"no-int", func(c *Config) { c.Tx.INTOnData = false }, "tx.int_on_data=false"},
		{"eta", func(c *Config) { c.HPCC.Eta = 1.5 }, "Eta=1.5"},
		{"window", func(c *Config) { c.RxHPCC.FlowWindowNs = 0 }, "rx_hpcc.flow_window_ns=0"},
		{"gap", func(c *Config) { c.Scheduler.GapBits = 0 }, "GapBits=0"},
		{"max-hops", func(c *Config) { c.HPCC.MaxHops = 9 }, "MaxHops=9"},
		{"quantum", func(c *Config) { c.Scheduler.Quantum = 100 }, "Quantum=100"},
	} {
		c := DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Validate() = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	// The NIC's clock must be the engine's.
	e := must(engine.New(engine.Config{Freq: 2 * engine.GHz}))(t)
	n := must(New(DefaultConfig(), nil, Options{}))(t)
	if err := n.Register(e); err == nil || !strings.Contains(err.Error(), "clock_hz=1000000000") {
		t.Errorf("Register on a 2 GHz engine: %v", err)
	}
	if _, err := New(DefaultConfig(), nil, Options{Name: "bad name"}); err == nil {
		t.Errorf("a name with a space was accepted")
	}
}
