package fieldtable

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Field is one named slice of a transaction word.
type Field struct {
	Name   string `json:"name"`   // Verilog-safe identifier, unique in the table
	Width  int    `json:"width"`  // bits, 1..64
	Offset int    `json:"offset"` // bit offset of the field's LSB in the word
	Format string `json:"format"` // how to read the raw bits: fixedpoint notation, "uint" or "bool"
	Doc    string `json:"doc"`    // one line: meaning and units
}

// Spec is a field before layout: everything but the offset.
type Spec struct {
	Name   string
	Width  int
	Format string
	Doc    string
}

// Table is a laid-out list of fields. Build it with New; the zero Table is empty.
type Table struct {
	Name   string  `json:"name"`   // e.g. "hpcc_update_in"
	Width  int     `json:"width"`  // total bits (sum of field widths)
	Fields []Field `json:"fields"` // in offset order
}

// New lays out specs LSB-first in the order given. It rejects empty or
// duplicate names, names that are not identifiers, and widths outside 1..64.
func New(name string, specs []Spec) (Table, error) {
	t := Table{Name: name}
	seen := make(map[string]bool, len(specs))
	for i, s := range specs {
		if !IsIdent(s.Name) {
			return Table{}, fmt.Errorf("fieldtable %s: field %d: Name=%q: must be an identifier [A-Za-z_][A-Za-z0-9_]*", name, i, s.Name)
		}
		if seen[s.Name] {
			return Table{}, fmt.Errorf("fieldtable %s: field %d: Name=%q: duplicate", name, i, s.Name)
		}
		seen[s.Name] = true
		if s.Width < 1 || s.Width > 64 {
			return Table{}, fmt.Errorf("fieldtable %s: field %s: Width=%d: must be in [1,64]", name, s.Name, s.Width)
		}
		t.Fields = append(t.Fields, Field{Name: s.Name, Width: s.Width, Offset: t.Width, Format: s.Format, Doc: s.Doc})
		t.Width += s.Width
	}
	return t, nil
}

// IsIdent reports whether s is a simple identifier [A-Za-z_][A-Za-z0-9_]*:
// ASCII letters, digits and underscores, not starting with a digit. That is
// the Verilog-2005 simple identifier (IEEE 1364-2005 section 3.7) without
// the "$" it also allows, so the name is equally valid in Verilog, C, Go and
// VCD scopes. It does not reject Verilog keywords; callers that emit names
// into Verilog check those separately.
func IsIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		ok := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// Words is the number of uint64 words a packed transaction occupies.
func (t Table) Words() int { return (t.Width + 63) / 64 }

// HexDigits is the number of hex digits in one line of the hex form.
func (t Table) HexDigits() int { return (t.Width + 3) / 4 }

