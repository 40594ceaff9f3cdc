package ldcp

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// TestDefaultConfig: the defaults are the draft's values (eta = 1/2) and
// our documented choices (alpha 1, beta 1/2, gamma 1/8, IW = BDP of a
// 100 Gbps NIC at 5 us with 1000-byte packets = ceil(62.5) = 63, CwMax =
// 2 IW), and they pass validation with every range-analysis row fitting.
func TestDefaultConfig(t *testing.T) {
	c := DefaultConfig()
	if c.Alpha != 1 || c.Beta != 0.5 || c.Gamma != 0.125 || c.Eta != 0.5 || c.IWPkts != 63 || c.CwMaxPkts != 126 || c.BaseRTTNs != 5000 || c.SeqBits != 24 || c.DelayedAckPkts != 1 {
		t.Errorf("DefaultConfig = %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, row := range c.RangeAnalysis().Rows {
		if row.Status != Fits {
			t.Errorf("default range analysis: %s %s", row.Signal, row.Status)
		}
	}
}

// TestBDPPackets: ceil(gbps*rtt/8/mtu), at least 1 (hand-computed).
func TestBDPPackets(t *testing.T) {
	for _, tc := range []struct{ gbps, rtt, mtu, want uint32 }{
		{100, 5000, 1000, 63}, {100, 8000, 1000, 100}, {25, 10000, 4096, 8}, {400, 10000, 4096, 123}, {1, 1, 1000, 1}, {100, 5000, 0, 1},
	} {
		if got := BDPPackets(tc.gbps, tc.rtt, tc.mtu); got != tc.want {
			t.Errorf("BDPPackets(%d, %d, %d) = %d, want %d", tc.gbps, tc.rtt, tc.mtu, got, tc.want)
		}
	}
}

// TestValidateErrors: each bad field is rejected with an error naming the
// field and its value; range-analysis failures name the signal.
func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name string
		mut  func(c *Config)
		want string
	}{
		{"alpha zero", func(c *Config) { c.Alpha = 0 }, "Alpha=0"},
		{"beta NaN", func(c *Config) { c.Beta = math.NaN() }, "Beta=NaN"},
		{"gamma one", func(c *Config) { c.Gamma = 1 }, "Gamma=1: must be in (0,1)"},
		{"eta zero", func(c *Config) { c.Eta = 0 }, "Eta=0"},
		{"iw zero", func(c *Config) { c.IWPkts = 0 }, "IWPkts=0"},
		{"iw half the PSN space", func(c *Config) { c.IWPkts = 1 << 23; c.CwMaxPkts = 1 << 24 }, "IWPkts=8388608"},
		{"cwmax below iw", func(c *Config) { c.CwMaxPkts = 10 }, "CwMaxPkts=10"},
		{"rtt zero", func(c *Config) { c.BaseRTTNs = 0 }, "BaseRTTNs=0"},
		{"rtt above max", func(c *Config) { c.BaseRTTNs = 1 << 20 }, "BaseRTTNs=1048576"},
		{"seq bits", func(c *Config) { c.SeqBits = 40 }, "SeqBits=40"},
		{"time bits", func(c *Config) { c.TimeBits = 4 }, "TimeBits=4"},
		{"ack bits", func(c *Config) { c.AckPktsBits = 0 }, "AckPktsBits=0"},
		{"delayed ack zero", func(c *Config) { c.DelayedAckPkts = 0 }, "DelayedAckPkts=0"},
		{"delayed ack above n", func(c *Config) { c.DelayedAckPkts = 256 }, "DelayedAckPkts=256"},
		{"signed cw", func(c *Config) { c.Formats.Cw = fixedpoint.MustFormat("s32.12") }, "Formats.Cw=s32.12: must be unsigned"},
		{"param finer than cw", func(c *Config) { c.Formats.Param = fixedpoint.MustFormat("u30.2") }, "Formats.Param=u30.2"},
		{"cw without integer bit", func(c *Config) { c.Formats.Cw = fixedpoint.MustFormat("u32.0") }, "Formats.Cw=u32.0"},
		{"recip table", func(c *Config) { c.RecipCw.TableBits = 0 }, "RecipCw.TableBits=0"},
		{"recip nr", func(c *Config) { c.RecipCw.NRSteps = 4 }, "RecipCw.NRSteps=4"},
		{"cw max overflows cw", func(c *Config) { c.IWPkts = 5000; c.CwMaxPkts = 10000 }, "signal cw_max (u32.12) can reach 10000"},
		{"gamma rounds to zero", func(c *Config) { c.Gamma = 1e-6 }, "signal gamma (u16.4): gamma=1e-06 rounds to 0"},
		{"recip too narrow for 1/gamma", func(c *Config) { c.Formats.RecipCw = fixedpoint.MustFormat("u32.2") }, "signal recip_cw (u32.2) can reach 8"},
		{"interval beyond half the time wrap", func(c *Config) { c.TimeBits = 16 }, "signal interval (u16.16)"},
		{"increment underflows", func(c *Config) {
			c.Formats.Cw = fixedpoint.MustFormat("u16.12")
			c.Formats.Param = fixedpoint.MustFormat("u8.4")
		}, "signal cw_ai (u16.12): the smallest increment"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "ldcp: ") {
			t.Errorf("%s: Validate() = %v, want an error containing %q", tc.name, err, tc.want)
		}
		if _, err2 := NewDatapath(c); err2 == nil {
			t.Errorf("%s: NewDatapath accepted the configuration", tc.name)
		}
		if _, err2 := NewReference(c); err2 == nil {
			t.Errorf("%s: NewReference accepted the configuration", tc.name)
		}
	}
}

