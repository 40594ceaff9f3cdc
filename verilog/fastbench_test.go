package verilog

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
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
	// The one stream of vectors gen --out - (per vector its stimulus
	// record, then its expected record), from standard input or a file.
	interleave := func(name, stim, exp string, srec, erec int) string {
		a, err1 := os.ReadFile(filepath.Join(dir, stim))
		b, err2 := os.ReadFile(filepath.Join(dir, exp))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		var out []byte
		for k := 0; k < n; k++ {
			out = append(append(out, a[k*srec:(k+1)*srec]...), b[k*erec:(k+1)*erec]...)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, out, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	hexIn, hexOut := (in.Width+3)/4+1, (out.Width+3)/4+1
	binIn, binOut := (in.Width+7)/8, (out.Width+7)/8
	goodHex := interleave("good.stream", "stimulus.hex", "expected.hex", hexIn, hexOut)
	badBin := interleave("bad.stream.bin", "stimulus.bin", "bad.bin", binIn, binOut)
	whole, err := os.ReadFile(goodHex)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.stream")
	if err := os.WriteFile(cut, whole[:len(whole)-hexOut-3], 0o644); err != nil { // ends inside vector 299's stimulus
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.stream")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		stdin          string // file piped to standard input ("" : none)
		args           []string
		passed, failed int
		want           string // in the output
		exitOK         bool
	}{
		{"hex on stdin", goodHex, []string{"+stream=-"}, n, 0, "", true},
		{"binary with a flipped bit on stdin", badBin, []string{"+stream=-", "+format=bin", "+classes=" + filepath.Join(dir, "classes.txt")}, n - 1, 1, "MISMATCH vector 7 (class carry_borrow_edges):\n" + fieldLine + "\n", false},
		{"binary file, +n=50", "", []string{"+stream=" + badBin, "+n=50"}, 49, 1, "", false},
		{"binary file, +n=5", "", []string{"+stream=" + badBin, "+n=5"}, 5, 0, "", true},
		{"truncated", cut, []string{"+stream=-"}, -1, -1, "ERROR: -: vector 299: truncated or bad record", false},
		{"empty", empty, []string{"+stream=-"}, -1, -1, "ERROR: +stream: the stream holds no vector", false},
		{"with +stim", goodHex, []string{"+stream=-", "+stim=x"}, -1, -1, "ERROR: +stream: not with", false},
	} {
		cmd := exec.Command(bl.Cmd[0], append(append([]string(nil), bl.Cmd[1:]...), c.args...)...)
		cmd.Dir = bl.Dir
		if c.stdin != "" {
			f, err := os.Open(c.stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		outb, err := cmd.CombinedOutput()
		got := string(outb)
		if (err == nil) != c.exitOK {
			t.Errorf("%s: exit error %v, want ok=%v:\n%s", c.name, err, c.exitOK, tail(got, 2000))
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("%s: output lacks %q:\n%s", c.name, c.want, tail(got, 2000))
		}
		if c.passed >= 0 && !strings.Contains(got, fmt.Sprintf("%d passed, %d failed\n", c.passed, c.failed)) {
			t.Errorf("%s: want %d passed, %d failed:\n%s", c.name, c.passed, c.failed, tail(got, 2000))
		}
	}

	// A range beyond the files is an error, not a pass.
	if res, err := bl.RunRange(ctx, filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex"), 290, 20, 0); err == nil && res.Failed == 0 {
		t.Errorf("+first=290 +n=20 of 300: %d passed, %d failed, want a failure", res.Passed, res.Failed)
	}
}
