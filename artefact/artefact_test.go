package artefact

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
)

// tree returns every entry under dir (slash paths, directories with a
// trailing slash), bookkeeping included, sorted: what a user would see.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// run writes files (name -> content) as one committed run of kind "test".
func run(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for n, c := range files {
		if err := w.WriteFile(n, []byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
}

func mustVerify(t *testing.T, dir string) *Report {
	t.Helper()
	r, err := Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCommitReplacesTheEarlierRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	run(t, dir, map[string]string{"a.txt": "one", "plots/p.svg": "<svg/>", "old.csv": "x"})
	run(t, dir, map[string]string{"a.txt": "two", "b.txt": "new"})
	want := []string{LockFile, "a.txt", "b.txt", ManifestFile}
	sort.Strings(want)
	if got := tree(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("after the second run the directory holds %v, want %v (files of the first run must be gone)", got, want)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "two" {
		t.Errorf("a.txt = %q, want the second run's %q", b, "two")
	}
	r := mustVerify(t, dir)
	if !r.OK() || r.Files != 2 || r.Kind != "test" {
		t.Errorf("Verify = %+v, want OK with 2 files of kind test", r)
	}
}

func TestCloseWithoutCommitKeepsTheEarlierRun(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, map[string]string{"a.txt": "one"})
	before := tree(t, dir)
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("a.txt", []byte("half")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteFile("b.txt", []byte("new")); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); strings.Join(got, " ") != strings.Join(before, " ") {
		t.Errorf("abandoned run changed the directory: %v, want %v", got, before)
	}
	if r := mustVerify(t, dir); !r.OK() {
		t.Errorf("earlier run no longer verifies: %v", r.Problems)
	}
}

func TestCommitRefusesACancelledContext(t *testing.T) {
	dir := t.TempDir()
	run(t, dir, map[string]string{"a.txt": "one"})
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.WriteFile("a.txt", []byte("two"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := w.Commit(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Commit(cancelled) = %v, want an error wrapping context.Canceled", err)
	}
	w.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one" {
		t.Errorf("a.txt = %q after a cancelled run, want the earlier %q", b, "one")
	}
}

func TestSecondWriterIsBusy(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Create(dir, "test")
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("second Create = %v, want ErrBusy", err)
	}
	if !strings.Contains(err.Error(), "pid "+itoa(os.Getpid())) {
		t.Errorf("busy error %q does not name the holder's pid %d", err, os.Getpid())
	}
	w.Close()
	w2, err := Create(dir, "test")
	if err != nil {
		t.Fatalf("Create after the holder closed: %v", err)
	}
	w2.Close()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestForeignDirectoryIsRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main"), 0o644)
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"tool":"npm"}`), 0o644)
	_, err := Create(dir, "test")
	if !errors.Is(err, ErrNotOwned) || !strings.Contains(err.Error(), `"main.go"`) {
		t.Fatalf("Create(foreign dir) = %v, want ErrNotOwned naming main.go", err)
	}
	want := []string{"main.go", ManifestFile}
	if got := tree(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("refused Create touched the directory: %v", got)
	}
	// A directory whose manifest hpccgold wrote (an older run without the
	// lock file) is taken.
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"tool":"hpccgold 0.0.9"}`), 0o644)
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatalf("Create(dir with an hpccgold manifest) = %v", err)
	}
	w.Close()
}

func TestCreateOnAFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, nil, 0o644)
	if _, err := Create(f, "test"); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Create(file) = %v, want a not-a-directory error", err)
	}
}

func TestCommitManifestMustMatchTheStagedFiles(t *testing.T) {
	for _, tc := range []struct {
		name, manifest, want string
	}{
		{"unlisted", `{"files":[{"name":"a.txt","bytes":3}]}`, "does not list the staged file b.txt"},
		{"wrong size", `{"files":[{"name":"a.txt","bytes":4},{"name":"b.txt","bytes":1}]}`, "a.txt has 4 bytes"},
		{"not staged", `{"files":[{"name":"a.txt","bytes":3},{"name":"b.txt","bytes":1},{"name":"c","bytes":0}]}`, "lists c, which was not staged"},
		{"not JSON", `{`, "manifest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			w, err := Create(dir, "test")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			w.WriteFile("a.txt", []byte("abc"))
			w.WriteFile("b.txt", []byte("x"))
			err = w.CommitManifest(context.Background(), []byte(tc.manifest))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("CommitManifest = %v, want an error containing %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "a.txt")); err == nil {
				t.Error("a refused manifest still committed the files")
			}
		})
	}
}

func TestWriteFileRejectsEscapingNames(t *testing.T) {
	w, err := Create(t.TempDir(), "test")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, n := range []string{"", "../x", "/etc/x", "a/../../x", "./a", "a//b", LockFile, "sub/" + LockFile} {
		if err := w.WriteFile(n, nil); err == nil {
			t.Errorf("WriteFile(%q) accepted", n)
		}
	}
}

