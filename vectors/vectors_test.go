package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/hpccgold/hpccgold/artefact"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// genDir generates the mac model's vectors into a fresh directory.
func genDir(t *testing.T, cfg macConfig, opts Options) (string, *Manifest) {
	t.Helper()
	dir := t.TempDir()
	man, err := GenerateDir(dir, newMac(cfg), opts)
	if err != nil {
		t.Fatalf("GenerateDir: %v", err)
	}
	return dir, man
}

func readFile(t *testing.T, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var allFiles = []string{StimulusFile, ExpectedFile, JSONLFile, FieldsVHFile, LayoutFile, ManifestFile}

// TestDeterminism checks that the same model, options and seed give
// byte-identical files (manifest included) whatever the number of workers,
// and that Generate+Write gives the same bytes as the streaming GenerateDir.
// The oracle is the first run's bytes.
func TestDeterminism(t *testing.T) {
	opts := Options{Level: 2, Seed: 42, Count: 3*blockSize + 17}
	opts.Workers = 1
	d1, _ := genDir(t, macConfig{}, opts)
	opts.Workers = 3
	d2, _ := genDir(t, macConfig{}, opts)
	set, err := Generate(newMac(macConfig{}), opts)
	if err != nil {
		t.Fatal(err)
	}
	d3 := t.TempDir()
	if err := set.Write(d3); err != nil {
		t.Fatal(err)
	}
	for _, name := range allFiles {
		a := readFile(t, d1, name)
		for _, d := range []string{d2, d3} {
			if b := readFile(t, d, name); !bytes.Equal(a, b) {
				t.Errorf("%s differs between %s and %s", name, d1, d)
			}
		}
	}
	// A different seed changes the random vectors.
	opts.Seed = 43
	d4, _ := genDir(t, macConfig{}, opts)
	if bytes.Equal(readFile(t, d1, StimulusFile), readFile(t, d4, StimulusFile)) {
		t.Error("seeds 42 and 43 gave the same stimulus")
	}
}

// TestShardsConcatenate checks that shards i/n, concatenated in order, are
// byte for byte the unsharded stimulus, expected and JSONL files, for shard
// counts that do and do not divide the total and for more shards than
// vectors; the oracle is the unsharded set.
func TestShardsConcatenate(t *testing.T) {
	opts := Options{Level: 2, Seed: 7, Count: 2*blockSize + 5}
	whole, wm := genDir(t, macConfig{}, opts)
	for _, n := range []int{1, 2, 3, 7} {
		cat := map[string][]byte{}
		var count int64
		for i := 0; i < n; i++ {
			o := opts
			o.Shard = Shard{Index: i, Count: n}
			d, m := genDir(t, macConfig{}, o)
			if m.Shard.First != count {
				t.Errorf("n=%d shard %d: first=%d, want %d", n, i, m.Shard.First, count)
			}
			count += m.Count
			for _, name := range []string{StimulusFile, ExpectedFile, JSONLFile} {
				cat[name] = append(cat[name], readFile(t, d, name)...)
			}
		}
		if count != wm.Count {
			t.Errorf("n=%d: shard counts sum to %d, want %d", n, count, wm.Count)
		}
		for name, b := range cat {
			if !bytes.Equal(b, readFile(t, whole, name)) {
				t.Errorf("n=%d: concatenated %s differs from the unsharded file", n, name)
			}
		}
	}
	// More shards than vectors: a shard that would hold no vector is
	// refused (an empty set is not a result; docs/vectors.md, sharding).
	o := Options{Level: 1, Count: 0, Shard: Shard{Index: 20, Count: 40}}
	if _, err := GenerateDir(t.TempDir(), newMac(macConfig{}), o); err == nil || !strings.Contains(err.Error(), "shard 20/40 of a set of 12 vectors holds no vector") {
		t.Errorf("empty shard 20/40 of 12 vectors: error %v, want it refused", err)
	}
}

// TestParseShard checks the i/n syntax and its bounds.
func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		in   string
		ok   bool
		want Shard
	}{{"0/1", true, Shard{0, 1}}, {"3/4", true, Shard{3, 4}}, {"4/4", false, Shard{}}, {"-1/2", false, Shard{}},
		{"1", false, Shard{}}, {"a/b", false, Shard{}}, {"0/0", false, Shard{}}} {
		got, err := ParseShard(c.in)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// TestClassCounts checks the manifest's class ranges and counts against the
// mac model's enumeration (written out by hand in its Directed doc comment:
// 6 zero_a, 2 sat, 4 max_b, then 44 x 28 level-2 patterns, per Patterns'
// 4w-4 count for full-width fields) and detected hits against a count made
// here by brute force over the set.
func TestClassCounts(t *testing.T) {
	set, err := Generate(newMac(macConfig{}), Options{Level: 2, Seed: 1, Count: 1000})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name         string
		first, total int64
	}{{"zero_a", 0, 6}, {"sat", 6, 2}, {"max_b", 8, 4}, {"pattern_a_b", 12, 44 * 28}, {RandomClass, 12 + 44*28, 1000}}
	m := set.Manifest
	if len(m.Classes) != len(want) {
		t.Fatalf("%d classes, want %d", len(m.Classes), len(want))
	}
	for i, w := range want {
		c := m.Classes[i]
		if c.Name != w.name || c.First != w.first || c.Total != w.total || c.Count != w.total {
			t.Errorf("class %d = %s first %d total %d count %d; want %s %d %d", i, c.Name, c.First, c.Total, c.Count, w.name, w.first, w.total)
		}
	}
	// Brute-force hit counts from the packed vectors.
	var zeroA, sat, maxB int64
	for k := 0; k < set.Len(); k++ {
		in, out := set.Input(k), set.Output(k)
		if fieldtable.GetBits(in, 0, 12) == 0 {
			zeroA++
		}
		if fieldtable.GetBits(out, 16, 1) == 1 {
			sat++
		}
		if fieldtable.GetBits(in, 12, 8) == 255 {
			maxB++
		}
		if got, want := set.Class(k), m.ClassAt(set.Index(k)); got != want {
			t.Fatalf("vector %d: Class %s, manifest ClassAt %s", k, got, want)
		}
	}
	for i, n := range []int64{zeroA, sat, maxB} {
		if m.Classes[i].Hits != n {
			t.Errorf("class %s hits = %d, want %d", m.Classes[i].Name, m.Classes[i].Hits, n)
		}
	}
	if m.Classes[3].Hits != 0 || m.Classes[3].Detected {
		t.Errorf("pattern class: detected %v hits %d, want false 0", m.Classes[3].Detected, m.Classes[3].Hits)
	}
	// Cover point sel: add + mul = every vector.
	sel := m.Coverage.Points[0]
	if sel.Counts[0]+sel.Counts[1] != uint64(set.Len()) || sel.Hit != 2 {
		t.Errorf("sel counts %v hit %d, want summing to %d, 2 hit", sel.Counts, sel.Hit, set.Len())
	}
	// Every input bit toggles over this set; output y's top bits do too (saturation).
	if m.Coverage.InputBits.Toggled != 21 || m.Coverage.OutputBits.Toggled != 17 {
		t.Errorf("toggled in %d/21 out %d/17", m.Coverage.InputBits.Toggled, m.Coverage.OutputBits.Toggled)
	}
}

