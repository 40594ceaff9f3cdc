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
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
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
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		st, _ = d.UpdateSpec(st, ins[i&1023])
	}
}

// BenchmarkStep5Hops is BenchmarkUpdateFixed5Hops through Step, the
// in-place form (no copies of State, Input and the results).
func BenchmarkStep5Hops(b *testing.B) { benchStep(b, 5) }

// BenchmarkStep1Hop is BenchmarkStep5Hops on a 1-hop path: the per-event
// work besides the hops' (with BenchmarkStep5Hops, the cost of the other
// four hops).
func BenchmarkStep1Hop(b *testing.B) { benchStep(b, 1) }

func benchStep(b *testing.B, nhops int) {
	d := mustDP(b, DefaultConfig())
	ins := benchTrace(b, telemetry.IFA, nhops, 1024)
	var st State
	var out Output
	d.Step(&st, &ins[0], &out)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for i := 0; i < b.N; i++ {
		d.Step(&st, &ins[i&1023], &out)
	}
}

// benchBatch runs UpdateBatch over batchFlows independent flows of
// configuration c, nhops hops each; an op is one event. The flows follow
// the steady trace of benchTrace at different places: flow k takes events
// 16k+1 .. 16k+16 of one 1025-event trace in 16 rounds (so the 64 flows
// together take the per-event benchmark's mix of events), starting from
// its state after event 16k and set back to that state every 16 rounds,
// so that every event continues its flow's telemetry (none re-baselines).
func benchBatch(b *testing.B, c Config, nhops int) {
	d := mustDP(b, c)
	runBatch(b, c, nhops, d.Update, d.UpdateBatch)
}

// batchFlows and batchRounds shape benchBatch's events (see there).
const batchFlows, batchRounds = 64, 16

// batchEvents returns benchBatch's flows' initial states (after two events
// through update) and its rounds of events (round r is
// ins[r*batchFlows:(r+1)*batchFlows]).
func batchEvents(b testing.TB, c Config, nhops int, update func(State, Input) (State, Output)) (init []State, ins []Input) {
	trace := benchTrace(b, c.Encoding, nhops, batchFlows*batchRounds+1)
	init = make([]State, batchFlows)
	ins = make([]Input, batchRounds*batchFlows)
	for k := range init {
		base := benchTrace(b, c.Encoding, nhops, 1)[0]
		init[k], _ = update(State{}, base)
		init[k], _ = update(init[k], trace[batchRounds*k])
		for r := 0; r < batchRounds; r++ {
			ins[r*batchFlows+k] = trace[batchRounds*k+r+1]
		}
	}
	return init, ins
}

// runBatch is benchBatch's timed loop over batch, an UpdateBatch of
// configuration c (update is its per-event form, for the setup).
func runBatch(b *testing.B, c Config, nhops int, update func(State, Input) (State, Output), batch func([]State, []Input, []Output) error) {
	init, ins := batchEvents(b, c, nhops, update)
	st := append([]State(nil), init...)
	out := make([]Output, batchFlows)
	b.ReportAllocs()
	b.ResetTimer()
	defer cpuPerOp(b)()
	for n, r := 0, 0; n < b.N; n, r = n+batchFlows, r+1 {
		if r == batchRounds {
			r = 0
			copy(st, init)
		}
		if err := batch(st, ins[r*batchFlows:(r+1)*batchFlows], out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdateBatch5Hops: UpdateBatch, default IFA configuration, 5
// hops; compare with BenchmarkUpdateFloat5Hops in the same run.
func BenchmarkUpdateBatch5Hops(b *testing.B) { benchBatch(b, DefaultConfig(), 5) }

// BenchmarkUpdateBatch5HopsMultiQ: UpdateBatch with MultiQ as
// BenchmarkUpdateFixed5HopsMultiQ.
func BenchmarkUpdateBatch5HopsMultiQ(b *testing.B) {
	c := DefaultConfig()
	c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	benchBatch(b, c, 5)
}
