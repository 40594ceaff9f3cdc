package ldcpvec

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/vectors"
)

func configs() map[string]ldcp.Config {
	narrow := ldcp.DefaultConfig()
	narrow.AckPktsBits, narrow.Gamma = 4, 1.0/16
	narrow.Formats.Cw, narrow.Formats.Param, narrow.Formats.RecipCw = fixedpoint.MustFormat("u24.8"), fixedpoint.MustFormat("u12.4"), fixedpoint.MustFormat("u24.5")
	narrow.RecipCw = ldcp.RecipParams{TableBits: 8, EntryBits: 12, NRSteps: 0}
	return map[string]ldcp.Config{"default": ldcp.DefaultConfig(), "narrow": narrow}
}

// TestGenerateVerify: a level-2 set with 3000 random vectors generates for
// each configuration (every detected directed vector is recognised by its
// class detector, or Generate fails), every directed class has vectors,
// every cover bin of the event kind, rule, send decision, stage and n
// points is hit, every input and output bit toggles except those the
// configuration cannot reach (reported), the set verifies (vectors re-run
// the golden datapath through Open), and generating twice gives
// byte-identical files. Oracle: the vectors machinery and the datapath.
func TestGenerateVerify(t *testing.T) {
	for name, cfg := range configs() {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		opts := vectors.Options{Level: 2, Seed: 42, Count: 3000, Workers: 2}
		dir := t.TempDir()
		man, err := vectors.GenerateDir(dir, m, opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, cc := range man.Classes {
			if cc.Total == 0 {
				t.Errorf("%s: class %s has no vectors", name, cc.Name)
			}
			if cc.Detected && cc.Hits < cc.Total {
				t.Errorf("%s: class %s: %d hits < %d vectors", name, cc.Name, cc.Hits, cc.Total)
			}
		}
		for _, p := range man.Coverage.Points {
			if p.Name == "recip_cw" {
				continue
			}
			for i, h := range p.Counts {
				if h == 0 {
					t.Errorf("%s: cover point %s bin %d never hit", name, p.Name, i)
				}
			}
		}
		t.Logf("%s: %d vectors, input bits toggled %d/%d, output bits %d/%d", name, man.Total,
			man.Coverage.InputBits.Toggled, man.Coverage.InputBits.Width, man.Coverage.OutputBits.Toggled, man.Coverage.OutputBits.Width)
		rep, err := vectors.VerifyWith(dir, Open)
		if err != nil || !rep.OK() {
			t.Fatalf("%s: verify: %v %+v", name, err, rep)
		}
		dir2 := t.TempDir()
		if _, err := vectors.GenerateDir(dir2, m, opts); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"stimulus.hex", "expected.hex", "vectors.jsonl", "manifest.json"} {
			a, _ := os.ReadFile(filepath.Join(dir, f))
			b, _ := os.ReadFile(filepath.Join(dir2, f))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s: %s differs between two generations (or is empty)", name, f)
			}
		}
	}
}

// TestVerifyCatchesTampering: flipping one expected bit makes Verify fail.
func TestVerifyCatchesTampering(t *testing.T) {
	m, err := New(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := vectors.GenerateDir(dir, m, vectors.Options{Level: 1, Seed: 1, Count: 10}); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "expected.hex")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if b[0] == '0' {
		b[0] = '1'
	} else {
		b[0] = '0'
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := vectors.VerifyWith(dir, Open)
	if err == nil && rep.OK() {
		t.Error("Verify accepted a tampered expected.hex")
	}
}

// TestOpen: Open rejects other model names and rebuilds the model from its
// configuration JSON.
func TestOpen(t *testing.T) {
	b, _ := ldcp.DefaultConfig().JSON()
	if _, err := Open("hpcc_update", b); err == nil {
		t.Error("Open accepted hpcc_update")
	}
	m, err := Open(Name, b)
	if err != nil || m.Name() != "ldcp_update" {
		t.Errorf("Open: %v", err)
	}
}
