package vectors

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// FuzzHPCCConfig: hpcc.LoadConfig never panics; a configuration it accepts
// round-trips (its JSON loads back to the same Config) and gets the same
// verdict from the vector model (NewHPCC accepts it), so no command refuses
// what another accepted (docs/cli.md, one validation). Errors name the
// package ("hpcc: "). Seeds only in CI.
func FuzzHPCCConfig(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"max_stage":1}`, `{"max_stage":255}`, `{"max_stage":0}`, `{"eta":0.5,"w_ai_bytes":0}`,
		`{"encoding":"compact"}`, `{"mode":"receiver","dynamic_w_ai":true}`, `{"base_rtt_ns":1}`,
		`{"w_min_bytes":62500}`, `{"formats":{"u":"u16.4"}}`, `null`, `{"MAX_STAGE":5}`, `{"eta":0.9,"eta":0.8}`,
		`{"max_hops":1}`, `{"max_hops":8}`, `{"seq_bits":2}`, `{"time_bits":64}`, `{"table_entry_bits":8}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := hpcc.LoadConfig(bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "hpcc: ") {
				t.Fatalf("LoadConfig error %q does not name its package", err)
			}
			return
		}
		b, err := c.JSON()
		if err != nil {
			t.Fatalf("accepted config does not marshal: %v", err)
		}
		c2, err := hpcc.LoadConfig(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("accepted config %s: its JSON is refused: %v", data, err)
		}
		if !reflect.DeepEqual(c, c2) {
			t.Fatalf("accepted config %s does not round-trip: %+v, then %+v", data, c, c2)
		}
		if _, err := NewHPCC(c); err != nil {
			t.Fatalf("hpcc.LoadConfig accepts %s but the vector model refuses it: %v", data, err)
		}
	})
}
