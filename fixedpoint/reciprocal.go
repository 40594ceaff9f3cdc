package fixedpoint

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/big"
	"math/bits"
)

// ReciprocalConfig describes a hardware reciprocal unit: normalization, a
// 2^TableBits-entry lookup table, optional Newton-Raphson refinement, and a
// final scaling and quantization. See Reciprocal for the datapath.
type ReciprocalConfig struct {
	In        Format       // input format: unsigned, at most 64 bits
	TableBits int          // k: the table has 2^k entries indexed by the k bits after the leading one; 0..16 and <= In.W-1
	Entry     Format       // table entry format: unsigned, at most 64 bits, I in [0,2], F >= 1
	NRSteps   int          // Newton-Raphson refinements, 0..3
	Work      Format       // NR working format (unsigned, <= 64 bits, I >= 2); zero Format: u(Fw+2).2 with Fw = min(60, (k+1)*2^NRSteps + 4)
	Out       Format       // result format
	Q         Quantization // quantization of the result into Out
	O         Overflow     // overflow handling of the result into Out
}

// Reciprocal is a bit-exact model of a reciprocal unit computing about 1/x:
//
//  1. Normalize: p = position of x.raw's leading one (a CLZ), and the
//     mantissa m = x.raw * 2^-p in format u(W).1 (In.W bits, value in
//     [1,2), leading bit set).
//  2. Look up: idx = the k bits of m after its leading one; y0 = T[idx] in
//     format Entry, where T[i] = 2^(k+1) / (2^(k+1) + 2i + 1) rounded to
//     nearest (Rnd, Sat) into Entry: the reciprocal of the midpoint of the
//     mantissa interval [1 + i/2^k, 1 + (i+1)/2^k), which minimizes the
//     worst relative error over the interval.
//  3. Refine NRSteps times, each stage with two multipliers truncating into
//     Work: e = MulCast(m, y, Work, Trn, Sat); t = 2 - e (exact);
//     y = MulCast(y, t, Work, Trn, Sat). The relative error roughly squares
//     at each step.
//  4. Scale and round: 1/x = (1/m) * 2^(In.F() - p), so the result is
//     y * 2^(In.F() - p) (a shift) cast into Out under Q and O.
//
// x = 0 gives Out's MAX (1/0 saturates), with a nil error.
//
// Error: let eps = MaxRelError(), the worst |1 - m*y| over every mantissa
// the input can produce (step 3's output). Then for every x != 0 whose
// reciprocal does not overflow Out,
//
//	|Recip(x) - 1/x| <= eps/x + u,   u = Out's LSB (Trn, TrnZero) or LSB/2 (Rnd*).
//
// docs/fixedpoint.md lists eps for the shipped configurations.
type Reciprocal struct {
	c     ReciprocalConfig
	mant  Format   // u(In.W).1
	table []uint64 // raw entries, Entry format
	two   Value    // 2 in Work
	// The NR multipliers as plans (MulCast(.., Work, Trn, Sat)): e = m*y
	// and y' = y*t, with y in Entry (step 0) or Work (later steps).
	mulE, mulY [2]*MulCaster
}

