package atomicfile

import (
	"os"
	"unsafe"
)

// DirectBlock is the size of the aligned blocks WriteLarge writes with
// O_DIRECT (a multiple of every logical block size, 512 to 4096 bytes).
const DirectBlock = 4 << 20

// directAlign is the alignment of the direct writer's buffer in memory.
const directAlign = 4096

// directWriter gathers writes into an aligned buffer of DirectBlock bytes
// and writes each full buffer with O_DIRECT (so every write starts at a
// multiple of DirectBlock); Flush writes the rest through the page cache.
// If setting O_DIRECT fails, or a direct write is refused (EINVAL: the file
// system does not support it for this file), it writes through the page
// cache from then on.
type directWriter struct {
	f      *os.File
	buf    []byte // len DirectBlock, directAlign-aligned
	n      int    // bytes in buf
	direct bool   // O_DIRECT is set on f
	err    error  // the first write error; every later write returns it
}

func newDirectWriter(f *os.File) *directWriter {
	raw := make([]byte, DirectBlock+directAlign)
	off := int(-uintptr(unsafe.Pointer(&raw[0])) & (directAlign - 1))
	d := &directWriter{f: f, buf: raw[off : off+DirectBlock : off+DirectBlock]}
	d.direct = setDirect(f, true) == nil
	return d
}

// Write copies p into the buffer, writing each block as it fills.
func (d *directWriter) Write(p []byte) (int, error) {
	if d.err != nil {
		return 0, d.err
	}
	done := 0
	for len(p) > 0 {
		k := copy(d.buf[d.n:], p)
		d.n += k
		p = p[k:]
		if d.n == len(d.buf) {
			if err := d.writeBlock(); err != nil {
				d.err = err
				return done, err
			}
		}
		done += k
	}
	return done, nil
}

// writeBlock writes the full buffer.
func (d *directWriter) writeBlock() error {
	_, err := d.f.Write(d.buf[:d.n])
	if err != nil && d.direct && isInval(err) {
		// Refused by the file system: nothing was written (EINVAL is
		// reported before any transfer); continue through the page cache.
		d.direct = false
		if err = setDirect(d.f, false); err == nil {
			_, err = d.f.Write(d.buf[:d.n])
		}
	}
	d.n = 0
	return err
}

// Flush writes what is left in the buffer (less than a block) through the
// page cache.
func (d *directWriter) Flush() error {
	if d.err != nil {
		return d.err
	}
	if d.n == 0 {
		return nil
	}
	if d.direct {
		if err := setDirect(d.f, false); err != nil {
			d.err = err
			return err
		}
		d.direct = false
	}
	_, err := d.f.Write(d.buf[:d.n])
	d.n = 0
	if err != nil {
		d.err = err
	}
	return err
}
