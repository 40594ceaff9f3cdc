package fixedpoint

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// TestReciprocalTable checks the table formula on a hand-computed k=2 table
// (T[i] = 8/(9+2i) * 256 rounded to nearest: 227.6, 186.2, 157.5, 136.5)
// and the $readmemh text.
func TestReciprocalTable(t *testing.T) {
	r, err := NewReciprocal(ReciprocalConfig{In: MustFormat("u8.8"), TableBits: 2, Entry: MustFormat("u8.0"), Out: MustFormat("u16.8")})
	if err != nil {
		t.Fatal(err)
	}
	want := []uint64{228, 186, 158, 137}
	got := r.Table()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Table() = %v; want %v", got, want)
	}
	var b bytes.Buffer
	if err := r.WriteMemh(&b); err != nil {
		t.Fatal(err)
	}
	wantText := "// reciprocal table: In=u8.8 TableBits=2 Entry=u8.0 entries=4\n" +
		"// T[i] = 2^(k+1)/(2^(k+1)+2i+1) rounded to nearest (Rnd, Sat) into u8.0\n" +
		"e4\nba\n9e\n89\n"
	if b.String() != wantText {
		t.Errorf("WriteMemh =\n%s\nwant\n%s", b.String(), wantText)
	}
}

// refConfigs are the reciprocal configurations whose error the docs report
// (testdata/reciprocal_errors.golden).
func refConfigs() []ReciprocalConfig {
	var cs []ReciprocalConfig
	for _, k := range []int{4, 6, 8, 10} {
		for nr := 0; nr <= 2; nr++ {
			cs = append(cs, ReciprocalConfig{
				In: MustFormat("u16.16"), TableBits: k, Entry: Format{W: k + 4, I: 1}, NRSteps: nr,
				Out: MustFormat("u32.1"), Q: Rnd, O: Sat,
			})
		}
	}
	for nr := 0; nr <= 2; nr++ { // 32-bit input: eps exact without NR, the analytic bound with NR
		cs = append(cs, ReciprocalConfig{
			In: MustFormat("u32.16"), TableBits: 8, Entry: MustFormat("u12.1"), NRSteps: nr,
			Out: MustFormat("u32.17"), Q: Rnd, O: Sat,
		})
	}
	return cs
}

// TestReciprocalExhaustive evaluates every input of small configurations
// and checks (1) Recip equals an independent re-implementation of the
// documented datapath from public operations, (2) the documented bound
// |Recip(x) - 1/x| <= eps/x + u holds exactly (big.Rat) whenever 1/x does
// not overflow Out, (3) the analytic bound is >= the exhaustive eps.
func TestReciprocalExhaustive(t *testing.T) {
	cfgs := []ReciprocalConfig{
		{In: MustFormat("u8.8"), TableBits: 3, Entry: MustFormat("u6.1"), Out: MustFormat("u12.1"), Q: Trn, O: Sat},
		{In: MustFormat("u10.4"), TableBits: 4, Entry: MustFormat("u8.1"), NRSteps: 1, Out: MustFormat("u16.2"), Q: RndConv, O: Sat},
		{In: MustFormat("u12.0"), TableBits: 2, Entry: MustFormat("u5.0"), NRSteps: 2, Out: MustFormat("s24.12"), Q: Rnd, O: SatSym},
		{In: MustFormat("u7.-2"), TableBits: 6, Entry: MustFormat("u12.2"), NRSteps: 3, Work: MustFormat("u40.3"), Out: MustFormat("u20.4"), Q: TrnZero, O: Wrap},
		{In: MustFormat("u1.1"), TableBits: 0, Entry: MustFormat("u4.1"), NRSteps: 1, Out: MustFormat("u4.2"), Q: RndInf, O: Sat},
	}
	if !testing.Short() {
		cfgs = append(cfgs, refConfigs()[:3]...)
	}
	for _, c := range cfgs {
		r, err := NewReciprocal(c)
		if err != nil {
			t.Fatal(err)
		}
		c = r.Config()
		eps, exact := r.MaxRelError()
		if !exact {
			t.Fatalf("%+v: MaxRelError not exact", c)
		}
		bound := r.analyticBound()
		if bound < eps || (c.NRSteps == 0 && bound != eps) {
			t.Errorf("%v: analytic bound %g vs exhaustive eps %g: want >= (== without NR)", c, bound, eps)
		}
		epsR := new(big.Rat).SetFloat64(eps)
		u := ratPow2(-c.Out.F())
		if c.Q != Trn && c.Q != TrnZero {
			u.Quo(u, big.NewRat(2, 1))
		}
		outMax := c.Out.Max().Rat()
		forAll(c.In, func(x Value) {
			got, err := r.Recip(x)
			if err != nil {
				t.Fatal(err)
			}
			want := reciprocalByDefinition(r, x)
			if got != want {
				t.Fatalf("%v: Recip(%s) = %s; documented datapath gives %s", c, x, got.Notation(), want.Notation())
			}
			if x.IsZero() {
				return
			}
			inv := new(big.Rat).Inv(x.Rat())
			if inv.Cmp(outMax) > 0 {
				return // overflow: handled by O
			}
			diff := new(big.Rat).Sub(got.Rat(), inv)
			diff.Abs(diff)
			lim := new(big.Rat).Mul(epsR, inv)
			lim.Add(lim, u)
			if diff.Cmp(lim) > 0 && !(got == c.Out.Max() && c.O != Wrap) {
				t.Fatalf("%v: Recip(%s) = %s; |err| %s > eps/x + u = %s", c, x, got, diff.FloatString(12), lim.FloatString(12))
			}
		})
	}
}

