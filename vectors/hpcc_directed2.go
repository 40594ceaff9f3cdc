package vectors

import (
	"math/bits"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// ---- dts_leading_one ----

// seedCode is the valid speed code with the largest KR: the loaded hop of
// the reciprocal classes runs on it, so u' is most sensitive to 1/dts.
func (k *constructed) seedCode() uint8 {
	code := k.h.okCodes[0]
	for _, c := range k.h.okCodes {
		if k.a.kr[c] > k.a.kr[code] {
			code = c
		}
	}
	return code
}

// sensitiveDTx returns the largest dTx keeping u' at most a quarter of
// its range for delta ts dts on code (so a wrong 1/dts shows in u').
func (k *constructed) sensitiveDTx(dts uint64, code uint8) uint64 {
	a := k.a
	rd := a.recip.Recip(dts)
	d := bisect(0, a.txMask, func(dx uint64) bool {
		v := hopVals{rd: rd}
		a.fromRd(&v, dx, 0, code)
		return v.u > a.uc.max/4
	})
	if d == 0 {
		return 0
	}
	return d - 1
}

func (k *constructed) genDtsLeadingOne(emit emitFn) error {
	h, a := k.h, k.a
	code := k.seedCode()
	for p := 0; p < 64 && uint64(1)<<uint(p) <= a.dtsMax; p++ {
		for _, dts := range []uint64{uint64(1) << uint(p), uint64(1)<<uint(p+1) - 1} {
			if dts > a.dtsMax || p == 0 && dts != 1 {
				continue
			}
			dTx := k.sensitiveDTx(dts, code)
			if dTx == 0 {
				continue
			}
			for i := 0; i < h.maxHops; i++ {
				if err := emit(k.loaded(i, code, dts, dTx, 0)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (k *constructed) detectDtsLeadingOne(o *hobs) bool {
	for i := 0; i < k.h.maxHops; i++ {
		d := o.dts[i]
		if o.valid[i] && int(o.out.SelHop) == i && o.dTx[i] != 0 && (d&(d-1) == 0 || d&(d+1) == 0) {
			return true
		}
	}
	return false
}

// ---- recip_u_round_ties ----

// recipTie reports whether the output cast of reciprocal unit rr
// (configuration c) drops exactly a half LSB for x: the result was rounded
// up by one LSB.
func recipTie(rr *fixedpoint.RawReciprocal, c fixedpoint.ReciprocalConfig, x uint64) bool {
	m, y, p := rr.Seed(x)
	for j := 0; j < rr.NRSteps(); j++ {
		e := rr.MulE(j).MulCast(m, y)
		y = rr.MulY(j).MulCast(y, rr.TwoMinus(e))
	}
	yf := c.Entry.F()
	if rr.NRSteps() > 0 {
		yf = c.Work.F()
	}
	d := yf - (c.In.F() - p) - c.Out.F()
	if d < 1 || d > 63 {
		return false
	}
	return y&(uint64(1)<<uint(d)-1) == uint64(1)<<uint(d-1)
}

func (k *constructed) genRecipURoundTies(emit emitFn) error {
	h, w := k.h, k.w
	if w.dynamicWAI {
		return nil
	}
	// The top binade (the output cast drops a bit: rounded up at a tie, or
	// not) and the one below it (the cast's last bit is the Newton
	// result's): two U of each kind, Wc solved for W to show 1/U's last bit.
	uw := h.cfg.Formats.U.W
	for _, kind := range []struct {
		p   int
		tie bool
	}{{uw - 1, true}, {uw - 1, false}, {uw - 2, true}, {uw - 2, false}} {
		if kind.p < 1 {
			continue
		}
		found := 0
		lo := uint64(1) << uint(kind.p)
		for u, t := lo, 0; u < lo<<1 && t < 1024 && found < 2; u, t = u+1, t+1 {
			if recipTie(&w.recip, w.rc, u) != kind.tie {
				continue
			}
			ru := w.recip.Recip(u)
			wc, ok := k.roundVisibleWc(u, ru)
			if !ok {
				continue
			}
			st, in := h.idleBase(0)
			st.U, st.Wc, st.IncStage = u, wc, uint8(h.cfg.MaxStage)
			if err := k.checkWindow(st, in, ru); err != nil {
				return err
			}
			if err := emit(st, in); err != nil {
				return err
			}
			found++
		}
	}
	return nil
}

// roundVisibleWc scans Wc downward from the largest whose W stays below
// W_max for one where the multiplicative step's W differs between 1/U = ru
// and ru -/+ 1.
func (k *constructed) roundVisibleWc(u, ru uint64) (uint64, bool) {
	w := k.w
	if ru == 0 {
		return 0, false
	}
	uGE := u >= w.etaU
	all := uint64(1)<<uint(k.h.cfg.Formats.W.W) - 1
	hi := bisect(1, all, func(wc uint64) bool { return w.w(wc, ru, uGE) >= w.wMax })
	for wc, t := hi-1, 0; wc > 0 && t < 256; wc, t = wc-1, t+1 {
		if a := w.w(wc, ru, uGE); (a != w.w(wc, ru-1, uGE) || a != w.w(wc, ru+1, uGE)) && a > w.wMin && a < w.wMax {
			return wc, true
		}
	}
	return 0, false
}

func (k *constructed) detectRecipURoundTies(o *hobs) bool {
	w := k.w
	u := o.next.U
	uw := k.h.cfg.Formats.U.W
	if !o.out.MI || w.dynamicWAI || bits.Len64(u) < uw-1 {
		return false
	}
	ru, base := k.recipU(o).out, k.wBase(o)
	return ru > 0 && (w.differs(o.st.Wc, ru-1, u >= w.etaU, o.wk, base) || w.differs(o.st.Wc, ru+1, u >= w.etaU, o.wk, base))
}
