package cosim

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestPackageLayout compiles the emitted hpcc_update_pkg.sv (packed structs)
// and hpcc_update_bus.v (Verilog-2005 pack/unpack) under Icarus with a
// testbench that reads random words of both layouts, prints every field
// through the struct and through the unpack module, and packs them back;
// every field must equal fieldtable.Get of the word (the oracle: the field
// table the vector files are written with), and pack(unpack(w)) = w. The
// struct is also linted by Verilator. Icarus reads the packed struct as
// SystemVerilog (-g2012).
func TestPackageLayout(t *testing.T) {
	needTools(t, verilog.FlowIcarus, verilog.FlowLint)
	dir := t.TempDir()
	if _, err := EmitHPCC(dir, hpcc.DefaultConfig(), 2, 4); err != nil {
		t.Fatal(err)
	}
	d, err := hpcc.NewDatapath(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	tabs := []fieldtable.Table{d.InputTable(), d.OutputTable()}
	const n = 8
	r := rand.New(rand.NewSource(5))
	words := make([][][]uint64, len(tabs))
	var tb strings.Builder
	tb.WriteString("module tb_pkg;\n  import hpcc_update_pkg::*;\n")
	for k, tab := range tabs {
		var hex []byte
		for i := 0; i < n; i++ {
			w := make([]uint64, tab.Words())
			for _, f := range tab.Fields {
				fieldtable.PutBits(w, f.Offset, f.Width, r.Uint64())
			}
			words[k] = append(words[k], w)
			hex = append(tab.AppendHex(hex, w), '\n')
		}
		if err := os.WriteFile(filepath.Join(dir, tab.Name+".hex"), hex, 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&tb, "  reg [%d:0] m%d [0:%d];\n  reg [%d:0] w%d;\n  %s_t s%d;\n  wire [%d:0] back%d;\n",
			tab.Width-1, k, n-1, tab.Width-1, k, tab.Name, k, tab.Width-1, k)
		var un, pk []string
		for _, f := range tab.Fields {
			fmt.Fprintf(&tb, "  wire %s u%d_%s;\n", rngW(f.Width), k, f.Name)
			un = append(un, fmt.Sprintf(".%s(u%d_%s)", f.Name, k, f.Name))
			pk = append(pk, fmt.Sprintf(".%s(u%d_%s)", f.Name, k, f.Name))
		}
		fmt.Fprintf(&tb, "  %s_unpack un%d (.bus(w%d), %s);\n", tab.Name, k, k, strings.Join(un, ", "))
		fmt.Fprintf(&tb, "  %s_pack pk%d (.bus(back%d), %s);\n", tab.Name, k, k, strings.Join(pk, ", "))
	}
	tb.WriteString("  integer i;\n  initial begin\n")
	for k, tab := range tabs {
		fmt.Fprintf(&tb, "    $readmemh(\"%s.hex\", m%d);\n    for (i = 0; i < %d; i = i + 1) begin\n      w%d = m%d[i];\n      s%d = m%d[i];\n      #1;\n",
			tab.Name, k, n, k, k, k, k)
		for _, f := range tab.Fields {
			fmt.Fprintf(&tb, "      $display(\"%d %%0d %s %%h %%h\", i, s%d.%s, u%d_%s);\n", k, f.Name, k, f.Name, k, f.Name)
		}
		fmt.Fprintf(&tb, "      if (back%d !== w%d) $display(\"PACK %d %%0d\", i);\n    end\n", k, k, k)
	}
	tb.WriteString("    $finish;\n  end\nendmodule\n")
	if err := os.WriteFile(filepath.Join(dir, "tb_pkg.sv"), []byte(tb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(name string, args ...string) string {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	run("verilator", "--lint-only", "-Wall", "--top-module", "hpcc_update_in_unpack", "hpcc_update_pkg.sv", "hpcc_update_bus.v")
	run("iverilog", "-g2012", "-o", "tb_pkg.vvp", "-s", "tb_pkg", "hpcc_update_pkg.sv", "hpcc_update_bus.v", "tb_pkg.sv")
	out := run("vvp", "-n", "tb_pkg.vvp")
	if strings.Contains(out, "PACK") {
		t.Errorf("pack(unpack(w)) != w:\n%s", out)
	}
	checked := 0
	for _, l := range strings.Split(out, "\n") {
		fs := strings.Fields(l)
		if len(fs) != 5 {
			continue
		}
		k, _ := strconv.Atoi(fs[0])
		i, _ := strconv.Atoi(fs[1])
		tab := tabs[k]
		f := tab.Fields[tab.Index(fs[2])]
		want := fieldtable.Get(words[k][i], f)
		s, _ := strconv.ParseUint(fs[3], 16, 64)
		u, _ := strconv.ParseUint(fs[4], 16, 64)
		if s != want || u != want {
			t.Errorf("%s vector %d field %s: struct %#x, unpack %#x, want %#x", tab.Name, i, f.Name, s, u, want)
		}
		checked++
	}
	if want := n * (len(tabs[0].Fields) + len(tabs[1].Fields)); checked != want {
		t.Errorf("checked %d fields, want %d\n%s", checked, want, out)
	}
}

func rngW(w int) string {
	if w == 1 {
		return ""
	}
	return fmt.Sprintf("[%d:0]", w-1)
}
