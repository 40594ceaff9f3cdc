package fixedpoint

import "math/bits"

// Fast path. cast64 computes exactly what quantize computes (the property,
// fuzz and SystemC tests compare Cast/MulCast/AddCast with the math/big
// paths and the oracle, and TestCast64MatchesQuantize compares the two
// engines directly) for the common datapath case: a target of at most 64
// bits and a drop of s in [-63, 63] bits. Everything else goes to quantize.
//
// The rounding decision is a bias added below the kept bits, so the
// increment and its carry come out of one 128-bit add and shift with no
// branch on the data; signs are applied as masks. The only data-dependent
// branch is the overflow test.

// Rounding biases. Dropping s >= 1 bits with L = 2^s - 1 and H = 2^(s-1),
// adding bias to the magnitude m before the shift increments floor(m/2^s)
// exactly when the mode rounds the magnitude up (rem = m mod 2^s):
//
//	bias 0      never                          Trn (m >= 0), TrnZero
//	bias L      rem > 0                        Trn (m < 0: floor of a negative value)
//	bias H      rem >= H (tie or above)        Rnd (m >= 0), RndInf, RndMinInf (m < 0)
//	bias H-1    rem > H (above half)           Rnd (m < 0), RndZero, RndMinInf (m >= 0)
//	bias H-1+b  rem > H, or a tie and b = 1    RndConv (b is the LSB kept)
//
// A bias selector holds masks: bias = (L & all | L>>1 & half) + one +
// (b & odd), then masked with L (so that s = 0 gives 0).
type biasSel struct{ all, half, one, odd uint64 }

// biasTab[q][neg] is the bias selector of mode q for the sign neg, derived
// once from roundUp (the quantization table) so the two cannot disagree.
// Invalid modes (q >= numQuantization) behave as Trn, as roundUp does:
// cast64 maps them to the extra row numQuantization, which holds Trn.
var biasTab = func() (t [numQuantization + 1][2]biasSel) {
	for q := range t {
		for n := range t[q] {
			up := func(r residue, odd bool) bool { return roundUp(n == 1, odd, r, Quantization(q)) }
			switch {
			case up(resLow, false): // every non-zero residue
				t[q][n].all = ^uint64(0)
			case up(resHalf, false): // ties and above
				t[q][n].half, t[q][n].one = ^uint64(0), 1
			case up(resHalf, true): // ties only when odd
				t[q][n].half, t[q][n].odd = ^uint64(0), 1
			case up(resHigh, false): // above half only
				t[q][n].half = ^uint64(0)
			}
		}
	}
	return t
}()

// cast64 returns the real number ±(hi:lo) * 2^-e (negative when neg = 1;
// neg is 0 or 1) quantized into `to` under q, then overflow-handled under o:
// quantize(neg == 1, u128{hi, lo}, e, to, q, o), which it calls for the
// cases it does not cover (W > 64, |s| > 63, invalid formats).
func cast64(neg, hi, lo uint64, e int, to Format, q Quantization, o Overflow) Value {
	s := e - (to.W - to.I)
	if uint(to.W-1) > 63 || uint(s+63) > 126 || uint(to.I+MaxIntBits) > 2*MaxIntBits {
		return quantize(neg != 0, u128{hi, lo}, e, to, q, o)
	}
	var qv, big uint64 // low 64 bits of the rounded magnitude; non-zero when it is >= 2^64
	if s >= 0 {
		sh := uint(s) & 63
		l := uint64(1)<<sh - 1
		t := &biasTab[min(q, numQuantization)][neg&1]
		bias := (l&t.all | l>>1&t.half) + t.one + lo>>sh&t.odd
		lo, c := bits.Add64(lo, bias&l, 0)
		hi, c2 := bits.Add64(hi, 0, c)
		qv = lo>>sh | hi<<(64-sh) // Go: a shift by 64 gives 0
		big = hi>>sh | c2
	} else {
		sh := uint(-s) & 63
		qv = lo << sh
		big = hi | lo>>(64-sh)
	}
	// Largest magnitude for the sign: MAX, or |MIN| = MAX+1 for a signed
	// negative value (MAX under SatSym, whose range is [-MAX, MAX]), or 0
	// for an unsigned negative value.
	maxv := ^uint64(0) >> (uint(64-to.W) & 63)
	sgn := uint64(0)
	if to.Signed {
		maxv >>= 1
		sgn = ^uint64(0)
	}
	limNeg := maxv + 1
	if o == SatSym {
		limNeg = maxv
	}
	lim := maxv
	if neg != 0 {
		lim = limNeg & sgn
	}
	if big != 0 || qv > lim {
		switch o {
		case Sat, SatSym:
			qv = lim
		case SatZero:
			qv = 0
		default: // Wrap (and invalid modes, as in finish): the low W bits, sign- or zero-extended
			r := (qv ^ -neg) + neg
			w := uint(64-to.W) & 63
			if to.Signed {
				r = uint64(int64(r<<w) >> w)
				return Value{lo: r, hi: uint64(int64(r) >> 63), p: pack(to)}
			}
			return Value{lo: r << w >> w, p: pack(to)}
		}
	}
	r := (qv ^ -neg) + neg // apply the sign: in range, so no wrap
	return Value{lo: r, hi: uint64(int64(r)>>63) & sgn, p: pack(to)}
}
