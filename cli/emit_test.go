package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmitVerilog checks that emit verilog writes every module, testbench
// and layout file, that the output is byte-identical across runs (no
// timestamps or paths), and that a missing --out is a usage error.
func TestEmitVerilog(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		var out, errb bytes.Buffer
		if code := Main([]string{"emit", "verilog", "--stages", "2", "--flow-bits", "3", "--out", d}, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		if !strings.Contains(out.String(), "same-flow spacing 3 cycles") {
			t.Errorf("summary missing: %s", out.String())
		}
	}
	for _, name := range []string{"hpcc_update.v", "hpcc_module.v", "tb_hpcc_update.v", "tb_hpcc_module.v", "hpcc_update_in.vh", "hpcc_module_out.json"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dirs[1], name))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
		if strings.HasSuffix(name, ".v") && !strings.Contains(string(a), "DO NOT EDIT") {
			t.Errorf("%s has no DO NOT EDIT header", name)
		}
	}
	var out, errb bytes.Buffer
	if code := Main([]string{"emit", "verilog"}, &out, &errb); code != 2 || !strings.Contains(errb.String(), "--out is required") {
		t.Errorf("emit verilog without --out: exit %d, stderr %q", code, errb.String())
	}
}
