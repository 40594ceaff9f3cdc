package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// tinyOverlay writes an overlay that shrinks demo-incast-4to1 to 4 x 20 KB
// (milliseconds of wall time) and returns its path.
func tinyOverlay(t *testing.T, extra string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny.json")
	body := `{"traffic": {"incast": [{"senders": [0, 1, 2, 3], "receiver": 4, "bytes": 20000}]}` + extra + `}`
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeNS3 makes a stand-in for the ns-3 build: build/scratch/third, a
// shell script that, run from a case's parent directory with
// CASE/config.txt, writes `lines` lines into CASE/fct.txt (a negative
// count: as many as flow.txt declares) and exits with `code`. It checks
// that LD_LIBRARY_PATH starts with the build directory, as the real
// simulator needs.
func fakeNS3(t *testing.T, lines, code int) string {
	t.Helper()
	dir := t.TempDir()
	b := filepath.Join(dir, "build")
	if err := os.MkdirAll(filepath.Join(b, "scratch"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
case "$LD_LIBRARY_PATH" in ` + b + `*) ;; *) echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" >&2; exit 9;; esac
d=$(dirname "$1")
n=` + strconv.Itoa(lines) + `
if [ "$n" -lt 0 ]; then n=$(head -n 1 "$d/flow.txt"); fi
i=0
: > "$d/fct.txt"
while [ $i -lt $n ]; do echo "flow $i" >> "$d/fct.txt"; i=$((i+1)); done
exit ` + strconv.Itoa(code) + `
`
	if err := os.WriteFile(filepath.Join(b, "scratch", "third"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// The bench command on a tiny scenario: without ns-3 it reports ns-3 as
// not available (never a zero time or ratio) and exits 0; with a stand-in
// ns-3 and a case written by --write-ns3-cases it reports both sides and
// their ratios; a stand-in that fails, or completes fewer flows than the
// case has, and an hpccgold run that fails its verdict make it exit 1;
// bad flags exit 2 naming the flag. (Oracle: the exit-status rules of
// docs/cli.md and the case files' flow count.)
func TestBench(t *testing.T) {
	t.Setenv(envNS3, "")
	t.Setenv(envNS3Cases, "")
	tiny := tinyOverlay(t, "")
	entry := "demo-incast-4to1+" + tiny
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"bench"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, out, errs := run("--scenarios", entry, "--runs", "1", "--in-process")
	if code != 0 {
		t.Fatalf("no ns-3: exit %d, stderr %s", code, errs)
	}
	if !strings.Contains(out, "ns-3: not available") || !strings.Contains(out, "demo-incast-4to1+tiny") {
		t.Errorf("no ns-3: output does not say ns-3 is not available:\n%s", out)
	}
	row := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "demo-incast-4to1+tiny") {
			row = l
		}
	}
	if strings.Count(row, "n/a") != 5 || strings.Contains(row, "0.00x") || strings.Contains(row, "| 0.000 s") {
		t.Errorf("no ns-3: row %q: want the five ns-3 cells n/a and no zero figures", row)
	}

	cases := t.TempDir()
	if code, _, errs := run("--write-ns3-cases", cases, "--scenarios", entry, "--ns3-stop-ns", "1000000"); code != 0 {
		t.Fatalf("write cases: exit %d: %s", code, errs)
	}
	cfg, err := os.ReadFile(filepath.Join(cases, "demo-incast-4to1+tiny", "config.txt"))
	if err != nil || !bytes.Contains(cfg, []byte("SIMULATOR_STOP_TIME 2.001000000")) || !bytes.Contains(cfg, []byte("CC_MODE 3")) {
		t.Fatalf("case config: %v\n%s", err, cfg)
	}

	good := fakeNS3(t, -1, 0)
	code, out, errs = run("--scenarios", entry, "--runs", "2", "--in-process", "--ns3", good, "--ns3-cases", cases)
	if code != 0 {
		t.Fatalf("stand-in ns-3: exit %d, stderr %s\n%s", code, errs, out)
	}
	if strings.Contains(out, "not available") || strings.Count(out, "x |") != 2 {
		t.Errorf("stand-in ns-3: want both ratios:\n%s", out)
	}

	for _, c := range []struct {
		name        string
		lines, code int
		want        string
	}{
		{"exit status", -1, 3, "exit status 3"},
		{"missing flows", 2, 0, "fct.txt has 2 completed flows, flow.txt has 4"},
	} {
		code, _, errs = run("--scenarios", entry, "--runs", "1", "--in-process", "--ns3", fakeNS3(t, c.lines, c.code), "--ns3-cases", cases)
		if code != ExitFailed || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", c.name, code, errs, ExitFailed, c.want)
		}
	}

	// A run that cannot complete its flows by its limit fails its verdict.
	short := tinyOverlay(t, `, "run": {"limit_ns": 3000}`)
	code, out, errs = run("--scenarios", "demo-incast-4to1+"+short, "--runs", "1", "--in-process")
	if code != ExitFailed || !strings.Contains(errs, "flows incomplete") || !strings.Contains(out, "failed") {
		t.Errorf("incomplete run: exit %d, stderr %q, stdout %q", code, errs, out)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "0"}, "--runs=0"},
		{[]string{"--scenarios", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"--scenarios", "demo-incast-4to1+"}, "no overlay file"},
		{[]string{"--ns3", t.TempDir()}, "no executable scratch/third"},
		{[]string{"--ns3", good}, "needs --ns3-cases"},
	} {
		code, _, errs := run(c.args...)
		if code != ExitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("bench %q: exit %d, stderr %q; want %d and %q", c.args, code, errs, ExitUsage, c.want)
		}
	}
}
