package llvmir

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/internal/exttool"
)

// ErrToolMissing is wrapped when clang or opt is not installed (the error
// is a *exttool.MissingError naming the programs and the install command).
var ErrToolMissing = exttool.ErrMissing

// Tools holds the paths of the LLVM programs the build uses: clang compiles
// the .ll and the C files, opt verifies the IR. An empty path is a program
// that is not installed; Verify needs only opt and Build only clang.
type Tools struct {
	Clang string
	Opt   string
}

// LookupTools looks clang and opt up on PATH (Debian's clang 14 and opt 14
// install both the plain and the -14 names); missing ones are left empty.
// It never fails: Verify and Build check their own program.
func LookupTools() Tools {
	return Tools{Clang: exttool.Look("clang", "clang-14"), Opt: exttool.Look("opt", "opt-14")}
}

// FindTools is LookupTools for callers that need both programs: the error
// names the missing ones with the install command and wraps
// ErrToolMissing.
func FindTools() (Tools, error) {
	t := LookupTools()
	return t, exttool.Need("llvmir", exttool.Program{Name: "clang", Path: t.Clang}, exttool.Program{Name: "opt", Path: t.Opt})
}

// NeedVerify returns nil when Verify can run (opt is installed), else an
// error wrapping ErrToolMissing with the install command.
func (t Tools) NeedVerify() error {
	return exttool.Need("llvmir: verify", exttool.Program{Name: "opt", Path: t.Opt})
}

// NeedBuild returns nil when Build can run (clang is installed), else an
// error wrapping ErrToolMissing with the install command.
func (t Tools) NeedBuild() error {
	return exttool.Need("llvmir: build", exttool.Program{Name: "clang", Path: t.Clang})
}

// run runs a program in dir (both made absolute by exttool.Command, so
// relative paths work wherever the caller runs) and returns its combined
// output.
func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd, err := exttool.Command(ctx, dir, name, args...)
	if err != nil {
		return "", fmt.Errorf("llvmir: %w", err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		s := out.String()
		if len(s) > 4000 {
			s = s[:4000] + "\n..."
		}
		return out.String(), fmt.Errorf("llvmir: %s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, s)
	}
	return out.String(), nil
}

// Verify runs opt -verify on M.ll in dir (NeedVerify).
func (t Tools) Verify(ctx context.Context, dir string, md *Model) error {
	if err := t.NeedVerify(); err != nil {
		return err
	}
	_, err := run(ctx, dir, t.Opt, "-verify", "-disable-output", md.Name+".ll")
	return err
}

// Build compiles the files Emit wrote into dir: M.ll and M_wrap.c into
// objects, and M_check.c linked with them into the program M_check. opt is
// clang's optimization flag ("-O2"; "" means -O2). It returns the program's
// absolute path (dir may be relative to the working directory). It needs
// clang only (NeedBuild).
func (t Tools) Build(ctx context.Context, dir string, md *Model, opt string) (string, error) {
	if err := t.NeedBuild(); err != nil {
		return "", err
	}
	dir, err := exttool.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("llvmir: build: %w", err)
	}
	if opt == "" {
		opt = "-O2"
	}
	M := md.Name
	steps := [][]string{
		{opt, "-c", M + ".ll", "-o", M + ".o"},
		{opt, "-std=c99", "-Wall", "-Wextra", "-Werror", "-c", M + "_wrap.c", "-o", M + "_wrap.o"},
		{opt, "-std=c99", "-Wall", "-Wextra", "-Werror", M + "_check.c", M + "_wrap.o", M + ".o", "-o", M + "_check"},
	}
	for _, s := range steps {
		if _, err := run(ctx, dir, t.Clang, s...); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, M+"_check"), nil
}

// CheckResult is the outcome of a check-program run over a vector set.
type CheckResult struct {
	Passed, Failed int
	Report         string // the program's output: mismatches field by field, then the summary
}

var summaryRE = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed$`)

// Check runs the check program prog (a path) on a stimulus and an expected-output file
// (each path absolute or relative to the working directory).
// A run that fails vectors is not an error: read Failed.
func Check(ctx context.Context, prog, stimulus, expected string) (CheckResult, error) {
	// A program path, never a name looked up on PATH.
	prog, err := exttool.Abs(prog)
	if err != nil {
		return CheckResult{}, fmt.Errorf("llvmir: check: %w", err)
	}
	cmd, err := exttool.Command(ctx, "", prog, stimulus, expected)
	if err != nil {
		return CheckResult{}, fmt.Errorf("llvmir: check: %w", err)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err = cmd.Run()
	r := CheckResult{Report: out.String()}
	m := summaryRE.FindStringSubmatch(r.Report)
	if m == nil {
		return r, fmt.Errorf("llvmir: %s: no summary line (%v)\n%s", filepath.Base(prog), err, r.Report)
	}
	r.Passed, _ = strconv.Atoi(m[1])
	r.Failed, _ = strconv.Atoi(m[2])
	return r, nil
}

// BenchResult is one entry's figure from the check program's -bench mode.
type BenchResult struct {
	Entry         string // "c" (plain C entry) or "dpi"
	Updates       int64
	Seconds       float64
	UpdatesPerSec float64
}

var benchRE = regexp.MustCompile(`(?m)^entry=(\w+) updates=(\d+) seconds=([0-9.]+) updates_per_s=([0-9.]+)$`)

// Bench runs n updates per entry of the check program over the vectors of
// stimulus (cycled; both paths absolute or relative to the working
// directory) and returns the measured figures.
func Bench(ctx context.Context, prog string, n int64, stimulus string) ([]BenchResult, error) {
	// The program runs in its own directory: a relative stimulus path
	// would be read from there.
	stimulus, err := exttool.Abs(stimulus)
	if err != nil {
		return nil, fmt.Errorf("llvmir: bench: %w", err)
	}
	if prog, err = exttool.Abs(prog); err != nil {
		return nil, fmt.Errorf("llvmir: bench: %w", err)
	}
	out, err := run(ctx, filepath.Dir(prog), prog, "-bench", strconv.FormatInt(n, 10), stimulus)
	if err != nil {
		return nil, err
	}
	var rs []BenchResult
	for _, m := range benchRE.FindAllStringSubmatch(out, -1) {
		r := BenchResult{Entry: m[1]}
		r.Updates, _ = strconv.ParseInt(m[2], 10, 64)
		r.Seconds, _ = strconv.ParseFloat(m[3], 64)
		r.UpdatesPerSec, _ = strconv.ParseFloat(m[4], 64)
		rs = append(rs, r)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("llvmir: %s -bench: no figures in output\n%s", filepath.Base(prog), out)
	}
	return rs, nil
}
