package nicmodel

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// captureRun is a two-NIC run (A sends to B through an INT-stamping link
// whose queue comes and goes) with every trace on and, if observe, an
// Options.OnHPCCUpdate observer on both NICs recording copies of the
// updates.
type captureRun struct {
	files      map[string][]byte
	cntA, cntB Counters
	records    []FlowRecord
	now        engine.Cycle
	got        map[string][]HPCCUpdate // per NIC name
}

func runCapture(t *testing.T, cfg Config, observe bool) captureRun {
	t.Helper()
	e := must(engine.New(engine.Config{Freq: cfg.ClockHz}))(t)
	r := captureRun{got: map[string][]HPCCUpdate{}}
	opts := func(name string) Options {
		o := Options{Name: name, Trace: TraceOptions{Vectors: true}}
		if observe {
			o.OnHPCCUpdate = func(u *HPCCUpdate) { r.got[name] = append(r.got[name], *u) }
		}
		return o
	}
	qa, qb := qpPair(2)
	a := must(New(cfg, qa, opts("A")))(t)
	b := must(New(cfg, qb, opts("B")))(t)
	for _, n := range []*NIC{a, b} {
		if err := n.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	qlen := func(now engine.Cycle) uint64 { return uint64(now/3000%3) * 20000 }
	ab := &link{from: a.Out(), to: b.In(), delay: 800, freq: e.Freq(), stamp: true, enc: cfg.HPCC.Encoding,
		gbps: cfg.HPCC.NICSpeedGbps, qlen: qlen}
	ba := &link{from: b.Out(), to: a.In(), delay: 800, freq: e.Freq()}
	abID := must(e.Add("link_ab", ab))(t)
	baID := must(e.Add("link_ba", ba))(t)
	if err := a.ConnectOut(abID); err != nil {
		t.Fatal(err)
	}
	if err := b.ConnectOut(baID); err != nil {
		t.Fatal(err)
	}
	// QP 1 carries two connections: its second message is posted long
	// after the first completed (the QP is idle: a reset).
	for _, f := range []FlowSpec{{QPN: 1, Bytes: 60_000}, {QPN: 2, Bytes: 40_000, Start: 700}, {QPN: 1, Bytes: 30_000, Start: 400_000}} {
		if _, err := a.OpenFlow(f); err != nil {
			t.Fatal(err)
		}
	}
	if !e.RunUntilIdle(20_000_000) {
		t.Fatal("not idle after 20M cycles")
	}
	dir := t.TempDir()
	r.files = map[string][]byte{}
	for _, n := range []*NIC{a, b} {
		if _, err := n.WriteTraces(dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, ent := range must(os.ReadDir(dir))(t) {
		r.files[ent.Name()] = must(os.ReadFile(filepath.Join(dir, ent.Name())))(t)
	}
	r.cntA, r.cntB, r.records, r.now = a.Counters(), b.Counters(), a.Completed(), e.Now()
	return r
}

// TestOnHPCCUpdate checks the capture hook, sender-based (cc=hpcc, updates
// in NIC A's module) and receiver-based (cc=hpcc-rx, updates in NIC B's
// Rx-HPCC):
//   - no behaviour change: with the observer set, every trace file,
//     counter and completion record equals the run without it;
//   - completeness: one update per datapath call the NIC counted (module
//     cc_issued minus notifications applied; Rx-HPCC calls), in
//     nondecreasing cycle order, none from the other role;
//   - content: each update, packed with its Datapath's InputTable and
//     OutputTable, is the corresponding line of the NIC's hpcc_update
//     trace (stimulus and expected hex);
//   - oracle: an independent hpcc.Datapath built from the configuration,
//     replayed per (QPN, Conn) from the zero state over the observed
//     inputs in order, gives every observed State, Next and Output (so the
//     chain rule documented on HPCCUpdate.Conn holds); the sender run has
//     two connections on QP 1.
func TestOnHPCCUpdate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cc       CCMode
		nic      string // the NIC whose datapath runs
		receiver bool
	}{
		{"sender", CCHPCC, "A", false},
		{"receiver", CCHPCCRx, "B", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testConfig(tc.cc)
			if tc.cc == CCHPCCRx {
				cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 8, 3000
			}
			plain := runCapture(t, cfg, false)
			obs := runCapture(t, cfg, true)
			if !reflect.DeepEqual(plain.cntA, obs.cntA) || !reflect.DeepEqual(plain.cntB, obs.cntB) ||
				!reflect.DeepEqual(plain.records, obs.records) || plain.now != obs.now {
				t.Fatal("counters, completions or end cycle differ with the observer set")
			}
			if len(plain.files) != len(obs.files) || len(plain.files) == 0 {
				t.Fatalf("%d trace files without the observer, %d with", len(plain.files), len(obs.files))
			}
			for k, v := range plain.files {
				if !bytes.Equal(v, obs.files[k]) {
					t.Errorf("trace %s differs with the observer set", k)
				}
			}
			if len(plain.got) != 0 {
				t.Fatal("updates observed without an observer")
			}
			for name, us := range obs.got {
				if name != tc.nic {
					t.Fatalf("NIC %s reported %d updates; only %s runs the datapath", name, len(us), tc.nic)
				}
			}
			us := obs.got[tc.nic]
			cnt := obs.cntA
			want := cnt.Module.CCIssued - cnt.Module.NotifyApply
			if tc.receiver {
				cnt = obs.cntB
				want = cnt.RxHPCC.Calls
			}
			if uint64(len(us)) != want || want < 50 {
				t.Fatalf("%d updates observed, the NIC counted %d datapath calls (want >= 50)", len(us), want)
			}
			d := must(hpcc.NewDatapath(us[0].Datapath.Config()))(t)
			if !reflect.DeepEqual(d.Config(), cfg.HPCC) && !tc.receiver {
				t.Fatalf("observed datapath configuration differs from the NIC's hpcc configuration")
			}
			stim := splitLines(string(obs.files[tc.nic+".hpcc_update.stimulus.hex"]))
			exp := splitLines(string(obs.files[tc.nic+".hpcc_update.expected.hex"]))
			if tc.receiver {
				stim = splitLines(string(obs.files[tc.nic+".rxhpcc_update.stimulus.hex"]))
				exp = splitLines(string(obs.files[tc.nic+".rxhpcc_update.expected.hex"]))
			}
			if len(stim) != len(us) || len(exp) != len(us) {
				t.Fatalf("trace has %d/%d lines, %d updates observed", len(stim), len(exp), len(us))
			}
			type key struct {
				q    wire.QPN
				conn uint32
			}
			state := map[key]hpcc.State{}
			conns := map[key]bool{}
			in := make([]uint64, d.InputTable().Words())
			out := make([]uint64, d.OutputTable().Words())
			for i, u := range us {
				if u.Receiver != tc.receiver || i > 0 && u.Cycle < us[i-1].Cycle {
					t.Fatalf("update %d: receiver=%v at cycle %d after cycle %d", i, u.Receiver, u.Cycle, us[max(i-1, 0)].Cycle)
				}
				if err := u.Datapath.PackInput(u.State, u.Input, in); err != nil {
					t.Fatal(err)
				}
				if err := u.Datapath.PackOutput(u.Next, u.Output, out); err != nil {
					t.Fatal(err)
				}
				if g := string(d.InputTable().AppendHex(nil, in)); g != stim[i] {
					t.Fatalf("update %d: input %s, trace %s", i, g, stim[i])
				}
				if g := string(d.OutputTable().AppendHex(nil, out)); g != exp[i] {
					t.Fatalf("update %d: output %s, trace %s", i, g, exp[i])
				}
				k := key{u.QPN, u.Conn}
				conns[k] = true
				st := state[k] // the zero state for a connection's first update
				next, o := d.Update(st, u.Input)
				if st != u.State || next != u.Next || o != u.Output {
					t.Fatalf("update %d (QP %d conn %d, cycle %d): observed state/next/output differ from the replay", i, u.QPN, u.Conn, u.Cycle)
				}
				state[k] = next
			}
			if n := len(conns); !tc.receiver && n != 3 || tc.receiver && n != 2 {
				t.Errorf("%d (QP, connection) chains, want 3 for the sender (QP 1 twice), 2 for the receiver", n)
			}
		})
	}
}
