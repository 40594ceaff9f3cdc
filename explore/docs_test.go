package explore

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// docExample returns the built-in example section of docs/explore.md.
func docExample(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile("../docs/explore.md")
	if err != nil {
		t.Fatal(err)
	}
	_, ex, ok := strings.Cut(string(doc), "## The built-in example")
	if !ok {
		t.Fatal("docs/explore.md has no built-in example section")
	}
	return ex
}

// block returns the first fenced block of the given language after marker.
func block(t *testing.T, text, marker, lang string) string {
	t.Helper()
	_, rest, ok := strings.Cut(text, marker)
	if !ok {
		t.Fatalf("docs/explore.md: no %q", marker)
	}
	_, b, ok := strings.Cut(rest, "```"+lang+"\n")
	if !ok {
		t.Fatalf("docs/explore.md: no %s block after %q", lang, marker)
	}
	b, _, _ = strings.Cut(b, "```")
	return b
}

// TestDocsExample: docs/explore.md shows the built-in example spec exactly,
// and what it shows of the example's results is what Report renders from
// the measured records it ships (docs/explore/points.json, the
// points.json of `explore --example`): front.txt byte for byte, and the
// two front plots (docs/explore/*.png). The records are measurements
// (Yosys, scenario runs) this test does not repeat; it checks that the
// page is the tool's output for them, not hand-edited. Oracle: Report.
func TestDocsExample(t *testing.T) {
	ex := docExample(t)
	if got := block(t, ex, "explore/example.json", "json"); got != string(ExampleSpecJSON()) {
		t.Fatalf("docs/explore.md example spec differs from explore/example.json:\n%s", got)
	}
	s, err := LoadSpec(bytes.NewReader(ExampleSpecJSON()))
	if err != nil {
		t.Fatal(err)
	}
	pj, err := os.ReadFile("../docs/explore/points.json")
	if err != nil {
		t.Fatal(err)
	}
	var res Results
	dec := json.NewDecoder(bytes.NewReader(pj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("docs/explore/points.json: %v", err)
	}
	files, err := Report(s, res.Points)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string][]byte{}
	for _, f := range files {
		byName[f.Name] = f.Data
	}
	if !bytes.Equal(byName["points.json"], pj) {
		t.Fatal("docs/explore/points.json is not what Report writes for its own records (edited, or from another spec)")
	}
	if got := block(t, ex, "front.txt", "text"); got != string(byName["front.txt"]) {
		t.Fatalf("docs/explore.md front.txt differs from Report's:\n%s\nwant\n%s", got, byName["front.txt"])
	}
	for _, n := range []string{"front_accuracy.png", "front_network.png"} {
		b, err := os.ReadFile("../docs/explore/" + n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, byName[n]) {
			t.Errorf("docs/explore/%s differs from Report's rendering of the records", n)
		}
	}
}
