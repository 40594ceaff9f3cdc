package simvec

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// update rewrites the golden files of this package (go test -update).
var update = flag.Bool("update", false, "rewrite scenario/simvec/testdata golden files")

// TestCaptureDigests captures the demo scenario's vector sets, the
// sender-mode datapath (cc=hpcc, 800 updates) and the receiver-mode one
// (cc=hpcc-rx), and pins the SHA-256 of every file of each set to
// testdata/digests.golden (oracle: the simulator as it was when the file
// was written; refreshed only with go test -update). A change that alters
// one captured byte fails here and names the file.
func TestCaptureDigests(t *testing.T) {
	var lines []string
	for _, cc := range []string{"hpcc", "hpcc-rx"} {
		dir, _ := captureDir(t, Request{Scenario: demo, CC: cc, Workers: 1})
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			if !e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		for _, n := range names {
			b, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(b)
			lines = append(lines, fmt.Sprintf("%s %s %s", cc, n, hex.EncodeToString(sum[:])))
		}
	}
	path := "testdata/digests.golden"
	text := strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if string(want) != text {
		wl := strings.Split(string(want), "\n")
		gl := strings.Split(text, "\n")
		for i := 0; i < len(wl) || i < len(gl); i++ {
			var w, g string
			if i < len(wl) {
				w = wl[i]
			}
			if i < len(gl) {
				g = gl[i]
			}
			if w != g {
				t.Errorf("got %q, want %q", g, w)
			}
		}
	}
}
