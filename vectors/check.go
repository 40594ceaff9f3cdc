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
	// Partial accepts a DUT file that stops early: the vectors it holds (a
	// prefix of the set, at least one) are compared and the report says how
	// many of the set's that was. Without it a short DUT file is an error.
	Partial bool
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
	Total      int64        // vectors in the golden directory (Checked < Total only for a partial check)
	FieldFails []FieldCount // per output field: vectors where it differed (table order; zero counts omitted)
	ClassFails []ClassFail  // per class: failing vectors (manifest class order; zero counts omitted)
	Mismatches []Mismatch   // the first CheckOptions.MaxDiffs failing vectors
	// Shift is set when the DUT's outputs match the golden ones far better
	// at a line offset than in place: the signature of a latency or
	// valid-handshake bug rather than an arithmetic one.
	Shift *Shift

	shardFirst int64 // global index of the directory's first vector
}

// ClassFail is the number of failing vectors of one class.
type ClassFail struct {
	Class  string `json:"class"`
	Failed int64  `json:"failed"`
	Total  int64  `json:"total"` // vectors of the class in the golden directory
}

// Shift says that DUT line k+Lines holds golden vector k (Lines > 0: the
// DUT's outputs come Lines transactions late, e.g. extra leading outputs;
// Lines < 0: early) for Matched of Pairs compared pairs among the first
// shiftWindow vectors, against InPlace matches without an offset.
type Shift struct {
	Lines   int
	Matched int
	Pairs   int
	InPlace int
}

// String describes the shift for people.
func (s *Shift) String() string {
	return fmt.Sprintf("outputs appear shifted by %+d line(s): DUT line k%+d holds golden vector k in %d of %d compared pairs (%d match in place): latency, or an extra or missing valid cycle?",
		s.Lines, s.Lines, s.Matched, s.Pairs, s.InPlace)
}

// FieldCount is a per-field mismatch count.
type FieldCount struct {
	Field string `json:"field"`
	Count int64  `json:"count"`
}

// Mismatch is one failing vector.
type Mismatch struct {
	Index  int64        // global vector index
	Line   int          // 1-based line in the DUT file
	Class  string       // the class it was generated for
	Fields []FieldDiff  // the differing fields, in table order
	Inputs []FieldValue // the vector's inputs (stimulus.hex), in table order
}

// FieldValue is one field of a vector: raw bits, hex and exact real value.
type FieldValue struct {
	Field  string
	Format string
	Raw    uint64
	Hex    string
	Real   string
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
	if man.IsBinary() {
		return nil, errBinary(goldenDir, "check")
	}
	stimName, expName := man.VectorFiles()
	var expHash *FileHash
	for i := range man.Files {
		if man.Files[i].Name == expName {
			expHash = &man.Files[i]
		}
	}
	goldenPath := filepath.Join(goldenDir, expName)
	if expHash == nil {
		return nil, fmt.Errorf("vectors: %s: no entry for %s", filepath.Join(goldenDir, ManifestFile), expName)
	}
	// The CRC is of the file as on disk (compressed, for a compressed set);
	// a compressed stream that does not decode is a damaged golden set.
	crc := &crcWriter{}
	gf, err := openData(goldenDir, expName, crc)
	if err != nil {
		return nil, fmt.Errorf("vectors: check: %w", err)
	}
	defer gf.Close()
	golden := newLineReader(gf, goldenPath)
	dut := newLineReader(r, name)

	sf, err := openData(goldenDir, stimName, nil)
	if err != nil {
		return nil, fmt.Errorf("vectors: check: %w", err)
	}
	defer sf.Close()

	rep := &CheckReport{Golden: goldenDir, DUT: name, Model: man.Model, DUTFormat: "hex", Total: man.Count, shardFirst: man.Shard.First}
	first, err := dut.peekNonSpace()
	if err != nil {
		return nil, err
	}
	if first == '{' {
		rep.DUTFormat = "jsonl"
	}
	c := &checker{rep: rep, man: man, lay: lay, opts: opts, golden: golden, dut: dut,
		want: make([]uint64, lay.out.Words()), got: make([]uint64, lay.out.Words()),
		fieldFails: make([]int64, len(lay.out.Fields)), classFails: map[string]int64{},
		stim: newLineReader(sf, filepath.Join(goldenDir, stimName)), in: make([]uint64, lay.in.Words())}
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
		return nil, goldenDamaged(fmt.Errorf("vectors: %s: %w", goldenPath, err))
	}
	if sum := fmt.Sprintf("%08x", crc.crc); sum != expHash.CRC32C {
		return nil, fmt.Errorf("vectors: %s: CRC-32C %s does not match the manifest's %s: golden set damaged (run hpccgold vectors verify)", goldenPath, sum, expHash.CRC32C)
	}
	for i, n := range c.fieldFails {
		if n != 0 {
			rep.FieldFails = append(rep.FieldFails, FieldCount{Field: lay.out.Fields[i].Name, Count: n})
		}
	}
	for _, cl := range man.Classes {
		if n := c.classFails[cl.Name]; n != 0 {
			rep.ClassFails = append(rep.ClassFails, ClassFail{Class: cl.Name, Failed: n, Total: cl.Count})
		}
	}
	if rep.Failed > 0 {
		rep.Shift = c.findShift()
	}
	return rep, nil
}

