package vectors

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/olekukonko/tablewriter/tw"
)

// CheckOptions tunes Check.
type CheckOptions struct {
	// MaxDiffs is how many mismatching vectors are detailed field by field;
	// 0 means 10, negative means none.
	//
	// A golden set of no vectors is an error: a check of nothing passes
	// nothing.
	MaxDiffs int
}

// CheckReport is the outcome of comparing a DUT's outputs with a golden set.
type CheckReport struct {
	Golden     string       // golden directory
	DUT        string       // DUT file name
	DUTFormat  string       // "hex" or "jsonl"
	Model      string       // the golden set's model
	Checked    int64        // vectors compared (= golden count)
	Passed     int64        // vectors whose every output field matched
	Failed     int64        // vectors with at least one differing field
	FieldFails []FieldCount // per output field: vectors where it differed (table order; zero counts omitted)
	Mismatches []Mismatch   // the first CheckOptions.MaxDiffs failing vectors
}

// FieldCount is a per-field mismatch count.
type FieldCount struct {
	Field string `json:"field"`
	Count int64  `json:"count"`
}

// Mismatch is one failing vector.
type Mismatch struct {
	Index  int64       // global vector index
	Line   int         // 1-based line in the DUT file
	Class  string      // the class it was generated for
	Fields []FieldDiff // the differing fields, in table order
}

// FieldDiff is one differing output field.
type FieldDiff struct {
	Field    string
	Format   string
	Want     uint64 // golden raw bits
	Got      uint64 // DUT raw bits
	WantHex  string // "0x.." padded to the field width
	GotHex   string
	WantReal string // exact real value per Format
	GotReal  string
}

// OK reports whether every vector passed.
func (r *CheckReport) OK() bool { return r.Failed == 0 }

// Check compares a DUT's output file with the golden set in goldenDir. The
// file is either in expected.hex layout (one Output() word per line, hex;
// blank lines and "//" comment lines are skipped, as $writememh may emit) or
// JSON Lines (first non-blank character '{'): one object per vector whose
// output fields are under "out" or at the top level, each as a "0x" hex
// string, a non-negative JSON integer, or an object with such a "raw"
// member; an "index" member, if present, must equal the vector's global
// index. Mismatches are failures counted in the report; a malformed,
// truncated or over-long DUT file, or a golden set whose expected.hex does
// not match its manifest (CRC-32C), is an error naming the file and line.
func Check(goldenDir, dutFile string, opts CheckOptions) (*CheckReport, error) {
	f, err := os.Open(dutFile)
	if err != nil {
		return nil, fmt.Errorf("vectors: check: %w", err)
	}
	defer f.Close()
	return CheckReader(goldenDir, f, dutFile, opts)
}

