package gogen

import (
	"bytes"
	"errors"
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

// randomModule builds a flat combinational module of about n random nodes
// over every op the printer handles (and rtl's CLZ encoder, which it
// prints as one leading-zeros count), at widths 1..128 (wide values come
// from concatenations and extensions of the inputs, and from products),
// with zero-extended narrow values and constants mixed in so that the
// printer's value analysis has facts to use (constant compares, masks it
// leaves out, wide nodes held in one word). Every node of the last ones
// and a random sample of the others drives outputs of at most 64 bits
// (slices of wider nodes).
func randomModule(r *rand.Rand, idx, n int) *rtl.Module {
	m := rtl.NewModule(fmt.Sprintf("r%d", idx), "random module")
	var pool []*rtl.Node
	for i := 0; i < 6; i++ {
		pool = append(pool, m.In(fmt.Sprintf("i%d", i), 1+r.IntN(64), r.IntN(2) == 1))
	}
	pick := func() *rtl.Node { return pool[r.IntN(len(pool))] }
	width := func() int {
		switch r.IntN(4) {
		case 0:
			return 65 + r.IntN(64)
		case 1:
			return 1 + r.IntN(8)
		default:
			return 1 + r.IntN(64)
		}
	}
	fit := func(x *rtl.Node, w int, signed bool) *rtl.Node {
		y := m.Resize(x, w)
		if signed {
			return m.AsSigned(y)
		}
		return m.AsUnsigned(y)
	}
	for k := 0; k < n; k++ {
		var x *rtl.Node
		w, s := width(), r.IntN(2) == 1
		switch op := r.IntN(23); op {
		case 0, 1:
			x = m.Add(fit(pick(), w, s), fit(pick(), w, s))
		case 2:
			x = m.Sub(fit(pick(), w, s), fit(pick(), w, s))
		case 3:
			aw := 1 + r.IntN(64)
			bw := 1 + r.IntN(min(64, 128-aw))
			x = m.Mul(fit(pick(), aw, s), fit(pick(), bw, s))
		case 4:
			x = m.And(fit(pick(), w, s), fit(pick(), w, s))
		case 5:
			x = m.Or(fit(pick(), w, s), fit(pick(), w, s))
		case 6:
			x = m.Xor(fit(pick(), w, s), m.ConstBits(w, s, rtl.BitsOf(r.Uint64()).Shl(uint(r.IntN(64))).Or(rtl.BitsOf(r.Uint64()))))
		case 7:
			x = m.Not(fit(pick(), w, s))
		case 8:
			a := fit(pick(), w, s)
			switch r.IntN(3) {
			case 0:
				x = m.ShlC(a, r.IntN(w+1))
			case 1:
				x = m.LShrC(a, r.IntN(w+1))
			default:
				x = m.AShrC(a, r.IntN(w+1))
			}
		case 9:
			a, b := fit(pick(), w, s), fit(pick(), 1+r.IntN(8), false)
			switch r.IntN(3) {
			case 0:
				x = m.Shl(a, b)
			case 1:
				x = m.LShr(a, b)
			default:
				x = m.AShr(a, b)
			}
		case 10, 11:
			a, b := fit(pick(), w, s), fit(pick(), w, s)
			if r.IntN(3) == 0 { // against a constant, sometimes one the operand's bounds decide
				b = m.ConstBits(w, s, rtl.BitsOf(r.Uint64()>>uint(r.IntN(64))))
			}
			x = []func(a, b *rtl.Node) *rtl.Node{m.Eq, m.Ne, m.Lt, m.Le, m.Gt, m.Ge}[r.IntN(6)](a, b)
		case 12, 13:
			x = m.Mux(fit(pick(), 1, false), fit(pick(), w, s), fit(pick(), w, s))
		case 14:
			a := pick()
			lo := r.IntN(a.Width)
			x = m.Slice(a, lo, 1+r.IntN(a.Width-lo))
		case 15:
			a := fit(pick(), 1+r.IntN(64), false)
			b := fit(pick(), 1+r.IntN(128-a.Width), false)
			x = m.Concat(a, b)
		case 16:
			a := fit(pick(), 1+r.IntN(64), false)
			x = m.ZExt(a, a.Width+r.IntN(129-a.Width))
		case 17:
			a := fit(pick(), 1+r.IntN(64), true)
			x = m.SExt(a, a.Width+r.IntN(129-a.Width))
		case 18:
			aw := 1 + r.IntN(6)
			ents := make([]uint64, 1+r.IntN(1<<uint(aw)))
			ew := 1 + r.IntN(64)
			for i := range ents {
				ents[i] = r.Uint64() & mask(ew)
			}
			x = m.ROM(fit(pick(), aw, false), ew, ents)
		case 19: // a narrow value widened and added: the analysis holds it in one word
			a := m.ZExt(fit(pick(), 1+r.IntN(40), false), 65+r.IntN(64))
			x = m.Add(a, m.ZExt(fit(pick(), 1+r.IntN(40), false), a.Width))
		case 20:
			x = m.Const(w%64+1, false, r.Uint64()&mask(w%64+1))
		case 22: // rtl's priority encoder: the printer's leading-zeros idiom
			x = m.CLZ(fit(pick(), 1+r.IntN(64), s))
		default:
			x = m.AsSigned(pick())
		}
		if err := m.Err(); err != nil {
			panic(fmt.Sprintf("op %d: %v", k, err))
		}
		pool = append(pool, x)
	}
	outs := 0
	for i, x := range pool {
		if i < len(pool)-12 && r.IntN(4) != 0 {
			continue
		}
		for lo := 0; lo < x.Width; lo += 64 {
			m.Out(fmt.Sprintf("o%d", outs), m.Slice(x, lo, min(64, x.Width-lo)), "")
			outs++
		}
	}
	return m
}

// randomInput is a value of w bits biased to the edges (0, all ones, a
// single bit, small values).
func randomInput(r *rand.Rand, w int) uint64 {
	var v uint64
	switch r.IntN(5) {
	case 0:
		v = 0
	case 1:
		v = ^uint64(0)
	case 2:
		v = 1 << uint(r.IntN(64))
	case 3:
		v = uint64(r.IntN(16))
	default:
		v = r.Uint64()
	}
	return v & mask(w)
}

// TestPrintMatchesEvaluator: the printed function of random modules (every
// op, widths 1..128) computes, on random inputs, the outputs of rtl's Go
// evaluator (rtl.Sim, itself checked against big.Int statements of each
// op's semantics in rtl's tests), bit for bit. The printed files are built
// and run with the go command as one program.
func TestPrintMatchesEvaluator(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		testtool.Missing(t, "go")
		return
	}
	const modules, vecs = 40, 200
	seed := uint64(2)
	if v := os.Getenv("GOGEN_SEED"); v != "" { // more random modules: GOGEN_SEED=N go test -run Evaluator
		if _, err := fmt.Sscan(v, &seed); err != nil {
			t.Fatalf("GOGEN_SEED=%q: %v", v, err)
		}
	}
	r := rand.New(rand.NewPCG(16, seed))
	dir := t.TempDir()
	if d := os.Getenv("GOGEN_KEEP"); d != "" {
		dir = d
	}
	var main, want bytes.Buffer
	main.WriteString("package main\n\nimport \"fmt\"\n\nfunc main() {\n")
	for i := 0; i < modules; i++ {
		m := randomModule(r, i, 120)
		src, err := Print(m, Options{
			Package: "main", Func: fmt.Sprintf("f%d", i), Params: "in, out []uint64", Prefix: fmt.Sprintf("f%d", i),
			Input:  func(p *rtl.Node) (string, error) { return fmt.Sprintf("in[%d]", portIndex(m, p)), nil },
			Output: func(p rtl.Port, v string) (string, error) { return fmt.Sprintf("out[%s] = %s", p.Name[1:], v), nil },
		})
		if err != nil {
			t.Fatalf("module %d: %v", i, err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), src, 0o644); err != nil {
			t.Fatal(err)
		}
		sim, err := rtl.NewSim(m)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&main, "\tout%d := make([]uint64, %d)\n\tfor _, in := range [][]uint64{\n", i, len(m.Outputs))
		for v := 0; v < vecs; v++ {
			main.WriteString("\t\t{")
			for j, in := range m.Inputs {
				x := randomInput(r, in.Width)
				sim.SetInUint(j, x)
				fmt.Fprintf(&main, "%#x, ", x)
			}
			main.WriteString("},\n")
			sim.Eval()
			fmt.Fprintf(&want, "%d", i)
			for j := range m.Outputs {
				fmt.Fprintf(&want, " %x", sim.Out(j).Uint64())
			}
			want.WriteString("\n")
		}
		fmt.Fprintf(&main, "\t} {\n\t\tf%d(in, out%d)\n\t\tfmt.Print(%d)\n\t\tfor _, o := range out%d {\n\t\t\tfmt.Printf(\" %%x\", o)\n\t\t}\n\t\tfmt.Println()\n\t}\n", i, i, i, i)
	}
	main.WriteString("}\n")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), main.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module printcheck\n\ngo 1.26\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(gobin, "run", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	got, err := cmd.Output()
	if err != nil {
		t.Fatalf("go run: %v\n%s", err, stderr.String())
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(want.String(), "\n")
	if len(gl) != len(wl) {
		t.Fatalf("printed program gave %d lines, want %d", len(gl), len(wl))
	}
	bad := 0
	for i := range wl {
		if gl[i] != wl[i] {
			if bad++; bad <= 5 {
				t.Errorf("vector line %d: printed %q, evaluator %q", i, gl[i], wl[i])
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d vectors differ", bad, len(wl)-1)
	}
}

func portIndex(m *rtl.Module, p *rtl.Node) int {
	for i, in := range m.Inputs {
		if in == p {
			return i
		}
	}
	return -1
}

// TestPrintDeterministic: the same module and options print the same bytes.
func TestPrintDeterministic(t *testing.T) {
	opts := func(m *rtl.Module) Options {
		return Options{Package: "p", Func: "f", Params: "in, out []uint64",
			Input:  func(p *rtl.Node) (string, error) { return fmt.Sprintf("in[%d]", portIndex(m, p)), nil },
			Output: func(p rtl.Port, v string) (string, error) { return "out[0] = " + v, nil }}
	}
	a := randomModule(rand.New(rand.NewPCG(3, 3)), 0, 150)
	b := randomModule(rand.New(rand.NewPCG(3, 3)), 0, 150)
	pa, err := Print(a, opts(a))
	if err != nil {
		t.Fatal(err)
	}
	pb, err := Print(b, opts(b))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pa, pb) {
		t.Fatal("two prints of the same module differ")
	}
}

// TestPrintUnsupported: what the printer does not handle is an error
// naming the node or the missing option, never a panic or wrong code.
func TestPrintUnsupported(t *testing.T) {
	bind := Options{Package: "p", Func: "f",
		Input:  func(*rtl.Node) (string, error) { return "0", nil },
		Output: func(rtl.Port, string) (string, error) { return "", nil }}
	seq := rtl.NewModule("seq", "")
	x := seq.In("x", 8, false)
	seq.Out("y", seq.Delay(x, "q"), "")
	wide := rtl.NewModule("wide", "")
	a := wide.ZExt(wide.In("a", 64, false), 129)
	wide.Out("y", wide.Slice(wide.Add(a, a), 0, 64), "")
	wideMul := rtl.NewModule("widemul", "")
	b := wideMul.Concat(wideMul.In("top", 1, false), wideMul.In("b", 63, false)) // 64 bits wide, any value
	c := wideMul.Concat(wideMul.In("c", 1, false), b)                            // 65 bits, any value: two words
	wideMul.Out("y", wideMul.Slice(wideMul.Mul(c, wideMul.Slice(b, 0, 63)), 0, 64), "")
	for _, c := range []struct {
		name string
		m    *rtl.Module
		opts Options
		want string
	}{
		{"registers", seq, bind, "registers"},
		{"wider than 128 bits", wide, bind, "wider than 128"},
		{"wide product", wideMul, bind, "operand wider than 64"},
		{"no bindings", wide, Options{Package: "p", Func: "f"}, "need Package, Func, Input and Output"},
	} {
		_, err := Print(c.m, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Print error %v, want one containing %q", c.name, err, c.want)
		}
		if c.name != "no bindings" && !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: error %v does not wrap ErrUnsupported", c.name, err)
		}
	}
}
