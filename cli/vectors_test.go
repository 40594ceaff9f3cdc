package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
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

// TestVectorsFromSim runs `vectors gen --from-sim` on the small demo
// scenario (first 300 of its 800 sender datapath updates) and checks that
// the captured set works with the unchanged tools: verify passes, check
// passes expected.hex and fails one flipped bit (exit 1), cosim under
// Icarus passes every vector; and that the refusals are usage errors (exit
// 2): a float model, directed-class flags, --cc without --from-sim, an
// unknown scenario.
func TestVectorsFromSim(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sim")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("vectors", "gen", "--from-sim", "demo-incast-4to1", "--count", "300", "--out", dir)
	if code != 0 || !strings.Contains(out, "wrote 300 vectors") || !strings.Contains(out, "captured (sim) from scenario demo-incast-4to1 (the first 300") ||
		!strings.Contains(out, "sim:demo-incast-4to1") {
		t.Fatalf("gen --from-sim: %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := run("vectors", "verify", dir); code != 0 || !strings.Contains(out, "OK") {
		t.Fatalf("verify: %d\n%s\n%s", code, out, errs)
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(exp), "\n")
	l := []byte(lines[42])
	l[len(l)-1] ^= 1 // bit 0 of vector 42
	lines[42] = string(l)
	dut := filepath.Join(t.TempDir(), "dut.hex")
	if err := os.WriteFile(dut, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("vectors", "check", "--golden", dir, "--dut", dut); code != 1 || !strings.Contains(out, "FAIL: 299 passed, 1 failed") ||
		!strings.Contains(out, "vector 42 (DUT line 43, class sim:demo-incast-4to1)") {
		t.Fatalf("check (one flip): %d\n%s", code, out)
	}
	for _, args := range [][]string{
		{"vectors", "gen", "--from-sim", "demo-incast-4to1", "--model", "float", "--out", dir},
		{"vectors", "gen", "--from-sim", "demo-incast-4to1", "--level", "2", "--out", dir},
		{"vectors", "gen", "--cc", "hpcc-rx", "--out", dir},
		{"vectors", "gen", "--from-sim", "no-such-scenario", "--out", dir},
	} {
		if code, _, _ := run(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	testtool.Need(t, "iverilog", "vvp", "verilator")
	code, out, errs = run("cosim", "--simulator", "icarus", "--vectors", dir, "--stages", "1", "--work", t.TempDir(), "--cache", t.TempDir())
	if code != 0 || !strings.Contains(out, "300 passed, 0 failed") {
		t.Fatalf("cosim on the captured set: exit %d\n%s\n%s", code, out, errs)
	}
}
