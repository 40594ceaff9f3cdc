package artefact

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
)

// Names of the entries Writer keeps in a directory besides the outputs.
const (
	// ManifestFile is the manifest every committed directory holds.
	ManifestFile = "manifest.json"
	// LockFile is the lock (and ownership mark) of a directory. It stays
	// after a run and is never listed in a manifest.
	LockFile = ".hpccgold.lock"
	// CacheDir is a directory of reusable intermediate results (simulator
	// builds keyed by their inputs' hash) kept across runs: commits leave
	// it in place and it is not part of the outputs (never listed in a
	// manifest, never reported by Verify).
	CacheDir = ".hpccgold-cache"
	// stagingPrefix and oldPrefix name the hidden directories a run works
	// in; one left behind belongs to a killed run and Create removes it.
	stagingPrefix = ".hpccgold-staging-"
	oldPrefix     = ".hpccgold-old-"
)

// ErrBusy is wrapped when another process is writing the directory.
var ErrBusy = errors.New("directory is being written by another hpccgold process")

// ErrNotOwned is wrapped when a non-empty directory was not written by
// hpccgold.
var ErrNotOwned = errors.New("directory holds files hpccgold did not write")

// Writer writes one output directory: files go into a staging directory
// (Root) and reach the directory only through Commit. A Writer is used by
// one goroutine at a time.
type Writer struct {
	dir       string // absolute output directory
	kind      string
	staging   string // absolute staging directory inside dir
	lock      *lock
	committed bool
	closed    bool
}

// Create takes dir (created if missing) for writing output of the given kind
// ("vectors", "sim", "demo", "verilog", ...): it locks it, checks hpccgold
// owns it, removes what a killed run left, and makes a fresh staging
// directory. The caller must Close the Writer (after Commit, or to abandon
// the run). command describes the writer for a busy error (e.g.
// "hpccgold vectors gen"); empty means the process's arguments.
func Create(dir, kind string) (*Writer, error) {
	if dir == "" {
		return nil, errors.New("artefact: output directory: empty path")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("artefact: output directory %q: %w", dir, err)
	}
	if st, err := os.Stat(abs); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("artefact: output directory %s: exists and is not a directory", dir)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("artefact: output directory: %w", err)
	}
	owned, entries, err := ownership(abs)
	if err != nil {
		return nil, err
	}
	if !owned {
		return nil, fmt.Errorf("artefact: %s: %w (it holds %s); choose an empty or new directory",
			dir, ErrNotOwned, sample(entries))
	}
	lk, err := acquire(filepath.Join(abs, LockFile))
	if err != nil {
		return nil, fmt.Errorf("artefact: %s: %w", dir, err)
	}
	w := &Writer{dir: abs, kind: kind, lock: lk}
	if err := w.cleanLeftovers(); err != nil {
		lk.release()
		return nil, err
	}
	suffix, err := randomSuffix()
	if err != nil {
		lk.release()
		return nil, fmt.Errorf("artefact: %w", err)
	}
	w.staging = filepath.Join(abs, stagingPrefix+suffix)
	if err := os.Mkdir(w.staging, 0o755); err != nil {
		lk.release()
		return nil, fmt.Errorf("artefact: staging directory: %w", err)
	}
	return w, nil
}

