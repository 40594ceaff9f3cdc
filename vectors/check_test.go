package vectors

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

func checkBytes(t *testing.T, golden string, dut []byte) (*CheckReport, error) {
	t.Helper()
	return CheckReader(golden, bytes.NewReader(dut), "dut.txt", CheckOptions{})
}

// TestCheckPass checks that the golden outputs themselves pass, as
// expected.hex, as vectors.jsonl, and in the variants a simulator may write
// (upper-case hex, CRLF, $writememh-style comment lines, blank lines).
func TestCheckPass(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Level: 2, Count: 300})
	exp := readFile(t, dir, ExpectedFile)
	var variant bytes.Buffer
	variant.WriteString("// 0x00000000\n\n")
	for _, l := range strings.SplitAfter(string(exp), "\n") {
		if l != "" {
			variant.WriteString(strings.ToUpper(strings.TrimSuffix(l, "\n")) + "\r\n")
		}
	}
	for name, dut := range map[string][]byte{"hex": exp, "jsonl": readFile(t, dir, JSONLFile), "variant": variant.Bytes()} {
		rep, err := checkBytes(t, dir, dut)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !rep.OK() || rep.Passed != man.Count || rep.Checked != man.Count {
			t.Errorf("%s: passed %d failed %d of %d, want all %d passed", name, rep.Passed, rep.Failed, rep.Checked, man.Count)
		}
	}
	// Check reads files too.
	p := filepath.Join(t.TempDir(), "dut.hex")
	if err := os.WriteFile(p, exp, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := Check(dir, p, CheckOptions{}); err != nil || !rep.OK() {
		t.Errorf("Check(file) = %+v, %v", rep, err)
	}
}

// TestCheckCatchesEveryBitFlip flips, one at a time, every bit of every
// output field of every line of the DUT file (a copy of expected.hex) and
// checks that exactly that vector fails, with exactly that field named and
// the expected/got raw values being the golden value and the flipped one.
// The oracle is the golden line itself.
func TestCheckCatchesEveryBitFlip(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Count: 40})
	exp := readFile(t, dir, ExpectedFile)
	lines := strings.Split(strings.TrimSuffix(string(exp), "\n"), "\n")
	out := newMac(macConfig{}).Output()
	word := make([]uint64, out.Words())
	for k, line := range lines {
		for _, f := range out.Fields {
			for bit := 0; bit < f.Width; bit++ {
				if err := out.ParseHex(line, word); err != nil {
					t.Fatal(err)
				}
				want := fieldtable.Get(word, f)
				word[(f.Offset+bit)/64] ^= 1 << uint((f.Offset+bit)%64)
				mod := append([]string(nil), lines...)
				mod[k] = string(out.AppendHex(nil, word))
				rep, err := checkBytes(t, dir, []byte(strings.Join(mod, "\n")+"\n"))
				if err != nil {
					t.Fatalf("line %d field %s bit %d: %v", k, f.Name, bit, err)
				}
				if rep.Failed != 1 || rep.Passed != man.Count-1 || len(rep.Mismatches) != 1 {
					t.Fatalf("line %d field %s bit %d: passed %d failed %d, want one failure", k, f.Name, bit, rep.Passed, rep.Failed)
				}
				m := rep.Mismatches[0]
				if m.Index != int64(k) || m.Line != k+1 || len(m.Fields) != 1 || m.Fields[0].Field != f.Name ||
					m.Fields[0].Want != want || m.Fields[0].Got != want^(1<<uint(bit)) || m.Class != man.ClassAt(int64(k)) {
					t.Fatalf("line %d field %s bit %d: mismatch %+v", k, f.Name, bit, m)
				}
			}
		}
	}
}

