package fixedpoint

// Fast path. quantize64 computes exactly what quantize computes (the
// property and fuzz tests compare Cast/MulCast/AddCast with the math/big
// paths and the oracle) for the common datapath case: a magnitude hi:lo
// whose quantized value fits 64 bits, a target of at most 64 bits and a
// drop of s in [-63, 63] bits. It is branch-light: the rounding decision
// is a table lookup, so random data does not cost branch mispredictions.

// roundTab[q][res][neg][odd] is roundUp(neg, odd, res, q) for every valid
// mode, precomputed once (read-only).
var roundTab = func() (t [numQuantization][4][2][2]uint64) {
	for q := range t {
		for r := range t[q] {
			for n := range t[q][r] {
				for o := range t[q][r][n] {
					if roundUp(n == 1, o == 1, residue(r), Quantization(q)) {
						t[q][r][n][o] = 1
					}
				}
			}
		}
	}
	return t
}()

func u64(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// quantize64 returns ok=false when the case needs the general engine.
func quantize64(neg bool, hi, lo uint64, s int, to Format, q Quantization, o Overflow) (Value, bool) {
	if uint(to.W-1) > 63 || uint(s+63) > 126 || q >= numQuantization ||
		to.I < -MaxIntBits || to.I > MaxIntBits {
		return Value{}, false
	}
	var qv, rem, half uint64
	switch {
	case s > 0:
		if hi>>uint(s) != 0 {
			return Value{}, false // quantized magnitude above 64 bits
		}
		qv = lo>>uint(s) | hi<<uint(64-s)
		rem = lo & (1<<uint(s) - 1)
		half = 1 << uint(s-1)
	case hi != 0 || lo>>uint(64+s) != 0 && s < 0:
		return Value{}, false
	default:
		qv = lo << uint(-s)
	}
	nz := u64(rem != 0)
	res := nz * (1 + u64(rem >= half) + u64(rem > half))
	inc := roundTab[q][res&3][u64(neg)&1][qv&1]
	qv += inc
	if qv < inc {
		return Value{}, false // carried out of 64 bits
	}
	w := uint(to.W)
	// Largest magnitude allowed for this sign (|MIN| is excluded under SatSym).
	var lim uint64
	switch {
	case !to.Signed:
		lim = (^uint64(0) >> (64 - w)) &^ -u64(neg) // 0 for negative values
	case neg && o != SatSym:
		lim = 1 << (w - 1)
	default:
		lim = 1<<(w-1) - 1
	}
	p := pack(to)
	if qv <= lim {
		if neg {
			r := -qv
			return Value{lo: r, hi: -u64(r != 0), p: p}, true
		}
		return Value{lo: qv, p: p}, true
	}
	maxv := ^uint64(0) >> (64 - w) >> u64(to.Signed) // MAX raw
	switch {
	case o == Sat && !neg, o == SatSym && !neg:
		return Value{lo: maxv, p: p}, true
	case o == Sat && to.Signed:
		return Value{lo: -(maxv + 1), hi: ^uint64(0), p: p}, true // MIN
	case o == SatSym && to.Signed:
		return Value{lo: -maxv, hi: -u64(maxv != 0), p: p}, true // -MAX (0 for W=1)
	case o == Sat, o == SatSym, o == SatZero:
		return Value{p: p}, true
	}
	// Wrap: the low W bits of the two's complement, sign- or zero-extended.
	r := qv
	if neg {
		r = -qv
	}
	if to.Signed {
		r = uint64(int64(r<<(64-w)) >> (64 - w))
		return Value{lo: r, hi: -(r >> 63), p: p}, true
	}
	return Value{lo: r << (64 - w) >> (64 - w), p: p}, true
}
