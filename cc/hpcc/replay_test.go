package hpcc

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestParseTraceLineErrors: malformed lines give an error naming the line
// number and the field.
func TestParseTraceLineErrors(t *testing.T) {
	c := DefaultConfig()
	cases := []struct{ line, want string }{
		{`{"flow":1,"seq":"x","snd_nxt":1,"hops":[]}`, "line 7: field seq"},
		{`{"seq":1,"snd_nxt":1,"hops":[]}`, "line 7: field flow: missing"},
		{`{"flow":1,"snd_nxt":1,"hops":[]}`, "line 7: field seq: missing"},
		{`{"flow":1,"seq":1,"hops":[]}`, "line 7: field snd_nxt: missing"},
		{`{"flow":1,"seq":1,"snd_nxt":1}`, "line 7: field hops: missing"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{"speed_gbps":100,"ts_ns":1,"tx_bytes":1}]}`, "line 7: field hops[0].qlen_bytes: missing"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{"speed_gbps":30,"ts_ns":1,"tx_bytes":1,"qlen_bytes":0}]}`, "line 7: field hops[0].speed_gbps: 30 Gbps"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{"switch":2000000,"speed_gbps":100,"ts_ns":1,"tx_bytes":1,"qlen_bytes":0}]}`, "line 7: field hops[0].switch"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{"speed_gbps":100,"ts_ns":-1,"tx_bytes":1,"qlen_bytes":0}]}`, "line 7: field hops.ts_ns"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hopz":[]}`, `line 7: json: unknown field "hopz"`},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[]} {}`, "line 7: trailing data"},
		{`{"flow":1,`, "line 7: unexpected EOF"},
		{`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{},{},{},{},{},{}]}`, "line 7: field hops: 6 hops, the configuration allows at most 5"},
	}
	for _, cs := range cases {
		_, err := ParseTraceLine(c, []byte(cs.line), 7)
		if err == nil || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("ParseTraceLine(%s) error = %v, want containing %q", cs.line, err, cs.want)
		}
	}
	r := c
	r.Mode = Receiver
	if _, err := ParseTraceLine(r, []byte(`{"flow":1,"hops":[]}`), 3); err == nil || !strings.Contains(err.Error(), "line 3: field now_ns: missing") {
		t.Errorf("receiver without now_ns: %v", err)
	}
}

// TestReplayOutput: per-line JSON output for each model, flows kept apart,
// "both" carries diff = fixed - float; values agree with stepping the models
// directly (oracle: Datapath.Update and Reference.Update).
func TestReplayOutput(t *testing.T) {
	c := DefaultConfig()
	trace := `{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}
{"flow":2,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}

{"flow":1,"seq":6000,"snd_nxt":70000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5001000,"tx_bytes":1011000,"qlen_bytes":6250}]}
`
	run := func(m ReplayModel) []map[string]any {
		rp, err := NewReplayer(c, m)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := ScanTrace(c, strings.NewReader(trace), func(ev TraceEvent) error { return rp.Step(ev, &out) }); err != nil {
			t.Fatal(err)
		}
		var rows []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("output line %q: %v", l, err)
			}
			rows = append(rows, m)
		}
		return rows
	}
	fixed, float, both := run(ReplayFixed), run(ReplayFloat), run(ReplayBoth)
	if len(fixed) != 3 || len(float) != 3 || len(both) != 3 {
		t.Fatalf("rows: %d %d %d, want 3", len(fixed), len(float), len(both))
	}
	// Row 2 is flow 1's second ACK: the hand example of TestHandExample with
	// Wc = W_init = 62500: W = 62500*0.95/0.996 + 62.5 (MI, seq 6000 > 5000).
	wantW := 62500*0.95/0.996 + 62.5
	if w := float[2]["W"].(float64); w < wantW-1e-6 || w > wantW+1e-6 || float[2]["flow"].(float64) != 1 {
		t.Errorf("float row 2 = %v, want W %v", float[2], wantW)
	}
	if w := fixed[2]["W"].(float64); w < wantW*(1-1e-5) || w > wantW*(1+1e-5) {
		t.Errorf("fixed row 2 = %v, want W about %v", fixed[2], wantW)
	}
	d := both[2]["diff"].(map[string]any)["W"].(float64)
	if got := fixed[2]["W"].(float64) - float[2]["W"].(float64); got != d {
		t.Errorf("diff W = %v, want fixed - float = %v", d, got)
	}
	for _, k := range []string{"flow", "W", "Wc", "U", "inc_stage", "rate_gbps"} {
		if _, ok := fixed[0][k]; !ok {
			t.Errorf("fixed output lacks %q: %v", k, fixed[0])
		}
	}
	if fixed[1]["flow"].(float64) != 2 || fixed[1]["W"].(float64) != 62500 {
		t.Errorf("flow 2 row = %v", fixed[1])
	}
}