// TestCheckJSONLFlip checks that a changed field value in a JSON Lines DUT
// file is caught, for each of the three accepted value forms.
func TestCheckJSONLFlip(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Count: 5})
	jl := strings.Split(strings.TrimSuffix(string(readFile(t, dir, JSONLFile)), "\n"), "\n")
	for _, form := range []string{`"out":{"y":{"raw":"0x%04x"},"sat":0}`, `"y":"0x%x","sat":"0x0"`, `"out":{"y":%d,"sat":{"raw":0}}`} {
		mod := append([]string(nil), jl...)
		// Vector 1 (zero_a, a=0, b=0, sel=1) has y = 0, sat = 0; claim y = 3.
		mod[1] = `{"index":1,` + fmt.Sprintf(form, 3) + `}`
		rep, err := checkBytes(t, dir, []byte(strings.Join(mod, "\n")))
		if err != nil {
			t.Fatalf("%s: %v", form, err)
		}
		if rep.Failed != 1 || rep.Passed != man.Count-1 || rep.Mismatches[0].Fields[0].Field != "y" ||
			rep.Mismatches[0].Fields[0].GotReal != "0.1875" || rep.Mismatches[0].Fields[0].WantHex != "0x0000" {
			t.Errorf("%s: report %+v", form, rep)
		}
	}
}

// TestCheckErrors checks that malformed, truncated, over-long and
// mismatched-layout DUT files, and a corrupted golden set, are errors naming
// the file and line.
func TestCheckErrors(t *testing.T) {
	dir, _ := genDir(t, macConfig{}, Options{Count: 3})
	exp := string(readFile(t, dir, ExpectedFile))
	lines := strings.Split(strings.TrimSuffix(exp, "\n"), "\n")
	jl := strings.Split(strings.TrimSuffix(string(readFile(t, dir, JSONLFile)), "\n"), "\n")
	with := func(ls []string, k int, s string) string {
		m := append([]string(nil), ls...)
		m[k] = s
		return strings.Join(m, "\n") + "\n"
	}
	cases := []struct {
		name, dut, want string
	}{
		{"truncated", strings.Join(lines[:len(lines)-1], "\n") + "\n", "dut.txt: truncated: ends after 14 transactions"},
		{"partial last line", exp[:len(exp)-3], "dut.txt: line 15: " + "mac_out: line has 3 hex digits"},
		{"extra", exp + "00000\n", "dut.txt: line 16: more transactions than the golden set's 15"},
		{"bad digit", with(lines, 2, "0000x"), "dut.txt: line 3: mac_out: character 'x' at column 5"},
		{"wide layout", with(lines, 0, "0000000"), "dut.txt: line 1: mac_out: line has 7 hex digits, want 5"},
		{"above width", with(lines, 4, "20000"), "dut.txt: line 5: mac_out: bits set above the 17-bit width"},
		{"empty", "", "dut.txt: truncated: ends after 0 transactions"},
		{"json missing", with(jl, 1, `{"out":{"y":"0x1"}}`), "dut.txt: line 2: field sat: missing"},
		{"json unknown", with(jl, 1, `{"out":{"y":"0x1","sat":0,"z":1}}`), "dut.txt: line 2: out.z: no such field"},
		{"json index", with(jl, 2, `{"index":7,"y":1,"sat":0}`), "dut.txt: line 3: index=7, want 2"},
		{"json syntax", with(jl, 0, `{"y":`), "dut.txt: line 1: not a JSON object"},
		{"json wide", with(jl, 0, `{"y":"0x10000","sat":0}`), "dut.txt: line 1: fieldtable: field y: value 0x10000 does not fit 16 bits"},
		{"json neg", with(jl, 0, `{"y":-1,"sat":0}`), "dut.txt: line 1: field y=-1"},
		{"json decimal string", with(jl, 0, `{"y":"12","sat":0}`), `dut.txt: line 1: field y="12": string values must be "0x"-prefixed hex`},
		{"json truncated", strings.Join(jl[:3], "\n"), "dut.txt: truncated: ends after 3 transactions"},
		{"json unknown top", with(jl, 1, `{"index":1,"out":{"y":"0x1","sat":0},"extra":1}`), `dut.txt: line 2: key "extra": unknown`},
		{"json unknown top, no out", with(jl, 1, `{"y":"0x1","sat":0,"Y":1}`), `dut.txt: line 2: key "Y": unknown`},
		{"json unknown in field object", with(jl, 1, `{"out":{"y":{"raw":"0x1","rwa":1},"sat":0}}`), `dut.txt: line 2: field y={"raw":"0x1","rwa":1}: key "rwa": unknown`},
		{"json class", with(jl, 0, `{"class":"random","y":"0x1","sat":0}`), `dut.txt: line 1: class="random", want "zero_a"`},
	}
	for _, c := range cases {
		_, err := checkBytes(t, dir, []byte(c.dut))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want containing %q", c.name, err, c.want)
		}
	}
	// A corrupted golden expected.hex is an error naming it, even when the
	// DUT agrees with the corruption.
	corrupt := with(lines, 0, "00003")
	if err := os.WriteFile(filepath.Join(dir, ExpectedFile), []byte(corrupt), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := checkBytes(t, dir, []byte(corrupt))
	if err == nil || !strings.Contains(err.Error(), "expected.hex: CRC-32C") || !strings.Contains(err.Error(), "golden set damaged") {
		t.Errorf("corrupted golden: err = %v", err)
	}
}

