package hpcc

import (
	"errors"
	"fmt"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// This file is the production form of the golden datapath: the operation
// sequence of UpdateSpec (written with fixedpoint Values, op for op as
// docs/datapath.md lists it) compiled at construction into operations on
// raw unsigned registers. Every signal of the datapath is unsigned and at
// most 64 bits wide, so each cast, multiply-cast, add-cast and reciprocal
// unit is a fixedpoint raw-integer plan (RawMulCaster, RawAddCaster,
// RawReciprocal) built from the signal's formats and modes: the same
// arithmetic engine as UpdateSpec's Values, with everything that depends
// only on the formats resolved once. TestFastMatchesSpec checks the two bit
// for bit; TestUpdateDigest pins the outputs.

// fastPlan holds the datapath compiled to raw operations.
type fastPlan struct {
	rDts, rU, rN fixedpoint.RawReciprocal

	cTx, cQ, cR, cEw, cK, cWm, cRate, cWai fixedpoint.RawMulCaster
	cUp                                    fixedpoint.RawAddCaster
	maxW, maxU                             uint64
	kq, kr                                 [16]uint64
	eta                                    uint64 // eta raw
	uEta                                   uint64 // U >= eta exactly when U's raw value >= uEta
	invT, t, wai, wmin, wmax, winit, uinit uint64
	kWai, oneEoU                           uint64
	mq                                     mqFast // MultiQ (multiq.go)
	// hb: the upper bounds that let step skip the exact u' of hops that
	// cannot win the max select (prune.go); hb.on is false where the
	// bound does not apply, and then every hop is computed.
	hb hopBound
	// spec: Update runs the specification's arithmetic (fixedpoint
	// Values). Set in the Datapath that UpdateSpec runs (Datapath.specDP),
	// and when some cast of the configuration shifts by more than 63 bits,
	// beyond the raw plans (never for a realistic configuration; the
	// defaults use -24..44), where Update equals UpdateSpec. maxW, maxU,
	// winit and uinit, which the control flow itself reads, are set either
	// way.
	spec bool
}

func maxRaw(f fixedpoint.Format) uint64 { m, _ := f.MaxRawUint(); return m }

// compileFast builds d.fast from the datapath's formats, constants and
// units: every multiplier and adder of UpdateSpec as a raw plan with the
// same formats and modes (Rnd, Sat; the EWMA products and sum are exact in
// their formats and need no cast). A cast beyond the raw plans' shift range
// (fixedpoint.ErrNoRawPlan) marks the plan slow.
func (d *Datapath) compileFast() error {
	if err := d.compileRaw(); err != nil {
		if !errors.Is(err, fixedpoint.ErrNoRawPlan) {
			return err
		}
		d.fast = fastPlan{spec: true}
	}
	d.fast.maxW, d.fast.maxU = maxRaw(d.fW), maxRaw(d.fU)
	d.fast.winit, d.fast.uinit = d.winit.RawUint(), d.uinit.RawUint()
	return nil
}

func (d *Datapath) compileRaw() error {
	p := &d.fast
	var err error
	recip := func(name string, r *fixedpoint.Reciprocal) fixedpoint.RawReciprocal {
		rr, e := fixedpoint.NewRawReciprocal(r)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: compiled %s unit: %w", name, e)
		}
		return rr
	}
	mul := func(name string, x, y, to fixedpoint.Format) fixedpoint.RawMulCaster {
		c, e := fixedpoint.NewRawMulCaster(x, y, to, fixedpoint.Rnd, fixedpoint.Sat)
		if e != nil && err == nil {
			err = fmt.Errorf("hpcc: compiled %s multiplier: %w", name, e)
		}
		return c
	}
	p.rDts = recip("recip_dts", d.recipDts)
	p.rU = recip("recip_u", d.recipU)
	if d.recipN != nil {
		p.rN = recip("recip_n", d.recipN)
	}
	kqF, krF, invTF := d.tables[0].Format, d.tables[1].Format, d.invT.Format()
	p.maxW, p.maxU = maxRaw(d.fW), maxRaw(d.fU)
	p.cTx = mul("tx_rate", d.fDB, d.fRD, d.fTx)
	p.cQ = mul("q_term", d.fQ, kqF, d.fTerm)
	p.cR = mul("r_term", d.fTx, krF, d.fTerm)
	p.cEw = mul("u_ewma", d.fEwS, invTF, d.fU)
	p.cK = mul("eta/U", d.fRU, d.fEta, d.fEoU)
	p.cWm = mul("Wc*eta/U", d.fW, d.fEoU, d.fW)
	p.cRate = mul("rate", d.fW, invTF, d.fRate)
	if d.cfg.DynamicWAI {
		p.kWai = d.kWai.RawUint()
		p.cWai = mul("W_ai", d.kWai.Format(), d.fRN, d.fW)
	}
	if err != nil {
		return err
	}
	if p.cUp, err = fixedpoint.NewRawAddCaster(d.fTerm, d.fTerm, d.fU, fixedpoint.Rnd, fixedpoint.Sat); err != nil {
		return fmt.Errorf("hpcc: compiled u' adder: %w", err)
	}
	for c := 0; c < 16; c++ {
		p.kq[c], p.kr[c] = d.kq[c].RawUint(), d.kr[c].RawUint()
	}
	p.eta = d.eta.RawUint()
	// U >= eta compared exactly: with both at the larger fraction count
	// (NewDatapath checks that this fits 64 bits), U*2^a >= eta*2^b with a
	// or b zero; for a > 0 that is U >= ceil(eta / 2^a).
	if fu, fe := d.fU.F(), d.fEta.F(); fu >= fe {
		p.uEta = p.eta << uint(fu-fe)
	} else {
		a := uint(fe - fu)
		p.uEta = p.eta >> a
		if p.eta&(1<<a-1) != 0 {
			p.uEta++ // the ceiling
		}
	}
	p.invT, p.t = d.invT.RawUint(), d.tT.RawUint()
	p.wai, p.wmin, p.wmax = d.wai.RawUint(), d.wmin.RawUint(), d.wmax.RawUint()
	p.winit, p.uinit = d.winit.RawUint(), d.uinit.RawUint()
	p.oneEoU = d.oneEoU.RawUint()
	if d.mq.on {
		return d.compileMQ(&p.mq)
	}
	d.buildHopBound()
	return nil
}

// Rate returns R = W/T (line 27) for the raw Formats.W register w: W times
// the inv_t ROM constant, rounded half up (Rnd) and saturated (Sat) into
// Formats.Rate, the Rate output Update gives for a next W of w. Bits of w
// above Formats.W's width are ignored. The NIC model applies it to the W
// of an Rx-HPCC notification.
func (d *Datapath) Rate(w uint64) uint64 {
	if d.fast.spec {
		return d.spec.rate.MulCast(bits64(d.fW, w), d.invT).RawUint()
	}
	return d.fast.cRate.MulCast(w&d.fast.maxW, d.fast.invT)
}
