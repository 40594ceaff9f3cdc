package demo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/hpccgold/hpccgold/artefact"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestRunDeterministic runs the demo twice with no external program on
// PATH (co-simulation and the compiled LLVM model are tested in
// verilog/cosim, llvmir and the end-to-end test of cmd/hpccgold) and checks
// that every step that needs none ran, that the others are reported as
// skipped with their install commands, that the captured and directed
// vector sets verify, and that vectors, RTL and REPORT.txt are
// byte-identical between the runs (the project's determinism rule).
func TestRunDeterministic(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var dirs [2]string
	for i := range dirs {
		dirs[i] = t.TempDir()
		rep, err := Run(context.Background(), Options{OutDir: dirs[i], Simulator: SimNone, Random: 100})
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		var names []string
		for _, s := range rep.Steps {
			names = append(names, s.Name)
		}
		if got, want := strings.Join(names, ","), "scenario,vectors-sim,vectors-directed,rtl,llvm,llvm-verify,llvm-check,cosim"; got != want {
			t.Fatalf("steps = %s, want %s", got, want)
		}
		for _, s := range rep.Steps {
			ran := s.Skipped == ""
			if want := !strings.HasPrefix(s.Name, "llvm-") && s.Name != "cosim"; ran != want {
				t.Errorf("step %s: ran %v, want %v (skipped: %q)", s.Name, ran, want, s.Skipped)
			}
		}
		if ar, err := artefact.Verify(dirs[i]); err != nil || !ar.OK() {
			t.Fatalf("run %d: the output directory does not verify: %v %+v", i, err, ar)
		}
		report, err := os.ReadFile(filepath.Join(dirs[i], "REPORT.txt"))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"[llvm-verify] skipped: opt not installed (install with: apt-get install -y llvm)",
			"[llvm-check] skipped: clang not installed (install with: apt-get install -y clang)",
			"[cosim] skipped: --simulator none",
		} {
			if !strings.Contains(rep.String(), want) || !strings.Contains(string(report), want) {
				t.Errorf("report and REPORT.txt should say %q:\n%s", want, report)
			}
		}
		for _, set := range []string{"vectors-sim", "vectors-directed"} {
			vr, err := vectors.Verify(filepath.Join(dirs[i], set))
			if err != nil || !vr.OK() || vr.Count == 0 {
				t.Errorf("Verify(%s) = %+v, %v; want a non-empty set that verifies", set, vr, err)
			}
		}
	}
	for _, f := range []string{
		"vectors-sim/stimulus.hex", "vectors-sim/expected.hex", "vectors-sim/manifest.json",
		"vectors-directed/stimulus.hex", "vectors-directed/expected.hex", "vectors-directed/manifest.json",
		"rtl/hpcc_update.v", "rtl/hpcc_module.v", "sim/summary.json", "llvm/hpcc_update.ll", "llvm/hpcc_update.h",
		"REPORT.txt",
	} {
		a, err := os.ReadFile(filepath.Join(dirs[0], f))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], f))
		if err != nil {
			t.Fatal(err)
		}
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs with the same options (or is empty: %d bytes)", f, len(a))
		}
	}
}

// TestInterruptedRunKeepsTheEarlierOutput checks that a demo stopped by
// its context (SIGINT in the CLI) leaves the earlier complete run in place,
// still verifying, and no staging leftovers.
func TestInterruptedRunKeepsTheEarlierOutput(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	dir := t.TempDir()
	if _, err := Run(context.Background(), Options{OutDir: dir, Simulator: SimNone, Random: 10, Limit: 100}); err != nil {
		t.Fatal(err)
	}
	before, err := artefact.HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, Options{OutDir: dir, Simulator: SimNone, Random: 11, Limit: 100}); err == nil {
		t.Fatal("a cancelled demo succeeded")
	}
	after, err := artefact.HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Error("a cancelled demo changed the earlier run's outputs")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".hpccgold-staging") {
			t.Errorf("leftover %s", e.Name())
		}
	}
}

// TestOptionErrors checks that bad options are rejected with the field and
// value named, before anything is written.
func TestOptionErrors(t *testing.T) {
	cases := []struct {
		opts Options
		want string
	}{
		{Options{}, "OutDir is required"},
		{Options{OutDir: "x", Simulator: "modelsim"}, `Simulator="modelsim"`},
		{Options{OutDir: "x", Stages: -1}, "Stages=-1"},
		{Options{OutDir: "x", Random: -5}, "Random=-5"},
	}
	for _, c := range cases {
		_, err := Run(context.Background(), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Run(%+v) err = %v, want mentioning %q", c.opts, err, c.want)
		}
	}
	if _, err := os.Stat("x"); err == nil {
		t.Errorf("a rejected run created its output directory")
	}
}

// TestSimulatorChoice checks how the co-simulator is chosen against what is
// installed (PATH is an empty directory or holds empty scripts): asked for
// by name and missing, the run fails before anything is written, naming the
// install command; left to auto with none installed, co-simulation is
// skipped naming the install commands of both.
func TestSimulatorChoice(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	for _, tc := range []struct{ sim, want string }{
		{SimIcarus, "Simulator=icarus: verilog: icarus: iverilog, vvp: tool not found (install with: apt-get install -y iverilog)"},
		{SimVerilator, "Simulator=verilator: verilog: verilator: verilator, make, g++: tool not found (install with: apt-get install -y verilator make g++)"},
	} {
		out := filepath.Join(t.TempDir(), "out")
		_, err := Run(context.Background(), Options{OutDir: out, Simulator: tc.sim})
		if !errors.Is(err, verilog.ErrToolMissing) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Simulator=%s: err = %v, want wrapping ErrToolMissing and mentioning %q", tc.sim, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("Simulator=%s: a refused run created its output directory", tc.sim)
		}
	}
	sim, why := pickSimulator(SimAuto)
	want := "no simulator: Verilator: verilator, make, g++ not installed (install with: apt-get install -y verilator make g++); " +
		"Icarus: iverilog, vvp not installed (install with: apt-get install -y iverilog)"
	if sim != "" || why != want {
		t.Errorf("pickSimulator(auto) = %q, %q; want \"\", %q", sim, why, want)
	}
	// Verilator wins when both are installed; Icarus is used without it.
	bin := t.TempDir()
	t.Setenv("PATH", bin)
	for _, tc := range []struct {
		add  []string
		want verilog.Simulator
	}{
		{[]string{"iverilog", "vvp"}, verilog.Icarus},
		{[]string{"verilator", "make", "g++"}, verilog.Verilator},
	} {
		for _, n := range tc.add {
			if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if sim, why := pickSimulator(SimAuto); sim != tc.want {
			t.Errorf("with %v added: pickSimulator(auto) = %q (%s), want %s", tc.add, sim, why, tc.want)
		}
	}
}

// TestUnknownScenario checks the error names the scenario.
func TestUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), Options{OutDir: t.TempDir(), Scenario: "nope", Simulator: SimNone})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v, want naming the scenario", err)
	}
}
