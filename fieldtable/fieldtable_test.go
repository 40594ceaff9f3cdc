package fieldtable

import (
	"fmt"
	"math/big"
	"math/rand"
	"strings"
	"testing"
)

func mustNew(t *testing.T, specs []Spec) Table {
	t.Helper()
	tb, err := New("t", specs)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestLayout checks LSB-first offsets and the total width.
func TestLayout(t *testing.T) {
	tb := mustNew(t, []Spec{{"a", 3, "uint", ""}, {"b", 64, "uint", ""}, {"c", 1, "bool", ""}})
	want := []int{0, 3, 67}
	for i, f := range tb.Fields {
		if f.Offset != want[i] {
			t.Errorf("field %s offset = %d, want %d", f.Name, f.Offset, want[i])
		}
	}
	if tb.Width != 68 || tb.Words() != 2 || tb.HexDigits() != 17 {
		t.Errorf("Width, Words, HexDigits = %d, %d, %d; want 68, 2, 17", tb.Width, tb.Words(), tb.HexDigits())
	}
}

// TestNewErrors checks that bad specs are rejected with the field named.
func TestNewErrors(t *testing.T) {
	cases := []struct {
		name  string
		specs []Spec
		want  string
	}{
		{"width0", []Spec{{"a", 0, "", ""}}, "Width=0"},
		{"width65", []Spec{{"a", 65, "", ""}}, "Width=65"},
		{"dup", []Spec{{"a", 1, "", ""}, {"a", 1, "", ""}}, "duplicate"},
		{"ident", []Spec{{"1a", 1, "", ""}}, `Name="1a"`},
	}
	for _, c := range cases {
		_, err := New("t", c.specs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want mentioning %q", c.name, err, c.want)
		}
	}
}

// TestIsIdent checks IsIdent against the rule [A-Za-z_][A-Za-z0-9_]*
// (expected values written from that rule): letters, underscore and, after
// the first character, digits; nothing else, including "$", non-ASCII
// letters and the empty string. Keywords are identifiers here.
func TestIsIdent(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"a", true}, {"Z", true}, {"_", true}, {"_0", true}, {"ns_valid", true}, {"W1", true},
		{"module", true}, {"aZ09_", true},
		{"", false}, {"1a", false}, {"9", false}, {"a-b", false}, {"a.b", false}, {"a b", false},
		{"a$", false}, {"$a", false}, {"\\a", false}, {"é", false}, {"aé", false}, {"a\x00", false},
	} {
		if got := IsIdent(c.s); got != c.want {
			t.Errorf("IsIdent(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestRoundTrip packs random values into random layouts (fields straddling
// word boundaries included), prints hex, parses it back, and checks every
// field; the oracle is the values put in.
func TestRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for iter := 0; iter < 2000; iter++ {
		n := 1 + rng.Intn(8)
		specs := make([]Spec, n)
		for i := range specs {
			specs[i] = Spec{Name: string(rune('a' + i)), Width: 1 + rng.Intn(64)}
		}
		tb := mustNew(t, specs)
		word := make([]uint64, tb.Words())
		vals := make([]uint64, n)
		for i, f := range tb.Fields {
			vals[i] = rng.Uint64() & Mask(f.Width)
			if err := Put(word, f, vals[i]); err != nil {
				t.Fatal(err)
			}
		}
		line := string(tb.AppendHex(nil, word))
		// Independent oracle: the word as a big integer, sum of v_i << off_i.
		want := new(big.Int)
		for i, f := range tb.Fields {
			want.Or(want, new(big.Int).Lsh(new(big.Int).SetUint64(vals[i]), uint(f.Offset)))
		}
		if w := fmt.Sprintf("%0*x", tb.HexDigits(), want); line != w {
			t.Fatalf("AppendHex = %s, want %s (big.Int oracle)", line, w)
		}
		// Put over all-ones words must clear the field's old bits and keep
		// the bits of other fields.
		ones := make([]uint64, tb.Words())
		for i := range ones {
			ones[i] = ^uint64(0)
		}
		for i, f := range tb.Fields {
			if err := Put(ones, f, vals[i]); err != nil {
				t.Fatal(err)
			}
		}
		if r := tb.Width % 64; r != 0 {
			ones[len(ones)-1] &= Mask(r) // bits above the table's width are no field's
		}
		for i := range ones {
			if ones[i] != word[i] {
				t.Fatalf("Put over all-ones words: word %d = %#x, want %#x", i, ones[i], word[i])
			}
		}
		back := make([]uint64, tb.Words())
		if err := tb.ParseHex(line, back); err != nil {
			t.Fatalf("ParseHex(%q): %v", line, err)
		}
		for i, f := range tb.Fields {
			if got := Get(back, f); got != vals[i] {
				t.Fatalf("field %s (off %d w %d) = %#x, want %#x; line %s", f.Name, f.Offset, f.Width, got, vals[i], line)
			}
		}
	}
}

// TestPutRejectsOverflow checks that a value wider than its field is an error.
func TestPutRejectsOverflow(t *testing.T) {
	tb := mustNew(t, []Spec{{"a", 4, "", ""}})
	w := make([]uint64, 1)
	if err := Put(w, tb.Fields[0], 16); err == nil || !strings.Contains(err.Error(), "field a") {
		t.Fatalf("Put(16 into 4 bits) err = %v, want error naming field a", err)
	}
}

// TestBufferErrors checks that a buffer of the wrong size is an error, not a
// panic or a missed check: a long buffer would hide bits above the width.
func TestBufferErrors(t *testing.T) {
	tb := mustNew(t, []Spec{{"a", 6, "", ""}, {"b", 64, "", ""}})
	if err := tb.ParseHex("000000000000000000", make([]uint64, 3)); err == nil || !strings.Contains(err.Error(), "3 words, want 2") {
		t.Errorf("ParseHex into 3 words err = %v, want a buffer-size error", err)
	}
	if err := Put(make([]uint64, 1), tb.Fields[1], 1); err == nil || !strings.Contains(err.Error(), "field b") {
		t.Errorf("Put into a short buffer err = %v, want an error naming field b", err)
	}
}

// TestParseHexErrors checks length, digit and above-width errors.
func TestParseHexErrors(t *testing.T) {
	tb := mustNew(t, []Spec{{"a", 6, "", ""}})
	w := make([]uint64, 1)
	for _, c := range []struct{ line, want string }{
		{"3f", ""}, {"40", "above"}, {"3", "hex digits"}, {"3g", "not a hex digit"},
	} {
		err := tb.ParseHex(c.line, w)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("ParseHex(%q) err = %v, want %q", c.line, err, c.want)
		}
	}
}

// TestVerilogHeader checks the defines for one field.
func TestVerilogHeader(t *testing.T) {
	tb := mustNew(t, []Spec{{"a", 3, "", ""}, {"bb", 5, "u5.0", "x"}})
	h := tb.VerilogHeader("in")
	for _, want := range []string{"`define IN_WIDTH 8", "`define IN_BB_LSB 3", "`define IN_BB_MSB 7", "`define IN_BB_W 5"} {
		if !strings.Contains(h, want) {
			t.Errorf("header lacks %q:\n%s", want, h)
		}
	}
}
