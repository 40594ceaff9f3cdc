package fixedpoint

import (
	"encoding"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

var (
	_ encoding.TextMarshaler   = Format{}
	_ encoding.TextUnmarshaler = (*Format)(nil)
)

// TestFormatText checks MarshalText, UnmarshalText and the JSON form of a
// Format. Expected texts are the documented notation (Format, String); the
// inverse direction is checked on every row: Unmarshal(Marshal(f)) == f, and
// Marshal(Unmarshal(text)) == the canonical text.
func TestFormatText(t *testing.T) {
	good := []struct {
		name string
		f    Format
		text string // canonical notation
		in   string // accepted input notation ("" = text)
	}{
		{"rate u32.8", Format{32, 8, false}, "u32.8", ""},
		{"window u32.24", Format{32, 24, false}, "u32.24", ""},
		{"signed", Format{16, 8, true}, "s16.8", ""},
		{"negative I", Format{12, -3, false}, "u12.-3", ""},
		{"I > W", Format{32, 40, false}, "u32.40", ""},
		{"widest", Format{128, -4096, true}, "s128.-4096", ""},
		{"plus sign canonicalised", Format{8, 2, true}, "s8.2", "s8.+2"},
	}
	for _, c := range good {
		b, err := c.f.MarshalText()
		if err != nil || string(b) != c.text {
			t.Errorf("%s: %#v.MarshalText() = %q, %v; want %q", c.name, c.f, b, err, c.text)
		}
		in := c.in
		if in == "" {
			in = c.text
		}
		var got Format
		if err := got.UnmarshalText([]byte(in)); err != nil || got != c.f {
			t.Errorf("%s: UnmarshalText(%q) = %#v, %v; want %#v", c.name, in, got, err, c.f)
		}
		var back Format
		if err := back.UnmarshalText(b); err != nil || back != c.f {
			t.Errorf("%s: UnmarshalText(MarshalText(%#v)) = %#v, %v", c.name, c.f, back, err)
		}

		// JSON: a Format field is a string, in values and in pointers.
		type cfg struct {
			F Format  `json:"f"`
			P *Format `json:"p"`
		}
		f := c.f
		js, err := json.Marshal(cfg{F: c.f, P: &f})
		want := `{"f":"` + c.text + `","p":"` + c.text + `"}`
		if err != nil || string(js) != want {
			t.Errorf("%s: json.Marshal = %s, %v; want %s", c.name, js, err, want)
		}
		var dec cfg
		if err := json.Unmarshal([]byte(`{"f":"`+in+`","p":"`+in+`"}`), &dec); err != nil || dec.F != c.f || dec.P == nil || *dec.P != c.f {
			t.Errorf("%s: json.Unmarshal(%q) = %+v, %v; want %#v", c.name, in, dec, err, c.f)
		}
	}

	bad := []struct{ in, msg string }{
		{"s0.0", `fixedpoint: format "s0.0": fixedpoint: Format W=0: must be in [1,128]: invalid format`},
		{"u32", `fixedpoint: format "u32": want s<W>.<I> or u<W>.<I>: invalid format`},
		{"U32.8", `fixedpoint: format "U32.8": want s<W>.<I> or u<W>.<I>: invalid format`},
		{" u32.8", `fixedpoint: format " u32.8": want s<W>.<I> or u<W>.<I>: invalid format`},
		{"", `fixedpoint: format "": want s<W>.<I> or u<W>.<I>: invalid format`},
	}
	for _, c := range bad {
		f := Format{32, 8, false}
		err := f.UnmarshalText([]byte(c.in))
		if err == nil || err.Error() != c.msg || !errors.Is(err, ErrFormat) {
			t.Errorf("UnmarshalText(%q) error = %v; want %q", c.in, err, c.msg)
		}
		if f != (Format{32, 8, false}) {
			t.Errorf("UnmarshalText(%q) changed the receiver to %#v", c.in, f)
		}
		var dec struct {
			F Format `json:"f"`
		}
		js, _ := json.Marshal(map[string]string{"f": c.in})
		if err := json.Unmarshal(js, &dec); err == nil || !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("json.Unmarshal(%s) error = %v; want it to wrap %q", js, err, c.msg)
		}
	}
}
