package enumtext

import (
	"strconv"
	"testing"
)

type color uint8

func (c color) String() string {
	switch c {
	case 0:
		return "red"
	case 1:
		return "green"
	case 2:
		return "blue"
	}
	return "color(" + strconv.Itoa(int(c)) + ")"
}

func TestParse(t *testing.T) {
	all := []color{0, 1, 2}
	for _, tc := range []struct {
		text string
		want color
		err  string
	}{
		{"red", 0, ""},
		{"blue", 2, ""},
		{"Blue", 0, `paint: color="Blue": must be red, green or blue`}, // exact, as every config key
		{"", 0, `paint: color="": must be red, green or blue`},
		{"color(3)", 0, `paint: color="color(3)": must be red, green or blue`},
	} {
		got, err := Parse("paint: color", []byte(tc.text), all...)
		if tc.err == "" {
			if err != nil || got != tc.want {
				t.Errorf("Parse(%q) = %v, %v; want %v", tc.text, got, err, tc.want)
			}
			continue
		}
		if err == nil || err.Error() != tc.err || got != 0 {
			t.Errorf("Parse(%q) = %v, %v; want the zero value and %q", tc.text, got, err, tc.err)
		}
	}
	// Every value's name parses back to it (the inverse).
	for _, c := range all {
		if got, err := Parse("c", []byte(c.String()), all...); err != nil || got != c {
			t.Errorf("Parse(String(%d)) = %v, %v", c, got, err)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tc := range []struct {
		vals []color
		want string
	}{{nil, "(none)"}, {[]color{1}, "green"}, {[]color{0, 1}, "red or green"}, {[]color{0, 1, 2}, "red, green or blue"}} {
		if got := Names(tc.vals...); got != tc.want {
			t.Errorf("Names(%v) = %q, want %q", tc.vals, got, tc.want)
		}
	}
}
