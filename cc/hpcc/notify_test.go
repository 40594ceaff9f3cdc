package hpcc

import (
	"strings"
	"testing"
)

// notifyOracle is the receiver's notification rule, written from draft
// section 6.2 lines 29-32 with the notification period P in place of T,
// independently of the datapath: the first event opens the round at its
// time (no notification); an event at now notifies iff (now - last) mod
// 2^timeBits > P, and a notification moves last to now. It returns, per
// event, whether it notifies.
func notifyOracle(times []uint64, p uint64, timeBits int) []bool {
	mask := uint64(1)<<uint(timeBits) - 1
	out := make([]bool, len(times))
	var last uint64
	for i, t := range times {
		if i == 0 {
			last = t & mask
			continue
		}
		if (t-last)&mask > p {
			out[i] = true
			last = t & mask
		}
	}
	return out
}

// TestNotifyPeriod checks the receiver's notification decision against
// notifyOracle for periods P shorter than, equal to (0 = default) and longer
// than T, on evenly and unevenly spaced events, in the fixed-point datapath
// (Update and UpdateSpec) and the float reference, and the two consequences
// of the rule: successive notifications are more than P apart, and no event
// more than P after the last notification goes without one (so the gap is
// at most P plus the spacing of the events).
func TestNotifyPeriod(t *testing.T) {
	type tc struct {
		name     string
		p        uint32 // NotifyPeriodNs (0: T)
		timeBits int    // 0: default
		gaps     []uint64
		n        int // events (gaps repeat)
	}
	cases := []tc{
		{name: "P=T default, 1 us spacing", p: 0, gaps: []uint64{1000}, n: 60},
		{name: "P=T/2 (slides 4.5 of 9 us), 1 us spacing", p: 2500, gaps: []uint64{1000}, n: 60},
		{name: "P=T/2, spacing = P exactly (never > P in one step)", p: 2500, gaps: []uint64{2500}, n: 40},
		{name: "P=T/2, spacing P+1", p: 2500, gaps: []uint64{2501}, n: 40},
		{name: "P=2T, uneven spacing", p: 10000, gaps: []uint64{300, 7000, 1, 4000, 999}, n: 80},
		{name: "P=1 ns, every event after 2 ns", p: 1, gaps: []uint64{1, 2, 1, 3}, n: 40},
		{name: "P=4500, now wraps at 2^16", p: 4500, timeBits: 16, gaps: []uint64{1700, 3100}, n: 120},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			c := DefaultConfig()
			c.Mode = Receiver
			c.NotifyPeriodNs = k.p
			if k.timeBits != 0 {
				c.TimeBits = k.timeBits
			}
			p := uint64(c.NotifyPeriod())
			if k.p == 0 && p != uint64(c.BaseRTTNs) {
				t.Fatalf("NotifyPeriod() = %d with NotifyPeriodNs = 0, want T = %d", p, c.BaseRTTNs)
			}
			d, r := mustDP(t, c), mustRef(t, c)
			mask := uint64(1)<<uint(c.TimeBits) - 1
			times := make([]uint64, k.n)
			now := uint64(1_000)
			for i := range times {
				times[i] = now & mask
				now += k.gaps[i%len(k.gaps)]
			}
			want := notifyOracle(times, p, c.TimeBits)
			var st, ss State
			rs := r.InitialState()
			var abs []uint64 // unwrapped times of the notifications
			unwrapped := uint64(1_000)
			for i, tm := range times {
				in := event(uint64(i), hop(t, c.Encoding, 1, 100, unwrapped, uint64(i)*1000, 0))
				in.NowNs = tm
				var o, os Output
				var ro RefOutput
				st, o = d.Update(st, in)
				ss, os = d.UpdateSpec(ss, in)
				rs, ro = r.Update(rs, in)
				if o.Notify != want[i] || os.Notify != want[i] || ro.Notify != want[i] {
					t.Fatalf("event %d at now=%d: Notify fast=%v spec=%v ref=%v, oracle %v (P=%d)", i, tm, o.Notify, os.Notify, ro.Notify, want[i], p)
				}
				if o.Notify {
					abs = append(abs, unwrapped)
				}
				unwrapped += k.gaps[i%len(k.gaps)]
			}
			if len(abs) == 0 {
				t.Fatalf("no notification in %d events", k.n)
			}
			maxGap := uint64(0)
			for _, g := range k.gaps {
				maxGap = max(maxGap, g)
			}
			for i := 1; i < len(abs); i++ {
				g := abs[i] - abs[i-1]
				if g <= p || g > p+maxGap {
					t.Fatalf("notifications %d and %d are %d ns apart, want in (P, P + max spacing] = (%d, %d]", i-1, i, g, p, p+maxGap)
				}
			}
		})
	}
}

// TestNotifyPeriodInvalid checks that a notification period the datapath
// cannot hold, or one given to the sender, is refused naming the field and
// value, by Validate, NewDatapath and NewReference.
func TestNotifyPeriodInvalid(t *testing.T) {
	cases := []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"sender mode", func(c *Config) { c.Mode = Sender; c.NotifyPeriodNs = 4500 }, "NotifyPeriodNs=4500: needs Mode=receiver"},
		{"not below 2^TimeBits-1", func(c *Config) { c.Mode = Receiver; c.TimeBits = 16; c.BaseRTTNs = 5000; c.NotifyPeriodNs = 65535 }, "NotifyPeriodNs=65535: must be below 2^TimeBits-1=65535"},
		{"far above 2^TimeBits", func(c *Config) { c.Mode = Receiver; c.TimeBits = 16; c.NotifyPeriodNs = 1 << 20 }, "NotifyPeriodNs=1048576"},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			c := DefaultConfig()
			k.mod(&c)
			for name, err := range map[string]error{
				"Validate":     c.Validate(),
				"NewDatapath":  func() error { _, err := NewDatapath(c); return err }(),
				"NewReference": func() error { _, err := NewReference(c); return err }(),
			} {
				if err == nil || !strings.Contains(err.Error(), k.want) {
					t.Errorf("%s: error %v, want one containing %q", name, err, k.want)
				}
			}
		})
	}
	// The largest valid period is accepted.
	c := DefaultConfig()
	c.Mode, c.TimeBits, c.NotifyPeriodNs = Receiver, 16, 65534
	if err := c.Validate(); err != nil {
		t.Errorf("NotifyPeriodNs=65534 with TimeBits=16: %v", err)
	}
}
