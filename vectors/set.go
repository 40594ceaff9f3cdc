package vectors

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/crc32"
	"io"
	"path/filepath"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/klauspost/compress/zstd"
)

// Set is a vector set held in memory: what Generate returns for co-simulation
// harnesses that drive a DUT directly, and what Write puts on disk.
type Set struct {
	// Manifest describes the set; its Files are filled in by Write.
	Manifest Manifest
	plan     *plan
	in, out  []uint64
}

// maxMemWords bounds the packed words Generate holds in memory (8 GiB);
// larger sets must be streamed with GenerateDir.
const maxMemWords = 1 << 30

// Generate evaluates the vectors opts selects from model m and keeps them in
// memory. It fails if a requested class cannot be produced, if the evaluator
// rejects an input, or if a vector generated for a detected class does not
// hit it.
func Generate(m Model, opts Options) (*Set, error) {
	p, err := newPlan(m, opts)
	if err != nil {
		return nil, err
	}
	return generateSet(p)
}

// generateSet evaluates plan p's vectors into memory.
func generateSet(p *plan) (*Set, error) {
	n := p.last - p.first
	if n*int64(p.iw+p.ow) > maxMemWords {
		return nil, fmt.Errorf("vectors: %d vectors of %d words do not fit in memory; use GenerateDir", n, p.iw+p.ow)
	}
	s := &Set{plan: p, in: make([]uint64, n*int64(p.iw)), out: make([]uint64, n*int64(p.ow))}
	acc, err := p.run(false, func(first int64, cnt int) *block {
		off := int(first - p.first)
		return &block{first: first, n: cnt, in: s.in[off*p.iw : (off+cnt)*p.iw], out: s.out[off*p.ow : (off+cnt)*p.ow]}
	}, func(*block) error { return nil }, nil)
	if err != nil {
		return nil, err
	}
	s.Manifest = p.manifest(acc)
	return s, nil
}

// Len is the number of vectors in the set.
func (s *Set) Len() int { return int(s.plan.last - s.plan.first) }

// InputTable is the stimulus layout.
func (s *Set) InputTable() fieldtable.Table { return s.plan.lay.in }

// OutputTable is the expected-output layout.
func (s *Set) OutputTable() fieldtable.Table { return s.plan.lay.out }

// Input returns vector k's packed input (k in [0, Len()); not a copy).
func (s *Set) Input(k int) []uint64 { return s.in[k*s.plan.iw : (k+1)*s.plan.iw] }

// Output returns vector k's packed golden output (not a copy).
func (s *Set) Output(k int) []uint64 { return s.out[k*s.plan.ow : (k+1)*s.plan.ow] }

// Index returns vector k's global index in the unsharded set.
func (s *Set) Index(k int) int64 { return s.plan.first + int64(k) }

// Class returns the name of the class vector k was generated for.
func (s *Set) Class(k int) string { return s.plan.className(s.plan.label(s.Index(k))) }

// Write writes the set's files into dir (created if needed), each atomically,
// manifest.json last; it fills s.Manifest.Files. The files are byte-identical
// to what GenerateDir writes for the same model and options.
func (s *Set) Write(dir string) error { return s.WriteContext(context.Background(), dir) }

// WriteContext is Write that stops, leaving the directory as it was, when
// ctx is done.
func (s *Set) WriteContext(ctx context.Context, dir string) error {
	p := s.plan
	return writeDir(ctx, dir, p, func(emit func(*block) error) (*Manifest, error) {
		b := &block{}
		for first := p.first; first < p.last; first += blockSize {
			off := int(first - p.first)
			cnt := int(min(blockSize, p.last-first))
			b.first, b.n = first, cnt
			b.in, b.out = s.in[off*p.iw:(off+cnt)*p.iw], s.out[off*p.ow:(off+cnt)*p.ow]
			p.formatBlock(b, !p.opts.NoJSONL)
			if err := emit(b); err != nil {
				return nil, err
			}
		}
		return &s.Manifest, nil
	})
}

