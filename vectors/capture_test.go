package vectors

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// chainCapture builds a capture of HPCC++ transactions the way a closed
// loop makes them: flows (QPs 0..nflows-1 of host 2) each start from the
// zero state, and each event (constrained-random, from the model's own
// generator) is applied to the state the flow's previous update wrote, by
// hpcc.Datapath.Update; flows interleave round robin. tamper, if not nil,
// may change transaction k's state before (st) before it is evaluated, so
// the capture stays self-consistent (its output is the datapath's for its
// input) but its chain is broken.
func chainCapture(t *testing.T, h *HPCC, n, nflows int, tamper func(k int, st *hpcc.State)) *Capture {
	t.Helper()
	c, err := NewCapture(h, Class{Name: "sim:unit", Doc: "a hand-built chain"}, CaptureInfo{Source: "sim", Scenario: "unit", ScenarioConfig: []byte(`{"name":"unit"}`)})
	if err != nil {
		t.Fatal(err)
	}
	d := h.Datapath()
	states := make([]hpcc.State, nflows)
	r := NewRand(9, 0)
	in := make([]uint64, h.Input().Words())
	out := make([]uint64, h.Output().Words())
	for k := 0; k < n; k++ {
		q := k % nflows
		var junk hpcc.State
		var ev hpcc.Input
		h.randomStructs(r, &junk, &ev)
		st := states[q]
		if tamper != nil {
			tamper(k, &st)
		}
		next, o := d.Update(st, ev)
		if err := d.PackInput(st, ev, in); err != nil {
			t.Fatal(err)
		}
		if err := d.PackOutput(next, o, out); err != nil {
			t.Fatal(err)
		}
		if err := c.Add(Origin{Host: 2, QPN: uint32(q), Conn: 1, Cycle: uint64(10 * k)}, in, out); err != nil {
			t.Fatal(err)
		}
		states[q] = next
	}
	c.SetComplete(true)
	return c
}

// TestCaptureChainVerify checks Verify on captured sets: a chained capture
// verifies (whole and each of 3 shards, whose first transactions of a flow
// have no predecessor in the directory), and a capture whose transaction 7
// reads a state its flow's previous transaction did not write (every file
// hash-consistent and every expected line the datapath's) fails with a
// problem naming the state field; so does a flow's first transaction
// reading a non-reset state. Oracle: the chain rule of Stateful.
func TestCaptureChainVerify(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	good := chainCapture(t, h, 60, 4, nil)
	for _, sh := range []Shard{{}, {0, 3}, {1, 3}, {2, 3}} {
		dir := t.TempDir()
		if _, err := good.WriteDir(dir, CaptureOptions{Shard: sh}); err != nil {
			t.Fatal(err)
		}
		if rep, err := Verify(dir); err != nil || !rep.OK() {
			t.Fatalf("shard %+v of a good chain: %v %+v", sh, err, rep)
		}
	}
	for _, tc := range []struct {
		name string
		k    int
		want string
	}{
		{"mid-chain", 7, "but the flow's previous transaction (txn 0) wrote ns_w"},
		{"first", 2, "the flow's first transaction reads st_w"},
	} {
		bad := chainCapture(t, h, 60, 4, func(k int, st *hpcc.State) {
			if k == tc.k {
				st.W ^= 0x100
			}
		})
		dir := t.TempDir()
		if _, err := bad.WriteDir(dir, CaptureOptions{}); err != nil {
			t.Fatal(err)
		}
		rep, err := Verify(dir)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), tc.want) {
			t.Errorf("%s: verify of a broken chain: %+v, want a problem containing %q", tc.name, rep.Problems, tc.want)
		}
	}
}

