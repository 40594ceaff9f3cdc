package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCLI(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// sim --list names every scenario and configuration key; bad input exits
// 2 naming the problem; a small run writes its files and a manifest.
func TestSim(t *testing.T) {
	code, out, _ := runCLI("sim", "--list")
	if code != 0 || !strings.Contains(out, "hpcc-incast-60to1") || !strings.Contains(out, "hpcc.w_ai_bytes") ||
		!strings.Contains(out, "seeds-come-and-go") {
		t.Errorf("sim --list: exit %d\n%s", code, out)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"hpcc": {"eta": 2}}`), 0o644)
	unknown := filepath.Join(dir, "unknown.json")
	os.WriteFile(unknown, []byte(`{"nic": {"ackevery": 2}}`), 0o644)
	cdf := filepath.Join(dir, "bad.cdf")
	os.WriteFile(cdf, []byte("0 0\n100 0.7\n50 1\n"), 0o644)
	cdfCfg := filepath.Join(dir, "cdf.json")
	os.WriteFile(cdfCfg, []byte(`{"traffic": {"random": {"cdf": "`+cdf+`", "load": 0.3, "duration_ns": 10000}}}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"sim"}, "--scenario is required"},
		{[]string{"sim", "--scenario", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"sim", "--scenario", "demo-incast-4to1", "--cc", "dctcp"}, `cc="dctcp"`},
		{[]string{"sim", "--scenario", "demo-incast-4to1", "--model", "double"}, `model="double"`},
		{[]string{"sim", "--scenario", "demo-incast-4to1", "--config", bad}, "hpcc.eta=2"},
		{[]string{"sim", "--scenario", "demo-incast-4to1", "--config", unknown}, `unknown field "ackevery"`},
		{[]string{"sim", "--scenario", "websearch-30", "--config", cdfCfg}, "size=50: less than the previous size 100 (not monotonic)"},
		{[]string{"sim", "--scenario", "demo-incast-4to1", "--trace-hosts", "x", "--out", dir}, `"x" is not a host number`},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	small := filepath.Join(dir, "small.json")
	os.WriteFile(small, []byte(`{"traffic": {"incast": [{"senders": [0, 1], "receiver": 4, "bytes": 30000}]}}`), 0o644)
	out2 := filepath.Join(dir, "out")
	code, out, errs := runCLI("sim", "--scenario", "demo-incast-4to1", "--config", small, "--cc", "hpcc-rx", "--out", out2, "--trace-hosts", "0")
	if code != 0 {
		t.Fatalf("sim run: exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "flows completed") || !strings.Contains(out, "2 of 2") {
		t.Errorf("summary:\n%s", out)
	}
	for _, f := range []string{"manifest.json", "queue.png", "flows.csv", "traces/h0.tx.pcap"} {
		if _, err := os.Stat(filepath.Join(out2, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
	code, out, _ = runCLI("sim", "--scenario", "seeds-incast-2to1", "--cc", "hpcc-rx", "--print-config")
	if code != 0 || !strings.Contains(out, `"cc": "hpcc-rx"`) {
		t.Errorf("--print-config: exit %d\n%s", code, out)
	}
}