// TestGenerateErrors checks loud failures: a class the generator cannot
// produce, a vector that does not hit the class it was generated for,
// unknown or too-high requested classes, bad options.
func TestGenerateErrors(t *testing.T) {
	cases := []struct {
		name string
		cfg  macConfig
		opts Options
		want string
	}{
		{"skip", macConfig{SkipClass: "sat"}, Options{}, "class sat (level 1) cannot be produced"},
		{"skip2", macConfig{SkipClass: "pattern_a_b"}, Options{Level: 2}, "class pattern_a_b (level 2) cannot be produced"},
		{"mislabel", macConfig{Mislabel: true}, Options{}, "vector 6 (class sat): the evaluator does not detect class sat"},
		{"unknown", macConfig{}, Options{Classes: []string{"nope"}}, `requested class "nope" does not exist`},
		{"level", macConfig{}, Options{Classes: []string{"pattern_a_b"}}, "class pattern_a_b is level 2"},
		{"level3", macConfig{}, Options{Level: 3}, "Level=3"},
		{"count", macConfig{}, Options{Count: -1}, "Count=-1"},
		{"shard", macConfig{}, Options{Shard: Shard{2, 2}}, "shard 2/2"},
	}
	for _, c := range cases {
		_, err := Generate(newMac(c.cfg), c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.want)
		}
	}
	// A failed GenerateDir leaves the directory as it was: the earlier,
	// complete set, still verifying (package artefact stages the new one).
	dir := t.TempDir()
	if _, err := GenerateDir(dir, newMac(macConfig{}), Options{Count: 5}); err != nil {
		t.Fatal(err)
	}
	before, err := artefact.HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateDir(dir, newMac(macConfig{Mislabel: true}), Options{Count: 7}); err == nil {
		t.Fatal("mislabelled model generated")
	}
	after, err := artefact.HashTree(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Errorf("a failed run changed the directory:\nbefore %v\nafter  %v", before, after)
	}
	if r, err := artefact.Verify(dir); err != nil || !r.OK() {
		t.Errorf("earlier set no longer verifies after a failed run: %v %v", err, r)
	}
}

