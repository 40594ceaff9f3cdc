package vectors

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/olekukonko/tablewriter/tw"
)

// VectorView is one vector of a set, field by field: what `hpccgold vectors
// show` prints.
type VectorView struct {
	Dir     string
	Model   string
	Index   int64 // global index
	Line    int64 // 1-based line of stimulus.hex and expected.hex
	Class   string
	Inputs  []FieldValue
	Outputs []FieldValue
	// stim, exp name the files the vector was read from (hex lines or
	// binary records).
	stim, exp string
}

// Show reads vector index (global, as `vectors check` reports it) of the set
// in dir: its class and its input and expected output fields, each raw, in
// hex and as its exact real value. An index outside the directory's vectors
// is an error naming the range.
func Show(dir string, index int64) (*VectorView, error) {
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	first, last := man.Shard.First, man.Shard.First+man.Count
	if index < first || index >= last {
		return nil, fmt.Errorf("vectors: show: index %d: the set %s holds vectors %d to %d", index, dir, first, last-1)
	}
	lf, lay, err := readLayout(dir)
	if err != nil {
		return nil, err
	}
	if lf.Model != man.Model {
		return nil, fmt.Errorf("vectors: %s: model %q but manifest says %q", filepath.Join(dir, LayoutFile), lf.Model, man.Model)
	}
	k := index - first
	v := &VectorView{Dir: dir, Model: man.Model, Index: index, Line: k + 1, Class: man.ClassAt(index)}
	v.stim, v.exp = man.VectorFiles()
	for _, part := range []struct {
		file string
		dst  *[]FieldValue
		in   bool
	}{{v.stim, &v.Inputs, true}, {v.exp, &v.Outputs, false}} {
		tab, fmts := lay.out, lay.outFmt
		if part.in {
			tab, fmts = lay.in, lay.inFmt
		}
		words := make([]uint64, tab.Words())
		if man.IsBinary() {
			if err := nthRecord(dir, part.file, tab, k, man.Count, words); err != nil {
				return nil, err
			}
		} else {
			line, err := nthLine(dir, part.file, k, man.Count)
			if err != nil {
				return nil, err
			}
			if err := tab.ParseHex(string(line), words); err != nil {
				return nil, fmt.Errorf("vectors: %s: line %d: %w", filepath.Join(dir, part.file), k+1, err)
			}
		}
		for i, f := range tab.Fields {
			raw := fieldtable.Get(words, f)
			*part.dst = append(*part.dst, FieldValue{Field: f.Name, Format: f.Format, Raw: raw,
				Hex: string(appendFieldHex(nil, f.Width, raw)), Real: realString(fmts[i], f.Width, raw)})
		}
	}
	return v, nil
}

// nthRecord decodes record k (0-based) of the binary file name in dir,
// which the manifest says holds count records of tab, into words; a
// compressed file is read through to the record.
func nthRecord(dir, name string, tab fieldtable.Table, k, count int64, words []uint64) error {
	path := filepath.Join(dir, name)
	if strings.HasSuffix(name, zstSuffix) {
		f, err := openData(dir, name, nil)
		if err != nil {
			return fmt.Errorf("vectors: show: %w", err)
		}
		defer f.Close()
		rr := newRecordReader(f, tab, path)
		for i := int64(0); i <= k; i++ {
			ok, err := rr.next(words)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("vectors: %s: golden set damaged: %d records, manifest says %d (run hpccgold vectors verify)", path, i, count)
			}
		}
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("vectors: show: %w", err)
	}
	defer f.Close()
	size := int64(RecordBytes(tab))
	if fi, err := f.Stat(); err != nil || fi.Size() != size*count {
		return fmt.Errorf("vectors: show: %s: not %d records of %d bytes; run `hpccgold vectors verify`", path, count, size)
	}
	rec := make([]byte, size)
	if _, err := f.ReadAt(rec, k*size); err != nil {
		return fmt.Errorf("vectors: show: %s: record %d: %w", path, k+1, err)
	}
	if err := parseRecord(tab, rec, words); err != nil {
		return fmt.Errorf("vectors: show: %s: record %d: %w", path, k+1, err)
	}
	return nil
}

// nthLine returns line k (0-based) of the file name in dir (decompressed
// if it is compressed), which the manifest says has count lines.
func nthLine(dir, name string, k, count int64) ([]byte, error) {
	path := filepath.Join(dir, name)
	f, err := openData(dir, name, nil)
	if err != nil {
		return nil, fmt.Errorf("vectors: show: %w", err)
	}
	defer f.Close()
	lr := newLineReader(f, path)
	for i := int64(0); ; i++ {
		line, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("vectors: %s: truncated: %d lines, manifest says %d (run hpccgold vectors verify)", path, i, count)
		}
		if i == k {
			return line, nil
		}
	}
}

// Write prints the vector: a heading, then the inputs and the expected
// outputs as tables (field, format, hex, real value).
func (v *VectorView) Write(w io.Writer) error {
	stim, exp := v.stim, v.exp
	if stim == "" {
		stim, exp = StimulusFile, ExpectedFile
	}
	what := "line"
	if plainName(stim) == StimulusBinFile {
		what = "record"
	}
	if _, err := fmt.Fprintf(w, "vector %d of %s (model %s, class %s, %s %d of %s and %s)\n",
		v.Index, v.Dir, v.Model, v.Class, what, v.Line, stim, exp); err != nil {
		return err
	}
	for _, part := range []struct {
		title string
		vals  []FieldValue
	}{{"inputs", v.Inputs}, {"expected outputs", v.Outputs}} {
		fmt.Fprintf(w, "%s:\n", part.title)
		t := newTable(w, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight)
		t.Header("field", "format", "hex", "value")
		for _, f := range part.vals {
			if err := t.Append([]string{f.Field, f.Format, f.Hex, f.Real}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	return nil
}
