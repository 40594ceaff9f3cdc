package fixedpoint

import (
	"math/rand"
	"testing"
)

// TestCast64MatchesQuantize checks the branch-free 64-bit engine cast64
// against the general engine quantize (itself checked against exact
// rationals and SystemC in props_test.go and systemc_test.go) bit for bit:
// magnitudes biased to the edges that matter (0, powers of two and their
// neighbours around the kept/dropped boundary, ties, carries out of 64 and
// 128 bits), shifts in and beyond [-63, 63], targets of 1..64 bits (and a
// few wider and invalid ones), every sign, and every quantization and
// overflow mode plus an invalid one of each (which behave as Trn and Wrap).
func TestCast64MatchesQuantize(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	n := 400000
	if testing.Short() {
		n = 40000
	}
	edge := func(s int) (hi, lo uint64) {
		switch r.Intn(8) {
		case 0:
			return 0, 0
		case 1: // a tie or its neighbours at the drop boundary
			if s >= 1 && s <= 64 {
				m := u128{r.Uint64() >> uint(r.Intn(64)), r.Uint64()}.shl(uint(s)).or(pow2(uint(s - 1)))
				switch r.Intn(3) {
				case 0:
					m = m.sub1()
				case 1:
					m, _ = m.add1()
				}
				return m.hi, m.lo
			}
		case 2: // all ones below some bit (rounding carries)
			m := mask(uint(r.Intn(129)))
			return m.hi, m.lo
		case 3: // one bit
			m := pow2(uint(r.Intn(128)))
			return m.hi, m.lo
		case 4: // small
			return 0, uint64(r.Intn(5))
		case 5: // 64-bit
			return 0, r.Uint64() >> uint(r.Intn(64))
		}
		return r.Uint64() >> uint(r.Intn(65)&63), r.Uint64()
	}
	for i := 0; i < n; i++ {
		w := 1 + r.Intn(64)
		switch r.Intn(40) {
		case 0:
			w = 65 + r.Intn(64)
		case 1:
			w = 0 // invalid target
		}
		to := Format{W: w, I: r.Intn(w+41) - 20, Signed: r.Intn(2) == 0}
		s := r.Intn(131) - 65
		e := s + to.F()
		hi, lo := edge(s)
		if r.Intn(4) == 0 { // a product of two 64-bit magnitudes, as MulCast forms
			p := mul64(r.Uint64()>>uint(r.Intn(64)), r.Uint64()>>uint(r.Intn(64)))
			hi, lo = p.hi, p.lo
		}
		neg := uint64(r.Intn(2))
		q := Quantization(r.Intn(int(numQuantization) + 1))
		o := Overflow(r.Intn(int(numOverflow) + 1))
		got := cast64(neg, hi, lo, e, to, q, o)
		want := quantize(neg == 1, u128{hi, lo}, e, to, q, o)
		if got != want {
			t.Fatalf("cast64(neg=%d, %#x:%#x, e=%d, %s, %v, %v) = %s (%#x:%#x); quantize gives %s (%#x:%#x)",
				neg, hi, lo, e, to, q, o, got.Notation(), got.hi, got.lo, want.Notation(), want.hi, want.lo)
		}
	}
}
