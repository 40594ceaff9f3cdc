package demo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
)

// TestRunDeterministic runs the demo twice (without co-simulation, which
// package verilog/cosim tests) and checks that every step ran, that the
// captured and directed vector sets verify, and that vectors and RTL are
// byte-identical between the runs (the project's determinism rule).
func TestRunDeterministic(t *testing.T) {
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
		if got, want := strings.Join(names, ","), "scenario,vectors-sim,vectors-directed,rtl,llvm,cosim"; got != want {
			t.Fatalf("steps = %s, want %s", got, want)
		}
		if err := rep.WriteReport(); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(rep.String(), "skipped: --simulator none") {
			t.Errorf("report does not say co-simulation was skipped:\n%s", rep)
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

// TestUnknownScenario checks the error names the scenario.
func TestUnknownScenario(t *testing.T) {
	_, err := Run(context.Background(), Options{OutDir: t.TempDir(), Scenario: "nope", Simulator: SimNone})
	if err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Fatalf("err = %v, want naming the scenario", err)
	}
}
