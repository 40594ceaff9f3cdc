package vectors

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// fieldFmt is how a field's raw bits read as a number.
type fieldFmt struct {
	signed bool // two's complement over the field width
	frac   int  // fraction bits F: real = raw * 2^-F (F may be negative)
	isBool bool
}

// parseFieldFormat reads a field's Format: "uint" (unsigned integer), "int"
// (two's-complement integer), "bool" (one bit), or fixedpoint notation
// "sW.I" / "uW.I" (W total bits, I integer bits, F = W-I fraction bits),
// parsed by fixedpoint.ParseFormat, whose W must equal the field width.
func parseFieldFormat(f fieldtable.Field) (fieldFmt, error) {
	switch f.Format {
	case "uint", "":
		return fieldFmt{}, nil
	case "int":
		return fieldFmt{signed: true}, nil
	case "bool":
		if f.Width != 1 {
			return fieldFmt{}, fmt.Errorf("field %s: Format=bool with Width=%d: must be 1 bit", f.Name, f.Width)
		}
		return fieldFmt{isBool: true}, nil
	}
	fp, err := fixedpoint.ParseFormat(f.Format)
	if err != nil {
		return fieldFmt{}, fmt.Errorf("field %s: Format=%q: want uint, int, bool or fixedpoint notation sW.I / uW.I: %w", f.Name, f.Format, err)
	}
	if fp.W != f.Width {
		return fieldFmt{}, fmt.Errorf("field %s: Format=%q has %d bits but the field is %d bits wide", f.Name, f.Format, fp.W, f.Width)
	}
	return fieldFmt{signed: fp.Signed, frac: fp.F()}, nil
}

func parseTableFormats(t fieldtable.Table) ([]fieldFmt, error) {
	out := make([]fieldFmt, len(t.Fields))
	for i, f := range t.Fields {
		ff, err := parseFieldFormat(f)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", t.Name, err)
		}
		out[i] = ff
	}
	return out, nil
}

const hexLower = "0123456789abcdef"

// hex8 returns the 8 lowercase hex digits of v as the bytes of a uint64
// in big-endian order (most significant digit in the top byte), by SWAR:
// spread the nibbles one per byte, then add '0' or 'a'-10 per byte.
func hex8(v uint32) uint64 {
	x := uint64(v)
	x = (x | x<<16) & 0x0000ffff0000ffff
	x = (x | x<<8) & 0x00ff00ff00ff00ff
	x = (x | x<<4) & 0x0f0f0f0f0f0f0f0f // nibble k in byte k
	letters := (x + 0x0606060606060606) >> 4 & 0x0101010101010101
	return x + 0x3030303030303030 + letters*('a'-'0'-10)
}

// appendHex appends the hex line of word in layout t: exactly what
// t.AppendHex appends (t.HexDigits() lowercase digits, most significant
// first).
func appendHex(dst []byte, t fieldtable.Table, word []uint64) []byte {
	nd := t.HexDigits()
	n := len(dst)
	dst = slices.Grow(dst, nd)[:n+nd]
	putHex(dst[n:], word)
	return dst
}

// putHex writes the len(b) hex digits of the packed word to b, most
// significant first (the last 16 digits are word[0]): the top partial
// word and an odd full word by SWAR, and the remaining pairs
// of full words by hexPairs (SIMD on amd64).
func putHex(b []byte, word []uint64) {
	full, pos := len(b)/16, len(b)%16
	if pos > 0 {
		var top [16]byte
		putWordHex(top[:], word[full])
		copy(b[:pos], top[16-pos:])
	}
	if full%2 == 1 {
		full--
		putWordHex(b[pos:pos+16], word[full])
		pos += 16
	}
	hexPairs(b[pos:], word[:full])
}

// putWordHex writes the 16 hex digits of v to b[:16], most significant
// first.
func putWordHex(b []byte, v uint64) {
	binary.BigEndian.PutUint64(b[:8], hex8(uint32(v>>32)))
	binary.BigEndian.PutUint64(b[8:16], hex8(uint32(v)))
}

// hexPairsGeneric is the portable hexPairs: 8 digits at a time by SWAR.
func hexPairsGeneric(dst []byte, src []uint64) {
	for p, q := 0, len(src)-2; q >= 0; p, q = p+32, q-2 {
		putWordHex(dst[p:p+16], src[q+1])
		putWordHex(dst[p+16:p+32], src[q])
	}
}

// appendFieldHex appends "0x" and the raw value as ceil(width/4) hex digits.
func appendFieldHex(dst []byte, width int, raw uint64) []byte {
	dst = append(dst, '0', 'x')
	for d := (width+3)/4 - 1; d >= 0; d-- {
		dst = append(dst, hexLower[raw>>uint(4*d)&0xf])
	}
	return dst
}

