package rtl

import (
	"math/big"
	"math/bits"
	"strings"
)

// MaxWidth is the widest signal a description may hold, in bits. It covers a
// full product of two 64-bit operands plus rounding and sign headroom.
const MaxWidth = 256

// Bits is a bit pattern of up to MaxWidth bits, little-endian words (word 0
// holds bits 63..0). A node's value is kept canonical: bits at and above the
// node's width are zero, whatever its signedness (signedness is how the
// pattern is read, not how it is stored).
type Bits [MaxWidth / 64]uint64

// BitsOf returns the pattern whose low 64 bits are v.
func BitsOf(v uint64) Bits { return Bits{v} }

// BitsOfInt returns the two's-complement pattern of v truncated to w bits.
func BitsOfInt(v int64, w int) Bits {
	var b Bits
	if v < 0 {
		for i := range b {
			b[i] = ^uint64(0)
		}
	}
	b[0] = uint64(v)
	return b.Trunc(w)
}

// BitsOfBig returns the two's-complement pattern of x truncated to w bits.
func BitsOfBig(x *big.Int, w int) Bits {
	m := new(big.Int).Lsh(big.NewInt(1), uint(w))
	y := new(big.Int).Mod(x, m) // Euclidean: non-negative
	var b Bits
	for i, wd := range y.Bits() {
		if i < len(b) {
			b[i] = uint64(wd)
		}
	}
	return b
}

// Uint64 returns the low 64 bits.
func (b Bits) Uint64() uint64 { return b[0] }

// Big returns the pattern as a non-negative integer.
func (b Bits) Big() *big.Int {
	words := make([]big.Word, len(b))
	for i, w := range b {
		words[i] = big.Word(w)
	}
	return new(big.Int).SetBits(words)
}

// BigSigned returns the pattern read as a w-bit two's-complement integer.
func (b Bits) BigSigned(w int) *big.Int {
	x := b.Big()
	if b.Bit(w - 1) {
		x.Sub(x, new(big.Int).Lsh(big.NewInt(1), uint(w)))
	}
	return x
}

// Bit reports bit i.
func (b Bits) Bit(i int) bool {
	if i < 0 || i >= MaxWidth {
		return false
	}
	return b[i/64]>>(uint(i)%64)&1 == 1
}

// IsZero reports whether every bit is zero.
func (b Bits) IsZero() bool { return b == Bits{} }

// Trunc clears every bit at and above bit w.
func (b Bits) Trunc(w int) Bits {
	for i := range b {
		lo := i * 64
		switch {
		case w <= lo:
			b[i] = 0
		case w < lo+64:
			b[i] &= uint64(1)<<uint(w-lo) - 1
		}
	}
	return b
}

// SignExt reads the low w bits as two's complement and extends bit w-1 to
// all MaxWidth bits.
func (b Bits) SignExt(w int) Bits {
	b = b.Trunc(w)
	if w < MaxWidth && b.Bit(w-1) {
		ones := Bits{^uint64(0), ^uint64(0), ^uint64(0), ^uint64(0)}
		b = b.Or(ones.Shl(uint(w)))
	}
	return b
}

// Add returns b + c modulo 2^MaxWidth.
func (b Bits) Add(c Bits) Bits {
	var r Bits
	var carry uint64
	for i := range b {
		r[i], carry = bits.Add64(b[i], c[i], carry)
	}
	return r
}

// Sub returns b - c modulo 2^MaxWidth.
func (b Bits) Sub(c Bits) Bits {
	var r Bits
	var borrow uint64
	for i := range b {
		r[i], borrow = bits.Sub64(b[i], c[i], borrow)
	}
	return r
}

// Mul returns b * c modulo 2^MaxWidth.
func (b Bits) Mul(c Bits) Bits {
	var r Bits
	n := len(b)
	for i := 0; i < n; i++ {
		if b[i] == 0 {
			continue
		}
		var carry uint64
		for j := 0; i+j < n; j++ {
			hi, lo := bits.Mul64(b[i], c[j])
			var c1, c2 uint64
			lo, c1 = bits.Add64(lo, r[i+j], 0)
			lo, c2 = bits.Add64(lo, carry, 0)
			r[i+j] = lo
			carry = hi + c1 + c2
		}
	}
	return r
}

// And returns the bitwise AND.
func (b Bits) And(c Bits) Bits {
	for i := range b {
		b[i] &= c[i]
	}
	return b
}

// Or returns the bitwise OR.
func (b Bits) Or(c Bits) Bits {
	for i := range b {
		b[i] |= c[i]
	}
	return b
}

// Xor returns the bitwise XOR.
func (b Bits) Xor(c Bits) Bits {
	for i := range b {
		b[i] ^= c[i]
	}
	return b
}

// Not returns the bitwise complement of all MaxWidth bits.
func (b Bits) Not() Bits {
	for i := range b {
		b[i] = ^b[i]
	}
	return b
}

// Shl shifts left by n bits (n >= MaxWidth gives zero).
func (b Bits) Shl(n uint) Bits {
	if n >= MaxWidth {
		return Bits{}
	}
	var r Bits
	ws, bs := int(n/64), n%64
	for i := len(b) - 1; i >= ws; i-- {
		v := b[i-ws] << bs
		if bs != 0 && i-ws-1 >= 0 {
			v |= b[i-ws-1] >> (64 - bs)
		}
		r[i] = v
	}
	return r
}

// Shr shifts right logically by n bits (n >= MaxWidth gives zero).
func (b Bits) Shr(n uint) Bits {
	if n >= MaxWidth {
		return Bits{}
	}
	var r Bits
	ws, bs := int(n/64), n%64
	for i := 0; i+ws < len(b); i++ {
		v := b[i+ws] >> bs
		if bs != 0 && i+ws+1 < len(b) {
			v |= b[i+ws+1] << (64 - bs)
		}
		r[i] = v
	}
	return r
}

// Cmp compares b and c as unsigned MaxWidth-bit integers: -1, 0 or +1.
func (b Bits) Cmp(c Bits) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch {
		case b[i] < c[i]:
			return -1
		case b[i] > c[i]:
			return 1
		}
	}
	return 0
}

// SmallShift returns the shift amount the pattern encodes, saturated to
// MaxWidth (any amount >= MaxWidth shifts every bit out).
func (b Bits) SmallShift() uint {
	for i := 1; i < len(b); i++ {
		if b[i] != 0 {
			return MaxWidth
		}
	}
	if b[0] >= MaxWidth {
		return MaxWidth
	}
	return uint(b[0])
}

// LeadingZeros returns the number of leading zeros of the low w bits (w if
// all are zero).
func (b Bits) LeadingZeros(w int) int {
	for i := w - 1; i >= 0; i-- {
		if b.Bit(i) {
			return w - 1 - i
		}
	}
	return w
}

// Hex returns the low w bits as ceil(w/4) lowercase hex digits, most
// significant first (the form Verilog literals and $readmemh use).
func (b Bits) Hex(w int) string {
	n := (w + 3) / 4
	var s strings.Builder
	for d := n - 1; d >= 0; d-- {
		nib := b[d/16] >> uint((d%16)*4) & 0xf
		s.WriteByte("0123456789abcdef"[nib])
	}
	return s.String()
}

// String returns the pattern in hex with a 0x prefix (all words).
func (b Bits) String() string {
	h := strings.TrimLeft(b.Hex(MaxWidth), "0")
	if h == "" {
		h = "0"
	}
	return "0x" + h
}
