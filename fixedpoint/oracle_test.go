package fixedpoint

import "math/big"

// This file is the test oracle: the mathematical definition of every cast,
// written directly on exact rationals (math/big.Rat) from the SystemC
// definitions (IEEE 1666-2011 section 7.10.9: quantization then overflow),
// independently of the package's sign-magnitude engine.

// oracleCast returns the raw integer of r cast into f under q and o.
func oracleCast(r *big.Rat, f Format, q Quantization, o Overflow) *big.Int {
	t := new(big.Rat).Mul(r, ratPow2(f.F()))
	fl := ratFloor(t)
	frac := new(big.Rat).Sub(t, new(big.Rat).SetInt(fl))
	n := new(big.Int).Set(fl)
	up := false // round toward +inf by one LSB
	neg := t.Sign() < 0
	if frac.Sign() != 0 {
		c := frac.Cmp(big.NewRat(1, 2))
		switch q {
		case Trn:
		case TrnZero:
			up = neg
		default:
			switch {
			case c < 0:
			case c > 0:
				up = true
			default:
				switch q {
				case Rnd:
					up = true
				case RndZero:
					up = neg
				case RndInf:
					up = !neg
				case RndMinInf:
				case RndConv:
					up = fl.Bit(0) == 1
				}
			}
		}
	}
	if up {
		n.Add(n, big.NewInt(1))
	}
	lo, hi := f.MinRawBig(), f.MaxRawBig()
	if o == SatSym && f.Signed {
		lo = new(big.Int).Neg(hi) // SC_SAT_SYM's range is symmetric: MIN is an overflow (checked against SystemC)
	}
	if n.Cmp(lo) >= 0 && n.Cmp(hi) <= 0 {
		return n
	}
	switch o {
	case Sat:
		if n.Sign() > 0 {
			return hi
		}
		return lo
	case SatZero:
		return new(big.Int)
	case SatSym:
		if n.Sign() > 0 {
			return hi
		}
		if f.Signed {
			return new(big.Int).Neg(hi)
		}
		return new(big.Int)
	}
	m := new(big.Int).Lsh(big.NewInt(1), uint(f.W))
	n.Mod(n, m) // Euclidean: in [0, 2^W)
	if f.Signed && n.Bit(f.W-1) == 1 {
		n.Sub(n, m)
	}
	return n
}

// ratPow2 returns 2^n as a Rat.
func ratPow2(n int) *big.Rat {
	p := new(big.Int).Lsh(big.NewInt(1), uint(abs(n)))
	if n >= 0 {
		return new(big.Rat).SetInt(p)
	}
	return new(big.Rat).SetFrac(big.NewInt(1), p)
}

// ratFloor returns floor(r).
func ratFloor(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // Euclidean, denom > 0: floor
	_ = m
	return q
}

// rawRat returns raw * 2^-F for a raw integer in format f.
func rawRat(raw *big.Int, f Format) *big.Rat {
	return new(big.Rat).Mul(new(big.Rat).SetInt(raw), ratPow2(-f.F()))
}

func posInf() float64 { return 1 / zero }

var zero float64
