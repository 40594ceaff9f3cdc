package testtool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records how the rule ended the test: Fatal
// and Skip end the calling goroutine as the testing package does, so a call
// that should not return is seen not to.
type recorder struct {
	testing.TB
	outcome string // "pass", "skip" or "fail"
	msg     string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatal(args ...any)                 { r.end("fail", fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) { r.end("fail", fmt.Sprintf(format, args...)) }
func (r *recorder) Skip(args ...any)                  { r.end("skip", fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.end("skip", fmt.Sprintf(format, args...)) }

func (r *recorder) end(outcome, msg string) {
	r.outcome, r.msg = outcome, msg
	runtime.Goexit()
}

// run calls f with a recorder on its own goroutine and returns the
// recorder once f has returned or ended the test.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t, outcome: "pass"}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

var errMissing = errors.New("tool not found")

// TestRule checks Need, Require and Missing against the team rule (BRIEF,
// "Tests that need external tools"): a present tool passes and Need returns
// its path; a missing tool skips, or fails when HPCCGOLD_REQUIRE_TOOLS=1
// (only "1" counts); an error that is not a missing tool always fails. The
// messages must name the missing tool and its Debian package. PATH is a
// temporary directory holding one executable, "present".
func TestRule(t *testing.T) {
	dir := t.TempDir()
	present := filepath.Join(dir, "present")
	if err := os.WriteFile(present, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	need := func(tools ...string) func(testing.TB) {
		return func(tb testing.TB) {
			paths := Need(tb, tools...)
			if len(paths) != len(tools) {
				tb.Fatalf("Need returned %d paths for %d tools", len(paths), len(tools))
			}
			for i, p := range paths {
				if p != filepath.Join(dir, tools[i]) {
					tb.Fatalf("Need path %d = %q", i, p)
				}
			}
		}
	}
	lookupErr := fmt.Errorf("verilog: verilator, yosys: %w", errMissing)
	for _, tc := range []struct {
		name    string
		env     string // HPCCGOLD_REQUIRE_TOOLS
		f       func(testing.TB)
		want    string // outcome
		wantMsg []string
	}{
		{"need present", "1", need("present"), "pass", nil},
		{"need present twice", "", need("present", "present"), "pass", nil},
		{"need missing skips", "", need("present", "tshark"), "skip", []string{"tshark not found", "apt-get install -y tshark"}},
		{"need missing skips when env is 0", "0", need("tshark"), "skip", []string{"tshark not found"}},
		{"need missing fails when required", "1", need("tshark"), "fail", []string{"tshark not found", "tshark", "HPCCGOLD_REQUIRE_TOOLS=1"}},
		{"need names every missing tool and package once", "1", need("vcd2fst", "present", "fst2vcd"), "fail",
			[]string{"vcd2fst, fst2vcd not found", "apt-get install -y gtkwave)"}},
		{"need unknown tool", "", need("no-such-tool"), "skip", []string{"no-such-tool not found on PATH"}},
		{"require nil", "1", func(tb testing.TB) { Require(tb, nil, errMissing, "verilator") }, "pass", nil},
		{"require missing skips", "", func(tb testing.TB) { Require(tb, lookupErr, errMissing, "verilator", "iverilog", "vvp", "yosys") },
			"skip", []string{"verilog: verilator, yosys: tool not found", "apt-get install -y verilator iverilog yosys)"}},
		{"require missing fails when required", "1", func(tb testing.TB) { Require(tb, lookupErr, errMissing, "clang", "opt") },
			"fail", []string{"verilator, yosys", "apt-get install -y clang llvm", "HPCCGOLD_REQUIRE_TOOLS=1"}},
		{"require other error fails", "", func(tb testing.TB) { Require(tb, errors.New("permission denied"), errMissing, "yosys") },
			"fail", []string{"permission denied"}},
		{"missing skips", "", func(tb testing.TB) { Missing(tb, "SystemC not usable", "libsystemc-dev") },
			"skip", []string{"SystemC not usable (install with: apt-get install -y libsystemc-dev)"}},
		{"missing fails when required", "1", func(tb testing.TB) { Missing(tb, "SystemC not usable", "g++", "libsystemc-dev") },
			"fail", []string{"apt-get install -y g++ libsystemc-dev"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PATH", dir)
			t.Setenv(EnvRequire, tc.env)
			r := run(t, tc.f)
			if r.outcome != tc.want {
				t.Fatalf("outcome %s (%q), want %s", r.outcome, r.msg, tc.want)
			}
			for _, s := range tc.wantMsg {
				if !strings.Contains(r.msg, s) {
					t.Errorf("message %q does not contain %q", r.msg, s)
				}
			}
		})
	}
}

// TestPackage checks the tool-to-Debian-package table against the package
// lists of scripts/test.sh and Debian bookworm (vvp ships in iverilog, opt
// and llc in llvm, vcd2fst and fst2vcd in gtkwave).
func TestPackage(t *testing.T) {
	for _, tc := range []struct{ tool, want string }{
		{"g++", "g++"}, {"make", "make"}, {"verilator", "verilator"}, {"iverilog", "iverilog"}, {"vvp", "iverilog"},
		{"yosys", "yosys"}, {"clang", "clang"}, {"clang++", "clang"}, {"opt", "llvm"}, {"llc", "llvm"},
		{"tshark", "tshark"}, {"vcd2fst", "gtkwave"}, {"fst2vcd", "gtkwave"}, {"no-such-tool", ""},
	} {
		if got := Package(tc.tool); got != tc.want {
			t.Errorf("Package(%q) = %q, want %q", tc.tool, got, tc.want)
		}
	}
}
