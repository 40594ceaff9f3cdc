package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// failWriter fails every write after the first ok bytes.
type failWriter struct {
	ok  int
	buf bytes.Buffer
}

var errDiskFull = errors.New("no space left on device (test)")

func (f *failWriter) Write(p []byte) (int, error) {
	if f.buf.Len()+len(p) > f.ok {
		n := max(0, f.ok-f.buf.Len())
		f.buf.Write(p[:n])
		return n, errDiskFull
	}
	return f.buf.Write(p)
}

// TestStdoutWriteFailure: a command whose stdout writes fail exits non-zero
// naming "write stdout", whichever command and however it writes (oracle:
// docs/cli.md, "output writes are checked").
func TestStdoutWriteFailure(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(trace, []byte(replayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		ok   int // bytes the writer accepts before failing
	}{
		{[]string{"version"}, 0},
		{[]string{"--help"}, 10},
		{[]string{"replay", "--trace", trace}, 0},
		{[]string{"replay", "--trace", trace}, 100},
		{[]string{"sim", "--list"}, 50},
	}
	for _, c := range cases {
		w := &failWriter{ok: c.ok}
		var errb bytes.Buffer
		code := Run(context.Background(), c.args, nil, w, &errb)
		if code != ExitUsage || !strings.Contains(errb.String(), "write stdout: "+errDiskFull.Error()) {
			t.Errorf("Run(%q) with stdout failing after %d bytes = %d, stderr %q; want %d naming write stdout", c.args, c.ok, code, errb.String(), ExitUsage)
		}
	}
}

// TestStdoutDevFull: the built binary's stdout on /dev/full (ENOSPC on
// every write) exits 2 with "write stdout" (end to end, through os.Stdout).
func TestStdoutDevFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	for _, args := range [][]string{
		{"version"},
		{"sim", "--scenario", "demo-incast-4to1", "--quiet"}, // the summary of a completed run
		{"sim", "--list"},
	} {
		cmd := cliCommand(args...)
		cmd.Stdout = full
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage || !strings.Contains(errb.String(), "write stdout") {
			t.Errorf("hpccgold %q > /dev/full: %v, stderr %q; want exit 2 naming write stdout", args, err, errb.String())
		}
	}
}

// TestSignalStopsRun: SIGTERM to a running `sim` cancels its context: the
// process exits 2 at once saying it was interrupted, instead of finishing
// the run or dying without a word (docs/cli.md, signals).
func TestSignalStopsRun(t *testing.T) {
	cmd := cliCommand("sim", "--scenario", "websearch-50", "--quiet") // seconds of run; stopped once it is running
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, cmd.Process.Pid)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != ExitUsage || !strings.Contains(errb.String(), "interrupted") {
			t.Errorf("sim after SIGTERM: %v, stderr %q; want exit 2 naming the interruption", err, errb.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("sim did not stop within 60 s of SIGTERM; stderr %q", errb.String())
	}
}

