package fixedpoint

import "math/bits"

// bitsDiv64 is bits.Div64 for hi < d (guaranteed by the caller).
func bitsDiv64(hi, lo, d uint64) (q, r uint64) { return bits.Div64(hi, lo, d) }

// sar is the arithmetic right shift of a 128-bit two's complement pattern.
func (a u128) sar(n uint) u128 {
	if int64(a.hi) < 0 {
		return a.not().shr(n).not()
	}
	return a.shr(n)
}
