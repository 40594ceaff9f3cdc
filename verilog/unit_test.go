package verilog

import (
	"context"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// The fixed-point test unit ("fxunit"): widest operands (64x64-bit
// products), every rounding family, the three saturating overflow modes, a
// ROM, compares, leading-zero counts and a variable shift. Its expected
// outputs come from package fixedpoint (not from the rtl description), so
// the co-simulation checks description, printer and simulators against an
// independent oracle.
var (
	fmtA   = fixedpoint.MustFormat("s64.20")
	fmtB   = fixedpoint.MustFormat("u64.60")
	fmtC   = fixedpoint.MustFormat("s16.8")
	fmtR   = fixedpoint.MustFormat("u17.16") // ROM entry: 1/(idx+1)
	fmtMul = fixedpoint.MustFormat("s48.24")
	fmtMC  = fixedpoint.MustFormat("s32.10")
	fmtAdd = fixedpoint.MustFormat("s24.4")
	fmtSub = fixedpoint.MustFormat("u20.4")
	fmtRom = fixedpoint.MustFormat("s20.8")
)

func unitROM() []uint64 {
	t := make([]uint64, 256)
	for i := range t {
		t[i] = (1 << 16) / uint64(i+1)
	}
	return t
}

func unitTables() (in, out fieldtable.Table) {
	in, err := fieldtable.New("fxunit_in", []fieldtable.Spec{
		{Name: "a", Width: 64, Format: fmtA.String(), Doc: "operand a"},
		{Name: "b", Width: 64, Format: fmtB.String(), Doc: "operand b"},
		{Name: "c", Width: 16, Format: fmtC.String(), Doc: "operand c"},
		{Name: "idx", Width: 8, Format: "uint", Doc: "ROM index and shift amount"},
	})
	if err != nil {
		panic(err)
	}
	out, err = fieldtable.New("fxunit_out", []fieldtable.Spec{
		{Name: "y_mul", Width: 48, Format: fmtMul.String(), Doc: "MulCast(a,b) Rnd Sat"},
		{Name: "y_mulc", Width: 32, Format: fmtMC.String(), Doc: "MulCast(a,c) RndConv SatSym"},
		{Name: "y_add", Width: 24, Format: fmtAdd.String(), Doc: "AddCast(a,c) TrnZero Wrap"},
		{Name: "y_sub", Width: 20, Format: fmtSub.String(), Doc: "SubCast(b,a) RndInf SatZero"},
		{Name: "y_rom", Width: 20, Format: fmtRom.String(), Doc: "MulCast(rom[idx],c) RndMinInf Sat"},
		{Name: "y_lt", Width: 1, Format: "bool", Doc: "a < b"},
		{Name: "y_clz", Width: 7, Format: "uint", Doc: "CLZ(b)"},
		{Name: "y_clzs", Width: 7, Format: "uint", Doc: "CLZ(a), redundant sign bits"},
		{Name: "y_shr", Width: 64, Format: "uint", Doc: "raw b >> idx[5:0]"},
	})
	if err != nil {
		panic(err)
	}
	return in, out
}

// unitComb builds the combinational description.
func unitComb() *rtl.Module {
	m := rtl.NewModule("fxunit", "fixed-point test unit")
	a, b, c := m.FxIn("a", fmtA), m.FxIn("b", fmtB), m.FxIn("c", fmtC)
	idx := m.In("idx", 8, false)
	m.FxOut("y_mul", m.FxMulCast(a, b, fmtMul, fixedpoint.Rnd, fixedpoint.Sat), "")
	m.FxOut("y_mulc", m.FxMulCast(a, c, fmtMC, fixedpoint.RndConv, fixedpoint.SatSym), "")
	m.FxOut("y_add", m.FxAddCast(a, c, fmtAdd, fixedpoint.TrnZero, fixedpoint.Wrap), "")
	m.FxOut("y_sub", m.FxSubCast(b, a, fmtSub, fixedpoint.RndInf, fixedpoint.SatZero), "")
	r := m.FxOf(m.ROM(idx, 17, unitROM()).Named("recip_rom"), fmtR)
	m.FxOut("y_rom", m.FxMulCast(r, c, fmtRom, fixedpoint.RndMinInf, fixedpoint.Sat), "")
	m.Out("y_lt", m.FxLt(a, b).Named("a_lt_b"), "")
	m.Out("y_clz", m.FxCLZ(b), "")
	m.Out("y_clzs", m.FxCLZ(a), "")
	m.Out("y_shr", m.LShr(b.N, m.Slice(idx, 0, 6)), "")
	return m
}

// unitModule returns the pipelined unit.
func unitModule(stages int) (*rtl.Module, error) {
	p, _, err := rtl.Pipeline(unitComb(), rtl.PipelineOptions{Name: "fxunit", Doc: "fixed-point test unit",
		Stages: stages, ValidIn: "in_valid", ValidOut: "out_valid"})
	if err != nil {
		return nil, err
	}
	p.AddParam("Stages", fmt.Sprint(stages))
	return p, nil
}

// unitExpected computes the outputs with package fixedpoint.
func unitExpected(a, b, c fixedpoint.Value, idx uint64) ([]uint64, error) {
	var err error
	raw := func(v fixedpoint.Value, e error) uint64 {
		if e != nil && err == nil {
			err = e
		}
		return v.RawUint() & fieldtable.Mask(v.Format().W)
	}
	r, _ := fixedpoint.FromUint(fmtR, unitROM()[idx])
	lt := uint64(0)
	if fixedpoint.Cmp(a, b) < 0 {
		lt = 1
	}
	out := []uint64{
		raw(fixedpoint.MulCast(a, b, fmtMul, fixedpoint.Rnd, fixedpoint.Sat)),
		raw(fixedpoint.MulCast(a, c, fmtMC, fixedpoint.RndConv, fixedpoint.SatSym)),
		raw(fixedpoint.AddCast(a, c, fmtAdd, fixedpoint.TrnZero, fixedpoint.Wrap)),
		raw(fixedpoint.SubCast(b, a, fmtSub, fixedpoint.RndInf, fixedpoint.SatZero)),
		raw(fixedpoint.MulCast(r, c, fmtRom, fixedpoint.RndMinInf, fixedpoint.Sat)),
		lt,
		uint64(fixedpoint.CLZ(b)),
		uint64(fixedpoint.CLZ(a)),
		b.RawUint() >> (idx & 63),
	}
	return out, err
}

func randRaw(r *rand.Rand, f fixedpoint.Format) fixedpoint.Value {
	var raw *big.Int
	switch r.Intn(6) {
	case 0:
		raw = f.MinRawBig()
	case 1:
		raw = f.MaxRawBig()
	case 2:
		raw = big.NewInt(int64(r.Intn(5) - 2))
		if !f.Signed {
			raw.Abs(raw)
		}
	default:
		raw = new(big.Int).Rand(r, new(big.Int).Lsh(big.NewInt(1), uint(f.W)))
		raw.Add(raw, f.MinRawBig())
		raw.Rsh(raw, uint(r.Intn(f.W))) // spread magnitudes
	}
	v, err := fixedpoint.FromBig(f, raw)
	if err != nil {
		panic(err)
	}
	return v
}

// writeUnitVectors writes n stimulus/expected lines into dir. The first
// vectors are the widest-operand corners.
func writeUnitVectors(dir string, n int, seed int64) error {
	in, out := unitTables()
	r := rand.New(rand.NewSource(seed))
	var sb, eb []byte
	iw, ow := make([]uint64, in.Words()), make([]uint64, out.Words())
	corners := [][2]fixedpoint.Value{
		{fmtA.Max(), fmtB.Max()}, {fmtA.Min(), fmtB.Max()}, {fmtA.Max(), fmtB.Zero()}, {fmtA.Min(), fmtB.Min()},
	}
	for i := 0; i < n; i++ {
		a, b, c := randRaw(r, fmtA), randRaw(r, fmtB), randRaw(r, fmtC)
		idx := uint64(r.Intn(256))
		if i < len(corners) {
			a, b = corners[i][0], corners[i][1]
			c = fmtC.Min()
		}
		for k, v := range []uint64{a.RawUint(), b.RawUint(), c.RawUint() & 0xffff, idx} {
			if err := fieldtable.Put(iw, in.Fields[k], v&fieldtable.Mask(in.Fields[k].Width)); err != nil {
				return err
			}
		}
		want, err := unitExpected(a, b, c, idx)
		if err != nil {
			return err
		}
		for k, v := range want {
			if err := fieldtable.Put(ow, out.Fields[k], v); err != nil {
				return err
			}
		}
		sb = append(in.AppendHex(sb, iw), '\n')
		eb = append(out.AppendHex(eb, ow), '\n')
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, "stimulus.hex"), 0o644, sb); err != nil {
		return err
	}
	return atomicfile.WriteBytes(filepath.Join(dir, "expected.hex"), 0o644, eb)
}