// waitRunning waits until process pid has used at least half a second of
// CPU time (utime+stime of /proc/PID/stat), so that it is past its start-up
// (where the signal handler is installed) and inside its run, however loaded
// the machine is. Where /proc is missing it falls back to a 1.5 s sleep.
func waitRunning(t *testing.T, pid int) {
	t.Helper()
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	if _, err := os.Stat(stat); err != nil {
		time.Sleep(1500 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Fatalf("process %d ended before it was signalled: %v", pid, err)
		}
		// Fields after the command name, which is in parentheses: state is
		// field 3, utime and stime fields 14 and 15 (clock ticks, 100 Hz).
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 12 {
			ut, err1 := strconv.Atoi(f[11])
			st, err2 := strconv.Atoi(f[12])
			if err1 == nil && err2 == nil && ut+st >= 50 {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("process %d used less than 0.5 s of CPU in 60 s", pid)
}

// TestMain runs the test binary as hpccgold itself when
// HPCCGOLD_CLI_AS_MAIN=1 (what cmd/hpccgold does), so end-to-end tests get
// real process streams without building the command.
func TestMain(m *testing.M) {
	if os.Getenv("HPCCGOLD_CLI_AS_MAIN") == "1" {
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// cliCommand returns a command running hpccgold with args as its own
// process (the test binary through TestMain).
func cliCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "HPCCGOLD_CLI_AS_MAIN=1")
	return cmd
}

// replayTrace is a two-ACK trace of one flow.
const replayTrace = `{"flow":1,"seq":0,"snd_nxt":5000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5000000,"tx_bytes":1000000,"qlen_bytes":8000}]}
{"flow":1,"seq":6000,"snd_nxt":9000,"hops":[{"switch":1,"port":2,"speed_gbps":100,"ts_ns":5001000,"tx_bytes":1011000,"qlen_bytes":6250}]}
`

// TestReplayStreams: the trace is read once, so stdin ("--trace -") and a
// FIFO give the same two lines as a file, and an empty trace is an error.
// Oracle: the file replay's output.
func TestReplayStreams(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(file, []byte(replayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	var want, errb bytes.Buffer
	if code := Run(context.Background(), []string{"replay", "--trace", file}, nil, &want, &errb); code != 0 || strings.Count(want.String(), "\n") != 2 {
		t.Fatalf("file replay = %d, %q, stderr %q", code, want.String(), errb.String())
	}
	var got bytes.Buffer
	if code := Run(context.Background(), []string{"replay", "--trace", "-"}, strings.NewReader(replayTrace), &got, &errb); code != 0 || got.String() != want.String() {
		t.Errorf("stdin replay = %d, %q; want 0, %q (stderr %q)", code, got.String(), want.String(), errb.String())
	}
	got.Reset()
	errb.Reset()
	if code := Run(context.Background(), []string{"replay", "--trace", "-"}, strings.NewReader("\n\n"), &got, &errb); code != ExitUsage || !strings.Contains(errb.String(), "stdin: the trace holds no event") {
		t.Errorf("empty stdin replay = %d, stderr %q; want 2 naming the empty trace", code, errb.String())
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		f.WriteString(replayTrace)
		f.Close()
	}()
	got.Reset()
	done := make(chan int, 1)
	go func() { done <- Run(context.Background(), []string{"replay", "--trace", fifo}, nil, &got, &errb) }()
	select {
	case code := <-done:
		if code != 0 || got.String() != want.String() {
			t.Errorf("FIFO replay = %d, %q; want 0, %q", code, got.String(), want.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("FIFO replay hangs")
	}
}

// TestStdoutFailureKeepsCheckVerdict: a check that failed stays exit 1 when
// printing its report fails too (the write is still reported); a check
// that passed becomes exit 2. Oracle: docs/cli.md, output.
func TestStdoutFailureKeepsCheckVerdict(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "set")
	var o, e bytes.Buffer
	if code := Run(context.Background(), []string{"vectors", "gen", "--out", set, "--count", "10", "--no-jsonl"}, nil, &o, &e); code != 0 {
		t.Fatalf("vectors gen = %d: %s", code, e.String())
	}
	exp, err := os.ReadFile(filepath.Join(set, "expected.hex"))
	if err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good.hex")
	bad := filepath.Join(dir, "bad.hex")
	flipped := append([]byte(nil), exp...)
	if flipped[0] == '0' {
		flipped[0] = '1'
	} else {
		flipped[0] = '0'
	}
	if err := os.WriteFile(good, exp, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dut  string
		code int
	}{{good, ExitUsage}, {bad, ExitFailed}} {
		w := &failWriter{ok: 0}
		e.Reset()
		code := Run(context.Background(), []string{"vectors", "check", "--golden", set, "--dut", c.dut}, nil, w, &e)
		if code != c.code || !strings.Contains(e.String(), "write stdout") {
			t.Errorf("vectors check --dut %s with stdout failing = %d, stderr %q; want %d naming write stdout", filepath.Base(c.dut), code, e.String(), c.code)
		}
	}
}
