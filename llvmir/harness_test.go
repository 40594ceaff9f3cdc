package llvmir

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// parseHexWords parses a hex line of bits bits into little-endian words.
func parseHexWords(t testing.TB, line string, bits int) []uint64 {
	t.Helper()
	words := make([]uint64, (bits+63)/64)
	n := len(line)
	for i := 0; i < n; i++ {
		v, err := strconv.ParseUint(line[n-1-i:n-i], 16, 8)
		if err != nil {
			t.Fatalf("hex line: %v", err)
		}
		words[i/16] |= v << uint(i%16*4)
	}
	return words
}

// cxxField returns a C++ initializer of port p's field from packed words:
// the value zero-extended, sign-extended for signed ports up to 64 bits, an
// array of 64-bit words above 64 bits.
func cxxField(p Port, words []uint64) string {
	if p.Slots() > 1 {
		var parts []string
		for k := 0; k < p.Slots(); k++ {
			off, w := chunk(p, k)
			parts = append(parts, fmt.Sprintf("0x%xULL", getBits(words, off, w)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	v := getBits(words, p.Offset, p.Width)
	if p.Signed {
		s := int64(v<<uint(64-p.Width)) >> uint(64-p.Width)
		if s == -1<<63 {
			return "INT64_MIN"
		}
		return fmt.Sprintf("%dLL", s)
	}
	return fmt.Sprintf("0x%xULL", v)
}

// cxxHarness writes a C++17 program that calls the plain C entry M(...) on
// each vector (inputs as aggregate initializers of the group structs) and
// compares every output field with the expected one, printing
// "N passed, M failed": the use from a C++ (e.g. Verilator) harness.
func cxxHarness(t testing.TB, md *Model, stim, exp []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#include <cstdint>\n#include <cstdio>\n#include \"%s.h\"\n\nstruct vec {\n", md.Name)
	for g, grp := range md.Groups {
		fmt.Fprintf(&b, "\t%s %s;\n", md.structType(g), grp.Param)
	}
	b.WriteString("};\n\nstatic const vec vecs[] = {\n")
	for i := range stim {
		in, out := parseHexWords(t, stim[i], md.InBits), parseHexWords(t, exp[i], md.OutBits)
		var gs []string
		for g := range md.Groups {
			words := in
			if md.Groups[g].Output {
				words = out
			}
			var fs []string
			for _, p := range md.groupPorts(g) {
				fs = append(fs, cxxField(p, words))
			}
			gs = append(gs, "{"+strings.Join(fs, ", ")+"}")
		}
		fmt.Fprintf(&b, "\t{%s},\n", strings.Join(gs, ", "))
	}
	b.WriteString("};\n\nint main()\n{\n\tint pass = 0, fail = 0;\n\tfor (const vec &v : vecs) {\n\t\tvec got{};\n")
	var args []string
	for _, grp := range md.Groups {
		if grp.Output {
			args = append(args, "&got."+grp.Param)
		} else {
			args = append(args, "&v."+grp.Param)
		}
	}
	fmt.Fprintf(&b, "\t\t%s(%s);\n\t\tbool bad = false;\n", md.Name, strings.Join(args, ", "))
	for _, p := range md.Outputs {
		f := md.Groups[p.Group].Param + "." + p.Field
		for k := 0; k < p.Slots(); k++ {
			idx := ""
			if p.Slots() > 1 {
				idx = fmt.Sprintf("[%d]", k)
			}
			fmt.Fprintf(&b, "\t\tif (got.%s%s != v.%s%s) { bad = true; std::printf(\"%s%s mismatch\\n\"); }\n", f, idx, f, idx, f, idx)
		}
	}
	b.WriteString("\t\tif (bad) fail++; else pass++;\n\t}\n\tstd::printf(\"%d passed, %d failed\\n\", pass, fail);\n\treturn fail != 0;\n}\n")
	return b.String()
}

var passRE = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// passFail parses the "N passed, M failed" line of a program's output.
func passFail(t testing.TB, out string) (int, int) {
	t.Helper()
	m := passRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no summary line in:\n%s", out)
	}
	p, _ := strconv.Atoi(m[1])
	f, _ := strconv.Atoi(m[2])
	return p, f
}

// TestCxxHarness compiles the header and the plain C entry into C++17
// programs with -Wall -Werror (struct types, fixed-width fields, extern "C")
// and checks every output field against expected values: for a random
// module with signed, 1-bit and over-64-bit ports (expected from rtl.Sim)
// and for hpcc_update with the flow-update groups (expected from the golden
// datapath, through the vectors package).
func TestCxxHarness(t *testing.T) {
	t.Parallel()
	tools := needTools(t)
	cxx := testtool.Need(t, "clang++")[0]
	r := rand.New(rand.NewPCG(77, 1))
	m := rtl.NewModule("mixed", "C++ harness types")
	a := m.In("a", 100, false)
	s := m.In("s", 13, true)
	f := m.In("f", 1, false)
	m.Out("wide", m.Mul(m.Trunc(a, 70), m.ZExt(m.AsUnsigned(s), 40)), "110 bits")
	m.Out("neg", m.Sub(m.Const(13, true, 0), s), "signed 13 bits")
	m.Out("big", m.SExt(s, 64), "signed 64 bits")
	m.Out("flag", m.Xor(f, m.Bit(a, 99)), "1 bit")
	mdM, progM := emitBuild(t, tools, m, Options{}, "-O2")
	stimM, expM := simVectors(t, m, mdM, r, 300)

	c := hpccConfigs()[0]
	mdH, progH := sharedHPCC(t, tools)
	set, err := vectors.GenerateHPCC(c.cfg, vectors.Options{Level: 1, Seed: 3, Count: 500, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	var stimH, expH []string
	for k := 0; k < set.Len(); k += 4 { // every fourth vector: all classes, a compact program
		stimH = append(stimH, string(set.InputTable().AppendHex(nil, set.Input(k))))
		expH = append(expH, string(set.OutputTable().AppendHex(nil, set.Output(k))))
	}
	for _, x := range []struct {
		md        *Model
		prog      string
		stim, exp []string
	}{{mdM, progM, stimM, expM}, {mdH, progH, stimH, expH}} {
		obj := filepath.Dir(x.prog)
		dir := t.TempDir()
		src := filepath.Join(dir, "harness.cc")
		if err := os.WriteFile(src, []byte(cxxHarness(t, x.md, x.stim, x.exp)), 0o644); err != nil {
			t.Fatal(err)
		}
		exe := filepath.Join(dir, "harness")
		if _, err := run(context.Background(), dir, cxx, "-std=c++17", "-Wall", "-Wextra", "-Werror", "-O1", "-I"+obj, src,
			filepath.Join(obj, x.md.Name+"_wrap.o"), filepath.Join(obj, x.md.Name+".o"), "-o", exe); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(exe).CombinedOutput()
		if p, f := passFail(t, string(out)); err != nil || p != len(x.stim) || f != 0 {
			t.Fatalf("%s C++ harness: %v\n%s", x.md.Name, err, out)
		}
	}
}

// TestVerilatorDPI builds the emitted example testbench M_dpi_tb.sv, whose
// import "DPI-C" declaration comes from M_dpi.svh, with Verilator and the
// compiled hpcc_update objects, and runs golden vectors (every level-1
// directed class plus random ones) through it: the SystemVerilog use of
// the model. A copy of expected.hex with one bit flipped must then fail
// exactly one vector.
func TestVerilatorDPI(t *testing.T) {
	t.Parallel()
	tools := needTools(t)
	verilator := testtool.Need(t, "verilator")[0]
	cfg := hpcc.DefaultConfig()
	md, prog := sharedHPCC(t, tools)
	obj := filepath.Dir(prog)
	dir := t.TempDir()
	set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 1, Seed: 2, Count: 2000, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	abs := func(s string) string { return filepath.Join(dir, s) }
	if _, err := run(ctx, dir, verilator, "--binary", "-Wno-fatal", "-GN="+strconv.Itoa(set.Len()), "-I"+obj,
		filepath.Join(obj, md.Name+"_dpi_tb.sv"), filepath.Join(obj, md.Name+".o"), filepath.Join(obj, md.Name+"_wrap.o")); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "obj_dir", "V"+md.Name+"_dpi_tb")
	out, err := run(ctx, dir, exe)
	if err != nil {
		t.Fatal(err)
	}
	if p, f := passFail(t, out); p != set.Len() || f != 0 {
		t.Fatalf("Verilator DPI-C testbench: %d passed, %d failed of %d:\n%s", p, f, set.Len(), out)
	}
	exp, err := os.ReadFile(abs("expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(exp), "\n")
	b := []byte(lines[10])
	b[len(b)-1] ^= 1
	lines[10] = string(b)
	if err := os.WriteFile(abs("bad.hex"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err = run(ctx, dir, exe, "+expected="+abs("bad.hex")); err != nil {
		t.Fatal(err)
	}
	if p, f := passFail(t, out); p != set.Len()-1 || f != 1 || !strings.Contains(out, "vector 10:") {
		t.Fatalf("flipped expected bit: want vector 10 alone to fail:\n%s", out)
	}
}