// GenerateDir generates the vectors opts selects from model m straight into
// files in dir, streaming (memory does not grow with Count), and returns the
// manifest it wrote. Failures are those of Generate. The directory is
// written through package artefact: on any failure it keeps its earlier
// content, and files of an earlier set that this one lacks are removed.
func GenerateDir(dir string, m Model, opts Options) (*Manifest, error) {
	return GenerateDirContext(context.Background(), dir, m, opts)
}

// GenerateDirContext is GenerateDir that stops when ctx is done (within one
// block of vectors), leaving the directory as it was.
func GenerateDirContext(ctx context.Context, dir string, m Model, opts Options) (*Manifest, error) {
	p, err := newPlan(m, opts)
	if err != nil {
		return nil, err
	}
	if opts.Preflight != nil {
		if err := opts.Preflight(p.estimate()); err != nil {
			return nil, err
		}
	}
	var man *Manifest
	err = writeDir(ctx, dir, p, func(emit func(*block) error) (*Manifest, error) {
		// Blocks are recycled: at most 4*Workers+2 are ever allocated.
		free := make(chan *block, 4*p.opts.Workers+2)
		acc, err := p.run(true, func(first int64, n int) *block {
			var b *block
			select {
			case b = <-free:
			default:
				b = &block{in: make([]uint64, blockSize*p.iw), out: make([]uint64, blockSize*p.ow)}
			}
			b.first, b.n, b.err = first, n, nil
			b.in, b.out = b.in[:n*p.iw], b.out[:n*p.ow]
			return b
		}, emit, func(b *block) {
			select {
			case free <- b:
			default:
			}
		})
		if err != nil {
			return nil, err
		}
		m := p.manifest(acc)
		man = &m
		return man, nil
	})
	if err != nil {
		return nil, err
	}
	return man, nil
}

