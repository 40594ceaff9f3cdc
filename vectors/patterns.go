package vectors

import (
	"github.com/hpccgold/hpccgold/fieldtable"
)

// Patterns returns the level-2 operand table for a width-bit field whose
// legal raw values are [0, max] (max is clipped to the field's all-ones), in
// the manner of TestFloat's significand and exponent tables: zero; every
// single set bit; runs of ones from the LSB (2^k-1) and from the MSB; the
// complements of single bits; and the boundaries 1, 2, max-1, max, max/2 and
// max/2+1. Patterns above max are dropped. The order is deterministic
// (first occurrence in the order listed) and values are unique.
func Patterns(width int, max uint64) []uint64 {
	mask := fieldtable.Mask(width)
	if max > mask {
		max = mask
	}
	var out []uint64
	seen := make(map[uint64]bool)
	add := func(v uint64) {
		if v <= max && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	add(0)
	for k := 0; k < width; k++ {
		add(uint64(1) << uint(k)) // single bit
	}
	for k := 1; k <= width; k++ {
		add(fieldtable.Mask(k)) // run of k ones from the LSB
	}
	for k := 1; k <= width; k++ {
		add(mask &^ fieldtable.Mask(width-k)) // run of k ones from the MSB
	}
	for k := 0; k < width; k++ {
		add(mask &^ (uint64(1) << uint(k))) // all ones but one
	}
	add(1)
	add(2)
	if max >= 1 {
		add(max - 1)
	}
	add(max)
	add(max / 2)
	add(max/2 + 1)
	return out
}

// PatternField is one operand of a level-2 pairwise combination: a field
// index of the input table and its pattern list.
type PatternField struct {
	Field    int      // index into Input().Fields
	Patterns []uint64 // from Patterns, or a model's own legal table
}

// Pairwise emits, for every pattern a of x and every pattern b of y (x-major
// order), a copy of base with field x set to a and field y set to b, passed
// through fix (may be nil) which can restore invariants the two fields share
// with the rest of the transaction. It stops at the first error.
func Pairwise(t fieldtable.Table, base []uint64, x, y PatternField, fix func(in []uint64), emit func(in []uint64) error) error {
	in := make([]uint64, len(base))
	fx, fy := t.Fields[x.Field], t.Fields[y.Field]
	for _, a := range x.Patterns {
		for _, b := range y.Patterns {
			copy(in, base)
			fieldtable.PutBits(in, fx.Offset, fx.Width, a)
			fieldtable.PutBits(in, fy.Offset, fy.Width, b)
			if fix != nil {
				fix(in)
			}
			if err := emit(in); err != nil {
				return err
			}
		}
	}
	return nil
}
