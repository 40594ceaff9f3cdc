package hpcc_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// batchConfigs are the configuration kinds of the golden vector sets: both
// encodings in both modes, dynamic W_ai, MultiQ (a weight that quantizes
// exactly and one that does not, a zero backlog threshold) and sojourn.
type batchConfig struct {
	name string
	cfg  hpcc.Config
}

func batchConfigs() []batchConfig {
	var cs []batchConfig
	for _, e := range telemetry.Encodings() {
		c := hpcc.DefaultConfigFor(e)
		cs = append(cs, batchConfig{e.String() + "/sender", c})
		r := c
		r.Mode = hpcc.Receiver
		cs = append(cs, batchConfig{e.String() + "/receiver", r})
		r.DynamicWAI = true
		cs = append(cs, batchConfig{e.String() + "/receiver-dynwai", r})
		m := c
		m.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
		cs = append(cs, batchConfig{e.String() + "/multiq-w0.4", m})
		m.Mode = hpcc.Receiver
		m.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.25}
		cs = append(cs, batchConfig{e.String() + "/multiq-receiver-w0.25-bl0", m})
	}
	s := hpcc.DefaultConfig()
	s.Sojourn = true
	cs = append(cs, batchConfig{"ifa/sojourn", s})
	s.Mode = hpcc.Receiver
	return append(cs, batchConfig{"ifa/sojourn-receiver", s})
}

// goldenEvents returns the (state, event) pairs of the hpcc_update vector
// set of cfg: every level-1 directed class, then nRandom constrained-random
// vectors of seed 1, unpacked from their packed inputs.
func goldenEvents(t *testing.T, cfg hpcc.Config, nRandom int64) ([]hpcc.State, []hpcc.Input) {
	t.Helper()
	m, err := vectors.NewHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := m.Datapath()
	var sts []hpcc.State
	var ins []hpcc.Input
	add := func(word []uint64) error {
		st, in, err := d.UnpackInput(word)
		if err != nil {
			return err
		}
		sts, ins = append(sts, st), append(ins, in)
		return nil
	}
	if err := m.Directed(1, func(_ int, word []uint64) error { return add(word) }); err != nil {
		t.Fatal(err)
	}
	words, err := vectors.RandomInputs(m, 1, nil, nRandom, 0, nRandom)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range words {
		if err := add(w); err != nil {
			t.Fatal(err)
		}
	}
	return sts, ins
}

// TestUpdateBatchMatchesUpdate: UpdateBatch (and Step, which it runs) gives,
// for every vector of the level-1 set and of 100,000 random vectors of every
// configuration kind, the next state and outputs that Update gives for it
// alone, bit for bit. The oracle is Update, whose bits TestUpdateDigest pins
// (to a file written before the in-place form existed); the batches are of
// several sizes, so that an event reading a neighbour's state, or a state
// read after it was overwritten in place, shows.
func TestUpdateBatchMatchesUpdate(t *testing.T) {
	nRandom := int64(100000)
	if testing.Short() {
		nRandom = 10000
	}
	for _, bc := range batchConfigs() {
		cfg := bc.cfg
		t.Run(bc.name, func(t *testing.T) {
			d, err := hpcc.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			sts, ins := goldenEvents(t, cfg, nRandom)
			wantSt := make([]hpcc.State, len(ins))
			wantOut := make([]hpcc.Output, len(ins))
			for k := range ins {
				wantSt[k], wantOut[k] = d.Update(sts[k], ins[k])
			}
			for _, size := range []int{1, 7, len(ins)} {
				st := append([]hpcc.State(nil), sts...)
				out := make([]hpcc.Output, len(ins))
				for k := 0; k < len(ins); k += size {
					e := min(k+size, len(ins))
					if err := d.UpdateBatch(st[k:e], ins[k:e], out[k:e]); err != nil {
						t.Fatal(err)
					}
				}
				bad := 0
				for k := range ins {
					if st[k] != wantSt[k] || out[k] != wantOut[k] {
						if bad++; bad <= 3 {
							t.Errorf("batch size %d, vector %d: UpdateBatch = %+v %+v, Update = %+v %+v", size, k, st[k], out[k], wantSt[k], wantOut[k])
						}
					}
				}
				if bad > 0 {
					t.Fatalf("batch size %d: %d of %d vectors differ", size, bad, len(ins))
				}
			}
			// Step on the per-event API's own shape.
			for k := range ins {
				st, out := sts[k], hpcc.Output{}
				in := ins[k]
				d.Step(&st, &in, &out)
				if st != wantSt[k] || out != wantOut[k] || in != ins[k] {
					t.Fatalf("vector %d: Step = %+v %+v (input %v changed: %t), Update = %+v %+v", k, st, out, ins[k], in != ins[k], wantSt[k], wantOut[k])
				}
			}
			t.Logf("%d vectors (level 1 and %d random)", len(ins), nRandom)
		})
	}
}

