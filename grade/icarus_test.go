package grade

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/exttool"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/verilog"
)

// head returns the first n vectors of v.
func (v *Vectors) head(n int) *Vectors {
	n = min(n, v.n)
	return &Vectors{Source: v.Source, In: v.In, Out: v.Out, First: v.First, n: n,
		in: v.in[:n*len(v.In.Fields)], out: v.out[:n*len(v.Out.Fields)], classes: v.classes[:n]}
}

// writeHex writes v as stimulus.hex and expected.hex in dir.
func (v *Vectors) writeHex(dir string) (stim, exp string, err error) {
	stim, exp = filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex")
	var sb, eb []byte
	iw, ow := make([]uint64, v.In.Words()), make([]uint64, v.Out.Words())
	for k := 0; k < v.n; k++ {
		for i, f := range v.In.Fields {
			fieldtable.PutBits(iw, f.Offset, f.Width, v.input(k)[i])
		}
		for i, f := range v.Out.Fields {
			fieldtable.PutBits(ow, f.Offset, f.Width, v.output(k)[i])
		}
		sb = append(v.In.AppendHex(sb, iw), '\n')
		eb = append(v.Out.AppendHex(eb, ow), '\n')
	}
	if err := os.WriteFile(stim, sb, 0o644); err != nil {
		return "", "", err
	}
	return stim, exp, os.WriteFile(exp, eb, 0o644)
}

// failing counts the vectors of v on which m's outputs differ from the
// golden ones, by rtl.Sim.
func failing(t *testing.T, m *rtl.Module, v *Vectors) int {
	t.Helper()
	sim, err := rtl.NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for k := 0; k < v.Len(); k++ {
		for i, x := range v.input(k) {
			sim.SetInUint(i, x)
		}
		for i, x := range v.output(k) {
			if sim.Out(i).Uint64() != x {
				bad++
				break
			}
		}
	}
	return bad
}

// withValid wraps the combinational module m in a module of the
// testbench's shape: m's ports plus in_valid, and out_valid = in_valid.
func withValid(m *rtl.Module) (*rtl.Module, error) {
	w := rtl.NewModule(m.Name+"_dut", "grading wrapper: "+m.Name+" with the valid handshake")
	args := make([]*rtl.Node, len(m.Inputs))
	for i, in := range m.Inputs {
		args[i] = w.In(in.Name, in.Width, in.Signed)
	}
	valid := w.In("in_valid", 1, false)
	inst := w.Instance(m, "u", args)
	for _, p := range m.Outputs {
		w.Out(p.Name, inst.Out(p.Name), p.Doc)
	}
	w.Out("out_valid", valid, "")
	return w, w.Check()
}

// TestIcarusAgrees prints three mutants of hpcc_update (from the pinned
// sample: two the Go evaluator kills with different operators and one it
// does not) as Verilog with the emitted testbench, runs each under Icarus
// over the first 400 vectors of the default level-1 set, and checks that
// Icarus fails exactly the mutants the Go evaluator kills on those vectors,
// on as many vectors: the grading's evaluator agrees with a real simulator.
func TestIcarusAgrees(t *testing.T) {
	tools := verilog.LookupTools()
	if err := tools.Need(verilog.FlowIcarus); err != nil {
		var me *exttool.MissingError
		var progs []string
		if errors.As(err, &me) {
			progs = me.Programs
		}
		testtool.Require(t, err, verilog.ErrToolMissing, progs...)
	}
	const n = 400
	m, full := defaultTarget(t, "hpcc_update")
	v := full.head(n)
	f, err := combinational(m)
	if err != nil {
		t.Fatal(err)
	}
	all, err := Sites(f, 14)
	if err != nil {
		t.Fatal(err)
	}
	r, err := newRunner(f, v)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var picked []Mutant
	var killed []bool
	var killOp Operator
	nKilled, nLive := 0, 0
	for _, mu := range Sample(all, 40, 14) {
		mm, err := Apply(f, mu)
		if err != nil {
			t.Fatal(err)
		}
		k, _, err := r.firstKill(ctx, mm)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case k >= 0 && nKilled < 2 && mu.Operator != killOp:
			picked, killed, killOp = append(picked, mu), append(killed, true), mu.Operator
			nKilled++
		case k < 0 && nLive < 1:
			picked, killed = append(picked, mu), append(killed, false)
			nLive++
		}
	}
	if nKilled != 2 || nLive != 1 {
		t.Fatalf("sample gave %d killed and %d surviving mutants to compare, want 2 and 1", nKilled, nLive)
	}
	dir := t.TempDir()
	stim, exp, err := v.writeHex(dir)
	if err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "cache")
	for i, mu := range picked {
		mm, err := Apply(f, mu)
		if err != nil {
			t.Fatal(err)
		}
		dut, err := withValid(mm)
		if err != nil {
			t.Fatal(err)
		}
		bench := verilog.Bench{DUT: dut, In: v.In, Out: v.Out, ValidIn: "in_valid", ValidOut: "out_valid", MaxVectors: n}
		src := filepath.Join(dir, "m"+string(rune('0'+i)))
		files, err := verilog.Emit(src, bench)
		if err != nil {
			t.Fatal(err)
		}
		b, err := tools.Compile(ctx, verilog.Icarus, src, cache, bench.Name(), files, n)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Run(ctx, stim, exp, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Passed+res.Failed != n {
			t.Fatalf("%s: Icarus compared %d+%d vectors, want %d", mu, res.Passed, res.Failed, n)
		}
		bad := failing(t, mm, v)
		if got := res.Failed > 0; got != killed[i] || res.Failed != bad {
			t.Errorf("%s: Icarus fails %d of %d vectors; the Go evaluator fails %d (killed=%v)", mu, res.Failed, n, bad, killed[i])
		} else {
			t.Logf("%s: Icarus and the Go evaluator both fail %d of %d vectors", mu, res.Failed, n)
		}
	}
}
