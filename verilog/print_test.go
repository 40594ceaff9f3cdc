package verilog

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// allOps builds a small module using every op, a register with reset and
// enable, a RAM and an instance: the printer's golden-file fixture.
func allOps() *rtl.Module { return opsFixture(true) }

// opsFixture builds the fixture; without state it is purely combinational
// with a pass-through valid (for co-simulation: Icarus starts registers and
// RAM words at X where the evaluator starts them at 0).
func opsFixture(state bool) *rtl.Module {
	sub := rtl.NewModule("ops_sub", "an adder with a registered output")
	x := sub.In("x", 4, false)
	sub.Out("y", sub.Delay(sub.Add(x, sub.Const(4, false, 3)), "y_q"), "x+3, one cycle later")

	m := rtl.NewModule("ops", "every rtl op once")
	m.AddParam("Purpose", "printer golden test")
	a := m.In("a", 8, true)
	b := m.In("b", 8, true)
	s := m.In("s", 3, false)
	sel := m.In("sel", 1, false)
	out := func(name string, n *rtl.Node) { m.Out(name, n, "") }
	out("o_add", m.Add(a, b))
	out("o_sub", m.Sub(a, b))
	out("o_mul", m.Mul(a, b))
	out("o_umul", m.Mul(m.AsUnsigned(a), m.Const(3, false, 5)))
	out("o_and", m.And(a, b))
	out("o_or", m.Or(a, b))
	out("o_xor", m.Xor(a, b))
	out("o_not", m.Not(a))
	out("o_shlc", m.ShlC(a, 3))
	out("o_lshrc", m.LShrC(a, 3))
	out("o_ashrc", m.AShrC(a, 3))
	out("o_shl", m.Shl(a, s))
	out("o_lshr", m.LShr(a, s))
	out("o_ashr", m.AShr(a, s))
	out("o_eq", m.Eq(a, b))
	out("o_ne", m.Ne(a, b))
	out("o_lt", m.Lt(a, b))
	out("o_le", m.Le(m.AsUnsigned(a), m.AsUnsigned(b)))
	out("o_gt", m.Gt(a, b))
	out("o_ge", m.Ge(a, b))
	out("o_mux", m.Mux(sel, a, b))
	out("o_slice", m.Slice(a, 2, 4))
	out("o_concat", m.Concat(a, sel, m.Const(2, false, 2)))
	out("o_zext", m.ZExt(a, 12))
	out("o_sext", m.SExt(a, 12))
	out("o_clz", m.CLZ(a))
	out("o_rom", m.ROM(s, 6, []uint64{1, 2, 3, 5, 8, 13, 21, 34}))
	out("o_fx", m.FxCast(m.FxOf(m.Mul(a, b), fixedpoint.MustFormat("s16.4")), fixedpoint.MustFormat("s6.2"), fixedpoint.RndConv, fixedpoint.SatSym).N)
	if !state {
		v := m.In("in_valid", 1, false)
		m.Out("out_valid", v, "")
		return m
	}
	r := m.Reg("acc", 8, false, true, rtl.BitsOf(0x5a))
	m.SetNext(r, m.Add(r, m.AsUnsigned(a)), sel)
	out("o_reg", r)
	mem := m.NewMem("tab", 8, 3, "a small RAM")
	rd := m.MemRead(mem, s, sel, "tab_rd")
	m.MemWrite(mem, sel, m.Slice(b, 0, 3), m.AsUnsigned(a))
	out("o_mem", rd)
	u := m.Instance(sub, "u_sub", []*rtl.Node{m.Slice(a, 0, 4)})
	out("o_inst", u.Out("y"))
	return m
}

// TestPrintGolden compares the printed fixture with testdata/*.v byte for
// byte (refresh with go test -update after a deliberate printer change) and
// checks that printing is deterministic.
func TestPrintGolden(t *testing.T) {
	files, err := PrintAll(allOps())
	if err != nil {
		t.Fatal(err)
	}
	again, _ := PrintAll(allOps())
	for i, f := range files {
		if !bytes.Equal(f.Data, again[i].Data) {
			t.Fatalf("%s: printing twice gave different text", f.Name)
		}
		path := filepath.Join("testdata", f.Name)
		if *update {
			if err := os.WriteFile(path, f.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test -update to create it)", err)
		}
		if !bytes.Equal(f.Data, want) {
			t.Errorf("%s differs from %s (run go test -update if the change is intended)", f.Name, path)
		}
	}
}

// TestPrintLintClean runs verilator --lint-only -Wall on the fixture (every
// op, register, RAM, instance) and Yosys synthesis with the latch and
// undriven-net checks, on files in a directory given relative to the
// working directory.
func TestPrintLintClean(t *testing.T) {
	tools := needTools(t, FlowLint, FlowSynth)
	// A directory relative to the working directory: the tools run in it,
	// and must get it absolute.
	t.Chdir(t.TempDir())
	dir := "fixture"
	files, err := PrintAll(allOps())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFiles(dir, files); err != nil {
		t.Fatal(err)
	}
	names := []string{"ops_sub.v", "ops.v"}
	ctx := context.Background()
	if err := tools.Lint(ctx, dir, "ops", names); err != nil {
		t.Fatal(err)
	}
	rep, err := tools.Synth(ctx, dir, "ops", names)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cells == 0 || rep.FlipFlops < 8+8+4 {
		t.Fatalf("synth: %d cells, %d flip-flops; want a non-empty netlist with the register, read port and instance flops", rep.Cells, rep.FlipFlops)
	}
}

