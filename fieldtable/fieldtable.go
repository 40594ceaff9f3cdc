package fieldtable

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/fixedpoint"
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

// Fixed returns the field's fixed-point format when Format is fixedpoint
// notation ("u32.24": W bits, I integer bits, F = W-I fraction bits, raw r
// means r * 2^-F; F may be negative or exceed W). ok is false for "uint",
// "bool" and any other format: the raw bits are an integer, a flag or a
// code.
func (f Field) Fixed() (fx fixedpoint.Format, ok bool) {
	fx, err := fixedpoint.ParseFormat(f.Format)
	if err != nil || fx.W != f.Width {
		return fixedpoint.Format{}, false
	}
	return fx, true
}

// VerilogHeader returns a Verilog include (fields.vh) that defines, for each
// field F of the table, `define <PREFIX>_F_LSB, _F_MSB and _F_W (a comment
// after _W gives the format and the meaning with its unit), and for
// fixed-point fields also _F_FRAC (fraction bits), _F_SIGNED, _F_TO_REAL(raw)
// (the real value of raw bits) and _F_FROM_REAL(x) (x scaled to raw units:
// assigned to a reg of the field's width, Verilog rounds it to the nearest
// integer, ties away from zero; values outside the format's range are not
// saturated); and <PREFIX>_WIDTH for the whole word. prefix is upper-cased.
func (t Table) VerilogHeader(prefix string) string {
	p := strings.ToUpper(prefix)
	var b strings.Builder
	fmt.Fprintf(&b, "// Field layout of %s: %d bits, LSB first. Per field: _LSB, _MSB, _W (bits; the comment gives\n", t.Name, t.Width)
	fmt.Fprintf(&b, "// the format and the meaning: uint and bool are integers, s|u<W>.<I> is fixed point with I integer\n")
	fmt.Fprintf(&b, "// and W-I fraction bits), and for fixed-point fields _FRAC (fraction bits), _SIGNED,\n")
	fmt.Fprintf(&b, "// _TO_REAL(raw) (raw * 2^-FRAC, a real) and _FROM_REAL(x) (x * 2^FRAC: assign it to a reg of\n")
	fmt.Fprintf(&b, "// the field's width, which rounds to nearest; not saturated).\n")
	fmt.Fprintf(&b, "`define %s_WIDTH %d\n", p, t.Width)
	for _, f := range t.Fields {
		n := p + "_" + strings.ToUpper(f.Name)
		fmt.Fprintf(&b, "`define %s_LSB %d\n`define %s_MSB %d\n`define %s_W %d // %s %s\n",
			n, f.Offset, n, f.Offset+f.Width-1, n, f.Width, f.Format, f.Doc)
		fx, ok := f.Fixed()
		if !ok {
			continue
		}
		signed, raw := 0, "(raw)"
		if fx.Signed {
			signed, raw = 1, "$signed(raw)"
		}
		fmt.Fprintf(&b, "`define %s_FRAC %d\n`define %s_SIGNED %d\n", n, fx.F(), n, signed)
		fmt.Fprintf(&b, "`define %s_TO_REAL(raw) (%s * 2.0**(%d))\n", n, raw, -fx.F())
		fmt.Fprintf(&b, "`define %s_FROM_REAL(x) ((x) * 2.0**(%d))\n", n, fx.F())
	}
	return b.String()
}

// Enum is a named set of codes that fields carry (the telemetry speed codes
// of in_hop*_speed, say), printed as Verilog defines, C and SystemVerilog
// enums next to the field layouts.
type Enum struct {
	Name   string      // identifier, e.g. "speed"
	Doc    string      // one line: what the codes mean and which fields carry them
	Width  int         // bits of a field carrying a code, 1..64
	Values []EnumValue // in code order; codes not listed are reserved
}

// EnumValue is one code of an Enum.
type EnumValue struct {
	Name string // identifier suffix, e.g. "100G"
	Code uint64
	Doc  string // one line, e.g. "100 Gbps"
}

// VerilogDefines returns `define <PREFIX>_<NAME>_<VALUE> W'dCODE lines, one
// per value, each commented, under a comment line with the enum's doc.
// prefix is upper-cased.
func (e Enum) VerilogDefines(prefix string) string {
	p := strings.ToUpper(prefix + "_" + e.Name)
	var b strings.Builder
	fmt.Fprintf(&b, "// %s codes (%d bits): %s\n", e.Name, e.Width, e.Doc)
	for _, v := range e.Values {
		fmt.Fprintf(&b, "`define %s_%s %d'd%d // %s\n", p, strings.ToUpper(v.Name), e.Width, v.Code, v.Doc)
	}
	return b.String()
}
