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

// TestDiskFull runs `sim` into a directory on a small tmpfs (mounted for
// the test; root only) whose space runs out in the middle of the second
// run: the run must exit non-zero, the earlier run must still verify, and
// no temporary or staging file may be left.
func TestDiskFull(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	bin := outdirBinary(t)
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	defer exec.Command("umount", mnt).Run()
	cfg := filepath.Join(t.TempDir(), "small.json")
	os.WriteFile(cfg, []byte(`{"traffic":{"incast":[{"senders":[1,2],"bytes":20000}]}}`), 0o644)
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = mnt
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0, string(out)
	}
	if code, out := run("sim", "--scenario", "demo-incast-4to1", "--config", cfg, "--out", "sim"); code != 0 {
		t.Fatalf("first sim: %d\n%s", code, out)
	}
	// Leave 16 KiB free: less than the run's plots need.
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, free-16<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run("sim", "--scenario", "demo-incast-4to1", "--config", cfg, "--out", "sim")
	if code == 0 {
		t.Fatalf("sim on a full disk exited 0:\n%s", out)
	}
	if !strings.Contains(out, "no space left on device") {
		t.Errorf("the error does not say the disk is full:\n%s", out)
	}
	for _, n := range entries(t, filepath.Join(mnt, "sim")) {
		if strings.HasPrefix(n, ".hpccgold-staging-") || strings.HasPrefix(n, ".hpccgold-old-") || strings.Contains(n, ".tmp-") {
			t.Errorf("the failed run left %s behind", n)
		}
	}
	if code, out := run("verify", "sim"); code != 0 {
		t.Errorf("after the failed run the earlier output does not verify: %d\n%s", code, out)
	}
}
