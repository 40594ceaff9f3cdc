package hpcc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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
		{`{"flow":1,"seq":1,"snd_nxt":1,"hopz":[]}`, `line 7: unknown field "hopz"`},
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

// TestScanTraceRules: the trace rules of docs/replay.md, line by line.
// Oracle: the rules as documented (exact keys, no key twice, absolute
// counters and timestamps that never go backwards within a flow at the same
// switch and port, at least one event).
func TestScanTraceRules(t *testing.T) {
	hop := func(sw, port int, ts, tx int) string {
		return fmt.Sprintf(`{"switch":%d,"port":%d,"speed_gbps":100,"ts_ns":%d,"tx_bytes":%d,"qlen_bytes":0}`, sw, port, ts, tx)
	}
	ack := func(flow int, hops ...string) string {
		return fmt.Sprintf(`{"flow":%d,"seq":0,"snd_nxt":1000,"hops":[%s]}`, flow, strings.Join(hops, ","))
	}
	rx := func(flow, now int, hops ...string) string {
		return fmt.Sprintf(`{"flow":%d,"now_ns":%d,"hops":[%s]}`, flow, now, strings.Join(hops, ","))
	}
	cases := []struct {
		name     string
		receiver bool
		lines    []string
		events   int    // events handed to fn before the verdict
		want     string // error substring; "" = accepted
	}{
		{"ordered", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(1, hop(1, 2, 200, 2000))}, 2, ""},
		{"equal samples are not backwards", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(1, hop(1, 2, 100, 1000))}, 2, ""},
		{"tx_bytes backwards", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(1, hop(1, 2, 200, 999))}, 1, "line 2: field hops[0].tx_bytes: 999 is below 1000 on line 1"},
		{"ts_ns backwards", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(1, hop(1, 2, 99, 2000))}, 1, "line 2: field hops[0].ts_ns: 99 is before 100 on line 1"},
		{"second hop backwards", false, []string{ack(1, hop(1, 2, 100, 1000), hop(3, 4, 100, 500)), ack(1, hop(1, 2, 200, 2000), hop(3, 4, 200, 400))}, 1, "line 2: field hops[1].tx_bytes"},
		{"path change starts afresh", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(1, hop(5, 2, 50, 10))}, 2, ""},
		{"flows are independent", false, []string{ack(1, hop(1, 2, 100, 1000)), ack(2, hop(1, 2, 50, 10))}, 2, ""},
		{"now_ns backwards", true, []string{rx(1, 500, hop(1, 2, 100, 1000)), rx(1, 499, hop(1, 2, 200, 2000))}, 1, "line 2: field now_ns: 499 is before 500 on line 1"},
		{"key in another case", false, []string{`{"flow":1,"Flow":7,"seq":0,"snd_nxt":1,"hops":[]}`}, 0, `line 1: unknown field "Flow"`},
		{"upper-case key", false, []string{`{"FLOW":1,"seq":0,"snd_nxt":1,"hops":[]}`}, 0, `line 1: unknown field "FLOW"`},
		{"hop key in another case", false, []string{`{"flow":1,"seq":0,"snd_nxt":1,"hops":[{"Switch":1,"port":2,"speed_gbps":100,"ts_ns":1,"tx_bytes":1,"qlen_bytes":0}]}`}, 0, `line 1: unknown field "Switch" in hops[0]`},
		{"key twice", false, []string{`{"flow":1,"flow":7,"seq":0,"snd_nxt":1,"hops":[]}`}, 0, "line 1: field flow: given twice"},
		{"hop key twice", false, []string{`{"flow":1,"seq":0,"snd_nxt":1,"hops":[{"port":1,"port":2,"speed_gbps":100,"ts_ns":1,"tx_bytes":1,"qlen_bytes":0}]}`}, 0, "line 1: field port in hops[0]: given twice"},
		{"empty", false, nil, 0, ErrEmptyTrace.Error()},
		{"blank lines only", false, []string{"", "  ", ""}, 0, ErrEmptyTrace.Error()},
	}
	for _, cs := range cases {
		c := DefaultConfig()
		if cs.receiver {
			c.Mode = Receiver
		}
		events := 0
		err := ScanTrace(c, strings.NewReader(strings.Join(cs.lines, "\n")), func(TraceEvent) error { events++; return nil })
		switch {
		case cs.want == "" && err != nil:
			t.Errorf("%s: ScanTrace error %v, want none", cs.name, err)
		case cs.want != "" && (err == nil || !strings.Contains(err.Error(), cs.want)):
			t.Errorf("%s: ScanTrace error %v, want containing %q", cs.name, err, cs.want)
		case events != cs.events:
			t.Errorf("%s: %d events before the verdict, want %d", cs.name, events, cs.events)
		}
	}
}

// FuzzParseTraceLine: any line either is refused with an error naming
// "line 1" or is accepted, and an accepted line's event re-encodes (through
// TraceLine JSON with exact keys) to a line that parses to the same event.
// Seeds only in CI (go test does not run -fuzz).
func FuzzParseTraceLine(f *testing.F) {
	for _, s := range []string{
		`{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}`,
		`{"flow":1,"Flow":7,"seq":0,"snd_nxt":1,"hops":[]}`,
		`{"flow":1,"flow":7,"seq":0,"snd_nxt":1,"hops":[]}`,
		`{"flow":1,"seq":0,"snd_nxt":1,"hops":null}`,
		`{"flow":1,"seq":0,"snd_nxt":1,"hops":[1]}`,
		`[1,2]`, `null`, `{`, `{"flow":-1}`, `{"flow":1e400}`,
		`{"flow":18446744073709551615,"seq":18446744073709551615,"snd_nxt":0,"hops":[{"switch":0,"port":0,"speed_gbps":400,"ts_ns":18446744073709551615,"tx_bytes":18446744073709551615,"qlen_bytes":18446744073709551615}]}`,
	} {
		f.Add([]byte(s))
	}
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, line []byte) {
		tl, ev, err := parseTraceLine(c, line, 1)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "line 1: ") {
				t.Fatalf("error %q does not name the line", err)
			}
			return
		}
		b, err := json.Marshal(tl)
		if err != nil {
			t.Fatalf("accepted line does not re-encode: %v", err)
		}
		_, ev2, err := parseTraceLine(c, b, 1)
		if err != nil {
			t.Fatalf("re-encoded %s refused: %v", b, err)
		}
		if ev2 != ev {
			t.Fatalf("re-encoded event %+v, want %+v", ev2, ev)
		}
	})
}

// FuzzScanTrace: a whole trace either replays or stops with an error that
// names a line, says the trace is empty, or says it could not be read;
// never a panic. Seeds only in CI.
func FuzzScanTrace(f *testing.F) {
	ok := `{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}`
	for _, s := range []string{ok, ok + "\n" + ok, "", "\n\n", ok + "\n{", strings.Replace(ok, "5000000", "4", 1) + "\n" + ok + "\n" + strings.Replace(ok, "1000000", "3", 1)} {
		f.Add([]byte(s))
	}
	c := DefaultConfig()
	f.Fuzz(func(t *testing.T, data []byte) {
		err := ScanTrace(c, bytes.NewReader(data), func(TraceEvent) error { return nil })
		if err != nil && !strings.HasPrefix(err.Error(), "line ") && !errors.Is(err, ErrEmptyTrace) && !strings.HasPrefix(err.Error(), "reading trace") {
			t.Fatalf("ScanTrace error %q names no line", err)
		}
	})
}
