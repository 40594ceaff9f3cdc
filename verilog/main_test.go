package verilog

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/exttool"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl"
)

// buildCache holds simulator builds for one run of the test binary, so a
// design compiled by one test is reused by the next.
var buildCache string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "hpccgold-verilog-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	buildCache = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// needTools returns the tools after checking that the programs of flows
// are installed, failing the test when one is missing and
// HPCCGOLD_REQUIRE_TOOLS=1 (CI), skipping it otherwise. A program of
// another flow is not asked for.
func needTools(t *testing.T, flows ...Flow) Tools {
	t.Helper()
	tools := LookupTools()
	err := tools.Need(flows...)
	var me *exttool.MissingError
	var progs []string
	if errors.As(err, &me) {
		progs = me.Programs
	}
	testtool.Require(t, err, ErrToolMissing, progs...)
	return tools
}

// simulateVectors runs n vectors from dir through the rtl evaluator.
func simulateVectors(m *rtl.Module, in, out fieldtable.Table, dir string, n int) (EvalResult, error) {
	stim, err := ReadVectors(filepath.Join(dir, "stimulus.hex"), in, n)
	if err != nil {
		return EvalResult{}, err
	}
	exp, err := ReadVectors(filepath.Join(dir, "expected.hex"), out, n)
	if err != nil {
		return EvalResult{}, err
	}
	b := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid"}
	return b.Evaluate(stim, exp, 0)
}

// mutation is one deliberate bug planted in emitted Verilog text.
type mutation struct {
	name, what string
	re         *regexp.Regexp
	repl       func(sub []string) string
}

func (mu mutation) apply(src string) (string, error) {
	loc := mu.re.FindStringSubmatchIndex(src)
	if loc == nil {
		return "", fmt.Errorf("pattern %s not found", mu.re)
	}
	var sub []string
	for i := 0; i < len(loc); i += 2 {
		sub = append(sub, src[loc[i]:loc[i+1]])
	}
	return src[:loc[0]] + mu.repl(sub) + src[loc[1]:], nil
}

var unitMutations = []mutation{
	{"rom", "ROM entry 5 off by one LSB",
		regexp.MustCompile(`(8'd5: recip_rom\w* = 17'h)([0-9a-f]+);`),
		func(s []string) string {
			v, _ := strconv.ParseUint(s[2], 16, 64)
			return fmt.Sprintf("%s%05x;", s[1], v+1)
		}},
	{"rounding", "first rounding increment forced to 0 (round-to-nearest becomes truncation)",
		regexp.MustCompile(`(wire rnd_inc\w* = )([^;]+);`),
		func(s []string) string { return s[1] + "1'b0;" }},
	{"compare", "a < b becomes a <= b",
		regexp.MustCompile(`(wire a_lt_b\w* = [^;<]+)<([^;]+;)`),
		func(s []string) string { return s[1] + "<=" + s[2] }},
}
