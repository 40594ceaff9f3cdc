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
	fmt.Fprintf(p.w, "\r%s: %d/%d vectors (%5.1f%%), %.2f M/s   ", p.label, done, total, pct, rate/1e6)
	p.shown = true
}

// Done ends the progress line.
func (p *Progress) Done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
