package nicmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// update rewrites the golden files of this package (go test -update).
var update = flag.Bool("update", false, "rewrite nicmodel/testdata golden files")

// digestGolden holds the SHA-256 of every output of digestRun, per CC mode.
const digestGolden = "testdata/digests.golden"

// digestRun runs two NICs back to back under cc with every trace on
// (pcap, hex, vector streams, manifests) and a VCD of both NICs, three
// flows of which one starts after an idle gap, and returns every output
// by name: the trace files, the VCD, both NICs' counters (Registers, in
// their fixed order), the completion records and the frames each link
// carried (cycle and bytes). Under hpcc and hpcc-rx the link into B is an
// INT switch whose queue comes and goes; under ldcp and dcqcn it CE-marks
// every fifth data packet (with markAll, every one: LDCP's window falls
// below one packet and its sub-packet timer paces) and drops the 40th
// (go-back-N, NAK, CNPs); under none it only carries frames.
func digestRun(t *testing.T, cc CCMode, markAll bool) map[string][]byte {
	t.Helper()
	cfg := testConfig(cc)
	if cc.usesCCModule() || cc == CCNone {
		cfg.Tx.INTOnData = false
	}
	if cc == CCHPCCRx {
		cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 4, 2000
	}
	e := must(engine.New(engine.Config{Freq: cfg.ClockHz}))(t)
	qa, qb := qpPair(3)
	tr := TraceOptions{Packets: true, Vectors: true}
	a := must(New(cfg, qa, Options{Name: "A", Trace: tr}))(t)
	b := must(New(cfg, qb, Options{Name: "B", Trace: tr}))(t)
	for _, n := range []*NIC{a, b} {
		if err := n.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	const delay = 1500
	var ab, ba engine.Component
	var frames func() []byte
	if cc.usesCCModule() {
		l1 := &ccLink{from: a.Out(), to: b.In(), delay: delay,
			mark: func(_ wire.PSN, n int) bool { return markAll || n%5 == 4 },
			drop: func(_ wire.PSN, _ wire.ECN, n int) bool { return n == 40 }}
		l2 := &ccLink{from: b.Out(), to: a.In(), delay: delay}
		ab, ba = l1, l2
		frames = func() []byte { return []byte(fmt.Sprintf("%+v\n%+v\n", l1.got, l2.got)) }
	} else {
		qlen := func(now engine.Cycle) uint64 { return uint64(now/2500%3) * 15000 }
		l1 := &link{from: a.Out(), to: b.In(), delay: delay, freq: e.Freq(), stamp: cfg.Tx.INTOnData,
			enc: cfg.HPCC.Encoding, gbps: cfg.HPCC.NICSpeedGbps, qlen: qlen, rec: true}
		l2 := &link{from: b.Out(), to: a.In(), delay: delay, freq: e.Freq(), rec: true}
		ab, ba = l1, l2
		frames = func() []byte {
			var w bytes.Buffer
			for _, l := range []*link{l1, l2} {
				for _, s := range l.got {
					fmt.Fprintf(&w, "%d %x\n", s.at, s.v)
				}
				w.WriteString("--\n")
			}
			return w.Bytes()
		}
	}
	abID := must(e.Add("link_ab", ab))(t)
	baID := must(e.Add("link_ba", ba))(t)
	if err := a.ConnectOut(abID); err != nil {
		t.Fatal(err)
	}
	if err := b.ConnectOut(baID); err != nil {
		t.Fatal(err)
	}
	vcd := must(NewVCD(cfg.ClockHz, "nicmodel digest run"))(t)
	if err := a.Watch(vcd, []wire.QPN{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := b.Watch(vcd, []wire.QPN{1}); err != nil {
		t.Fatal(err)
	}
	vcd.Start()
	e.SetCycleHook(vcd.Sample)
	for _, f := range []FlowSpec{{QPN: 1, Bytes: 100_000}, {QPN: 2, Bytes: 60_000, Start: 500},
		{QPN: 3, Bytes: 30_000, Start: 300_000}} {
		if _, err := a.OpenFlow(f); err != nil {
			t.Fatal(err)
		}
	}
	if !e.RunUntilIdle(20_000_000) {
		t.Fatalf("cc=%s: not idle after 20M cycles", cc)
	}
	dir := t.TempDir()
	for _, n := range []*NIC{a, b} {
		if _, err := n.WriteTraces(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := vcd.WriteFile(filepath.Join(dir, "nics.vcd")); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, ent := range must(os.ReadDir(dir))(t) {
		out[ent.Name()] = must(os.ReadFile(filepath.Join(dir, ent.Name())))(t)
	}
	for name, n := range map[string]*NIC{"A": a, "B": b} {
		var w bytes.Buffer
		c := n.Counters()
		for _, r := range c.Registers() {
			fmt.Fprintf(&w, "%+v\n", r)
		}
		out[name+".counters"] = w.Bytes()
	}
	out["A.completed"] = must(json.Marshal(a.Completed()))(t)
	out["links"] = frames()
	if c := a.Counters(); markAll && cc == CCLDCP && c.CC.TimerWaits == 0 {
		t.Errorf("cc=ldcp, every packet marked: no Send waited for the sub-packet timer")
	}
	if len(a.Completed()) != 3 {
		t.Errorf("cc=%s: %d of 3 flows completed", cc, len(a.Completed()))
	}
	return out
}

// TestOutputDigests pins every output of digestRun, for each CC mode, to
// the SHA-256 recorded in testdata/digests.golden (oracle: the model as
// it was when the file was written, refreshed only with -update). A
// refactoring that changes one byte of a trace, a counter or a frame
// fails here and names the file.
func TestOutputDigests(t *testing.T) {
	var got []string
	type run struct {
		name    string
		cc      CCMode
		markAll bool
	}
	runs := []run{{"hpcc", CCHPCC, false}, {"hpcc-rx", CCHPCCRx, false}, {"none", CCNone, false},
		{"ldcp", CCLDCP, false}, {"dcqcn", CCDCQCN, false}, {"ldcp-marked", CCLDCP, true}, {"dcqcn-marked", CCDCQCN, true}}
	for _, r := range runs {
		files := digestRun(t, r.cc, r.markAll)
		var names []string
		for k := range files {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			sum := sha256.Sum256(files[k])
			got = append(got, fmt.Sprintf("%s %s %s", r.name, k, hex.EncodeToString(sum[:])))
		}
	}
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile(digestGolden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(digestGolden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	wl := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		f := strings.Fields(line)
		if len(f) == 3 {
			wl[f[0]+" "+f[1]] = f[2]
		}
	}
	for _, line := range got {
		f := strings.Fields(line)
		k := f[0] + " " + f[1]
		if w, ok := wl[k]; !ok {
			t.Errorf("%s: not in %s", k, digestGolden)
		} else if w != f[2] {
			t.Errorf("%s: SHA-256 %s, want %s", k, f[2], w)
		}
		delete(wl, k)
	}
	for k := range wl {
		t.Errorf("%s: in %s, not produced", k, digestGolden)
	}
}
