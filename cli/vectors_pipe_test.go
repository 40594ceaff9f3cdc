package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestVectorsGenPipe checks vectors gen --out -: standard output carries
// exactly the stimulus and expected records of the set `vectors gen --out
// DIR` writes for the same flags, interleaved per vector (the oracle is
// that directory); the report goes to standard error; --manifest gets the
// manifest, whose file hashes equal the directory's; a closed pipe fails
// the command and leaves no manifest; flags the stream cannot honour are
// refused.
func TestVectorsGenPipe(t *testing.T) {
	root := t.TempDir()
	for _, format := range []string{"hex", "bin"} {
		flags := []string{"--count", "40", "--class", "first_ack,hops_2", "--seed", "3", "--format", format}
		dir := filepath.Join(root, "set-"+format)
		var out, errb bytes.Buffer
		if code := Main(append([]string{"vectors", "gen", "--out", dir}, flags...), &out, &errb); code != 0 {
			t.Fatalf("gen --out DIR: %d %s", code, errb.String())
		}
		stimName, expName := "stimulus."+format, "expected."+format
		stim, err1 := os.ReadFile(filepath.Join(dir, stimName))
		exp, err2 := os.ReadFile(filepath.Join(dir, expName))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		var dman struct {
			Count int64 `json:"count"`
			Files []struct {
				Name   string `json:"name"`
				SHA256 string `json:"sha256"`
			} `json:"files"`
		}
		mb, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		if err != nil || json.Unmarshal(mb, &dman) != nil {
			t.Fatal(err)
		}
		cnt := int(dman.Count)
		si, ei := len(stim)/cnt, len(exp)/cnt
		var want []byte
		for k := 0; k < cnt; k++ {
			want = append(want, stim[k*si:(k+1)*si]...)
			want = append(want, exp[k*ei:(k+1)*ei]...)
		}
		manFile := filepath.Join(root, "pipe-"+format+".json")
		out.Reset()
		errb.Reset()
		if code := Main(append([]string{"vectors", "gen", "--out", "-", "--manifest", manFile}, flags...), &out, &errb); code != 0 {
			t.Fatalf("gen --out -: %d %s", code, errb.String())
		}
		if !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("%s: standard output (%d bytes) is not the set's records interleaved (%d bytes)", format, out.Len(), len(want))
		}
		if !strings.Contains(errb.String(), "wrote ") {
			t.Errorf("%s: no report on standard error: %q", format, errb.String())
		}
		var pman struct {
			Files []struct {
				Name   string `json:"name"`
				SHA256 string `json:"sha256"`
			} `json:"files"`
			Pipe *struct {
				Bytes int64 `json:"bytes"`
			} `json:"pipe"`
		}
		mb, err = os.ReadFile(manFile)
		if err != nil || json.Unmarshal(mb, &pman) != nil {
			t.Fatal(err)
		}
		if pman.Pipe == nil || pman.Pipe.Bytes != int64(len(want)) || len(pman.Files) != 2 ||
			pman.Files[0] != dman.Files[0] || pman.Files[1] != dman.Files[1] {
			t.Errorf("%s: pipe manifest %+v, directory files %+v", format, pman, dman.Files[:2])
		}
	}

	// A closed pipe: the command fails, no manifest is written.
	manFile := filepath.Join(root, "broken.json")
	var errb bytes.Buffer
	w := &closedPipe{n: 4096}
	if code := Main([]string{"vectors", "gen", "--out", "-", "--count", "20000", "--manifest", manFile}, w, &errb); code == 0 {
		t.Errorf("closed pipe: exit 0")
	}
	if !strings.Contains(errb.String(), "broken pipe") {
		t.Errorf("closed pipe: stderr %q does not name the broken pipe", errb.String())
	}
	if _, err := os.Stat(manFile); !os.IsNotExist(err) {
		t.Errorf("closed pipe: manifest written (%v)", err)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--out", "-", "--jsonl"}, "--jsonl"},
		{[]string{"--out", "-", "--compress", "zstd"}, "--compress"},
		{[]string{"--out", "-", "--from-sim", "hpcc-incast-16to1"}, "--from-sim"},
		{[]string{"--out", filepath.Join(root, "d"), "--manifest", manFile}, "--manifest"},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"vectors", "gen", "--count", "1"}, tc.args...), &out, &errb); code != ExitUsage || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d naming %s", tc.args, code, errb.String(), ExitUsage, tc.want)
		}
	}
}

// closedPipe accepts n bytes, then fails like a pipe whose reader exited.
type closedPipe struct{ n int }

func (c *closedPipe) Write(p []byte) (int, error) {
	if len(p) > c.n {
		k := c.n
		c.n = 0
		return k, syscall.EPIPE
	}
	c.n -= len(p)
	return len(p), nil
}
