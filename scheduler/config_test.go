package scheduler

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestConfigJSON checks that a configuration survives a JSON round trip, that
// a hand-written file with the enum and format notations decodes to the
// expected values, and that bad notations are errors naming the value.
func TestConfigJSON(t *testing.T) {
	def := DefaultConfig()
	def.Quanta = []uint32{2000, 3000}
	def.Flows = 2
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, def) {
		t.Errorf("round trip:\n%+v\nwant\n%+v", back, def)
	}
	hand := `{"flows": 8, "clock_hz": 312500000, "line_rate_bps": 25000000000, "mtu": 4096,
		"overhead_bytes": 100, "rate_format": "u24.4", "rate_unit": "bytes_per_cycle",
		"window_format": "u40.32", "gap_bits": 40, "gap_frac_bits": 20, "window_mode": "overshoot",
		"arbiter": "dwrr", "quantum": 8192, "burst_bytes": 0, "max_messages": 4,
		"init_window_bytes": 100000, "init_rate_bps": 0}`
	var c Config
	if err := json.Unmarshal([]byte(hand), &c); err != nil {
		t.Fatal(err)
	}
	if c.RateFormat.String() != "u24.4" || c.RateUnit != BytesPerCycle || c.WindowMode != WindowOvershoot || c.Arbiter != DWRR || c.ClockHz != 312_500_000 {
		t.Errorf("decoded %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Errorf("hand-written config: %v", err)
	}
	for _, bad := range []struct{ js, want string }{
		{`{"arbiter": "wfq"}`, `scheduler: Arbiter="wfq": must be rr or dwrr`},
		{`{"window_mode": "loose"}`, `scheduler: WindowMode="loose"`},
		{`{"rate_unit": "bits"}`, `scheduler: RateUnit="bits"`},
		{`{"rate_format": "q8"}`, `fixedpoint`},
	} {
		err := json.Unmarshal([]byte(bad.js), &c)
		if err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Unmarshal(%s) = %v, want error containing %q", bad.js, err, bad.want)
		}
	}
}
