package cosim

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// notifyModel is the vector model of an Rx-HPCC receiver whose
// notification period P differs from T (the slides' Rx-HPCC page: P = 4.5
// us beside a longer T; cc/hpcc Config.NotifyPeriodNs), so the emitted
// hpcc_update's round compare uses P's constant, not T's.
func notifyModel(t testing.TB, e telemetry.Encoding, p uint32) *vectors.HPCC {
	t.Helper()
	c := hpcc.DefaultConfigFor(e)
	c.Mode = hpcc.Receiver
	c.NotifyPeriodNs = p
	if c.NotifyPeriod() == c.BaseRTTNs {
		t.Fatalf("NotifyPeriod() = T = %d: the test needs P != T", c.BaseRTTNs)
	}
	m, err := vectors.NewHPCC(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUpdateNotifyPeriod co-simulates hpcc_update of receivers with a
// notification period P != T (IFA, P = T/2, under Verilator after lint;
// Compact, P = 4500 ns, under Icarus with idle gaps) on every level-1
// class plus random vectors. The expected outputs are the golden
// datapath's, which opens a round after P: zero mismatches.
func TestUpdateNotifyPeriod(t *testing.T) {
	cases := []struct {
		name  string
		enc   telemetry.Encoding
		p     func(c hpcc.Config) uint32
		sim   verilog.Simulator
		flows []verilog.Flow
		gap   int
	}{
		{"verilator_ifa_half_T", telemetry.IFA, func(c hpcc.Config) uint32 { return c.BaseRTTNs / 2 }, verilog.Verilator, []verilog.Flow{verilog.FlowVerilator, verilog.FlowLint}, 0},
		{"icarus_compact_4500", telemetry.Compact, func(hpcc.Config) uint32 { return 4500 }, verilog.Icarus, []verilog.Flow{verilog.FlowIcarus}, 2},
	}
	for _, k := range cases {
		t.Run(k.name, func(t *testing.T) {
			needTools(t, k.flows...)
			p := k.p(hpcc.DefaultConfigFor(k.enc))
			m := notifyModel(t, k.enc, p)
			rep, err := Run(context.Background(), Options{Model: m, Stages: 2, Simulator: k.sim,
				Level: 1, Seed: 5, Count: 3000, WorkDir: t.TempDir(), CacheDir: buildCache,
				Lint: k.sim == verilog.Verilator, Gap: k.gap})
			if err != nil {
				t.Fatal(err)
			}
			if err := rep.Err(); err != nil {
				t.Fatal(err)
			}
			if rep.Vectors == 0 {
				t.Fatal("no vectors run")
			}
			t.Logf("%s, P = %d ns: %d vectors passed", k.name, p, rep.Vectors)
		})
	}
}
