package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// File names inside a vector set directory.
const (
	StimulusFile = "stimulus.hex"
	ExpectedFile = "expected.hex"
	JSONLFile    = "vectors.jsonl"
	FieldsVHFile = "fields.vh"
	LayoutFile   = "layout.json"
	ManifestFile = "manifest.json"
	// CaptureFile holds, for a captured set, each vector's origin (host,
	// role, QP, connection, transaction number, cycle) as JSON Lines.
	CaptureFile = "capture.jsonl"
)

// Manifest is manifest.json: everything needed to reproduce, check and
// verify a vector set. It is written last, after every file it hashes.
type Manifest struct {
	Tool        string          `json:"tool"`                   // buildinfo.String() of the generator
	Model       string          `json:"model"`                  // Model.Name()
	Config      json.RawMessage `json:"config"`                 // Model.Config(), full
	Level       int             `json:"level"`                  // 1 or 2; 0 for a captured set
	Seed        uint64          `json:"seed"`                   // seed of the random vectors (0 for a captured set)
	RandomCount int64           `json:"random_count"`           // random vectors in the unsharded set
	ClassFilter []string        `json:"class_filter,omitempty"` // directed classes requested, if restricted
	Total       int64           `json:"total"`                  // vectors in the unsharded set
	Shard       ShardInfo       `json:"shard"`                  // which part of it this directory holds
	Count       int64           `json:"count"`                  // vectors (lines) in this directory
	// Capture describes a captured set's source (vectors gen --from-sim);
	// nil for generated sets, whose level, seed and random count say how
	// they were made.
	Capture *CaptureInfo `json:"capture,omitempty"`
	// Module describes a stream set (WriteStreamSet): the events of a
	// stateful module, replayed in order; nil for per-vector sets.
	Module *ModuleInfo `json:"module,omitempty"`
	// Bias is the bias schedule of the random vectors (vectors gen
	// --until-covered); empty for plain random draws.
	Bias []BiasStep `json:"bias,omitempty"`
	// Compression is CompressZstd when the stimulus and expected files are
	// zstd streams (their names end in ".zst" and their Files entries hash
	// the compressed bytes); empty when they are plain.
	Compression string `json:"compression,omitempty"`
	// Pipe describes the stream of a set written to a pipe (GeneratePipe,
	// vectors gen --out -); nil for a set written to a directory. Files
	// then holds the hashes of the stimulus and expected files as a
	// directory of the same set holds them; no file was written.
	Pipe     *PipeInfo    `json:"pipe,omitempty"`
	Classes  []ClassCount `json:"classes"`  // every class, directed in order, then "random" (captured sets: the capture's class)
	Coverage Coverage     `json:"coverage"` // of the vectors in this directory
	Files    []FileHash   `json:"files"`    // every other file of the directory
}

// ShardInfo locates a directory's vectors in the unsharded set.
type ShardInfo struct {
	Index int   `json:"index"` // 0-based shard number i of i/n
	Count int   `json:"count"` // n; 1 when unsharded
	First int64 `json:"first"` // global index of this directory's first vector
}

// ClassCount is one class's place and counts in a vector set.
type ClassCount struct {
	Name     string `json:"name"`
	Doc      string `json:"doc"`
	Level    int    `json:"level"`    // 1, 2, or 0 for "random"
	Detected bool   `json:"detected"` // the evaluator recognises the class (Class.Detected)
	Total    int64  `json:"total"`    // vectors generated for it in the unsharded set
	First    int64  `json:"first"`    // global index of its first vector in the unsharded set
	Count    int64  `json:"count"`    // vectors generated for it in this directory
	Hits     int64  `json:"hits"`     // vectors of this directory (any class) that hit it; 0 if not detected
	// Unreachable, when not empty, says why the configuration cannot produce
	// the class (Class.Unreachable); Total, Count and Hits are then 0.
	Unreachable string `json:"unreachable,omitempty"`
}

// FileHash is a file's size, line count, SHA-256 and CRC-32C (Castagnoli),
// lowercase hex. Verify checks both; Check, which must keep up with
// millions of lines per second, checks the golden expected.hex against the
// CRC-32C (an order of magnitude cheaper than SHA-256, and it detects every
// burst error up to 32 bits).
type FileHash struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	Lines  int64  `json:"lines"`
	SHA256 string `json:"sha256"`
	CRC32C string `json:"crc32c"`
}