// TestLoadConfig: JSON round trip of the defaults; an override keeps the
// other defaults; unknown keys and invalid values are errors naming them.
func TestLoadConfig(t *testing.T) {
	b, err := DefaultConfig().JSON()
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadConfig(bytes.NewReader(b))
	if err != nil || c != DefaultConfig() {
		t.Fatalf("round trip: %v %+v", err, c)
	}
	c, err = LoadConfig(strings.NewReader(`{"gamma": 0.0625, "formats": {"cw": "u32.12", "param": "u16.4", "recip_cw": "u32.6"}}`))
	if err != nil || c.Gamma != 0.0625 || c.Alpha != 1 || c.Formats.RecipCw != fixedpoint.MustFormat("u32.6") {
		t.Errorf("override: %v %+v", err, c)
	}
	for _, tc := range []struct{ in, want string }{
		{`{"gama": 0.1}`, `unknown field "gama"`},
		{`{"gamma": 2}`, "Gamma=2"},
		{`{"formats": {"cw": "x"}}`, "ldcp: config"},
		{`{} {}`, "trailing data"},
	} {
		if _, err := LoadConfig(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadConfig(%s) = %v, want %q", tc.in, err, tc.want)
		}
	}
}

// TestFieldTables: the transaction layouts have the documented fields and
// widths, and Pack/Unpack round-trip a state, an event and an output; a
// value wider than its field is an error naming the field.
func TestFieldTables(t *testing.T) {
	d := mustDP(t, DefaultConfig())
	in, out := d.InputTable(), d.OutputTable()
	if in.Name != "ldcp_update_in" || out.Name != "ldcp_update_out" {
		t.Errorf("names %s %s", in.Name, out.Name)
	}
	// state: 2 + 32 + 4*24 + 32 = 162; event: 2 + 32 + 24 + 23 + 24 + 1 + 1 = 107.
	if d.FlowStateBits() != 162 || in.Width != 162+107 {
		t.Errorf("flow state %d bits, input %d bits; want 162 and 269", d.FlowStateBits(), in.Width)
	}
	st := State{Stage: Stable, Cw: d.CwRaw(12.75), Start: 1, Una: 2, Nxt: 9, End: 1 << 23, NextSend: 123456789}
	ev := Event{Kind: Ack, NowNs: 99, Seq: 5, MsgPkts: 77, AckSeq: 7, ECE: true, NAK: true}
	w := make([]uint64, in.Words())
	if err := d.PackInput(st, ev, w); err != nil {
		t.Fatal(err)
	}
	st2, ev2, err := d.UnpackInput(w)
	if err != nil || st2 != st || ev2 != ev {
		t.Errorf("input round trip: %v\n%+v %+v\n%+v %+v", err, st, ev, st2, ev2)
	}
	next, o := d.Update(st, ev)
	wo := make([]uint64, out.Words())
	if err := d.PackOutput(next, o, wo); err != nil {
		t.Fatal(err)
	}
	next2, o2, err := d.UnpackOutput(wo)
	if err != nil || next2 != next || o2 != o {
		t.Errorf("output round trip: %v\n%+v %+v\n%+v %+v", err, next, o, next2, o2)
	}
	bad := st
	bad.Una = 1 << 24
	if err := d.PackInput(bad, ev, w); err == nil || !strings.Contains(err.Error(), "st_una") {
		t.Errorf("PackInput with a 25-bit PSN: %v, want an error naming st_una", err)
	}
}

// FuzzLoadConfig: LoadConfig never panics; a configuration it accepts
// round-trips (its JSON loads back to the same Config) and builds a
// datapath. Errors name the package ("ldcp: "). Seeds only in CI.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `{"GAMA":1}`, `{"seq_bits":8}`, `{"base_rtt_ns":0}`, `{"formats":{}}`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadConfig(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "ldcp: ") {
				t.Fatalf("LoadConfig error %q does not name its package", err)
			}
			return
		}
		b, err := c.JSON()
		if err != nil {
			t.Fatalf("accepted config does not marshal: %v", err)
		}
		c2, err := LoadConfig(bytes.NewReader(b))
		if err != nil || !reflect.DeepEqual(c, c2) {
			t.Fatalf("accepted config %s does not round-trip: %v\n%+v\n%+v", data, err, c, c2)
		}
		if _, err := NewDatapath(c); err != nil {
			t.Fatalf("LoadConfig accepts %s but NewDatapath refuses it: %v", data, err)
		}
	})
}
