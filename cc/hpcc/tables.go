package hpcc

import (
	"fmt"
	"math/big"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// Table is a constant table (a ROM) of the golden datapath, indexed by the
// telemetry speed code, or a single derived constant (one entry). The RTL
// generator emits exactly these raw entries.
type Table struct {
	Name    string            // Verilog-safe name, e.g. "kq" (qlen unit / (B*T))
	Doc     string            // meaning and units
	Format  fixedpoint.Format // entry format (derived: see EntryFormat)
	Entries []uint64          // raw entries; index = speed code (0 for reserved codes)
	Reals   []*big.Rat        // the exact real value each entry approximates (0 for reserved codes)
}

// entryFormat is the table generation rule for a table whose largest exact
// entry is vmax > 0: an unsigned format of `width` bits whose integer bits I
// are the smallest with vmax < 2^I, so the largest entry uses the top bit
// and every entry keeps as many significant bits as its magnitude allows.
func entryFormat(vmax *big.Rat, width int) (fixedpoint.Format, error) {
	if vmax.Sign() <= 0 {
		return fixedpoint.Format{}, fmt.Errorf("hpcc: table with no positive entry")
	}
	i := ceilLog2Strict(vmax)
	return fixedpoint.NewFormat(width, i, false)
}

// ceilLog2Strict returns the smallest integer I with r < 2^I (r > 0).
func ceilLog2Strict(r *big.Rat) int {
	// Start from the bit lengths of numerator and denominator, then adjust.
	i := r.Num().BitLen() - r.Denom().BitLen()
	for pow2Rat(i).Cmp(r) <= 0 {
		i++
	}
	for pow2Rat(i-1).Cmp(r) > 0 {
		i--
	}
	return i
}

func pow2Rat(n int) *big.Rat {
	if n >= 0 {
		return new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(n)))
	}
	return new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), uint(-n)))
}

// quantizeEntry is the table rounding rule: round half up (Rnd) into f,
// saturating (Sat) at the format's maximum.
func quantizeEntry(f fixedpoint.Format, r *big.Rat) (fixedpoint.Value, error) {
	return fixedpoint.FromRat(f, r, fixedpoint.Rnd, fixedpoint.Sat)
}

// buildTable quantizes exact entries (nil = reserved code, stored as 0) into
// the derived entry format.
func buildTable(name, doc string, width int, reals []*big.Rat) (Table, []fixedpoint.Value, error) {
	vmax := new(big.Rat)
	for _, r := range reals {
		if r != nil && r.Cmp(vmax) > 0 {
			vmax = r
		}
	}
	f, err := entryFormat(vmax, width)
	if err != nil {
		return Table{}, nil, fmt.Errorf("hpcc: table %s: %w", name, err)
	}
	t := Table{Name: name, Doc: doc, Format: f}
	vals := make([]fixedpoint.Value, len(reals))
	for c, r := range reals {
		if r == nil {
			r = new(big.Rat)
		}
		v, err := quantizeEntry(f, r)
		if err != nil {
			return Table{}, nil, fmt.Errorf("hpcc: table %s entry %d: %w", name, c, err)
		}
		if r.Sign() > 0 && v.IsZero() {
			return Table{}, nil, fmt.Errorf("hpcc: table %s entry %d: %s rounds to 0 in %s", name, c, r.FloatString(12), f)
		}
		vals[c] = v
		t.Entries = append(t.Entries, v.RawUint())
		t.Reals = append(t.Reals, r)
	}
	return t, vals, nil
}

// ratOf returns the exact value of a float64 parameter.
func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// speedRats returns, per speed code, the link speed B in bytes per ns as an
// exact rational (Gbps/8), or nil for reserved codes and codes faster than
// MaxLinkSpeedGbps (invalid hops).
func (c Config) speedRats() []*big.Rat {
	tab := c.Encoding.SpeedTable()
	out := make([]*big.Rat, len(tab))
	for code, g := range tab {
		if g != 0 && g <= c.MaxLinkSpeedGbps {
			out[code] = big.NewRat(int64(g), 8)
		}
	}
	return out
}

// kqReals are the exact entries of the KQ table: QlenUnit / (B * T), the
// factor that turns min(qlen) in wire units into qlen/(B*T) (line 5); with
// MultiQ QlenUnit / (w_q * B * T), qlen/(wB*T); with Sojourn 1/T for
// every valid speed code (the sample is the sojourn time in ns).
func (c Config) kqReals() []*big.Rat {
	sp := c.speedRats()
	out := make([]*big.Rat, len(sp))
	if c.Sojourn { // the sample is a time in ns: sojourn/T, the same for every speed
		for i, b := range sp {
			if b != nil {
				out[i] = c.invTReal()
			}
		}
		return out
	}
	unit := new(big.Rat).SetInt64(int64(c.Encoding.QlenUnit()))
	wq := c.mqWeightRat() // 1 without MultiQ
	for i, b := range sp {
		if b != nil {
			bt := new(big.Rat).Mul(new(big.Rat).Mul(b, wq), new(big.Rat).SetInt64(int64(c.BaseRTTNs)))
			out[i] = new(big.Rat).Quo(unit, bt)
		}
	}
	return out
}

// krReals are the exact entries of the KR table: TxBytesUnit / B, the factor
// that turns a txBytes rate in wire units per ns into txRate/B (line 5);
// with MultiQ TxBytesUnit / (w_q * B), txRate/wB.
func (c Config) krReals() []*big.Rat {
	sp := c.speedRats()
	out := make([]*big.Rat, len(sp))
	unit := new(big.Rat).SetInt64(int64(c.Encoding.TxBytesUnit()))
	wq := c.mqWeightRat() // 1 without MultiQ
	for i, b := range sp {
		if b != nil {
			out[i] = new(big.Rat).Quo(unit, new(big.Rat).Mul(b, wq))
		}
	}
	return out
}

// invTReal is 1/T (1/ns).
func (c Config) invTReal() *big.Rat { return big.NewRat(1, int64(c.BaseRTTNs)) }

// kWaiReal is W_init*(1-eta) (bytes), the numerator of the dynamic W_ai.
func (c Config) kWaiReal() *big.Rat {
	one := big.NewRat(1, 1)
	return new(big.Rat).Mul(ratOf(c.WInitBytes), new(big.Rat).Sub(one, ratOf(c.Eta)))
}
