package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVerifyCommand runs `hpccgold verify` on a vector set and on a sim
// output, intact and damaged, and checks exit codes (0 intact, 1 damaged,
// 2 bad usage) and the problem named.
func TestVerifyCommand(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	root := t.TempDir()
	set := filepath.Join(root, "set")
	if code, out, errs := run("vectors", "gen", "--out", set, "--count", "20", "--class", "first_ack", "--seed", "4"); code != 0 {
		t.Fatalf("vectors gen: %d\n%s\n%s", code, out, errs)
	}
	sim := filepath.Join(root, "sim")
	cfg := filepath.Join(root, "small.json")
	os.WriteFile(cfg, []byte(`{"traffic":{"incast":[{"senders":[1,2],"bytes":20000}]}}`), 0o644)
	if code, out, errs := run("sim", "--scenario", "demo-incast-4to1", "--config", cfg, "--out", sim); code != 0 {
		t.Fatalf("sim: %d\n%s\n%s", code, out, errs)
	}
	for _, tc := range []struct {
		name   string
		dir    string
		damage func()
		code   int
		want   string // in stdout (code 0, 1) or stderr (code 2)
	}{
		{"set intact", set, func() {}, 0, "verify " + set + ": model"},
		{"sim intact", sim, func() {}, 0, ": output, "},
		{"set expected changed", set, func() {
			b, _ := os.ReadFile(filepath.Join(set, "expected.hex"))
			b[0] ^= 1
			os.WriteFile(filepath.Join(set, "expected.hex"), b, 0o644)
		}, 1, "expected.hex: SHA-256"},
		{"sim plot removed", sim, func() { os.Remove(filepath.Join(sim, "summary.txt")) }, 1, "summary.txt: listed in the manifest but missing"},
		{"sim extra file", sim, func() { os.WriteFile(filepath.Join(sim, "old-plot.png"), nil, 0o644) }, 1, "old-plot.png: not listed"},
		{"no manifest", sim, func() { os.Remove(filepath.Join(sim, "manifest.json")) }, 2, "holds no manifest.json"},
		{"no such dir", filepath.Join(root, "nope"), func() {}, 2, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.damage()
			code, out, errs := run("verify", tc.dir)
			got := out
			if tc.code == 2 {
				got = errs
			}
			if code != tc.code || !strings.Contains(got, tc.want) {
				t.Fatalf("verify %s = %d\nstdout %s\nstderr %s\nwant %d and %q", tc.dir, code, out, errs, tc.code, tc.want)
			}
		})
	}
}
