package registry

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

var update = flag.Bool("update", false, "rewrite testdata/sets.golden (only for an intended, verified change of generated sets)")

// TestGeneratedSetPins pins the SHA-256 of every file that generating a
// golden set writes (stimulus, expected, classes, layout, fields.vh,
// JSONL, manifest), for each registered model's built-in configurations,
// level 1 plus constrained-random vectors, in the hex, binary and
// zstd-compressed forms. A refactor must leave them byte-identical; any
// change to a generated set fails here. The manifest is hashed with its
// "tool" entry (the generator's build string) removed, since that names
// the build, not the set. Refresh with `go test ./vectors/registry -run
// TestGeneratedSetPins -update` only for an intended change, and say why.
func TestGeneratedSetPins(t *testing.T) {
	ifa, err := vectors.NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	compact, err := vectors.NewHPCC(hpcc.DefaultConfigFor(telemetry.Compact))
	if err != nil {
		t.Fatal(err)
	}
	l, err := ldcpvec.New(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	// MultiQ (issue 17): pinned after the others, so their lines stay put.
	mqc := hpcc.DefaultConfig()
	mqc.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	mq, err := vectors.NewHPCC(mqc)
	if err != nil {
		t.Fatal(err)
	}
	// Sojourn (issue 17, draft 9.4): likewise.
	sjc := hpcc.DefaultConfig()
	sjc.Sojourn = true
	sj, err := vectors.NewHPCC(sjc)
	if err != nil {
		t.Fatal(err)
	}
	models := []struct {
		name string
		m    vectors.Model
	}{{"hpcc_ifa", ifa}, {"hpcc_compact", compact}, {"ldcp", l}, {"hpcc_ifa_multiq", mq}, {"hpcc_ifa_sojourn", sj}}
	forms := []struct {
		name string
		opts vectors.Options
	}{
		{"hex_jsonl", vectors.Options{Level: 1, Seed: 11, Count: 2000}},
		{"bin", vectors.Options{Level: 1, Seed: 11, Count: 2000, Binary: true, NoJSONL: true}},
		{"hex_zstd", vectors.Options{Level: 2, Seed: 12, Count: 1000, Compress: vectors.CompressZstd, NoJSONL: true}},
	}
	var sb strings.Builder
	for _, m := range models {
		for _, f := range forms {
			dir := filepath.Join(t.TempDir(), "set")
			if _, err := vectors.GenerateDir(dir, m.m, f.opts); err != nil {
				t.Fatalf("%s %s: %v", m.name, f.name, err)
			}
			for _, line := range digestDir(t, dir) {
				fmt.Fprintf(&sb, "%s %s %s\n", m.name, f.name, line)
			}
		}
	}
	golden := filepath.Join("testdata", "sets.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if got := sb.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Errorf("generated set digest differs:\n got  %s\n want %s", g, w)
			}
		}
	}
}

// digestDir returns "name sha256" for every regular file in dir except the
// artefact writer's own bookkeeping (names starting with ".hpccgold"),
// sorted by name; manifest.json is hashed without its "tool" entry.
func digestDir(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".hpccgold") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "manifest.json" {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("manifest.json: %v", err)
			}
			if _, ok := m["tool"]; !ok {
				t.Fatal(`manifest.json has no "tool" entry: update digestDir`)
			}
			delete(m, "tool")
			if b, err = json.Marshal(m); err != nil {
				t.Fatal(err)
			}
		}
		sum := sha256.Sum256(b)
		out = append(out, e.Name()+" "+hex.EncodeToString(sum[:]))
	}
	sort.Strings(out)
	return out
}
