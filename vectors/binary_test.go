package vectors

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestBinarySet writes one set as hex and as binary records (same model,
// seed and shard) and checks the binary one against the hex one, the
// oracle: every record decodes to the words of the hex line (and its hex
// copy is byte for byte the hex file), Show gives the same fields, verify
// passes; one flipped bit, a truncated record and an extra record are
// each a verify problem, and WriteHexCopy refuses the damaged set; check,
// which reads hex sets, refuses it by name.
func TestBinarySet(t *testing.T) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Level: 1, Seed: 7, Count: 3000, Shard: Shard{Index: 1, Count: 2}}
	hexDir, binDir := t.TempDir(), t.TempDir()
	if _, err := GenerateDir(hexDir, m, opts); err != nil {
		t.Fatal(err)
	}
	opts.Binary = true
	man, err := GenerateDir(binDir, m, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !man.IsBinary() {
		t.Fatalf("manifest files %v: no %s", man.Files, StimulusBinFile)
	}
	for _, f := range []struct {
		bin, hex string
		width    int
	}{{StimulusBinFile, StimulusFile, m.Input().Width}, {ExpectedBinFile, ExpectedFile, m.Output().Width}} {
		b, err := os.ReadFile(filepath.Join(binDir, f.bin))
		if err != nil {
			t.Fatal(err)
		}
		if want := man.Count * int64((f.width+7)/8); int64(len(b)) != want {
			t.Errorf("%s: %d bytes, want %d records of ceil(%d/8) bytes = %d", f.bin, len(b), man.Count, f.width, want)
		}
	}
	copyDir := t.TempDir()
	if n, err := WriteHexCopy(binDir, copyDir); err != nil || n != man.Count {
		t.Fatalf("WriteHexCopy = %d, %v", n, err)
	}
	for _, name := range []string{StimulusFile, ExpectedFile} {
		a, _ := os.ReadFile(filepath.Join(hexDir, name))
		b, _ := os.ReadFile(filepath.Join(copyDir, name))
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s: the hex copy of the binary set differs from the hex set's (%d and %d bytes)", name, len(b), len(a))
		}
	}
	for _, k := range []int64{man.Shard.First, man.Shard.First + 17, man.Shard.First + man.Count - 1} {
		vh, err := Show(hexDir, k)
		if err != nil {
			t.Fatal(err)
		}
		vb, err := Show(binDir, k)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(vh.Inputs, vb.Inputs) || !reflect.DeepEqual(vh.Outputs, vb.Outputs) || vh.Class != vb.Class {
			t.Errorf("Show(%d): binary set differs from hex set", k)
		}
	}
	rep, err := Verify(binDir)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("verify of the binary set: %v", rep.Problems)
	}
	if _, err := Check(binDir, filepath.Join(hexDir, ExpectedFile), CheckOptions{}); err == nil || !strings.Contains(err.Error(), "binary records") {
		t.Errorf("Check on a binary set: %v, want an error naming its binary records", err)
	}

	exp := filepath.Join(binDir, ExpectedBinFile)
	good, err := os.ReadFile(exp)
	if err != nil {
		t.Fatal(err)
	}
	rec := int64((m.Output().Width + 7) / 8)
	flipped := bytes.Clone(good)
	flipped[5*rec] ^= 1
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"flipped bit", flipped, "model gives"},
		{"truncated", good[:len(good)-1], "truncated"},
		{"extra record", append(bytes.Clone(good), good[:rec]...), "more records"},
	} {
		if err := os.WriteFile(exp, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(binDir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), c.want) {
			t.Errorf("%s: verify problems %q, want one with %q", c.name, rep.Problems, c.want)
		}
		if _, err := WriteHexCopy(binDir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "golden set damaged") {
			t.Errorf("%s: WriteHexCopy = %v, want golden set damaged", c.name, err)
		}
	}
}