// shiftWindow is how many leading vectors Check keeps to look for a line
// shift, and maxShift the largest shift it looks for, in lines.
const (
	shiftWindow = 4096
	maxShift    = 8
)

// keep records golden and DUT output words of the leading vectors for
// findShift. DUT lines are kept up to maxShift beyond the window, so that a
// DUT stream with extra leading lines can be matched.
func (c *checker) keep(k int64, want, got []uint64) {
	if k < shiftWindow && want != nil {
		c.goldW = append(c.goldW, slices.Clone(want))
	}
	if len(c.dutW) < shiftWindow+maxShift && got != nil {
		c.dutW = append(c.dutW, slices.Clone(got))
	}
}

// findShift returns the line offset at which the kept DUT outputs match the
// golden ones, if one explains at least 90% of its compared pairs (at
// least 4) and more than matching in place does; nil otherwise.
func (c *checker) findShift() *Shift {
	count := func(s int) (matched, pairs int) {
		for j := range c.dutW {
			g := j - s
			if g < 0 || g >= len(c.goldW) {
				continue
			}
			pairs++
			if slices.Equal(c.dutW[j], c.goldW[g]) {
				matched++
			}
		}
		return matched, pairs
	}
	inPlace, _ := count(0)
	var best *Shift
	for s := -maxShift; s <= maxShift; s++ {
		if s == 0 {
			continue
		}
		m, p := count(s)
		if p < 4 || 10*m < 9*p || m <= inPlace {
			continue
		}
		if best == nil || m*best.Pairs > best.Matched*p {
			best = &Shift{Lines: s, Matched: m, Pairs: p, InPlace: inPlace}
		}
	}
	return best
}

// shiftNote returns ": " and the shift description when the kept outputs
// show one, for errors about a DUT file of the wrong length.
func (c *checker) shiftNote() string {
	if sh := c.findShift(); sh != nil {
		return "; " + sh.String()
	}
	return ""
}

// inputsOf returns vector k's inputs (k counts from the directory's first
// vector), reading stimulus.hex forward to its line.
func (c *checker) inputsOf(k int64) ([]FieldValue, error) {
	var line []byte
	for c.stimK <= k {
		l, ok, err := c.stim.next()
		if err != nil {
			return nil, goldenDamaged(err)
		}
		if !ok {
			return nil, fmt.Errorf("vectors: %s: %w: truncated: %d lines, manifest says %d", c.stim.name, errGoldenDamaged, c.stimK, c.man.Count)
		}
		line = l
		c.stimK++
	}
	if err := c.lay.in.ParseHex(string(line), c.in); err != nil {
		return nil, fmt.Errorf("vectors: %s: line %d: %w: %w", c.stim.name, c.stim.line, errGoldenDamaged, err)
	}
	vals := make([]FieldValue, len(c.lay.in.Fields))
	for i, f := range c.lay.in.Fields {
		v := fieldtable.Get(c.in, f)
		vals[i] = FieldValue{Field: f.Name, Format: f.Format, Raw: v, Hex: string(appendFieldHex(nil, f.Width, v)), Real: realString(c.lay.inFmt[i], f.Width, v)}
	}
	return vals, nil
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
	classFails map[string]int64
	goldW      [][]uint64 // golden outputs of the first shiftWindow vectors
	dutW       [][]uint64 // DUT outputs of the first shiftWindow+maxShift lines
	stim       *lineReader
	stimK      int64 // stimulus lines read
	in         []uint64
}

// nextGolden reads and parses the next golden line into c.want; it returns
// the raw line.
func (c *checker) nextGolden(k int64) ([]byte, error) {
	line, ok, err := c.golden.next()
	if err != nil {
		return nil, goldenDamaged(err)
	}
	if !ok {
		return nil, fmt.Errorf("vectors: %s: %w: truncated: %d lines, manifest says %d", c.golden.name, errGoldenDamaged, k, c.man.Count)
	}
	return line, nil
}

func (c *checker) parseGolden(line []byte) error {
	if err := c.lay.out.ParseHex(string(line), c.want); err != nil {
		return fmt.Errorf("vectors: %s: line %d: %w: %w", c.golden.name, c.golden.line, errGoldenDamaged, err)
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
			if c.opts.Partial && k > 0 {
				return nil
			}
			if k < shiftWindow {
				c.parseGolden(gl)
				c.keep(k, c.want, nil)
			}
			return fmt.Errorf("vectors: %s: truncated: ends after %d transactions (line %d), golden %s has %d%s", c.dut.name, k, c.dut.line, c.golden.name, c.man.Count, c.shiftNote())
		}
		c.rep.Checked++
		same := bytes.Equal(gl, dl)
		if same && k >= shiftWindow {
			c.rep.Passed++
			continue
		}
		if err := c.parseGolden(gl); err != nil {
			return err
		}
		if err := c.lay.out.ParseHex(string(dl), c.got); err != nil {
			return fmt.Errorf("vectors: %s: line %d: %w (layout %s: %d bits, %d hex digits per line)", c.dut.name, c.dut.line, err, c.lay.out.Name, c.lay.out.Width, c.lay.out.HexDigits())
		}
		c.keep(k, c.want, c.got)
		if err := c.compare(k); err != nil {
			return err
		}
	}
	return c.expectEnd()
}

