package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// A toolGroup is one installable tool set the demo may use: the programs
// the flows look up (what the subset must hold) and the name prefixes of
// everything the Debian packages put on PATH (what a machine without them
// lacks: verilator_bin, iverilog-vpi, yosys-abc, clang-14, opt-14, llc,
// llvm-*).
type toolGroup struct {
	name     string
	programs []string // looked up by the flows; testtool.Need requires them
	prefixes []string // a PATH entry named p, p-* or p_* belongs to the group
}

var (
	groupVerilator = toolGroup{"verilator", []string{"verilator"}, []string{"verilator"}}
	groupIcarus    = toolGroup{"icarus", []string{"iverilog", "vvp"}, []string{"iverilog", "vvp"}}
	groupYosys     = toolGroup{"yosys", []string{"yosys"}, []string{"yosys"}}
	groupClang     = toolGroup{"clang", []string{"clang"}, []string{"clang", "clang++"}}
	groupLLVM      = toolGroup{"llvm", []string{"opt"}, []string{"opt", "llc", "lli", "llvm"}}
	allGroups      = []toolGroup{groupVerilator, groupIcarus, groupYosys, groupClang, groupLLVM}
)

// belongs reports whether the PATH entry name is one of g's programs.
func (g toolGroup) belongs(name string) bool {
	for _, p := range g.prefixes {
		if name == p || strings.HasPrefix(name, p+"-") || strings.HasPrefix(name, p+"_") {
			return true
		}
	}
	return false
}