// ownership reports whether hpccgold may write dir: it is empty, or holds
// the lock file, or a manifest written by hpccgold. It also returns the
// directory's entry names, sorted.
func ownership(dir string) (bool, []string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return false, nil, fmt.Errorf("artefact: %w", err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if len(names) == 0 {
		return true, nil, nil
	}
	for _, n := range names {
		if n == LockFile {
			return true, names, nil
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, ManifestFile)); err == nil {
		var m struct {
			Tool string `json:"tool"`
		}
		if json.Unmarshal(data, &m) == nil && strings.HasPrefix(m.Tool, buildinfo.Tool) {
			return true, names, nil
		}
	}
	return false, names, nil
}

// sample names up to three entries for an error message.
func sample(names []string) string {
	const show = 3
	q := make([]string, 0, show)
	for i, n := range names {
		if i == show {
			break
		}
		q = append(q, fmt.Sprintf("%q", n))
	}
	s := strings.Join(q, ", ")
	if len(names) > show {
		s += fmt.Sprintf(" and %d more", len(names)-show)
	}
	return s
}

// cleanLeftovers removes the staging and old-set directories and the
// atomicfile temporaries a killed run left in w.dir. Holding the lock
// guarantees no live writer owns them.
func (w *Writer) cleanLeftovers() error {
	des, err := os.ReadDir(w.dir)
	if err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	for _, de := range des {
		n := de.Name()
		if strings.HasPrefix(n, stagingPrefix) || strings.HasPrefix(n, oldPrefix) || atomicfile.IsTemp(n) {
			if err := os.RemoveAll(filepath.Join(w.dir, n)); err != nil {
				return fmt.Errorf("artefact: remove leftover of an interrupted run: %w", err)
			}
		}
	}
	return nil
}

func randomSuffix() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// Dir is the absolute path of the output directory.
func (w *Writer) Dir() string { return w.dir }

// Root is the absolute path of the staging directory: write every output
// under it (directly, or by handing it to a tool). Nothing under Root is
// visible in Dir until Commit.
func (w *Writer) Root() string { return w.staging }

// Cache returns the absolute path of the directory's cache (CacheDir),
// created if missing: intermediate results that later runs into the same
// directory may reuse. Whoever writes there must key entries by their
// inputs and write them atomically; the directory lock keeps writers
// apart.
func (w *Writer) Cache() (string, error) {
	p := filepath.Join(w.dir, CacheDir)
	if err := os.MkdirAll(p, 0o755); err != nil {
		return "", fmt.Errorf("artefact: cache: %w", err)
	}
	return p, nil
}

// Path returns the staging path of the slash-separated relative name.
func (w *Writer) Path(name string) string { return filepath.Join(w.staging, filepath.FromSlash(name)) }

// WriteFile writes data to the staged file name (slash-separated, relative;
// parent directories are created).
func (w *Writer) WriteFile(name string, data []byte) error {
	if err := checkName(name); err != nil {
		return err
	}
	p := w.Path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return fmt.Errorf("artefact: write %s: %w", name, err)
	}
	return nil
}

// checkName rejects names that would leave the staging directory or clash
// with the directory's own bookkeeping.
func checkName(name string) error {
	if name == "" || path.IsAbs(name) || path.Clean(name) != name || name == ".." || strings.HasPrefix(name, "../") {
		return fmt.Errorf("artefact: file name %q: must be a clean relative path inside the directory", name)
	}
	if path.Base(name) == LockFile || strings.SplitN(name, "/", 2)[0] == CacheDir {
		return fmt.Errorf("artefact: file name %q: reserved", name)
	}
	return nil
}

// File is one file of a manifest: its slash-separated path relative to the
// directory, size in bytes and SHA-256 (lowercase hex).
type File struct {
	Name   string `json:"name"`
	Bytes  int64  `json:"bytes"`
	SHA256 string `json:"sha256"`
}

// Manifest is the generic manifest.json that Commit writes.
type Manifest struct {
	Tool  string `json:"tool"`  // buildinfo.String() of the writer
	Kind  string `json:"kind"`  // what the directory holds: "demo", "verilog", "llvm", ...
	Files []File `json:"files"` // every file of the directory but the manifest, in name order
}

// Commit hashes every staged file, writes the generic Manifest and makes
// the staged tree the directory's content (see the package rules). It fails,
// committing nothing, if ctx is done.
func (w *Writer) Commit(ctx context.Context) error {
	if err := w.usable(); err != nil {
		return err
	}
	files, err := HashTree(w.staging)
	if err != nil {
		return err
	}
	m := Manifest{Tool: buildinfo.String(), Kind: w.kind, Files: files}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("artefact: manifest: %w", err)
	}
	return w.commit(ctx, append(data, '\n'))
}

