package fixedpoint

import (
	"math/big"
	"testing"
)

// TestDividerExhaustive checks the restoring Divider against the exact
// quotient quantized once (oracleCast on big.Rat x/y) for every pair of
// operands of small formats, every quantization and overflow mode, and
// quotient formats that force right-shifted (sticky) and left-shifted
// dividends, overflow and wrap.
func TestDividerExhaustive(t *testing.T) {
	type cfg struct{ num, den, quo string }
	cfgs := []cfg{
		{"s5.3", "s5.2", "s6.4"},
		{"u5.5", "u4.2", "u6.3"},
		{"s4.4", "u4.0", "s8.2"},   // quotient needs left alignment
		{"u6.2", "s4.4", "s3.6"},   // coarse quotient: right shift with sticky
		{"s4.1", "s4.-2", "u5.-1"}, // unsigned quotient of signed operands
		{"s1.1", "s1.1", "s2.2"},   // 1-bit operands
	}
	if testing.Short() {
		cfgs = cfgs[:3]
	}
	for _, c := range cfgs {
		num, den, quo := MustFormat(c.num), MustFormat(c.den), MustFormat(c.quo)
		for _, q := range AllQuantizations() {
			for _, o := range AllOverflows() {
				d, err := NewDividerModes(num, den, quo, q, o)
				if err != nil {
					t.Fatal(err)
				}
				forAll(num, func(x Value) {
					forAll(den, func(y Value) {
						got, err := d.Div(x, y)
						if err != nil {
							t.Fatal(err)
						}
						var want *big.Int
						switch {
						case !y.IsZero():
							want = oracleCast(new(big.Rat).Quo(x.Rat(), y.Rat()), quo, q, o)
						case x.Sign() < 0 && o == SatSym && quo.Signed:
							want = new(big.Int).Neg(quo.MaxRawBig())
						case x.Sign() < 0:
							want = quo.MinRawBig()
						default:
							want = quo.MaxRawBig()
						}
						if got.RawBig().Cmp(want) != 0 || got.Format() != quo {
							t.Fatalf("Divider(%s/%s->%s,%v,%v).Div(%s, %s) = %s; want raw %s", c.num, c.den, c.quo, q, o, x, y, got.Notation(), want)
						}
					})
				})
			}
		}
	}
}

// TestDividerWide checks 64-bit dividers on edge operands against Div.
func TestDividerWide(t *testing.T) {
	num, den, quo := MustFormat("u64.64"), MustFormat("u64.32"), MustFormat("u64.40")
	d, err := NewDivider(num, den, quo)
	if err != nil {
		t.Fatal(err)
	}
	if d.Steps() != 64+57 || d.Align() != 24+32-0+1 { // j = Fquo + Fden - Fnum + 1
		t.Errorf("Steps=%d Align=%d; want 121, 57", d.Steps(), d.Align())
	}
	vals := []uint64{1, 2, 3, 1<<32 - 1, 1 << 32, 1<<63 + 12345, 1<<64 - 1, 0xdeadbeefcafebabe}
	for _, a := range vals {
		for _, b := range vals {
			x, _ := FromUint(num, a)
			y, _ := FromUint(den, b)
			got, _ := d.Div(x, y)
			want, _ := Div(x, y, quo, Trn, Sat)
			if got != want {
				t.Errorf("Div(%s, %s) = %s; want %s", x, y, got.Notation(), want.Notation())
			}
		}
	}
}

// TestDividerErrors checks configuration and operand-format errors.
func TestDividerErrors(t *testing.T) {
	if _, err := NewDivider(MustFormat("u65.0"), MustFormat("u8.0"), MustFormat("u8.0")); err == nil ||
		err.Error() != "fixedpoint: Divider Num=u65.0: width must be at most 64" {
		t.Errorf("NewDivider(u65.0) error = %v", err)
	}
	if _, err := NewDivider(MustFormat("u8.8"), MustFormat("u8.-300"), MustFormat("u8.8")); err == nil ||
		err.Error() != "fixedpoint: Divider Quo=u8.8: needs 317 iterations for Num=u8.8 Den=u8.-300; at most 256" {
		t.Errorf("NewDivider(too many steps) error = %v", err)
	}
	if _, err := NewDivider(Format{}, MustFormat("u8.0"), MustFormat("u8.0")); err == nil {
		t.Errorf("NewDivider(zero Num): want error")
	}
	d, _ := NewDivider(MustFormat("u8.8"), MustFormat("u8.8"), MustFormat("u8.8"))
	if _, err := d.Div(mustRaw(t, "s8.8", 1), mustRaw(t, "u8.8", 1)); err == nil ||
		err.Error() != "fixedpoint: Divider.Div x format s8.8: want Num u8.8" {
		t.Errorf("Div(wrong format) error = %v", err)
	}
}

// forAll calls fn with every value of the (small) format f.
func forAll(f Format, fn func(Value)) {
	lo, hi := f.MinRawBig().Int64(), f.MaxRawBig().Int64()
	for r := lo; r <= hi; r++ {
		v, err := FromRaw(f, r)
		if err != nil {
			panic(err)
		}
		fn(v)
	}
}
