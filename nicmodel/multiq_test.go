package nicmodel

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// mqConfig is cc=hpcc with MultiQ and two classes of weights 0.75 and
// 0.25.
func mqConfig() Config {
	c := testConfig(CCHPCC)
	c.HPCC.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 1, BacklogBytes: 1500}
	c.MultiQClassWeights = []float64{0.75, 0.25}
	return c
}

// Per-class MultiQ through the NIC: flows opened in classes 0 and 1 on
// QPs 1 and 2 run the update with their class's weight, in both models.
// Oracles: the golden datapath (model fixed: hpcc.NewDatapath with
// class_weight 0.75, resp. 0.25, bit for bit) and the float reference
// (model float, each W quantized as the module does), each replayed on
// its QP's telemetry events alone; the two classes must also differ (the
// weight is used).
func TestMultiQClassesPerFlow(t *testing.T) {
	for _, model := range []Model{Fixed, Float} {
		cfg := mqConfig()
		cfg.Model = model
		nic, err := New(cfg, mqQPs(), Options{Name: "A"})
		if err != nil {
			t.Fatal(err)
		}
		for q, class := range map[wire.QPN]int{1: 0, 2: 1} {
			if _, err := nic.OpenFlow(FlowSpec{QPN: q, Bytes: 64_000, Class: class}); err != nil {
				t.Fatal(err)
			}
		}
		h := nic.senderClasses()
		if h == nil || len(h.classCores) != 2 || h.class[1] != 0 || h.class[2] != 1 {
			t.Fatalf("%v: classes not wired: %+v", model, h)
		}
		refs := map[wire.QPN]*hpcc.Reference{}
		dps := map[wire.QPN]*hpcc.Datapath{}
		rsts := map[wire.QPN]hpcc.RefState{}
		fsts := map[wire.QPN]hpcc.State{}
		for q, w := range map[wire.QPN]float64{1: 0.75, 2: 0.25} {
			c := cfg.HPCC
			c.MultiQ.ClassWeight = w
			refs[q] = must(hpcc.NewReference(c))(t)
			rsts[q] = refs[q].InitialState()
			dps[q] = must(hpcc.NewDatapath(c))(t)
		}
		fW := cfg.HPCC.Formats.W
		differ := false
		for k := 0; k < 40; k++ {
			var ws [3]uint64
			for _, q := range []wire.QPN{1, 2} {
				ev := mqEvent(t, q, wire.PSN(k), k)
				var e inflight
				// Drive the algorithm as the module does: issue, then commit.
				h.issue(engine.Cycle(k), q, 0, uint64(k+1), 64, &ev, &e)
				e.qpn = q
				h.commit(&e)
				in := hpcc.Input{Seq: uint64(k + 1), SndNxt: 64, NHops: 1, Hops: ev.Hops}
				var want uint64
				if model == Fixed {
					next, out := dps[q].Update(fsts[q], in)
					fsts[q], want = next, out.W
				} else {
					next, out := refs[q].Update(rsts[q], in)
					rsts[q], want = next, quantize(out.W, fW.F(), h.core.wMax)
				}
				if e.out.w != want {
					t.Fatalf("%v: event %d QP %d: W %d, want %d (class weight of QP %d)", model, k, q, e.out.w, want, q)
				}
				ws[q] = e.out.w
			}
			differ = differ || ws[1] != ws[2]
		}
		if !differ {
			t.Errorf("%v: both classes gave the same windows: the class weight had no effect", model)
		}
	}
}

// mqEvent is ackEvent on a link whose class drains at about 44 Gbit/s
// (500 bytes per 90 ns): within class 0's guarantee (75 of 100 Gbit/s,
// the slides' first case of U) and above class 1's (25: the second or
// third case), so the two classes' U differ.
func mqEvent(t testing.TB, q wire.QPN, psn wire.PSN, k int) pipeline.Event {
	ev := ackEvent(t, q, psn, k)
	h := must(telemetry.FromPhysical(telemetry.IFA, telemetry.Physical{SwitchID: 5, PortID: 2, SpeedGbps: 100,
		TsNs: uint64(1000 + 90*k), TxBytes: uint64(1_000_000 + 500*k), QlenBytes: uint64((k * 7919) % 60000)}))(t)
	ev.Hops[0] = h
	return ev
}

// mqQPs is the QP context table of a NIC with QPs 1..3.
func mqQPs() []pipeline.FlowContext {
	a, _ := qpPair(3)
	return a
}

// Configuration and OpenFlow errors of MultiQ classes name the field.
func TestMultiQClassErrors(t *testing.T) {
	bad := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.HPCC.MultiQ.Enabled = false }, "needs hpcc.multiq.enabled"},
		{func(c *Config) { c.MultiQClassWeights = []float64{0.5, 0} }, "multiq_class_weights[1]=0"},
		{func(c *Config) { c.MultiQClassWeights = make([]float64, 9) }, "9 classes"},
	}
	for _, b := range bad {
		c := mqConfig()
		b.mod(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("err = %v, want %q", err, b.want)
		}
	}
	nic, err := New(mqConfig(), mqQPs(), Options{Name: "A"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nic.OpenFlow(FlowSpec{QPN: 1, Bytes: 10, Class: 2}); err == nil || !strings.Contains(err.Error(), "Class=2: must be in [0,2)") {
		t.Errorf("class 2: err = %v", err)
	}
	if _, err := nic.OpenFlow(FlowSpec{QPN: 1, Bytes: 10, Class: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := nic.OpenFlow(FlowSpec{QPN: 1, Bytes: 10, Class: 0}); err == nil || !strings.Contains(err.Error(), "has flows open in class 1") {
		t.Errorf("second class on a QP: err = %v", err)
	}
	plain, err := New(testConfig(CCHPCC), mqQPs(), Options{Name: "B"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.OpenFlow(FlowSpec{QPN: 1, Bytes: 10, Class: 1}); err == nil || !strings.Contains(err.Error(), "Class=1: must be in [0,1)") {
		t.Errorf("no classes: err = %v", err)
	}
}