// CommitManifest makes the staged tree the directory's content with data as
// its manifest.json. data must be a JSON object whose "files" array lists
// every staged file exactly (name and size are checked here; the SHA-256
// is the caller's, checked by Verify). It fails, committing nothing, if ctx
// is done or the manifest does not match the staged files.
func (w *Writer) CommitManifest(ctx context.Context, data []byte) error {
	if err := w.usable(); err != nil {
		return err
	}
	var m struct {
		Files []File `json:"files"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return fmt.Errorf("artefact: manifest: %w", err)
	}
	staged, err := List(w.staging)
	if err != nil {
		return err
	}
	listed := map[string]int64{}
	for _, f := range m.Files {
		listed[f.Name] = f.Bytes
	}
	for _, s := range staged {
		n, ok := listed[s.Name]
		if !ok {
			return fmt.Errorf("artefact: manifest of %s does not list the staged file %s", w.dir, s.Name)
		}
		if n != s.Bytes {
			return fmt.Errorf("artefact: manifest of %s says %s has %d bytes, the staged file has %d", w.dir, s.Name, n, s.Bytes)
		}
		delete(listed, s.Name)
	}
	for _, f := range m.Files {
		if _, missing := listed[f.Name]; missing {
			return fmt.Errorf("artefact: manifest of %s lists %s, which was not staged", w.dir, f.Name)
		}
	}
	return w.commit(ctx, data)
}

func (w *Writer) usable() error {
	if w.closed || w.committed {
		return fmt.Errorf("artefact: %s: writer already closed or committed", w.dir)
	}
	return nil
}

// commit swaps the staged tree in with manifest last.
func (w *Writer) commit(ctx context.Context, manifest []byte) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("artefact: %s not written: %w", w.dir, err)
	}
	// 1. Nothing may vouch for a half-replaced directory.
	if err := os.Remove(filepath.Join(w.dir, ManifestFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("artefact: remove the old manifest: %w", err)
	}
	// 2. The earlier run's files move aside (one rename each).
	suffix, err := randomSuffix()
	if err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	old := filepath.Join(w.dir, oldPrefix+suffix)
	if err := os.Mkdir(old, 0o755); err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	des, err := os.ReadDir(w.dir)
	if err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	for _, de := range des {
		n := de.Name()
		if n == LockFile || n == CacheDir || filepath.Join(w.dir, n) == w.staging || filepath.Join(w.dir, n) == old {
			continue
		}
		if err := os.Rename(filepath.Join(w.dir, n), filepath.Join(old, n)); err != nil {
			return fmt.Errorf("artefact: move the earlier run's %s aside: %w", n, err)
		}
	}
	// 3. The new files move in, then the manifest.
	des, err = os.ReadDir(w.staging)
	if err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	for _, de := range des {
		n := de.Name()
		if n == ManifestFile || n == LockFile || n == CacheDir {
			continue
		}
		if err := os.Rename(filepath.Join(w.staging, n), filepath.Join(w.dir, n)); err != nil {
			return fmt.Errorf("artefact: move %s into place: %w", n, err)
		}
	}
	if err := atomicfile.WriteBytes(filepath.Join(w.dir, ManifestFile), 0o644, manifest); err != nil {
		return fmt.Errorf("artefact: %w", err)
	}
	w.committed = true
	// 4. Only now is the earlier run gone for good.
	if err := os.RemoveAll(old); err != nil {
		return fmt.Errorf("artefact: remove the earlier run's files: %w", err)
	}
	return w.Close()
}

// Close abandons the run if it was not committed (the staging directory is
// removed and the directory keeps its earlier content) and releases the
// lock. Closing twice is harmless.
func (w *Writer) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := os.RemoveAll(w.staging)
	if rerr := w.lock.release(); err == nil {
		err = rerr
	}
	if err != nil {
		return fmt.Errorf("artefact: close %s: %w", w.dir, err)
	}
	return nil
}

// Committed reports whether Commit or CommitManifest succeeded.
func (w *Writer) Committed() bool { return w.committed }

// ignored reports whether a walked entry is bookkeeping, not output: lock
// files at any depth, and the hidden working directories of Writer.
func ignored(name string) bool {
	return name == LockFile || name == CacheDir || strings.HasPrefix(name, stagingPrefix) || strings.HasPrefix(name, oldPrefix)
}

// List returns every regular file under root (manifest.json at the top
// excluded; lock files and a run's hidden working directories ignored) with
// its size (SHA-256 left empty), in name order. Other file types (symlinks,
// devices) are an error: outputs are plain files.
func List(root string) ([]File, error) {
	var files []File
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		if ignored(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			return nil
		}
		if rel == ManifestFile {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", rel)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		files = append(files, File{Name: rel, Bytes: info.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("artefact: list %s: %w", root, err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].Name < files[j].Name })
	return files, nil
}

// HashTree returns every regular file under root, except root/manifest.json
// and bookkeeping, with its size and SHA-256, in name order.
func HashTree(root string) ([]File, error) {
	files, err := List(root)
	if err != nil {
		return nil, err
	}
	for i := range files {
		n, sum, err := hashFile(filepath.Join(root, filepath.FromSlash(files[i].Name)))
		if err != nil {
			return nil, fmt.Errorf("artefact: hash %s: %w", files[i].Name, err)
		}
		files[i].Bytes, files[i].SHA256 = n, sum
	}
	return files, nil
}

func hashFile(p string) (int64, string, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return 0, "", err
	}
	return n, hex.EncodeToString(h.Sum(nil)), nil
}
