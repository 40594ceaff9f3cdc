//go:build !linux

package atomicfile

import (
	"errors"
	"os"
)

// setDirect reports that O_DIRECT is not available: WriteLarge writes
// through the page cache.
func setDirect(f *os.File, on bool) error {
	if !on {
		return nil
	}
	return errors.New("atomicfile: O_DIRECT is not available on this system")
}

// isInval is false: no write is made with O_DIRECT.
func isInval(err error) bool { return false }
