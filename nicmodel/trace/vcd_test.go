package trace

import (
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
)

// TestVCDWriter checks the writer on a hand-made signal set against the
// exact expected text (IEEE 1364 section 18.2 syntax, identifier codes
// '!', '"', ...; a change in cycle c dumped at PS(c+1); no stamp for a
// cycle without changes), and its input checks.
func TestVCDWriter(t *testing.T) {
	v, err := NewVCD(engine.GHz, "unit")
	if err != nil {
		t.Fatal(err)
	}
	var a, b uint64
	if err := v.Add("top.blk", "a", 1, func() uint64 { return a }); err != nil {
		t.Fatal(err)
	}
	if err := v.Add("top", "b", 4, func() uint64 { return b }); err != nil {
		t.Fatal(err)
	}
	v.Start()
	a = 1
	v.Sample(3)
	v.Sample(4) // no change: no stamp
	b = 0x1a    // masked to 4 bits: 0xa
	v.Sample(9)
	want := "$version hpccgold 0.1.0 nicmodel $end\n$comment unit $end\n$timescale 1ps $end\n" +
		"$scope module top $end\n$scope module blk $end\n$var wire 1 ! a $end\n$upscope $end\n" +
		"$var wire 4 \" b [3:0] $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\nb0 \"\n$end\n" +
		"#4000\n1!\n#10000\nb1010 \"\n"
	if got := string(v.Bytes()); got != want {
		t.Fatalf("VCD text:\n%s\nwant:\n%s", got, want)
	}
	for _, bad := range []struct {
		scope, name string
		w           int
	}{{"top", "x", 0}, {"top", "x", 65}, {"top", "1x", 1}, {"a..b", "x", 1}, {"t op", "x", 1}} {
		v2, err := NewVCD(engine.GHz, "")
		if err != nil {
			t.Fatal(err)
		}
		if err := v2.Add(bad.scope, bad.name, bad.w, func() uint64 { return 0 }); err == nil {
			t.Errorf("Add(%q, %q, %d) accepted", bad.scope, bad.name, bad.w)
		}
	}
	if err := v.Add("top", "late", 1, func() uint64 { return 0 }); err == nil {
		t.Errorf("Add after Start accepted")
	}
	if _, err := NewVCD(engine.GHz, "x $end y"); err == nil {
		t.Errorf("comment with $end accepted")
	}
	if got := []string{vcdID(0), vcdID(93), vcdID(94), vcdID(95)}; !reflect.DeepEqual(got, []string{"!", "~", "!!", "\"!"}) {
		t.Errorf("identifier codes %q", got)
	}
}
