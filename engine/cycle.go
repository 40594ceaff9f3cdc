package engine

import (
	"fmt"
	"math"
	"math/bits"
)

// Cycle is a clock-cycle count (unsigned, 64 bits). Cycle 0 is the first cycle
// an [Engine] executes. At 1 GHz a Cycle covers about 584 years, so the model
// never wraps it.
type Cycle uint64

// Never is the largest Cycle; it stands for "no pending wake".
const Never = Cycle(math.MaxUint64)

const (
	psPerSecond = 1_000_000_000_000
	nsPerSecond = 1_000_000_000
)

// Freq is a clock frequency in Hz. Every conversion between cycles and time
// goes through Freq methods, which compute exactly in 128-bit integers.
//
// The zero Freq is invalid ([Freq.Validate] rejects it); its conversion
// methods return 0 rather than divide by zero.
type Freq uint64

// Common clock frequencies.
const (
	Hz  Freq = 1
	KHz Freq = 1_000
	MHz Freq = 1_000_000
	GHz Freq = 1_000_000_000
)

// Validate reports whether f is a usable clock: at least 1 Hz and at most
// 1 THz (so that one cycle lasts at least 1 ps).
func (f Freq) Validate() error {
	if f == 0 || f > psPerSecond {
		return fmt.Errorf("engine: Freq=%d Hz: must be in [1, %d]", uint64(f), uint64(psPerSecond))
	}
	return nil
}

// String formats f in Hz with an SI prefix when the value is a whole multiple
// of it ("1GHz", "312500kHz", "7Hz").
func (f Freq) String() string {
	switch {
	case f != 0 && f%GHz == 0:
		return fmt.Sprintf("%dGHz", uint64(f/GHz))
	case f != 0 && f%MHz == 0:
		return fmt.Sprintf("%dMHz", uint64(f/MHz))
	case f != 0 && f%KHz == 0:
		return fmt.Sprintf("%dkHz", uint64(f/KHz))
	}
	return fmt.Sprintf("%dHz", uint64(f))
}

// mulDiv returns floor(a*b/c) (ceil when up is true), computed in 128 bits.
// It saturates at MaxUint64 when the quotient does not fit 64 bits and
// returns 0 when c is 0.
func mulDiv(a, b, c uint64, up bool) uint64 {
	if c == 0 {
		return 0
	}
	hi, lo := bits.Mul64(a, b)
	if hi >= c {
		return math.MaxUint64
	}
	q, r := bits.Div64(hi, lo, c)
	if up && r != 0 {
		if q == math.MaxUint64 {
			return q
		}
		q++
	}
	return q
}

// MulDiv returns floor(a*b/c) computed exactly with a 128-bit intermediate,
// or ceil(a*b/c) when up is true. It saturates at math.MaxUint64 when the
// result does not fit 64 bits and returns 0 when c is 0. It is the primitive
// behind every Freq conversion, exported for rate arithmetic in the network
// model (serialization times, bytes per interval).
func MulDiv(a, b, c uint64, up bool) uint64 { return mulDiv(a, b, c, up) }

// PS returns the start of cycle c in picoseconds, rounded up to the first
// whole picosecond inside the cycle: ceil(c * 1e12 / f). Rounding up makes it
// the exact inverse of [Freq.CycleAtPS] for every valid clock (period >= 1 ps):
// CycleAtPS(PS(c)) == c. Exact when the period is a whole number of ps (1 GHz,
// 312.5 MHz). Saturates at math.MaxUint64 (about 213 days).
func (f Freq) PS(c Cycle) uint64 { return mulDiv(uint64(c), psPerSecond, uint64(f), true) }

// NS returns the start of cycle c in nanoseconds, truncated (rounded down, as
// a free-running nanosecond timestamp counter would show it):
// floor(c * 1e9 / f). This is the pcap timestamp of an event in cycle c; with
// a clock above 1 GHz, consecutive cycles can share a timestamp.
func (f Freq) NS(c Cycle) uint64 { return mulDiv(uint64(c), nsPerSecond, uint64(f), false) }

// CycleAtPS returns the cycle that contains the instant ps picoseconds:
// floor(ps * f / 1e12). CycleAtPS(PS(c)) == c for every c whose PS does not
// saturate.
func (f Freq) CycleAtPS(ps uint64) Cycle { return Cycle(mulDiv(ps, uint64(f), psPerSecond, false)) }

// CycleAtNS returns the cycle that contains the instant ns nanoseconds:
// floor(ns * f / 1e9).
func (f Freq) CycleAtNS(ns uint64) Cycle { return Cycle(mulDiv(ns, uint64(f), nsPerSecond, false)) }

// CyclesPS returns the number of whole cycles that cover a duration of ps
// picoseconds: ceil(ps * f / 1e12) (a 1 us delay at 1 GHz is 1000 cycles;
// 1 ps at 1 GHz is 1 cycle).
func (f Freq) CyclesPS(ps uint64) Cycle { return Cycle(mulDiv(ps, uint64(f), psPerSecond, true)) }

// CyclesNS returns the number of whole cycles that cover a duration of ns
// nanoseconds: ceil(ns * f / 1e9).
func (f Freq) CyclesNS(ns uint64) Cycle { return Cycle(mulDiv(ns, uint64(f), nsPerSecond, true)) }

// TransferCycles returns the number of whole cycles needed to move nbits bits
// at bitsPerSecond: ceil(nbits * f / bitsPerSecond). A 1000-byte frame at
// 100 Gbit/s with a 1 GHz clock takes 80 cycles. It returns 0 when
// bitsPerSecond is 0 (callers validate rates in their config).
func (f Freq) TransferCycles(nbits, bitsPerSecond uint64) Cycle {
	return Cycle(mulDiv(nbits, uint64(f), bitsPerSecond, true))
}

// PeriodPS returns the clock period in picoseconds, rounded down, and whether
// it is exact (1e12 divisible by f).
func (f Freq) PeriodPS() (ps uint64, exact bool) {
	if f == 0 {
		return 0, false
	}
	return psPerSecond / uint64(f), psPerSecond%uint64(f) == 0
}
