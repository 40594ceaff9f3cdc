package llvmir

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// ErrToolMissing is wrapped when clang or opt is not installed.
var ErrToolMissing = errors.New("tool not found")

// Tools holds the paths of the LLVM programs the build uses: clang compiles
// the .ll and the C files, opt verifies the IR.
type Tools struct {
	Clang string
	Opt   string
}

// FindTools looks clang and opt up on PATH (Debian's clang 14 and opt 14
// install both names). The error names the missing ones and wraps
// ErrToolMissing.
func FindTools() (Tools, error) {
	var t Tools
	var missing []string
	for _, x := range []struct {
		names []string
		dst   *string
	}{{[]string{"clang", "clang-14"}, &t.Clang}, {[]string{"opt", "opt-14"}, &t.Opt}} {
		for _, n := range x.names {
			if p, err := exec.LookPath(n); err == nil {
				*x.dst = p
				break
			}
		}
		if *x.dst == "" {
			missing = append(missing, x.names[0])
		}
	}
	if len(missing) > 0 {
		return t, fmt.Errorf("llvmir: %s: %w", strings.Join(missing, ", "), ErrToolMissing)
	}
	return t, nil
}

// run runs a program in dir and returns its combined output.
func run(ctx context.Context, dir, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
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

// Verify runs opt -verify on M.ll in dir.
func (t Tools) Verify(ctx context.Context, dir string, md *Model) error {
	_, err := run(ctx, dir, t.Opt, "-verify", "-disable-output", md.Name+".ll")
	return err
}

// Build compiles the files Emit wrote into dir: M.ll and M_wrap.c into
// objects, and M_check.c linked with them into the program M_check. opt is
// clang's optimization flag ("-O2"; "" means -O2). It returns the program's
// path.
func (t Tools) Build(ctx context.Context, dir string, md *Model, opt string) (string, error) {
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

// Check runs the check program on a stimulus and an expected-output file.
// A run that fails vectors is not an error: read Failed.
func Check(ctx context.Context, prog, stimulus, expected string) (CheckResult, error) {
	cmd := exec.CommandContext(ctx, prog, stimulus, expected)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
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
// stimulus (cycled) and returns the measured figures.
func Bench(ctx context.Context, prog string, n int64, stimulus string) ([]BenchResult, error) {
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
