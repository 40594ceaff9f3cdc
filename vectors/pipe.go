package vectors

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
)

// PipeInfo is the "pipe" section of the manifest of a set written as one
// stream (GeneratePipe, vectors gen --out -) instead of a directory.
type PipeInfo struct {
	// Format is "hex" or "bin": the records of the stream, as in
	// stimulus.hex/expected.hex or stimulus.bin/expected.bin.
	Format string `json:"format"`
	// RecordBytes is the bytes of one vector in the stream: its stimulus
	// record followed by its expected record.
	RecordBytes int    `json:"record_bytes"`
	Bytes       int64  `json:"bytes"`  // the whole stream: Count * RecordBytes
	CRC32C      string `json:"crc32c"` // of the whole stream, lowercase hex (what a reader can check cheaply)
}

// GeneratePipe generates the vectors opts selects from model m, as
// GenerateDir does, and writes them to w as one stream for a simulator that
// reads its standard input: for each vector in index order, its stimulus
// record and then its expected record. With hex records (the default) that
// is the vector's stimulus.hex line, then its expected.hex line; with
// opts.Binary its stimulus.bin record, then its expected.bin record
// (RecordBytes of each table, back to back, no header). The stream holds
// exactly the bytes of the stimulus and expected files of the same set
// written to a directory, interleaved per vector.
//
// It returns the set's manifest, not written anywhere: Files holds the
// size, lines and hashes (SHA-256, CRC-32C) of the stimulus and expected
// files as a directory of the same set holds them (so the stream can be
// compared with a pinned set), and Pipe the stream's size and CRC-32C.
// vectors.jsonl and compression do not apply (opts.NoJSONL must be set,
// opts.Compress empty: pipe the stream through zstd if wanted). An error
// writing to w (a closed pipe: EPIPE) stops generation and is returned;
// ctx is checked before each block.
func GeneratePipe(ctx context.Context, w io.Writer, m Model, opts Options) (*Manifest, error) {
	if !opts.NoJSONL {
		return nil, errors.New("vectors: GeneratePipe: NoJSONL=false: vectors.jsonl cannot go into the stream (set NoJSONL)")
	}
	if opts.Compress != "" {
		return nil, fmt.Errorf("vectors: GeneratePipe: Compress=%q: the stream is written plain (pipe it through zstd if wanted)", opts.Compress)
	}
	p, err := newPlan(m, opts)
	if err != nil {
		return nil, err
	}
	if p.capture != nil {
		return nil, errors.New("vectors: GeneratePipe: a captured set is written to a directory")
	}
	if opts.Preflight != nil {
		if err := opts.Preflight(p.estimate()); err != nil {
			return nil, err
		}
	}
	stimName, expName, format := StimulusFile, ExpectedFile, "hex"
	inRec, outRec := p.lay.in.HexDigits()+1, p.lay.out.HexDigits()+1
	if opts.Binary {
		stimName, expName, format = StimulusBinFile, ExpectedBinFile, "bin"
		inRec, outRec = RecordBytes(p.lay.in), RecordBytes(p.lay.out)
	}
	stim, exp := newHashWriter(io.Discard), newHashWriter(io.Discard)
	data := newDataPair(&dataFile{hw: stim}, &dataFile{hw: exp})
	var buf []byte // one block's interleaved records, reused
	var crc uint32
	var n int64
	free := make(chan *block, 4*p.opts.Workers+2)
	acc, err := p.run(true, func(first int64, k int) *block {
		var b *block
		select {
		case b = <-free:
		default:
			b = &block{in: make([]uint64, blockSize*p.iw), out: make([]uint64, blockSize*p.ow)}
		}
		b.first, b.n, b.err = first, k, nil
		b.in, b.out = b.in[:k*p.iw], b.out[:k*p.ow]
		return b
	}, func(b *block) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("vectors: writing the stream stopped: %w", err)
		}
		if err := data.write(b.stim, b.exp); err != nil {
			return err
		}
		buf = buf[:0]
		for k := 0; k < b.n; k++ {
			buf = append(buf, b.stim[k*inRec:(k+1)*inRec]...)
			buf = append(buf, b.exp[k*outRec:(k+1)*outRec]...)
		}
		crc = crc32.Update(crc, castagnoli, buf)
		n += int64(len(buf))
		if _, err := w.Write(buf); err != nil {
			return fmt.Errorf("vectors: writing the stream: %w", err)
		}
		return nil
	}, func(b *block) {
		select {
		case free <- b:
		default:
		}
	})
	if err != nil {
		return nil, err
	}
	man := p.manifest(acc)
	data.finish()
	man.Files = []FileHash{stim.sum(stimName), exp.sum(expName)}
	man.Pipe = &PipeInfo{Format: format, RecordBytes: inRec + outRec, Bytes: n, CRC32C: fmt.Sprintf("%08x", crc)}
	return &man, nil
}

// MarshalManifest renders m as manifest.json is written (indented JSON, a
// final newline): for a manifest GeneratePipe returns, which its caller
// writes where it chooses.
func MarshalManifest(m *Manifest) ([]byte, error) { return marshalManifest(m) }
