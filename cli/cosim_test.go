package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/hpccgold/hpccgold/vectors"
	"hash/crc32"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// TestCosimExitStatus runs `cosim` end to end under Icarus on the first
// vectors of a generated set (exit 0, "N passed, 0 failed"), then on a copy
// whose expected.hex has one flipped bit (exit 1, the mismatch reported
// field by field).
func TestCosimExitStatus(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp", "verilator")
	vec := t.TempDir()
	var out, errb bytes.Buffer
	if code := Main([]string{"vectors", "gen", "--count", "50", "--out", vec, "--no-jsonl"}, &out, &errb); code != 0 {
		t.Fatalf("vectors gen: exit %d: %s", code, errb.String())
	}
	work := t.TempDir()
	args := []string{"cosim", "--simulator", "icarus", "--vectors", vec, "--limit", "200", "--stages", "1", "--work", work, "--cache", t.TempDir()}
	out.Reset()
	errb.Reset()
	if code := Main(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "200 passed, 0 failed") {
		t.Fatalf("cosim: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	// The kept work directory is a committed output that verifies.
	out.Reset()
	if code := Main([]string{"verify", work}, &out, &errb); code != 0 {
		t.Fatalf("verify --work directory: exit %d\n%s", code, out.String())
	}
	// Flip the lowest bit of the 8th expected line (ns_valid of vector 7).
	path := filepath.Join(vec, "expected.hex")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	l := []byte(lines[7])
	l[len(l)-1] ^= 1
	lines[7] = string(l)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	// A golden file that no longer matches its manifest is a damaged set:
	// exit 2 before any simulation, never a mismatch blamed on the RTL.
	out.Reset()
	errb.Reset()
	if code := Main(args, &out, &errb); code != 2 || !strings.Contains(errb.String(), "golden set damaged") ||
		!strings.Contains(errb.String(), "hpccgold vectors verify") || strings.Contains(out.String(), "passed") {
		t.Fatalf("cosim on a damaged set: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	// With the manifest re-hashed to vouch for the changed line, the set is
	// intact but disagrees with the RTL, as a DUT bug would: exit 1.
	rehash(t, vec, "expected.hex")
	out.Reset()
	errb.Reset()
	code := Main(args, &out, &errb)
	if code != 1 || !strings.Contains(out.String(), "199 passed, 1 failed") || !strings.Contains(errb.String(), "MISMATCH vector 7") {
		t.Fatalf("cosim with a corrupted expected line: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "ns_valid: got 1 want 0") {
		t.Errorf("mismatch not reported field by field:\n%s", errb.String())
	}
}

// TestCosimRelativeIcarusOnly runs `cosim` as a user on a machine with
// only Icarus would: PATH holds iverilog and vvp alone, and --vectors,
// --work and --cache are relative to the working directory. The run must
// pass (exit 0) with the default --lint skipped and said so; asking for
// --lint explicitly is exit 2 naming the install command; and `emit
// verilog --synth` without Yosys is exit 2 naming its install command,
// before anything is written.
func TestCosimRelativeIcarusOnly(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	bin := t.TempDir()
	for _, n := range []string{"iverilog", "vvp"} {
		p, err := exec.LookPath(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, n)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	t.Chdir(t.TempDir())
	var out, errb bytes.Buffer
	if code := Main([]string{"vectors", "gen", "--count", "20", "--out", "vec", "--no-jsonl"}, &out, &errb); code != 0 {
		t.Fatalf("vectors gen: exit %d: %s", code, errb.String())
	}
	args := []string{"cosim", "--simulator", "icarus", "--vectors", "vec", "--limit", "150", "--stages", "1", "--work", "work", "--cache", "cache"}
	out.Reset()
	errb.Reset()
	if code := Main(args, &out, &errb); code != 0 || !strings.Contains(out.String(), "150 passed, 0 failed") {
		t.Fatalf("cosim: exit %d\nstdout %s\nstderr %s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), "lint skipped: verilog: lint: verilator: tool not found (install with: apt-get install -y verilator)") {
		t.Errorf("default lint without verilator not reported as skipped:\n%s", errb.String())
	}
	if _, err := os.Stat(filepath.Join("work", "rtl", "hpcc_update.v")); err != nil {
		t.Errorf("--work work: %v", err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(append([]string(nil), args...), "--lint"), "apt-get install -y verilator"},
		{[]string{"emit", "verilog", "--out", "emitted", "--synth"}, "yosys: tool not found (install with: apt-get install -y yosys)"},
	} {
		out.Reset()
		errb.Reset()
		if code := Main(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %q", tc.args, code, errb.String(), tc.want)
		}
	}
	if _, err := os.Stat("emitted"); err == nil {
		t.Errorf("emit --synth without yosys wrote its output directory")
	}
}

// rehash rewrites the manifest entry of file in the vector set dir (size,
// SHA-256, CRC-32C) to match its current content.
func rehash(t *testing.T, dir, file string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		t.Fatal(err)
	}
	mp := filepath.Join(dir, "manifest.json")
	mb, err := os.ReadFile(mp)
	if err != nil {
		t.Fatal(err)
	}
	var man map[string]any
	if err := json.Unmarshal(mb, &man); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	for _, f := range man["files"].([]any) {
		e := f.(map[string]any)
		if e["name"] == file {
			e["bytes"] = len(data)
			e["sha256"] = hex.EncodeToString(sum[:])
			e["crc32c"] = fmt.Sprintf("%08x", crc32.Checksum(data, crc32.MakeTable(crc32.Castagnoli)))
		}
	}
	out, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mp, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestModuleStreamSet writes an hpcc_module stream set with `vectors gen
// --design module`, replays it with `cosim --design module --vectors` under
// Icarus (exit 0, the predicted stall count met), then checks that a set
// whose recorded stall count is one lower (as a module that over-stalls by
// one cycle would show) and a set with one changed expected bit both fail
// (exit 1), and that flags the set fixes are refused (exit 2).
func TestModuleStreamSet(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	set := filepath.Join(t.TempDir(), "modset")
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, &out, &errb)
		return code, out.String(), errb.String()
	}
	code, out, errs := run("vectors", "gen", "--design", "module", "--flow-bits", "4", "--events", "60", "--out", set)
	if code != 0 || !strings.Contains(out, "wrote 180 hpcc_module events (16 flows, 3 update stages;") {
		t.Fatalf("vectors gen --design module: %d\n%s\n%s", code, out, errs)
	}
	man, err := vectors.ReadManifest(set)
	if err != nil || man.Module == nil || man.Module.WantStalls <= 0 {
		t.Fatalf("manifest module section: %+v, %v", man, err)
	}
	if code, out, _ := run("verify", set); code != 0 || !strings.Contains(out, "stream set") {
		t.Fatalf("verify: %d\n%s", code, out)
	}
	cosim := []string{"cosim", "--design", "module", "--vectors", set, "--simulator", "icarus", "--lint=false", "--cache", t.TempDir()}
	code, out, errs = run(cosim...)
	want := fmt.Sprintf("stall cycles: %d (handshake rule: %d)", man.Module.WantStalls, man.Module.WantStalls)
	if code != 0 || !strings.Contains(out, "180 passed, 0 failed") || !strings.Contains(out, want) {
		t.Fatalf("cosim on the set: %d\n%s\n%s", code, out, errs)
	}
	// One stall cycle fewer recorded: the module's real stalls exceed it.
	mp := filepath.Join(set, "manifest.json")
	orig, _ := os.ReadFile(mp)
	fewer := strings.Replace(string(orig), fmt.Sprintf(`"want_stalls": %d`, man.Module.WantStalls), fmt.Sprintf(`"want_stalls": %d`, man.Module.WantStalls-1), 1)
	os.WriteFile(mp, []byte(fewer), 0o644)
	if code, out, errs := run(cosim...); code != 1 || !strings.Contains(errs+out, "stall cycles") {
		t.Errorf("cosim with one stall cycle fewer recorded: %d\n%s\n%s", code, out, errs)
	}
	os.WriteFile(mp, orig, 0o644)
	// One output bit changed (the set re-hashed to vouch for it): exit 1.
	ep := filepath.Join(set, "expected.hex")
	exp, _ := os.ReadFile(ep)
	lines := strings.Split(string(exp), "\n")
	l := []byte(lines[5])
	l[len(l)-1] ^= 1
	lines[5] = string(l)
	os.WriteFile(ep, []byte(strings.Join(lines, "\n")), 0o644)
	rehash(t, set, "expected.hex")
	if code, out, errs := run(cosim...); code != 1 || !strings.Contains(out, "179 passed, 1 failed") {
		t.Errorf("cosim with a changed expected bit: %d\n%s\n%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(append([]string{}, cosim...), "--stages", "2"), "--stages: not used"},
		{[]string{"vectors", "gen", "--design", "module", "--count", "5", "--out", filepath.Join(t.TempDir(), "x")}, "--count does not apply to --design module"},
		{[]string{"vectors", "gen", "--flow-bits", "5", "--out", filepath.Join(t.TempDir(), "x")}, "--flow-bits applies to --design module only"},
		{[]string{"vectors", "gen", "--format", "xml", "--out", filepath.Join(t.TempDir(), "x")}, `--format="xml": want hex or bin`},
		{[]string{"vectors", "gen", "--design", "module", "--format", "bin", "--out", filepath.Join(t.TempDir(), "x")}, "--format does not apply to --design module"},
		{append(append([]string{}, cosim...), "--jobs", "-1"), "--jobs=-1"},
		{append(append([]string{}, cosim...), "--verilog-tb=false", "--jobs", "2"), "--jobs, --verilog-tb: only for a Verilator run"},
		{[]string{"cosim", "--simulator", "icarus", "--jobs", "2", "--lint=false"}, "--jobs, --verilog-tb: only for a Verilator run"},
	} {
		if code, _, errs := run(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
