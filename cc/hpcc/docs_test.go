package hpcc

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/telemetry"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of docs/datapath.md")

const docPath = "../../docs/datapath.md"

// docBlocks renders every generated block of docs/datapath.md from the
// default configurations.
func docBlocks(t *testing.T) map[string]string {
	ifa := mustDP(t, DefaultConfigFor(telemetry.IFA))
	cmp := mustDP(t, DefaultConfigFor(telemetry.Compact))
	cfgJSON, err := DefaultConfig().JSON()
	if err != nil {
		t.Fatal(err)
	}
	mqc := DefaultConfig()
	mqc.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	mq := mustDP(t, mqc)
	repM, _ := mqc.RangeAnalysis()
	repI, _ := ifa.cfg.RangeAnalysis()
	repC, _ := cmp.cfg.RangeAnalysis()
	return map[string]string{
		"config-default":    "```json\n" + string(cfgJSON) + "```\n",
		"signals-ifa":       ifa.SignalTableMarkdown(),
		"flowstate-ifa":     ifa.FlowStateMarkdown(),
		"flowstate-compact": cmp.FlowStateMarkdown(),
		"range-ifa":         repI.Markdown(),
		"range-compact":     repC.Markdown(),
		"tables-ifa":        ifa.TablesMarkdown(),
		"tables-compact":    cmp.TablesMarkdown(),
		"bounds-ifa":        ifa.BoundsMarkdown(),
		"bounds-compact":    cmp.BoundsMarkdown(),
		"multiq-signals":    mq.MultiQSignalsMarkdown(),
		"multiq-tables":     mq.TablesMarkdown(),
		"multiq-range":      repM.Markdown(),
		"multiq-bounds":     mq.BoundsMarkdown(),
	}
}

// TestDocsDatapathGenerated: the generated blocks of docs/datapath.md (signal
// table, flow-state bits, range analysis, ROMs, error bounds, default
// config) equal what the code produces; refresh with go test -update.
func TestDocsDatapathGenerated(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	blocks := docBlocks(t)
	out := doc
	for name, want := range blocks {
		begin, end := "<!-- BEGIN generated:"+name+" -->\n", "<!-- END generated:"+name+" -->"
		i := strings.Index(out, begin)
		j := strings.Index(out, end)
		if i < 0 || j < i {
			t.Errorf("docs/datapath.md: block %s missing", name)
			continue
		}
		got := out[i+len(begin) : j]
		if got != want {
			if !*update {
				t.Errorf("docs/datapath.md: block %s is stale (run go test ./cc/hpcc -run DocsDatapath -update)", name)
			}
			out = out[:i+len(begin)] + want + out[j:]
		}
	}
	if *update && out != doc {
		if err := atomicfile.WriteBytes(docPath, 0o644, []byte(out)); err != nil {
			t.Fatal(err)
		}
	}
}
