package vectors

import "math/bits"

// Rand is the deterministic pseudo-random source of constrained-random
// vectors, implemented here so the sequence never changes with the Go
// release: each random vector j draws from its own stream NewRand(seed, j),
// so any shard can start at any index without generating the vectors
// before it. The stream's state is seeded with the SplitMix64 finalizer
// (Steele, Lea, Flood, OOPSLA 2014) of seed and j; outputs are wyrand
// (Wang Yi's wyhash generator: s += 0xa0761d6478bd642f, output = hi ^ lo
// of the 128-bit product s * (s ^ 0xe7037ed1a0b428db)).
type Rand struct{ s uint64 }

const golden64 = 0x9e3779b97f4a7c15

func mix64(z uint64) uint64 {
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// NewRand returns the stream for random vector index j of seed:
// state = mix64(seed) + mix64(j + 1) * golden64 (wrapping).
func NewRand(seed, j uint64) *Rand {
	r := &Rand{}
	r.Reset(seed, j)
	return r
}

// Reset re-seeds r as NewRand(seed, j) would, without allocating.
func (r *Rand) Reset(seed, j uint64) { r.s = mix64(seed) + mix64(j+1)*golden64 }

// Uint64 returns 64 uniformly distributed bits.
func (r *Rand) Uint64() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// Bits returns n uniformly distributed low bits (n in 0..64).
func (r *Rand) Bits(n int) uint64 {
	if n <= 0 {
		return 0
	}
	return r.Uint64() >> uint(64-n)
}

// Below returns a uniform value in [0, n) (0 when n == 0): the top bits of
// one draw when n is a power of two, otherwise Lemire's multiply-shift with
// rejection (unbiased).
func (r *Rand) Below(n uint64) uint64 {
	if n&(n-1) == 0 {
		if n <= 1 {
			return 0
		}
		return r.Uint64() >> uint(bits.LeadingZeros64(n)+1)
	}
	hi, lo := bits.Mul64(r.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.Uint64(), n)
		}
	}
	return hi
}

// Range returns a uniform value in [lo, hi] (inclusive; lo when hi <= lo).
func (r *Rand) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	if lo == 0 && hi == ^uint64(0) {
		return r.Uint64()
	}
	return lo + r.Below(hi-lo+1)
}

// Chance returns true with probability num/den.
func (r *Rand) Chance(num, den uint64) bool { return r.Below(den) < num }

// LogUniform returns a value in [0, max] whose bit length is uniform: it picks
// a length L in [0, bitlen(max)], then a uniform value of at most L bits
// clipped to max. Constrained-random generators use it so small and large
// magnitudes are equally likely, as TestFloat does for exponents.
func (r *Rand) LogUniform(max uint64) uint64 {
	l := bits.Len64(max)
	n := int(r.Below(uint64(l) + 1))
	v := r.Bits(n)
	if v > max {
		v = max
	}
	return v
}

// oneIn returns true with probability 2^-k (k in 1..63): the same draw and
// result as Chance(1, 1<<k), and inlined.
func (r *Rand) oneIn(k uint) bool { return r.Uint64()>>(64-k&63) == 0 }

// logUniform32 is LogUniform32(max) for a max below 2^32 (the caller's
// guarantee), the same draw and result, small enough to inline.
func (r *Rand) logUniform32(max uint64) uint64 {
	x := r.Uint64()
	n := (x >> 32) * uint64(bits.Len64(max)+1) >> 32
	return min(x&(1<<n-1), max)
}

// LogUniform32 is LogUniform from a single draw, for max < 2^32: the bit
// length from the high 32 bits by multiply-shift (uniform to within 2^-26),
// the value from the low 32 bits. For larger max it is LogUniform.
func (r *Rand) LogUniform32(max uint64) uint64 {
	if max>>32 != 0 {
		return r.LogUniform(max)
	}
	l := uint64(bits.Len64(max))
	x := r.Uint64()
	n := (x >> 32) * (l + 1) >> 32
	v := x & (1<<n - 1)
	if v > max {
		v = max
	}
	return v
}
