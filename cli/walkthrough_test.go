package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// reExpect is a walkthrough comment stating the exit status of the command
// above it and, optionally, a text its output contains.
var reExpect = regexp.MustCompile(`^# exit (\d)(?:, prints "(.*)")?$`)

// TestWalkthroughVerifyRTL runs the "Verify your own RTL" walkthrough of
// docs/rtl.md line by line (through Main, in a scratch directory that sees
// the repository's verilog/ directory at the same relative path) and
// checks each command's exit status and quoted output against the comment
// after it: the documentation is the test's input, so it cannot go stale.
func TestWalkthroughVerifyRTL(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp", "yosys")
	raw, err := os.ReadFile("../docs/rtl.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	begin, end := "<!-- BEGIN walkthrough:verify-rtl -->", "<!-- END walkthrough:verify-rtl -->"
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatal("docs/rtl.md: walkthrough block verify-rtl missing")
	}
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(repo, "verilog"), filepath.Join(dir, "verilog")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, ".cache")) // the simulator build cache stays in the scratch directory
	type step struct {
		args []string
		code int
		want string
	}
	var steps []*step
	for _, l := range strings.Split(doc[i+len(begin):j], "\n") {
		switch {
		case strings.HasPrefix(l, "hpccgold "):
			steps = append(steps, &step{args: strings.Fields(l)[1:]})
		case reExpect.MatchString(l):
			if len(steps) == 0 {
				t.Fatalf("expectation %q before any command", l)
			}
			m := reExpect.FindStringSubmatch(l)
			steps[len(steps)-1].code, _ = strconv.Atoi(m[1])
			steps[len(steps)-1].want = m[2]
		}
	}
	if len(steps) < 5 {
		t.Fatalf("walkthrough: %d commands, want at least 5", len(steps))
	}
	for _, s := range steps {
		var out, errb bytes.Buffer
		code := Main(s.args, &out, &errb)
		all := out.String() + errb.String()
		if code != s.code || !strings.Contains(all, s.want) {
			t.Fatalf("hpccgold %s: exit %d, want %d and output containing %q\n%s", strings.Join(s.args, " "), code, s.code, s.want, tailStr(all, 3000))
		}
	}
}

func tailStr(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
