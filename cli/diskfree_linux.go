package cli

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// diskFree returns the bytes an unprivileged user may still write on the
// file system that holds dir, or of its nearest existing ancestor when dir
// does not exist yet (statfs(2): f_bavail * f_bsize). ok is false when it
// cannot be known.
func diskFree(dir string) (free uint64, ok bool) {
	p, err := filepath.Abs(dir)
	if err != nil {
		return 0, false
	}
	for {
		var st syscall.Statfs_t
		err := syscall.Statfs(p, &st)
		if err == nil {
			return st.Bavail * uint64(st.Bsize), true
		}
		parent := filepath.Dir(p)
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) || parent == p {
			return 0, false
		}
		p = parent
	}
}
