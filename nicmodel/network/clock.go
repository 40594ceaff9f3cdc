package network

import "github.com/hpccgold/hpccgold/engine"

// Femtoseconds per second: the network keeps instants and durations in
// femtoseconds (uint64: 5.1 hours of simulated time) so that serialization
// times such as 8720 bits at 400 Gbit/s (21.8 ns) are exact and do not
// accumulate per-frame rounding the way whole cycles would.
const fsPerSecond = 1_000_000_000_000_000

// clock converts between engine cycles and femtoseconds.
type clock struct {
	f engine.Freq
	// per is fs per cycle when it is an integer (1e15 % f == 0), else 0.
	per uint64
}

func newClock(f engine.Freq) clock {
	c := clock{f: f}
	if fsPerSecond%uint64(f) == 0 {
		c.per = fsPerSecond / uint64(f)
	}
	return c
}

// start returns the first femtosecond of cycle c (ceil(c * 1e15 / f)).
func (k clock) start(c engine.Cycle) uint64 {
	if k.per != 0 {
		return uint64(c) * k.per
	}
	return engine.MulDiv(uint64(c), fsPerSecond, uint64(k.f), true)
}

// at returns the cycle containing instant t (floor(t * f / 1e15)).
func (k clock) at(t uint64) engine.Cycle {
	if k.per != 0 {
		return engine.Cycle(t / k.per)
	}
	return engine.Cycle(engine.MulDiv(t, uint64(k.f), fsPerSecond, false))
}

// nsFS converts ns to fs.
func nsFS(ns uint64) uint64 { return ns * 1_000_000 }

// serFS returns the serialization time in fs of nbytes at bps, rounded up
// to a whole femtosecond (exact for every rate that divides 8e15 bits,
// which includes all standard Ethernet rates).
func serFS(nbytes, bps uint64) uint64 {
	return engine.MulDiv(nbytes*8, fsPerSecond, bps, true)
}
