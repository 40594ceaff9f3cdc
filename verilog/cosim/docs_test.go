package cosim

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/verilog"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of docs/rtl.md")

const rtlDoc = "../../docs/rtl.md"

// rePort matches one port declaration of the printer's ANSI port list
// (verilog.Print): direction, optional [W-1:0] range, name.
var rePort = regexp.MustCompile(`^\s*(?:/\*[^*]*\*/\s*)?(input|output)\s+wire\s+(?:\[(\d+):0\]\s+)?([A-Za-z_][A-Za-z0-9_]*)`)

// printedPorts parses the port list of the module printed first in files
// (the printer writes one module per file, callees first, so the top
// module's file is the last).
func printedPorts(t *testing.T, m *rtl.Module) verilog.Interface {
	t.Helper()
	files, err := verilog.PrintAll(m)
	if err != nil {
		t.Fatal(err)
	}
	src := string(files[len(files)-1].Data)
	i := strings.Index(src, "module "+m.Name+" (")
	j := strings.Index(src[i:], ");")
	it := verilog.Interface{Name: m.Name}
	for _, l := range strings.Split(src[i:i+j], "\n")[1:] {
		if strings.TrimSpace(l) == "" {
			continue
		}
		mm := rePort.FindStringSubmatch(l)
		if mm == nil {
			t.Fatalf("%s: port line %q not parsed", m.Name, l)
		}
		w := 1
		if mm[2] != "" {
			w, _ = strconv.Atoi(mm[2])
			w++
		}
		it.Ports = append(it.Ports, verilog.Port{Name: mm[3], Width: w, Output: mm[1] == "output"})
	}
	return it
}

// portDesign is one design's port list at each pipeline depth, with the
// field tables that give each port's format and meaning.
type portDesign struct {
	name    string
	stages  []int
	build   func(stages int) (*rtl.Module, error)
	in, out fieldtable.Table
	hand    map[string]string // handshake and clock ports: meaning
}

func portDesigns(t *testing.T) []portDesign {
	cfg := hpcc.DefaultConfig()
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lcfg := ldcp.DefaultConfig()
	lm, err := ldcpvec.New(lcfg)
	if err != nil {
		t.Fatal(err)
	}
	mopts := hpccrtl.ModuleOptions{FlowBits: 4}
	min, mout, err := hpccrtl.ModuleTables(cfg, mopts)
	if err != nil {
		t.Fatal(err)
	}
	clk := map[string]string{
		"clk":       "clock, rising edge",
		"rst":       "synchronous reset, active high",
		"in_valid":  "a transaction is offered this cycle",
		"out_valid": "the outputs hold the result of the input offered Stages cycles earlier",
		"ev_valid":  "an event is offered this cycle",
		"ev_ready":  "the offered event is taken this cycle",
		"upd_valid": "the upd_* outputs hold an update",
	}
	return []portDesign{
		{name: "hpcc_update", stages: []int{0, 1, 2, 3, 4, 5, 6}, in: d.InputTable(), out: d.OutputTable(), hand: clk,
			build: func(s int) (*rtl.Module, error) { m, _, err := hpccrtl.Update(cfg, s); return m, err }},
		{name: "hpcc_module", stages: []int{0, 1, 2, 3}, in: min, out: mout, hand: clk,
			build: func(s int) (*rtl.Module, error) {
				o := mopts
				o.Stages = s
				return hpccrtl.Module(cfg, o)
			}},
		{name: "ldcp_update", stages: []int{0, 1, 2, 3, 4}, in: lm.Input(), out: lm.Output(), hand: clk,
			build: func(s int) (*rtl.Module, error) { m, _, err := ldcprtl.Update(lcfg, s); return m, err }},
	}
}

// portsMarkdown renders a design's port table: every port in the emitted
// order, with the pipeline depths at which it exists.
func portsMarkdown(t *testing.T, pd portDesign) string {
	type row struct {
		p      verilog.Port
		stages []int
	}
	var rows []*row
	idx := map[string]*row{}
	for _, s := range pd.stages {
		m, err := pd.build(s)
		if err != nil {
			t.Fatal(err)
		}
		it := verilog.ModuleInterface(m)
		if pr := printedPorts(t, m); fmt.Sprint(pr) != fmt.Sprint(it) {
			t.Fatalf("%s --stages %d: ModuleInterface\n%v\nprinted ports\n%v", pd.name, s, it, pr)
		}
		pos := 0
		for _, p := range it.Ports {
			r := idx[p.Name]
			if r == nil {
				r = &row{p: p}
				idx[p.Name] = r
				rows = append(rows[:pos], append([]*row{r}, rows[pos:]...)...)
			}
			for k, x := range rows {
				if x == r {
					pos = k + 1
				}
			}
			r.stages = append(r.stages, s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "| # | port | dir | bits | format | present | meaning |\n|---|---|---|---|---|---|---|\n")
	for i, r := range rows {
		dir, format, doc := "in", "bool", pd.hand[r.p.Name]
		if r.p.Output {
			dir = "out"
		}
		tab := pd.in
		if r.p.Output {
			tab = pd.out
		}
		if k := tab.Index(r.p.Name); k >= 0 {
			format, doc = tab.Fields[k].Format, tab.Fields[k].Doc
		}
		present := "always"
		if len(r.stages) != len(pd.stages) {
			if r.stages[0] == 1 && len(r.stages) == len(pd.stages)-1 {
				present = "stages >= 1"
			} else {
				present = fmt.Sprint(r.stages)
			}
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s | %d | %s | %s | %s |\n", i, r.p.Name, dir, r.p.Width, format, present, strings.ReplaceAll(doc, "|", "\\|"))
	}
	return b.String()
}

// TestDocsPorts: docs/rtl.md lists every emitted module's ports exactly as
// printed (names, order, widths, direction) at every pipeline depth,
// including 0, where hpcc_update and ldcp_update have no clk and rst; the
// port list is parsed from the printed Verilog. Refresh with
// go test ./verilog/cosim -run DocsPorts -update.
func TestDocsPorts(t *testing.T) {
	raw, err := os.ReadFile(rtlDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	out := doc
	for _, pd := range portDesigns(t) {
		name := "ports-" + pd.name
		want := portsMarkdown(t, pd)
		begin, end := "<!-- BEGIN generated:"+name+" -->\n", "<!-- END generated:"+name+" -->"
		i, j := strings.Index(out, begin), strings.Index(out, end)
		if i < 0 || j < i {
			t.Errorf("docs/rtl.md: block %s missing", name)
			continue
		}
		if out[i+len(begin):j] != want {
			if !*update {
				t.Errorf("docs/rtl.md: block %s is stale (run go test ./verilog/cosim -run DocsPorts -update)", name)
			}
			out = out[:i+len(begin)] + want + out[j:]
		}
	}
	if *update && out != doc {
		if err := atomicfile.WriteBytes(rtlDoc, 0o644, []byte(out)); err != nil {
			t.Fatal(err)
		}
	}
}