// NewReciprocal validates c and builds the table.
func NewReciprocal(c ReciprocalConfig) (*Reciprocal, error) {
	chk := func(name string, f Format, maxW int) error {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("fixedpoint: Reciprocal %s: %w", name, err)
		}
		if f.Signed || f.W > maxW {
			return fmt.Errorf("fixedpoint: Reciprocal %s=%s: must be unsigned and at most %d bits", name, f, maxW)
		}
		return nil
	}
	if err := chk("In", c.In, 64); err != nil {
		return nil, err
	}
	if c.TableBits < 0 || c.TableBits > 16 || c.TableBits > c.In.W-1 {
		return nil, fmt.Errorf("fixedpoint: Reciprocal TableBits=%d: must be in [0,%d] for In=%s", c.TableBits, min(16, c.In.W-1), c.In)
	}
	if err := chk("Entry", c.Entry, 64); err != nil {
		return nil, err
	}
	if c.Entry.I < 0 || c.Entry.I > 2 || c.Entry.F() < 1 {
		return nil, fmt.Errorf("fixedpoint: Reciprocal Entry=%s: I must be in [0,2] and F >= 1", c.Entry)
	}
	if c.NRSteps < 0 || c.NRSteps > 3 {
		return nil, fmt.Errorf("fixedpoint: Reciprocal NRSteps=%d: must be in [0,3]", c.NRSteps)
	}
	if c.NRSteps > 0 {
		if c.Work == (Format{}) {
			fw := min(60, (c.TableBits+1)<<c.NRSteps+4)
			c.Work = Format{W: fw + 2, I: 2}
		}
		if err := chk("Work", c.Work, 64); err != nil {
			return nil, err
		}
		if c.Work.I < 2 || c.Work.F() < 1 {
			return nil, fmt.Errorf("fixedpoint: Reciprocal Work=%s: I must be >= 2 and F >= 1", c.Work)
		}
	}
	if err := c.Out.Validate(); err != nil {
		return nil, fmt.Errorf("fixedpoint: Reciprocal Out: %w", err)
	}
	if !c.Q.Valid() {
		return nil, fmt.Errorf("fixedpoint: Reciprocal Q=%d: unknown quantization", c.Q)
	}
	if !c.O.Valid() {
		return nil, fmt.Errorf("fixedpoint: Reciprocal O=%d: unknown overflow mode", c.O)
	}
	r := &Reciprocal{c: c, mant: Format{W: c.In.W, I: 1}}
	k := c.TableBits
	r.table = make([]uint64, 1<<k)
	den := new(big.Int)
	num := new(big.Int).Lsh(big.NewInt(1), uint(k+1))
	for i := range r.table {
		den.SetInt64(int64(2*i + 1))
		den.Add(den, num)
		v, _ := FromRat(c.Entry, new(big.Rat).SetFrac(num, den), Rnd, Sat)
		r.table[i] = v.raw().lo
	}
	if c.NRSteps > 0 {
		r.two = quantize(false, u128{0, 2}, 0, c.Work, Trn, Sat)
		for j, y := range []Format{c.Entry, c.Work} {
			var err error
			if r.mulE[j], err = NewMulCaster(r.mant, y, c.Work, Trn, Sat); err != nil {
				return nil, fmt.Errorf("fixedpoint: Reciprocal NR multiplier: %w", err)
			}
			if r.mulY[j], err = NewMulCaster(y, c.Work, c.Work, Trn, Sat); err != nil {
				return nil, fmt.Errorf("fixedpoint: Reciprocal NR multiplier: %w", err)
			}
		}
	}
	return r, nil
}

// Config returns the configuration, with the default Work filled in.
func (r *Reciprocal) Config() ReciprocalConfig { return r.c }

// Table returns a copy of the raw table entries (format Entry), entry i
// for index i.
func (r *Reciprocal) Table() []uint64 { return append([]uint64(nil), r.table...) }

// Recip returns about 1/x (see Reciprocal). It fails only when x's format
// is not In.
func (r *Reciprocal) Recip(x Value) (Value, error) {
	if x.fm() != r.c.In {
		return Value{}, fmt.Errorf("fixedpoint: Reciprocal.Recip x format %s: want In %s", x.fm(), r.c.In)
	}
	if x.raw().lo == 0 {
		return r.c.Out.maxValue(), nil
	}
	y, p := r.mantissaRecip(x.lo)
	e := y.p.frac() - (r.c.In.F() - p)
	return cast64(0, y.hi, y.lo, e, r.c.Out, r.c.Q, r.c.O), nil // y >= 0
}

// mantissaRecip runs steps 1-3 on the non-zero raw input X: it returns y
// ~ 1/m and the leading-one position p.
func (r *Reciprocal) mantissaRecip(X uint64) (Value, int) {
	w := r.c.In.W
	p := bits.Len64(X) - 1
	m := mkValue(r.mant, u128{0, X << uint(w-1-p)})
	return r.refine(m), p
}

// refine runs steps 2-3 on the normalized mantissa m.
func (r *Reciprocal) refine(m Value) Value {
	w, k := r.c.In.W, r.c.TableBits
	idx := m.raw().lo >> uint(w-1-k) & (1<<k - 1)
	y := mkValue(r.c.Entry, u128{0, r.table[idx]})
	for s := 0; s < r.c.NRSteps; s++ {
		j := min(s, 1)
		e := r.mulE[j].MulCast(m, y)                     // MulCast(m, y, Work, Trn, Sat)
		t := addSubCast(r.two, e, 1, r.c.Work, Trn, Sat) // SubCast(2, e, Work, Trn, Sat): 2 - e, 0 when e > 2
		y = r.mulY[j].MulCast(y, t)                      // MulCast(y, t, Work, Trn, Sat)
	}
	return y
}

