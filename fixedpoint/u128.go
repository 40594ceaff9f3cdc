package fixedpoint

import (
	"math/big"
	"math/bits"
)

// u128 is an unsigned 128-bit integer hi*2^64 + lo. It is also used as a
// 128-bit two's complement bit pattern. All operations are modulo 2^128.
type u128 struct{ hi, lo uint64 }

func pow2(n uint) u128 { // 2^n, n < 128
	if n >= 64 {
		return u128{1 << (n - 64), 0}
	}
	return u128{0, 1 << n}
}

func (a u128) isZero() bool { return a.hi|a.lo == 0 }

func (a u128) cmp(b u128) int {
	switch {
	case a.hi < b.hi:
		return -1
	case a.hi > b.hi:
		return 1
	case a.lo < b.lo:
		return -1
	case a.lo > b.lo:
		return 1
	}
	return 0
}

func (a u128) add(b u128) (u128, uint64) {
	lo, c := bits.Add64(a.lo, b.lo, 0)
	hi, c := bits.Add64(a.hi, b.hi, c)
	return u128{hi, lo}, c
}

func (a u128) sub(b u128) u128 {
	lo, br := bits.Sub64(a.lo, b.lo, 0)
	hi, _ := bits.Sub64(a.hi, b.hi, br)
	return u128{hi, lo}
}

func (a u128) add1() (u128, uint64) {
	lo, c := bits.Add64(a.lo, 1, 0)
	hi, c := bits.Add64(a.hi, 0, c)
	return u128{hi, lo}, c
}

func (a u128) sub1() u128 {
	lo, br := bits.Sub64(a.lo, 1, 0)
	return u128{a.hi - br, lo}
}

func (a u128) neg() u128 { // two's complement negation mod 2^128
	lo, br := bits.Sub64(0, a.lo, 0)
	hi, _ := bits.Sub64(0, a.hi, br)
	return u128{hi, lo}
}

func (a u128) not() u128 { return u128{^a.hi, ^a.lo} }

func (a u128) and(b u128) u128 { return u128{a.hi & b.hi, a.lo & b.lo} }

// shr is a logical right shift; n >= 128 gives 0.
func (a u128) shr(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{0, a.hi >> (n - 64)}
	}
	return u128{a.hi >> n, a.lo>>n | a.hi<<(64-n)}
}

// shl is a left shift modulo 2^128; n >= 128 gives 0.
func (a u128) shl(n uint) u128 {
	switch {
	case n == 0:
		return a
	case n >= 128:
		return u128{}
	case n >= 64:
		return u128{a.lo << (n - 64), 0}
	}
	return u128{a.hi<<n | a.lo>>(64-n), a.lo << n}
}

// mask returns 2^n - 1 for n in [0,128].
func mask(n uint) u128 {
	if n >= 128 {
		return u128{^uint64(0), ^uint64(0)}
	}
	return pow2(n).sub1()
}

func (a u128) bitLen() int {
	if a.hi != 0 {
		return 64 + bits.Len64(a.hi)
	}
	return bits.Len64(a.lo)
}

// bit returns bit n (n < 128).
func (a u128) bit(n uint) uint64 {
	if n >= 64 {
		return a.hi >> (n - 64) & 1
	}
	return a.lo >> n & 1
}

// extend sign- or zero-extends the low w bits (1 <= w <= 128) to 128 bits.
func (a u128) extend(w uint, signed bool) u128 {
	if w >= 128 {
		return a
	}
	a = a.and(mask(w))
	if signed && a.bit(w-1) != 0 {
		a = a.or(mask(w).not())
	}
	return a
}

func (a u128) or(b u128) u128 { return u128{a.hi | b.hi, a.lo | b.lo} }

func (a u128) big() *big.Int {
	z := new(big.Int).SetUint64(a.hi)
	z.Lsh(z, 64)
	return z.Or(z, new(big.Int).SetUint64(a.lo))
}

// u128FromBig returns the low 128 bits of |x| and whether |x| >= 2^128.
func u128FromBig(x *big.Int) (u128, bool) {
	var m big.Int
	m.Abs(x)
	words := m.Bits()
	var a u128
	// big.Word is 64 bits on every supported 64-bit platform; handle 32-bit too.
	if bits.UintSize == 64 {
		if len(words) > 0 {
			a.lo = uint64(words[0])
		}
		if len(words) > 1 {
			a.hi = uint64(words[1])
		}
		return a, len(words) > 2
	}
	var lo, hi big.Int
	lo.And(&m, new(big.Int).SetUint64(^uint64(0)))
	hi.Rsh(&m, 64)
	a.lo = lo.Uint64()
	hi.And(&hi, new(big.Int).SetUint64(^uint64(0)))
	a.hi = hi.Uint64()
	return a, m.BitLen() > 128
}

// mul64 returns the full 128-bit product a*b.
func mul64(a, b uint64) u128 {
	hi, lo := bits.Mul64(a, b)
	return u128{hi, lo}
}
