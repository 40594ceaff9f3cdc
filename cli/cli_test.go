package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/buildinfo"
)

// TestMain_ exercises the dispatcher: help, version, unknown command.
func TestMainDispatch(t *testing.T) {
	cases := []struct {
		args     []string
		code     int
		inStdout string
		inStderr string
	}{
		{[]string{"--help"}, 0, "Commands:", ""},
		{[]string{"version"}, 0, buildinfo.Version, ""},
		{[]string{"version", "extra"}, 2, "", `unexpected argument "extra"`},
		{[]string{"nosuch"}, 2, "", `unknown command "nosuch"`},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		code := Main(c.args, &out, &errb)
		if code != c.code || !strings.Contains(out.String(), c.inStdout) || !strings.Contains(errb.String(), c.inStderr) {
			t.Errorf("Main(%q) = %d, stdout %q, stderr %q; want %d, stdout containing %q, stderr containing %q",
				c.args, code, out.String(), errb.String(), c.code, c.inStdout, c.inStderr)
		}
	}
}
