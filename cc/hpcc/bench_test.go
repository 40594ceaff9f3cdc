package hpcc

import (
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// benchTrace builds a steady trace of events with nhops hops (100 Gbps,
// 1 us between ACKs, moderate queue) for the per-ACK benchmarks.
func benchTrace(b testing.TB, e telemetry.Encoding, nhops int, n int) []Input {
	var ins []Input
	var ts, tx uint64 = 1e6, 0
	for k := 0; k < n; k++ {
		in := Input{Seq: uint64(k * 1000), SndNxt: uint64(k*1000 + 60000), NHops: uint8(nhops)}
		for i := 0; i < nhops; i++ {
			in.Hops[i] = hop(b, e, uint32(i+1), 100, ts+uint64(i)*300, tx+uint64(i)*7, uint64((k*37+i*1000)%20000))
		}
		ins = append(ins, in)
		ts += 1000
		tx += 11800
	}
	return ins
}

func benchFixed(b *testing.B, e telemetry.Encoding, nhops int) {
	benchFixedWith(b, DefaultConfigFor(e), nhops)
}

// benchFixedWith is benchFixed for configuration c.
func benchFixedWith(b *testing.B, c Config, nhops int) {
	e := c.Encoding
	d := mustDP(b, c)
	ins := benchTrace(b, e, nhops, 1024)
	st, _ := d.Update(d.InitialState(), ins[0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, _ = d.Update(st, ins[i&1023])
	}
}

func benchFloat(b *testing.B, e telemetry.Encoding, nhops int) {
	c := DefaultConfigFor(e)
	r := mustRef(b, c)
	ins := benchTrace(b, e, nhops, 1024)
	st, _ := r.Update(r.InitialState(), ins[0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, _ = r.Update(st, ins[i&1023])
	}
}

// Per-ACK update benchmarks (goal for fixed, 5 hops: <= 100 ns/op, 0 allocs).
func BenchmarkUpdateFixed1Hop(b *testing.B)         { benchFixed(b, telemetry.IFA, 1) }
func BenchmarkUpdateFixed5Hops(b *testing.B)        { benchFixed(b, telemetry.IFA, 5) }
func BenchmarkUpdateFixed5HopsCompact(b *testing.B) { benchFixed(b, telemetry.Compact, 5) }

// BenchmarkUpdateFixed5HopsMultiQ: MultiQ with w = 0.4, so the trace's
// 94%-of-line-rate hops are above wB and take cases 2 and 3 (the
// per-hop recip_mq unit).
func BenchmarkUpdateFixed5HopsMultiQ(b *testing.B) {
	c := DefaultConfig()
	c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	benchFixedWith(b, c, 5)
}

// BenchmarkUpdateFixed5HopsSojourn: the sojourn option (draft 9.4).
func BenchmarkUpdateFixed5HopsSojourn(b *testing.B) {
	c := DefaultConfig()
	c.Sojourn = true
	benchFixedWith(b, c, 5)
}
func BenchmarkUpdateFloat1Hop(b *testing.B)  { benchFloat(b, telemetry.IFA, 1) }
func BenchmarkUpdateFloat5Hops(b *testing.B) { benchFloat(b, telemetry.IFA, 5) }

// BenchmarkUpdateSpec5Hops is the readable op-by-op form (fixedpoint
// Values) on the same events as BenchmarkUpdateFixed5Hops, for scale.
func BenchmarkUpdateSpec5Hops(b *testing.B) {
	d := mustDP(b, DefaultConfigFor(telemetry.IFA))
	ins := benchTrace(b, telemetry.IFA, 5, 1024)
	st, _ := d.UpdateSpec(d.InitialState(), ins[0])
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, _ = d.UpdateSpec(st, ins[i&1023])
	}
}
