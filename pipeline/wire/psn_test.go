package wire

import "testing"

// TestPSNArithmetic checks wrap-around arithmetic and serial-number order on
// 24 bits. Expected values are worked by hand from the definitions: a
// precedes b when (b - a) mod 2^24 is in [1, 2^23-1] (gvisor seqnum's rule on
// 24 bits); each row is also checked with its operands swapped.
func TestPSNArithmetic(t *testing.T) {
	const max = PSN(PSNMask)
	if got := max.Add(1); got != 0 {
		t.Errorf("0xFFFFFF.Add(1) = %#x, want 0", got)
	}
	if got := PSN(5).Add(1 << 24); got != 5 {
		t.Errorf("5.Add(2^24) = %#x, want 5", got)
	}
	if got := PSN(2).Sub(max); got != 3 {
		t.Errorf("2.Sub(0xFFFFFF) = %d, want 3", got)
	}
	if got := PSN(0x1234567).Wrap(); got != 0x234567 {
		t.Errorf("Wrap(0x1234567) = %#x, want 0x234567", got)
	}
	less := []struct {
		a, b PSN
		want bool // a.LessThan(b)
	}{
		{0, 1, true},
		{max, 0, true},                      // wraps forward by 1
		{max - 5, 10, true},                 // distance 16 across the wrap
		{0, psnHalf - 1, true},              // largest comparable distance
		{0, psnHalf, false},                 // exactly half: incomparable
		{psnHalf, 0, false},                 // incomparable the other way too
		{7, 7, false},                       // equal
		{0x100, 0x100 + psnHalf + 1, false}, // beyond half: b precedes a
	}
	for _, c := range less {
		if got := c.a.LessThan(c.b); got != c.want {
			t.Errorf("%#x.LessThan(%#x) = %t, want %t", c.a, c.b, got, c.want)
		}
		// Symmetry: for distinct comparable values exactly one direction holds.
		d := c.b.Sub(c.a)
		wantRev := d != 0 && d > psnHalf
		if got := c.b.LessThan(c.a); got != wantRev {
			t.Errorf("%#x.LessThan(%#x) = %t, want %t", c.b, c.a, got, wantRev)
		}
	}
	win := []struct {
		p, first PSN
		size     uint32
		want     bool
	}{
		{10, 10, 1, true},
		{11, 10, 1, false},
		{9, 10, 100, false},
		{1, max, 3, true},                // max, 0, 1
		{2, max, 3, false},               // first outside
		{5, 5, 0, false},                 // empty window
		{psnHalf + 3, 3, 1 << 24, false}, // size clamped to 2^23
		{psnHalf + 2, 3, 1 << 24, true},
	}
	for _, c := range win {
		if got := c.p.InWindow(c.first, c.size); got != c.want {
			t.Errorf("%#x.InWindow(%#x, %d) = %t, want %t", c.p, c.first, c.size, got, c.want)
		}
	}
	if !PSN(0).InRange(max, 2) || PSN(2).InRange(max, 2) || !PSN(max).InRange(max, 2) {
		t.Errorf("InRange across wrap wrong")
	}
	if !PSN(3).LessThanEq(3) || !PSN(3).LessThanEq(4) || PSN(4).LessThanEq(3) {
		t.Errorf("LessThanEq wrong")
	}
}
