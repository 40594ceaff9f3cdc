package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// outdirBinary builds hpccgold into a temporary directory.
func outdirBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "hpccgold")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// entries lists dir's entries, hidden ones included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range des {
		names = append(names, d.Name())
	}
	return names
}

// TestOutputDirectoryRules runs the real binary as a user would and checks
// the output-directory rules of docs/cli.md on `vectors gen`: a second
// writer into a busy directory fails at once (exit 2, naming the holder);
// SIGINT and SIGTERM stop a run with a non-zero exit, leave the earlier set
// complete and verifying, and leave no temporary behind; a directory
// hpccgold did not write is refused.
func TestOutputDirectoryRules(t *testing.T) {
	bin := outdirBinary(t)
	work := t.TempDir()
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = work
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	// An earlier, complete set in a relative directory.
	if code, out := run("vectors", "gen", "--out", "set", "--count", "100", "--seed", "1"); code != 0 {
		t.Fatalf("first gen: %d\n%s", code, out)
	}
	earlier := filepath.Join(work, "set")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			// A long run (tens of seconds) into the same directory.
			long := exec.Command(bin, "vectors", "gen", "--out", "set", "--count", "5000000", "--seed", "2", "--workers", "1", "--no-jsonl")
			long.Dir = work
			var lout bytes.Buffer
			long.Stdout, long.Stderr = &lout, &lout
			if err := long.Start(); err != nil {
				t.Fatal(err)
			}
			// Wait until it holds the lock and stages files.
			deadline := time.Now().Add(20 * time.Second)
			staging := ""
			for staging == "" && time.Now().Before(deadline) {
				for _, n := range entries(t, earlier) {
					if strings.HasPrefix(n, ".hpccgold-staging-") {
						if st, _ := os.ReadDir(filepath.Join(earlier, n)); len(st) > 0 {
							staging = n
						}
					}
				}
				time.Sleep(20 * time.Millisecond)
			}
			if staging == "" {
				long.Process.Kill()
				long.Wait()
				t.Fatalf("the long run never staged a file:\n%s", lout.String())
			}
			code, out := run("vectors", "gen", "--out", "set", "--count", "10")
			if code != 2 || !strings.Contains(out, "being written by another hpccgold process") || !strings.Contains(out, "pid ") {
				t.Errorf("second writer: exit %d, %q; want exit 2 naming the holder", code, out)
			}
			long.Process.Signal(sig)
			err := long.Wait()
			if err == nil {
				t.Fatalf("run stopped by %v exited 0:\n%s", sig, lout.String())
			}
			for _, n := range entries(t, earlier) {
				if strings.HasPrefix(n, ".hpccgold-staging-") || strings.HasPrefix(n, ".hpccgold-old-") || strings.Contains(n, ".tmp-") {
					t.Errorf("%v left %s behind", sig, n)
				}
			}
			if code, out := run("verify", "set"); code != 0 {
				t.Errorf("after %v the earlier set does not verify: %d\n%s", sig, code, out)
			}
		})
	}
	os.WriteFile(filepath.Join(work, "notes.txt"), []byte("mine"), 0o644)
	if code, out := run("vectors", "gen", "--out", ".", "--count", "10"); code != 2 || !strings.Contains(out, "hpccgold did not write") {
		t.Errorf("gen into a foreign directory: exit %d, %q; want exit 2", code, out)
	}
	if b, err := os.ReadFile(filepath.Join(work, "notes.txt")); err != nil || string(b) != "mine" {
		t.Errorf("the foreign directory's file was touched: %q %v", b, err)
	}
}
