package llvmir

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// hpccConfigs are the configurations the compiled model is checked in: the
// default (sender, IFA telemetry), Compact telemetry, and the receiver with
// dynamic W_ai (a third reciprocal unit and the time-based commit), the
// same three rtl/hpccrtl checks its description in.
//
// Each is lowered with a different guard threshold (see Options.GuardMin),
// so the golden vectors check the default, every-mux-guarded and
// straight-line lowerings alike.
func hpccConfigs() []struct {
	name     string
	cfg      hpcc.Config
	guardMin int
} {
	rx := hpcc.DefaultConfig()
	rx.Mode = hpcc.Receiver
	rx.DynamicWAI = true
	mq := hpcc.DefaultConfig()
	mq.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	sj := hpcc.DefaultConfig()
	sj.Sojourn = true
	return []struct {
		name     string
		cfg      hpcc.Config
		guardMin int
	}{
		{"sender_ifa", hpcc.DefaultConfig(), 0},
		{"sender_compact", hpcc.DefaultConfigFor(telemetry.Compact), 1},
		{"receiver_ifa", rx, -1},
		// MultiQ (issue 17): the slides' per-class U; its set carries the
		// MultiQ classes of vectors/hpcc_multiq.go.
		{"sender_ifa_multiq", mq, 0},
		// Sojourn (issue 17, draft 9.4): the queue term from the residence time.
		{"sender_ifa_sojourn", sj, 1},
	}
}

// buildHPCC lowers hpccrtl.UpdateComb(cfg) with the flow-update groups and
// guard threshold guardMin and builds its check program at -O2.
func buildHPCC(t testing.TB, tools Tools, cfg hpcc.Config, guardMin int) (*Model, string) {
	t.Helper()
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return emitBuild(t, tools, m, Options{Groups: FlowUpdateGroups(), GuardMin: guardMin}, "-O2")
}

// defaultHPCC is the default configuration's model, built once per test
// binary (in sharedDir) for the tests that only read it.
var defaultHPCC struct {
	once sync.Once
	md   *Model
	prog string
	err  error
}

func sharedHPCC(t testing.TB, tools Tools) (*Model, string) {
	t.Helper()
	defaultHPCC.once.Do(func() {
		dir, err := sharedSubdir("hpcc_default")
		if err != nil {
			defaultHPCC.err = err
			return
		}
		m, err := hpccrtl.UpdateComb(hpcc.DefaultConfig())
		if err != nil {
			defaultHPCC.err = err
			return
		}
		md, err := Lower(m, Options{Groups: FlowUpdateGroups()})
		if err != nil {
			defaultHPCC.err = err
			return
		}
		if _, err := Emit(dir, md); err != nil {
			defaultHPCC.err = err
			return
		}
		ctx := context.Background()
		if err := tools.Verify(ctx, dir, md); err != nil {
			defaultHPCC.err = err
			return
		}
		defaultHPCC.md = md
		defaultHPCC.prog, defaultHPCC.err = tools.Build(ctx, dir, md, "-O2")
	})
	if defaultHPCC.err != nil {
		t.Fatal(defaultHPCC.err)
	}
	return defaultHPCC.md, defaultHPCC.prog
}

// TestHPCCUpdateGoldenVectors compiles the LLVM IR of hpcc_update with
// clang and runs a golden vector set through both C entries of the check
// program: every level-1 and level-2 directed corner class plus
// constrained-random vectors. Expected outputs come from the vectors
// package, i.e. the hand-written golden datapath cc/hpcc.Datapath.Update,
// which the Verilog co-simulation is checked against too.
func TestHPCCUpdateGoldenVectors(t *testing.T) {
	tools := needTools(t)
	for i, c := range hpccConfigs() {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			n := int64(20000)
			if i == 0 {
				n = 100000
			}
			if testing.Short() {
				n = 3000
			}
			var md *Model
			var prog string
			if i == 0 {
				md, prog = sharedHPCC(t, tools)
			} else {
				md, prog = buildHPCC(t, tools, c.cfg, c.guardMin)
			}
			set, err := vectors.GenerateHPCC(c.cfg, vectors.Options{Level: 2, Seed: 1, Count: n, NoJSONL: true})
			if err != nil {
				t.Fatal(err)
			}
			// The set holds every directed class of the model.
			h, err := vectors.NewHPCC(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]int64{}
			for _, cc := range set.Manifest.Classes {
				have[cc.Name] = cc.Total
			}
			for _, cl := range h.Classes() {
				if have[cl.Name] == 0 {
					t.Fatalf("vector set has no vector of directed class %s", cl.Name)
				}
			}
			// The thresholds took effect: guards by default, none when off.
			if (c.guardMin >= 0) != (md.Guards > 0) {
				t.Fatalf("GuardMin=%d: %d guarded mux arms", c.guardMin, md.Guards)
			}
			// The port layout is the vectors' field-table layout.
			if md.InBits != set.InputTable().Width || md.OutBits != set.OutputTable().Width {
				t.Fatalf("packed widths %d/%d, vector tables %d/%d", md.InBits, md.OutBits, set.InputTable().Width, set.OutputTable().Width)
			}
			dir := t.TempDir()
			if err := set.Write(dir); err != nil {
				t.Fatal(err)
			}
			res, err := Check(context.Background(), prog, filepath.Join(dir, "stimulus.hex"), filepath.Join(dir, "expected.hex"))
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != 0 || res.Passed != set.Len() {
				t.Fatalf("%d passed, %d failed of %d vectors:\n%s", res.Passed, res.Failed, set.Len(), res.Report)
			}
			t.Logf("%s: %d vectors (%d classes + random) bit-exact through the C and DPI-C entries", c.name, res.Passed, len(h.Classes()))
		})
	}
}
