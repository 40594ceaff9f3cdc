package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/vectors/coverage"
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

// TestVectorsShow prints one vector and checks the fields against the
// set's vectors.jsonl line of the same index (the generator's own named
// rendering is the oracle), and the errors for bad indexes.
func TestVectorsShow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	var out, errb bytes.Buffer
	if code := Main([]string{"vectors", "gen", "--out", dir, "--count", "5", "--class", "first_ack", "--seed", "3", "--jsonl"}, &out, &errb); code != 0 {
		t.Fatalf("gen: %d %s", code, errb.String())
	}
	jl, err := os.ReadFile(filepath.Join(dir, "vectors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Split(string(jl), "\n")[2]
	var rec struct {
		Class   string `json:"class"`
		In, Out map[string]struct {
			Raw string `json:"raw"`
		}
	}
	if err := json.Unmarshal([]byte(line), &rec); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if code := Main([]string{"vectors", "show", dir, "--index", "2"}, &out, &errb); code != 0 {
		t.Fatalf("show: %d %s", code, errb.String())
	}
	text := out.String()
	if !strings.Contains(text, "vector 2 of") || !strings.Contains(text, "class "+rec.Class) {
		t.Errorf("heading wrong:\n%s", text)
	}
	for part, fields := range map[string]map[string]struct {
		Raw string `json:"raw"`
	}{"in": rec.In, "out": rec.Out} {
		for name, f := range fields {
			found := false
			for _, l := range strings.Split(text, "\n") {
				if strings.Contains(l, " "+name+" ") && strings.Contains(l, f.Raw) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s field %s raw %s not shown:\n%s", part, name, f.Raw, text)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"vectors", "show", dir}, "--index is required"},
		{[]string{"vectors", "show", dir, "--index", "99"}, "index 99: the set"},
		{[]string{"vectors", "show", dir, "--index", "-1"}, "--index=-1"},
	} {
		errb.Reset()
		if code := Main(tc.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}

// TestVectorsGenJSONLOptIn checks that vectors.jsonl is written only with
// --jsonl, and that --jsonl with --no-jsonl is refused.
func TestVectorsGenJSONLOptIn(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		code  int
		jsonl bool
	}{
		{nil, 0, false},
		{[]string{"--no-jsonl"}, 0, false},
		{[]string{"--jsonl"}, 0, true},
		{[]string{"--jsonl", "--no-jsonl"}, 2, false},
	} {
		dir := filepath.Join(t.TempDir(), "set")
		var out, errb bytes.Buffer
		args := append([]string{"vectors", "gen", "--out", dir, "--count", "3", "--class", "first_ack"}, tc.flags...)
		if code := Main(args, &out, &errb); code != tc.code {
			t.Fatalf("%v: exit %d, want %d: %s", tc.flags, code, tc.code, errb.String())
		}
		_, err := os.Stat(filepath.Join(dir, "vectors.jsonl"))
		if got := err == nil; got != tc.jsonl {
			t.Errorf("%v: vectors.jsonl written %v, want %v", tc.flags, got, tc.jsonl)
		}
	}
}

// TestVectorsCoverMerge generates one set whole and as three shards and
// checks that `vectors cover --merge` of the shards gives the whole set's
// class counts and hits and cover-point bin counts exactly (the oracle is
// the unsharded set's manifest), toggles no more than the whole set's, and
// refuses a missing or repeated shard.
func TestVectorsCoverMerge(t *testing.T) {
	root := t.TempDir()
	gen := func(dir string, extra ...string) {
		t.Helper()
		var out, errb bytes.Buffer
		args := append([]string{"vectors", "gen", "--out", filepath.Join(root, dir), "--count", "300", "--seed", "5"}, extra...)
		if code := Main(args, &out, &errb); code != 0 {
			t.Fatalf("%v: %d %s", args, code, errb.String())
		}
	}
	gen("whole")
	for i := 0; i < 3; i++ {
		gen(fmt.Sprintf("s%d", i), "--shard", fmt.Sprintf("%d/3", i))
	}
	cover := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(append([]string{"vectors", "cover"}, args...), &out, &errb)
		return code, out.String(), errb.String()
	}
	code, merged, errs := cover("--merge", "--format", "json", filepath.Join(root, "s2"), filepath.Join(root, "s0"), filepath.Join(root, "s1"))
	if code != 0 {
		t.Fatalf("cover --merge: %d %s", code, errs)
	}
	_, whole, _ := cover("--format", "json", filepath.Join(root, "whole"))
	var m, w vectors.CoverageJSON
	if err := json.Unmarshal([]byte(merged), &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(whole), &w); err != nil {
		t.Fatal(err)
	}
	if m.Count != w.Count || fmt.Sprint(m.Classes) != fmt.Sprint(w.Classes) {
		t.Errorf("merged classes differ from the whole set's:\n%v\n%v", m.Classes, w.Classes)
	}
	if fmt.Sprint(m.Coverage.Points) != fmt.Sprint(w.Coverage.Points) {
		t.Errorf("merged cover points differ from the whole set's")
	}
	// The functional coverage model sampled shard by shard and summed equals
	// the whole set's.
	var mf, wf coverage.Report
	if err := json.Unmarshal(m.Functional, &mf); err != nil {
		t.Fatalf("merged functional coverage: %v", err)
	}
	if err := json.Unmarshal(w.Functional, &wf); err != nil {
		t.Fatalf("whole set's functional coverage: %v", err)
	}
	if mf.Vectors != wf.Vectors || mf.Summary != wf.Summary || fmt.Sprint(mf.Points) != fmt.Sprint(wf.Points) || mf.Vectors != w.Count {
		t.Errorf("merged functional coverage differs from the whole set's: %+v vs %+v", mf.Summary, wf.Summary)
	}
	for i, f := range m.Coverage.InputBits.Fields {
		if f.Toggled > w.Coverage.InputBits.Fields[i].Toggled {
			t.Errorf("merged input field %s toggled %d bits, the whole set %d", f.Field, f.Toggled, w.Coverage.InputBits.Fields[i].Toggled)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--merge", filepath.Join(root, "s0"), filepath.Join(root, "s1")}, "shard 2/3 is missing"},
		{[]string{"--merge", filepath.Join(root, "s0"), filepath.Join(root, "s0"), filepath.Join(root, "s1")}, "given twice"},
		{[]string{"--merge", filepath.Join(root, "whole"), filepath.Join(root, "s0")}, "of 1 shards"},
		{[]string{filepath.Join(root, "s0"), filepath.Join(root, "s1")}, "give --merge"},
		{[]string{"--format", "xml", filepath.Join(root, "s0")}, `--format="xml"`},
	} {
		if code, _, errs := cover(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("cover %v: exit %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
	code, csvOut, _ := cover("--format", "csv", filepath.Join(root, "whole"))
	if code != 0 || !strings.HasPrefix(csvOut, "kind,name,bin,count\n") || !strings.Contains(csvOut, "\nclass,first_ack,generated,") {
		t.Errorf("cover --format csv: %d\n%.300s", code, csvOut)
	}
}

// vectors gen --compress zstd writes .zst data files that verify, check
// (against the plain set's expected.hex as the DUT, the oracle), show,
// cover and grade read (their reports equal the plain set's); a flipped byte in the compressed golden makes check exit 2
// naming the damaged set, never 1 (a mismatch); a bad --compress, or one
// with --from-sim or --design module, exits 2 naming the flag.
func TestVectorsCompress(t *testing.T) {
	dir := t.TempDir()
	plain, z := filepath.Join(dir, "plain"), filepath.Join(dir, "z")
	for _, a := range [][]string{{"--out", plain}, {"--out", z, "--compress", "zstd"}} {
		if code, _, errs := runCLI(append([]string{"vectors", "gen", "--count", "500", "--seed", "3"}, a...)...); code != 0 {
			t.Fatalf("vectors gen %v: exit %d %s", a, code, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(z, "expected.hex.zst")); err != nil {
		t.Fatal(err)
	}
	dut := filepath.Join(plain, "expected.hex")
	for _, args := range [][]string{{"vectors", "verify", z}, {"vectors", "check", "--golden", z, "--dut", dut}, {"vectors", "show", z, "--index", "7"}} {
		if code, out, errs := runCLI(args...); code != 0 {
			t.Errorf("%v: exit %d\n%s\n%s", args, code, out, errs)
		}
	}
	// cover and grade read the compressed set as they read the plain one:
	// the same report, once the directory names are made equal.
	for _, args := range [][]string{{"vectors", "cover", "--format", "json"}, {"grade", "--mutants", "4", "--seed", "2", "--vectors"}} {
		code, outPlain, errs := runCLI(append(args, plain)...)
		if code != 0 {
			t.Fatalf("%v %s: exit %d\n%s", args, plain, code, errs)
		}
		code, outZ, errs := runCLI(append(args, z)...)
		if code != 0 {
			t.Fatalf("%v %s: exit %d\n%s", args, z, code, errs)
		}
		if strings.ReplaceAll(outZ, z, plain) != outPlain {
			t.Errorf("%v: the compressed set's report differs from the plain set's:\n%s\n---\n%s", args, outZ, outPlain)
		}
	}
	p := filepath.Join(z, "expected.hex.zst")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x01
	os.WriteFile(p, b, 0o644)
	if code, out, errs := runCLI("vectors", "check", "--golden", z, "--dut", dut); code != 2 || !strings.Contains(errs, "golden set damaged") {
		t.Errorf("check against a damaged compressed golden: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, _ := runCLI("vectors", "verify", z); code != 1 {
		t.Errorf("verify of a damaged compressed set: exit %d, want 1", code)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"vectors", "gen", "--compress", "gzip", "--out", filepath.Join(dir, "x")}, `--compress="gzip": want none or zstd`},
		{[]string{"vectors", "gen", "--design", "module", "--compress", "zstd", "--out", filepath.Join(dir, "x")}, "--compress does not apply to --design module"},
		{[]string{"vectors", "gen", "--from-sim", "hpcc-incast-60to1", "--compress", "zstd", "--out", filepath.Join(dir, "x")}, "--compress does not apply to --from-sim"},
	} {
		if code, _, errs := runCLI(tc.args...); code != 2 || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d %q, want 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}
