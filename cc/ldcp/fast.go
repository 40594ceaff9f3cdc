package ldcp

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the production form of the golden arithmetic: the operations
// of WindowSpec, IntervalSpec and lossCwSpec (written with fixedpoint
// Values, op for op as docs/ldcp.md lists them) compiled at construction
// into raw unsigned integer operations with precomputed shifts and
// saturation limits. Every signal is unsigned and at most 63 bits wide;
// products are formed exactly in 128 bits (math/bits.Mul64); each cast is
// the round-half-up (Rnd) or floor (Trn) with saturation that fixedpoint
// applies. TestFastMatchesSpec checks the two bit for bit.

// castRnd returns (hi:lo) * 2^-s rounded half up and saturated at max, for
// s in [-127, 127] (fixedpoint.Rnd, fixedpoint.Sat on a non-negative value).
func castRnd(hi, lo uint64, s int, max uint64) uint64 {
	if s > 0 {
		var c uint64
		if s <= 64 {
			lo, c = bits.Add64(lo, 1<<uint(s-1), 0)
			hi += c
		} else {
			hi += 1 << uint(s-65)
		}
	}
	return castTrn(hi, lo, s, max)
}

// castTrn returns floor((hi:lo) * 2^-s) saturated at max.
func castTrn(hi, lo uint64, s int, max uint64) uint64 {
	switch {
	case s >= 64:
		lo, hi = hi>>uint(s-64), 0
	case s > 0:
		lo = lo>>uint(s) | hi<<uint(64-s)
		hi >>= uint(s)
	case s < 0:
		t := uint(-s)
		if hi != 0 || t >= 64 && lo != 0 || t < 64 && lo > max>>t {
			return max
		}
		lo <<= t
	}
	if hi != 0 || lo > max {
		return max
	}
	return lo
}

// rawRecip is a fixedpoint.Reciprocal with its configuration compiled to
// shifts: normalize, look up, Newton-Raphson in Work (Trn, Sat), scale and
// round into Out (docs/fixedpoint.md, "Reciprocal model").
type rawRecip struct {
	w, k         int // In.W, TableBits
	inF          int // In.F()
	entF, workF  int // Entry.F(), Work.F()
	nr           int
	workMax, two uint64
	outF         int
	outMax       uint64
	rnd          bool
	table        []uint64
	kMask        uint64
}

func newRawRecip(r *fixedpoint.Reciprocal) rawRecip {
	c := r.Config()
	rr := rawRecip{w: c.In.W, k: c.TableBits, inF: c.In.F(), entF: c.Entry.F(), workF: c.Work.F(), nr: c.NRSteps,
		outF: c.Out.F(), rnd: c.Q == fixedpoint.Rnd, table: r.Table()}
	rr.outMax, _ = c.Out.MaxRawUint()
	if c.NRSteps > 0 {
		rr.workMax, _ = c.Work.MaxRawUint()
		rr.two = 2 << uint(rr.workF)
	}
	rr.kMask = 1<<uint(rr.k) - 1
	return rr
}

// recip returns the raw Out value of about 1/x for the raw input x (In).
func (r *rawRecip) recip(x uint64) uint64 {
	if x == 0 {
		return r.outMax
	}
	p := bits.Len64(x) - 1
	m := x << uint(r.w-1-p) // mantissa u(w).1
	idx := m >> uint(r.w-1-r.k) & r.kMask
	y, yF := r.table[idx], r.entF
	for s := 0; s < r.nr; s++ {
		hi, lo := bits.Mul64(m, y)
		e := castTrn(hi, lo, r.w-1+yF-r.workF, r.workMax)
		t := uint64(0)
		if e < r.two {
			t = r.two - e
		}
		hi, lo = bits.Mul64(y, t)
		y = castTrn(hi, lo, yF, r.workMax)
		yF = r.workF
	}
	s := yF - (r.inF - p) - r.outF
	if r.rnd {
		return castRnd(0, y, s, r.outMax)
	}
	return castTrn(0, y, s, r.outMax)
}

// fastPlan holds the arithmetic compiled to raw operations.
type fastPlan struct {
	r                       rawRecip
	cwMaskW, cwFmtMax       uint64 // Formats.Cw mask and largest raw
	one, cwMax, gammaCw, iw uint64 // Formats.Cw raws
	alpha, beta, gamma, eta uint64 // Formats.Param raws
	align                   uint   // F(Cw) - F(Param)
	cwF                     uint
	sInc, sEta, sIv         int // shifts of the rounded products
	ivMax                   uint64
	rtt                     uint64
}

