package network

import (
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// BenchmarkSwitchClasses runs a two-sender incast of 200 frames each
// through one port (fanIn), as a FIFO port and as two DWRR classes, with
// every packet stamped and with sampled telemetry: the switch's cost per
// frame for each (b.N incasts; frames/s reported).
func BenchmarkSwitchClasses(b *testing.B) {
	const K, n = 200, 1000
	cases := []struct {
		name string
		mod  func(*Config)
	}{
		{"fifo", func(*Config) {}},
		{"dwrr-2class", func(c *Config) { c.Switch.QoS = twoClasses(3, 1, 1500) }},
		{"dwrr-2class-sojourn", func(c *Config) { c.Switch.QoS = twoClasses(3, 1, 1500); c.Switch.Sojourn = true }},
		{"fifo-sampled", func(c *Config) {
			c.Switch.Sample = SampleConfig{Mode: SampleInterval, IntervalNs: 5000, TableEntries: 1024}
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			cfg := DefaultConfig()
			c.mod(&cfg)
			var frames [2][]scripted
			for k := 0; k < K; k++ {
				frames[0] = append(frames[0], scripted{0, classFrame(b, 0, 2, n, telemetry.IFA, 10, 50000, uint32(k))})
				frames[1] = append(frames[1], scripted{0, classFrame(b, 1, 2, n, telemetry.IFA, 20, 50001, uint32(k))})
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r := newRig(b, fanIn(), cfg, false)
				for h := 0; h < 2; h++ {
					for _, f := range frames[h] {
						r.eps[h].sends = append(r.eps[h].sends, scripted{0, append([]byte(nil), f.frame...)})
					}
				}
				r.run(b, 100_000_000)
			}
			b.ReportMetric(float64(2*K*b.N)/b.Elapsed().Seconds(), "frames/s")
		})
	}
}
