package cosim

import (
	"context"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog"
)

// multiQModel is the vector model of a MultiQ configuration (the slides'
// per-class U, docs/datapath.md section 5a) with its MultiQ classes
// (vectors/hpcc_multiq.go).
func multiQModel(t testing.TB, e telemetry.Encoding, mode hpcc.Mode, w, bl float64) *vectors.HPCC {
	t.Helper()
	c := hpcc.DefaultConfigFor(e)
	c.Mode = mode
	c.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: w, BacklogBytes: bl}
	m, err := vectors.NewHPCC(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkMultiQClasses fails unless the run's set holds vectors of every
// MultiQ class of the model.
func checkMultiQClasses(t *testing.T, m *vectors.HPCC, rep *Report) {
	t.Helper()
	got := map[string]int64{}
	for _, c := range rep.Classes {
		got[c.Name] = c.Count
	}
	n := 0
	for _, c := range m.Classes() {
		if len(c.Name) > 3 && c.Name[:3] == "mq_" {
			n++
			if got[c.Name] == 0 {
				t.Errorf("MultiQ class %s has no vectors in the run", c.Name)
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d MultiQ classes", n)
	}
}

// TestUpdateMultiQVerilator co-simulates the pipelined hpcc_update of a
// MultiQ configuration (IFA sender, w = 0.4, 1500-byte backlog threshold)
// under Verilator on every level-2 directed class (the MultiQ classes
// among them) plus random vectors, after lint (verilator -Wall); the
// expected outputs are the golden datapath's. Zero mismatches. (Yosys
// synthesis of MultiQ runs on a reduced configuration in
// rtl/hpccrtl/synthtest, as for the single-class module.)
func TestUpdateMultiQVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowLint)
	m := multiQModel(t, telemetry.IFA, hpcc.Sender, 0.4, 1500)
	rep, err := Run(context.Background(), Options{Model: m, Stages: 3, Simulator: verilog.Verilator,
		Level: 2, Seed: 1, Count: 20000, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkMultiQClasses(t, m, rep)
	t.Logf("verilator MultiQ: %d vectors passed (build %v, simulation %v)", rep.Vectors, rep.BuildTime, rep.RunTime)
}

// TestUpdateMultiQIcarus co-simulates hpcc_update of a Compact receiver
// MultiQ configuration (w = 0.25, zero backlog threshold) under Icarus on
// every level-1 class plus random vectors, with idle gaps. Zero
// mismatches.
func TestUpdateMultiQIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	m := multiQModel(t, telemetry.Compact, hpcc.Receiver, 0.25, 0)
	rep, err := Run(context.Background(), Options{Model: m, Stages: 2, Simulator: verilog.Icarus,
		Level: 1, Seed: 2, Count: 1500, WorkDir: t.TempDir(), CacheDir: buildCache, Gap: 3})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkMultiQClasses(t, m, rep)
	t.Logf("icarus MultiQ: %d vectors passed", rep.Vectors)
}

// sojournModel is the vector model of a Sojourn configuration (draft 9.4:
// the queue term from the IFA residence time, docs/datapath.md section 5b)
// with its sojourn classes (vectors/hpcc_sojourn.go).
func sojournModel(t testing.TB, mode hpcc.Mode) *vectors.HPCC {
	t.Helper()
	c := hpcc.DefaultConfig()
	c.Mode = mode
	c.Sojourn = true
	m, err := vectors.NewHPCC(c)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// checkSojournClasses fails unless the run's set holds vectors of at least
// six sojourn classes.
func checkSojournClasses(t *testing.T, rep *Report) {
	t.Helper()
	n := 0
	for _, cc := range rep.Classes {
		if len(cc.Name) > 8 && cc.Name[:8] == "sojourn_" && cc.Count > 0 {
			n++
		}
	}
	if n < 6 {
		t.Errorf("only %d sojourn classes with vectors", n)
	}
}

// TestUpdateSojournVerilator co-simulates the pipelined hpcc_update of a
// Sojourn configuration (IFA receiver, the Rx-HPCC side, so that with
// TestUpdateSojournIcarus's sender both modes are covered) under Verilator
// on every level-2 directed class (the sojourn classes among them) plus
// random vectors, after lint (verilator -Wall); the expected outputs are
// the golden datapath's. Zero mismatches. (Yosys synthesis of Sojourn runs
// on a reduced configuration in rtl/hpccrtl/synthtest.)
func TestUpdateSojournVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowLint)
	m := sojournModel(t, hpcc.Receiver)
	rep, err := Run(context.Background(), Options{Model: m, Stages: 3, Simulator: verilog.Verilator,
		Level: 2, Seed: 4, Count: 20000, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkSojournClasses(t, rep)
	t.Logf("verilator sojourn: %d vectors, %d mismatches (build %v, simulation %v)", rep.Vectors, rep.Failed, rep.BuildTime, rep.RunTime)
}

// TestUpdateSojournIcarus co-simulates hpcc_update of a Sojourn
// configuration (draft 9.4: the queue term from the IFA residence time;
// IFA sender) under Icarus on every level-1 class (the sojourn classes of
// vectors/hpcc_sojourn.go among them) plus random vectors. Zero mismatches.
func TestUpdateSojournIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	m := sojournModel(t, hpcc.Sender)
	rep, err := Run(context.Background(), Options{Model: m, Stages: 2, Simulator: verilog.Icarus,
		Level: 1, Seed: 3, Count: 1500, WorkDir: t.TempDir(), CacheDir: buildCache, Gap: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkSojournClasses(t, rep)
	t.Logf("icarus sojourn: %d vectors passed", rep.Vectors)
}
