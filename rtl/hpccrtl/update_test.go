package hpccrtl

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// testConfigs are the configurations the description is checked in: the
// default (sender, IFA), Compact telemetry, and the receiver with dynamic
// W_ai (a third reciprocal unit, the time-based commit).
func testConfigs() map[string]hpcc.Config {
	rx := hpcc.DefaultConfig()
	rx.Mode = hpcc.Receiver
	rx.DynamicWAI = true
	return map[string]hpcc.Config{
		"sender_ifa":     hpcc.DefaultConfig(),
		"sender_compact": hpcc.DefaultConfigFor(telemetry.Compact),
		"receiver_ifa":   rx,
	}
}

// evalSet runs every vector of set through the rtl evaluator of the
// combinational hpcc_update and returns the number of mismatching vectors
// and the first mismatch field by field.
func evalSet(t *testing.T, m *rtl.Module, set *vectors.Set) (int, string) {
	t.Helper()
	sim, err := rtl.NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	in, out := set.InputTable(), set.OutputTable()
	if len(m.Inputs) != len(in.Fields) || len(m.Outputs) != len(out.Fields) {
		t.Fatalf("ports: %d in, %d out; tables %d, %d", len(m.Inputs), len(m.Outputs), len(in.Fields), len(out.Fields))
	}
	bad, first := 0, ""
	for k := 0; k < set.Len(); k++ {
		iw := set.Input(k)
		for i, f := range in.Fields {
			sim.SetInUint(i, fieldtable.Get(iw, f))
		}
		ow := set.Output(k)
		mism := ""
		for i, f := range out.Fields {
			if got, want := sim.Out(i).Uint64(), fieldtable.Get(ow, f); got != want {
				mism += fmt.Sprintf(" %s: got %#x want %#x;", f.Name, got, want)
			}
		}
		if mism != "" {
			bad++
			if first == "" {
				first = fmt.Sprintf("vector %d (%s):%s", k, set.Class(k), mism)
			}
		}
	}
	return bad, first
}

// TestUpdateEvaluatorVsGolden checks the description, run by the rtl
// evaluator, against the golden datapath (cc/hpcc Update, through the
// vectors package's expected outputs) on every level-1 and level-2 directed
// corner class and on constrained-random vectors, in three configurations.
func TestUpdateEvaluatorVsGolden(t *testing.T) {
	n := int64(10000)
	if testing.Short() {
		n = 2000
	}
	for name, cfg := range testConfigs() {
		t.Run(name, func(t *testing.T) {
			m, err := UpdateComb(cfg)
			if err != nil {
				t.Fatal(err)
			}
			set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 2, Seed: 1, Count: n, NoJSONL: true})
			if err != nil {
				t.Fatal(err)
			}
			bad, first := evalSet(t, m, set)
			if bad != 0 {
				t.Fatalf("%d of %d vectors differ from the golden datapath; first: %s", bad, set.Len(), first)
			}
			t.Logf("%d vectors (%d nodes) bit-exact", set.Len(), len(m.Nodes))
		})
	}
}

// BenchmarkEvaluatorUpdate measures the rtl evaluator (Go) on the
// combinational hpcc_update: updates per second.
func BenchmarkEvaluatorUpdate(b *testing.B) {
	cfg := hpcc.DefaultConfig()
	m, err := UpdateComb(cfg)
	if err != nil {
		b.Fatal(err)
	}
	set, err := vectors.GenerateHPCC(cfg, vectors.Options{Level: 1, Seed: 1, Count: 2000, NoJSONL: true})
	if err != nil {
		b.Fatal(err)
	}
	sim, err := rtl.NewSim(m)
	if err != nil {
		b.Fatal(err)
	}
	in := set.InputTable()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		iw := set.Input(i % set.Len())
		for k, f := range in.Fields {
			sim.SetInUint(k, fieldtable.Get(iw, f))
		}
		sim.Eval()
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}
