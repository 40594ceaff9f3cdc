package hpcc

import (
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// TestIFACarry: the IFA egress normalization's carry ((t >> 9) *
// nsDivMagic) >> 60 equals t / 10^9 for every t < 2^33 (the sum of two
// 32-bit fields), checked for every t >> 9 below 2^24 at the largest t of
// each group of 512 (the quotient is constant on each group, whose first
// and last t share t >> 9). Oracle: Go's integer division.
func TestIFACarry(t *testing.T) {
	for u := uint64(0); u < 1<<24; u++ {
		for _, tt := range []uint64{u << 9, u<<9 | 511} {
			if got, want := (tt>>9)*nsDivMagic>>60, tt/telemetry.NsPerSecond; got != want {
				t.Fatalf("carry(%d) = %d, want %d", tt, got, want)
			}
		}
	}
}

// TestRTermUpper8: rTermUpper8 (the constant-shift index of the
// specialized IFA loop) equals rTermUpper on the configurations that take
// it, for edge and random dts, dB and every speed code. Oracle:
// rTermUpper, which TestHopBoundContains checks against the exact r_term.
func TestRTermUpper8(t *testing.T) {
	n := 0
	for _, nc := range pruneConfigs() {
		d := mustDP(t, nc.Config)
		hb := &d.fast.hb
		if !hb.ifa {
			continue
		}
		n++
		r := rand.New(rand.NewPCG(1, 2))
		dtss := edgeValues(d.cfg.DtsInBits(), 1, d.cfg.MaxDeltaTsNs)
		dbs := edgeValues(d.fDB.W, 0, 1<<uint(d.fDB.W)-1)
		for k := 0; k < 2000; k++ {
			dtss = append(dtss, 1+r.Uint64N(d.cfg.MaxDeltaTsNs))
			dbs = append(dbs, r.Uint64N(1<<uint(d.fDB.W)))
		}
		for k, dts := range dtss {
			dB := dbs[k%len(dbs)]
			code := k & 15
			if got, want := hb.rTermUpper8(dts, dB, d.fast.kr[code], hb.c[code]), hb.rTermUpper(dts, dB, d.fast.kr[code], hb.c[code]); got != want {
				t.Fatalf("%s: rTermUpper8(dts=%d, dB=%d, code=%d) = %d, want %d", nc.name(), dts, dB, code, got, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no configuration takes the specialized IFA loop")
	}
}