// TestCaptureRejectsWrongOutput checks that Set re-evaluates each captured
// input with the model and fails, naming the transaction, its origin and
// the field, when the captured output is not the model's (here ns_w of
// transaction 5 with one bit flipped).
func TestCaptureRejectsWrongOutput(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	c := chainCapture(t, h, 10, 2, nil)
	f := h.Output().Fields[fieldIndex(t, h.Output().Fields, "ns_w")]
	w := c.outW[5*c.ow : 6*c.ow]
	w[f.Offset/64] ^= 1 << uint(f.Offset%64)
	_, err = c.Set(CaptureOptions{})
	if err == nil || !strings.Contains(err.Error(), "transaction 5 (host 2, sender QP 1 conn 1, cycle 50): output field ns_w") {
		t.Fatalf("Set with a wrong captured output: %v", err)
	}
}

// TestCaptureErrors checks the capture's input validation: class names,
// word counts, bits above a table's width.
func TestCaptureErrors(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "random", "first_ack", `sim:"x"`, "sim x"} {
		if _, err := NewCapture(h, Class{Name: name}, CaptureInfo{}); err == nil {
			t.Errorf("class %q accepted", name)
		}
	}
	c, err := NewCapture(h, Class{Name: "sim:ok"}, CaptureInfo{})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]uint64, h.Input().Words())
	out := make([]uint64, h.Output().Words())
	if err := c.Add(Origin{}, in[1:], out); err == nil {
		t.Error("short input accepted")
	}
	in[len(in)-1] = ^uint64(0)
	if err := c.Add(Origin{}, in, out); err == nil || !strings.Contains(err.Error(), "above its") {
		t.Errorf("bits above the width: %v", err)
	}
	if c.Len() != 0 {
		t.Errorf("Len %d after rejected adds", c.Len())
	}
}

// TestCaptureOriginLines checks capture.jsonl's line format: what
// appendOriginLine prints parses back to the same origin, and
// non-canonical or incomplete lines are rejected.
func TestCaptureOriginLines(t *testing.T) {
	o := Origin{Host: 3, Receiver: true, QPN: 17, Conn: 0, Cycle: 123456789, Txn: 42}
	line := appendOriginLine(nil, 9, &o)
	want := `{"index":9,"host":3,"role":"receiver","qpn":17,"conn":0,"txn":42,"cycle":123456789}` + "\n"
	if string(line) != want {
		t.Fatalf("line %s, want %s", line, want)
	}
	i, got, err := parseOriginLine(bytes.TrimSuffix(line, []byte("\n")))
	if err != nil || i != 9 || got != o {
		t.Fatalf("parse: %d %+v %v", i, got, err)
	}
	for _, bad := range []string{
		`{"index":9,"host":3,"role":"receiver","qpn":17,"conn":0,"txn":42}`,
		`{"index":9, "host":3,"role":"receiver","qpn":17,"conn":0,"txn":42,"cycle":1}`,
		`{"index":9,"host":3,"role":"both","qpn":17,"conn":0,"txn":42,"cycle":1}`,
		`{"index":9,"host":3,"role":"sender","qpn":17,"conn":0,"txn":42,"cycle":1,"x":1}`,
	} {
		if _, _, err := parseOriginLine([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
}

// TestGeneratedSetHasNoCaptureFile checks that writing a generated set
// into a directory that held a captured set removes the stale
// capture.jsonl (the manifest would not list it).
func TestGeneratedSetHasNoCaptureFile(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := chainCapture(t, h, 5, 1, nil).WriteDir(dir, CaptureOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateDir(dir, h, Options{Classes: []string{"first_ack"}, Count: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CaptureFile)); err == nil {
		t.Error("stale capture.jsonl left behind")
	}
	if rep, err := Verify(dir); err != nil || !rep.OK() {
		t.Fatalf("verify: %v %+v", err, rep)
	}
}

func fieldIndex(t *testing.T, fs []fieldtable.Field, name string) int {
	t.Helper()
	for i, f := range fs {
		if f.Name == name {
			return i
		}
	}
	t.Fatalf("no field %s", name)
	return -1
}