func TestVerifyFindsEveryKindOfDamage(t *testing.T) {
	files := map[string]string{"a.txt": "alpha", "sub/b.txt": "beta"}
	for _, tc := range []struct {
		name   string
		damage func(dir string)
		want   string
	}{
		{"intact", func(string) {}, ""},
		{"changed", func(d string) { os.WriteFile(filepath.Join(d, "a.txt"), []byte("alphA"), 0o644) }, "a.txt: SHA-256"},
		{"truncated", func(d string) { os.WriteFile(filepath.Join(d, "sub/b.txt"), []byte("be"), 0o644) }, "sub/b.txt: 2 bytes, the manifest says 4"},
		{"missing", func(d string) { os.Remove(filepath.Join(d, "a.txt")) }, "a.txt: listed in the manifest but missing"},
		{"unlisted", func(d string) { os.WriteFile(filepath.Join(d, "sub/extra.png"), nil, 0o644) }, "sub/extra.png: not listed"},
		{"stale temporary", func(d string) { os.WriteFile(filepath.Join(d, ".a.txt.tmp-123"), nil, 0o644) }, ".a.txt.tmp-123: not listed"},
		{"no manifest", func(d string) { os.Remove(filepath.Join(d, ManifestFile)) }, "manifest.json is missing"},
		{"bad manifest", func(d string) { os.WriteFile(filepath.Join(d, ManifestFile), []byte("{"), 0o644) }, "manifest.json: unexpected end"},
		{"escaping name", func(d string) {
			os.WriteFile(filepath.Join(d, ManifestFile), []byte(`{"files":[{"name":"../x"}]}`), 0o644)
		}, `file name "../x"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			run(t, dir, files)
			tc.damage(dir)
			r := mustVerify(t, dir)
			got := strings.Join(r.Problems, "\n")
			if tc.want == "" {
				if !r.OK() {
					t.Fatalf("intact directory: problems %s", got)
				}
				return
			}
			if r.OK() || !strings.Contains(got, tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestKilledWriterLeavesNothingComplete kills (SIGKILL) a writer process
// in the middle of a run and checks that the earlier run still verifies,
// that the leftovers are hidden, and that the next writer removes them.
func TestKilledWriterLeavesNothingComplete(t *testing.T) {
	if os.Getenv("ARTEFACT_HELPER_DIR") != "" {
		return
	}
	dir := t.TempDir()
	run(t, dir, map[string]string{"a.txt": "one"})
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$")
	cmd.Env = append(os.Environ(), "ARTEFACT_HELPER_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The helper prints "staged" once its files are in the staging area,
	// then blocks.
	line, _ := bufio.NewReader(out).ReadString('\n')
	if strings.TrimSpace(line) != "staged" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said %q, want staged", line)
	}
	if _, err := Create(dir, "test"); !errors.Is(err, ErrBusy) {
		t.Errorf("Create while the helper runs = %v, want ErrBusy", err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if r := mustVerify(t, dir); !r.OK() {
		t.Errorf("after the kill the earlier run does not verify: %v", r.Problems)
	}
	if r := mustVerify(t, dir); len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "left by a killed run (2 files, 7 bytes)") {
		t.Errorf("Verify notes = %q, want one naming the staging leftover and its size", r.Notes)
	}
	var hidden int
	for _, e := range tree(t, dir) {
		if strings.HasPrefix(e, stagingPrefix) {
			hidden++
		}
	}
	if hidden == 0 {
		t.Fatalf("no staging leftover after SIGKILL (the test would not test the cleanup): %v", tree(t, dir))
	}
	run(t, dir, map[string]string{"a.txt": "two"})
	want := []string{LockFile, "a.txt", ManifestFile}
	sort.Strings(want)
	if got := tree(t, dir); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("the next run left %v, want %v", got, want)
	}
}

// TestHelperWriter is the process TestKilledWriterLeavesNothingComplete
// kills; it does nothing in a normal run.
func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("ARTEFACT_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process only")
	}
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	w.WriteFile("a.txt", []byte("half"))
	w.WriteFile("b.txt", []byte("new"))
	os.Stdout.WriteString("staged\n")
	select {}
}

// TestCacheSurvivesCommits checks that the cache directory outlives runs
// and is not an output (not listed, not reported by Verify).
func TestCacheSurvivesCommits(t *testing.T) {
	dir := t.TempDir()
	w, err := Create(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	c, err := w.Cache()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(c, "build.o"), []byte("obj"), 0o644)
	w.WriteFile("a.txt", []byte("one"))
	if err := w.Commit(context.Background()); err != nil {
		t.Fatal(err)
	}
	run(t, dir, map[string]string{"b.txt": "two"})
	if b, err := os.ReadFile(filepath.Join(dir, CacheDir, "build.o")); err != nil || string(b) != "obj" {
		t.Fatalf("cache entry after a later run: %q %v", b, err)
	}
	r := mustVerify(t, dir)
	if !r.OK() || r.Files != 1 {
		t.Errorf("Verify = %+v, want OK with only b.txt listed", r)
	}
	w2, _ := Create(t.TempDir(), "test")
	defer w2.Close()
	if err := w2.WriteFile(CacheDir+"/x", nil); err == nil {
		t.Error("WriteFile into the cache directory accepted")
	}
}