// Index returns the position of the named field, or -1.
func (t Table) Index(name string) int {
	for i, f := range t.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Mask returns the all-ones value of a width-bit field.
func Mask(width int) uint64 {
	if width >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<uint(width) - 1
}

// Put stores the low f.Width bits of v at f.Offset in word. Bits of v above
// the width are an error (the caller's value does not fit its field), and so
// is a word too short to hold the field.
func Put(word []uint64, f Field, v uint64) error {
	if v&^Mask(f.Width) != 0 {
		return fmt.Errorf("fieldtable: field %s: value %#x does not fit %d bits", f.Name, v, f.Width)
	}
	if f.Offset < 0 || f.Width < 1 || f.Width > 64 || f.Offset+f.Width > 64*len(word) {
		return fmt.Errorf("fieldtable: field %s: bits [%d,%d) do not fit a %d-word buffer", f.Name, f.Offset, f.Offset+f.Width, len(word))
	}
	PutBits(word, f.Offset, f.Width, v)
	return nil
}

// PutBits stores the low width bits of v at bit offset off of word, without
// checking that v fits; bits above width are discarded. It is the unchecked
// fast path: the caller guarantees 1 <= width <= 64, off >= 0 and
// off+width <= 64*len(word) (a field of a Table and a buffer of its Words()
// always satisfy it); otherwise it panics with an index out of range.
func PutBits(word []uint64, off, width int, v uint64) {
	v &= Mask(width)
	w, b := off/64, uint(off%64)
	word[w] = word[w]&^(Mask(width)<<b) | v<<b
	if int(b)+width > 64 {
		hiBits := int(b) + width - 64
		word[w+1] = word[w+1]&^Mask(hiBits) | v>>(64-b)
	}
}

// Get extracts field f from word.
func Get(word []uint64, f Field) uint64 { return GetBits(word, f.Offset, f.Width) }

// GetBits extracts width bits at bit offset off of word. Its preconditions
// are those of PutBits.
func GetBits(word []uint64, off, width int) uint64 {
	w, b := off/64, uint(off%64)
	v := word[w] >> b
	if int(b)+width > 64 {
		v |= word[w+1] << (64 - b)
	}
	return v & Mask(width)
}

const hexDigits = "0123456789abcdef"

// AppendHex appends the hex form of word (t.HexDigits() lowercase digits, most
// significant first, no newline) to dst. word must have at least t.Words()
// elements (it panics otherwise, like PutBits).
func (t Table) AppendHex(dst []byte, word []uint64) []byte {
	for d := t.HexDigits() - 1; d >= 0; d-- {
		nib := (word[d/16] >> uint((d%16)*4)) & 0xf
		dst = append(dst, hexDigits[nib])
	}
	return dst
}

// ParseHex parses one hex line into word, which must have exactly t.Words()
// elements. The line must have exactly t.HexDigits() hex digits (surrounding
// spaces ignored) and no bits set above t.Width.
func (t Table) ParseHex(line string, word []uint64) error {
	if len(word) != t.Words() {
		return fmt.Errorf("%s: buffer has %d words, want %d", t.Name, len(word), t.Words())
	}
	s := strings.TrimSpace(line)
	if len(s) != t.HexDigits() {
		return fmt.Errorf("%s: line has %d hex digits, want %d", t.Name, len(s), t.HexDigits())
	}
	for i := range word {
		word[i] = 0
	}
	n := len(s)
	for i := 0; i < n; i++ {
		c := s[i]
		var v uint64
		switch {
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		case c >= 'A' && c <= 'F':
			v = uint64(c-'A') + 10
		default:
			return fmt.Errorf("%s: character %q at column %d is not a hex digit", t.Name, c, i+1)
		}
		d := n - 1 - i
		word[d/16] |= v << uint((d%16)*4)
	}
	if r := t.Width % 64; r != 0 && word[len(word)-1]>>uint(r) != 0 {
		return fmt.Errorf("%s: bits set above the %d-bit width", t.Name, t.Width)
	}
	return nil
}

// JSON returns the machine-readable layout description (indented, stable).
func (t Table) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// VerilogHeader returns a Verilog include (fields.vh) that defines, for each
// field, `define <PREFIX>_<NAME>_LSB, _MSB and _W, and <PREFIX>_WIDTH for the
// whole word. prefix is upper-cased.
func (t Table) VerilogHeader(prefix string) string {
	p := strings.ToUpper(prefix)
	var b strings.Builder
	fmt.Fprintf(&b, "// Field layout of %s: %d bits, LSB first.\n", t.Name, t.Width)
	fmt.Fprintf(&b, "`define %s_WIDTH %d\n", p, t.Width)
	for _, f := range t.Fields {
		n := p + "_" + strings.ToUpper(f.Name)
		fmt.Fprintf(&b, "`define %s_LSB %d\n`define %s_MSB %d\n`define %s_W %d // %s %s\n",
			n, f.Offset, n, f.Offset+f.Width-1, n, f.Width, f.Format, f.Doc)
	}
	return b.String()
}
