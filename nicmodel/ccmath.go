package nicmodel

import (
	"math"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// ccCore is the HPCC++ arithmetic shared by the sender's module and the
// receiver's Rx-HPCC: the golden datapath (Fixed) or the float reference
// (Float) built from one hpcc.Config, and the register formats of W and R
// on the scheduler's update port (hpcc Formats.W and Formats.Rate).
type ccCore struct {
	model Model
	cfg   hpcc.Config
	d     *hpcc.Datapath  // Fixed
	ref   *hpcc.Reference // Float
	fW    fixedpoint.Format
	fR    fixedpoint.Format
	wMax  uint64 // largest raw W
	rMax  uint64 // largest raw R
	// dp is the golden datapath of cfg in both models: its line 27
	// multiplier (Rate) turns the W of an Rx-HPCC notification into R.
	dp *hpcc.Datapath
}

func newCCCore(model Model, cfg hpcc.Config, dps *Datapaths) (*ccCore, error) {
	c := &ccCore{model: model, cfg: cfg, fW: cfg.Formats.W, fR: cfg.Formats.Rate}
	c.wMax, _ = c.fW.MaxRawUint()
	c.rMax, _ = c.fR.MaxRawUint()
	dcfg := cfg
	if model == Float {
		// The float model's datapath only converts (formats, the Rx-HPCC
		// notification's R = W/T); MultiQ changes neither, so float NICs
		// of every class weight share one.
		dcfg.MultiQ = hpcc.MultiQConfig{}
	}
	d, err := dps.get(dcfg)
	if err != nil {
		return nil, err
	}
	c.dp = d
	if model == Fixed {
		c.d = d
	} else {
		if c.ref, err = hpcc.NewReference(cfg); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// ccOut is what one CC update reports: the raw registers the scheduler
// receives and the datapath's decision flags.
type ccOut struct {
	w, r                          uint64 // raw Formats.W, Formats.Rate
	first, mi, updateWc, notify   bool
	wc, u                         uint64 // raw W_c, U (fixed model); float model: quantized copies
	incStage                      uint8
	selHop, hopValid              uint8
	wFloat, rFloat, uFloat, wcFlt float64 // float model: the reference's own values
}

func fromFixed(o hpcc.Output) ccOut {
	return ccOut{w: o.W, r: o.Rate, first: o.First, mi: o.MI, updateWc: o.UpdateWc, notify: o.Notify,
		wc: o.Wc, u: o.U, incStage: o.IncStage, selHop: o.SelHop, hopValid: o.HopValid}
}

func (c *ccCore) fromFloat(o hpcc.RefOutput) ccOut {
	fu := c.cfg.Formats.U
	uMax, _ := fu.MaxRawUint()
	return ccOut{w: quantize(o.W, c.fW.F(), c.wMax), r: quantize(o.RateBytesPerNs, c.fR.F(), c.rMax),
		first: o.First, mi: o.MI, updateWc: o.UpdateWc, notify: o.Notify,
		wc: quantize(o.Wc, c.fW.F(), c.wMax), u: quantize(o.U, fu.F(), uMax), incStage: uint8(min(o.IncStage, 255)),
		selHop: o.SelHop, hopValid: o.HopValid, wFloat: o.W, rFloat: o.RateBytesPerNs, uFloat: o.U, wcFlt: o.Wc}
}

// quantize rounds x (>= 0) to the nearest raw value with f fraction bits
// (half away from zero), saturating at max; NaN and negative values give 0.
func quantize(x float64, f int, max uint64) uint64 {
	if !(x > 0) {
		return 0
	}
	v := math.Round(math.Ldexp(x, f))
	if v >= math.Ldexp(1, 64) || v >= float64(max) {
		return max
	}
	return uint64(v)
}

// rate returns R = W/T for a raw W as the datapath's line 27 computes it
// (hpcc.Datapath.Rate: W * inv_t rounded half up into Formats.Rate,
// saturated).
func (c *ccCore) rate(w uint64) uint64 { return c.dp.Rate(w) }

// windowFromBytes converts a window in whole bytes (an Rx-HPCC
// notification's W field) into a raw Formats.W register, saturating.
func (c *ccCore) windowFromBytes(b uint32) uint64 {
	f := c.fW.F()
	switch {
	case f >= 64:
		if b == 0 {
			return 0
		}
		return c.wMax
	case f >= 0:
		if bits.Len64(uint64(b))+f > 64 {
			return c.wMax
		}
		return min(uint64(b)<<uint(f), c.wMax)
	default:
		return min(uint64(b)>>uint(-f), c.wMax)
	}
}

// windowBytes converts a raw Formats.W register into whole bytes (floor),
// saturated at 2^32-1: the W field of a notification.
func (c *ccCore) windowBytes(w uint64) uint32 {
	f := c.fW.F()
	var b uint64
	switch {
	case f >= 64:
		b = 0
	case f >= 0:
		b = w >> uint(f)
	default:
		if bits.Len64(w)-f > 64 {
			return math.MaxUint32
		}
		b = w << uint(-f)
	}
	return uint32(min(b, math.MaxUint32))
}
