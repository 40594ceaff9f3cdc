package simvec

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/vectors"
)

// The test scenario: demo-incast-4to1, 4 senders x 200 KB into one host on
// a 100 Gbps switch, sender-based HPCC++ with one ACK per data packet
// (about 0.05 s of CPU). Every data packet's ACK carries the path's
// telemetry, so the run makes 4 x 200000/1000 = 800 sender datapath
// updates (scenario/builtin.go: payload 1000 bytes, nic.ack_every 1).
const (
	demo        = "demo-incast-4to1"
	demoUpdates = 4 * 200_000 / 1000
)

var setFiles = []string{vectors.StimulusFile, vectors.ExpectedFile, vectors.JSONLFile, vectors.CaptureFile,
	vectors.FieldsVHFile, vectors.LayoutFile, vectors.ManifestFile}

func captureDir(t *testing.T, req Request) (string, *vectors.Manifest) {
	t.Helper()
	dir := t.TempDir()
	man, err := CaptureDir(context.Background(), dir, req)
	if err != nil {
		t.Fatalf("CaptureDir(%+v): %v", req, err)
	}
	return dir, man
}

func read(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCaptureDeterministic captures the scaled-down scenario twice (one
// worker and three) and checks every file of the two sets is byte for byte
// the same (oracle: the first capture), that the set holds every update of
// the run (800, derived above) in one class sim:demo-incast-4to1, and that
// the manifest carries the scenario name and its full configuration.
func TestCaptureDeterministic(t *testing.T) {
	d1, man := captureDir(t, Request{Scenario: demo, Workers: 1})
	d2, _ := captureDir(t, Request{Scenario: demo, Workers: 3})
	for _, name := range setFiles {
		if !bytes.Equal(read(t, d1, name), read(t, d2, name)) {
			t.Errorf("%s differs between two captures of %s", name, demo)
		}
	}
	if man.Count != demoUpdates || man.Total != demoUpdates {
		t.Fatalf("captured %d of %d transactions, want %d", man.Count, man.Total, demoUpdates)
	}
	c := man.Capture
	if c == nil || c.Source != Source || c.Scenario != demo || !c.Complete || c.Limit != 0 {
		t.Fatalf("capture section %+v", c)
	}
	var sc struct {
		Name  string `json:"name"`
		Model string `json:"model"`
		CC    string `json:"cc"`
	}
	if err := json.Unmarshal(c.ScenarioConfig, &sc); err != nil || sc.Name != demo || sc.Model != "fixed" || sc.CC != "hpcc" {
		t.Fatalf("scenario_config %+v (%v)", sc, err)
	}
	last := man.Classes[len(man.Classes)-1]
	if last.Name != ClassPrefix+demo || last.Count != demoUpdates || last.First != 0 {
		t.Fatalf("captured class %+v", last)
	}
	if man.Model != vectors.HPCCModelName {
		t.Fatalf("model %q", man.Model)
	}
	// The directed classes the closed loop happens to hit are counted:
	// every flow's first ACK at least.
	for _, cl := range man.Classes {
		if cl.Name == "first_ack" && cl.Hits < 4 {
			t.Errorf("first_ack hit by %d captured vectors, want >= 4 (one per flow)", cl.Hits)
		}
	}
}

// TestCaptureVerifyAndCheck checks that `vectors verify` passes on a
// captured set, that `vectors check` passes expected.hex itself and fails
// it with exactly one failing vector after flipping one bit of one line
// (oracle: the flipped copy differs in one field of one vector), and that
// verify reports a changed byte of the stimulus.
func TestCaptureVerifyAndCheck(t *testing.T) {
	dir, _ := captureDir(t, Request{Scenario: demo, Limit: 300})
	rep, err := vectors.Verify(dir)
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	exp := read(t, dir, vectors.ExpectedFile)
	good := filepath.Join(t.TempDir(), "dut.hex")
	if err := os.WriteFile(good, exp, 0o644); err != nil {
		t.Fatal(err)
	}
	cr, err := vectors.Check(dir, good, vectors.CheckOptions{})
	if err != nil || !cr.OK() || cr.Passed != 300 {
		t.Fatalf("check of expected.hex itself: %v %+v", err, cr)
	}
	lines := strings.Split(string(exp), "\n")
	k := 123
	l := []byte(lines[k])
	const hexDigits = "0123456789abcdef"
	l[len(l)-3] = hexDigits[strings.IndexByte(hexDigits, l[len(l)-3])^1] // flip bit 8 of the word
	lines[k] = string(l)
	bad := filepath.Join(t.TempDir(), "bad.hex")
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	cr, err = vectors.Check(dir, bad, vectors.CheckOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cr.OK() || cr.Failed != 1 || len(cr.Mismatches) != 1 || cr.Mismatches[0].Index != int64(k) || cr.Mismatches[0].Class != ClassPrefix+demo {
		t.Fatalf("check of a one-bit flip: %+v", cr)
	}
	stim := read(t, dir, vectors.StimulusFile)
	stim[len(stim)/2] ^= 0x1
	if err := os.WriteFile(filepath.Join(dir, vectors.StimulusFile), stim, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = vectors.Verify(dir)
	if err == nil && rep.OK() {
		t.Fatal("verify passed a stimulus with a changed byte")
	}
}

// TestCaptureReplay is the independent oracle: the golden datapath, built
// from the manifest's configuration with hpcc.LoadConfig and
// hpcc.NewDatapath (not through package vectors), replayed per flow
// (host, role, QP, connection of capture.jsonl) from the zero state over
// the event part of each captured input in order, must give every captured
// state before (the st_ fields) and every expected line (state after and
// outputs), for sender-based (cc=hpcc) and receiver-based (cc=hpcc-rx,
// whose datapath runs in the receivers) HPCC++.
func TestCaptureReplay(t *testing.T) {
	for _, cc := range []string{"hpcc", "hpcc-rx"} {
		t.Run(cc, func(t *testing.T) {
			dir, man := captureDir(t, Request{Scenario: demo, CC: cc})
			cfg, err := hpcc.LoadConfig(bytes.NewReader(man.Config))
			if err != nil {
				t.Fatal(err)
			}
			if want := map[string]hpcc.Mode{"hpcc": hpcc.Sender, "hpcc-rx": hpcc.Receiver}[cc]; cfg.Mode != want {
				t.Fatalf("config mode %v, want %v", cfg.Mode, want)
			}
			d, err := hpcc.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			stim := strings.Split(strings.TrimSuffix(string(read(t, dir, vectors.StimulusFile)), "\n"), "\n")
			exp := strings.Split(strings.TrimSuffix(string(read(t, dir, vectors.ExpectedFile)), "\n"), "\n")
			org := bufio.NewScanner(bytes.NewReader(read(t, dir, vectors.CaptureFile)))
			if int64(len(stim)) != man.Count || len(exp) != len(stim) || man.Count < 100 {
				t.Fatalf("%d stimulus, %d expected lines, manifest %d", len(stim), len(exp), man.Count)
			}
			type key struct {
				Host      int
				Role      string
				QPN, Conn uint32
			}
			state := map[key]hpcc.State{}
			txn := map[key]int64{}
			in := make([]uint64, d.InputTable().Words())
			out := make([]uint64, d.OutputTable().Words())
			wantRole := map[string]string{"hpcc": "sender", "hpcc-rx": "receiver"}[cc]
			for i := range stim {
				if !org.Scan() {
					t.Fatalf("capture.jsonl ends at line %d", i+1)
				}
				var o struct {
					Index int64 `json:"index"`
					key
					Txn   int64  `json:"txn"`
					Cycle uint64 `json:"cycle"`
				}
				if err := json.Unmarshal(org.Bytes(), &o); err != nil || o.Index != int64(i) || o.Role != wantRole {
					t.Fatalf("capture.jsonl line %d: %s (%v)", i+1, org.Bytes(), err)
				}
				k := o.key
				if o.Txn != txn[k] {
					t.Fatalf("line %d: txn %d, want %d", i+1, o.Txn, txn[k])
				}
				txn[k]++
				if err := d.InputTable().ParseHex(stim[i], in); err != nil {
					t.Fatal(err)
				}
				st, ev, err := d.UnpackInput(in)
				if err != nil {
					t.Fatal(err)
				}
				if st != state[k] {
					t.Fatalf("line %d (%+v): captured state before differs from the replayed state", i+1, k)
				}
				next, res := d.Update(state[k], ev)
				if err := d.PackOutput(next, res, out); err != nil {
					t.Fatal(err)
				}
				if g := string(d.OutputTable().AppendHex(nil, out)); g != exp[i] {
					t.Fatalf("line %d (%+v): replay gives %s, expected.hex has %s", i+1, k, g, exp[i])
				}
				state[k] = next
			}
			if org.Scan() {
				t.Fatal("capture.jsonl has more lines than the set")
			}
			if len(txn) != 4 {
				t.Errorf("%d flows captured, want the scenario's 4", len(txn))
			}
		})
	}
}

// TestCaptureLimitAndShards checks that a limit keeps exactly the first N
// transactions of the whole capture (oracle: the first N lines of every
// line file of the complete set; the manifest says it is incomplete), and
// that shards 0..2 of 3 concatenate to the limited set byte for byte.
func TestCaptureLimitAndShards(t *testing.T) {
	whole, _ := captureDir(t, Request{Scenario: demo})
	const n = 250
	lim, man := captureDir(t, Request{Scenario: demo, Limit: n})
	if man.Count != n || man.Capture.Complete || man.Capture.Limit != n {
		t.Fatalf("limited capture: count %d, capture %+v", man.Count, man.Capture)
	}
	lineFiles := []string{vectors.StimulusFile, vectors.ExpectedFile, vectors.JSONLFile, vectors.CaptureFile}
	for _, name := range lineFiles {
		all := strings.SplitAfter(string(read(t, whole, name)), "\n")
		if got := string(read(t, lim, name)); got != strings.Join(all[:n], "") {
			t.Errorf("%s of the limited capture is not the first %d lines of the whole", name, n)
		}
	}
	cat := map[string][]byte{}
	for i := 0; i < 3; i++ {
		d, sm := captureDir(t, Request{Scenario: demo, Limit: n, Shard: vectors.Shard{Index: i, Count: 3}})
		if rep, err := vectors.Verify(d); err != nil || !rep.OK() {
			t.Fatalf("verify shard %d: %v %+v", i, err, rep)
		}
		if sm.Total != n {
			t.Fatalf("shard %d: total %d", i, sm.Total)
		}
		for _, name := range lineFiles {
			cat[name] = append(cat[name], read(t, d, name)...)
		}
	}
	for _, name := range lineFiles {
		if !bytes.Equal(cat[name], read(t, lim, name)) {
			t.Errorf("%s: shards do not concatenate to the whole", name)
		}
	}
}

// TestCaptureRejects checks the documented refusals: a float-model
// scenario (vectors come from the fixed datapath only), an unknown
// scenario, a negative limit.
func TestCaptureRejects(t *testing.T) {
	f := filepath.Join(t.TempDir(), "float.json")
	if err := os.WriteFile(f, []byte(`{"model":"float"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  Request
		want string
	}{
		{Request{Scenario: demo, ConfigFile: f}, "golden fixed-point datapath only"},
		{Request{Scenario: "no-such"}, "unknown scenario"},
		{Request{Scenario: demo, Limit: -1}, "Limit=-1"},
	} {
		_, err := Capture(context.Background(), tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Capture(%+v) = %v, want an error containing %q", tc.req, err, tc.want)
		}
	}
}

// TestSeedOverride checks that Seed replaces the scenario's network seed
// (recorded in the manifest's scenario configuration) and that the same
// seed gives the same set.
func TestSeedOverride(t *testing.T) {
	seed := uint64(77)
	d1, man := captureDir(t, Request{Scenario: demo, Limit: 50, Seed: &seed})
	d2, _ := captureDir(t, Request{Scenario: demo, Limit: 50, Seed: &seed})
	var sc struct {
		Network struct {
			Seed uint64 `json:"seed"`
		} `json:"network"`
	}
	if err := json.Unmarshal(man.Capture.ScenarioConfig, &sc); err != nil || sc.Network.Seed != 77 {
		t.Fatalf("network.seed %d (%v), want 77", sc.Network.Seed, err)
	}
	if !bytes.Equal(read(t, d1, vectors.ManifestFile), read(t, d2, vectors.ManifestFile)) {
		t.Error("same seed, different manifests")
	}
}
