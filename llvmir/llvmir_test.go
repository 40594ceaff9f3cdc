package llvmir

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl"
)

// needTools returns clang and opt, failing the test when one is missing and
// HPCCGOLD_REQUIRE_TOOLS=1 (CI), skipping it otherwise.
func needTools(t testing.TB) Tools {
	t.Helper()
	tools, err := FindTools()
	testtool.Require(t, err, ErrToolMissing, "clang", "opt")
	return tools
}

// emitBuild lowers m, emits it into a temporary directory, verifies the IR
// with opt and builds the check program with clang at optimization opt.
func emitBuild(t testing.TB, tools Tools, m *rtl.Module, opts Options, opt string) (*Model, string) {
	t.Helper()
	md, err := Lower(m, opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := Emit(dir, md); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tools.Verify(ctx, dir, md); err != nil {
		t.Fatal(err)
	}
	prog, err := tools.Build(ctx, dir, md, opt)
	if err != nil {
		t.Fatal(err)
	}
	return md, prog
}

// simVectors draws n random input vectors (corner patterns included) and
// evaluates them with rtl.Sim, the Go definition of every op's semantics:
// it returns the stimulus and expected-output hex lines.
func simVectors(t testing.TB, m *rtl.Module, md *Model, r *rand.Rand, n int) (stim, exp []string) {
	t.Helper()
	sim, err := rtl.NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	f := sim.Module()
	in := make([]rtl.Bits, len(f.Inputs))
	out := make([]rtl.Bits, len(f.Outputs))
	for v := 0; v < n; v++ {
		for i, p := range f.Inputs {
			in[i] = randBits(r, p.Width)
			sim.SetIn(i, in[i])
		}
		for i := range f.Outputs {
			out[i] = sim.Out(i)
		}
		s, err := md.InputHex(in)
		if err != nil {
			t.Fatal(err)
		}
		e, err := md.OutputHex(out)
		if err != nil {
			t.Fatal(err)
		}
		stim, exp = append(stim, s), append(exp, e)
	}
	return stim, exp
}

// runEval runs the check program's -eval mode on stimulus lines and
// returns its output lines.
func runEval(t testing.TB, prog string, stim []string) []string {
	t.Helper()
	path := filepath.Join(filepath.Dir(prog), "stim.hex")
	if err := os.WriteFile(path, []byte(strings.Join(stim, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(prog, "-eval", path).CombinedOutput()
	if err != nil {
		t.Fatalf("%s -eval: %v\n%s", prog, err, out)
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != len(stim) {
		t.Fatalf("%s -eval: %d lines for %d vectors\n%s", prog, len(lines), len(stim), out)
	}
	return lines
}

// compareLines fails t on the first vectors whose outputs differ, naming
// the fields.
func compareLines(t testing.TB, md *Model, stim, got, want []string) {
	t.Helper()
	bad := 0
	for i := range want {
		if got[i] == want[i] {
			continue
		}
		g, err1 := md.ParseOutputHex(got[i])
		w, err2 := md.ParseOutputHex(want[i])
		if err1 != nil || err2 != nil {
			t.Fatalf("vector %d: %v %v", i, err1, err2)
		}
		for k, p := range md.Outputs {
			if g[k] != w[k] {
				t.Errorf("%s vector %d (stimulus %s): %s = %v, want %v (rtl.Sim)", md.Name, i, stim[i], p.Name, g[k], w[k])
			}
		}
		if bad++; bad >= 5 {
			t.FailNow()
		}
	}
}

// TestRandomModulesMatchSim lowers random combinational modules that use
// every op, with every mux arm guarded, the default guards or none,
// compiles each at -O2 (and every fourth also at -O0, so a result cannot
// depend on the optimizer), and runs random and corner-pattern
// inputs through both C entries of the compiled model. Expected values come
// from rtl.Sim, the Go evaluator that defines each op's semantics.
func TestRandomModulesMatchSim(t *testing.T) {
	tools := needTools(t)
	modules, vecs := 18, 400
	if testing.Short() {
		modules, vecs = 8, 200
	}
	seen := map[rtl.Op]bool{}
	type job struct {
		m    *rtl.Module
		seed uint64
	}
	var jobs []job
	for i := 0; i < modules; i++ {
		seed := uint64(1000 + i)
		r := rand.New(rand.NewPCG(seed, 7))
		m := randModule(fmt.Sprintf("rnd%d", i), r, 20+r.IntN(60))
		if err := m.Check(); err != nil {
			t.Fatalf("random module %d: %v", i, err)
		}
		for _, n := range m.Nodes {
			seen[n.Op] = true
		}
		jobs = append(jobs, job{m, seed})
	}
	// The generator must have produced every combinational op, or this test
	// would silently stop covering one.
	for op := rtl.OpInput; op <= rtl.OpROM; op++ {
		if !seen[op] {
			t.Errorf("random modules contain no %s node", op)
		}
	}
	// The aggressive threshold must guard some arms, the negative one none.
	guarded := map[int]int{}
	for i, j := range jobs {
		for _, g := range []int{1, -1} {
			md, err := Lower(j.m, Options{GuardMin: g})
			if err != nil {
				t.Fatal(err)
			}
			if g == 1 || i%3 == 2 {
				guarded[g] += md.Guards
			}
		}
	}
	if guarded[1] == 0 || guarded[-1] != 0 {
		t.Fatalf("guarded mux arms: %d with GuardMin=1 (want > 0), %d with GuardMin=-1 (want 0)", guarded[1], guarded[-1])
	}
	t.Logf("%d mux arms guarded with GuardMin=1", guarded[1])
	for i, j := range jobs {
		opts := []string{"-O2"}
		if i%4 == 0 {
			opts = append(opts, "-O0")
		}
		// Guard thresholds in turn: every mux arm cone guarded (1), the
		// default, straight-line selects only (-1).
		guard := []int{1, 0, -1}[i%3]
		for _, opt := range opts {
			t.Run(fmt.Sprintf("%s%s_guard%d", j.m.Name, opt, guard), func(t *testing.T) {
				t.Parallel()
				md, prog := emitBuild(t, tools, j.m, Options{GuardMin: guard}, opt)
				stim, want := simVectors(t, j.m, md, rand.New(rand.NewPCG(j.seed, 8)), vecs)
				compareLines(t, md, stim, runEval(t, prog, stim), want)
			})
		}
	}
}

// TestABIReturnSlots checks the C/LLVM return convention for every number
// of return slots the padding rule distinguishes (1, 2, 3 and 4 padded to
// 5, 5, 6, 9): each output is a different function of the inputs, so a
// slot returned in the wrong register or place shows as a mismatch against
// rtl.Sim.
func TestABIReturnSlots(t *testing.T) {
	tools := needTools(t)
	for _, slots := range []int{1, 2, 3, 4, 5, 6, 9} {
		t.Run(fmt.Sprint(slots), func(t *testing.T) {
			t.Parallel()
			m := rtl.NewModule(fmt.Sprintf("slots%d", slots), "")
			a := m.In("a", 64, false)
			b := m.In("b", 13, true)
			bx := m.SExt(b, 64)
			used := 0
			for i := 0; used < slots; i++ {
				var o *rtl.Node
				switch i % 3 {
				case 0:
					o = m.Add(a, m.AsUnsigned(m.ConstBits(64, false, rtl.BitsOf(uint64(i+1)))))
					used++
				case 1:
					o = m.Sub(m.AsSigned(m.Trunc(a, 20)), m.Trunc(bx, 20)) // signed: sign-extended into its slot
					used++
				default:
					if slots-used >= 2 {
						o = m.Mul(a, m.AsUnsigned(bx)) // 128 bits: two slots
						used += 2
					} else {
						o = m.Xor(a, m.AsUnsigned(bx))
						used++
					}
				}
				m.Out(fmt.Sprintf("o%d", i), o, "")
			}
			md, prog := emitBuild(t, tools, m, Options{}, "-O2")
			wantSlots := slots
			if slots == 3 || slots == 4 {
				wantSlots = 5
			}
			if md.RetSlots != wantSlots {
				t.Errorf("RetSlots = %d, want %d", md.RetSlots, wantSlots)
			}
			stim, want := simVectors(t, m, md, rand.New(rand.NewPCG(uint64(slots), 1)), 200)
			compareLines(t, md, stim, runEval(t, prog, stim), want)
		})
	}
}

// TestCheckProgramCatchesMismatch feeds the check program an expected file
// with one output bit flipped: it must report exactly that vector as
// failed, naming the field, so a passing run means something.
func TestCheckProgramCatchesMismatch(t *testing.T) {
	tools := needTools(t)
	r := rand.New(rand.NewPCG(5, 5))
	m := randModule("flip", r, 30)
	md, prog := emitBuild(t, tools, m, Options{}, "-O2")
	stim, want := simVectors(t, m, md, r, 50)
	dir := filepath.Dir(prog)
	write := func(name string, lines []string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sp, ep := write("s.hex", stim), write("e.hex", want)
	ctx := context.Background()
	res, err := Check(ctx, prog, sp, ep)
	if err != nil || res.Passed != 50 || res.Failed != 0 {
		t.Fatalf("clean run: %+v, %v", res, err)
	}
	bad := append([]string(nil), want...)
	last := []byte(bad[17])
	last[len(last)-1] ^= 1 // bit 0: the first output port's LSB
	bad[17] = string(last)
	res, err = Check(ctx, prog, sp, write("bad.hex", bad))
	if err != nil || res.Passed != 49 || res.Failed != 1 {
		t.Fatalf("flipped bit: %+v, %v", res, err)
	}
	if !strings.Contains(res.Report, "vector 17: "+md.Outputs[0].Name+":") {
		t.Errorf("report does not name vector 17, field %s:\n%s", md.Outputs[0].Name, res.Report)
	}
}

// TestDeterministicAndPointerFree lowers the same modules twice: every
// generated file must be byte-identical, name the target triple and data
// layout, and the .ll must contain no pointer type (typed "T*" or opaque
// "ptr"), which is what keeps it readable by LLVM 15 and later.
func TestDeterministicAndPointerFree(t *testing.T) {
	for i := 0; i < 6; i++ {
		mk := func() []File {
			r := rand.New(rand.NewPCG(uint64(i), 3))
			md, err := Lower(randModule("det", r, 60), Options{})
			if err != nil {
				t.Fatal(err)
			}
			return md.Files()
		}
		a, b := mk(), mk()
		for k := range a {
			if a[k].Name != b[k].Name || !bytes.Equal(a[k].Data, b[k].Data) {
				t.Fatalf("module %d: %s differs between two runs", i, a[k].Name)
			}
		}
		ll := string(a[0].Data)
		for _, want := range []string{`target triple = "` + TargetTriple + `"`, `target datalayout = "` + DataLayout + `"`} {
			if !strings.Contains(ll, want) {
				t.Errorf("module %d: .ll lacks %s", i, want)
			}
		}
		for n, line := range strings.Split(ll, "\n") {
			if strings.HasPrefix(line, ";") {
				continue
			}
			if strings.Contains(line, "*") || strings.Contains(line, " ptr") || strings.Contains(line, "getelementptr") ||
				strings.Contains(line, "load ") || strings.Contains(line, "@") && strings.Contains(line, "global") {
				t.Fatalf("module %d line %d uses memory or pointers: %s", i, n+1, line)
			}
		}
	}
}

// TestRelativePaths emits, verifies, builds, checks and benchmarks a small
// random module with every directory, program and vector path relative to
// the working directory (as a user gives them on the command line): Build
// must return an absolute program path, and Check and Bench, which run the
// program in other directories, must still find it and its vector files.
func TestRelativePaths(t *testing.T) {
	tools := needTools(t)
	t.Chdir(t.TempDir())
	r := rand.New(rand.NewPCG(9, 9))
	m := randModule("rel", r, 20)
	md, err := Lower(m, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Emit("model", md); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := tools.Verify(ctx, "model", md); err != nil {
		t.Fatal(err)
	}
	prog, err := tools.Build(ctx, "model", md, "-O0")
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(prog) {
		t.Errorf("Build returned %q, want an absolute path", prog)
	}
	stim, want := simVectors(t, m, md, r, 40)
	if err := os.MkdirAll("vec", 0o755); err != nil {
		t.Fatal(err)
	}
	for name, lines := range map[string][]string{"s.hex": stim, "e.hex": want} {
		if err := os.WriteFile(filepath.Join("vec", name), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel := filepath.Join("model", filepath.Base(prog))
	res, err := Check(ctx, rel, filepath.Join("vec", "s.hex"), filepath.Join("vec", "e.hex"))
	if err != nil || res.Passed != 40 || res.Failed != 0 {
		t.Fatalf("Check(%s): %+v, %v; want 40 passed", rel, res, err)
	}
	br, err := Bench(ctx, rel, 1000, filepath.Join("vec", "s.hex"))
	if err != nil || len(br) == 0 {
		t.Fatalf("Bench(%s): %v, %v", rel, br, err)
	}
}
