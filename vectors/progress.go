package vectors

import (
	"fmt"
	"io"
	"os"
	"time"
)

// IsTerminal reports whether f is a character device (a terminal), the test
// the CLI uses to decide whether to show progress.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Progress renders a one-line progress display ("\r" updated, at most ten
// times a second) for long runs. Use its Update as Options.Progress and call
// Done at the end. It only writes to w; whether w is a terminal is the
// caller's decision (see IsTerminal). Wall-clock time is used for the rate
// display only and never reaches an output file.
type Progress struct {
	w     io.Writer
	label string
	start time.Time
	last  time.Time
	shown bool
}

// NewProgress returns a display writing to w, prefixed by label.
func NewProgress(w io.Writer, label string) *Progress {
	now := time.Now()
	return &Progress{w: w, label: label, start: now}
}

// Update shows done of total.
func (p *Progress) Update(done, total int64) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	pct := 100.0
	if total > 0 {
		pct = 100 * float64(done) / float64(total)
	}
	rate := float64(done) / max(now.Sub(p.start).Seconds(), 1e-9)
	eta := ""
	if done < total && rate > 0 {
		eta = fmt.Sprintf(", ETA %s", time.Duration(float64(total-done)/rate*float64(time.Second)).Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r%s: %d/%d vectors (%5.1f%%), %s%s   ", p.label, done, total, pct, rateText(rate), eta)
	p.shown = true
}

// Done ends the progress line.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}

// rateText is a rate in vectors per second, scaled: "850 /s", "12.3 k/s",
// "1.05 M/s".
func rateText(r float64) string {
	switch {
	case r >= 1e6:
		return fmt.Sprintf("%.2f M/s", r/1e6)
	case r >= 1e3:
		return fmt.Sprintf("%.1f k/s", r/1e3)
	}
	return fmt.Sprintf("%.0f /s", r)
}
