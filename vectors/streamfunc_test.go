package vectors

import (
	"bytes"
	"context"
	"errors"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// streamTables are a small event and output layout whose lines span two
// words and end mid-word (60 + 10 + 3 bits, 13 + 64 bits).
func streamTables(t *testing.T) (in, out fieldtable.Table) {
	t.Helper()
	in, err := fieldtable.New("ev", []fieldtable.Spec{{Name: "ev_a", Width: 60, Format: "uint"}, {Name: "ev_c", Width: 10, Format: "uint"}, {Name: "ev_b", Width: 3, Format: "uint"}})
	if err != nil {
		t.Fatal(err)
	}
	out, err = fieldtable.New("upd", []fieldtable.Spec{{Name: "upd_a", Width: 13, Format: "uint"}, {Name: "upd_b", Width: 64, Format: "uint"}})
	if err != nil {
		t.Fatal(err)
	}
	return in, out
}

// randomLines returns n random lines of t (bits above the width zero).
func randomLines(r *rand.Rand, t fieldtable.Table, n int) [][]uint64 {
	ls := make([][]uint64, n)
	for k := range ls {
		w := make([]uint64, t.Words())
		for _, f := range t.Fields {
			fieldtable.PutBits(w, f.Offset, f.Width, r.Uint64())
		}
		ls[k] = w
	}
	return ls
}

// TestWriteStreamSetFuncIsWriteStreamSet writes the same events with
// WriteStreamSet (every line in memory) and WriteStreamSetFunc (one line at
// a time, the words reused), for sets of 1 line to several flush blocks:
// every file must be byte-identical. Oracle: WriteStreamSet.
func TestWriteStreamSetFuncIsWriteStreamSet(t *testing.T) {
	in, out := streamTables(t)
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 7, 3*streamFlush/20 + 5} {
		stim, exp := randomLines(r, in, n), randomLines(r, out, n)
		mod := ModuleInfo{FlowBits: 3, Stages: 2, Kinds: []string{"a", "b"}, EventsPerKind: n, Seed: 9, WantStalls: 42}
		classes := []ClassCount{{Name: "stream_a", Doc: "first", Count: int64(n / 2)}, {Name: "stream_b", Doc: "rest", Count: int64(n - n/2)}}
		s := StreamSet{Model: "test_module", Config: map[string]int{"k": 1}, In: in, Out: out, Classes: classes, Module: mod}
		want, got := filepath.Join(t.TempDir(), "want"), filepath.Join(t.TempDir(), "got")
		ws := s
		ws.Stim, ws.Exp = stim, exp
		if _, err := WriteStreamSet(context.Background(), want, ws); err != nil {
			t.Fatal(err)
		}
		sw, ew := make([]uint64, in.Words()), make([]uint64, out.Words())
		if _, err := WriteStreamSetFunc(context.Background(), got, s, func(emit func(stim, exp []uint64) error) (ModuleInfo, error) {
			for k := range stim {
				copy(sw, stim[k])
				copy(ew, exp[k])
				if err := emit(sw, ew); err != nil {
					return ModuleInfo{}, err
				}
				clear(sw) // emit must not keep the words
				clear(ew)
			}
			return mod, nil
		}); err != nil {
			t.Fatal(err)
		}
		names, err := os.ReadDir(want)
		if err != nil {
			t.Fatal(err)
		}
		files := 0
		for _, e := range names {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			files++
			a, errA := os.ReadFile(filepath.Join(want, e.Name()))
			b, errB := os.ReadFile(filepath.Join(got, e.Name()))
			if errA != nil || errB != nil || !bytes.Equal(a, b) {
				t.Errorf("%d events: %s differs (%v, %v; %d and %d bytes)", n, e.Name(), errA, errB, len(a), len(b))
			}
		}
		if files != 6 {
			t.Errorf("%d events: %d files, want 6 (stimulus, expected, classes, fields.vh, layout, manifest)", n, files)
		}
	}
}

// TestWriteStreamSetFuncErrors: a feed error, a line of the wrong width,
// classes that do not add up to the events and no events at all leave no
// set in the directory and say what was wrong.
func TestWriteStreamSetFuncErrors(t *testing.T) {
	in, out := streamTables(t)
	one := []ClassCount{{Name: "stream_a", Count: 2}}
	sw, ew := make([]uint64, in.Words()), make([]uint64, out.Words())
	boom := errors.New("boom")
	for _, c := range []struct {
		name    string
		classes []ClassCount
		feed    func(emit func(stim, exp []uint64) error) (ModuleInfo, error)
		want    string
	}{
		{"feed error", one, func(emit func(stim, exp []uint64) error) (ModuleInfo, error) {
			emit(sw, ew)
			return ModuleInfo{}, boom
		}, "boom"},
		{"short line", one, func(emit func(stim, exp []uint64) error) (ModuleInfo, error) {
			return ModuleInfo{}, emit(sw[:1], ew)
		}, "stimulus.hex line 1: 1 words, layout ev has 2"},
		{"classes", one, func(emit func(stim, exp []uint64) error) (ModuleInfo, error) {
			return ModuleInfo{}, emit(sw, ew)
		}, "classes hold 2 events, the set 1"},
		{"empty", nil, func(emit func(stim, exp []uint64) error) (ModuleInfo, error) {
			return ModuleInfo{}, nil
		}, "no events"},
	} {
		dir := filepath.Join(t.TempDir(), "set")
		_, err := WriteStreamSetFunc(context.Background(), dir, StreamSet{Model: "m", Config: 1, In: in, Out: out, Classes: c.classes}, c.feed)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, ManifestFile)); err == nil {
			t.Errorf("%s: a manifest was committed", c.name)
		}
	}
	if _, err := WriteStreamSetFunc(context.Background(), t.TempDir(), StreamSet{In: in, Out: out, Stim: [][]uint64{sw}}, nil); err == nil {
		t.Error("events given in StreamSet.Stim: no error")
	}
}
