package artefact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Report is the outcome of Verify.
type Report struct {
	Dir      string
	Tool     string   // the manifest's "tool"
	Kind     string   // the manifest's "kind" ("" for kinds whose manifest has none)
	Files    int      // files the manifest lists
	Problems []string // each a reason the directory is not what its manifest says; empty when OK
	// Notes name hidden leftovers of a killed run (a staging directory, an
	// earlier run moved aside): not part of the output, removed by the next
	// run into the directory, but taking space until then.
	Notes []string
}

// OK reports whether the directory verified.
func (r *Report) OK() bool { return len(r.Problems) == 0 }

// Write prints the problems and a one-line verdict.
func (r *Report) Write(w io.Writer) error {
	for _, n := range r.Notes {
		if _, err := fmt.Fprintf(w, "note: %s\n", n); err != nil {
			return err
		}
	}
	for _, p := range r.Problems {
		if _, err := fmt.Fprintf(w, "problem: %s\n", p); err != nil {
			return err
		}
	}
	verdict := "OK"
	if !r.OK() {
		verdict = fmt.Sprintf("FAILED (%d problems)", len(r.Problems))
	}
	kind := r.Kind
	if kind == "" {
		kind = "output"
	}
	_, err := fmt.Fprintf(w, "verify %s: %s, %d files: %s\n", r.Dir, kind, r.Files, verdict)
	return err
}

// Verify checks dir against its manifest.json: every listed file exists
// with the recorded size and SHA-256, and every file of the tree (lock files
// and a killed run's hidden leftovers aside) is listed. A missing or
// unreadable manifest is a problem of the directory (an interrupted or
// foreign output), not an error; the error is for a dir that cannot be read.
func Verify(dir string) (*Report, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("artefact: verify: %w", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("artefact: verify %s: not a directory", dir)
	}
	rep := &Report{Dir: dir}
	problem := func(format string, a ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, a...)) }
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		problem("%s is missing: not a complete hpccgold output (an interrupted run leaves none)", ManifestFile)
		return rep, nil
	}
	if err != nil {
		return nil, fmt.Errorf("artefact: verify: %w", err)
	}
	var m struct {
		Tool  string `json:"tool"`
		Kind  string `json:"kind"`
		Files []File `json:"files"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		problem("%s: %v", ManifestFile, err)
		return rep, nil
	}
	rep.Tool, rep.Kind, rep.Files = m.Tool, m.Kind, len(m.Files)
	listed := map[string]bool{}
	for _, f := range m.Files {
		if err := checkName(f.Name); err != nil || f.Name == ManifestFile {
			problem("%s lists the file name %q, which cannot be an output", ManifestFile, f.Name)
			continue
		}
		if listed[f.Name] {
			problem("%s lists %s twice", ManifestFile, f.Name)
			continue
		}
		listed[f.Name] = true
		n, sum, err := hashFile(filepath.Join(dir, filepath.FromSlash(f.Name)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problem("%s: listed in the manifest but missing", f.Name)
		case err != nil:
			problem("%s: %v", f.Name, err)
		case n != f.Bytes:
			problem("%s: %d bytes, the manifest says %d", f.Name, n, f.Bytes)
		case sum != f.SHA256:
			problem("%s: SHA-256 %s, the manifest says %s", f.Name, sum, f.SHA256)
		}
	}
	if des, err := os.ReadDir(dir); err == nil {
		for _, de := range des {
			if n := de.Name(); strings.HasPrefix(n, stagingPrefix) || strings.HasPrefix(n, oldPrefix) {
				files, _ := List(filepath.Join(dir, n))
				var size int64
				for _, f := range files {
					size += f.Bytes
				}
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s: left by a killed run (%d files, %d bytes); not part of the output, the next run into %s removes it", n, len(files), size, dir))
			}
		}
	}
	present, err := List(dir)
	if err != nil {
		problem("%v", err)
		return rep, nil
	}
	for _, f := range present {
		if !listed[f.Name] {
			problem("%s: not listed in the manifest (left by another run, or added by hand)", f.Name)
		}
	}
	return rep, nil
}