// CheckReader is Check reading the DUT's outputs from r, named name in errors.
func CheckReader(goldenDir string, r io.Reader, name string, opts CheckOptions) (*CheckReport, error) {
	if opts.MaxDiffs == 0 {
		opts.MaxDiffs = 10
	}
	man, err := ReadManifest(goldenDir)
	if err != nil {
		return nil, err
	}
	if man.Count == 0 {
		return nil, fmt.Errorf("vectors: check: golden set %s holds no vectors (count 0 of total %d, shard %d/%d): nothing to check", goldenDir, man.Total, man.Shard.Index, man.Shard.Count)
	}
	lf, lay, err := readLayout(goldenDir)
	if err != nil {
		return nil, err
	}
	if lf.Model != man.Model {
		return nil, fmt.Errorf("vectors: %s: model %q but manifest says %q", filepath.Join(goldenDir, LayoutFile), lf.Model, man.Model)
	}
	var expHash *FileHash
	for i := range man.Files {
		if man.Files[i].Name == ExpectedFile {
			expHash = &man.Files[i]
		}
	}
	goldenPath := filepath.Join(goldenDir, ExpectedFile)
	if expHash == nil {
		return nil, fmt.Errorf("vectors: %s: no entry for %s", filepath.Join(goldenDir, ManifestFile), ExpectedFile)
	}
	gf, err := os.Open(goldenPath)
	if err != nil {
		return nil, fmt.Errorf("vectors: check: %w", err)
	}
	defer gf.Close()
	crc := &crcWriter{}
	golden := newLineReader(io.TeeReader(gf, crc), goldenPath)
	dut := newLineReader(r, name)

	rep := &CheckReport{Golden: goldenDir, DUT: name, Model: man.Model, DUTFormat: "hex"}
	first, err := dut.peekNonSpace()
	if err != nil {
		return nil, err
	}
	if first == '{' {
		rep.DUTFormat = "jsonl"
	}
	c := &checker{rep: rep, man: man, lay: lay, opts: opts, golden: golden, dut: dut,
		want: make([]uint64, lay.out.Words()), got: make([]uint64, lay.out.Words()),
		fieldFails: make([]int64, len(lay.out.Fields))}
	if rep.DUTFormat == "jsonl" {
		err = c.runJSONL()
	} else {
		err = c.runHex()
	}
	if err != nil {
		return nil, err
	}
	// Drain the golden file so the hash covers all of it, then check it.
	if _, err := io.Copy(io.Discard, golden.r); err != nil {
		return nil, fmt.Errorf("vectors: %s: %w", goldenPath, err)
	}
	if sum := fmt.Sprintf("%08x", crc.crc); sum != expHash.CRC32C {
		return nil, fmt.Errorf("vectors: %s: CRC-32C %s does not match the manifest's %s: the golden set is corrupted (run hpccgold vectors verify)", goldenPath, sum, expHash.CRC32C)
	}
	for i, n := range c.fieldFails {
		if n != 0 {
			rep.FieldFails = append(rep.FieldFails, FieldCount{Field: lay.out.Fields[i].Name, Count: n})
		}
	}
	return rep, nil
}

// crcWriter accumulates the CRC-32C of what is written to it.
type crcWriter struct{ crc uint32 }

func (c *crcWriter) Write(b []byte) (int, error) {
	c.crc = crc32.Update(c.crc, castagnoli, b)
	return len(b), nil
}

type checker struct {
	rep        *CheckReport
	man        *Manifest
	lay        *layout
	opts       CheckOptions
	golden     *lineReader
	dut        *lineReader
	want, got  []uint64
	fieldFails []int64
}

// nextGolden reads and parses the next golden line into c.want; it returns
// the raw line.
func (c *checker) nextGolden(k int64) ([]byte, error) {
	line, ok, err := c.golden.next()
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("vectors: %s: truncated: %d lines, manifest says %d", c.golden.name, k, c.man.Count)
	}
	return line, nil
}

func (c *checker) parseGolden(line []byte) error {
	if err := c.lay.out.ParseHex(string(line), c.want); err != nil {
		return fmt.Errorf("vectors: %s: line %d: %w", c.golden.name, c.golden.line, err)
	}
	return nil
}

// runHex compares a hex DUT file line by line.
func (c *checker) runHex() error {
	for k := int64(0); k < c.man.Count; k++ {
		gl, err := c.nextGolden(k)
		if err != nil {
			return err
		}
		dl, ok, err := c.dut.nextData()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("vectors: %s: truncated: ends after %d transactions (line %d), golden %s has %d", c.dut.name, k, c.dut.line, c.golden.name, c.man.Count)
		}
		c.rep.Checked++
		if bytes.Equal(gl, dl) {
			c.rep.Passed++
			continue
		}
		if err := c.parseGolden(gl); err != nil {
			return err
		}
		if err := c.lay.out.ParseHex(string(dl), c.got); err != nil {
			return fmt.Errorf("vectors: %s: line %d: %w (layout %s: %d bits, %d hex digits per line)", c.dut.name, c.dut.line, err, c.lay.out.Name, c.lay.out.Width, c.lay.out.HexDigits())
		}
		c.compare(k)
	}
	return c.expectEnd()
}

// expectEnd fails if the DUT file has transactions beyond the golden count.
func (c *checker) expectEnd() error {
	if _, ok, err := c.dut.nextData(); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("vectors: %s: line %d: more transactions than the golden set's %d", c.dut.name, c.dut.line, c.man.Count)
	}
	return nil
}

