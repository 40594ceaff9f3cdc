package cosim

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestPortConnectionsInclude checks <module>_connect.vh for hpcc_update at
// 0 and 2 stages and for hpcc_module: its connections name the printed
// module's ports in their declared order (the oracle: the port list parsed
// from the emitted .v), and an instance written with the include compiles
// under Icarus against nets declared from the module's ports.
func TestPortConnectionsInclude(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	tools := verilog.LookupTools()
	for _, stages := range []int{0, 2} {
		dir := t.TempDir()
		em, err := EmitHPCC(dir, hpcc.DefaultConfig(), stages, 4)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*rtl.Module{em.Update, em.Module} {
			if stages == 0 && m == em.Module {
				continue
			}
			inc, err := os.ReadFile(filepath.Join(dir, m.Name+"_connect.vh"))
			if err != nil {
				t.Fatal(err)
			}
			var conn []string
			for _, mm := range regexp.MustCompile(`(?m)^  \.(\w+)\((\w+)\),?$`).FindAllStringSubmatch(string(inc), -1) {
				if mm[1] != mm[2] {
					t.Errorf("%s: .%s(%s): want the net named after the port", m.Name, mm[1], mm[2])
				}
				conn = append(conn, mm[1])
			}
			v, err := os.ReadFile(filepath.Join(dir, m.Name+".v"))
			if err != nil {
				t.Fatal(err)
			}
			head := string(v)[strings.Index(string(v), "module "+m.Name+" ("):]
			head = head[:strings.Index(head, ");")]
			var declared []string
			for _, mm := range regexp.MustCompile(`(?m)(?:input|output)\s+wire\s+(?:\[\d+:0\]\s*)?(\w+)`).FindAllStringSubmatch(head, -1) {
				declared = append(declared, mm[1])
			}
			if strings.Join(conn, ",") != strings.Join(declared, ",") || len(conn) == 0 {
				t.Fatalf("%s, %d stages: the include connects %v, the module declares %v", m.Name, stages, conn, declared)
			}
			if hasClk := conn[0] == "clk"; hasClk != (stages > 0) {
				t.Errorf("%s, %d stages: clk connected %v", m.Name, stages, hasClk)
			}
			// An instance through the include, against nets named after the
			// ports, compiles.
			var tb strings.Builder
			fmt.Fprintf(&tb, "module tb_connect;\n")
			for _, n := range verilog.PortNames(m) {
				w := 1
				for _, in := range m.Inputs {
					if in.Name == n {
						w = in.Width
					}
				}
				kind := "reg"
				for _, o := range m.Outputs {
					if o.Name == n {
						w, kind = o.Node.Width, "wire"
					}
				}
				fmt.Fprintf(&tb, "  %s [%d:0] %s;\n", kind, w-1, n)
			}
			fmt.Fprintf(&tb, "  %s dut (\n`include \"%s_connect.vh\"\n  );\nendmodule\n", m.Name, m.Name)
			if err := os.WriteFile(filepath.Join(dir, "tb_connect.v"), []byte(tb.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"-g2005", "-Wall", "-s", "tb_connect", "-I", dir, "-o", filepath.Join(dir, "tb_connect.vvp"), filepath.Join(dir, "tb_connect.v")}
			for _, f := range verilog.ModuleFiles(m) {
				args = append(args, filepath.Join(dir, f))
			}
			if out, err := exec.Command(tools.Iverilog, args...).CombinedOutput(); err != nil {
				t.Fatalf("%s, %d stages: iverilog with the include: %v\n%s", m.Name, stages, err, out)
			}
		}
	}
}
