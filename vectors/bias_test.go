package vectors

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// TestBiasedRandom checks the bias schedule of --until-covered: biased
// vectors are the plain draws with, for about half of them, the biased
// field replaced by one of its boundary patterns (oracle: the plain set of
// the same seed and Patterns); RandomInputs returns exactly the set's
// random vectors; the manifest records the schedule and Verify regenerates
// the set from it, and fails when the recorded schedule is changed.
func TestBiasedRandom(t *testing.T) {
	m := newMac(macConfig{})
	bias := []BiasStep{{From: 0, Field: ""}, {From: 100, Field: "a"}, {From: 300, Field: "b"}}
	plain, err := Generate(m, Options{Seed: 7, Count: 500})
	if err != nil {
		t.Fatal(err)
	}
	biased, err := Generate(m, Options{Seed: 7, Count: 500, Bias: bias})
	if err != nil {
		t.Fatal(err)
	}
	in := m.Input()
	d := plain.Len() - 500
	pats := map[string]map[uint64]bool{}
	for _, name := range []string{"a", "b"} {
		f := in.Fields[in.Index(name)]
		pats[name] = map[uint64]bool{}
		for _, v := range Patterns(f.Width, fieldtable.Mask(f.Width)) {
			pats[name][v] = true
		}
	}
	changed := map[string]int{}
	words, err := RandomInputs(m, 7, bias, 500, 0, 500)
	if err != nil {
		t.Fatal(err)
	}
	for j := 0; j < 500; j++ {
		p, b := plain.Input(d+j), biased.Input(d+j)
		for k := range b {
			if b[k] != words[j][k] {
				t.Fatalf("random vector %d: RandomInputs differs from the generated set", j)
			}
		}
		want := ""
		switch {
		case j >= 300:
			want = "b"
		case j >= 100:
			want = "a"
		}
		for _, f := range in.Fields {
			pv, bv := fieldtable.Get(p, f), fieldtable.Get(b, f)
			if f.Name != want && pv != bv {
				t.Fatalf("random vector %d: field %s changed (%#x -> %#x); only %q is biased there", j, f.Name, pv, bv, want)
			}
			if f.Name == want && pv != bv {
				changed[want]++
				if !pats[want][bv] {
					t.Fatalf("random vector %d: biased %s = %#x is not one of its patterns", j, want, bv)
				}
			}
		}
	}
	// About half of each biased range is overwritten (a pattern can equal the draw).
	if changed["a"] < 60 || changed["a"] > 140 || changed["b"] < 60 || changed["b"] > 140 {
		t.Errorf("biased vectors changed: %v; want about half of 200 each", changed)
	}

	dir := t.TempDir()
	man, err := GenerateDir(dir, m, Options{Seed: 7, Count: 500, Bias: bias})
	if err != nil {
		t.Fatal(err)
	}
	if len(man.Bias) != 3 || man.Bias[1] != bias[1] {
		t.Fatalf("manifest bias %v, want %v", man.Bias, bias)
	}
	if rep, err := VerifyWith(dir, openMac); err != nil || !rep.OK() {
		t.Fatalf("verify of a biased set: %v %v", err, rep)
	}
	// Change the schedule in the manifest: verify must notice.
	raw, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var mm map[string]any
	if err := json.Unmarshal(raw, &mm); err != nil {
		t.Fatal(err)
	}
	mm["bias"].([]any)[1].(map[string]any)["from"] = 101
	raw, _ = json.Marshal(mm)
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyWith(dir, openMac); err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), StimulusFile) {
		t.Fatalf("verify with a changed bias schedule: %v %v; want a stimulus difference", err, rep)
	}

	for _, tc := range []struct {
		bias []BiasStep
		want string
	}{
		{[]BiasStep{{From: 5, Field: "nope"}}, `Field="nope"`},
		{[]BiasStep{{From: 5, Field: "a"}, {From: 5, Field: "b"}}, "increasing"},
		{[]BiasStep{{From: 500, Field: "a"}}, "in [0,500)"},
	} {
		if _, err := Generate(m, Options{Seed: 7, Count: 500, Bias: tc.bias}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("bias %v: err %v, want %q", tc.bias, err, tc.want)
		}
	}
}