// Coverage is what the vectors of a directory exercised.
type Coverage struct {
	InputBits  BitCoverage     `json:"input_bits"`  // per input bit: seen both 0 and 1
	OutputBits BitCoverage     `json:"output_bits"` // per output bit: seen both 0 and 1
	Points     []PointCoverage `json:"points"`      // branch and table-entry hit counts
}

// BitCoverage says which bits of a table toggled (took both values).
type BitCoverage struct {
	Width   int           `json:"width"`   // bits in the table
	Toggled int           `json:"toggled"` // bits that took both values
	Fields  []FieldToggle `json:"fields"`
}

// FieldToggle is one field's toggled bits.
type FieldToggle struct {
	Field   string `json:"field"`
	Width   int    `json:"width"`
	Toggled int    `json:"toggled"` // number of toggled bits
	Mask    string `json:"mask"`    // toggled bits as a hex mask of the field (bit k = field bit k)
}

// PointCoverage is one cover point's bins and their hit counts.
type PointCoverage struct {
	Name   string   `json:"name"`
	Doc    string   `json:"doc"`
	Bins   int      `json:"bins"`
	Hit    int      `json:"hit"` // bins with a nonzero count
	Labels []string `json:"labels,omitempty"`
	Counts []uint64 `json:"counts"` // per bin: evaluations that exercised it
}

// ClassAt returns the name of the class of the vector with global index i
// (per the class ranges), or "" if i is outside the set.
func (m *Manifest) ClassAt(i int64) string {
	for _, c := range m.Classes {
		if i >= c.First && i < c.First+c.Total {
			return c.Name
		}
	}
	return ""
}

// marshalManifest renders m as indented JSON with a trailing newline.
func marshalManifest(m *Manifest) ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("vectors: marshal manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// ReadManifest reads and decodes dir/manifest.json, rejecting unknown fields.
func ReadManifest(dir string) (*Manifest, error) {
	p := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("vectors: %s: %w", p, err)
	}
	if m.Shard.Count < 1 || m.Shard.Index < 0 || m.Shard.Index >= m.Shard.Count || m.Count < 0 || m.Shard.First < 0 || m.Shard.First+m.Count > m.Total {
		return nil, fmt.Errorf("vectors: %s: inconsistent shard %d/%d first=%d count=%d total=%d", p, m.Shard.Index, m.Shard.Count, m.Shard.First, m.Count, m.Total)
	}
	return &m, nil
}

// readLayout reads dir/layout.json.
func readLayout(dir string) (*layoutFile, *layout, error) {
	p := filepath.Join(dir, LayoutFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, nil, fmt.Errorf("vectors: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var lf layoutFile
	if err := dec.Decode(&lf); err != nil {
		return nil, nil, fmt.Errorf("vectors: %s: %w", p, err)
	}
	for _, t := range []struct {
		name string
		t    fieldtable.Table
	}{{"input", lf.Input}, {"output", lf.Output}} {
		if err := checkTable(t.t); err != nil {
			return nil, nil, fmt.Errorf("vectors: %s: %s table: %w", p, t.name, err)
		}
	}
	lay, err := newLayout(lf.Input, lf.Output)
	if err != nil {
		return nil, nil, fmt.Errorf("vectors: %s: %w", p, err)
	}
	return &lf, lay, nil
}

// checkTable checks that a decoded table is what fieldtable.New lays out for
// its fields (contiguous LSB-first offsets, widths 1..64, total width).
func checkTable(t fieldtable.Table) error {
	specs := make([]fieldtable.Spec, len(t.Fields))
	for i, f := range t.Fields {
		specs[i] = fieldtable.Spec{Name: f.Name, Width: f.Width, Format: f.Format, Doc: f.Doc}
	}
	nt, err := fieldtable.New(t.Name, specs)
	if err != nil {
		return err
	}
	if nt.Width != t.Width {
		return fmt.Errorf("width=%d but its fields sum to %d bits", t.Width, nt.Width)
	}
	for i, f := range t.Fields {
		if f.Offset != nt.Fields[i].Offset {
			return fmt.Errorf("field %s: offset=%d, want %d", f.Name, f.Offset, nt.Fields[i].Offset)
		}
	}
	return nil
}