// TestClassFilter checks that a class filter keeps only the requested
// directed classes (and the random vectors).
func TestClassFilter(t *testing.T) {
	set, err := Generate(newMac(macConfig{}), Options{Classes: []string{"max_b"}, Count: 3})
	if err != nil {
		t.Fatal(err)
	}
	if set.Len() != 7 || set.Class(0) != "max_b" || set.Class(4) != RandomClass {
		t.Errorf("len %d, classes %s..%s; want 7 vectors, max_b then random", set.Len(), set.Class(0), set.Class(4))
	}
}

// TestAppendReal checks exact decimal real values against math/big
// (raw * 2^-F computed as a big.Rat and printed with enough digits).
func TestAppendReal(t *testing.T) {
	cases := []struct {
		format string
		width  int
		raw    uint64
		want   string
	}{
		{"u12.8", 12, 0x1f, "1.9375"},
		{"s8.4", 8, 0xff, "-0.0625"},
		{"s8.4", 8, 0x80, "-8"},
		{"u8.10", 8, 3, "12"},
		{"uint", 64, ^uint64(0), "18446744073709551615"},
		{"int", 64, 1 << 63, "-9223372036854775808"},
		{"u64.0", 64, 1, "0.0000000000000000000542101086242752217003726400434970855712890625"},
		{"u64.60", 64, 0xffffffffffffffff, "1152921504606846975.9375"},
		{"u64.4", 64, 0xffffffffffffffff, "15.999999999999999999132638262011596452794037759304046630859375"},
		{"s16.24", 16, 0x7fff, "8388352"},
		{"s16.-8", 16, 0x8001, "-0.001953065395355224609375"},
		{"u64.70", 64, 0xffffffffffffffff, "1180591620717411303360"},
	}
	for _, c := range cases {
		ff, err := parseFieldFormat(fieldtable.Field{Name: "f", Width: c.width, Format: c.format})
		if err != nil {
			t.Fatalf("%s: %v", c.format, err)
		}
		got := string(appendReal(nil, ff, c.width, c.raw))
		// Oracle: big.Rat of the signed/unsigned raw times 2^-F.
		r := new(big.Int).SetUint64(c.raw)
		if ff.signed && c.raw>>uint(c.width-1)&1 == 1 {
			r.Sub(r, new(big.Int).Lsh(big.NewInt(1), uint(c.width)))
		}
		q := new(big.Rat).SetInt(r)
		if ff.frac > 0 {
			q.Quo(q, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(ff.frac))))
		} else {
			q.Mul(q, new(big.Rat).SetInt(new(big.Int).Lsh(big.NewInt(1), uint(-ff.frac))))
		}
		back, ok := new(big.Rat).SetString(got)
		if got != c.want || !ok || back.Cmp(q) != 0 {
			t.Errorf("appendReal(%s, %#x) = %s, want %s (= %s)", c.format, c.raw, got, c.want, q.FloatString(70))
		}
	}
	for _, bad := range []fieldtable.Field{{Name: "f", Width: 8, Format: "u9.1"}, {Name: "f", Width: 2, Format: "bool"}, {Name: "f", Width: 8, Format: "q8.1"}} {
		if _, err := parseFieldFormat(bad); err == nil || !strings.Contains(err.Error(), "field f") {
			t.Errorf("parseFieldFormat(%+v) err = %v, want error naming field f", bad, err)
		}
	}
}

