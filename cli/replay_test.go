package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayCommand: the subcommand prints one JSON line per ACK, applies
// parameter flags over the config file, and on a malformed line stops with
// an error naming the line and field (exit 2) after printing the lines
// before it (the trace is streamed once).
func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	good := `{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}
{"flow":1,"seq":6000,"snd_nxt":9000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5001000,"tx_bytes":1011000,"qlen_bytes":6250}]}
`
	tracePath := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(tracePath, []byte(good), 0o644); err != nil {
		t.Fatal(err)
	}
	badPath := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(badPath, []byte(good+`{"flow":1,"seq":1,"snd_nxt":1,"hops":[{"speed_gbps":100,"ts_ns":1,"qlen_bytes":0}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "c.json")
	if err := os.WriteFile(cfgPath, []byte(`{"eta": 0.9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	unknownCfg := filepath.Join(dir, "u.json")
	if err := os.WriteFile(unknownCfg, []byte(`{"etta": 0.9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args     []string
		code     int
		lines    int
		inStdout string
		inStderr string
	}{
		{[]string{"replay", "--trace", tracePath}, 0, 2, `"W":62500`, ""},
		{[]string{"replay", "--trace", tracePath, "--model", "both"}, 0, 2, `"diff":{`, ""},
		// eta 0.9 from the file, W_ai 100 from the flag: W = 62500*0.9/0.996 + 100.
		{[]string{"replay", "--trace", tracePath, "--model", "float", "--config", cfgPath, "--w-ai-bytes", "100"}, 0, 2, `"W":56575.90361445783`, ""},
		{[]string{"replay", "--trace", badPath}, 2, 2, "", "line 3: field hops[0].tx_bytes: missing"},
		{[]string{"replay", "--trace", tracePath, "--model", "exact"}, 2, 0, "", `--model="exact"`},
		{[]string{"replay", "--trace", tracePath, "--eta", "1.5"}, 2, 0, "", "Eta=1.5"},
		{[]string{"replay", "--trace", tracePath, "--config", unknownCfg}, 2, 0, "", `unknown field "etta"`},
		{[]string{"replay"}, 2, 0, "", "--trace is required"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Main(c.args, &out, &errb)
		lines := 0
		if s := strings.TrimSpace(out.String()); s != "" {
			lines = len(strings.Split(s, "\n"))
		}
		if code != c.code || lines != c.lines || !strings.Contains(out.String(), c.inStdout) || !strings.Contains(errb.String(), c.inStderr) {
			t.Errorf("Main(%q) = %d, %d lines, stdout %q, stderr %q; want %d, %d lines, stdout containing %q, stderr containing %q",
				c.args, code, lines, out.String(), errb.String(), c.code, c.lines, c.inStdout, c.inStderr)
		}
	}
}