// compare counts vector k as passed or failed from c.want and c.got.
func (c *checker) compare(k int64) {
	same := true
	for i := range c.want {
		if c.want[i] != c.got[i] {
			same = false
		}
	}
	if same {
		c.rep.Passed++
		return
	}
	c.rep.Failed++
	detail := len(c.rep.Mismatches) < c.opts.MaxDiffs
	idx := c.man.Shard.First + k
	var mm Mismatch
	if detail {
		mm = Mismatch{Index: idx, Line: c.dut.line, Class: c.man.ClassAt(idx)}
	}
	for i, f := range c.lay.out.Fields {
		w, g := fieldtable.Get(c.want, f), fieldtable.Get(c.got, f)
		if w == g {
			continue
		}
		c.fieldFails[i]++
		if detail {
			ff := c.lay.outFmt[i]
			mm.Fields = append(mm.Fields, FieldDiff{Field: f.Name, Format: f.Format, Want: w, Got: g,
				WantHex: string(appendFieldHex(nil, f.Width, w)), GotHex: string(appendFieldHex(nil, f.Width, g)),
				WantReal: realString(ff, f.Width, w), GotReal: realString(ff, f.Width, g)})
		}
	}
	if detail {
		c.rep.Mismatches = append(c.rep.Mismatches, mm)
	}
}

// runJSONL compares a JSON Lines DUT file.
func (c *checker) runJSONL() error {
	for k := int64(0); k < c.man.Count; k++ {
		gl, err := c.nextGolden(k)
		if err != nil {
			return err
		}
		if err := c.parseGolden(gl); err != nil {
			return err
		}
		dl, ok, err := c.dut.nextNonBlank()
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("vectors: %s: truncated: ends after %d transactions (line %d), golden %s has %d", c.dut.name, k, c.dut.line, c.golden.name, c.man.Count)
		}
		if err := c.parseJSONLine(dl, c.man.Shard.First+k); err != nil {
			return fmt.Errorf("vectors: %s: line %d: %w", c.dut.name, c.dut.line, err)
		}
		c.rep.Checked++
		c.compare(k)
	}
	if _, ok, err := c.dut.nextNonBlank(); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("vectors: %s: line %d: more transactions than the golden set's %d", c.dut.name, c.dut.line, c.man.Count)
	}
	return nil
}

// parseJSONLine decodes one DUT JSON line into c.got.
func (c *checker) parseJSONLine(line []byte, index int64) error {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(line, &top); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if raw, ok := top["index"]; ok {
		var i int64
		if err := json.Unmarshal(raw, &i); err != nil {
			return fmt.Errorf("field index=%s: %w", raw, err)
		}
		if i != index {
			return fmt.Errorf("index=%d, want %d (transactions out of order?)", i, index)
		}
	}
	fields := top
	if raw, ok := top["out"]; ok {
		fields = nil
		if err := json.Unmarshal(raw, &fields); err != nil {
			return fmt.Errorf("field out: not a JSON object: %w", err)
		}
		var unknown []string
		for name := range fields {
			if c.lay.out.Index(name) < 0 {
				unknown = append(unknown, name)
			}
		}
		if len(unknown) > 0 {
			slices.Sort(unknown) // name the same field on every run
			return fmt.Errorf("out.%s: no such field in output layout %s", unknown[0], c.lay.out.Name)
		}
	}
	for i := range c.got {
		c.got[i] = 0
	}
	for _, f := range c.lay.out.Fields {
		raw, ok := fields[f.Name]
		if !ok {
			return fmt.Errorf("field %s: missing", f.Name)
		}
		v, err := parseJSONRaw(raw)
		if err != nil {
			return fmt.Errorf("field %s=%s: %w", f.Name, raw, err)
		}
		if err := fieldtable.Put(c.got, f, v); err != nil {
			return err
		}
	}
	return nil
}