// appendReal appends the exact decimal real value of a width-bit raw field
// (no exponent, no trailing fraction zeros): the JSON number text.
func appendReal(dst []byte, ff fieldFmt, width int, raw uint64) []byte {
	mag := raw
	if ff.signed && width > 0 && raw>>uint(width-1)&1 != 0 {
		mag = (^raw + 1) & fieldtable.Mask(width) // -2^(w-1) gives 2^(w-1), as wanted
		dst = append(dst, '-')
	}
	switch {
	case ff.frac <= 0:
		if bits.Len64(mag)-ff.frac <= 64 {
			return strconv.AppendUint(dst, mag<<uint(-ff.frac), 10)
		}
		v := new(big.Int).Lsh(new(big.Int).SetUint64(mag), uint(-ff.frac))
		return v.Append(dst, 10)
	case ff.frac <= 60:
		dst = strconv.AppendUint(dst, mag>>uint(ff.frac), 10)
		fr := mag & fieldtable.Mask(ff.frac)
		if fr != 0 {
			dst = append(dst, '.')
			m := fieldtable.Mask(ff.frac)
			for fr != 0 {
				fr *= 10 // fr < 2^60, so fr*10 < 2^64
				dst = append(dst, byte('0'+fr>>uint(ff.frac)))
				fr &= m
			}
		}
		return dst
	default:
		// real = mag / 2^F = mag * 5^F / 10^F: print mag*5^F with F digits after the point.
		n := new(big.Int).Mul(new(big.Int).SetUint64(mag), new(big.Int).Exp(big.NewInt(5), big.NewInt(int64(ff.frac)), nil))
		s := n.String()
		if len(s) <= ff.frac {
			s = strings.Repeat("0", ff.frac-len(s)+1) + s
		}
		ip, fp := s[:len(s)-ff.frac], strings.TrimRight(s[len(s)-ff.frac:], "0")
		dst = append(dst, ip...)
		if fp != "" {
			dst = append(dst, '.')
			dst = append(dst, fp...)
		}
		return dst
	}
}

// realString is appendReal as a string, for reports.
func realString(ff fieldFmt, width int, raw uint64) string {
	if ff.isBool {
		if raw != 0 {
			return "true"
		}
		return "false"
	}
	return string(appendReal(nil, ff, width, raw))
}

// appendFields appends `{"name":{"raw":"0x..","value":..},...}` for every
// field of t read from word.
func appendFields(dst []byte, t fieldtable.Table, ff []fieldFmt, word []uint64) []byte {
	dst = append(dst, '{')
	for i, f := range t.Fields {
		if i > 0 {
			dst = append(dst, ',')
		}
		raw := fieldtable.GetBits(word, f.Offset, f.Width)
		dst = append(dst, '"')
		dst = append(dst, f.Name...)
		dst = append(dst, `":{"raw":"`...)
		dst = appendFieldHex(dst, f.Width, raw)
		dst = append(dst, `","value":`...)
		if ff[i].isBool {
			dst = strconv.AppendUint(dst, raw, 10)
		} else {
			dst = appendReal(dst, ff[i], f.Width, raw)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}')
}

// appendJSONLine appends one vectors.jsonl line (with newline):
// {"index":N,"class":"name","in":{fields},"out":{fields}}.
func appendJSONLine(dst []byte, index int64, class string, lay *layout, in, out []uint64) []byte {
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, index, 10)
	dst = append(dst, `,"class":"`...)
	dst = append(dst, class...)
	dst = append(dst, `","in":`...)
	dst = appendFields(dst, lay.in, lay.inFmt, in)
	dst = append(dst, `,"out":`...)
	dst = appendFields(dst, lay.out, lay.outFmt, out)
	return append(dst, '}', '\n')
}

// layout is a model's pair of tables with their parsed formats.
type layout struct {
	in, out       fieldtable.Table
	inFmt, outFmt []fieldFmt
}

func newLayout(in, out fieldtable.Table) (*layout, error) {
	fi, err := parseTableFormats(in)
	if err != nil {
		return nil, err
	}
	fo, err := parseTableFormats(out)
	if err != nil {
		return nil, err
	}
	return &layout{in: in, out: out, inFmt: fi, outFmt: fo}, nil
}

// layoutFile is the content of layout.json: both tables.
type layoutFile struct {
	Model  string           `json:"model"`
	Input  fieldtable.Table `json:"input"`
	Output fieldtable.Table `json:"output"`
}

// Enumer is implemented by models whose fields carry codes (the HPCC++
// per-hop speed codes): fields.vh defines every code of each enum.
type Enumer interface {
	Enums() []fieldtable.Enum
}

// fieldsVH returns fields.vh: both tables' defines, prefixed <MODEL>_IN and
// <MODEL>_OUT (with each fixed-point field's fraction bits and real
// conversions), the codes of the model's enums (Enumer) prefixed <MODEL>,
// under an include guard and a generated-file header.
func fieldsVH(m Model, tool string, lay *layout) []byte {
	var enums []fieldtable.Enum
	if en, ok := m.(Enumer); ok {
		enums = en.Enums()
	}
	return fieldsVHNamed(m.Name(), enums, tool, lay)
}

// fieldsVHNamed is fieldsVH for a model named model with the given enums.
func fieldsVHNamed(model string, enums []fieldtable.Enum, tool string, lay *layout) []byte {
	var b strings.Builder
	guard := strings.ToUpper(model) + "_FIELDS_VH"
	fmt.Fprintf(&b, "// Code generated by %s (vectors); DO NOT EDIT.\n", tool)
	fmt.Fprintf(&b, "// Bit layouts of the %s vector files: stimulus.hex lines are %s_IN words,\n", model, strings.ToUpper(model))
	fmt.Fprintf(&b, "// expected.hex lines are %s_OUT words (LSB first, $readmemh hex, MSB first on the line).\n", strings.ToUpper(model))
	fmt.Fprintf(&b, "`ifndef %s\n`define %s\n", guard, guard)
	b.WriteString(lay.in.VerilogHeader(model + "_in"))
	b.WriteString(lay.out.VerilogHeader(model + "_out"))
	for _, e := range enums {
		b.WriteString(e.VerilogDefines(model))
	}
	b.WriteString("`endif\n")
	return []byte(b.String())
}
