package cosim

import (
	"context"
	"fmt"
	"github.com/hpccgold/hpccgold/vectors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/verilog"
)

// checkLDCPClasses fails the test if a directed class of the LDCP vector
// model up to level has no vector in the set that was co-simulated.
func checkLDCPClasses(t *testing.T, rep *Report, level int) {
	t.Helper()
	directed := 0
	for _, c := range rep.Classes {
		if c.Level == 0 || c.Level > level {
			continue
		}
		directed++
		if c.Count == 0 {
			t.Errorf("directed class %s has no vectors in the set", c.Name)
		}
	}
	if directed < 30 {
		t.Errorf("only %d directed classes in the set", directed)
	}
}

// TestLDCPVerilator lints ldcp_update (3 stages; verilator --lint-only
// -Wall must be clean; Yosys runs in rtl/ldcprtl/synthtest) and
// co-simulates it under Verilator on every
// level-1 and level-2 directed class of the LDCP vector model plus 40k
// constrained-random vectors; the expected outputs are the golden
// datapath's (cc/ldcp through ldcpvec).
func TestLDCPVerilator(t *testing.T) {
	needTools(t, verilog.FlowVerilator, verilog.FlowLint)
	rep, err := Run(context.Background(), Options{Model: mustLDCPModel(t, ldcp.DefaultConfig()), Stages: 3,
		Simulator: verilog.Verilator, Level: 2, Seed: 1, Count: 40000, WorkDir: t.TempDir(), CacheDir: buildCache, Lint: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkLDCPClasses(t, rep, 2)
	if rep.Vectors < 40000 {
		t.Fatalf("only %d vectors", rep.Vectors)
	}
	t.Logf("verilator: %d vectors passed in %v (%.0f vectors/s simulated, %.0f end to end), build %v (cached %v)",
		rep.Vectors, rep.RunTime, rep.SimRate, rep.VectorsPerSecond(), rep.BuildTime, rep.Cached)
}

// ldcpMutation is one deliberate bug planted in the emitted ldcp_update.v.
type ldcpMutation struct {
	name, what string
	re         *regexp.Regexp
	repl       func(sub []string) string
}

// ldcpMutations returns one constant, one rounding and one compare
// mutation of the emitted RTL for cfg, each a plausible hand-written bug.
// The rounding mutant targets the AI increment n*alpha*recip_cw -> Cw
// (Rnd), whose rounding increment is bit F(Param)+F(RecipCw)-F(Cw)-1 of
// the product. (A one-LSB error in a 1/cw ROM entry is not a useful mutant:
// the Newton-Raphson step squares the table error away and no output
// changes.)
func ldcpMutations(cfg ldcp.Config) []ldcpMutation {
	f := cfg.Formats
	incBit := f.Param.F() + f.RecipCw.F() - f.Cw.F() - 1
	return []ldcpMutation{
		{"constant", "the ECN-capable threshold IW-1 becomes IW (the IW-th fast-start packet goes out ECN-incapable)",
			regexp.MustCompile(`(wire ect_iw\w* = [^;]*>= \d+'h)([0-9a-f]+);`),
			func(s []string) string {
				v, _ := strconv.ParseUint(s[2], 16, 64)
				return fmt.Sprintf("%s%0*x;", s[1], len(s[2]), v+1)
			}},
		{"rounding", "the AI increment's round half up becomes truncation (its rounding increment forced to 0)",
			regexp.MustCompile(fmt.Sprintf(`(wire rnd_inc\w* = )(n_\d+\[%d\]);`, incBit)),
			func(s []string) string { return s[1] + "1'b0;" }},
		{"compare", "window check inflight < floor(cw) becomes <=",
			regexp.MustCompile(`(wire win_ok\w* = [^;<]+)<([^;]+;)`),
			func(s []string) string { return s[1] + "<=" + s[2] }},
	}
}

func (mu ldcpMutation) apply(src string) (string, error) {
	loc := mu.re.FindStringSubmatchIndex(src)
	if loc == nil {
		return "", fmt.Errorf("pattern %s not found", mu.re)
	}
	var sub []string
	for i := 0; i < len(loc); i += 2 {
		sub = append(sub, src[loc[i]:loc[i+1]])
	}
	return src[:loc[0]] + mu.repl(sub) + src[loc[1]:], nil
}

// TestLDCPIcarus co-simulates ldcp_update (2 stages) under Icarus Verilog
// on every level-1 directed class plus a random sample, with an idle cycle
// after every 5 transactions so the valid handshake is exercised. Then it
// plants each of ldcpMutations in the emitted RTL and checks that every
// mutant fails co-simulation on the same vectors (Icarus: a rebuild takes
// a fraction of a second, a Verilator one many seconds).
func TestLDCPIcarus(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	tools := verilog.LookupTools()
	ctx := context.Background()
	work := t.TempDir()
	opts := Options{Model: mustLDCPModel(t, ldcp.DefaultConfig()), Stages: 2, Simulator: verilog.Icarus,
		Level: 1, Seed: 2, Count: 2000, WorkDir: work, CacheDir: buildCache, Gap: 5}
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	checkLDCPClasses(t, rep, 1)
	t.Logf("icarus: %d vectors passed in %v (%.0f vectors/s simulated), build %v", rep.Vectors, rep.RunTime, rep.SimRate, rep.BuildTime)

	entries, err := os.ReadDir(rep.Dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string // compile order: the DUT, then the testbench
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".v") && !strings.HasPrefix(e.Name(), "tb_") {
			files = append(files, e.Name())
		}
	}
	files = append(files, "tb_ldcp_update.v")
	orig, err := os.ReadFile(filepath.Join(rep.Dir, "ldcp_update.v"))
	if err != nil {
		t.Fatal(err)
	}
	stim, exp := filepath.Join(work, "vectors", "stimulus.hex"), filepath.Join(work, "vectors", "expected.hex")
	for _, mu := range ldcpMutations(ldcp.DefaultConfig()) {
		mutated, err := mu.apply(string(orig))
		if err != nil {
			t.Fatalf("mutation %s: %v", mu.name, err)
		}
		mdir := filepath.Join(work, "mut_"+mu.name)
		if err := os.MkdirAll(mdir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(filepath.Join(rep.Dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if f == "ldcp_update.v" {
				data = []byte(mutated)
			}
			if err := os.WriteFile(filepath.Join(mdir, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		b, err := tools.Compile(ctx, verilog.Icarus, mdir, buildCache, "tb_ldcp_update", files, maxVec(rep.Vectors))
		if err != nil {
			t.Fatal(err)
		}
		res, err := b.Run(ctx, stim, exp, rep.Vectors, 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Failed == 0 {
			t.Errorf("mutation %s (%s): co-simulation still passes (%d vectors)", mu.name, mu.what, res.Passed)
		} else {
			t.Logf("mutation %s (%s): %d of %d vectors fail", mu.name, mu.what, res.Failed, rep.Vectors)
		}
	}
}

// TestLDCPLockstep drives ldcp_update under Icarus transaction by
// transaction from Go: the first 300 vectors of a golden set match; with
// vector 57's expected ns_cw corrupted by one LSB the run stops exactly
// there and marks ns_cw.
func TestLDCPLockstep(t *testing.T) {
	needTools(t, verilog.FlowIcarus)
	work := t.TempDir()
	opts := Options{Model: mustLDCPModel(t, ldcp.DefaultConfig()), Stages: 1, Simulator: verilog.Icarus, Level: 1, Seed: 4,
		Count: 400, Limit: 300, WorkDir: work, CacheDir: buildCache}
	rep, err := RunLockstep(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Diverged || rep.Vectors != 300 {
		var b strings.Builder
		rep.Write(&b)
		t.Fatalf("%d vectors: %s", rep.Vectors, b.String())
	}
	d, err := ldcp.NewDatapath(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	out := d.OutputTable()
	path := filepath.Join(work, "vectors", "expected.hex")
	lines, err := verilog.ReadVectors(path, out, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := out.Fields[out.Index("ns_cw")]
	fieldtable.PutBits(lines[57], f.Offset, f.Width, fieldtable.Get(lines[57], f)^1)
	var buf []byte
	for _, l := range lines {
		buf = append(out.AppendHex(buf, l), '\n')
	}
	if err := os.WriteFile(path, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Vectors = filepath.Join(work, "vectors")
	rep, err = RunLockstep(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	rep.Write(&b)
	if !rep.Diverged || rep.Index != 57 || !strings.Contains(b.String(), "ns_cw") || !strings.Contains(b.String(), "<-- differs") {
		t.Fatalf("want a divergence at vector 57 in ns_cw, got:\n%s", b.String())
	}
}

// TestLDCPVectorsMismatch: an HPCC++ vector set, or an LDCP set made with
// another configuration, is rejected before any simulation.
func TestLDCPVectorsMismatch(t *testing.T) {
	work := t.TempDir()
	opts := Options{Model: mustLDCPModel(t, ldcp.DefaultConfig()), Stages: 1, Simulator: verilog.Icarus, Level: 1, Seed: 1,
		Count: 10, WorkDir: work}
	if _, _, _, err := vectorSetFor(&opts, opts.Model); err != nil {
		t.Fatal(err)
	}
	other := ldcp.DefaultConfig()
	other.Gamma = 1.0 / 16
	opts.Vectors = filepath.Join(work, "vectors")
	if _, _, _, err := vectorSetFor(&opts, mustLDCPModel(t, other)); err == nil || !strings.Contains(err.Error(), "another configuration") {
		t.Fatalf("set of another configuration: err = %v", err)
	}
	hopts := Options{Model: hpccModel(t), Level: 1, Count: 10, WorkDir: t.TempDir()}
	if _, _, _, err := vectorSetFor(&hopts, hopts.Model); err != nil {
		t.Fatal(err)
	}
	opts.Vectors = filepath.Join(hopts.WorkDir, "vectors")
	if _, _, _, err := vectorSetFor(&opts, opts.Model); err == nil || !strings.Contains(err.Error(), `model "hpcc_update"`) {
		t.Fatalf("HPCC++ set: err = %v", err)
	}
}

func mustLDCPModel(t testing.TB, cfg ldcp.Config) *ldcpvec.Model {
	t.Helper()
	m, err := ldcpvec.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var (
	ldcpBenchOnce    sync.Once
	ldcpBenchVectors string
	ldcpBenchBuild   float64 // seconds of the uncached build, kept across the benchmark's b.N rounds
)

// BenchmarkVerilatorLDCP: the Verilated ldcp_update (3 stages) on every
// level-2 directed class plus 200k random vectors; reports simulated
// vectors per second (after $readmemh), end-to-end vectors per second and
// the build time of the first (uncached) build.
func BenchmarkVerilatorLDCP(b *testing.B) {
	if err := verilog.LookupTools().Need(verilog.FlowVerilator, verilog.FlowIcarus); err != nil {
		b.Skip(err)
	}
	cfg := ldcp.DefaultConfig()
	ldcpBenchOnce.Do(func() {
		dir := filepath.Join(buildCache, "bench-ldcp")
		_, err := Run(context.Background(), Options{Model: mustLDCPModel(b, cfg), Stages: 3, Simulator: verilog.Icarus,
			Level: 2, Seed: 3, Count: 200000, WorkDir: dir, Limit: 1, CacheDir: buildCache})
		if err != nil {
			b.Fatal(err)
		}
		ldcpBenchVectors = filepath.Join(dir, "vectors")
	})
	work := b.TempDir()
	var simRate, e2e float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), Options{Model: mustLDCPModel(b, cfg), Stages: 3, Simulator: verilog.Verilator,
			Vectors: ldcpBenchVectors, WorkDir: work, CacheDir: buildCache})
		if err != nil {
			b.Fatal(err)
		}
		if err := rep.Err(); err != nil {
			b.Fatal(err)
		}
		simRate += rep.SimRate
		e2e += rep.VectorsPerSecond()
		if !rep.Cached {
			ldcpBenchBuild = rep.BuildTime.Seconds()
		}
	}
	b.ReportMetric(simRate/float64(b.N), "vectors/s")
	b.ReportMetric(e2e/float64(b.N), "vectors/s-e2e")
	if ldcpBenchBuild > 0 {
		b.ReportMetric(ldcpBenchBuild, "build-s")
	}
}

// hpccModel is the HPCC++ vector model of the default configuration.
func hpccModel(t testing.TB) *vectors.HPCC {
	t.Helper()
	m, err := vectors.NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return m
}