// TestCheckReportWrite checks the printed report of a failure: the summary
// counts, the per-field counts and the field-by-field diff in hex and real
// value (vector 0 has y = 1 raw = 0.0625, see TestFileFormats).
func TestCheckReportWrite(t *testing.T) {
	dir, _ := genDir(t, macConfig{}, Options{Count: 3})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, dir, ExpectedFile)), "\n"), "\n")
	lines[0] = "00011"
	rep, err := checkBytes(t, dir, []byte(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"FAIL: 14 passed, 1 failed of 15", "vector 0 (DUT line 1, class zero_a): 1 field(s) differ", "0x0001", "0x0011", "0.0625", "1.0625"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, b.String())
		}
	}
}

// TestVerify checks that a fresh set verifies, that changing any single
// byte (first, middle, last) of any file of the set (manifest included) is
// caught, and that a changed expected line whose manifest hash was updated
// to match is still caught by re-running the model.
func TestVerify(t *testing.T) {
	dir, _ := genDir(t, macConfig{}, Options{Level: 2, Count: 100})
	rep, err := VerifyWith(dir, openMac)
	if err != nil || !rep.OK() {
		t.Fatalf("fresh set: %+v, %v", rep, err)
	}
	for _, name := range allFiles {
		p := filepath.Join(dir, name)
		orig := readFile(t, dir, name)
		for _, pos := range []int{0, len(orig) / 2, len(orig) - 2, len(orig) - 1} {
			mod := append([]byte(nil), orig...)
			switch c := mod[pos]; {
			case c == '0':
				mod[pos] = '1'
			case c >= '1' && c <= '9' || c >= 'a' && c <= 'f':
				mod[pos] = '0'
			default:
				mod[pos] = c ^ 0x20
			}
			if err := os.WriteFile(p, mod, 0o644); err != nil {
				t.Fatal(err)
			}
			rep, err := VerifyWith(dir, openMac)
			if err != nil || rep.OK() {
				t.Errorf("%s: byte %d changed %q -> %q: verify = %+v, %v; want a problem (exit 1), not an error", name, pos, orig[pos], mod[pos], rep, err)
			}
		}
		if err := os.WriteFile(p, orig, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if rep, err := VerifyWith(dir, openMac); err != nil || !rep.OK() {
		t.Fatalf("restored set: %+v, %v", rep, err)
	}
}

// TestVerifyProblemsNotErrors: whatever is wrong inside a set (a listed
// file removed, a line longer than any reader takes, a set of no vectors)
// is a problem in the report (the CLI's exit 1); only a directory that is
// not a vector set is an error (exit 2). Oracle: docs/vectors.md, exit
// status.
func TestVerifyProblemsNotErrors(t *testing.T) {
	for _, name := range allFiles {
		dir, _ := genDir(t, macConfig{}, Options{Count: 50})
		if err := os.Remove(filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
		rep, err := VerifyWith(dir, openMac)
		if name == ManifestFile {
			if err == nil {
				t.Errorf("manifest removed: verify = %+v, want an error (not a vector set)", rep)
			}
			continue
		}
		if err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), name) {
			t.Errorf("%s removed: verify = %+v, %v; want a problem naming it", name, rep, err)
		}
	}
	dir, _ := genDir(t, macConfig{}, Options{Count: 50})
	long := append(bytes.Repeat([]byte{'0'}, 2<<20), '\n')
	if err := os.WriteFile(filepath.Join(dir, StimulusFile), long, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyWith(dir, openMac); err != nil || rep.OK() {
		t.Errorf("over-long stimulus line: verify = %+v, %v; want a problem", rep, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyWith(dir, openMac); err != nil || rep.OK() {
		t.Errorf("malformed manifest: verify = %+v, %v; want a problem", rep, err)
	}
	// A manifest claiming no vectors (generation refuses to write one).
	empty, _ := genDir(t, macConfig{}, Options{Count: 50})
	var man map[string]any
	if err := json.Unmarshal(readFile(t, empty, ManifestFile), &man); err != nil {
		t.Fatal(err)
	}
	man["count"] = 0
	b, err := json.Marshal(man)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(empty, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	if rep, err := VerifyWith(empty, openMac); err != nil || rep.OK() || !strings.Contains(strings.Join(rep.Problems, "\n"), "holds no vectors") {
		t.Errorf("empty set: verify = %+v, %v; want the problem \"holds no vectors\"", rep, err)
	}
	if _, err := VerifyWith(t.TempDir(), openMac); err == nil {
		t.Errorf("a directory without a manifest verified without error")
	}
}

// TestVerifyRerunsModel builds a set with a model whose configuration has a
// deliberate bug (y's LSB flipped when a == 1), then verifies it with the
// configuration patched to the correct model and the manifest regenerated:
// hashes match, so only re-running the model can find the difference.
func TestVerifyRerunsModel(t *testing.T) {
	dir, _ := genDir(t, macConfig{Bug: true}, Options{Count: 200})
	rep, err := VerifyWith(dir, func(string, json.RawMessage) (Model, error) { return newMac(macConfig{}), nil })
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range rep.Problems {
		if strings.Contains(p, "expected.hex: line") && strings.Contains(p, "model gives") {
			found = true
		}
	}
	if rep.OK() || !found {
		t.Errorf("verify of a set made by a buggy model: %+v", rep)
	}
}

// TestCheckShift checks that a DUT stream shifted by whole lines (extra or
// missing leading outputs: a latency or valid-handshake bug) is named as a
// shift, whether the file is then too long, too short or of the right
// length, and that an arithmetic bug is not mistaken for one.
func TestCheckShift(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Count: 200})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, dir, ExpectedFile)), "\n"), "\n")
	join := func(ls []string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }
	zero := strings.Repeat("0", len(lines[0]))
	for _, tc := range []struct {
		name    string
		dut     []byte
		wantErr string // error text, or "" for a report
		want    string // shift text in the error or the report; "" = no shift reported
	}{
		{"one extra leading line", join(append([]string{zero}, lines...)), "more transactions", "shifted by +1 line(s)"},
		{"two extra, same length", join(append([]string{zero, zero}, lines[:len(lines)-2]...)), "", "shifted by +2 line(s)"},
		{"first output lost", join(lines[1:]), "truncated", "shifted by -1 line(s)"},
		{"first lost, same length", join(append(lines[1:], zero)), "", "shifted by -1 line(s)"},
		{"arithmetic bug", join(append([]string{"00011"}, lines[1:]...)), "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := checkBytes(t, dir, tc.dut)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want %q naming %q", err, tc.wantErr, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			rep.Write(&b)
			if tc.want == "" {
				if rep.Shift != nil {
					t.Fatalf("arithmetic bug reported as %v", rep.Shift)
				}
				return
			}
			if rep.Shift == nil || !strings.Contains(b.String(), tc.want) {
				t.Fatalf("report lacks %q:\n%s", tc.want, b.String())
			}
			if rep.Failed == 0 || rep.Failed > man.Count {
				t.Errorf("failed = %d", rep.Failed)
			}
		})
	}
}

