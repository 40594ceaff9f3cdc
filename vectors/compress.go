package vectors

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/klauspost/compress/zstd"
)

// CompressZstd is Options.Compress and Manifest.Compression for a set whose
// stimulus and expected files are zstd streams (RFC 8878), named with a
// ".zst" suffix (stimulus.hex.zst, expected.bin.zst, ...). The other
// files (manifest, layout, fields.vh, classes, vectors.jsonl) stay plain.
// The manifest's hashes are of the compressed bytes, as on disk; every
// reader of sets decompresses the stream while it reads.
const CompressZstd = "zstd"

// zstSuffix is appended to the names of compressed data files.
const zstSuffix = ".zst"

// zstdLevel is the encoder level of compressed sets. It is part of the
// output: with it pinned, one encoder goroutine and a fixed window, the
// same vectors give the same compressed bytes.
const zstdLevel = zstd.SpeedFastest

// checkCompress validates Options.Compress.
func checkCompress(c string) error {
	if c != "" && c != CompressZstd {
		return fmt.Errorf("vectors: compress=%q: want %q or empty (none)", c, CompressZstd)
	}
	return nil
}

// newZstdWriter returns the encoder of compressed sets writing to w: level
// zstdLevel, one goroutine, 8 MiB window, content checksum on, no
// dictionary, so its frames do not depend on the machine or on timing.
func newZstdWriter(w io.Writer) (*zstd.Encoder, error) {
	enc, err := zstd.NewWriter(w, zstd.WithEncoderLevel(zstdLevel), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(8<<20), zstd.WithEncoderCRC(true), zstd.WithZeroFrames(true), zstd.WithLowerEncoderMem(false))
	if err != nil {
		return nil, fmt.Errorf("vectors: zstd encoder: %w", err)
	}
	return enc, nil
}

// errGoldenDamaged marks an error that says a golden set's file is not
// what its manifest describes (its text: "golden set damaged").
var errGoldenDamaged = errors.New("golden set damaged")

// goldenDamaged returns err marked as errGoldenDamaged (unchanged if it
// already is): an error reading or parsing a golden file.
func goldenDamaged(err error) error {
	if err == nil || errors.Is(err, errGoldenDamaged) {
		return err
	}
	return fmt.Errorf("%w: %w", errGoldenDamaged, err)
}

// damagedReader turns any error of the decoder of a golden data file into
// a "golden set damaged" error naming the file, so that a corrupted
// compressed file is never read as a wrong vector.
type damagedReader struct {
	r    io.Reader
	dec  *zstd.Decoder
	f    *os.File
	path string
}

func (d *damagedReader) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("vectors: %s: %w: the zstd stream does not decode (%w); run `hpccgold vectors verify %s`", d.path, errGoldenDamaged, err, filepath.Dir(d.path))
	}
	return n, err
}

func (d *damagedReader) Close() error {
	if d.dec != nil {
		d.dec.Close()
	}
	return d.f.Close()
}

// openData opens the data file name of the set in dir for reading its
// content: a ".zst" file through a zstd decoder (one goroutine, a window of
// at most 64 MiB), any other file as it is. tee, if not nil, sees the
// bytes as they are on disk (for a CRC of the file).
func openData(dir, name string, tee io.Writer) (io.ReadCloser, error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	var raw io.Reader = f
	if tee != nil {
		raw = io.TeeReader(f, tee)
	}
	if !strings.HasSuffix(name, zstSuffix) {
		return &damagedReader{r: raw, f: f, path: path}, nil
	}
	dec, err := zstd.NewReader(raw, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxWindow(64<<20), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("vectors: %s: %w", path, err)
	}
	return &damagedReader{r: dec, dec: dec, f: f, path: path}, nil
}

// OpenData opens the data file name of the set in dir (a name
// Manifest.VectorFiles returns) for reading its content: a ".zst" file is
// decompressed as it is read, and any read error of a damaged file is a
// "golden set damaged" error naming the file. It does not check hashes:
// callers verify the set first (artefact.Verify or Verify).
func OpenData(dir, name string) (io.ReadCloser, error) { return openData(dir, name, nil) }

// plainName returns a data file's name without its compression suffix.
func plainName(name string) string { return strings.TrimSuffix(name, zstSuffix) }

// IsCompressed reports whether the set's stimulus and expected files are
// compressed (Compression is CompressZstd).
func (m *Manifest) IsCompressed() bool { return m.Compression == CompressZstd }

// WritePlainCopy writes the stimulus and expected files of the compressed
// set in dir, decompressed, into out (stimulus.hex and expected.hex, or
// stimulus.bin and expected.bin), after checking the compressed files
// against the manifest's size and hashes; a stream that does not decode or
// does not hold the manifest's count of vectors is a "golden set damaged"
// error. It returns the paths of the plain stimulus and expected files.
func WritePlainCopy(dir, out string) (stim, exp string, err error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return "", "", err
	}
	if !man.IsCompressed() {
		return "", "", fmt.Errorf("vectors: %s: not a compressed set", dir)
	}
	_, lay, err := readLayout(dir)
	if err != nil {
		return "", "", err
	}
	if err := checkDataHashes(dir, man); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return "", "", fmt.Errorf("vectors: %w", err)
	}
	stimName, expName := man.VectorFiles()
	var paths []string
	for _, name := range []string{stimName, expName} {
		dst := filepath.Join(out, plainName(name))
		if err := decompressFile(dir, name, dst); err != nil {
			return "", "", err
		}
		paths = append(paths, dst)
	}
	// The content must hold the manifest's count of vectors.
	for i, t := range []fieldtable.Table{lay.in, lay.out} {
		st, err := os.Stat(paths[i])
		if err != nil {
			return "", "", fmt.Errorf("vectors: %w", err)
		}
		per := int64(RecordBytes(t))
		if !man.IsBinary() {
			per = int64(t.HexDigits()) + 1
		}
		if st.Size() != per*man.Count {
			return "", "", fmt.Errorf("vectors: %s: golden set damaged: %s decompresses to %d bytes, want %d vectors of %d", dir, []string{stimName, expName}[i], st.Size(), man.Count, per)
		}
	}
	return paths[0], paths[1], nil
}

// checkDataHashes checks the set's stimulus and expected files against the
// manifest's entries (size, lines, SHA-256, CRC-32C).
func checkDataHashes(dir string, man *Manifest) error {
	stimName, expName := man.VectorFiles()
	for _, fh := range man.Files {
		if fh.Name != stimName && fh.Name != expName {
			continue
		}
		got, err := hashFile(filepath.Join(dir, fh.Name))
		if err != nil {
			return fmt.Errorf("vectors: %w", err)
		}
		if got != fh {
			return fmt.Errorf("vectors: %s: golden set damaged: %s does not match its manifest entry; run `hpccgold vectors verify %s`", dir, fh.Name, dir)
		}
	}
	return nil
}

// decompressFile writes the content of dir/name to dst.
func decompressFile(dir, name, dst string) (err error) {
	in, err := openData(dir, name, nil)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer in.Close()
	o, err := os.Create(dst)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer func() {
		if cerr := o.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("vectors: %w", cerr)
		}
	}()
	if _, err := io.Copy(o, in); err != nil {
		return fmt.Errorf("vectors: decompressing %s: %w", name, err)
	}
	return nil
}
