package verilog_test

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/llvmir"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
	"github.com/hpccgold/hpccgold/verilog/cosim"
)

// pinsGolden holds one line per emitted file: its SHA-256 and its name,
// prefixed by the configuration and emitter that wrote it.
const pinsGolden = "testdata/emitted.sha256"

// pinConfigs are the built-in HPCC++ configurations whose emitted text is
// pinned: the default (IFA sender), the default Compact, and the IFA
// receiver with dynamic W_ai.
func pinConfigs() []struct {
	name string
	cfg  hpcc.Config
} {
	rx := hpcc.DefaultConfig()
	rx.Mode, rx.DynamicWAI = hpcc.Receiver, true
	return []struct {
		name string
		cfg  hpcc.Config
	}{
		{"ifa", hpcc.DefaultConfig()},
		{"compact", hpcc.DefaultConfigFor(telemetry.Compact)},
		{"ifa-receiver-dynwai", rx},
	}
}

// TestEmittedTextPins pins every byte the emitters write for the built-in
// configurations by SHA-256: the Verilog of hpcc_update (at --stages 0 and
// the default 3) and hpcc_module, with their packages, bus modules,
// connection includes, field includes, layouts and testbenches exactly as
// `emit verilog` writes them; ldcp_update likewise; and the LLVM IR, C
// header, DPI-C wrapper, driver and SystemVerilog files of `emit llvm`.
// Oracle: the digests recorded in testdata/emitted.sha256 (refresh with
// `go test ./verilog -run TestEmittedTextPins -update` only for an intended
// change of emitted text, after reading the diff of the text itself). A
// structural refactor of rtl, the printers or llvmir must leave them all
// unchanged.
func TestEmittedTextPins(t *testing.T) {
	if testing.Short() {
		t.Skip("emits every design: not in -short")
	}
	var lines []string
	add := func(prefix, name string, data []byte) {
		lines = append(lines, fmt.Sprintf("%x  %s/%s", sha256.Sum256(data), prefix, name))
	}
	addDir := func(prefix, dir string) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) == 0 {
			t.Fatalf("%s: the emitter wrote no file", prefix)
		}
		for _, e := range ents {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			add(prefix, e.Name(), b)
		}
	}
	for _, pc := range pinConfigs() {
		for _, stages := range []int{0, 3} {
			dir := t.TempDir()
			if _, err := cosim.EmitHPCC(dir, pc.cfg, stages, 10); err != nil {
				t.Fatalf("%s: EmitHPCC(stages %d): %v", pc.name, stages, err)
			}
			addDir(fmt.Sprintf("verilog-hpcc-%s-stages%d", pc.name, stages), dir)
		}
		m, err := hpccrtl.UpdateComb(pc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		fields, err := vectors.NewHPCC(pc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		md, err := llvmir.Lower(m, llvmir.Options{Groups: llvmir.FlowUpdateGroups(),
			Fields: []fieldtable.Table{fields.Input(), fields.Output()}, Enums: fields.Enums()})
		if err != nil {
			t.Fatalf("%s: llvmir.Lower: %v", pc.name, err)
		}
		for _, f := range md.Files() {
			add("llvm-hpcc-"+pc.name, f.Name, f.Data)
		}
	}
	for _, stages := range []int{0, 3} {
		dir := t.TempDir()
		model, err := ldcpvec.New(ldcp.DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cosim.EmitUpdate(dir, model, stages); err != nil {
			t.Fatalf("EmitUpdate(ldcp, stages %d): %v", stages, err)
		}
		addDir(fmt.Sprintf("verilog-ldcp-default-stages%d", stages), dir)
	}
	slices.Sort(lines)
	got := []byte(strings.Join(lines, "\n") + "\n")
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		if err := os.WriteFile(pinsGolden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(pinsGolden)
	if err != nil {
		t.Fatalf("%v (create it with -update)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	wl := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(want)), "\n") {
		if h, n, ok := strings.Cut(l, "  "); ok {
			wl[n] = h
		}
	}
	for _, l := range lines {
		h, n, _ := strings.Cut(l, "  ")
		switch w, ok := wl[n]; {
		case !ok:
			t.Errorf("%s: emitted, not pinned", n)
		case w != h:
			t.Errorf("%s: sha256 %s, pinned %s: emitted text changed", n, h, w)
		}
		delete(wl, n)
	}
	for n := range wl {
		t.Errorf("%s: pinned, no longer emitted", n)
	}
}
