package nicmodel

import (
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/internal/testtool"
)

// vcdChange is one value of a signal from a time on.
type vcdChange struct {
	t uint64
	v string // decimal value
}

// parseVCD is a strict reader of the VCD subset of IEEE 1364-2005 section
// 18.2 that GTKWave reads: header sections ($version, $comment, $date,
// $timescale, $scope/$upscope balanced, $var with type, size, identifier
// code, reference and optional range, $enddefinitions), then simulation
// time stamps (#t, strictly increasing), $dumpvars/$dumpall blocks and
// value changes (scalar 0/1/x/z followed by the identifier code; b<bits>
// or r<real> then the code). Every value must name a declared identifier,
// scalars only 1-bit signals, vectors at most their width. It returns
// each signal's changes keyed by its full dotted name.
func parseVCD(text string) (map[string][]vcdChange, string, error) {
	toks := strings.Fields(text)
	i := 0
	next := func() (string, error) {
		if i >= len(toks) {
			return "", fmt.Errorf("unexpected end of file")
		}
		i++
		return toks[i-1], nil
	}
	section := func() ([]string, error) { // tokens up to $end
		var out []string
		for {
			t, err := next()
			if err != nil {
				return nil, err
			}
			if t == "$end" {
				return out, nil
			}
			out = append(out, t)
		}
	}
	type sig struct {
		name  string
		width int
	}
	ids := map[string]sig{}
	var scope []string
	timescale := ""
	changes := map[string][]vcdChange{}
header:
	for {
		t, err := next()
		if err != nil {
			return nil, "", err
		}
		switch t {
		case "$version", "$comment", "$date":
			if _, err := section(); err != nil {
				return nil, "", fmt.Errorf("%s: %w", t, err)
			}
		case "$timescale":
			s, err := section()
			if err != nil || len(s) < 1 {
				return nil, "", fmt.Errorf("$timescale: %v", s)
			}
			timescale = strings.Join(s, "")
			if !map[string]bool{"1ps": true, "10ps": true, "100ps": true, "1ns": true, "1fs": true, "1s": true, "1ms": true, "1us": true}[timescale] {
				return nil, "", fmt.Errorf("$timescale %q", timescale)
			}
		case "$scope":
			s, err := section()
			if err != nil || len(s) != 2 || !map[string]bool{"module": true, "task": true, "function": true, "begin": true, "fork": true}[s[0]] {
				return nil, "", fmt.Errorf("$scope %v: %v", s, err)
			}
			scope = append(scope, s[1])
		case "$upscope":
			if s, err := section(); err != nil || len(s) != 0 || len(scope) == 0 {
				return nil, "", fmt.Errorf("$upscope unbalanced")
			}
			scope = scope[:len(scope)-1]
		case "$var":
			s, err := section()
			if err != nil || len(s) < 4 || len(s) > 5 {
				return nil, "", fmt.Errorf("$var %v", s)
			}
			w, err := strconv.Atoi(s[1])
			if err != nil || w < 1 || s[0] != "wire" && s[0] != "reg" && s[0] != "integer" {
				return nil, "", fmt.Errorf("$var %v", s)
			}
			if len(s) == 5 && s[4] != fmt.Sprintf("[%d:0]", w-1) {
				return nil, "", fmt.Errorf("$var %v: range does not match the size", s)
			}
			if _, dup := ids[s[2]]; dup {
				return nil, "", fmt.Errorf("$var %v: identifier code declared twice", s)
			}
			for _, c := range s[2] {
				if c < '!' || c > '~' {
					return nil, "", fmt.Errorf("$var %v: identifier code not printable ASCII", s)
				}
			}
			if len(scope) == 0 {
				return nil, "", fmt.Errorf("$var %v outside a scope", s)
			}
			ids[s[2]] = sig{strings.Join(append(append([]string(nil), scope...), s[3]), "."), w}
		case "$enddefinitions":
			if _, err := section(); err != nil {
				return nil, "", err
			}
			if len(scope) != 0 {
				return nil, "", fmt.Errorf("$enddefinitions with %d open scopes", len(scope))
			}
			break header
		default:
			return nil, "", fmt.Errorf("unexpected header token %q", t)
		}
	}
	if timescale == "" || len(ids) == 0 {
		return nil, "", fmt.Errorf("no $timescale or no signals")
	}
	now, haveTime := uint64(0), false
	set := func(id, val string) error {
		s, ok := ids[id]
		if !ok {
			return fmt.Errorf("value for undeclared identifier %q", id)
		}
		if !haveTime {
			return fmt.Errorf("value before the first time stamp")
		}
		ch := changes[s.name]
		if len(ch) > 0 && ch[len(ch)-1].t == now {
			ch[len(ch)-1].v = val
		} else {
			ch = append(ch, vcdChange{now, val})
		}
		changes[s.name] = ch
		return nil
	}
	for i < len(toks) {
		t := toks[i]
		i++
		switch {
		case t == "$dumpvars" || t == "$dumpall" || t == "$dumpon" || t == "$dumpoff" || t == "$end":
		case t == "$comment":
			if _, err := section(); err != nil {
				return nil, "", err
			}
		case t[0] == '#':
			v, err := strconv.ParseUint(t[1:], 10, 64)
			if err != nil || haveTime && v <= now {
				return nil, "", fmt.Errorf("time stamp %s after #%d", t, now)
			}
			now, haveTime = v, true
		case t[0] == 'b' || t[0] == 'B':
			id, err := next()
			if err != nil {
				return nil, "", err
			}
			bits := t[1:]
			if s := ids[id]; len(bits) == 0 || len(bits) > s.width {
				return nil, "", fmt.Errorf("vector %s for %q (%d bits)", t, id, s.width)
			}
			x, ok := new(big.Int).SetString(bits, 2)
			if !ok {
				return nil, "", fmt.Errorf("vector %s is not binary", t)
			}
			if err := set(id, x.String()); err != nil {
				return nil, "", err
			}
		case strings.ContainsRune("01xzXZ", rune(t[0])):
			id := t[1:]
			if s, ok := ids[id]; !ok || s.width != 1 {
				return nil, "", fmt.Errorf("scalar %s for a signal that is not 1 bit", t)
			}
			if err := set(id, t[:1]); err != nil {
				return nil, "", err
			}
		default:
			return nil, "", fmt.Errorf("unexpected token %q", t)
		}
	}
	return changes, timescale, nil
}