// TestUnitEvaluatorVsFixedpoint is the Go-side check: the rtl evaluator of
// the pipelined unit equals package fixedpoint on every vector (latency
// Stages, one input per cycle).
func TestUnitEvaluatorVsFixedpoint(t *testing.T) {
	dir := t.TempDir()
	const n = 3000
	if err := writeUnitVectors(dir, n, 7); err != nil {
		t.Fatal(err)
	}
	for _, stages := range []int{0, 3} {
		m, err := unitModule(stages)
		if err != nil {
			t.Fatal(err)
		}
		in, out := unitTables()
		got, err := simulateVectors(m, in, out, dir, n)
		if err != nil {
			t.Fatal(err)
		}
		if got.Failed != 0 || got.Passed != n {
			t.Fatalf("stages=%d: evaluator %d passed, %d failed; first: %s", stages, got.Passed, got.Failed, got.First)
		}
	}
}

// TestUnitCosim emits the unit, lints it, and co-simulates it
// under Verilator and Icarus against the fixedpoint vectors. Then it mutates
// the emitted RTL (one ROM entry, one rounding choice, one comparison) and
// checks that each mutant fails co-simulation.
func TestUnitCosim(t *testing.T) {
	tools := needTools(t, FlowLint, FlowVerilator, FlowIcarus)
	ctx := context.Background()
	dir := t.TempDir()
	const nVer, nIcarus, nMutant = 20000, 2000, 6000
	if err := writeUnitVectors(dir, nVer, 11); err != nil {
		t.Fatal(err)
	}
	m, err := unitModule(3)
	if err != nil {
		t.Fatal(err)
	}
	in, out := unitTables()
	bench := Bench{DUT: m, In: in, Out: out, ValidIn: "in_valid", ValidOut: "out_valid", MaxVectors: 32768}
	src := filepath.Join(dir, "rtl")
	files, err := Emit(src, bench)
	if err != nil {
		t.Fatal(err)
	}
	if err := tools.Lint(ctx, src, m.Name, []string{"fxunit.v"}); err != nil {
		t.Fatal(err)
	}
	stim, exp := filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex")
	for _, c := range []struct {
		sim Simulator
		n   int
	}{{Verilator, nVer}, {Icarus, nIcarus}} {
		b, err := tools.Compile(ctx, c.sim, src, buildCache, bench.Name(), files, 32768)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Run(ctx, stim, exp, c.n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if !res.OK() || res.Passed != c.n {
			t.Fatalf("%s: %d passed, %d failed\n%s", c.sim, res.Passed, res.Failed, tail(res.Output, 3000))
		}
		t.Logf("%s: %d vectors in %v (build %v)", c.sim, c.n, res.Duration, b.Duration)
	}

	// Mutants: each must make co-simulation fail.
	orig, err := os.ReadFile(filepath.Join(src, "fxunit.v"))
	if err != nil {
		t.Fatal(err)
	}
	for _, mu := range unitMutations {
		mutated, err := mu.apply(string(orig))
		if err != nil {
			t.Fatalf("mutation %s: %v", mu.name, err)
		}
		mdir := filepath.Join(dir, "mut_"+mu.name)
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, _ := os.ReadFile(filepath.Join(src, f))
			if f == "fxunit.v" {
				data = []byte(mutated)
			}
			if err := os.WriteFile(filepath.Join(mdir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// Icarus: its build takes milliseconds, a Verilator rebuild seconds.
		b, err := tools.Compile(ctx, Icarus, mdir, buildCache, bench.Name(), files, 32768)
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Run(ctx, stim, exp, nMutant, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed == 0 {
			t.Errorf("mutation %s (%s): co-simulation still passes (%d vectors)", mu.name, mu.what, res.Passed)
		} else {
			t.Logf("mutation %s: %d of %d vectors fail", mu.name, res.Failed, nMutant)
		}
	}
}