// expectEnd fails if the DUT file has transactions beyond the golden count
// (reading up to maxShift of them to look for a shift).
func (c *checker) expectEnd() error {
	dl, ok, err := c.dut.nextData()
	if err != nil || !ok {
		return err
	}
	line := c.dut.line
	for n := 0; ok && n < maxShift; n++ {
		if c.lay.out.ParseHex(string(dl), c.got) != nil {
			break
		}
		c.keep(c.man.Count, nil, c.got)
		if dl, ok, err = c.dut.nextData(); err != nil {
			break
		}
	}
	return fmt.Errorf("vectors: %s: line %d: more transactions than the golden set's %d%s", c.dut.name, line, c.man.Count, c.shiftNote())
}

// compare counts vector k as passed or failed from c.want and c.got.
func (c *checker) compare(k int64) error {
	same := true
	for i := range c.want {
		if c.want[i] != c.got[i] {
			same = false
		}
	}
	if same {
		c.rep.Passed++
		return nil
	}
	c.rep.Failed++
	detail := len(c.rep.Mismatches) < c.opts.MaxDiffs
	idx := c.man.Shard.First + k
	class := c.man.ClassAt(idx)
	c.classFails[class]++
	var mm Mismatch
	if detail {
		in, err := c.inputsOf(k)
		if err != nil {
			return err
		}
		mm = Mismatch{Index: idx, Line: c.dut.line, Class: class, Inputs: in}
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
	return nil
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
			if c.opts.Partial && k > 0 {
				return nil
			}
			c.keep(k, c.want, nil)
			return fmt.Errorf("vectors: %s: truncated: ends after %d transactions (line %d), golden %s has %d%s", c.dut.name, k, c.dut.line, c.golden.name, c.man.Count, c.shiftNote())
		}
		if err := c.parseJSONLine(dl, c.man.Shard.First+k); err != nil {
			return fmt.Errorf("vectors: %s: line %d: %w", c.dut.name, c.dut.line, err)
		}
		c.rep.Checked++
		c.keep(k, c.want, c.got)
		if err := c.compare(k); err != nil {
			return err
		}
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
	if raw, ok := top["class"]; ok {
		var cl string
		if err := json.Unmarshal(raw, &cl); err != nil {
			return fmt.Errorf("field class=%s: %w", raw, err)
		}
		if want := c.man.ClassAt(index); cl != want {
			return fmt.Errorf("class=%q, want %q (transactions out of order?)", cl, want)
		}
	}
	fields := top
	_, hasOut := top["out"]
	var unknownTop []string
	for name := range top {
		switch name {
		case "index", "class", "in", "out":
			continue
		}
		if hasOut || c.lay.out.Index(name) < 0 {
			unknownTop = append(unknownTop, name)
		}
	}
	if len(unknownTop) > 0 {
		slices.Sort(unknownTop)
		return fmt.Errorf("key %q: unknown (a line holds index, class, in, out, or output fields of layout %s at the top level)", unknownTop[0], c.lay.out.Name)
	}
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
		for k := range obj {
			if k != "raw" && k != "value" {
				return 0, fmt.Errorf("key %q: unknown (a field object holds raw and, optionally, value)", k)
			}
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
	if r.Checked < r.Total {
		fmt.Fprintf(w, "partial: the DUT file holds the first %d of the set's %d vectors; only those were compared\n", r.Checked, r.Total)
	}
	if r.OK() {
		return nil
	}
	if r.Shift != nil {
		fmt.Fprintf(w, "%s\n", r.Shift)
	}
	tc := newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignRight)
	tc.Header("class", "failing", "vectors")
	for _, cf := range r.ClassFails {
		if err := tc.Append([]string{cf.Class, strconv.FormatInt(cf.Failed, 10), strconv.FormatInt(cf.Total, 10)}); err != nil {
			return err
		}
	}
	if err := tc.Render(); err != nil {
		return err
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
		if len(m.Inputs) > 0 {
			fmt.Fprintf(w, "  its inputs (%s line %d):\n", StimulusFile, m.Index-r.first()+1)
			ti := newTable(w, tw.AlignLeft, tw.AlignLeft, tw.AlignRight, tw.AlignRight)
			ti.Header("input", "format", "hex", "value")
			for _, v := range m.Inputs {
				if err := ti.Append([]string{v.Field, v.Format, v.Hex, v.Real}); err != nil {
					return err
				}
			}
			if err := ti.Render(); err != nil {
				return err
			}
		}
	}
	if int64(len(r.Mismatches)) < r.Failed {
		fmt.Fprintf(w, "(%d more failing vectors not shown)\n", r.Failed-int64(len(r.Mismatches)))
	}
	return nil
}

// first returns the global index of the directory's first vector.
func (r *CheckReport) first() int64 { return r.shardFirst }

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
