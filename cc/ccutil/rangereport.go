package ccutil

import (
	"fmt"
	"math"
	"strings"
)

// RangeStatus classifies one signal in a datapath's range analysis.
type RangeStatus uint8

const (
	// Fits: the worst-case value is representable; the signal never
	// overflows.
	Fits RangeStatus = iota
	// SatByDesign: the signal can exceed its format only where the result is
	// clamped downstream anyway (the saturated value gives the same output
	// as the exact one); the format's overflow mode is Sat.
	SatByDesign
	// Overflow: the signal can exceed its format and that changes the
	// result. The configuration is invalid.
	Overflow
	// Underflow: a value the datapath must resolve rounds to zero or keeps
	// too few significant bits. The configuration is invalid.
	Underflow
)

// String returns "fits", "saturates by design", "OVERFLOW" or "UNDERFLOW".
func (s RangeStatus) String() string {
	return [...]string{"fits", "saturates by design", "OVERFLOW", "UNDERFLOW"}[s]
}

// RangeRow is the analysis of one signal.
type RangeRow struct {
	Signal    string      // signal name (as in Datapath.Signals)
	Format    string      // its format
	WorstCase float64     // largest value the signal can take for the configured bounds
	FormatMax float64     // largest value of the format
	Status    RangeStatus // verdict
	Note      string      // why (the bound used, or why saturation is harmless)
}

// RangeErr returns nil when every row fits or saturates by design, and
// otherwise an error prefixed "<pkg>: range analysis: " naming each failing
// signal, its worst case and by how many bits it overflows.
func RangeErr(pkg string, rows []RangeRow) error {
	var msgs []string
	for _, row := range rows {
		switch row.Status {
		case Overflow:
			by := math.Log2(row.WorstCase / row.FormatMax)
			msgs = append(msgs, fmt.Sprintf("signal %s (%s) can reach %.6g > max %.6g: overflows by %.2f bits (%s)",
				row.Signal, row.Format, row.WorstCase, row.FormatMax, by, row.Note))
		case Underflow:
			msgs = append(msgs, fmt.Sprintf("signal %s (%s): %s", row.Signal, row.Format, row.Note))
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return fmt.Errorf("%s: range analysis: %s", pkg, strings.Join(msgs, "; "))
}

// RangeMarkdown renders range-analysis rows as a Markdown table (signal,
// format, worst case, format max, verdict, why).
func RangeMarkdown(rows []RangeRow) string {
	var b strings.Builder
	b.WriteString("| signal | format | worst case | format max | verdict | why |\n|---|---|---|---|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(&b, "| `%s` | %s | %.6g | %.6g | %s | %s |\n", row.Signal, row.Format, row.WorstCase, row.FormatMax, row.Status, MDEscape(row.Note))
	}
	return b.String()
}

// MDEscape escapes the characters that would break a Markdown table cell.
func MDEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
