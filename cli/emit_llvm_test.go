package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEmitLLVM runs `emit llvm` twice into two directories: it must write
// the five files of package llvmir, byte-identical between runs (the
// outputs are deterministic), with the configuration in the .ll header;
// and it must refuse a missing --out and an unreadable --config.
func TestEmitLLVM(t *testing.T) {
	var dirs []string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(t.TempDir(), "llvm")
		var out, errb bytes.Buffer
		if err := runEmitLLVM(&Env{Stdout: &out, Stderr: &errb}, []string{"--out", dir}); err != nil {
			t.Fatalf("emit llvm: %v\n%s", err, errb.String())
		}
		if !strings.Contains(out.String(), filepath.Join(dir, "hpcc_update.ll")) {
			t.Fatalf("stdout does not list hpcc_update.ll:\n%s", out.String())
		}
		dirs = append(dirs, dir)
	}
	for _, name := range []string{"hpcc_update.ll", "hpcc_update.h", "hpcc_update_wrap.c", "hpcc_update_check.c", "hpcc_update_dpi.svh"} {
		a, err := os.ReadFile(filepath.Join(dirs[0], name))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dirs[1], name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs", name)
		}
		if name == "hpcc_update.ll" && (!bytes.Contains(a, []byte(`"mode": "sender"`)) || !bytes.Contains(a, []byte("DO NOT EDIT"))) {
			t.Errorf("%s header lacks the configuration or the DO NOT EDIT line", name)
		}
	}
	var out, errb bytes.Buffer
	if err := runEmitLLVM(&Env{Stdout: &out, Stderr: &errb}, nil); err == nil || !strings.Contains(err.Error(), "--out") {
		t.Errorf("no --out: err = %v", err)
	}
	missing := filepath.Join(t.TempDir(), "nosuch.json")
	if err := runEmitLLVM(&Env{Stdout: &out, Stderr: &errb}, []string{"--config", missing, "--out", t.TempDir()}); err == nil || !strings.Contains(err.Error(), "nosuch.json") {
		t.Errorf("missing config: err = %v", err)
	}
}