// relErr returns |1 - m*y| for mantissa m and approximation y, rounded up
// to a float64.
func relErr(m, y Value) float64 {
	prod := mul64(m.raw().lo, y.raw().lo) // exact m.raw*y.raw, < 2^128
	e := m.fm().F() + y.fm().F()          // 1 == 2^e in prod's scale (e < 128)
	one := pow2(uint(e))
	var d u128
	if prod.cmp(one) >= 0 {
		d = prod.sub(one)
	} else {
		d = one.sub(prod)
	}
	f, _ := new(big.Float).SetPrec(200).SetInt(d.big()).Float64()
	x := math.Ldexp(f, -e)
	if x == 0 {
		return 0
	}
	return math.Nextafter(x, math.Inf(1))
}

// MaxRelError returns eps, the worst relative error |1 - m*y| of the
// mantissa path over every mantissa the input format can produce, and
// whether it is exact. It is exact (exhaustive over all 2^(In.W-1)
// mantissas) when In.W <= 21, and exact for NRSteps = 0 at any width
// (|1 - T[i]*m| is linear in m, so its maximum over each table interval is
// at the interval's end points). Otherwise it is the rigorous bound
// B' = B^2 + 2*2^-Work.F() per Newton-Raphson step, from 1 - m*y' =
// d^2 - (1-d)*t1 + m*t2 with truncation errors t1, t2 in [0, 2^-Work.F()).
// The exhaustive form costs 2^(In.W-1) evaluations (tens of ms at W=21).
func (r *Reciprocal) MaxRelError() (eps float64, exact bool) {
	if w := r.c.In.W; w <= 21 {
		worst := 0.0
		n := uint64(1) << uint(w-1)
		for f := uint64(0); f < n; f++ {
			m := mkValue(r.mant, u128{0, n | f})
			worst = math.Max(worst, relErr(m, r.refine(m)))
		}
		return worst, true
	}
	return r.analyticBound(), r.c.NRSteps == 0
}

// WriteMemh writes the table for Verilog's $readmemh: comment lines naming
// the configuration, then one entry per line as ceil(Entry.W/4) lowercase
// hex digits, entry 0 first. The output is a pure function of the config.
func (r *Reciprocal) WriteMemh(w io.Writer) error {
	bw := bufio.NewWriter(w)
	c := r.c
	fmt.Fprintf(bw, "// reciprocal table: In=%s TableBits=%d Entry=%s entries=%d\n", c.In, c.TableBits, c.Entry, len(r.table))
	fmt.Fprintf(bw, "// T[i] = 2^(k+1)/(2^(k+1)+2i+1) rounded to nearest (Rnd, Sat) into %s\n", c.Entry)
	digits := (c.Entry.W + 3) / 4
	for _, e := range r.table {
		fmt.Fprintf(bw, "%0*x\n", digits, e)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("fixedpoint: Reciprocal.WriteMemh: %w", err)
	}
	return nil
}

// analyticBound is MaxRelError's bound computed without enumeration
// (tests compare it with the exhaustive value).
func (r *Reciprocal) analyticBound() float64 {
	w, k := r.c.In.W, r.c.TableBits
	b := 0.0
	span := uint64(1) << uint(w-1-k)
	for i := uint64(0); i < uint64(len(r.table)); i++ {
		y := mkValue(r.c.Entry, u128{0, r.table[i]})
		lo := uint64(1)<<uint(w-1) | i*span
		for _, mr := range []uint64{lo, lo + span - 1} {
			b = math.Max(b, relErr(mkValue(r.mant, u128{0, mr}), y))
		}
	}
	if r.c.NRSteps > 0 {
		u := math.Ldexp(1, -r.c.Work.F())
		for s := 0; s < r.c.NRSteps; s++ {
			b = math.Nextafter(b*b+2*u, math.Inf(1))
		}
	}
	return b
}
