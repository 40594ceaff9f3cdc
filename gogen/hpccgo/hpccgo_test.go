package hpccgo

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/gogen/hpccgo/internal/hpccsrc"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestGeneratedSourceIsCurrent: the checked-in generated files are byte for
// byte what the generator prints from today's rtl description, cc/hpcc
// Config and gogen, and there is no other generated model file. Run go
// generate (./internal/gen) to refresh them.
func TestGeneratedSourceIsCurrent(t *testing.T) {
	fs, err := hpccsrc.Files()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, f := range fs {
		want[f.Name] = true
		got, err := os.ReadFile(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.Data) {
			t.Errorf("%s differs from what the generator prints (%d vs %d bytes): run go generate ./gogen/hpccgo", f.Name, len(got), len(f.Data))
		}
	}
	on, err := filepath.Glob("update_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range on {
		if !want[f] && !strings.HasSuffix(f, "_test.go") {
			t.Errorf("%s is not printed by the generator any more: delete it", f)
		}
	}
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

// TestMatchesGolden: every generated model gives, on the level-1 directed
// vectors and 100,000 constrained-random vectors of its configuration, the
// next state and outputs of hpcc.Datapath.Update bit for bit, through Step,
// Update and UpdateBatch. The oracle is cc/hpcc's Update, pinned by its
// TestUpdateDigest.
func TestMatchesGolden(t *testing.T) {
	nRandom := int64(100000)
	if testing.Short() {
		nRandom = 10000
	}
	for _, md := range hpccsrc.Models() {
		t.Run(md.Name, func(t *testing.T) {
			g, ok := For(md.Config)
			if !ok || g.Name() != md.Name {
				t.Fatalf("For(config of %s) = %v, %t", md.Name, g, ok)
			}
			d, err := hpcc.NewDatapath(md.Config)
			if err != nil {
				t.Fatal(err)
			}
			sts, ins := goldenEvents(t, md.Config, nRandom)
			bst := append([]hpcc.State(nil), sts...)
			bout := make([]hpcc.Output, len(ins))
			if err := g.UpdateBatch(bst, ins, bout); err != nil {
				t.Fatal(err)
			}
			bad := 0
			for k := range ins {
				wst, wout := d.Update(sts[k], ins[k])
				gst, gout := g.Update(sts[k], ins[k])
				if gst != wst || gout != wout || bst[k] != wst || bout[k] != wout {
					if bad++; bad <= 3 {
						t.Errorf("vector %d: state %+v, event %+v:\ngenerated %+v %+v\nbatch     %+v %+v\ngolden    %+v %+v",
							k, sts[k], ins[k], gst, gout, bst[k], bout[k], wst, wout)
					}
				}
			}
			if bad > 0 {
				t.Fatalf("%d of %d vectors differ", bad, len(ins))
			}
			t.Logf("%d vectors (level 1 and %d random)", len(ins), nRandom)
		})
	}
}

// TestMatchesGoldenUnmasked: with a random flow-table state (every field
// random within its width, as the table stores it) and events whose fields
// are random 64-bit patterns (bits above the wire widths set, fields the
// datapath ignores filled), the generated models give Update's results:
// both read each event field masked to its width. Oracle:
// hpcc.Datapath.Update.
func TestMatchesGoldenUnmasked(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 1))
	for _, md := range hpccsrc.Models() {
		g, _ := For(md.Config)
		d, err := hpcc.NewDatapath(md.Config)
		if err != nil {
			t.Fatal(err)
		}
		word := make([]uint64, d.InputTable().Words())
		for k := 0; k < 20000; k++ {
			for i := range word {
				word[i] = r.Uint64()
			}
			st, _, err := d.UnpackInput(word)
			if err != nil {
				t.Fatal(err)
			}
			var in hpcc.Input
			in.Seq, in.SndNxt, in.NowNs, in.NFlows = r.Uint64(), r.Uint64(), r.Uint64(), r.Uint32()
			in.NHops = uint8(r.Uint32())
			if k%2 == 0 { // a path whose hop count matches the stored one, so hops measure
				in.NHops = st.NHops
			}
			for i := range in.Hops {
				e := &in.Hops[i]
				e.SpeedCode, e.Ins = uint8(r.Uint32()), uint8(r.Uint32())
				e.DeviceID, e.EgressPort, e.IngressPort = r.Uint32(), uint16(r.Uint32()), uint16(r.Uint32())
				e.RxSec, e.RxNs, e.ResidenceNs, e.Ts = r.Uint32(), r.Uint32(), r.Uint32(), r.Uint32()
				e.TxBytes, e.Qlen = r.Uint32(), r.Uint32()
			}
			wst, wout := d.Update(st, in)
			gst, gout := g.Update(st, in)
			if gst != wst || gout != wout {
				t.Fatalf("%s, case %d: state %+v, event %+v:\ngenerated %+v %+v\ngolden    %+v %+v", md.Name, k, st, in, gst, gout, wst, wout)
			}
		}
	}
}

// TestUpdateBatchLengths: a batch with fewer states or outputs than events
// is an error naming the lengths, and changes nothing.
func TestUpdateBatchLengths(t *testing.T) {
	g := Models()[0]
	in := make([]hpcc.Input, 3)
	for _, c := range []struct{ nst, nout int }{{2, 3}, {3, 2}, {0, 0}} {
		st := make([]hpcc.State, c.nst)
		out := make([]hpcc.Output, c.nout)
		err := g.UpdateBatch(st, in, out)
		if err == nil || !strings.Contains(err.Error(), "3 events") {
			t.Errorf("UpdateBatch(%d states, %d outputs, 3 events) = %v, want an error naming the lengths", c.nst, c.nout, err)
		}
		for _, s := range st {
			if s != (hpcc.State{}) {
				t.Errorf("UpdateBatch with %d states, %d outputs changed a state", c.nst, c.nout)
			}
		}
	}
}
