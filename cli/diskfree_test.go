package cli

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestDiskFree: a directory that does not exist yet is measured on its
// nearest existing ancestor's file system, so `vectors gen --out new/dir`
// is checked before the directory is made. Oracle: the temporary
// directory's own statfs figure.
func TestDiskFree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("statfs check is Linux-only")
	}
	dir := t.TempDir()
	free, ok := diskFree(dir)
	if !ok || free == 0 {
		t.Fatalf("diskFree(%s) = %d, %v", dir, free, ok)
	}
	deep, ok := diskFree(filepath.Join(dir, "a", "b", "c"))
	if !ok || deep == 0 {
		t.Fatalf("diskFree of a missing subdirectory = %d, %v; want its ancestor's", deep, ok)
	}
}

// TestHumanBytes: binary units, one decimal. Oracle: hand-computed.
func TestHumanBytes(t *testing.T) {
	for _, c := range []struct {
		n    uint64
		want string
	}{{0, "0 B"}, {1023, "1023 B"}, {1024, "1.0 KiB"}, {1536, "1.5 KiB"}, {1 << 30, "1.0 GiB"},
		{6261 * 1000000008406, "5.6 PiB"}, {1<<64 - 1, "16.0 EiB"}} {
		if got := humanBytes(c.n); got != c.want {
			t.Errorf("humanBytes(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}
