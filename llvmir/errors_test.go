package llvmir

import (
	"errors"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/rtl"
)

// TestLowerErrors checks that every input Lower cannot turn into valid C
// and LLVM is refused with an error naming the offending port, group or
// node (and wrapping ErrLower), never a panic.
func TestLowerErrors(t *testing.T) {
	combNamed := func(mod, in, out string) *rtl.Module {
		m := rtl.NewModule(mod, "")
		m.Out(out, m.Not(m.In(in, 8, false)), "")
		return m
	}
	comb := func(in, out string) *rtl.Module { return combNamed("m", in, out) }
	clocked := rtl.NewModule("m", "")
	r := clocked.Reg("acc", 8, false, true, rtl.Bits{})
	clocked.SetNext(r, clocked.Add(r, clocked.In("x", 8, false)), nil)
	clocked.Out("q", r, "")
	noIn := rtl.NewModule("m", "")
	noIn.Out("k", noIn.Const(4, false, 3), "")
	pad := rtl.NewModule("m", "")
	x := pad.In("x", 8, false)
	for _, name := range []string{"a", "b", "_pad"} {
		pad.Out(name, pad.Not(x), "")
	}
	shared := rtl.NewModule("m", "")
	shared.Out("ns_w", shared.ZExt(shared.In("st_w", 8, false), 9), "")
	shared.In("in_x", 1, false)
	shared.Out("out_y", shared.Const(1, false, 0), "")
	cases := []struct {
		name string
		m    *rtl.Module
		opts Options
		want string
	}{
		{"nil", nil, Options{}, "nil module"},
		{"clocked", clocked, Options{}, "register acc"},
		{"no inputs", noIn, Options{}, "no input ports"},
		{"C keyword port", comb("float", "y"), Options{}, "input port float"},
		{"C keyword module", combNamed("double", "x", "y"), Options{}, `module name "double"`},
		{"pad name", pad, Options{}, "_pad"},
		{"unmatched port", comb("x", "y"), Options{Groups: FlowUpdateGroups()}, "input port x"},
		{"empty group", comb("st_x", "ns_x"), Options{Groups: FlowUpdateGroups()}, "group ev"},
		{"bad field name", comb("st_1", "ns_1"), Options{Groups: []Group{{Param: "a", Type: "a", Prefix: "st_"}, {Param: "b", Type: "b", Prefix: "ns_", Output: true}}}, `field name "1"`},
		{"shared type differs", shared, Options{Groups: FlowUpdateGroups()}, "share type state"},
		{"duplicate param", comb("x", "y"), Options{Groups: []Group{{Param: "a", Type: "i"}, {Param: "a", Type: "o", Output: true}}}, `Param="a"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Lower(c.m, c.opts)
			if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrLower) {
				t.Fatalf("Lower: err = %v, want an ErrLower mentioning %q", err, c.want)
			}
		})
	}
}