// TestOpsEvaluatorVsSimulators runs random inputs through the combinational
// fixture in the Go evaluator (which writes the expected file) and in Icarus
// and Verilator, so every op's Verilog form is checked against its Go
// semantics (the evaluator itself is checked against big-integer
// arithmetic in package rtl), with idle cycles between transactions. Every
// path handed to Compile and Run is relative to the working directory.
func TestOpsEvaluatorVsSimulators(t *testing.T) {
	tools := needTools(t, FlowIcarus, FlowVerilator)
	m := opsFixture(false)
	in, out, err := PortTables(m, "in_valid", "out_valid")
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid", MaxVectors: 4096}
	dir := t.TempDir()
	const n = 3000
	if err := combVectors(dir, m, in, out, n, 5); err != nil {
		t.Fatal(err)
	}
	files, err := Emit(filepath.Join(dir, "rtl"), b)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// Every path relative to the working directory, as a user gives them
	// on the command line (the simulators run in the build directory).
	t.Chdir(dir)
	cache, err := filepath.Rel(dir, buildCache)
	if err != nil {
		t.Fatal(err)
	}
	for _, sim := range []Simulator{Icarus, Verilator} {
		bl, err := tools.Compile(ctx, sim, "rtl", cache, b.Name(), files, 4096)
		if err != nil {
			t.Fatal(err)
		}
		if !filepath.IsAbs(bl.Dir) || !filepath.IsAbs(bl.Cmd[0]) {
			t.Errorf("%s: build dir %q, command %q: want absolute paths", sim, bl.Dir, bl.Cmd[0])
		}
		var calls, last int64
		bl.Progress = func(done, total int64) {
			if done <= last || done > total || total != n {
				t.Errorf("%s: progress %d of %d after %d", sim, done, total, last)
			}
			calls, last = calls+1, done
		}
		res, err := bl.Run(ctx, "stimulus.hex", "expected.hex", n, 7)
		if err != nil {
			t.Fatal(err)
		}
		// Progress every ProgressStep(n) results, and none of its lines
		// left in the output.
		if want := int64(n / ProgressStep(n)); calls != want || strings.Contains(res.Output, "progress ") {
			t.Errorf("%s: %d progress calls (last %d), want %d; progress lines in the output: %v", sim, calls, last, want, strings.Contains(res.Output, "progress "))
		}
		if !res.OK() || res.Passed != n {
			t.Fatalf("%s: %d passed, %d failed\n%s", sim, res.Passed, res.Failed, tail(res.Output, 3000))
		}
	}
}

// combVectors writes n random stimulus lines and the combinational module's
// outputs for them, computed by the evaluator.
func combVectors(dir string, m *rtl.Module, in, out fieldtable.Table, n int, seed int64) error {
	sim, err := rtl.NewSim(m)
	if err != nil {
		return err
	}
	r := rand.New(rand.NewSource(seed))
	var sb, eb []byte
	iw, ow := make([]uint64, in.Words()), make([]uint64, out.Words())
	for i := 0; i < n; i++ {
		for _, f := range in.Fields {
			v := r.Uint64() & fieldtable.Mask(f.Width)
			if r.Intn(4) == 0 {
				v = []uint64{0, fieldtable.Mask(f.Width), 1 << uint(f.Width-1)}[r.Intn(3)]
			}
			fieldtable.PutBits(iw, f.Offset, f.Width, v)
			if err := sim.SetInput(f.Name, rtl.BitsOf(v)); err != nil {
				return err
			}
		}
		for _, f := range out.Fields {
			v, err := sim.Output(f.Name)
			if err != nil {
				return err
			}
			fieldtable.PutBits(ow, f.Offset, f.Width, v.Uint64())
		}
		sb = append(in.AppendHex(sb, iw), '\n')
		eb = append(out.AppendHex(eb, ow), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, "stimulus.hex"), sb, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "expected.hex"), eb, 0o644)
}

// TestConcurrentBuildsOfOneKey compiles one testbench under Icarus from
// several goroutines into one fresh cache at once (as two processes sharing
// the user cache would): every build must succeed and run, exactly one
// build directory must be left for the key, and no temporary directory.
func TestConcurrentBuildsOfOneKey(t *testing.T) {
	tools := needTools(t, FlowIcarus)
	m := opsFixture(false)
	in, out, err := PortTables(m, "in_valid", "out_valid")
	if err != nil {
		t.Fatal(err)
	}
	b := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid", MaxVectors: 64}
	dir := t.TempDir()
	const n = 50
	if err := combVectors(dir, m, in, out, n, 3); err != nil {
		t.Fatal(err)
	}
	files, err := Emit(filepath.Join(dir, "rtl"), b)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	ctx := context.Background()
	const builders = 3
	errs := make(chan error, builders)
	for range builders {
		go func() {
			bl, err := tools.Compile(ctx, Icarus, filepath.Join(dir, "rtl"), cache, b.Name(), files, 64)
			if err != nil {
				errs <- err
				return
			}
			res, err := bl.Run(ctx, filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex"), n, 0)
			if err == nil && (!res.OK() || res.Passed != n) {
				err = fmt.Errorf("%d passed, %d failed", res.Passed, res.Failed)
			}
			errs <- err
		}()
	}
	for range builders {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	ents, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || strings.Contains(ents[0].Name(), ".tmp-") {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("cache holds %v, want one build directory", names)
	}
}
