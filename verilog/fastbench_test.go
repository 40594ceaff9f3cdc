package verilog

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// hexToBin rewrites a hex vector file as binary records (ceil(width/8)
// bytes per vector, the packed vector little endian), the format the C++
// harness reads from a .bin file.
func hexToBin(t *testing.T, hexPath, binPath string, tab fieldtable.Table) {
	t.Helper()
	data, err := os.ReadFile(hexPath)
	if err != nil {
		t.Fatal(err)
	}
	w := make([]uint64, tab.Words())
	var out []byte
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if err := tab.ParseHex(l, w); err != nil {
			t.Fatal(err)
		}
		var rec []byte
		for _, x := range w {
			rec = binary.LittleEndian.AppendUint64(rec, x)
		}
		out = append(out, rec[:(tab.Width+7)/8]...)
	}
	if err := os.WriteFile(binPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHarness builds the C++ harness of the ops fixture under Verilator and
// runs it on hex and binary files, whole and in ranges (+first): a good
// set passes; one flipped expected bit (vector 7, the field at offset 0)
// fails exactly that vector, named by its global index and its class from
// classes.txt, with the field's got and want values as the testbench prints
// them (the oracle: the values in the files, computed by the rtl
// evaluator); a range that leaves vector 7 out passes.
func TestHarness(t *testing.T) {
	tools := needTools(t, FlowVerilator)
	m := opsFixture(false)
	in, out, err := PortTables(m, "in_valid", "out_valid")
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid"}
	dir := t.TempDir()
	const n = 300
	if err := combVectors(dir, m, in, out, n, 11); err != nil {
		t.Fatal(err)
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(exp), "\n")
	w := make([]uint64, out.Words())
	if err := out.ParseHex(lines[7], w); err != nil {
		t.Fatal(err)
	}
	f0 := out.Fields[0]
	good := fieldtable.Get(w, f0)
	fieldtable.PutBits(w, f0.Offset, f0.Width, good^1)
	lines[7] = string(out.AppendHex(nil, w))
	if err := os.WriteFile(filepath.Join(dir, "bad.hex"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	hexToBin(t, filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "stimulus.bin"), in)
	hexToBin(t, filepath.Join(dir, "expected.hex"), filepath.Join(dir, "expected.bin"), out)
	hexToBin(t, filepath.Join(dir, "bad.hex"), filepath.Join(dir, "bad.bin"), out)
	if err := os.WriteFile(filepath.Join(dir, "classes.txt"), []byte("0 5 zero_edges\n5 4 carry_borrow_edges\n9 291 random\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hf, err := b.HarnessFiles()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "rtl")
	mods, err := PrintAll(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(src, append(mods, hf...)); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range append(mods, hf...) {
		names = append(names, f.Name)
	}
	ctx := context.Background()
	bl, err := tools.Compile(ctx, Verilator, src, buildCache, b.HarnessName(), names, 0)
	if err != nil {
		t.Fatal(err)
	}
	bl.Classes = filepath.Join(dir, "classes.txt")
	digits := (f0.Width + 3) / 4
	fieldLine := fmt.Sprintf("  %s: got %0*x want %0*x", f0.Name, digits, good, digits, good^1)
	for _, c := range []struct {
		stim, exp      string
		first, n       int
		passed, failed int
		want           string
	}{
		{"stimulus.hex", "expected.hex", 0, n, n, 0, ""},
		{"stimulus.bin", "expected.bin", 0, n, n, 0, ""},
		{"stimulus.hex", "bad.hex", 0, n, n - 1, 1, "MISMATCH vector 7 (class carry_borrow_edges):\n" + fieldLine + "\n"},
		{"stimulus.bin", "bad.bin", 0, n, n - 1, 1, "MISMATCH vector 7 (class carry_borrow_edges):\n" + fieldLine + "\n"},
		{"stimulus.bin", "bad.bin", 5, 10, 9, 1, "MISMATCH vector 7 (class carry_borrow_edges):\n"},
		{"stimulus.hex", "bad.hex", 8, 200, 200, 0, ""},
		{"stimulus.hex", "bad.hex", 250, 50, 50, 0, ""},
	} {
		name := fmt.Sprintf("%s,%s,first=%d,n=%d", c.stim, c.exp, c.first, c.n)
		res, err := bl.RunRange(ctx, filepath.Join(dir, c.stim), filepath.Join(dir, c.exp), c.first, c.n, 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Passed != c.passed || res.Failed != c.failed || !strings.Contains(res.Output, c.want) {
			t.Errorf("%s: %d passed, %d failed, want %d and %d and %q:\n%s", name, res.Passed, res.Failed, c.passed, c.failed, c.want, tail(res.Output, 2000))
		}
	}
	// A range beyond the files is an error, not a pass.
	if res, err := bl.RunRange(ctx, filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex"), 290, 20, 0); err == nil && res.Failed == 0 {
		t.Errorf("+first=290 +n=20 of 300: %d passed, %d failed, want a failure", res.Passed, res.Failed)
	}
}
