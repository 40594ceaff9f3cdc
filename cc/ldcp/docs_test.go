package ldcp

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/atomicfile"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of docs/ldcp.md")

const docPath = "../../docs/ldcp.md"

// docBlocks renders every generated block of docs/ldcp.md from the default
// configuration.
func docBlocks(t *testing.T) map[string]string {
	c := DefaultConfig()
	d := mustDP(t, c)
	cfgJSON, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"config-default": "```json\n" + string(cfgJSON) + "```\n",
		"flowstate":      d.FlowStateMarkdown(),
		"transactions":   d.TransactionMarkdown(),
		"signals":        d.SignalTableMarkdown(),
		"constants":      d.ConstantsMarkdown(),
		"range":          c.RangeAnalysis().Markdown(),
		"bounds":         d.BoundsMarkdown(),
	}
}

// TestDocsGenerated: the generated blocks of docs/ldcp.md (flow state,
// transactions, signal table, constants and reciprocal unit, range
// analysis, error bounds, default configuration) equal what the code
// produces; refresh with go test ./cc/ldcp -run DocsGenerated -update.
func TestDocsGenerated(t *testing.T) {
	raw, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	out := doc
	blocks := docBlocks(t)
	for _, name := range []string{"config-default", "flowstate", "transactions", "signals", "constants", "range", "bounds"} {
		want := blocks[name]
		begin, end := "<!-- BEGIN generated:"+name+" -->\n", "<!-- END generated:"+name+" -->"
		i := strings.Index(out, begin)
		j := strings.Index(out, end)
		if i < 0 || j < i {
			t.Errorf("docs/ldcp.md: block %s missing", name)
			continue
		}
		if got := out[i+len(begin) : j]; got != want {
			if !*update {
				t.Errorf("docs/ldcp.md: block %s is stale (run go test ./cc/ldcp -run DocsGenerated -update)", name)
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