// TestVCDSyntax checks the golden run's waveform with the strict reader
// above: a well-formed header, increasing time stamps at picosecond
// resolution, every value for a declared signal of the right width, and
// the expected signals present (FIFO levels, W, R, pacer state). Then, when
// GTKWave's converters are installed (Debian package gtkwave, not among the
// tools scripts/test.sh installs, so the check is skipped without it), the
// file goes through vcd2fst and back through fst2vcd, and GTKWave's reading
// must give every signal exactly the changes ours has.
func TestVCDSyntax(t *testing.T) {
	r := goldenRun(t, false)
	text := string(r.files["nics.vcd"])
	ch, ts, err := parseVCD(text)
	if err != nil {
		t.Fatal(err)
	}
	if ts != "1ps" {
		t.Errorf("timescale %s", ts)
	}
	for _, s := range []string{"A.mac.tx_fifo", "A.rx.event_fifo", "A.hpcc.update_fifo", "A.qp1.W", "A.qp1.R",
		"A.qp1.pacer_state", "A.qp3.inflight", "B.tx.build", "B.qp1.W"} {
		if _, ok := ch[s]; !ok {
			t.Errorf("signal %s missing", s)
		}
	}
	if n := len(ch["A.qp1.W"]); n < 10 {
		t.Errorf("A.qp1.W changes %d times: the waveform does not follow the window", n)
	}
	// A ps time stamp is the start of the cycle after the change: at 1 GHz
	// a multiple of 1000.
	for name, cs := range ch {
		for _, c := range cs {
			if c.t%1000 != 0 {
				t.Fatalf("%s changes at %d ps: not a cycle boundary", name, c.t)
			}
		}
	}
	gtk := testtool.Need(t, "vcd2fst", "fst2vcd") // GTKWave's converters
	v2f, f2v := gtk[0], gtk[1]
	dir := t.TempDir()
	in, fst := filepath.Join(dir, "n.vcd"), filepath.Join(dir, "n.fst")
	if err := os.WriteFile(in, r.files["nics.vcd"], 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(v2f, in, fst).CombinedOutput(); err != nil {
		t.Fatalf("vcd2fst: %v\n%s", err, out)
	}
	back, err := exec.Command(f2v, fst).Output()
	if err != nil {
		t.Fatalf("fst2vcd: %v", err)
	}
	ch2, _, err := parseVCD(string(back))
	if err != nil {
		t.Fatalf("fst2vcd output: %v", err)
	}
	if !reflect.DeepEqual(ch, ch2) {
		for k := range ch {
			if !reflect.DeepEqual(ch[k], ch2[k]) {
				t.Fatalf("GTKWave reads %s as %v, we wrote %v", k, head(ch2[k]), head(ch[k]))
			}
		}
		t.Fatalf("GTKWave's reading has %d signals, ours %d", len(ch2), len(ch))
	}
}

func head(c []vcdChange) []vcdChange {
	if len(c) > 5 {
		return c[:5]
	}
	return c
}
