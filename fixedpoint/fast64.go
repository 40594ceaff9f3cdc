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
// Apart from the mode and format checks (the same for every call from one
// call site, so well predicted) it is branch-free: sign, rounding and
// saturation are selected with masks.
func quantize64(neg bool, hi, lo uint64, s int, to Format, q Quantization, o Overflow) (Value, bool) {
	if uint(to.W-1) > 63 || uint(s+63) > 126 || q >= numQuantization || o >= numOverflow ||
		to.I < -MaxIntBits || to.I > MaxIntBits {
		return Value{}, false
	}
	var qv, rem, half uint64
	if s > 0 {
		if hi>>uint(s) != 0 {
			return Value{}, false // quantized magnitude above 64 bits
		}
		qv = lo>>uint(s) | hi<<uint(64-s)
		rem = lo & (1<<uint(s) - 1)
		half = 1 << uint(s-1)
	} else {
		if hi != 0 || (s < 0 && lo>>uint(64+s) != 0) {
			return Value{}, false // shifted magnitude above 64 bits
		}
		qv = lo << uint(-s)
	}
	n := u64(neg)
	res := u64(rem != 0) * (1 + u64(rem >= half) + u64(rem > half))
	inc := roundTab[q][res&3][n][qv&1]
	qv += inc
	if qv < inc {
		return Value{}, false // carried out of 64 bits
	}
	w := uint(to.W)
	sg := -u64(to.Signed)                      // all ones for signed formats
	maxv := ^uint64(0) >> (64 - w) >> (sg & 1) // MAX raw
	nm := -n                                   // all ones for negative values
	// Largest allowed magnitude: MAX, or for negative values |MIN| (signed,
	// except under SatSym, whose range is [-MAX, MAX]) or 0 (unsigned).
	lim := maxv ^ ((maxv ^ ((maxv + u64(o != SatSym)) & sg)) & nm)
	r := (qv ^ nm) - nm // the signed result, two's complement
	switch o {
	case SatZero:
		r &= -u64(qv <= lim)
	case Sat, SatSym:
		satNeg := -(maxv + u64(o == Sat)) & sg // MIN or -MAX; 0 unsigned
		sat := maxv ^ ((maxv ^ satNeg) & nm)
		om := -u64(qv > lim)
		r = sat&om | r&^om
	}
	// Keep W bits (Wrap; a no-op for in-range and saturated results).
	sh := 64 - w
	if to.Signed {
		r = uint64(int64(r<<sh) >> sh)
		return Value{lo: r, hi: -(r >> 63), p: pack(to)}, true
	}
	return Value{lo: r << sh >> sh, p: pack(to)}, true
}
