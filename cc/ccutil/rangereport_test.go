package ccutil

import "testing"

// TestRangeErr checks the verdict texts: Fits and SatByDesign rows give no
// error; an Overflow row names the signal, worst case, format max and the
// bits it overflows by (log2(8/2) = 2.00, computed by hand); an Underflow
// row carries its note; rows join with "; " under the package prefix.
func TestRangeErr(t *testing.T) {
	ok := []RangeRow{{Signal: "a", Status: Fits}, {Signal: "b", Status: SatByDesign}}
	if err := RangeErr("pkg", ok); err != nil {
		t.Fatalf("fitting rows: %v", err)
	}
	bad := append(ok,
		RangeRow{Signal: "w", Format: "u4.0", WorstCase: 8, FormatMax: 2, Status: Overflow, Note: "why"},
		RangeRow{Signal: "r", Format: "u0.8", Status: Underflow, Note: "rounds to 0"})
	want := "pkg: range analysis: signal w (u4.0) can reach 8 > max 2: overflows by 2.00 bits (why); signal r (u0.8): rounds to 0"
	if err := RangeErr("pkg", bad); err == nil || err.Error() != want {
		t.Fatalf("error %v, want %q", err, want)
	}
}

// TestRangeMarkdown checks the table header, one row's formatting and that
// a '|' in a note is escaped so the cell does not split.
func TestRangeMarkdown(t *testing.T) {
	got := RangeMarkdown([]RangeRow{{Signal: "u", Format: "u2.14", WorstCase: 1.5, FormatMax: 3.99993896484375, Status: SatByDesign, Note: "a|b"}})
	want := "| signal | format | worst case | format max | verdict | why |\n|---|---|---|---|---|---|\n" +
		"| `u` | u2.14 | 1.5 | 3.99994 | saturates by design | a\\|b |\n"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
