package nicmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
)

// framesRun runs two flows through the INT-stamping test link with packet
// and vector traces on and returns the trace files, both NICs' counters,
// the completions, the engine's buffer counters and the links.
func framesRun(t *testing.T, keepInput bool) (files map[string][]byte, ca, cb Counters, recs []FlowRecord, bufs engine.BuffersStats, b *bench) {
	t.Helper()
	cfg := testConfig(CCHPCC)
	cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 2, 2000
	b = newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 2, delay: 700, keepInput: keepInput,
		qlen:  func(now engine.Cycle) uint64 { return uint64(now/1900%4) * 9000 },
		trace: TraceOptions{Packets: true, Vectors: true}})
	b.ab.keepRefs, b.ba.keepRefs = true, true
	b.open(t, 1, 120_000, 0)
	b.open(t, 2, 70_000, 900)
	b.runIdle(t, 10_000_000)
	dir := t.TempDir()
	for _, n := range []*NIC{b.a, b.b} {
		if _, err := n.WriteTraces(dir); err != nil {
			t.Fatal(err)
		}
	}
	files = map[string][]byte{}
	for _, e := range must(os.ReadDir(dir))(t) {
		files[e.Name()] = must(os.ReadFile(filepath.Join(dir, e.Name())))(t)
	}
	return files, b.a.Counters(), b.b.Counters(), b.a.Completed(), b.e.Buffers().Stats(), b
}

// TestInputFrameOwnership checks the frame-buffer ownership rule of NIC.In.
// By default a NIC releases every frame it takes to the engine's free list
// (one Put per frame received by either NIC: the MAC counters are the
// oracle) and the Tx pipelines take their buffers from it (one Get per
// frame sent, and far fewer allocations than frames). With
// Options.KeepInputFrames nothing is released, and every frame the links
// delivered is still exactly what they delivered after the run (the links
// keep the delivered slices next to copies made at delivery). Recycling
// must not change results: every trace file byte for byte, every counter
// and every completion equals the KeepInputFrames run's.
func TestInputFrameOwnership(t *testing.T) {
	fk, cak, cbk, rk, bk, bn := framesRun(t, true)
	for _, l := range []*link{bn.ab, bn.ba} {
		if len(l.refs) != len(l.got) || len(l.refs) == 0 {
			t.Fatalf("link kept %d frames, recorded %d", len(l.refs), len(l.got))
		}
		for i, f := range l.refs {
			if !bytes.Equal(f, l.got[i].v) {
				t.Fatalf("KeepInputFrames: frame %d delivered in cycle %d was modified after delivery", i, l.got[i].at)
			}
		}
	}
	sent := cak.MAC.TxFrames + cbk.MAC.TxFrames
	if bk.Puts != 0 || bk.Gets != sent {
		t.Errorf("KeepInputFrames: buffers %+v, want no Put and %d Gets (one per frame sent)", bk, sent)
	}

	f, ca, cb, r, bufs, _ := framesRun(t, false)
	received := ca.MAC.RxFrames + cb.MAC.RxFrames
	if bufs.Puts != received || bufs.Gets != sent || bufs.Allocs*10 > sent {
		t.Errorf("buffers %+v: want %d Puts (frames received), %d Gets (frames sent), allocations under a tenth of them",
			bufs, received, sent)
	}
	if !reflect.DeepEqual(ca, cak) || !reflect.DeepEqual(cb, cbk) || !reflect.DeepEqual(r, rk) {
		t.Errorf("counters or completions differ when frame buffers are reused")
	}
	if len(f) != len(fk) || len(f) == 0 {
		t.Fatalf("%d trace files with reuse, %d without", len(f), len(fk))
	}
	for name, d := range fk {
		if !bytes.Equal(f[name], d) {
			t.Errorf("%s differs when frame buffers are reused", name)
		}
	}
}
