package scenario

import (
	"context"
	"testing"
)

func benchScenario(b *testing.B, name string, mod func(*Config)) {
	c, err := Lookup(name)
	if err != nil {
		b.Fatal(err)
	}
	if mod != nil {
		mod(&c)
	}
	b.ReportAllocs()
	var pk uint64
	for i := 0; i < b.N; i++ {
		r, err := Run(context.Background(), c, Options{})
		if err != nil {
			b.Fatal(err)
		}
		pk = r.Stats.DataPackets
		if r.Summary.Completed != r.Summary.Flows && c.Run.DurationNs == 0 {
			b.Fatalf("%d of %d flows completed", r.Summary.Completed, r.Summary.Flows)
		}
	}
	b.ReportMetric(float64(pk)*float64(b.N)/b.Elapsed().Seconds(), "datapkts/s")
}

func BenchmarkIncast16(b *testing.B) { benchScenario(b, "hpcc-incast-16to1", nil) }
func BenchmarkIncast60(b *testing.B) { benchScenario(b, "hpcc-incast-60to1", nil) }
func BenchmarkTwoFlows(b *testing.B) { benchScenario(b, "hpcc-two-flows", nil) }
