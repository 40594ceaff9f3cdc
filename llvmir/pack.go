package llvmir

import (
	"fmt"

	"github.com/hpccgold/hpccgold/rtl"
)

// putBits stores the low w (<= 64) bits of v at bit off of words.
func putBits(words []uint64, off, w int, v uint64) {
	for i := 0; i < w; {
		word, bit := (off+i)/64, (off+i)%64
		n := min(64-bit, w-i)
		mask := ^uint64(0) >> uint(64-n)
		words[word] = words[word]&^(mask<<uint(bit)) | (v>>uint(i)&mask)<<uint(bit)
		i += n
	}
}

// getBits returns bits [off, off+w) (w <= 64) of words.
func getBits(words []uint64, off, w int) uint64 {
	var v uint64
	for i := 0; i < w; {
		word, bit := (off+i)/64, (off+i)%64
		n := min(64-bit, w-i)
		mask := ^uint64(0) >> uint(64-n)
		v |= (words[word] >> uint(bit) & mask) << uint(i)
		i += n
	}
	return v
}

// pack lays port values out LSB-first (the packed layout of M_dpi and the
// hex files). vals holds one canonical pattern per port.
func pack(ports []Port, bits int, vals []rtl.Bits) ([]uint64, error) {
	if len(vals) != len(ports) {
		return nil, fmt.Errorf("llvmir: %d values for %d ports", len(vals), len(ports))
	}
	words := make([]uint64, (bits+63)/64)
	for i, p := range ports {
		v := vals[i].Trunc(p.Width)
		for k := 0; k < p.Slots(); k++ {
			off, w := chunk(p, k)
			putBits(words, off, w, v[k])
		}
	}
	return words, nil
}

// hexLine formats a packed vector as ceil(bits/4) hex digits, most
// significant first (the vector files' line format).
func hexLine(words []uint64, bits int) string {
	n := (bits + 3) / 4
	b := make([]byte, n)
	for d := 0; d < n; d++ {
		b[n-1-d] = "0123456789abcdef"[words[d/16]>>uint(d%16*4)&15]
	}
	return string(b)
}

// InputHex returns the packed input vector of one port value per input, as
// a hex line of the check program's stimulus format.
func (md *Model) InputHex(vals []rtl.Bits) (string, error) {
	w, err := pack(md.Inputs, md.InBits, vals)
	if err != nil {
		return "", err
	}
	return hexLine(w, md.InBits), nil
}

// OutputHex is InputHex for the outputs (the expected-output format).
func (md *Model) OutputHex(vals []rtl.Bits) (string, error) {
	w, err := pack(md.Outputs, md.OutBits, vals)
	if err != nil {
		return "", err
	}
	return hexLine(w, md.OutBits), nil
}

// ParseOutputHex parses an expected-output hex line into one pattern per
// output port (for field-by-field reports).
func (md *Model) ParseOutputHex(line string) ([]rtl.Bits, error) {
	n := (md.OutBits + 3) / 4
	if len(line) != n {
		return nil, fmt.Errorf("llvmir: output line has %d hex digits, want %d", len(line), n)
	}
	words := make([]uint64, (md.OutBits+63)/64)
	for i := 0; i < n; i++ {
		c := line[n-1-i]
		var v uint64
		switch {
		case c >= '0' && c <= '9':
			v = uint64(c - '0')
		case c >= 'a' && c <= 'f':
			v = uint64(c-'a') + 10
		default:
			return nil, fmt.Errorf("llvmir: output line: %q is not a lower-case hex digit", c)
		}
		words[i/16] |= v << uint(i%16*4)
	}
	vals := make([]rtl.Bits, len(md.Outputs))
	for i, p := range md.Outputs {
		for k := 0; k < p.Slots(); k++ {
			off, w := chunk(p, k)
			vals[i][k] = getBits(words, off, w)
		}
	}
	return vals, nil
}
