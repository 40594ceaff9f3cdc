package hpccrtl

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/verilog"
)

// TestModuleEvaluatorVsModel runs hpcc_module in the rtl evaluator, with
// the generated testbench's protocol, on same-flow back-to-back, interleaved
// and mixed streams, for update pipelines of 0..3 stages, and checks every
// update against the Go module model (the golden datapath applied per flow
// in order) and the stall count against the documented rule (Schedule).
func TestModuleEvaluatorVsModel(t *testing.T) {
	n := 1500
	if testing.Short() {
		n = 400
	}
	cfg := hpcc.DefaultConfig()
	for _, stages := range []int{0, 1, 3} {
		for _, kind := range []StreamKind{SameFlow, Interleaved, Mixed} {
			t.Run(fmt.Sprintf("stages%d_%s", stages, kind), func(t *testing.T) {
				opts := ModuleOptions{Stages: stages, FlowBits: 4}
				m, err := Module(cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				mm, err := NewModuleModel(cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				events, err := Stream(cfg, opts, kind, n, int64(stages)*10+int64(len(kind)))
				if err != nil {
					t.Fatal(err)
				}
				stim, exp, err := mm.Vectors(events)
				if err != nil {
					t.Fatal(err)
				}
				in, out := mm.Tables()
				b := verilog.Bench{DUT: m, In: in, Out: out, ValidIn: EvValid, ValidOut: UpdValid, Ready: EvReady}
				res, err := b.Evaluate(stim, exp, 0)
				if err != nil {
					t.Fatal(err)
				}
				if res.Failed != 0 || res.Passed != n {
					t.Fatalf("%d passed, %d failed; first: %s", res.Passed, res.Failed, res.First)
				}
				flows := make([]uint32, n)
				for i, ev := range events {
					flows[i] = ev.Flow
				}
				if want := opts.Schedule(flows, 0); res.Stalls != want {
					t.Fatalf("stall cycles %d, want %d (same-flow spacing %d)", res.Stalls, want, opts.SameFlowSpacing())
				}
				t.Logf("%d events, %d stall cycles, %d cycles", n, res.Stalls, res.Cycles)
			})
		}
	}
}
