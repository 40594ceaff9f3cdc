package testtool

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// EnvRequire is the environment variable that turns a missing tool from a
// skip into a failure when it is set to "1".
const EnvRequire = "HPCCGOLD_REQUIRE_TOOLS"

// Need looks each tool up on PATH and returns their paths in the order
// given. When any is missing it applies the rule through Missing, naming
// every missing tool and its Debian package, so Need returns only when all
// are present.
func Need(t testing.TB, tools ...string) []string {
	t.Helper()
	paths := make([]string, len(tools))
	var missing []string
	for i, name := range tools {
		p, err := exec.LookPath(name)
		if err != nil {
			missing = append(missing, name)
			continue
		}
		paths[i] = p
	}
	if len(missing) > 0 {
		Missing(t, strings.Join(missing, ", ")+" not found on PATH", packages(missing)...)
	}
	return paths
}

// Require applies the rule to err, the result of a package's own tool
// lookup. A nil err returns. An err wrapping missing (the package's
// ErrToolMissing) is a missing tool: Missing is applied with the Debian
// packages of tools, the programs the lookup searches for. Any other error
// fails the test whatever EnvRequire says.
func Require(t testing.TB, err, missing error, tools ...string) {
	t.Helper()
	if err == nil {
		return
	}
	if !errors.Is(err, missing) {
		t.Fatal(err)
	}
	Missing(t, err.Error(), packages(tools)...)
}

// Missing applies the rule to a tool found missing or unusable: what says
// which and why, debs are the Debian packages that provide it. It fails the
// test when EnvRequire is "1" and skips it otherwise; it never returns.
func Missing(t testing.TB, what string, debs ...string) {
	t.Helper()
	msg := what
	if len(debs) > 0 {
		msg = fmt.Sprintf("%s (install with: apt-get install -y %s)", what, strings.Join(debs, " "))
	}
	if os.Getenv(EnvRequire) == "1" {
		t.Fatalf("%s; %s=1, so this is a failure", msg, EnvRequire)
	}
	t.Skip(msg)
}

// Package returns the Debian package that installs the program tool, or ""
// for a program it does not know.
func Package(tool string) string {
	switch tool {
	case "g++", "make", "verilator", "iverilog", "yosys", "clang", "tshark":
		return tool
	case "vvp":
		return "iverilog"
	case "clang++", "clang-14":
		return "clang"
	case "opt", "opt-14", "llc", "llc-14":
		return "llvm"
	case "vcd2fst", "fst2vcd", "gtkwave":
		return "gtkwave"
	}
	return ""
}

// packages returns the Debian packages of tools, each once, in first-use
// order; unknown tools are left out.
func packages(tools []string) []string {
	var debs []string
	for _, tool := range tools {
		d := Package(tool)
		if d == "" {
			continue
		}
		seen := false
		for _, x := range debs {
			seen = seen || x == d
		}
		if !seen {
			debs = append(debs, d)
		}
	}
	return debs
}