// TestCheckPartial checks --partial: a prefix is compared and said to be
// one; without the option a prefix is an error; an empty DUT file is an
// error either way.
func TestCheckPartial(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Count: 20})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, dir, ExpectedFile)), "\n"), "\n")
	prefix := []byte(strings.Join(lines[:7], "\n") + "\n")
	rep, err := CheckReader(dir, bytes.NewReader(prefix), "dut.txt", CheckOptions{Partial: true})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	rep.Write(&b)
	if !rep.OK() || rep.Checked != 7 || rep.Total != man.Count || !strings.Contains(b.String(), fmt.Sprintf("partial: the DUT file holds the first 7 of the set's %d vectors", man.Count)) {
		t.Errorf("partial prefix: %+v\n%s", rep, b.String())
	}
	if _, err := checkBytes(t, dir, prefix); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("prefix without Partial: err = %v, want truncated", err)
	}
	if _, err := CheckReader(dir, strings.NewReader(""), "dut.txt", CheckOptions{Partial: true}); err == nil {
		t.Error("empty DUT file with Partial passed")
	}
}

// TestCheckReportsClassesAndInputs checks the per-class failure summary
// and that a failing vector's inputs (from stimulus.hex) are printed beside
// the differing fields.
func TestCheckReportsClassesAndInputs(t *testing.T) {
	dir, man := genDir(t, macConfig{}, Options{Count: 10})
	lines := strings.Split(strings.TrimSuffix(string(readFile(t, dir, ExpectedFile)), "\n"), "\n")
	stim := strings.Split(strings.TrimSuffix(string(readFile(t, dir, StimulusFile)), "\n"), "\n")
	last := len(lines) - 1
	lines[0], lines[last] = "00011", "00011"
	rep, err := checkBytes(t, dir, []byte(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	wantClasses := []ClassFail{{man.ClassAt(0), 1, 0}, {man.ClassAt(int64(last)), 1, 0}}
	for _, c := range man.Classes {
		for i := range wantClasses {
			if c.Name == wantClasses[i].Class {
				wantClasses[i].Total = c.Count
			}
		}
	}
	if fmt.Sprint(rep.ClassFails) != fmt.Sprint(wantClasses) {
		t.Errorf("ClassFails = %v, want %v", rep.ClassFails, wantClasses)
	}
	m := rep.Mismatches[1]
	if len(m.Inputs) == 0 {
		t.Fatal("no inputs in the mismatch")
	}
	// The oracle for the inputs is stimulus.hex's line of that vector,
	// unpacked with the layout the set records.
	_, lay, err := readLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	words := make([]uint64, lay.in.Words())
	if err := lay.in.ParseHex(stim[last], words); err != nil {
		t.Fatal(err)
	}
	for i, f := range lay.in.Fields {
		if m.Inputs[i].Field != f.Name || m.Inputs[i].Raw != fieldtable.Get(words, f) {
			t.Errorf("input %d = %+v, want %s raw %#x", i, m.Inputs[i], f.Name, fieldtable.Get(words, f))
		}
	}
	var b bytes.Buffer
	rep.Write(&b)
	for _, w := range []string{"CLASS", man.ClassAt(0), fmt.Sprintf("its inputs (stimulus.hex line %d)", last+1), lay.in.Fields[0].Name} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("report lacks %q:\n%s", w, b.String())
		}
	}
}
