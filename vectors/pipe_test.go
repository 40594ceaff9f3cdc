package vectors

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"syscall"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestGeneratePipe checks the stream GeneratePipe writes against the files
// GenerateDir writes for the same request (the oracle): de-interleaved per
// vector, the stream is byte for byte the stimulus and expected files, hex
// and binary; the manifest's Files entries equal the directory manifest's
// entries of those files, its counts and coverage equal the directory
// manifest's, and Pipe gives the stream's size and CRC-32C.
func TestGeneratePipe(t *testing.T) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, bin := range []bool{false, true} {
		opts := Options{Count: 5000, Seed: 7, NoJSONL: true, Binary: bin, Shard: Shard{Index: 1, Count: 2}}
		dir := t.TempDir()
		dman, err := GenerateDir(dir, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		var stream bytes.Buffer
		pman, err := GeneratePipe(context.Background(), &stream, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		stimName, expName := dman.VectorFiles()
		stim, exp := readFile(t, dir, stimName), readFile(t, dir, expName)
		n := int(dman.Count)
		si, ei := len(stim)/n, len(exp)/n
		var want []byte
		for k := 0; k < n; k++ {
			want = append(want, stim[k*si:(k+1)*si]...)
			want = append(want, exp[k*ei:(k+1)*ei]...)
		}
		if !bytes.Equal(stream.Bytes(), want) {
			t.Fatalf("binary %v: the stream (%d bytes) is not the directory's stimulus and expected files interleaved (%d bytes)", bin, stream.Len(), len(want))
		}
		if len(pman.Files) != 2 || pman.Files[0] != dman.Files[0] || pman.Files[1] != dman.Files[1] {
			t.Errorf("binary %v: pipe manifest files %+v, directory's %+v", bin, pman.Files, dman.Files[:2])
		}
		wantPipe := PipeInfo{Format: map[bool]string{false: "hex", true: "bin"}[bin], RecordBytes: si + ei, Bytes: int64(len(want)),
			CRC32C: fmt.Sprintf("%08x", crc32.Checksum(want, castagnoli))}
		if pman.Pipe == nil || *pman.Pipe != wantPipe {
			t.Errorf("binary %v: Pipe = %+v, want %+v", bin, pman.Pipe, wantPipe)
		}
		pj, dj := *pman, *dman
		pj.Files, dj.Files, pj.Pipe = nil, nil, nil
		a, _ := marshalManifest(&pj)
		b, _ := marshalManifest(&dj)
		if !bytes.Equal(a, b) {
			t.Errorf("binary %v: the pipe manifest differs from the directory's beyond files and pipe", bin)
		}
	}
}

// failAfter accepts n bytes, then fails every write with err.
type failAfter struct {
	n   int
	err error
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k := f.n
		f.n = 0
		return k, f.err
	}
	f.n -= len(p)
	return len(p), nil
}

// TestGeneratePipeErrors checks that a failed write (a closed pipe) stops
// GeneratePipe with an error wrapping the write's error, and that requests
// the stream cannot carry (vectors.jsonl, compression) are refused naming
// the option.
func TestGeneratePipeErrors(t *testing.T) {
	m, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	w := &failAfter{n: 100_000, err: syscall.EPIPE}
	if _, err := GeneratePipe(context.Background(), w, m, Options{Count: 50_000, NoJSONL: true}); !errors.Is(err, syscall.EPIPE) {
		t.Errorf("closed pipe: error %v, want EPIPE", err)
	}
	for _, tc := range []struct {
		opts Options
		want string
	}{{Options{Count: 1}, "NoJSONL"}, {Options{Count: 1, NoJSONL: true, Compress: CompressZstd}, "Compress"}} {
		if _, err := GeneratePipe(context.Background(), io.Discard, m, tc.opts); err == nil || !bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("%+v: error %v, want one naming %s", tc.opts, err, tc.want)
		}
	}
}
