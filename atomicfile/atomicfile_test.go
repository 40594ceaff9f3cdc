package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestWrite checks that a completed write lands whole, and that a failing
// fill leaves neither the destination nor a temporary file behind.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	if err := WriteBytes(p, 0o644, []byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(p)
	if err != nil || string(got) != "hello\n" {
		t.Fatalf("ReadFile = %q, %v; want %q", got, err, "hello\n")
	}
	boom := errors.New("boom")
	err = Write(p, 0o644, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write error = %v, want wrapping %v", err, boom)
	}
	got, _ = os.ReadFile(p)
	if string(got) != "hello\n" {
		t.Fatalf("after failed write file = %q, want old content kept", got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("directory has %d entries after failed write, want 1 (no temporary left)", len(ents))
	}
}

// TestWritePanicLeavesNoTemporary checks that a panic inside fill removes the
// temporary file (the panic itself propagates to the caller).
func TestWritePanicLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	func() {
		defer func() { recover() }()
		Write(filepath.Join(dir, "p.txt"), 0o644, func(w io.Writer) error {
			io.WriteString(w, "partial")
			panic("boom")
		})
	}()
	ents, _ := os.ReadDir(dir)
	if len(ents) != 0 {
		t.Fatalf("directory has %d entries after a panicking fill, want 0", len(ents))
	}
}