// restrictedPath returns a directory of symbolic links to every entry of
// the directories of PATH (the first of a name wins, as in a lookup)
// except those of the tool groups not kept: a machine with only the kept
// groups installed, and everything else (g++, make, perl, python3, ld) as
// on a base image.
func restrictedPath(t *testing.T, keep []toolGroup) string {
	t.Helper()
	bin := t.TempDir()
	seen := map[string]bool{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // PATH may name directories that do not exist
		}
	entry:
		for _, e := range entries {
			name := e.Name()
			if seen[name] || e.IsDir() {
				continue
			}
			for _, g := range allGroups {
				if !g.belongs(name) {
					continue
				}
				kept := false
				for _, k := range keep {
					kept = kept || k.name == g.name
				}
				if !kept {
					continue entry
				}
			}
			seen[name] = true
			if err := os.Symlink(filepath.Join(dir, name), filepath.Join(bin, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return bin
}

// TestDemoToolSubsets builds the hpccgold binary and runs `hpccgold demo`
// as a new user would: from a fresh working directory, with a relative
// --out, on a PATH restricted to each tool subset (none; Verilator only;
// Icarus only; Verilator and clang; everything). Every run must exit 0;
// the steps whose programs are installed must have run (report text and
// files), the others must be reported as skipped naming the install
// command, in the printed report and in REPORT.txt; and nothing may be
// written outside the output directory.
//
// Builds: the first Verilator subset compiles the testbench into its own
// relative --out (the default cache, OUT/.hpccgold-cache); the later ones reuse
// that build through a relative --cache path. The compile is therefore
// exercised with relative paths once, and a cached build's run with
// relative paths twice, for one Verilator build instead of three.
func TestDemoToolSubsets(t *testing.T) {
	goTool := testtool.Need(t, "go")[0]
	root := t.TempDir()
	exe := filepath.Join(root, "hpccgold")
	build := exec.Command(goTool, "build", "-o", exe, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	const out = "results/demo" // relative to each run's working directory
	// step names in report order; a step not listed in ran is skipped.
	steps := []string{"scenario", "vectors-sim", "vectors-directed", "rtl", "llvm", "llvm-verify", "llvm-check", "cosim"}
	for _, tc := range []struct {
		name    string
		keep    []toolGroup
		sim     string            // simulator the cosim steps ran under; "" skipped
		cache   string            // --cache, relative to the run's directory; "" the default
		skipped map[string]string // skipped step -> install command the report must name
	}{
		{name: "none", skipped: map[string]string{
			"llvm-verify": "apt-get install -y llvm", "llvm-check": "apt-get install -y clang",
			"cosim": "apt-get install -y verilator"}},
		{name: "verilator", keep: []toolGroup{groupVerilator}, sim: "verilator", skipped: map[string]string{
			"llvm-verify": "apt-get install -y llvm", "llvm-check": "apt-get install -y clang"}},
		{name: "icarus", keep: []toolGroup{groupIcarus}, sim: "icarus", skipped: map[string]string{
			"llvm-verify": "apt-get install -y llvm", "llvm-check": "apt-get install -y clang"}},
		{name: "verilator+clang", keep: []toolGroup{groupVerilator, groupClang}, sim: "verilator",
			cache: "../verilator/" + out + "/.hpccgold-cache", skipped: map[string]string{"llvm-verify": "apt-get install -y llvm"}},
		{name: "all", keep: allGroups, sim: "verilator", cache: "../verilator/" + out + "/.hpccgold-cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The kept groups' programs, and what a Verilator build runs.
			var need []string
			for _, g := range tc.keep {
				need = append(need, g.programs...)
				if g.name == groupVerilator.name {
					need = append(need, "make", "g++")
				}
			}
			testtool.Need(t, need...)
			wd := filepath.Join(root, tc.name)
			if err := os.Mkdir(wd, 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"demo", "--quiet", "--out", out}
			if tc.cache != "" {
				args = append(args, "--cache", tc.cache)
			}
			cmd := exec.Command(exe, args...)
			cmd.Dir = wd
			cmd.Env = append(os.Environ(), "PATH="+restrictedPath(t, tc.keep))
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			start := time.Now()
			err := cmd.Run()
			t.Logf("hpccgold %s: %.1f s", strings.Join(args, " "), time.Since(start).Seconds())
			if err != nil {
				t.Fatalf("hpccgold %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
			}
			reportFile, err := os.ReadFile(filepath.Join(wd, out, "REPORT.txt"))
			if err != nil {
				t.Fatal(err)
			}
			for _, rep := range []struct{ what, text string }{{"printed report", stdout.String()}, {"REPORT.txt", string(reportFile)}} {
				for _, s := range steps {
					if cmdText, skip := tc.skipped[s]; skip {
						re := regexp.MustCompile(`(?m)^\[` + regexp.QuoteMeta(s) + `\] skipped: .*\(install with: ` + regexp.QuoteMeta(cmdText) + `[;)]`)
						if !re.MatchString(rep.text) {
							t.Errorf("%s: step %s not reported as skipped naming %q:\n%s", rep.what, s, cmdText, rep.text)
						}
						continue
					}
					header := "[" + s + "] "
					if s == "cosim" {
						header = "[cosim vectors-directed] "
					}
					if !strings.Contains(rep.text, header) || strings.Contains(rep.text, "["+s+"] skipped") {
						t.Errorf("%s: step %s did not run:\n%s", rep.what, s, rep.text)
					}
				}
				if tc.sim != "" {
					for _, want := range []string{
						"hpcc_update under " + tc.sim + ": 800 passed, 0 failed",
						"hpcc_update under " + tc.sim + ": 19518 passed, 0 failed",
					} {
						if !strings.Contains(rep.text, want) {
							t.Errorf("%s: no %q:\n%s", rep.what, want, rep.text)
						}
					}
				}
				if _, ran := tc.skipped["llvm-check"]; !ran {
					if !strings.Contains(rep.text, "vectors-directed: 19518 passed, 0 failed") {
						t.Errorf("%s: LLVM model check results missing:\n%s", rep.what, rep.text)
					}
				}
			}
			// Files of the steps that ran; none of the steps that did not.
			files := map[string]bool{ // path under --out -> must exist
				"sim/summary.json": true, "vectors-sim/stimulus.hex": true, "vectors-directed/expected.hex": true,
				"rtl/hpcc_update.v": true, "llvm/hpcc_update.ll": true,
			}
			_, noCheck := tc.skipped["llvm-check"]
			files["llvm/hpcc_update_check"] = !noCheck
			files["cosim"] = tc.sim != ""
			for f, want := range files {
				_, err := os.Stat(filepath.Join(wd, out, f))
				if got := err == nil; got != want {
					t.Errorf("%s exists: %v, want %v", f, got, want)
				}
			}
			if tc.sim != "" {
				cache := filepath.Join(wd, out, ".hpccgold-cache")
				if tc.cache != "" {
					cache = filepath.Join(wd, tc.cache)
				}
				builds, _ := filepath.Glob(filepath.Join(cache, tc.sim+"-*", "built.ok"))
				if len(builds) == 0 {
					t.Errorf("no %s build under %s", tc.sim, cache)
				}
			}
			// The output directory verifies as a whole (manifest, every
			// nested vector set re-run).
			vcmd := exec.Command(exe, "verify", out)
			vcmd.Dir = wd
			if vout, err := vcmd.CombinedOutput(); err != nil {
				t.Errorf("hpccgold verify %s: %v\n%s", out, err, vout)
			}
			// Everything the run wrote is under its relative --out.
			entries, err := os.ReadDir(wd)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() != strings.Split(out, "/")[0] {
					t.Errorf("the run wrote %s outside --out %s", e.Name(), out)
				}
			}
		})
	}
}
