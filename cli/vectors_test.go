package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestVectorsCommand runs vectors gen, verify, check and cover end to end on
// a small set and checks the exit codes (0 pass, 1 mismatch, 2 bad usage)
// and the key lines of their output.
func TestVectorsCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("vectors", "gen", "--out", dir, "--count", "50", "--class", "first_ack,u_at_eta", "--seed", "4")
	if code != 0 || !strings.Contains(out, "wrote 64 vectors") || !strings.Contains(out, "u_at_eta") {
		t.Fatalf("gen: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run("vectors", "verify", dir); code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("verify: %d\n%s\n%s", code, out, errs)
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	dut := filepath.Join(t.TempDir(), "dut.hex")
	if err := os.WriteFile(dut, exp, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("vectors", "check", "--golden", dir, "--dut", dut); code != 0 || !strings.Contains(out, "PASS: 64 passed, 0 failed") {
		t.Fatalf("check (equal): %d\n%s", code, out)
	}
	// Flip bit 0 of line 3 (the last hex digit holds the word's low bits).
	lines := strings.Split(string(exp), "\n")
	l := []byte(lines[2])
	l[len(l)-1] ^= 1
	lines[2] = string(l)
	if err := os.WriteFile(dut, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("vectors", "check", "--golden", dir, "--dut", dut); code != 1 || !strings.Contains(out, "FAIL: 63 passed, 1 failed") || !strings.Contains(out, "vector 2 (DUT line 3") {
		t.Fatalf("check (one flip): %d\n%s", code, out)
	}
	if code, out, _ := run("vectors", "cover", dir); code != 0 || !strings.Contains(out, "first_ack") {
		t.Fatalf("cover: %d\n%s", code, out)
	}
	for _, args := range [][]string{{"vectors"}, {"vectors", "nope"}, {"vectors", "gen", "--level", "3", "--out", dir}, {"vectors", "gen", "--shard", "2/2", "--out", dir},
		{"vectors", "check", "--golden", dir}, {"vectors", "verify"}} {
		if code, _, _ := run(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
}
