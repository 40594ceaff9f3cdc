package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compare: bad input exits 2 naming the problem; a small run over two
// congestion controls prints one table row per congestion control and
// writes the table, CSV, configuration, plots and a manifest; two runs
// print the same table (wall-clock times go to stderr only).
func TestCompare(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "--scenario is required"},
		{[]string{"compare", "--scenario", "nosuch"}, `unknown scenario "nosuch"`},
		{[]string{"compare", "--scenario", "demo-incast-4to1", "--ccs", "ldcp,dctcp"}, `cc="dctcp"`},
		{[]string{"compare", "--scenario", "demo-incast-4to1", "x"}, "unexpected argument"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	small := filepath.Join(dir, "small.json")
	os.WriteFile(small, []byte(`{"traffic": {"incast": [{"senders": [0, 1], "receiver": 4, "bytes": 30000}]}}`), 0o644)
	out := filepath.Join(dir, "out")
	var tables [2]string
	for i := range tables {
		code, stdout, errs := runCLI("compare", "--scenario", "demo-incast-4to1", "--config", small, "--ccs", "ldcp,dcqcn", "--out", out)
		if code != 0 {
			t.Fatalf("compare: exit %d: %s", code, errs)
		}
		if !strings.Contains(stdout, "| ldcp ") || !strings.Contains(stdout, "| dcqcn ") || strings.Contains(stdout, "| hpcc ") ||
			!strings.Contains(stdout, "wrote 8 files") || !strings.Contains(errs, "s wall") {
			t.Errorf("compare output:\n%s\nstderr:\n%s", stdout, errs)
		}
		tables[i] = stdout
	}
	if tables[0] != tables[1] {
		t.Errorf("two runs print different tables:\n%s\n%s", tables[0], tables[1])
	}
	for _, f := range []string{"compare.txt", "compare.csv", "config.json", "queue.png", "queue.svg", "utilization.png",
		"utilization.svg", "manifest.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s: %v", f, err)
		}
	}
}
