package atomicfile

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Write creates (or replaces) path with the bytes that fill writes to its
// writer. The data reaches path only if fill returns nil and every write,
// sync and close succeeds; otherwise the temporary file is removed and path
// is left as it was. perm is applied to the new file.
func Write(path string, perm os.FileMode, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: create temporary for %s: %w", path, err)
	}
	tmpName := tmp.Name()
	done := false
	defer func() {
		// Remove the temporary on any failure, including a panic in fill.
		if err != nil || !done {
			tmp.Close()
			os.Remove(tmpName)
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = fill(bw); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err = tmp.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: chmod %s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("atomicfile: close %s: %w", path, err)
	}
	if err = os.Rename(tmpName, path); err != nil {
		return fmt.Errorf("atomicfile: rename into %s: %w", path, err)
	}
	done = true
	// Make the rename itself durable. Directories that cannot be synced
	// (some file systems refuse) do not fail the write: the data is complete.
	if d, derr := os.Open(dir); derr == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteBytes writes data to path atomically with permission perm.
func WriteBytes(path string, perm os.FileMode, data []byte) error {
	return Write(path, perm, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// IsTemp reports whether a directory entry's name is that of a temporary
// Write creates (".NAME.tmp-RANDOM"): one found when no write is under way
// was left by a killed process and may be removed.
func IsTemp(name string) bool {
	return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-")
}
