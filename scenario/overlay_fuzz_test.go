package scenario

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzOverlay: Overlay never panics; an overlay it accepts is a validated
// configuration whose JSON, overlaid on the same base, gives the same
// configuration again (byte-identical JSON). Errors name the package
// ("scenario: "). Seeds only in CI.
func FuzzOverlay(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"hpcc":{"max_stage":0}}`, `{"hpcc":{"base_rtt_ns":50}}`, `{"hpcc":{"eta":0.5}}`, `null`,
		`{"HPCC":{"eta":0.5}}`, `{"hpcc":{"eta":0.9,"eta":0.8}}`, `{"run":{"limit_ns":20000,"sample_ns":1000}}`,
		`{"traffic":{"flows":[{"src":0,"dst":4,"bytes":1000,"start_ns":18446744073709551615}]}}`,
		`{"nic":{"mtu":64,"overrides":{"qps":4}}}`, `{"nic":{"overrides":{"QPS":4}}}`, `{"cc":"ldcp"}`, `{"cc":"tcp"}`,
		`{"traffic":{"incast":[{"senders":[0,1],"receiver":4,"bytes":1000,"start_ns":0}]}}`,
	} {
		f.Add([]byte(s))
	}
	base, err := Lookup("demo-incast-4to1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Overlay(base, bytes.NewReader(data))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "scenario: ") {
				t.Fatalf("Overlay error %q does not name its package", err)
			}
			return
		}
		b, err := c.JSON()
		if err != nil {
			t.Fatalf("accepted overlay does not marshal: %v", err)
		}
		c2, err := Overlay(base, bytes.NewReader(b))
		if err != nil {
			t.Fatalf("accepted overlay %s: its JSON is refused: %v", data, err)
		}
		b2, err := c2.JSON()
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("accepted overlay %s does not round-trip (%v):\n%s\nthen\n%s", data, err, b, b2)
		}
	})
}