// hashWriter writes to w and hashes what it wrote.
type hashWriter struct {
	w     io.Writer
	h     hash.Hash // SHA-256; nil when a dataPair hashes the stream (sha)
	sha   [32]byte  // the stream's SHA-256, set by dataPair.finish when h is nil
	crc   uint32
	n     int64
	lines int64
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func newHashWriter(w io.Writer) *hashWriter { return &hashWriter{w: w, h: sha256.New()} }

// hashChunk is how many bytes hashWriter.write takes at a time through
// its four passes (SHA-256, CRC-32C, line count, the write's copy): small
// enough that the passes after the first read the chunk from the L1/L2
// cache instead of from memory (a block's lines are hundreds of KB).
const hashChunk = 16 << 10

func (hw *hashWriter) write(b []byte) error {
	for len(b) > 0 {
		c := b[:min(len(b), hashChunk)]
		b = b[len(c):]
		if hw.h != nil {
			hw.h.Write(c)
		}
		hw.crc = crc32.Update(hw.crc, castagnoli, c)
		hw.n += int64(len(c))
		hw.lines += int64(bytes.Count(c, []byte{'\n'}))
		if _, err := hw.w.Write(c); err != nil {
			return err
		}
	}
	return nil
}

func (hw *hashWriter) sum(name string) FileHash {
	sha := hw.sha[:]
	if hw.h != nil {
		sha = hw.h.Sum(nil)
	}
	return FileHash{Name: name, Bytes: hw.n, Lines: hw.lines, SHA256: hex.EncodeToString(sha), CRC32C: fmt.Sprintf("%08x", hw.crc)}
}

// dataPair writes a set's stimulus and expected bytes, block by block, to
// their two hashWriters. When neither is compressed the SHA-256 of both
// is one sha256Pair (the two streams' blocks interleaved through SHA-NI,
// about two thirds of the CPU time of two separate hashes) and the
// hashWriters do the rest (CRC-32C, lines, the write); otherwise each
// hashes its own bytes (a compressed file's are the encoder's output).
type dataPair struct {
	stim, exp *hashWriter
	sha       *sha256Pair // nil: each hashWriter hashes its own
	sw, ew    func([]byte) error
}

// newDataPair pairs the hashing of the stimulus and expected files stim
// and exp.
func newDataPair(stim, exp *dataFile) *dataPair {
	d := &dataPair{stim: stim.hw, exp: exp.hw, sw: stim.write, ew: exp.write}
	if stim.enc == nil && exp.enc == nil {
		d.sha = newSHA256Pair()
		d.stim.h, d.exp.h = nil, nil
	}
	return d
}

// write writes one block's stimulus bytes s and expected bytes e. Paired,
// they go through in the same number of chunks of at most hashChunk
// bytes, so every chunk pair feeds both streams and the pair's blocks
// interleave over the whole of the shorter stream.
func (d *dataPair) write(s, e []byte) error {
	if d.sha == nil {
		if err := d.sw(s); err != nil {
			return err
		}
		return d.ew(e)
	}
	k := max((len(s)+hashChunk-1)/hashChunk, (len(e)+hashChunk-1)/hashChunk)
	for ; k > 0; k-- {
		cs, ce := s[:len(s)/k], e[:len(e)/k]
		s, e = s[len(cs):], e[len(ce):]
		d.sha.write(cs, ce)
		if err := d.stim.write(cs); err != nil {
			return err
		}
		if err := d.exp.write(ce); err != nil {
			return err
		}
	}
	return nil
}

// finish sets the paired streams' SHA-256 (sum then reads them).
func (d *dataPair) finish() {
	if d.sha != nil {
		d.stim.sha, d.exp.sha = d.sha.sums()
	}
}

// dataFile is a stimulus or expected file being written: the bytes go
// through a zstd encoder when the set is compressed, and the hash is of
// what reaches the file.
type dataFile struct {
	hw  *hashWriter
	enc *zstd.Encoder // nil when plain
}

// hashSink adapts a hashWriter to io.Writer for the encoder.
type hashSink struct{ hw *hashWriter }

func (s hashSink) Write(b []byte) (int, error) {
	if err := s.hw.write(b); err != nil {
		return 0, err
	}
	return len(b), nil
}

// newDataFile starts a data file on w, compressed per compress ("" or
// CompressZstd).
func newDataFile(w io.Writer, compress string) (*dataFile, error) {
	d := &dataFile{hw: newHashWriter(w)}
	if compress == CompressZstd {
		enc, err := newZstdWriter(hashSink{d.hw})
		if err != nil {
			return nil, err
		}
		d.enc = enc
	}
	return d, nil
}

func (d *dataFile) write(b []byte) error {
	if d.enc == nil {
		return d.hw.write(b)
	}
	_, err := d.enc.Write(b)
	return err
}

// finish ends the compressed stream (its last frame and checksum).
func (d *dataFile) finish() error {
	if d.enc == nil {
		return nil
	}
	if err := d.enc.Close(); err != nil {
		return fmt.Errorf("zstd: %w", err)
	}
	return nil
}

func (d *dataFile) sum(name string) FileHash { return d.hw.sum(name) }

// writeSmall writes one small file atomically and returns its hash.
func writeSmall(dir, name string, data []byte) (FileHash, error) {
	var fh FileHash
	err := atomicfile.Write(filepath.Join(dir, name), 0o644, func(w io.Writer) error {
		hw := newHashWriter(w)
		if err := hw.write(data); err != nil {
			return err
		}
		fh = hw.sum(name)
		return nil
	})
	return fh, err
}

// writeDir writes a set's files through an artefact.Writer on dir:
// layout.json and fields.vh, then stimulus.hex, expected.hex and
// vectors.jsonl in one pass over the blocks that feed hands to emit, then
// classes.txt (the class ranges), then manifest.json with every file's hash, committed last. ctx is checked
// before each block. The data files are written with atomicfile.WriteLarge
// (O_DIRECT where the file system takes it: no page-cache copy).
func writeDir(ctx context.Context, outDir string, p *plan, feed func(emit func(*block) error) (*Manifest, error)) error {
	aw, err := artefact.Create(outDir, "vectors")
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	defer aw.Close()
	dir := aw.Root()
	lf, err := marshalLayout(p)
	if err != nil {
		return err
	}
	layoutHash, err := writeSmall(dir, LayoutFile, lf)
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	vhHash, err := writeSmall(dir, FieldsVHFile, fieldsVH(p.m, buildinfo.String(), p.lay))
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}

	var stim, exp *dataFile
	var data *dataPair
	var jl, org *hashWriter
	var man *Manifest
	var bodyErr error
	body := func() error {
		man, bodyErr = feed(func(b *block) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("vectors: writing %s stopped: %w", outDir, err)
			}
			if err := data.write(b.stim, b.exp); err != nil {
				return err
			}
			if jl != nil {
				if err := jl.write(b.jl); err != nil {
					return err
				}
			}
			if org != nil {
				return org.write(b.org)
			}
			return nil
		})
		return bodyErr
	}
	withOrigins := func() error {
		if p.capture == nil {
			return body()
		}
		return atomicfile.Write(filepath.Join(dir, CaptureFile), 0o644, func(wo io.Writer) error {
			org = newHashWriter(wo)
			return body()
		})
	}
	stimName, expName := StimulusFile, ExpectedFile
	if p.opts.Binary {
		stimName, expName = StimulusBinFile, ExpectedBinFile
	}
	if p.opts.Compress != "" {
		stimName, expName = stimName+zstSuffix, expName+zstSuffix
	}
	err = atomicfile.WriteLarge(filepath.Join(dir, stimName), 0o644, func(ws io.Writer) error {
		var err error
		if stim, err = newDataFile(ws, p.opts.Compress); err != nil {
			return err
		}
		err = atomicfile.WriteLarge(filepath.Join(dir, expName), 0o644, func(we io.Writer) error {
			var err error
			if exp, err = newDataFile(we, p.opts.Compress); err != nil {
				return err
			}
			data = newDataPair(stim, exp)
			if p.opts.NoJSONL {
				err = withOrigins()
			} else {
				err = atomicfile.WriteLarge(filepath.Join(dir, JSONLFile), 0o644, func(wj io.Writer) error {
					jl = newHashWriter(wj)
					return withOrigins()
				})
			}
			if err != nil {
				return err
			}
			return exp.finish()
		})
		if err != nil {
			return err
		}
		return stim.finish()
	})
	if bodyErr != nil {
		return bodyErr
	}
	if err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	data.finish()
	man.Files = []FileHash{stim.sum(stimName), exp.sum(expName)}
	if jl != nil {
		man.Files = append(man.Files, jl.sum(JSONLFile))
	}
	if org != nil {
		man.Files = append(man.Files, org.sum(CaptureFile))
	}
	clHash, err := writeClasses(dir, man)
	if err != nil {
		return err
	}
	man.Files = append(man.Files, clHash, vhHash, layoutHash)
	mb, err := marshalManifest(man)
	if err != nil {
		return err
	}
	if err := aw.CommitManifest(ctx, mb); err != nil {
		return fmt.Errorf("vectors: %w", err)
	}
	return nil
}

// marshalLayout renders layout.json.
func marshalLayout(p *plan) ([]byte, error) {
	return marshalLayoutFile(layoutFile{Model: p.m.Name(), Input: p.lay.in, Output: p.lay.out})
}

// Origin returns where vector k of a captured set was captured (its Txn
// numbered within its flow over the whole capture); ok is false for a
// generated set.
func (s *Set) Origin(k int) (o Origin, ok bool) {
	if s.plan.origins == nil {
		return Origin{}, false
	}
	return s.plan.origins[s.Index(k)-int64(len(s.plan.dirLabel))], true
}
