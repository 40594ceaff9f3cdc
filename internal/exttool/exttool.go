package exttool

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrMissing is wrapped by every MissingError: a program a flow runs is not
// installed.
var ErrMissing = errors.New("tool not found")

// Look returns the path of the first of names found on PATH, or "" when
// none is. Alternatives name one program (Debian's clang 14 installs both
// clang and clang-14).
func Look(names ...string) string {
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// Program is one program a flow runs: its name on PATH and the path found
// for it ("" when it is not installed).
type Program struct {
	Name string
	Path string
}

// Need returns nil when every program has a path, else a *MissingError for
// flow naming, in the order given, those that do not.
func Need(flow string, progs ...Program) error {
	var missing []string
	for _, p := range progs {
		if p.Path == "" {
			missing = append(missing, p.Name)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return &MissingError{Flow: flow, Programs: missing}
}

// MissingError says which programs a flow needs that are not installed and
// how to install them.
type MissingError struct {
	Flow     string   // what cannot run, e.g. "verilog: lint"
	Programs []string // the missing programs, by name
}

// Error reads "<flow>: iverilog, vvp: tool not found (install with:
// apt-get install -y iverilog)"; the install clause is left out when no
// missing program has a known package.
func (e *MissingError) Error() string {
	s := fmt.Sprintf("%s: %s: %v", e.Flow, strings.Join(e.Programs, ", "), ErrMissing)
	if c := e.InstallCommand(); c != "" {
		s += " (install with: " + c + ")"
	}
	return s
}

// Unwrap returns ErrMissing.
func (e *MissingError) Unwrap() error { return ErrMissing }

// Packages returns the Debian packages that install the missing programs,
// each once, in the order of Programs; programs of unknown package are
// left out.
func (e *MissingError) Packages() []string {
	var debs []string
	for _, p := range e.Programs {
		d := Package(p)
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

// InstallCommand returns "apt-get install -y <packages>" for the missing
// programs, or "" when none has a known package.
func (e *MissingError) InstallCommand() string {
	debs := e.Packages()
	if len(debs) == 0 {
		return ""
	}
	return "apt-get install -y " + strings.Join(debs, " ")
}

// Package returns the Debian (bookworm) package that installs the program
// name, or "" for a program it does not know. Source: the packages' file
// lists (vvp ships in iverilog, opt and llc in llvm, clang-14 in clang-14
// which the clang package pulls in).
func Package(name string) string {
	switch name {
	case "verilator", "iverilog", "yosys", "clang", "make", "g++":
		return name
	case "vvp":
		return "iverilog"
	case "clang-14":
		return "clang"
	case "opt", "opt-14", "llc", "llc-14":
		return "llvm"
	}
	return ""
}

// Abs returns path made absolute against the working directory; the error
// names the path.
func Abs(path string) (string, error) {
	a, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("absolute path of %q: %w", path, err)
	}
	return a, nil
}

// Command returns the command running program name with args in the
// directory dir ("" for the caller's own). dir, and name when it holds a
// path separator (a program given by path rather than looked up on PATH),
// are made absolute first: Go resolves a relative program path against
// dir, and the program resolves relative paths against dir, so a path
// relative to the caller's working directory would name another file.
func Command(ctx context.Context, dir, name string, args ...string) (*exec.Cmd, error) {
	if strings.ContainsRune(name, filepath.Separator) && !filepath.IsAbs(name) {
		a, err := Abs(name)
		if err != nil {
			return nil, err
		}
		name = a
	}
	cmd := exec.CommandContext(ctx, name, args...)
	if dir != "" {
		a, err := Abs(dir)
		if err != nil {
			return nil, err
		}
		cmd.Dir = a
	}
	return cmd, nil
}
