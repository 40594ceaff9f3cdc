package verilog

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// headerCommands returns the shell commands the testbench's header comment
// gives after the line starting with intro.
func headerCommands(t *testing.T, tb []byte, intro string) []string {
	t.Helper()
	var cmds []string
	in := false
	for _, l := range strings.Split(string(tb), "\n") {
		switch {
		case strings.HasPrefix(l, "// "+intro):
			in = true
		case in && strings.HasPrefix(l, "//   $ "):
			cmds = append(cmds, strings.TrimPrefix(l, "//   $ "))
		case in:
			in = false
		}
	}
	if len(cmds) != 2 {
		t.Fatalf("header: %q: %d commands, want build and run:\n%s", intro, len(cmds), tb[:min(len(tb), 2000)])
	}
	return cmds
}

// sh runs a command line in dir and returns its output and exit status.
func sh(t *testing.T, dir, line string) (string, int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "ulimit -c 0; "+line)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
		if code < 0 {
			code = 128 // killed by a signal (Verilator's $fatal aborts)
		}
	} else if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return out.String(), code
}

// TestTestbenchHeaderCommands runs the build and run commands printed in the
// emitted testbench's header, verbatim, under Icarus and Verilator: without
// +n the testbench takes the vector count from the files; a passing set
// exits 0, one flipped expected bit exits non-zero naming the field, and
// files of different lengths exit non-zero. A failure names the vector's
// class from the set's class ranges (classes.txt, as vectors writes it:
// vector 7 lies in the second range), and by index only when the file is
// missing. The expected values come from the rtl evaluator (combVectors).
func TestTestbenchHeaderCommands(t *testing.T) {
	needTools(t, FlowIcarus, FlowVerilator)
	m := opsFixture(false)
	in, out, err := PortTables(m, "in_valid", "out_valid")
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid", MaxVectors: 1024}
	dir := t.TempDir()
	const n = 300
	if err := combVectors(dir, m, in, out, n, 11); err != nil {
		t.Fatal(err)
	}
	if _, err := Emit(dir, b); err != nil {
		t.Fatal(err)
	}
	tb, err := os.ReadFile(filepath.Join(dir, b.Name()+".v"))
	if err != nil {
		t.Fatal(err)
	}
	exp, err := os.ReadFile(filepath.Join(dir, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	// Flip the lowest bit of vector 7's expected line: the field at offset 0.
	lines := strings.Split(string(exp), "\n")
	l := []byte(lines[7])
	l[len(l)-1] = "1032547698badcfe"[strings.IndexByte("0123456789abcdef", l[len(l)-1])]
	lines[7] = string(l)
	if err := os.WriteFile(filepath.Join(dir, "bad.hex"), []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "classes.txt"), []byte("0 5 zero_edges\n5 4 carry_borrow_edges\n9 291 random\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "short.hex"), []byte(strings.Join(lines[:n-5], "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, intro := range []string{"Build and run under Icarus", "Build and run under Verilator"} {
		cmds := headerCommands(t, tb, intro)
		if o, code := sh(t, dir, cmds[0]); code != 0 {
			t.Fatalf("%s: exit %d\n%s", cmds[0], code, tail(o, 3000))
		}
		o, code := sh(t, dir, cmds[1])
		if code != 0 || !strings.Contains(o, "300 passed, 0 failed") {
			t.Fatalf("%s: exit %d, want 0 and 300 passed\n%s", cmds[1], code, tail(o, 3000))
		}
		for _, c := range []struct{ classes, want string }{
			{"+classes=classes.txt", "MISMATCH vector 7 (class carry_borrow_edges):"},
			{"+classes=none.txt", "MISMATCH vector 7:"},
		} {
			run := strings.Replace(strings.Replace(cmds[1], "+exp=expected.hex", "+exp=bad.hex", 1), "+classes=classes.txt", c.classes, 1)
			o, code = sh(t, dir, run)
			if code == 0 || !strings.Contains(o, "299 passed, 1 failed") || !strings.Contains(o, c.want) ||
				!strings.Contains(o, "  "+out.Fields[0].Name+": got") {
				t.Errorf("%s with one flipped bit, %s: exit %d, want non-zero, 1 failed, %q, field %s\n%s", intro, c.classes, code, c.want, out.Fields[0].Name, tail(o, 3000))
			}
		}
		o, code = sh(t, dir, strings.Replace(cmds[1], "+exp=expected.hex", "+exp=short.hex", 1))
		if code == 0 || !strings.Contains(o, "short.hex has 295") {
			t.Errorf("%s with a short expected file: exit %d, want non-zero naming its 295 lines\n%s", intro, code, tail(o, 3000))
		}
	}
}
