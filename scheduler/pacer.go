package scheduler

import (
	"math"
	"math/bits"

	"github.com/hpccgold/hpccgold/engine"
)

// fixTime is a pacer time register: cycle c plus f / 2^GF of a cycle
// (GF = Config.GapFracBits <= 32). It saturates at engine.Never.
type fixTime struct {
	c engine.Cycle
	f uint32
}

// less reports t < u.
func (t fixTime) less(u fixTime) bool { return t.c < u.c || (t.c == u.c && t.f < u.f) }

// ceil returns the first whole cycle at or after t: the cycle from which a
// send paced at t is allowed.
func (t fixTime) ceil() engine.Cycle {
	if t.f != 0 && t.c != engine.Never {
		return t.c + 1
	}
	return t.c
}

// add returns t + d, d a raw duration with gf fraction bits, saturating at
// (Never, 0).
func (t fixTime) add(d uint64, gf uint) fixTime {
	mask := uint64(1)<<gf - 1
	f := uint64(t.f) + d&mask
	carry := f >> gf
	c, c1 := bits.Add64(uint64(t.c), d>>gf, 0)
	c, c2 := bits.Add64(c, carry, 0)
	if c1|c2 != 0 || engine.Cycle(c) == engine.Never {
		return fixTime{c: engine.Never}
	}
	return fixTime{c: engine.Cycle(c), f: uint32(f & mask)}
}

// sub returns t - d, d a raw duration with gf fraction bits, saturating at 0.
func (t fixTime) sub(d uint64, gf uint) fixTime {
	mask := uint64(1)<<gf - 1
	dc, df := d>>gf, d&mask
	c := uint64(t.c)
	f := uint64(t.f)
	if f < df {
		if c == 0 {
			return fixTime{}
		}
		c--
		f += mask + 1
	}
	f -= df
	if c < dc {
		return fixTime{}
	}
	return fixTime{c: engine.Cycle(c - dc), f: uint32(f)}
}

// GapPerByte converts a raw rate r (Config.RateFormat, Config.RateUnit) into
// the gap-per-byte register value G: the time one byte occupies at rate r,
// in cycles, unsigned with GapFracBits fraction bits, rounded up so that the
// paced rate never exceeds r:
//
//	bytes per ns:    G = ceil(f * 2^(RF+GF) / (1e9 * r))
//	bytes per cycle: G = ceil(2^(RF+GF) / r)
//
// (f = ClockHz, RF = RateFormat fraction bits, GF = GapFracBits; computed
// exactly with a 128-bit numerator, the fraction f/1e9 in lowest terms). A
// result above the register's maximum 2^GapBits-1 saturates there and
// clamped is true; r = 0 returns (0, false): the flow is paused. The relative
// error of the paced rate is below 2^-GF / G (one LSB of G), 0 when exact.
func (s *Scheduler) GapPerByte(r uint64) (g uint64, clamped bool) {
	return s.conv.gap(r)
}

// gapConv is the rate-to-gap converter of a validated Config.
type gapConv struct {
	rateConv
	maxGap uint64
}

func (cv gapConv) gap(r uint64) (uint64, bool) {
	if r == 0 {
		return 0, false
	}
	// numerator = num << shift as a 128-bit (hi, lo); Validate guarantees it
	// fits 127 bits.
	var hi, lo uint64
	switch {
	case cv.shift == 0:
		lo = cv.num
	case cv.shift < 64:
		hi, lo = cv.num>>(64-uint(cv.shift)), cv.num<<uint(cv.shift)
	default:
		hi = cv.num << uint(cv.shift-64)
	}
	den := cv.den * r // fits: Validate checks den * max raw < 2^64
	if hi >= den {
		return cv.maxGap, true
	}
	q, rem := bits.Div64(hi, lo, den)
	if rem != 0 {
		if q == math.MaxUint64 {
			return cv.maxGap, true
		}
		q++
	}
	if q > cv.maxGap {
		return cv.maxGap, true
	}
	return q, false
}

// wireGap returns wire * G, the pacing interval of a packet of wire bytes,
// raw with GF fraction bits, saturating at MaxUint64.
func wireGap(wire, g uint64) uint64 {
	hi, lo := bits.Mul64(wire, g)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// pacerBase returns the start of the pacing interval of a packet sent in
// cycle now by a pacer whose time register is next, with a burst credit of
// credit (raw, gf fraction bits):
//
//   - next itself when the pacer is less than one cycle late
//     (next > now - 1) or within its credit (next >= now - credit): the
//     fraction of a cycle carries over, so the long-run rate is exact;
//   - now - credit otherwise: an idle pacer banks at most credit.
func pacerBase(next fixTime, now engine.Cycle, credit uint64, gf uint) fixTime {
	mask := uint64(1)<<gf - 1
	lower := fixTime{c: now}.sub(max(credit, mask), gf)
	if !next.less(lower) {
		return next
	}
	return fixTime{c: now}.sub(credit, gf)
}
