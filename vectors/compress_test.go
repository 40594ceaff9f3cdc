package vectors

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// readContent returns the content of dir/name, decompressed if it is a
// ".zst" file.
func readContent(t *testing.T, dir, name string) []byte {
	t.Helper()
	f, err := openData(dir, name, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b
}

// TestCompressedSet writes one set plain and zstd-compressed, as hex and
// as binary records (same model, seed, shard), with the plain set as the
// oracle: the compressed files decode byte for byte to the plain ones,
// the compressed files are the same bytes from two runs with different
// worker counts, verify passes, show gives the same fields, the plain copy
// for cosim equals the plain files, check against the compressed golden
// passes the plain expected file and fails a changed line; a flipped byte
// in a compressed file is a verify problem, a "golden set damaged" error
// from check, WritePlainCopy and WriteHexCopy, never a mismatch.
func TestCompressedSet(t *testing.T) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, binary := range []bool{false, true} {
		t.Run(map[bool]string{false: "hex", true: "bin"}[binary], func(t *testing.T) {
			opts := Options{Level: 1, Seed: 11, Count: 9000, Shard: Shard{Index: 1, Count: 2}, Binary: binary, Workers: 1}
			plainDir, zDir, zDir2 := t.TempDir(), t.TempDir(), t.TempDir()
			pman, err := GenerateDir(plainDir, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Compress = CompressZstd
			zman, err := GenerateDir(zDir, m, opts)
			if err != nil {
				t.Fatal(err)
			}
			opts.Workers = 2
			if _, err := GenerateDir(zDir2, m, opts); err != nil {
				t.Fatal(err)
			}
			if !zman.IsCompressed() || zman.IsBinary() != binary {
				t.Fatalf("manifest: compression %q, binary %v", zman.Compression, zman.IsBinary())
			}
			pStim, pExp := pman.VectorFiles()
			zStim, zExp := zman.VectorFiles()
			if zStim != pStim+".zst" || zExp != pExp+".zst" {
				t.Fatalf("compressed files %s, %s; want %s.zst, %s.zst", zStim, zExp, pStim, pExp)
			}
			for i, name := range []string{zStim, zExp} {
				plain := readContent(t, plainDir, []string{pStim, pExp}[i])
				if got := readContent(t, zDir, name); len(plain) == 0 || !bytes.Equal(got, plain) {
					t.Errorf("%s decodes to %d bytes that differ from the plain file's %d", name, len(got), len(plain))
				}
				a, _ := os.ReadFile(filepath.Join(zDir, name))
				b, _ := os.ReadFile(filepath.Join(zDir2, name))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("%s: two runs (1 and 2 workers) give different compressed bytes (%d and %d)", name, len(a), len(b))
				}
				if len(a) >= len(plain) {
					t.Errorf("%s: %d compressed bytes, plain %d", name, len(a), len(plain))
				}
			}
			m1, _ := os.ReadFile(filepath.Join(zDir, ManifestFile))
			m2, _ := os.ReadFile(filepath.Join(zDir2, ManifestFile))
			if !bytes.Equal(m1, m2) {
				t.Error("manifests of two runs differ")
			}
			if !reflect.DeepEqual(zman.Coverage, pman.Coverage) || !reflect.DeepEqual(zman.Classes, pman.Classes) {
				t.Error("compressed set's coverage or classes differ from the plain set's")
			}
			rep, err := Verify(zDir)
			if err != nil || !rep.OK() {
				t.Fatalf("verify of the compressed set: %v %+v", err, rep)
			}
			for _, idx := range []int64{zman.Shard.First, zman.Shard.First + zman.Count/2, zman.Shard.First + zman.Count - 1} {
				pv, err1 := Show(plainDir, idx)
				zv, err2 := Show(zDir, idx)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(pv.Inputs, zv.Inputs) || !reflect.DeepEqual(pv.Outputs, zv.Outputs) {
					t.Errorf("show %d: %v %v; fields differ from the plain set's", idx, err1, err2)
				}
			}
			out := t.TempDir()
			ps, pe, err := WritePlainCopy(zDir, out)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range []string{ps, pe} {
				a, _ := os.ReadFile(p)
				b, _ := os.ReadFile(filepath.Join(plainDir, []string{pStim, pExp}[i]))
				if len(a) == 0 || !bytes.Equal(a, b) {
					t.Errorf("plain copy %s differs from the plain set's", p)
				}
			}
			if binary {
				hexDir := t.TempDir()
				if n, err := WriteHexCopy(zDir, hexDir); err != nil || n != zman.Count {
					t.Fatalf("WriteHexCopy = %d, %v", n, err)
				}
			} else {
				exp, _ := os.ReadFile(filepath.Join(plainDir, ExpectedFile))
				crep, err := CheckReader(zDir, bytes.NewReader(exp), "dut.hex", CheckOptions{})
				if err != nil || !crep.OK() || crep.Checked != zman.Count {
					t.Fatalf("check of the plain expected file against the compressed golden: %v %+v", err, crep)
				}
				lines := bytes.SplitAfter(exp, []byte("\n"))
				lines[100] = bytes.Replace(lines[100], lines[100][:1], []byte{lines[100][0] ^ 1}, 1)
				crep, err = CheckReader(zDir, bytes.NewReader(bytes.Join(lines, nil)), "dut.hex", CheckOptions{})
				if err != nil || crep.Failed != 1 {
					t.Fatalf("check of a DUT with one changed line: %v, failed %v", err, crep)
				}
			}

			// One flipped byte in the middle of the compressed expected file.
			path := filepath.Join(zDir, zExp)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			b[len(b)/2] ^= 0x10
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err = Verify(zDir)
			if err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), zExp) {
				t.Errorf("verify of a flipped byte in %s: %v %+v", zExp, err, rep)
			}
			if _, _, err := WritePlainCopy(zDir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "golden set damaged") {
				t.Errorf("WritePlainCopy of a damaged set: %v", err)
			}
			if binary {
				if _, err := WriteHexCopy(zDir, t.TempDir()); err == nil || !strings.Contains(err.Error(), "golden set damaged") {
					t.Errorf("WriteHexCopy of a damaged set: %v", err)
				}
				return
			}
			exp, _ := os.ReadFile(filepath.Join(plainDir, ExpectedFile))
			if _, err := CheckReader(zDir, bytes.NewReader(exp), "dut.hex", CheckOptions{}); err == nil || !strings.Contains(err.Error(), "golden set damaged") {
				t.Errorf("check against a damaged compressed golden: %v", err)
			}
		})
	}
}

// TestCompressOption rejects an unknown compression by name.
func TestCompressOption(t *testing.T) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	_, err = GenerateDir(t.TempDir(), m, Options{Level: 1, Count: 10, Compress: "gzip"})
	if err == nil || !strings.Contains(err.Error(), `compress="gzip"`) {
		t.Errorf("Compress gzip: %v", err)
	}
}