// reciprocalByDefinition computes the Reciprocal datapath from its doc
// comment using only public operations (CLZ, ScaleExp, MulCast, SubCast,
// Cast), as an RTL engineer would read it.
func reciprocalByDefinition(r *Reciprocal, x Value) Value {
	c := r.Config()
	if x.IsZero() {
		return c.Out.Max()
	}
	p := c.In.W - 1 - CLZ(x)
	mf := Format{W: c.In.W, I: 1}
	m, _ := FromBits(mf, 0, x.RawUint()<<uint(c.In.W-1-p))
	idx := (m.RawUint() >> uint(c.In.W-1-c.TableBits)) & (1<<c.TableBits - 1)
	num := new(big.Int).Lsh(big.NewInt(1), uint(c.TableBits+1))
	den := new(big.Int).Add(num, big.NewInt(int64(2*idx+1)))
	y, _ := FromRat(c.Entry, new(big.Rat).SetFrac(num, den), Rnd, Sat)
	two, _ := FromInt(c.Work, 2, Sat)
	for s := 0; s < c.NRSteps; s++ {
		e := mustV(MulCast(m, y, c.Work, Trn, Sat))
		t := mustV(SubCast(two, e, c.Work, Trn, Sat))
		y = mustV(MulCast(y, t, c.Work, Trn, Sat))
	}
	res, _ := FromRat(c.Out, new(big.Rat).Mul(y.Rat(), ratPow2(c.In.F()-p)), c.Q, c.O)
	return res
}

// TestReciprocalErrorsGolden records eps for the configurations the docs
// report; refresh with go test -run ReciprocalErrorsGolden -update.
func TestReciprocalErrorsGolden(t *testing.T) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# In TableBits Entry NRSteps Work Out Q: eps (worst |1-m*y| over all mantissas) exact log2(eps)\n")
	for _, c := range refConfigs() {
		r, err := NewReciprocal(c)
		if err != nil {
			t.Fatal(err)
		}
		c = r.Config()
		eps, exact := r.MaxRelError()
		work := "-"
		if c.NRSteps > 0 {
			work = c.Work.String()
		}
		fmt.Fprintf(&b, "%s k=%d %s nr=%d work=%s out=%s %v: eps=%.6g exact=%v log2=%.2f\n",
			c.In, c.TableBits, c.Entry, c.NRSteps, work, c.Out, c.Q, eps, exact, log2(eps))
	}
	path := filepath.Join("testdata", "reciprocal_errors.golden")
	if *update {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	if !bytes.Equal(want, b.Bytes()) {
		t.Errorf("reciprocal errors differ from %s:\n%s", path, b.String())
	}
}

// TestReciprocalErrors checks configuration and operand errors.
func TestReciprocalErrors(t *testing.T) {
	base := ReciprocalConfig{In: MustFormat("u16.16"), TableBits: 4, Entry: MustFormat("u8.1"), Out: MustFormat("u16.1")}
	cases := []struct {
		mod func(*ReciprocalConfig)
		msg string
	}{
		{func(c *ReciprocalConfig) { c.In = MustFormat("s16.16") }, "fixedpoint: Reciprocal In=s16.16: must be unsigned and at most 64 bits"},
		{func(c *ReciprocalConfig) { c.TableBits = 17 }, "fixedpoint: Reciprocal TableBits=17: must be in [0,15] for In=u16.16"},
		{func(c *ReciprocalConfig) { c.Entry = MustFormat("u8.3") }, "fixedpoint: Reciprocal Entry=u8.3: I must be in [0,2] and F >= 1"},
		{func(c *ReciprocalConfig) { c.NRSteps = 4 }, "fixedpoint: Reciprocal NRSteps=4: must be in [0,3]"},
		{func(c *ReciprocalConfig) { c.NRSteps = 1; c.Work = MustFormat("u20.1") }, "fixedpoint: Reciprocal Work=u20.1: I must be >= 2 and F >= 1"},
		{func(c *ReciprocalConfig) { c.Out = Format{} }, "fixedpoint: Reciprocal Out: fixedpoint: Format W=0: must be in [1,128]: invalid format"},
	}
	for _, cs := range cases {
		c := base
		cs.mod(&c)
		if _, err := NewReciprocal(c); err == nil || err.Error() != cs.msg {
			t.Errorf("NewReciprocal error = %v; want %q", err, cs.msg)
		}
	}
	r, _ := NewReciprocal(base)
	if _, err := r.Recip(mustRaw(t, "u16.15", 1)); err == nil || err.Error() != "fixedpoint: Reciprocal.Recip x format u16.15: want In u16.16" {
		t.Errorf("Recip(wrong format) error = %v", err)
	}
	if got, _ := r.Recip(MustFormat("u16.16").Zero()); got != MustFormat("u16.1").Max() {
		t.Errorf("Recip(0) = %s; want Out max", got.Notation())
	}
}

func log2(x float64) float64 {
	if x == 0 {
		return math.Inf(-1)
	}
	return math.Log2(x)
}
