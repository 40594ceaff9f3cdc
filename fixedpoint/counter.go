package fixedpoint

import "fmt"

// NsPerSec is the nanosecond-field modulus of a (seconds, nanoseconds)
// timestamp, as in PTP (IEEE 1588) and the INT timestamp fields.
const NsPerSec = 1_000_000_000

// WrapDiff returns (a - b) mod 2^n: the number of increments from counter
// value b to counter value a of an n-bit hardware counter that wraps to 0,
// assuming fewer than 2^n increments happened. n must be in [1,64]; n = 0
// returns 0 (a counter with no bits) and n > 64 behaves as 64. Only the low
// n bits of a and b matter.
func WrapDiff(a, b uint64, n uint) uint64 {
	switch {
	case n == 0:
		return 0
	case n >= 64:
		return a - b
	}
	return (a - b) & (1<<n - 1)
}

// WrapDiffSigned returns (a - b) mod 2^n read as a signed n-bit number in
// [-2^(n-1), 2^(n-1)): the signed distance of two wrapping counters (e.g.
// sequence numbers) assumed less than half the counter range apart. n is
// treated as in WrapDiff.
func WrapDiffSigned(a, b uint64, n uint) int64 {
	d := WrapDiff(a, b, n)
	switch {
	case n == 0:
		return 0
	case n >= 64:
		return int64(d)
	}
	if d>>(n-1) != 0 {
		return int64(d) - int64(1)<<n
	}
	return int64(d)
}

// WrapLess reports whether counter a precedes counter b (a != b and b is
// less than half the range ahead of a), as gvisor's seqnum.LessThan.
func WrapLess(a, b uint64, n uint) bool { return WrapDiffSigned(a, b, n) < 0 }

// TimestampDiffNs returns the time from timestamp b to timestamp a in
// nanoseconds, for hardware timestamps of (seconds, nanoseconds) whose
// nanosecond part counts 0..999999999 and whose seconds counter is secBits
// wide and wraps at 2^secBits. The seconds difference is taken modulo
// 2^secBits (so a is assumed at most 2^secBits seconds after b); a borrow
// from the nanosecond part wraps the seconds too. Errors: secBits outside
// [1,64], a nanosecond field >= 1e9, a seconds field >= 2^secBits, or a
// result that does not fit in uint64 (over about 584 years).
func TimestampDiffNs(aSec, aNs, bSec, bNs uint64, secBits uint) (uint64, error) {
	if secBits < 1 || secBits > 64 {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs secBits=%d: must be in [1,64]", secBits)
	}
	if aNs >= NsPerSec {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs aNs=%d: must be < %d", aNs, NsPerSec)
	}
	if bNs >= NsPerSec {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs bNs=%d: must be < %d", bNs, NsPerSec)
	}
	if secBits < 64 && aSec>>secBits != 0 {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs aSec=%d: must be < 2^%d", aSec, secBits)
	}
	if secBits < 64 && bSec>>secBits != 0 {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs bSec=%d: must be < 2^%d", bSec, secBits)
	}
	ns := aNs - bNs
	if aNs < bNs {
		ns += NsPerSec
		aSec = WrapDiff(aSec, 1, secBits) // borrow
	}
	sec := WrapDiff(aSec, bSec, secBits)
	if sec > (^uint64(0)-ns)/NsPerSec {
		return 0, fmt.Errorf("fixedpoint: TimestampDiffNs: %d s + %d ns does not fit in uint64 ns", sec, ns)
	}
	return sec*NsPerSec + ns, nil
}