// parseJSONRaw reads a field value: "0x..." hex string, non-negative JSON
// integer, or {"raw": either}.
func parseJSONRaw(raw json.RawMessage) (uint64, error) {
	s := strings.TrimSpace(string(raw))
	switch {
	case strings.HasPrefix(s, "{"):
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return 0, err
		}
		r, ok := obj["raw"]
		if !ok || strings.HasPrefix(strings.TrimSpace(string(r)), "{") {
			return 0, errors.New(`object needs a "raw" member holding a hex string or integer`)
		}
		return parseJSONRaw(r)
	case strings.HasPrefix(s, `"`):
		var str string
		if err := json.Unmarshal(raw, &str); err != nil {
			return 0, err
		}
		if !strings.HasPrefix(str, "0x") && !strings.HasPrefix(str, "0X") {
			return 0, errors.New(`string values must be "0x"-prefixed hex`)
		}
		return strconv.ParseUint(str[2:], 16, 64)
	default:
		return strconv.ParseUint(s, 10, 64)
	}
}

// Write prints the report: a summary line, per-field failure counts and the
// detailed mismatches as tables.
func (r *CheckReport) Write(w io.Writer) error {
	verdict := "PASS"
	if !r.OK() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "%s: %d passed, %d failed of %d (%s model %s, DUT %s as %s)\n",
		verdict, r.Passed, r.Failed, r.Checked, r.Golden, r.Model, r.DUT, r.DUTFormat)
	if r.OK() {
		return nil
	}
	t := newTable(w, tw.AlignLeft, tw.AlignRight)
	t.Header("field", "failing vectors")
	for _, fc := range r.FieldFails {
		if err := t.Append([]string{fc.Field, strconv.FormatInt(fc.Count, 10)}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "vector %d (DUT line %d, class %s): %d field(s) differ\n", m.Index, m.Line, m.Class, len(m.Fields))
		t := newTable(w, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight)
		t.Header("field", "format", "expected hex", "got hex", "expected", "got")
		for _, d := range m.Fields {
			if err := t.Append([]string{d.Field, d.Format, d.WantHex, d.GotHex, d.WantReal, d.GotReal}); err != nil {
				return err
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
	}
	if int64(len(r.Mismatches)) < r.Failed {
		fmt.Fprintf(w, "(%d more failing vectors not shown)\n", r.Failed-int64(len(r.Mismatches)))
	}
	return nil
}

// lineReader reads lines with 1-based numbering for error messages.
type lineReader struct {
	r    *bufio.Reader
	name string
	line int
}

func newLineReader(r io.Reader, name string) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 1<<20), name: name}
}

// next returns the next line without its "\n" or "\r\n"; ok is false at end
// of file. The slice is valid until the next call.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	line, err = lr.r.ReadSlice('\n')
	switch {
	case err == io.EOF:
		if len(line) == 0 {
			return nil, false, nil
		}
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, false, fmt.Errorf("vectors: %s: line %d: longer than %d bytes", lr.name, lr.line+1, lr.r.Size())
	case err != nil:
		return nil, false, fmt.Errorf("vectors: %s: %w", lr.name, err)
	}
	lr.line++
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	return line, true, nil
}

// nextData returns the next line that is neither blank nor a "//" comment,
// with surrounding spaces removed.
func (lr *lineReader) nextData() ([]byte, bool, error) {
	for {
		line, ok, err := lr.next()
		if !ok || err != nil {
			return nil, ok, err
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 || bytes.HasPrefix(t, []byte("//")) {
			continue
		}
		if len(t) == len(line) {
			return line, true, nil
		}
		return t, true, nil
	}
}

// nextNonBlank returns the next non-blank line.
func (lr *lineReader) nextNonBlank() ([]byte, bool, error) {
	for {
		line, ok, err := lr.next()
		if !ok || err != nil {
			return nil, ok, err
		}
		if len(bytes.TrimSpace(line)) != 0 {
			return line, true, nil
		}
	}
}

// peekNonSpace returns the first non-white-space byte without consuming
// input (0 for an empty file).
func (lr *lineReader) peekNonSpace() (byte, error) {
	for n := 1; ; n++ {
		b, err := lr.r.Peek(n)
		if len(b) < n {
			if err == io.EOF || err == nil || errors.Is(err, bufio.ErrBufferFull) {
				return 0, nil
			}
			return 0, fmt.Errorf("vectors: %s: %w", lr.name, err)
		}
		switch c := b[n-1]; c {
		case ' ', '\t', '\r', '\n':
		default:
			return c, nil
		}
	}
}
