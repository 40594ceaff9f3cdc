package fixedpoint_test

import (
	"fmt"
	"os"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// A datapath step: a 16.8 rate times a 0.16 utilization factor, rounded to
// nearest-even and saturated into an unsigned 16.8 result.
func ExampleMulCast() {
	rate, _ := fixedpoint.ParseValue("u16.8=100.5")
	util, _ := fixedpoint.ParseValue("u16.0=0.75")
	out, err := fixedpoint.MulCast(rate, util, fixedpoint.MustFormat("u16.8"), fixedpoint.RndConv, fixedpoint.Sat)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out, out.Notation())
	// Output: 75.375 u16.8:0x4b60
}

// The two division semantics on the example of docs/fixedpoint.md: -1/3
// into s8.4, truncating.
func ExampleDivAC() {
	x, _ := fixedpoint.ParseValue("s8.4=-1")
	y, _ := fixedpoint.ParseValue("s8.4=3")
	s84 := fixedpoint.MustFormat("s8.4")
	sc, _ := fixedpoint.Div(x, y, s84, fixedpoint.Trn, fixedpoint.Wrap)          // SystemC: exact quotient, one quantization
	ac, _ := fixedpoint.DivAC(x, y)                                              // ac_fixed: truncate toward zero in s13.9 ...
	acT, _ := fixedpoint.Cast(ac, s84, fixedpoint.Trn, fixedpoint.Wrap)          // ... then assign
	fused, _ := fixedpoint.DivACCast(x, y, s84, fixedpoint.Trn, fixedpoint.Wrap) // the same, in one call
	fmt.Println(sc, acT, fused, ac.Format())
	// Output: -0.375 -0.3125 -0.3125 s13.9
}

// Every quantization mode on a tie: 2.375 into two fraction bits.
func ExampleCast() {
	x, _ := fixedpoint.ParseValue("s8.4=2.375")
	for _, q := range fixedpoint.AllQuantizations() {
		v, err := fixedpoint.Cast(x, fixedpoint.MustFormat("s8.6"), q, fixedpoint.Sat)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Print(v, " ")
	}
	fmt.Println()
	// Output: 2.25 2.25 2.5 2.25 2.5 2.25 2.5
}

func ExampleReciprocal_WriteMemh() {
	r, _ := fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{
		In: fixedpoint.MustFormat("u16.16"), TableBits: 2, Entry: fixedpoint.MustFormat("u8.1"),
		Out: fixedpoint.MustFormat("u16.1"), Q: fixedpoint.Rnd, O: fixedpoint.Sat,
	})
	_ = r.WriteMemh(os.Stdout)
	// Output:
	// // reciprocal table: In=u16.16 TableBits=2 Entry=u8.1 entries=4
	// // T[i] = 2^(k+1)/(2^(k+1)+2i+1) rounded to nearest (Rnd, Sat) into u8.1
	// 72
	// 5d
	// 4f
	// 44
}

func ExampleTimestampDiffNs() {
	// 8-bit seconds counter wrapped from 255 to 0 between the two stamps.
	d, _ := fixedpoint.TimestampDiffNs(0, 100, 255, 999_999_900, 8)
	fmt.Println(d, fixedpoint.WrapDiff(3, 250, 8))
	// Output: 200 9
}
