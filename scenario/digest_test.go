package scenario

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// update rewrites the golden files of this package (go test -update).
var update = flag.Bool("update", false, "rewrite scenario/testdata golden files")

// TestOutputDigests runs the small incast (small: 4 senders x 50 KB) under
// each congestion control with every host's NIC tracing (pcap, hex and
// vector files) and pins the SHA-256 of every file Result.Write produces
// (summary, time series, flows, plots, traces, manifests) to
// testdata/digests.golden (oracle: the simulator as it was when the file
// was written; refreshed only with go test -update). Any change that
// alters one byte of an output fails here and names the file.
func TestOutputDigests(t *testing.T) {
	var lines []string
	for _, cc := range []string{"hpcc", "hpcc-rx", "ldcp", "dcqcn"} {
		c := small(t)
		if err := c.CC.UnmarshalText([]byte(cc)); err != nil {
			t.Fatal(err)
		}
		hosts := make([]int, c.Topology.NumHosts())
		for i := range hosts {
			hosts[i] = i
		}
		r, err := Run(context.Background(), c, Options{TraceHosts: hosts})
		if err != nil {
			t.Fatalf("cc=%s: %v", cc, err)
		}
		dir := t.TempDir()
		if _, err := r.Write(context.Background(), dir); err != nil {
			t.Fatalf("cc=%s: %v", cc, err)
		}
		err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			sum := sha256.Sum256(b)
			lines = append(lines, fmt.Sprintf("%s %s %s", cc, filepath.ToSlash(rel), hex.EncodeToString(sum[:])))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	checkDigests(t, "testdata/digests.golden", lines, *update)
}

// checkDigests compares lines ("<case> <file> <sha256>") with the golden
// file path, naming every file whose digest differs, is new or is gone;
// with update it rewrites the golden file instead.
func checkDigests(t *testing.T, path string, lines []string, update bool) {
	t.Helper()
	text := strings.Join(lines, "\n") + "\n"
	if update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	wl := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		if f := strings.Fields(line); len(f) == 3 {
			wl[f[0]+" "+f[1]] = f[2]
		}
	}
	for _, line := range lines {
		f := strings.Fields(line)
		k := f[0] + " " + f[1]
		if w, ok := wl[k]; !ok {
			t.Errorf("%s: not in %s", k, path)
		} else if w != f[2] {
			t.Errorf("%s: SHA-256 %s, want %s", k, f[2], w)
		}
		delete(wl, k)
	}
	for k := range wl {
		t.Errorf("%s: in %s, not produced", k, path)
	}
}
