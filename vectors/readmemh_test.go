package vectors

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/testtool"
)

// TestReadmemhIcarus checks that a Verilog testbench reads the vector
// files the way this package means them, using only the generated
// fields.vh: Icarus Verilog loads stimulus.hex and expected.hex with
// $readmemh into memories `<MODEL>_IN_WIDTH / _OUT_WIDTH bits wide and
// prints every field of every vector through the _MSB/_LSB defines; the
// oracle is the same fields extracted in Go with fieldtable.Get.
func TestReadmemhIcarus(t *testing.T) {
	tools := testtool.Need(t, "iverilog", "vvp")
	iverilog, vvp := tools[0], tools[1]
	dir := t.TempDir()
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	set, err := Generate(m, Options{Classes: []string{"first_ack", "ts_sec_wrap", "u_at_eta"}, Count: 12, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Write(dir); err != nil {
		t.Fatal(err)
	}
	n := set.Len()
	var tb strings.Builder
	fmt.Fprintf(&tb, "`include \"fields.vh\"\nmodule tb;\n")
	fmt.Fprintf(&tb, "  reg [`HPCC_UPDATE_IN_WIDTH-1:0] stim [0:%d];\n  reg [`HPCC_UPDATE_OUT_WIDTH-1:0] exp [0:%d];\n  integer i;\n", n-1, n-1)
	fmt.Fprintf(&tb, "  initial begin\n    $readmemh(\"stimulus.hex\", stim);\n    $readmemh(\"expected.hex\", exp);\n    for (i = 0; i < %d; i = i + 1) begin\n", n)
	var want strings.Builder
	for k := 0; k < n; k++ {
		for _, tw := range []struct {
			t    fieldtable.Table
			mem  string
			pfx  string
			word []uint64
		}{{set.InputTable(), "stim", "HPCC_UPDATE_IN_", set.Input(k)}, {set.OutputTable(), "exp", "HPCC_UPDATE_OUT_", set.Output(k)}} {
			for _, f := range tw.t.Fields {
				if k == 0 {
					d := tw.pfx + strings.ToUpper(f.Name)
					fmt.Fprintf(&tb, "      $display(\"%%0d %s %%h\", i, %s[i][`%s_MSB:`%s_LSB]);\n", f.Name, tw.mem, d, d)
				}
				fmt.Fprintf(&want, "%d %s %0*x\n", k, f.Name, (f.Width+3)/4, fieldtable.Get(tw.word, f))
			}
		}
	}
	fmt.Fprintf(&tb, "    end\n    $finish;\n  end\nendmodule\n")
	if err := os.WriteFile(filepath.Join(dir, "tb.v"), []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(iverilog, "-g2005", "-I", dir, "-o", filepath.Join(dir, "tb.vvp"), filepath.Join(dir, "tb.v")).CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	cmd := exec.Command(vvp, "-n", "tb.vvp")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	got := string(out)
	if i := strings.Index(got, "tb.v:"); i >= 0 { // "$finish called at" trailer
		got = got[:strings.LastIndex(got[:i], "\n")+1]
	}
	gl, wl := strings.Split(strings.TrimSpace(got), "\n"), strings.Split(strings.TrimSpace(want.String()), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("Icarus printed %d field values, want %d:\n%s", len(gl), len(wl), out)
	}
	t.Logf("%d field values compared", len(wl))
	for i := range wl {
		if strings.TrimSpace(gl[i]) != wl[i] {
			t.Fatalf("line %d: Icarus %q, Go %q", i, gl[i], wl[i])
		}
	}
}
