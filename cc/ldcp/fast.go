package ldcp

import (
	"errors"
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the production form of the golden arithmetic: the operations
// of WindowSpec, IntervalSpec and lossCwSpec (written with fixedpoint
// Values, op for op as docs/ldcp.md lists them) compiled at construction
// into operations on raw unsigned registers. Every signal is unsigned and
// at most 64 bits wide, so each rounding cast and the 1/cw unit are
// fixedpoint raw-integer plans (RawCaster, RawMulCaster, RawReciprocal)
// built from the signals' formats and modes; the exact sums and compares
// are integer arithmetic. TestFastMatchesSpec checks the two bit for bit;
// TestUpdateDigest pins the outputs.

// fastPlan holds the arithmetic compiled to raw operations.
type fastPlan struct {
	r                       fixedpoint.RawReciprocal
	inc                     fixedpoint.RawCaster    // Rnd,Sat(n*alpha*recip_cw) into Cw, from the exact product
	incNarrow               bool                    // the product n*alpha*recip_cw has at most 63 bits: formed and cast in 64
	subMD                   fixedpoint.RawMulCaster // Rnd,Sat(cw * eta) into Cw
	iv                      fixedpoint.RawMulCaster // Rnd,Sat(T * recip_cw) into u(TimeBits).(TimeBits)
	cwMaskW, cwFmtMax       uint64                  // Formats.Cw mask and largest raw
	one, cwMax, gammaCw, iw uint64                  // Formats.Cw raws
	alpha, beta, gamma, eta uint64                  // Formats.Param raws
	align                   uint                    // F(Cw) - F(Param)
	cwF                     uint
	rtt                     uint64
	// slow: a cast of the configuration shifts by more than 63 bits,
	// beyond the raw plans (fixedpoint.ErrNoRawPlan); Update, Window and
	// Interval then run their specification forms, which they equal.
	slow bool
}

// compileFast builds d.fast: the rounding casts of WindowSpec and
// IntervalSpec as raw plans with the same formats and modes, and the
// constants as raw registers. A cast beyond the raw plans' shift range
// marks the plan slow.
func (d *Datapath) compileFast() error {
	if err := d.compileRaw(); err != nil {
		if !errors.Is(err, fixedpoint.ErrNoRawPlan) {
			return err
		}
		d.fast = fastPlan{slow: true}
	}
	return nil
}

func (d *Datapath) compileRaw() error {
	p := &d.fast
	var err error
	if p.r, err = fixedpoint.NewRawReciprocal(d.recip); err != nil {
		return fmt.Errorf("ldcp: compiled recip_cw unit: %w", err)
	}
	prod, err := fixedpoint.MulFormat(d.fNP, d.fRecip) // n*alpha*recip_cw, exact (Validate: at most 128 bits)
	if err != nil {
		return fmt.Errorf("ldcp: n*alpha*recip_cw format: %w", err)
	}
	if p.inc, err = fixedpoint.NewRawCaster(prod, d.fCw, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("ldcp: compiled AI increment: %w", err)
	}
	p.incNarrow = prod.W <= 63
	if p.subMD, err = fixedpoint.NewRawMulCaster(d.fCw, d.fParam, d.fCw, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("ldcp: compiled sub-packet MD multiplier: %w", err)
	}
	if p.iv, err = fixedpoint.NewRawMulCaster(d.fRTT, d.fRecip, d.fIv, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("ldcp: compiled interval multiplier: %w", err)
	}
	p.cwMaskW = mask64(d.fCw.W)
	p.cwFmtMax, _ = d.fCw.MaxRawUint()
	p.one, p.cwMax, p.gammaCw, p.iw = d.one.RawUint(), d.cwMax.RawUint(), d.gammaCw.RawUint(), d.iw.RawUint()
	p.alpha, p.beta, p.gamma, p.eta = d.alpha.RawUint(), d.beta.RawUint(), d.gamma.RawUint(), d.eta.RawUint()
	p.align = uint(d.fCw.F() - d.fParam.F())
	p.cwF = uint(d.fCw.F())
	p.rtt = d.rtt.RawUint()
	return nil
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
		r := p.r.Recip(cw)
		var inc uint64
		if p.incNarrow { // n, alpha and recip_cw are registers whose widths add up to at most 63 bits
			inc = p.inc.Cast63(n * p.alpha * r)
		} else {
			nh, nl := bits.Mul64(n, p.alpha)
			hi, lo := bits.Mul64(nl, r)
			if nh != 0 {
				hi += nh * r
			}
			inc = p.inc.Cast128(hi, lo)
		}
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
	return max(p.subMD.MulCast(cw, p.eta), p.gammaCw), RuleSubMD
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
	return p.iv.MulCast(p.rtt, p.r.Recip(cw&p.cwMaskW))
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
