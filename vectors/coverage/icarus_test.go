package coverage

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestSVCountersIcarus compiles the bins as the exported counters module
// (the covergroup's coverpoint expressions, guards and value sets as
// logic) with the flat printed hpcc_update under Icarus (-g2012), runs a
// vector set through it, and requires every bin's count to equal the Go
// sampler's (the oracle). Icarus and Verilator 5.006 do not accept
// covergroups; this checks everything in the covergroup file but the
// covergroup syntax itself.
func TestSVCountersIcarus(t *testing.T) {
	testtool.Need(t, "iverilog", "vvp")
	cfg := hpcc.DefaultConfig()
	cm, err := ForHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := vectors.NewHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	set, err := vectors.Generate(vm, vectors.Options{Level: 1, Seed: 5, Count: 300, NoJSONL: true,
		Classes: []string{"first_ack", "egress_carry_edges", "egress_carry_illegal_rx", "hop_term_extremes", "u_at_eta", "w_at_max", "u_tie"}})
	if err != nil {
		t.Fatal(err)
	}
	counts, err := cm.Run(t.Context(), grade.FromSet(set, "icarus"), 1)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	dut, err := verilog.Print(cm.Flat())
	if err != nil {
		t.Fatal(err)
	}
	var cnt strings.Builder
	if err := cm.WriteSVCounters(&cnt); err != nil {
		t.Fatal(err)
	}
	in := vm.Input()
	var stim strings.Builder
	for k := 0; k < set.Len(); k++ {
		w := set.Input(k)
		stim.WriteString(hexWord(w, in.Width) + "\n")
	}
	var tb strings.Builder
	fmt.Fprintf(&tb, "module tb;\n  reg clk = 0;\n  reg [%d:0] stim [0:%d];\n  reg [%d:0] cur;\n", in.Width-1, set.Len()-1, in.Width-1)
	fmt.Fprintf(&tb, "  hpcc_update dut(\n")
	for i, f := range in.Fields {
		sep := ","
		if i == len(in.Fields)-1 {
			sep = ""
		}
		fmt.Fprintf(&tb, "    .%s(cur[%d:%d])%s\n", f.Name, f.Offset+f.Width-1, f.Offset, sep)
	}
	total, _, _ := cm.Bins()
	fmt.Fprintf(&tb, "  );\n  hpcc_update_cov_count cov(.clk(clk), .sample(1'b1));\n  integer k;\n  initial begin\n    $readmemh(\"stim.hex\", stim);\n")
	fmt.Fprintf(&tb, "    for (k = 0; k < %d; k = k + 1) begin cur = stim[k]; #1 clk = 1; #1 clk = 0; end\n", set.Len())
	fmt.Fprintf(&tb, "    for (k = 0; k < %d; k = k + 1) $display(\"%%0d %%0d\", k, cov.cnt[k]);\n    $finish;\n  end\nendmodule\n", total)
	for name, text := range map[string]string{"dut.v": string(dut), "cnt.v": cnt.String(), "tb.v": tb.String(), "stim.hex": stim.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	comp := exec.Command("iverilog", "-g2012", "-o", "sim.vvp", "dut.v", "cnt.v", "tb.v")
	comp.Dir = dir
	if out, err := comp.CombinedOutput(); err != nil {
		t.Fatalf("iverilog: %v\n%s", err, out)
	}
	run := exec.Command("vvp", "-n", "sim.vvp")
	run.Dir = dir
	out, err := run.Output()
	if err != nil {
		t.Fatalf("vvp: %v\n%s", err, out)
	}
	var got []uint64
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) != 2 {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			t.Fatalf("vvp output %q", l)
		}
		got = append(got, n)
	}
	if len(got) != total {
		t.Fatalf("Icarus printed %d counters, the model has %d bins", len(got), total)
	}
	k, bad := 0, 0
	for p, pt := range cm.Points {
		for b, bin := range pt.Bins {
			if got[k] != counts.Bins[p][b] {
				if bad++; bad <= 10 {
					t.Errorf("%s.%s: Icarus counted %d, the sampler %d", pt.Name, bin.Name, got[k], counts.Bins[p][b])
				}
			}
			k++
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d bins differ", bad, total)
	}
}

// hexWord formats the low w bits of a packed word as $readmemh hex.
func hexWord(words []uint64, w int) string {
	digits := (w + 3) / 4
	var b strings.Builder
	for d := digits - 1; d >= 0; d-- {
		v := 0
		for bit := 3; bit >= 0; bit-- {
			i := 4*d + bit
			if i < w && words[i/64]>>(i%64)&1 != 0 {
				v |= 1 << bit
			}
		}
		b.WriteByte("0123456789abcdef"[v])
	}
	return b.String()
}
