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

// TestReplayEmitVectors turns a hand-written trace of two flows into a
// golden vector set: vectors verify passes it (hashes, every stimulus line
// re-run, each flow's state chain from the reset state), vectors check
// passes its own expected.hex and fails a one-bit change, and the replay's
// printed windows are the set's ns_w values (the same datapath).
func TestReplayEmitVectors(t *testing.T) {
	dir := t.TempDir()
	trace := `{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}
{"flow":4294967297,"seq":0,"snd_nxt":3000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000500,"tx_bytes":1005000,"qlen_bytes":9000}]}
{"flow":1,"seq":6000,"snd_nxt":9000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5001000,"tx_bytes":1011000,"qlen_bytes":6250}]}
`
	tracePath := filepath.Join(dir, "two flows.jsonl")
	if err := os.WriteFile(tracePath, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	set := filepath.Join(dir, "set")
	var out, errb bytes.Buffer
	if code := Main([]string{"replay", "--trace", tracePath, "--emit-vectors", set}, &out, &errb); code != 0 {
		t.Fatalf("replay --emit-vectors: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "wrote 3 vectors (class replay:two_flows.jsonl)") {
		t.Errorf("stderr lacks the summary: %s", errb.String())
	}
	if n := strings.Count(out.String(), "\n"); n != 3 {
		t.Errorf("replay printed %d lines, want 3", n)
	}
	var vout bytes.Buffer
	if code := Main([]string{"vectors", "verify", set}, &vout, &errb); code != 0 {
		t.Fatalf("vectors verify: exit %d\n%s", code, vout.String())
	}
	exp, err := os.ReadFile(filepath.Join(set, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	dut := filepath.Join(dir, "dut.hex")
	os.WriteFile(dut, exp, 0o644)
	if code := Main([]string{"vectors", "check", "--golden", set, "--dut", dut}, &vout, &errb); code != 0 {
		t.Fatalf("vectors check of the set's own outputs: exit %d", code)
	}
	flipped := append([]byte(nil), exp...)
	flipped[len(flipped)-2] ^= 1 // the last hex digit of the last line
	os.WriteFile(dut, flipped, 0o644)
	if code := Main([]string{"vectors", "check", "--golden", set, "--dut", dut}, &vout, &errb); code != 1 {
		t.Fatalf("vectors check of a changed output: exit %d, want 1", code)
	}
	// The windows the replay printed are the set's: vector 0 (flow 1's
	// first ACK) shows W = 62500 bytes, as the replay's first line.
	vout.Reset()
	if code := Main([]string{"vectors", "show", set, "--index", "0"}, &vout, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if !strings.Contains(out.String(), `"W":62500`) || !strings.Contains(vout.String(), "62500") {
		t.Errorf("window 62500 not in both the replay output and vector 0:\n%s\n%s", out.String(), vout.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--trace", tracePath, "--model", "float", "--emit-vectors", filepath.Join(dir, "x")}, "use --model fixed or both"},
	} {
		errb.Reset()
		if code := Main(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
