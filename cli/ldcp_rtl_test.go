package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// TestLDCPVectorsEmitCosim runs the LDCP paths of three commands end to
// end: `vectors gen --cc ldcp` writes a set whose manifest names the
// ldcp_update model and that `vectors verify` re-runs (exit 0); `emit
// verilog --cc ldcp` writes ldcp_update.v, its testbench and layouts,
// byte-identical across runs; `cosim` on the LDCP set (model taken from the
// manifest) passes under Icarus (exit 0, "300 passed, 0 failed"), and exits
// 1 naming the field when one expected bit is flipped. Bad --cc values and
// --flow-bits with ldcp are usage errors (exit 2). Oracle: the golden
// datapath through the vector files.
func TestLDCPVectorsEmitCosim(t *testing.T) {
	vec := t.TempDir()
	code, out, errs := runCLI("vectors", "gen", "--cc", "ldcp", "--level", "2", "--count", "400", "--no-jsonl", "--out", vec)
	if code != 0 || !strings.Contains(out, "wrote ") {
		t.Fatalf("vectors gen --cc ldcp: exit %d\n%s\n%s", code, out, errs)
	}
	data, err := os.ReadFile(filepath.Join(vec, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var man struct{ Model string }
	if err := json.Unmarshal(data, &man); err != nil || man.Model != "ldcp_update" {
		t.Fatalf("manifest model %q (%v)", man.Model, err)
	}
	if code, out, errs := runCLI("vectors", "verify", vec); code != 0 {
		t.Fatalf("vectors verify of an LDCP set: exit %d\n%s\n%s", code, out, errs)
	}
	for _, bad := range [][]string{
		{"vectors", "gen", "--cc", "dcqcn", "--out", t.TempDir()},
		{"vectors", "gen", "--cc", "hpcc-rx", "--out", t.TempDir()},
		{"emit", "verilog", "--cc", "ldcp", "--flow-bits", "3", "--out", t.TempDir()},
		{"emit", "verilog", "--cc", "nope", "--out", t.TempDir()},
		{"cosim", "--cc", "ldcp", "--design", "module", "--work", t.TempDir()},
	} {
		if code, _, errs := runCLI(bad...); code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", strings.Join(bad, " "), code, errs)
		}
	}

	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		code, out, errs := runCLI("emit", "verilog", "--cc", "ldcp", "--stages", "2", "--out", d)
		if code != 0 || !strings.Contains(out, "ldcp_update: 2 stages, latency 2, II 1") {
			t.Fatalf("emit verilog --cc ldcp: exit %d\n%s\n%s", code, out, errs)
		}
	}
	for _, name := range []string{"ldcp_update.v", "tb_ldcp_update.v", "ldcp_update_in.vh", "ldcp_update_out.vh", "ldcp_update_in.json", "ldcp_update_out.json"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dirs[0], "hpcc_update.v")); err == nil {
		t.Error("emit verilog --cc ldcp wrote hpcc_update.v")
	}

	testtool.Need(t, "iverilog", "vvp", "verilator")
	args := []string{"cosim", "--simulator", "icarus", "--vectors", vec, "--limit", "300", "--stages", "1", "--work", t.TempDir(), "--cache", t.TempDir()}
	code, out, errs = runCLI(args...)
	if code != 0 || !strings.Contains(out, "ldcp_update under icarus") || !strings.Contains(out, "300 passed, 0 failed") {
		t.Fatalf("cosim on an LDCP set: exit %d\n%s\n%s", code, out, errs)
	}
	// Flip the lowest bit of vector 3's expected line (ns_stage bit 0).
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
	if code, _, errs = runCLI(args...); code != 2 || !strings.Contains(errs, "golden set damaged") {
		t.Fatalf("cosim on a damaged LDCP set: exit %d, %s; want 2, golden set damaged", code, errs)
	}
	rehash(t, vec, "expected.hex") // the set now vouches for the change: a DUT-side disagreement
	code, out, errs = runCLI(args...)
	if code != 1 || !strings.Contains(out, "299 passed, 1 failed") || !strings.Contains(errs, "MISMATCH vector 3") || !strings.Contains(errs, "ns_stage") {
		t.Fatalf("cosim with a corrupted expected line: exit %d\n%s\n%s", code, out, errs)
	}
}
