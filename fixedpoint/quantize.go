package fixedpoint

import "math/big"

// residue classifies the bits dropped by quantization relative to half an
// LSB of the target format.
type residue uint8

const (
	resExact residue = iota // nothing dropped
	resLow                  // 0 < dropped < 1/2 LSB
	resHalf                 // dropped == 1/2 LSB (a tie)
	resHigh                 // dropped > 1/2 LSB
)

// roundUp reports whether the magnitude of a value with sign neg, truncated
// magnitude whose LSB is odd, and dropped-bit class r must be incremented by
// one LSB under mode q. This is the whole quantization table (docs/fixedpoint.md):
// on magnitudes, "toward -inf" increments negative values, "toward +inf"
// increments positive ones. Invalid modes behave as Trn.
func roundUp(neg, odd bool, r residue, q Quantization) bool {
	if r == resExact {
		return false
	}
	switch q {
	case TrnZero:
		return false
	case Rnd, RndZero, RndInf, RndMinInf, RndConv:
		switch r {
		case resLow:
			return false
		case resHigh:
			return true
		}
		switch q { // ties
		case Rnd:
			return !neg
		case RndZero:
			return false
		case RndInf:
			return true
		case RndMinInf:
			return neg
		default: // RndConv
			return odd
		}
	}
	return neg // Trn (floor)
}

// classify compares rem (the dropped bits) with half (1/2 LSB).
func classify(rem, half u128) residue {
	if rem.isZero() {
		return resExact
	}
	switch rem.cmp(half) {
	case -1:
		return resLow
	case 0:
		return resHalf
	}
	return resHigh
}

// quantize returns the real number ±mag * 2^-e (neg selects the sign)
// quantized into `to` under q, then overflow-handled under o. It is the single
// cast engine for every fast path; it never allocates. An invalid `to` gives
// the zero Value.
func quantize(neg bool, mag u128, e int, to Format, q Quantization, o Overflow) Value {
	if !to.valid() {
		return Value{}
	}
	var (
		qv   u128
		res  residue
		huge bool // the magnitude is >= 2^128 (only after a left shift)
	)
	switch s := e - to.F(); {
	case s == 0:
		qv = mag
	case s > 0: // drop s low bits
		switch {
		case s > 128:
			if !mag.isZero() {
				res = resLow // mag < 2^128 <= 2^(s-1)
			}
		case s == 128:
			res = classify(mag, pow2(127))
		default:
			us := uint(s)
			qv = mag.shr(us)
			res = classify(mag.and(mask(us)), pow2(us-1))
		}
	default: // exact left shift by t
		t := uint(-s)
		if !mag.isZero() {
			if t >= 128 {
				huge = true // low 128 bits are zero
			} else {
				huge = !mag.shr(128 - t).isZero()
				qv = mag.shl(t)
			}
		}
	}
	return finish(neg, qv, huge, res, to, q, o)
}

// finish rounds the truncated magnitude qv (low 128 bits; huge when the true
// magnitude is >= 2^128) of a value with sign neg, then applies the overflow
// mode. `to` must be valid.
func finish(neg bool, qv u128, huge bool, res residue, to Format, q Quantization, o Overflow) Value {
	if roundUp(neg, qv.lo&1 != 0, res, q) {
		var c uint64
		qv, c = qv.add1()
		huge = huge || c != 0
	}
	lim := to.maxMag(neg)
	if neg && o == SatSym && to.Signed {
		lim = to.maxMag(false) // SystemC: the symmetric range [-MAX, MAX]; MIN itself saturates to -MAX
	}
	if !huge && qv.cmp(lim) <= 0 {
		if neg {
			qv = qv.neg()
		}
		return mkValue(to, qv)
	}
	switch o {
	case Sat:
		if neg {
			return to.minValue()
		}
		return to.maxValue()
	case SatZero:
		return mkValue(to, u128{})
	case SatSym:
		if neg {
			if to.Signed {
				return mkValue(to, to.maxMag(false).neg())
			}
			return mkValue(to, u128{})
		}
		return to.maxValue()
	}
	// Wrap (and invalid modes): keep the low W bits of the two's complement.
	if neg {
		qv = qv.neg()
	}
	return mkValue(to, qv.extend(uint(to.W), to.Signed))
}

// quantizeBig is the arbitrary-width slow path: the real number m * 2^-e
// cast into `to`. It shares finish with the fast path, so the two can differ
// only in how the residue is found.
func quantizeBig(m *big.Int, e int, to Format, q Quantization, o Overflow) Value {
	if !to.valid() {
		return Value{}
	}
	neg := m.Sign() < 0
	var mag big.Int
	mag.Abs(m)
	res := resExact
	switch s := e - to.F(); {
	case s > 0:
		us := uint(s)
		var qb, rem, half big.Int
		qb.Rsh(&mag, us)
		rem.Lsh(&qb, us)
		rem.Sub(&mag, &rem)
		half.Lsh(big.NewInt(1), us-1)
		if rem.Sign() != 0 {
			switch rem.Cmp(&half) {
			case -1:
				res = resLow
			case 0:
				res = resHalf
			default:
				res = resHigh
			}
		}
		mag.Set(&qb)
	case s < 0:
		mag.Lsh(&mag, uint(-s))
	}
	lo, huge := u128FromBig(&mag)
	return finish(neg, lo, huge, res, to, q, o)
}

// quotient returns a/b (b != 0, both >= 0 magnitudes given as big.Int)
// scaled by 2^k, as a truncated magnitude plus residue class; huge reports a
// magnitude >= 2^128.
func quotientBig(a, b *big.Int, k int) (u128, bool, residue) {
	var num, den, qb, rem big.Int
	num.Set(a)
	den.Set(b)
	if k >= 0 {
		num.Lsh(&num, uint(k))
	} else {
		den.Lsh(&den, uint(-k))
	}
	qb.QuoRem(&num, &den, &rem)
	res := resExact
	if rem.Sign() != 0 {
		rem.Lsh(&rem, 1)
		switch rem.Cmp(&den) {
		case -1:
			res = resLow
		case 0:
			res = resHalf
		default:
			res = resHigh
		}
	}
	lo, huge := u128FromBig(&qb)
	return lo, huge, res
}
