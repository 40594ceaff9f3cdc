package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// TestGuardVectorsEmitCosim runs the telemetry guard's paths of three
// commands end to end: `vectors gen --cc guard` writes a set whose
// manifest names the int_guard model and that `vectors verify` re-runs;
// `emit verilog --cc guard` writes int_guard.v; `cosim` on the set (model
// from the manifest) passes under Icarus, and exits 1 when one expected
// bit is flipped (and the set re-hashed). Oracle: cc/intguard through the
// vector files.
func TestGuardVectorsEmitCosim(t *testing.T) {
	vec := t.TempDir()
	code, out, errs := runCLI("vectors", "gen", "--cc", "guard", "--count", "300", "--no-jsonl", "--out", vec)
	if code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("vectors gen --cc guard: exit %d\n%s\n%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(vec, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct{ Model string }
	if err := json.Unmarshal(data, &man); err != nil || man.Model != "int_guard" {
		t.Fatalf("manifest model %q (%v)", man.Model, err)
	}
	if code, out, errs := runCLI("vectors", "verify", vec); code != 0 {
		t.Fatalf("vectors verify of a guard set: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs := runCLI("cosim", "--cc", "guard", "--design", "module", "--work", t.TempDir()); code != 2 {
		t.Errorf("cosim --cc guard --design module: exit %d, want 2 (%s)", code, errs)
	}
	d := t.TempDir()
	if code, out, errs := runCLI("emit", "verilog", "--cc", "guard", "--stages", "1", "--out", d); code != 0 || !strings.Contains(out, "int_guard: 1 stages, latency 1, II 1") {
		t.Fatalf("emit verilog --cc guard: exit %d\n%s\n%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(d, "int_guard.v")); err != nil {
		t.Fatal(err)
	}

	testtool.Need(t, "iverilog", "vvp")
	args := []string{"cosim", "--simulator", "icarus", "--vectors", vec, "--limit", "300", "--stages", "1", "--work", t.TempDir(), "--cache", t.TempDir(), "--lint=false"}
	code, out, errs = runCLI(args...)
	if code != 0 || !strings.Contains(out, "int_guard under icarus") || !strings.Contains(out, "300 passed, 0 failed") {
		t.Fatalf("cosim on a guard set: exit %d\n%s\n%s", code, out, errs)
	}
	path := filepath.Join(vec, "expected.hex")
	data, err = os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	l := []byte(lines[3])
	l[len(l)-1] ^= 1
	lines[3] = string(l)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rehash(t, vec, "expected.hex")
	if code, out, errs = runCLI(args...); code != 1 || !strings.Contains(out, "299 passed, 1 failed") || !strings.Contains(errs, "MISMATCH vector 3") {
		t.Fatalf("cosim with a corrupted expected line: exit %d\n%s\n%s", code, out, errs)
	}
}