func (d *Datapath) compileFast() {
	p := &d.fast
	p.r = newRawRecip(d.recip)
	p.cwMaskW = mask64(d.fCw.W)
	p.cwFmtMax, _ = d.fCw.MaxRawUint()
	p.one, p.cwMax, p.gammaCw, p.iw = d.one.RawUint(), d.cwMax.RawUint(), d.gammaCw.RawUint(), d.iw.RawUint()
	p.alpha, p.beta, p.gamma, p.eta = d.alpha.RawUint(), d.beta.RawUint(), d.gamma.RawUint(), d.eta.RawUint()
	p.align = uint(d.fCw.F() - d.fParam.F())
	p.cwF = uint(d.fCw.F())
	p.sInc = d.fParam.F() + d.fRecip.F() - d.fCw.F()
	p.sEta = d.fParam.F()
	p.sIv = d.fRecip.F()
	p.ivMax, _ = d.fIv.MaxRawUint()
	p.rtt = d.rtt.RawUint()
}

// window is WindowSpec on raw integers.
func (d *Datapath) window(cw uint64, ece bool, n uint64) (uint64, Rule) {
	p := &d.fast
	cw &= p.cwMaskW
	n = min(n, d.nMax)
	sub := cw < p.one
	switch {
	case !sub && !ece:
		// n*alpha*recip_cw < 2^128 (Validate bounds the three widths).
		r := p.r.recip(cw)
		nh, nl := bits.Mul64(n, p.alpha)
		hi, lo := bits.Mul64(nl, r)
		if nh != 0 {
			hi += nh * r
		}
		inc := castRnd(hi, lo, p.sInc, p.cwFmtMax)
		sum, c := bits.Add64(cw, inc, 0)
		if c != 0 || sum > p.cwFmtMax {
			sum = p.cwFmtMax
		}
		return min(sum, p.cwMax), RuleAI
	case !sub:
		// cw - n*beta aligned to F(Cw), floored at gamma: compare in 128 bits.
		hi, lo := bits.Mul64(n, p.beta)
		hi, lo, ok := shl128(hi, lo, p.align)
		if !ok || hi != 0 || lo >= cw || cw-lo < p.gammaCw {
			return p.gammaCw, RuleMD
		}
		return cw - lo, RuleMD
	case !ece:
		hi, lo := bits.Mul64(n, p.gamma)
		hi, lo, ok := shl128(hi, lo, p.align)
		sum, c := bits.Add64(cw, lo, 0)
		if !ok || hi != 0 || c != 0 || sum > p.cwFmtMax {
			sum = p.cwFmtMax
		}
		return min(sum, p.cwMax), RuleSubAI
	}
	hi, lo := bits.Mul64(cw, p.eta)
	return max(castRnd(hi, lo, p.sEta, p.cwFmtMax), p.gammaCw), RuleSubMD
}

// shl128 shifts (hi:lo) left by s < 64; ok is false when bits are lost.
func shl128(hi, lo uint64, s uint) (uint64, uint64, bool) {
	if s == 0 {
		return hi, lo, true
	}
	return hi<<s | lo>>(64-s), lo << s, hi>>(64-s) == 0
}

// interval is IntervalSpec on raw integers.
func (d *Datapath) interval(cw uint64) uint64 {
	p := &d.fast
	hi, lo := bits.Mul64(p.rtt, p.r.recip(cw&p.cwMaskW))
	return castRnd(hi, lo, p.sIv, p.ivMax)
}

// lossCw is lossCwSpec on raw integers: min(max(acked, 1), CwMax).
func (d *Datapath) lossCw(acked uint32) uint64 {
	p := &d.fast
	a := uint64(max(acked&d.seqMask, 1))
	if a > p.cwFmtMax>>p.cwF {
		return p.cwMax
	}
	return min(a<<p.cwF, p.cwMax)
}

// windowFits is inflight + 1 <= cw (cw >= 1): the comparison of integers
// inflight + 1 <= floor(cw) is exact.
func (d *Datapath) windowFits(inflight uint32, cw uint64) bool {
	return uint64(inflight)+1 <= (cw&d.fast.cwMaskW)>>d.fast.cwF
}
