package nicmodel

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
)

// GuardConfig configures the telemetry integrity guard (cc/intguard,
// docs/guard.md) in the HPCC++ module's path: every ACK's telemetry is
// checked against the QP's stored hop records before the HPCC++ update.
// The guarded datapath is the NIC's HPCC section. Config.Guard nil (the
// default) means no guard: the module is then exactly as without this
// feature, register for register.
type GuardConfig struct {
	Qlen  intguard.QlenCheck  `json:"qlen"`
	Rate  intguard.RateCheck  `json:"rate"`
	Speed intguard.SpeedCheck `json:"speed"`
	Path  intguard.PathCheck  `json:"path"`
	Time  intguard.TimeCheck  `json:"time"`
}

// DefaultGuardConfig returns every check enabled with the cc/intguard
// defaults for datapath h.
func DefaultGuardConfig(h hpcc.Config) *GuardConfig {
	c := intguard.DefaultConfig(h)
	return &GuardConfig{Qlen: c.Qlen, Rate: c.Rate, Speed: c.Speed, Path: c.Path, Time: c.Time}
}

// Intguard returns the cc/intguard configuration of the guard over
// datapath h.
func (g *GuardConfig) Intguard(h hpcc.Config) intguard.Config {
	return intguard.Config{Datapath: h, Qlen: g.Qlen, Rate: g.Rate, Speed: g.Speed, Path: g.Path, Time: g.Time}
}

// validateGuard checks the guard section: it needs cc=hpcc (the sender's
// update) or cc=hpcc-rx (the receiver's Rx-HPCC update) on the golden
// (fixed) datapath, and a valid cc/intguard configuration.
func (c *Config) validateGuard() error {
	if c.Guard == nil {
		return nil
	}
	if c.CC != CCHPCC && c.CC != CCHPCCRx {
		return bad("guard", "set", fmt.Sprintf("the telemetry guard needs cc=hpcc or cc=hpcc-rx, not cc=%s", c.CC))
	}
	if c.Model != Fixed {
		return bad("guard", "set", "the telemetry guard runs on the golden datapath: needs model=fixed")
	}
	if err := c.Guard.Intguard(c.HPCC).Validate(); err != nil {
		return fmt.Errorf("nicmodel: guard: %w", err)
	}
	return nil
}

// GuardCounters are the guard's status registers (registers guard.*); all
// wrap modulo 2^64. The per-check counters count hop records on which the
// check fired. Under cc=hpcc the events are the sender's ACK events and
// CCIssued = CCRetired + Discarded + EventsDropped + the updates in flight;
// under cc=hpcc-rx they are the receiver's data packets with telemetry
// (Events = RxHPCCCounters.Calls; a dropped event updates nothing and
// notifies nothing).
type GuardCounters struct {
	Events        uint64 // telemetry events checked (ACKs under cc=hpcc, data packets under cc=hpcc-rx)
	EventsDropped uint64 // events dropped (every hop stale): no update written back
	HopsDropped   uint64 // hop records dropped (path or time): re-baselined, no measurement
	QlenClamped   uint64 // queue lengths above the buffer, clamped
	RateClamped   uint64 // txBytes deltas above B*(1+tol)*dts, clamped
	SpeedClamped  uint64 // speed codes outside the deployed set, clamped
	PathChanged   uint64 // hop records whose path (hop count or identity) changed
	TimeStale     uint64 // hop records with a zero or negative time delta
}

// count adds a verdict to the counters.
func (c *GuardCounters) count(v *intguard.Verdict) {
	c.Events++
	if v.DropEvent {
		c.EventsDropped++
	}
	c.HopsDropped += uint64(bits.OnesCount8(v.Drop))
	c.QlenClamped += uint64(bits.OnesCount8(v.Fired[intguard.CheckQlen]))
	c.RateClamped += uint64(bits.OnesCount8(v.Fired[intguard.CheckRate]))
	c.SpeedClamped += uint64(bits.OnesCount8(v.Fired[intguard.CheckSpeed]))
	c.PathChanged += uint64(bits.OnesCount8(v.Fired[intguard.CheckPath]))
	c.TimeStale += uint64(bits.OnesCount8(v.Fired[intguard.CheckTime]))
}
