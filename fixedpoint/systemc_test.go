package fixedpoint

import (
	"bufio"
	"bytes"
	"fmt"
	"math/big"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// buildSystemCHelper compiles testdata/sc_cross.cpp against libsystemc into
// a temporary directory and returns the binary's path.
func buildSystemCHelper(t *testing.T) string {
	t.Helper()
	gxx := testtool.Need(t, "g++")[0]
	src, err := filepath.Abs(filepath.Join("testdata", "sc_cross.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "sc_cross")
	cmd := exec.Command(gxx, "-O1", "-DSC_FXDIV_WL=512", "-o", bin, src, "-lsystemc")
	out, err := cmd.CombinedOutput()
	if err != nil {
		if bytes.Contains(out, []byte("systemc.h")) || bytes.Contains(out, []byte("-lsystemc")) {
			testtool.Missing(t, "SystemC not usable: "+firstLine(out), "libsystemc-dev")
		}
		t.Fatalf("building sc_cross: %v\n%s", err, out)
	}
	return bin
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}

// scCase is one operation evaluated by both SystemC and this package.
type scCase struct {
	op   string // cast neg add sub mul div
	q    Quantization
	o    Overflow
	x, y Value
	to   Format
}

func (c scCase) line() string {
	b2 := func(v Value) string {
		s := 0
		if v.fm().Signed {
			s = 1
		}
		return fmt.Sprintf("%d %d %d %x", v.fm().W, v.fm().I, s, v.RawUint())
	}
	s := 0
	if c.to.Signed {
		s = 1
	}
	return fmt.Sprintf("%s %d %d %s %s %d %d %d", c.op, c.q, c.o, b2(c.x), b2(c.y), c.to.W, c.to.I, s)
}

// eval computes the case with this package.
func (c scCase) eval() Value {
	switch c.op {
	case "neg":
		return mustV(NegCast(c.x, c.to, c.q, c.o))
	case "add":
		return mustV(AddCast(c.x, c.y, c.to, c.q, c.o))
	case "sub":
		return mustV(SubCast(c.x, c.y, c.to, c.q, c.o))
	case "mul":
		return mustV(MulCast(c.x, c.y, c.to, c.q, c.o))
	case "div":
		v, _ := Div(c.x, c.y, c.to, c.q, c.o)
		return v
	}
	return mustV(Cast(c.x, c.to, c.q, c.o))
}

// scCases returns the cross-check cases: (1) exhaustive casts of every
// 4-bit value of several formats into small targets (including 1-bit
// signed and unsigned) under every mode pair, and (2) random operations on
// formats up to 64 bits with values at MIN, MAX and their neighbours, ties
// forced on the target LSB, and targets near the operand formats so
// saturation edges are hit.
func scCases(nRandom int) []scCase {
	var cs []scCase
	srcs := []string{"s4.2", "u4.2", "s4.6", "u4.-1"}
	tos := []string{"s1.1", "u1.1", "s1.0", "s2.1", "u2.1", "s3.2", "u3.5", "s2.-1", "s4.2", "u4.2"}
	for _, sf := range srcs {
		f := MustFormat(sf)
		for raw := f.MinRawBig().Int64(); raw <= f.MaxRawBig().Int64(); raw++ {
			x, _ := FromRaw(f, raw)
			for _, ts := range tos {
				for _, q := range AllQuantizations() {
					for _, o := range AllOverflows() {
						cs = append(cs, scCase{op: "cast", q: q, o: o, x: x, y: x, to: MustFormat(ts)})
						if raw%3 == 0 {
							cs = append(cs, scCase{op: "neg", q: q, o: o, x: x, y: x, to: MustFormat(ts)})
						}
					}
				}
			}
		}
	}
	r := rand.New(rand.NewSource(7))
	ops := []string{"cast", "neg", "add", "sub", "mul", "div"}
	for k := 0; k < nRandom; k++ {
		fx := scFormat(r)
		fy := scFormat(r)
		if r.Intn(2) == 0 {
			fy = scNear(r, fx)
		}
		to := scNear(r, fx)
		if r.Intn(3) == 0 {
			to = scFormat(r)
		}
		c := scCase{op: ops[r.Intn(len(ops))], q: Quantization(r.Intn(7)), o: Overflow(r.Intn(4)), x: scValue(r, fx), y: scValue(r, fy), to: to}
		if r.Intn(3) == 0 { // force a tie on the target LSB
			if d := fx.F() - to.F(); d >= 1 && d <= fx.W {
				hi, lo := c.x.Bits()
				b := u128{hi, lo}.and(mask(uint(d)).not()).or(pow2(uint(d - 1)))
				c.x, _ = FromBits(fx, b.hi, b.lo)
			}
		}
		if c.op == "div" && c.y.IsZero() {
			c.op = "mul"
		}
		cs = append(cs, c)
	}
	return cs
}

func scFormat(r *rand.Rand) Format {
	w := 1 + r.Intn(64)
	if r.Intn(3) == 0 {
		w = 1 + r.Intn(8)
	}
	return Format{W: w, I: r.Intn(w+17) - 8, Signed: r.Intn(2) == 0}
}

func scNear(r *rand.Rand, f Format) Format {
	w := min(max(f.W+r.Intn(5)-2, 1), 64)
	return Format{W: w, I: f.I + r.Intn(5) - 2, Signed: r.Intn(4) != 0 == f.Signed}
}

func scValue(r *rand.Rand, f Format) Value {
	var raw *big.Int
	switch r.Intn(6) {
	case 0:
		raw = f.MinRawBig()
	case 1:
		raw = f.MaxRawBig()
	case 2:
		raw = new(big.Int).Add(f.MinRawBig(), big.NewInt(1))
	case 3:
		raw = new(big.Int).Sub(f.MaxRawBig(), big.NewInt(1))
	default:
		v, _ := FromBits(f, 0, r.Uint64())
		return v
	}
	v, err := FromBig(f, raw)
	if err != nil {
		v = f.Zero()
	}
	return v
}

// TestSystemCCrossCheck evaluates the cases of scCases with SystemC's
// sc_fix/sc_ufix (testdata/sc_cross.cpp, built here with g++ against
// libsystemc-dev) and requires this package's results to match bit for
// bit. SystemC is the oracle.
func TestSystemCCrossCheck(t *testing.T) {
	bin := buildSystemCHelper(t)
	n := 30000
	if testing.Short() {
		n = 5000
	}
	cases := scCases(n)
	var in bytes.Buffer
	for _, c := range cases {
		in.WriteString(c.line())
		in.WriteByte('\n')
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "SC_COPYRIGHT_MESSAGE=DISABLE")
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("sc_cross: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i, fails := 0, 0
	for sc.Scan() {
		if i >= len(cases) {
			t.Fatalf("sc_cross printed more than %d lines", len(cases))
		}
		c := cases[i]
		i++
		want, err := strconv.ParseUint(sc.Text(), 16, 64)
		if err != nil {
			t.Fatalf("sc_cross line %d: %q: %v", i, sc.Text(), err)
		}
		got := c.eval()
		if got.RawUint() != want || got.Format() != c.to {
			fails++
			if fails <= 20 {
				t.Errorf("%s(%s, %s) -> %s %v %v: Go %s, SystemC 0x%x", c.op, c.x.Notation(), c.y.Notation(), c.to, c.q.SystemC(), c.o.SystemC(), got.Notation(), want)
			}
		}
	}
	if i != len(cases) {
		t.Fatalf("sc_cross answered %d of %d cases\n%s", i, len(cases), stderr.String())
	}
	if fails > 0 {
		t.Errorf("%d of %d cases differ from SystemC", fails, len(cases))
	}
	t.Logf("%d cases match SystemC bit for bit", len(cases))
}
