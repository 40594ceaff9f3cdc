package vectors

import (
	"os"
	"strings"
	"testing"
)

// TestDocsListEveryClass keeps docs/vectors.md true to the code: every
// class and cover point of the tested HPCC configurations is named there
// (numbered families such as hops_<n> and speed_code_<c> by their stem).
func TestDocsListEveryClass(t *testing.T) {
	b, err := os.ReadFile("../docs/vectors.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for name, cfg := range hpccConfigs() {
		m, err := NewHPCC(cfg)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, c := range m.Classes() {
			names = append(names, c.Name)
		}
		for _, p := range m.CoverPoints() {
			names = append(names, p.Name)
		}
		for _, n := range names {
			stem := strings.TrimRight(n, "0123456789")
			if !strings.Contains(doc, "`"+n+"`") && !(stem != n && strings.Contains(doc, "`"+stem)) {
				t.Errorf("%s: %s is not documented in docs/vectors.md", name, n)
			}
		}
	}
}