// TestPatterns checks the level-2 operand table: 4w-4 distinct values for a
// full-width field (0, w single bits, w-1 new LSB runs, w-2 new MSB runs,
// w-2 new all-but-one; counted by hand for w = 3: {0,1,2,4,3,7,6,5}), all
// of them present; clipping to a legal maximum keeps max and max-1.
func TestPatterns(t *testing.T) {
	if got := Patterns(3, 7); len(got) != 8 {
		t.Errorf("Patterns(3) = %v, want the 8 values 0..7", got)
	}
	for _, w := range []int{3, 8, 12, 32, 64} {
		p := Patterns(w, fieldtable.Mask(w))
		if len(p) != 4*w-4 {
			t.Errorf("len(Patterns(%d)) = %d, want %d", w, len(p), 4*w-4)
		}
		seen := map[uint64]bool{}
		for _, v := range p {
			if seen[v] {
				t.Errorf("Patterns(%d): %#x twice", w, v)
			}
			seen[v] = true
		}
		for k := 0; k < w; k++ {
			if !seen[1<<uint(k)] || !seen[fieldtable.Mask(k+1)] || !seen[fieldtable.Mask(w)&^(1<<uint(k))] {
				t.Errorf("Patterns(%d) lacks a pattern for bit %d", w, k)
			}
		}
	}
	p := Patterns(30, 999_999_999)
	has := map[uint64]bool{}
	for _, v := range p {
		if v > 999_999_999 {
			t.Errorf("pattern %d above max", v)
		}
		has[v] = true
	}
	if !has[999_999_999] || !has[999_999_998] || !has[0] || !has[1<<29] {
		t.Error("clipped patterns lack max, max-1, 0 or the top single bit")
	}
}

// TestRand checks the seeding against the SplitMix64 finalizer's
// published first output for state 0 (0xe220a8397b1dcdaf is
// mix64(0x9e3779b97f4a7c15), from the reference splitmix64.c), the wyrand
// step against the same formula evaluated with math/big, and the ranges of
// Below, Range and LogUniform.
func TestRand(t *testing.T) {
	if got := mix64(golden64); got != 0xe220a8397b1dcdaf {
		t.Errorf("mix64(golden) = %#x, want 0xe220a8397b1dcdaf", got)
	}
	r := &Rand{s: 12345}
	for i := 0; i < 100; i++ {
		s := new(big.Int).SetUint64(r.s + 0xa0761d6478bd642f)
		p := new(big.Int).Mul(s, new(big.Int).SetUint64(s.Uint64()^0xe7037ed1a0b428db))
		lo := new(big.Int).And(p, new(big.Int).SetUint64(^uint64(0))).Uint64()
		want := new(big.Int).Rsh(p, 64).Uint64() ^ lo
		if got := r.Uint64(); got != want {
			t.Fatalf("draw %d = %#x, want %#x", i, got, want)
		}
	}
	r = NewRand(1, 2)
	for i := 0; i < 10000; i++ {
		if v := r.Below(7); v >= 7 {
			t.Fatalf("Below(7) = %d", v)
		}
		if v := r.Range(5, 9); v < 5 || v > 9 {
			t.Fatalf("Range(5,9) = %d", v)
		}
		if v := r.LogUniform(1000); v > 1000 {
			t.Fatalf("LogUniform(1000) = %d", v)
		}
	}
	a, b := NewRand(9, 3), NewRand(9, 3)
	if a.Uint64() != b.Uint64() {
		t.Error("equal seeds, different streams")
	}
}

// TestFileFormats checks the exact text of the files for one known vector:
// vector 0 is zero_a with a=0, b=0, sel=0, so y = 0 + tbl[0] = 1 (raw), i.e.
// 0.0625 with 4 fraction bits; the lines are worked out by hand from the
// layout (a bits 0-11, b 12-19, sel 20; y 0-15, sat 16).
func TestFileFormats(t *testing.T) {
	dir, _ := genDir(t, macConfig{}, Options{Count: 2})
	stim := strings.Split(string(readFile(t, dir, StimulusFile)), "\n")
	exp := strings.Split(string(readFile(t, dir, ExpectedFile)), "\n")
	jl := strings.Split(string(readFile(t, dir, JSONLFile)), "\n")
	if stim[0] != "000000" || exp[0] != "00001" {
		t.Errorf("line 0: stimulus %q expected %q; want 000000 and 00001", stim[0], exp[0])
	}
	// Vector 1: a=0, b=0, sel=1 -> y = 0.
	if stim[1] != "100000" || exp[1] != "00000" {
		t.Errorf("line 1: stimulus %q expected %q; want 100000 and 00000", stim[1], exp[1])
	}
	wantJ := `{"index":0,"class":"zero_a","in":{"a":{"raw":"0x000","value":0},"b":{"raw":"0x00","value":0},"sel":{"raw":"0x0","value":0}},"out":{"y":{"raw":"0x0001","value":0.0625},"sat":{"raw":"0x0","value":0}}}`
	if jl[0] != wantJ {
		t.Errorf("jsonl line 0 =\n%s\nwant\n%s", jl[0], wantJ)
	}
	vh := string(readFile(t, dir, FieldsVHFile))
	for _, w := range []string{"`define MAC_IN_B_LSB 12", "`define MAC_OUT_SAT_MSB 16", "`define MAC_IN_WIDTH 21", "DO NOT EDIT"} {
		if !strings.Contains(vh, w) {
			t.Errorf("fields.vh lacks %q", w)
		}
	}
	if len(stim) != 12+2+1 || stim[len(stim)-1] != "" {
		t.Errorf("stimulus has %d lines, want 14 and a final newline", len(stim)-1)
	}
}