// TestUpdateBatchLengths: a batch whose state or output slice is shorter
// than its events is refused, naming the lengths, and updates nothing.
func TestUpdateBatchLengths(t *testing.T) {
	d, err := hpcc.NewDatapath(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ins := make([]hpcc.Input, 3)
	for _, tc := range []struct{ nst, nout int }{{2, 3}, {3, 2}, {0, 0}} {
		st, out := make([]hpcc.State, tc.nst), make([]hpcc.Output, tc.nout)
		err := d.UpdateBatch(st, ins, out)
		want := fmt.Sprintf("hpcc: UpdateBatch: %d states and %d outputs for 3 events: need one of each per event", tc.nst, tc.nout)
		if err == nil || err.Error() != want {
			t.Errorf("UpdateBatch(%d states, 3 events, %d outputs) = %v, want %q", tc.nst, tc.nout, err, want)
		}
		for k := range st {
			if st[k] != (hpcc.State{}) {
				t.Errorf("refused batch changed state %d", k)
			}
		}
	}
	// Longer state and output slices are fine: the first len(in) are used.
	st, out := make([]hpcc.State, 5), make([]hpcc.Output, 4)
	if err := d.UpdateBatch(st, ins, out); err != nil {
		t.Fatal(err)
	}
	if !st[2].Valid || st[3].Valid || !out[2].First || out[3].First {
		t.Errorf("UpdateBatch touched entries beyond the events: %+v %+v", st[2:], out[2:])
	}
}

// BenchmarkUpdateBatchGoldenSet: UpdateBatch over the hpcc_update vector
// set of the default configuration (every level-1 class and 100,000
// random vectors: every hop count, invalid hops, first events, both
// branches), each vector's own state and event, in batches of 4096; an op
// is one vector. The metric cpu-ns/op counts the benchmark thread's CPU
// time in UpdateBatch only (not the copy that restores the states before
// each pass), so it compares with the per-vector CPU time of a simulator
// running the same set (docs/datapath.md, "Speed").
func BenchmarkUpdateBatchGoldenSet(b *testing.B) {
	cfg := hpcc.DefaultConfig()
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		b.Fatal(err)
	}
	benchGoldenSet(b, cfg, d.UpdateBatch)
}

// BenchmarkUpdateBatchGenGoldenSet: BenchmarkUpdateBatchGoldenSet through
// the generated Default model of gogen/hpccgo (its UpdateBatch).
func BenchmarkUpdateBatchGenGoldenSet(b *testing.B) {
	cfg := hpcc.DefaultConfig()
	benchGoldenSet(b, cfg, genModel(b, cfg).UpdateBatch)
}

// benchGoldenSet is BenchmarkUpdateBatchGoldenSet's loop over batch, an
// UpdateBatch of configuration cfg.
func benchGoldenSet(b *testing.B, cfg hpcc.Config, batchFn func([]hpcc.State, []hpcc.Input, []hpcc.Output) error) {
	t := &testing.T{}
	sts, ins := goldenEvents(t, cfg, 100000)
	if t.Failed() {
		b.Fatal("building the vector set failed")
	}
	st := make([]hpcc.State, len(sts))
	out := make([]hpcc.Output, len(ins))
	const batch = 4096
	runtime.LockOSThread() // the thread CPU clock measures this goroutine only while it keeps its thread
	defer runtime.UnlockOSThread()
	b.ReportAllocs()
	b.ResetTimer()
	var cpu int64
	for n := 0; n < b.N; {
		b.StopTimer()
		copy(st, sts)
		b.StartTimer()
		for k := 0; k < len(ins) && n < b.N; k += batch {
			e := min(k+batch, len(ins), k+b.N-n)
			t0 := hpcc.ThreadCPUNs()
			if err := batchFn(st[k:e], ins[k:e], out[k:e]); err != nil {
				b.Fatal(err)
			}
			cpu += hpcc.ThreadCPUNs() - t0
			n += e - k
		}
	}
	if cpu > 0 {
		b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	}
}
