package hpcc_test

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/gogen/hpccgo"
	"github.com/hpccgold/hpccgold/telemetry"
)

// The generated models of gogen/hpccgo (hpcc_update printed as
// straight-line Go from the rtl description, bit for bit Update: their
// TestMatchesGolden) on the events and loops of BenchmarkUpdateFixed5Hops,
// BenchmarkStep5Hops and BenchmarkUpdateBatch5Hops, to be compared with
// BenchmarkUpdateFloat5Hops in the same run (goal: at most 0.2x its time,
// 0 allocs).

func genModel(b *testing.B, c hpcc.Config) *hpccgo.Model {
	g, ok := hpccgo.For(c)
	if !ok {
		b.Fatal("gogen/hpccgo has no model of this configuration")
	}
	return g
}

func benchGenUpdate(b *testing.B, c hpcc.Config, nhops int) {
	g := genModel(b, c)
	ins := hpcc.BenchTrace(b, c.Encoding, nhops, 1024)
	st, _ := g.Update(hpcc.State{}, ins[0])
	b.ReportAllocs()
	b.ResetTimer()
	defer hpcc.CPUPerOp(b)()
	for i := 0; i < b.N; i++ {
		st, _ = g.Update(st, ins[i&1023])
	}
}

func benchGenStep(b *testing.B, c hpcc.Config, nhops int) {
	g := genModel(b, c)
	ins := hpcc.BenchTrace(b, c.Encoding, nhops, 1024)
	var st hpcc.State
	var out hpcc.Output
	g.Step(&st, &ins[0], &out)
	b.ReportAllocs()
	b.ResetTimer()
	defer hpcc.CPUPerOp(b)()
	for i := 0; i < b.N; i++ {
		g.Step(&st, &ins[i&1023], &out)
	}
}

func multiQConfig() hpcc.Config {
	c := hpcc.DefaultConfig()
	c.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	return c
}

func sojournConfig() hpcc.Config {
	c := hpcc.DefaultConfig()
	c.Sojourn = true
	return c
}

// BenchmarkUpdateGen5Hops: the generated Default model's Update (the
// per-event API with copies), as BenchmarkUpdateFixed5Hops.
func BenchmarkUpdateGen5Hops(b *testing.B) { benchGenUpdate(b, hpcc.DefaultConfig(), 5) }

// BenchmarkUpdateGen1Hop: as BenchmarkUpdateFixed1Hop.
func BenchmarkUpdateGen1Hop(b *testing.B) { benchGenUpdate(b, hpcc.DefaultConfig(), 1) }

// BenchmarkUpdateGen5HopsCompact: the Compact model, as
// BenchmarkUpdateFixed5HopsCompact.
func BenchmarkUpdateGen5HopsCompact(b *testing.B) {
	benchGenUpdate(b, hpcc.DefaultConfigFor(telemetry.Compact), 5)
}

// BenchmarkUpdateGen5HopsMultiQ: the MultiQ model, as
// BenchmarkUpdateFixed5HopsMultiQ.
func BenchmarkUpdateGen5HopsMultiQ(b *testing.B) { benchGenUpdate(b, multiQConfig(), 5) }

// BenchmarkUpdateGen5HopsSojourn: the sojourn model, as
// BenchmarkUpdateFixed5HopsSojourn.
func BenchmarkUpdateGen5HopsSojourn(b *testing.B) { benchGenUpdate(b, sojournConfig(), 5) }

// BenchmarkStepGen5Hops: the generated Default model's Step (in place), as
// BenchmarkStep5Hops.
func BenchmarkStepGen5Hops(b *testing.B) { benchGenStep(b, hpcc.DefaultConfig(), 5) }

// BenchmarkUpdateBatchGen5Hops: the generated Default model's UpdateBatch
// on BenchmarkUpdateBatch5Hops's flows and events; an op is one event.
func BenchmarkUpdateBatchGen5Hops(b *testing.B) {
	g := genModel(b, hpcc.DefaultConfig())
	hpcc.RunBatch(b, hpcc.DefaultConfig(), 5, g.Update, g.UpdateBatch)
}

// BenchmarkUpdateBatchGen5HopsMultiQ: as BenchmarkUpdateBatch5HopsMultiQ.
func BenchmarkUpdateBatchGen5HopsMultiQ(b *testing.B) {
	g := genModel(b, multiQConfig())
	hpcc.RunBatch(b, multiQConfig(), 5, g.Update, g.UpdateBatch)
}