// TestCoverageReport checks that the printed tables name every class and
// cover point with their counts.
func TestCoverageReport(t *testing.T) {
	set, err := Generate(newMac(macConfig{}), Options{Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCoverage(&b, &set.Manifest); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"zero_a", "max_b", "random", "sel", "tbl", "| output ", "CLASS"} {
		if !strings.Contains(out, w) {
			t.Errorf("coverage report lacks %q:\n%s", w, out)
		}
	}
}

// TestAppendHex checks the fast hex formatter against
// fieldtable.Table.AppendHex (the layout's own printer) on random words of
// random widths, including partial top words and widths below 16 digits.
func TestAppendHex(t *testing.T) {
	r := NewRand(1, 1)
	for iter := 0; iter < 3000; iter++ {
		width := 1 + int(r.Below(300))
		tb, err := fieldtable.New("t", []fieldtable.Spec{{Name: "a", Width: min(width, 64)}})
		if err != nil {
			t.Fatal(err)
		}
		for rest := width - 64; rest > 0; rest -= 64 {
			specs := append([]fieldtable.Spec(nil), specOf(tb)...)
			specs = append(specs, fieldtable.Spec{Name: fmt.Sprintf("f%d", len(specs)), Width: min(rest, 64)})
			if tb, err = fieldtable.New("t", specs); err != nil {
				t.Fatal(err)
			}
		}
		word := make([]uint64, tb.Words())
		for k := range word {
			word[k] = r.Uint64()
		}
		if rem := tb.Width % 64; rem != 0 {
			word[len(word)-1] &= fieldtable.Mask(rem)
		}
		got, want := string(appendHex([]byte("x"), tb, word)), string(tb.AppendHex([]byte("x"), word))
		if got != want {
			t.Fatalf("width %d: appendHex = %s, want %s", tb.Width, got, want)
		}
	}
}

func specOf(t fieldtable.Table) []fieldtable.Spec {
	var s []fieldtable.Spec
	for _, f := range t.Fields {
		s = append(s, fieldtable.Spec{Name: f.Name, Width: f.Width, Format: f.Format, Doc: f.Doc})
	}
	return s
}

// TestGenerateDirOwnsItsDirectory checks the output-directory rules on a
// vector set: a second set replaces the first entirely (vectors.jsonl of a
// JSONL run does not survive a --no-jsonl run beside a manifest that does
// not list it), a cancelled run leaves the earlier set, and Verify reports a
// file the manifest does not list.
func TestGenerateDirOwnsItsDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := GenerateDir(dir, newMac(macConfig{}), Options{Count: 5}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, JSONLFile)); err != nil {
		t.Fatalf("first set has no %s: %v", JSONLFile, err)
	}
	if _, err := GenerateDir(dir, newMac(macConfig{}), Options{Count: 6, NoJSONL: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, JSONLFile)); !os.IsNotExist(err) {
		t.Errorf("%s of the first set survived a --no-jsonl run: %v", JSONLFile, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := GenerateDirContext(ctx, dir, newMac(macConfig{}), Options{Count: 7}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled GenerateDirContext = %v, want context.Canceled", err)
	}
	man, err := ReadManifest(dir)
	if err != nil || man.RandomCount != 6 {
		t.Fatalf("after a cancelled run the manifest is %+v, %v; want the earlier set (6 random)", man, err)
	}
	rep, err := VerifyWith(dir, func(string, json.RawMessage) (Model, error) { return newMac(macConfig{}), nil })
	if err != nil || !rep.OK() {
		t.Fatalf("earlier set does not verify: %v %+v", err, rep)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	rep, err = VerifyWith(dir, func(string, json.RawMessage) (Model, error) { return newMac(macConfig{}), nil })
	if err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), "notes.txt: not listed") {
		t.Fatalf("Verify with an unlisted file: %v %+v, want a problem naming notes.txt", err, rep)
	}
}
