package atomicfile

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteLarge writes files of sizes around the block boundaries of the
// direct writer (empty, one byte, one alignment unit, one block and its
// neighbours, several blocks and a tail) in writes of random sizes, with
// O_DIRECT where the file system takes it and with it refused (the
// page-cache path), and checks each file's content against the bytes
// written (the oracle).
func TestWriteLarge(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewSource(3))
	sizes := []int{0, 1, 4095, 4096, DirectBlock - 1, DirectBlock, DirectBlock + 1, 2*DirectBlock + 12345}
	for _, size := range sizes {
		data := make([]byte, size)
		r.Read(data)
		p := filepath.Join(dir, "f")
		err := WriteLarge(p, 0o600, func(w io.Writer) error {
			for rest := data; len(rest) > 0; {
				k := min(len(rest), 1+r.Intn(3*DirectBlock/2))
				if n, err := w.Write(rest[:k]); err != nil || n != k {
					return errors.Join(err, io.ErrShortWrite)
				}
				rest = rest[k:]
			}
			return nil
		})
		if err != nil {
			t.Fatalf("size %d: %v", size, err)
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: read back %d bytes (%v), not the bytes written", size, len(got), err)
		}
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("size %d: mode %v (%v), want 0600", size, st.Mode().Perm(), err)
		}

		// The page-cache path: a writer whose O_DIRECT is off.
		f, err := os.Create(filepath.Join(dir, "g"))
		if err != nil {
			t.Fatal(err)
		}
		d := newDirectWriter(f)
		if d.direct {
			if err := setDirect(f, false); err != nil {
				t.Fatal(err)
			}
			d.direct = false
		}
		if _, err := d.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := errors.Join(d.Flush(), f.Close()); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(f.Name()); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d, buffered: read back %d bytes (%v)", size, len(got), err)
		}
	}
}

// TestWriteLargeFailure checks Write's contract for WriteLarge: a failing
// fill (after more than a block was written) leaves the old file and no
// temporary.
func TestWriteLargeFailure(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := WriteBytes(p, 0o644, []byte("old\n")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteLarge(p, 0o644, func(w io.Writer) error {
		w.Write(make([]byte, DirectBlock+100))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("error %v, want %v", err, boom)
	}
	if got, _ := os.ReadFile(p); string(got) != "old\n" {
		t.Fatalf("file %q after a failed write, want the old content", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("%d entries after a failed write, want 1", len(ents))
	}
}
