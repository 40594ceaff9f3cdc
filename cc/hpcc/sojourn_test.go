package hpcc

import (
	"math"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/telemetry"
)

// sojournConfigs are the Sojourn configurations of the tests (IFA only):
// sender and receiver.
func sojournConfigs() []namedConfig {
	c := DefaultConfig()
	c.Sojourn = true
	r := c
	r.Mode = Receiver
	return []namedConfig{{c, "ifa/sojourn"}, {r, "ifa/sojourn-receiver"}}
}

// withResidence returns h with its residence time set to res ns and its
// ingress time moved so that the egress time rx + residence is unchanged.
func withResidence(h telemetry.Hop, res uint32) telemetry.Hop {
	t := uint64(h.RxNs) + uint64(h.ResidenceNs) // egress ns (may carry)
	sec := uint64(h.RxSec) + t/telemetry.NsPerSecond
	t %= telemetry.NsPerSecond
	r := uint64(res) % telemetry.NsPerSecond
	if t >= r {
		h.RxNs = uint32(t - r)
	} else {
		h.RxNs = uint32(t + telemetry.NsPerSecond - r)
		sec--
	}
	h.RxSec = uint32(sec & (1<<telemetry.IFARxSecBits - 1))
	h.ResidenceNs = uint32(r)
	return h
}

// TestSojournHand checks the sojourn option (draft section 9.4) against
// values worked out by hand: one 100 Gbps hop (B = 12.5 B/ns), T = 5000 ns,
// dts = 1000 ns, 4000 bytes sent (txRate/B = 0.32), U = 0 before so U =
// 0.2*u'. The queue term is min(sojourn, last sojourn)/T; the qlen field
// is ignored. Float reference to 1e-12, golden within ErrorBounds.
func TestSojournHand(t *testing.T) {
	c := DefaultConfig()
	c.Sojourn = true
	r, d := mustRef(t, c), mustDP(t, c)
	b := d.ErrorBounds()
	for _, tc := range []struct {
		name      string
		cur, last uint32 // sojourn ns of this and of the stored sample
		want      float64
	}{
		{"cur below last", 2500, 3000, 2500.0/5000 + 0.32},
		{"last below cur", 4000, 1000, 1000.0/5000 + 0.32},
		{"sojourn T", 5000, 5000, 1 + 0.32},
		{"zero", 0, 7000, 0.32},
		{"saturated: 2^24 ns and more clamp u' at UMax", 1 << 26, 1 << 25, c.UMax()},
	} {
		prev := withResidence(hop(t, c.Encoding, 1, 100, 1_000_000, 1<<30, 999999), tc.last)
		cur := withResidence(hop(t, c.Encoding, 1, 100, 1_001_000, 1<<30+4000, 0), tc.cur)
		rs := RefState{Valid: true, NHops: 1, W: 20000, Wc: 20000}
		rs.Hops[0] = prev
		_, o := r.Update(rs, event(5, cur))
		if math.Abs(o.HopU[0]-tc.want) > 1e-12 {
			t.Errorf("%s: float u' = %.15g, want %.15g", tc.name, o.HopU[0], tc.want)
		}
		st := State{Valid: true, NHops: 1, W: 20000 << 24, Wc: 20000 << 24}
		st.Hops[0] = d.record(&prev)
		if want := min(uint64(tc.last), 1<<24-1); uint64(st.Hops[0].Qlen) != want {
			t.Errorf("%s: stored sample %d, want the saturated sojourn %d", tc.name, st.Hops[0].Qlen, want)
		}
		ns, fo := d.Update(st, event(5, cur))
		if u, tol := d.UValue(fo.U), 0.2*(b.HopRel*tc.want+b.HopAbs)+b.UAbs; math.Abs(u-0.2*tc.want) > tol {
			t.Errorf("%s: fixed U = %.12g, want %.12g within %.3g", tc.name, u, 0.2*tc.want, tol)
		}
		if n2, o2 := d.UpdateSpec(st, event(5, cur)); n2 != ns || o2 != fo {
			t.Errorf("%s: Update and UpdateSpec differ", tc.name)
		}
	}
	for _, bad := range []func(*Config){
		func(c *Config) { *c = DefaultConfigFor(telemetry.Compact); c.Sojourn = true },
		func(c *Config) {
			c.Sojourn = true
			c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.5, BacklogBytes: 0}
		},
		func(c *Config) { c.Sojourn = true; c.BaseRTTNs = 100000 }, // (2^24-1)/T < UMax: saturation would change u'
	} {
		c := DefaultConfig()
		bad(&c)
		if _, err := NewDatapath(c); err == nil || !(strings.Contains(err.Error(), "Sojourn") || strings.Contains(err.Error(), "sojourn_q")) {
			t.Errorf("config %+v: err = %v, want a Sojourn error", c.Sojourn, err)
		}
	}
}

// TestPropSojourn: with Sojourn, the golden datapath and the float
// reference agree within ErrorBounds from the same state and telemetry
// (the checks of TestPropStepEquivalence), for sojourn samples from 0 to
// beyond the saturation point. Oracle: the float reference.
func TestPropSojourn(t *testing.T) {
	for _, nc := range sojournConfigs() {
		c := nc.Config
		d, r := mustDP(t, c), mustRef(t, c)
		b := d.ErrorBounds()
		var stats stepStats
		props := gopter.NewProperties(params(2000))
		props.Property(nc.name(), prop.ForAll(func(sc stepCase) bool {
			st, _, in := sc.build(t, d)
			for i, h := range sc.Hops {
				// QlenPrev/QlenCur read as sojourn ns.
				in.Hops[i] = withResidence(in.Hops[i], uint32(h.QlenCur))
				st.Hops[i].Qlen = uint32(min(h.QlenPrev, 1<<24-1))
			}
			rs := d.RefState(st)
			if err := checkStep(d, r, b, st, rs, in, &stats); err != nil {
				t.Logf("%s: %v", nc.name(), err)
				return false
			}
			return true
		}, genStep(c)))
		props.TestingRun(t)
		t.Logf("%s: %d steps, max W rel error %.3g (2^%.1f), max |dU| %.3g, near-eta %d, near-tie %d", nc.name(), stats.steps, stats.maxWRel, math.Log2(stats.maxWRel), stats.maxUErr, stats.nearEta, stats.nearTie)
	}
}
