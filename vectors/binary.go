package vectors

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// The binary record files of a set written with Options.Binary, in place
// of stimulus.hex and expected.hex: each vector is one record of
// RecordBytes(table) bytes, the packed vector (fields LSB first at their
// layout.json offsets) little endian, bits above the table's width zero.
// There is no header: the manifest gives the count and layout.json the
// widths. They hold half the bytes of the hex files and need no parsing;
// the Verilator C++ harness reads them directly.
const (
	StimulusBinFile = "stimulus.bin"
	ExpectedBinFile = "expected.bin"
)

// RecordBytes is the size of one binary record of t: ceil(t.Width/8).
func RecordBytes(t fieldtable.Table) int { return (t.Width + 7) / 8 }

// appendRecord appends the binary record of the packed vector w of t.
func appendRecord(dst []byte, t fieldtable.Table, w []uint64) []byte {
	n := RecordBytes(t)
	off := len(dst)
	// Whole words, the last one too: its bytes beyond the record land in
	// the spare capacity (7 bytes at most) and are cut off by the length.
	dst = slices.Grow(dst, n+7)
	b := dst[off : off+(n+7)/8*8]
	for i := range len(b) / 8 {
		binary.LittleEndian.PutUint64(b[8*i:], w[i])
	}
	return dst[:off+n]
}

// parseRecord decodes one binary record of t into w (t.Words() words); a
// bit set above t.Width is an error.
func parseRecord(t fieldtable.Table, rec []byte, w []uint64) error {
	if len(rec) != RecordBytes(t) {
		return fmt.Errorf("%s: record of %d bytes, want %d", t.Name, len(rec), RecordBytes(t))
	}
	for i := range w {
		var b [8]byte
		copy(b[:], rec[min(8*i, len(rec)):min(8*i+8, len(rec))])
		w[i] = binary.LittleEndian.Uint64(b[:])
	}
	if top := t.Width % 64; top != 0 && w[len(w)-1]>>uint(top) != 0 {
		return fmt.Errorf("%s: bits set above its %d-bit width", t.Name, t.Width)
	}
	return nil
}

// recordReader reads the binary records of one table from a file, in
// order, with a large buffer.
type recordReader struct {
	r    *bufio.Reader
	t    fieldtable.Table
	name string
	buf  []byte
	n    int64 // records read
}

func newRecordReader(r io.Reader, t fieldtable.Table, name string) *recordReader {
	return &recordReader{r: bufio.NewReaderSize(r, 1<<20), t: t, name: name, buf: make([]byte, RecordBytes(t))}
}

// next decodes the next record into w; ok is false at the end of the file.
// A partial record at the end is an error.
func (rr *recordReader) next(w []uint64) (ok bool, err error) {
	n, err := io.ReadFull(rr.r, rr.buf)
	switch {
	case err == io.EOF:
		return false, nil
	case err == io.ErrUnexpectedEOF:
		return false, fmt.Errorf("vectors: %s: record %d: %d of %d bytes (truncated)", rr.name, rr.n+1, n, len(rr.buf))
	case err != nil:
		return false, fmt.Errorf("vectors: %s: %w", rr.name, err)
	}
	rr.n++
	if err := parseRecord(rr.t, rr.buf, w); err != nil {
		return false, fmt.Errorf("vectors: %s: record %d: %w", rr.name, rr.n, err)
	}
	return true, nil
}

// IsBinary reports whether the set's manifest lists binary record files
// (stimulus.bin) rather than hex lines.
func (m *Manifest) IsBinary() bool {
	for _, f := range m.Files {
		if f.Name == StimulusBinFile || f.Name == StimulusBinFile+zstSuffix {
			return true
		}
	}
	return false
}

// VectorFiles returns the names of the set's stimulus and expected files:
// stimulus.bin and expected.bin for a binary set, else stimulus.hex and
// expected.hex; each with the suffix ".zst" when the set is compressed.
func (m *Manifest) VectorFiles() (stim, exp string) {
	stim, exp = StimulusFile, ExpectedFile
	if m.IsBinary() {
		stim, exp = StimulusBinFile, ExpectedBinFile
	}
	if m.IsCompressed() {
		stim, exp = stim+zstSuffix, exp+zstSuffix
	}
	return stim, exp
}

// errBinary is the error of a reader of hex sets given a binary one.
func errBinary(dir, what string) error {
	return fmt.Errorf("vectors: %s holds binary records (%s), and %s reads hex sets; write the set with hex files (vectors gen without --format bin)", dir, StimulusBinFile, what)
}

// WriteHexCopy writes the binary set in dir (compressed or not) as
// stimulus.hex and expected.hex into out (plain files, for $readmemh
// testbenches), after checking the binary files against the manifest's
// size and hashes. It returns the number of vectors.
func WriteHexCopy(dir, out string) (int64, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return 0, err
	}
	if !man.IsBinary() {
		return 0, fmt.Errorf("vectors: %s: not a binary set", dir)
	}
	_, lay, err := readLayout(dir)
	if err != nil {
		return 0, err
	}
	if err := checkDataHashes(dir, man); err != nil {
		return 0, err
	}
	stimName, expName := man.VectorFiles()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, fmt.Errorf("vectors: %w", err)
	}
	for _, f := range []struct {
		bin, hex string
		t        fieldtable.Table
	}{{stimName, StimulusFile, lay.in}, {expName, ExpectedFile, lay.out}} {
		in, err := openData(dir, f.bin, nil)
		if err != nil {
			return 0, fmt.Errorf("vectors: %w", err)
		}
		o, err := os.Create(filepath.Join(out, f.hex))
		if err != nil {
			in.Close()
			return 0, fmt.Errorf("vectors: %w", err)
		}
		bw := bufio.NewWriterSize(o, 1<<20)
		rr := newRecordReader(in, f.t, filepath.Join(dir, f.bin))
		w := make([]uint64, f.t.Words())
		var line []byte
		var n int64
		for {
			ok, err := rr.next(w)
			if err != nil {
				in.Close()
				o.Close()
				return 0, err
			}
			if !ok {
				break
			}
			line = append(appendHex(line[:0], f.t, w), '\n')
			bw.Write(line)
			n++
		}
		in.Close()
		if err := bw.Flush(); err != nil {
			o.Close()
			return 0, fmt.Errorf("vectors: %w", err)
		}
		if err := o.Close(); err != nil {
			return 0, fmt.Errorf("vectors: %w", err)
		}
		if n != man.Count {
			return 0, fmt.Errorf("vectors: %s: golden set damaged: %s holds %d records, the manifest %d", dir, f.bin, n, man.Count)
		}
	}
	return man.Count, nil
}
