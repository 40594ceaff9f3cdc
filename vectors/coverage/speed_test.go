package coverage

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestSpeedCodeUnreachable checks the table x operand bins of the per-speed
// tables (kq, kr): every entry of a speed code the configuration rejects is
// declared unreachable with the speed proof, and no entry of an accepted
// code is. Oracle: the encoding's speed table and MaxLinkSpeedGbps, read
// here directly (a code is accepted when it has a speed of at most
// MaxLinkSpeedGbps); a configuration with a lower MaxLinkSpeedGbps must
// move the codes above it to the rejected side.
func TestSpeedCodeUnreachable(t *testing.T) {
	for _, c := range []struct {
		name string
		enc  telemetry.Encoding
		max  uint32 // MaxLinkSpeedGbps, 0: the default
	}{
		{"ifa", telemetry.IFA, 0},
		{"compact", telemetry.Compact, 0},
		{"ifa_100g", telemetry.IFA, 100},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := hpcc.DefaultConfigFor(c.enc)
			if c.max != 0 {
				cfg.MaxLinkSpeedGbps = c.max
			}
			m, err := ForHPCC(cfg)
			if err != nil {
				t.Fatalf("ForHPCC: %v", err)
			}
			tab := cfg.Encoding.SpeedTable()
			rejected := 0
			for _, g := range tab {
				if g == 0 || g > cfg.MaxLinkSpeedGbps {
					rejected++
				}
			}
			if rejected == 0 {
				t.Fatalf("configuration rejects no speed code: the test would check nothing")
			}
			gated := 0
			for _, p := range m.Points {
				if p.Kind != KindROMx || !strings.Contains(p.Doc, "on a valid hop") {
					continue
				}
				gated++
				if len(p.Bins) != len(tab)*len(magBuckets) {
					t.Fatalf("%s: %d bins, want %d codes x %d magnitudes", p.Name, len(p.Bins), len(tab), len(magBuckets))
				}
				for code, g := range tab {
					accepted := g != 0 && g <= cfg.MaxLinkSpeedGbps
					for q := range magBuckets {
						b := p.Bins[code*len(magBuckets)+q]
						if !strings.HasPrefix(b.Name, fmt.Sprintf("e%d_", code)) {
							t.Fatalf("%s: bin %s at code %d", p.Name, b.Name, code)
						}
						bySpeed := strings.Contains(b.Unreachable, "speed code")
						if accepted && bySpeed {
							t.Errorf("%s.%s: code %d (%d Gbps) is accepted but declared unreachable: %s", p.Name, b.Name, code, g, b.Unreachable)
						}
						if !accepted && !bySpeed {
							t.Errorf("%s.%s: code %d (%d Gbps) is rejected but not declared unreachable by speed (%q)", p.Name, b.Name, code, g, b.Unreachable)
						}
					}
				}
			}
			if want := 2 * cfg.MaxHops; gated != want {
				t.Errorf("%d table x operand points gated on a valid hop, want %d (kq and kr per hop)", gated, want)
			}
		})
	}
}

// TestContradicted checks that a bin proved unreachable and hit is an
// error naming it, and that a report without such a bin is not. Oracle:
// the definition (a hit disproves the proof).
func TestContradicted(t *testing.T) {
	r := &Report{Design: "d", Points: []PointReport{{Name: "p", Bins: []BinReport{
		{Name: "a", Count: 3}, {Name: "b", Unreachable: "why"}, {Name: "c"}}}}}
	if err := r.Contradicted(); err != nil {
		t.Fatalf("no unreachable bin hit: %v", err)
	}
	r.Points[0].Bins[1].Count = 1
	err := r.Contradicted()
	if err == nil || !strings.Contains(err.Error(), "p.b") || !strings.Contains(err.Error(), "why") {
		t.Fatalf("unreachable bin p.b hit once: err = %v, want an error naming p.b and its proof", err)
	}
}

// TestGuardedNonZero checks the never-zero proof of a guarded mux (the
// 1/dts unit's input mux(h_ok, dts[w-1:0], 1)) on hand-built modules.
// Oracle: exhaustive evaluation over the 6-bit input d and the enable e:
// the proof is given exactly for the cases where the mux output is never
// 0, and withheld when a guard is missing.
func TestGuardedNonZero(t *testing.T) {
	for _, c := range []struct {
		name      string
		ne, le    bool   // guards in the select
		bound     uint64 // d <= bound
		elseConst uint64
		wantProof bool
	}{
		{"both_guards", true, true, 15, 1, true},
		{"no_ne", false, true, 15, 1, false},
		{"no_le", true, false, 0, 1, false},
		{"bound_too_wide", true, true, 16, 1, false},
		{"else_zero", true, true, 15, 0, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := rtl.NewModule("g", "")
			d := m.In("d", 6, false)
			e := m.In("e", 1, false)
			sel := e
			if c.ne {
				sel = m.And(sel, m.Ne(d, m.Const(6, false, 0)))
			}
			if c.le {
				sel = m.And(sel, m.Le(d, m.Const(6, false, c.bound)))
			}
			x := m.Mux(sel, m.Slice(d, 0, 4), m.Const(4, false, c.elseConst))
			m.Out("x", x, "")
			proof := guardedNonZero(x)
			if (proof != "") != c.wantProof {
				t.Fatalf("proof %q, want one: %v", proof, c.wantProof)
			}
			// Exhaustive oracle: the output is never 0 exactly when a proof is wanted.
			zero := false
			for dv := uint64(0); dv < 64; dv++ {
				for ev := uint64(0); ev < 2; ev++ {
					on := ev == 1 && (!c.ne || dv != 0) && (!c.le || dv <= c.bound)
					v := c.elseConst
					if on {
						v = dv & 15
					}
					zero = zero || v == 0
				}
			}
			if zero == c.wantProof {
				t.Fatalf("the mux can be 0: %v, but a proof is wanted: %v", zero, c.wantProof)
			}
		})
	}
}
