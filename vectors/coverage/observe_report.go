package coverage

import (
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
)

// ObservedReport is the observed coverage of a report's vectors: the same
// bins and reachability, each bin hit only by observed hits (a hit on a
// vector where the point's node is observable at an output, observe.go).
// Summary.Holes counts its holes; Masked lists ("point.bin") the bins the
// plain figure counts as hit but no vector observes.
type ObservedReport struct {
	Summary Summary       `json:"summary"`
	Kinds   []KindSummary `json:"kinds"`
	Masked  []string      `json:"masked"`
}

// AddObserved sets r.Observed from the observed counts c of the same model
// and vectors (RunObserved), and each bin's Observed count. c must have
// the shape of r's points and bins, and no bin more observed hits than
// plain ones.
func (r *Report) AddObserved(m *Model, c *Counts) error {
	if len(c.Bins) != len(r.Points) {
		return fmt.Errorf("coverage: %s: observed counts of %d points, the report has %d", r.Design, len(c.Bins), len(r.Points))
	}
	or := m.Report(c, r.Sources)
	obs := &ObservedReport{Summary: or.Summary, Kinds: or.Kinds, Masked: []string{}}
	for i := range r.Points {
		p := &r.Points[i]
		if len(c.Bins[i]) != len(p.Bins) {
			return fmt.Errorf("coverage: %s: point %s: %d observed bins, %d in the report", r.Design, p.Name, len(c.Bins[i]), len(p.Bins))
		}
		for b := range p.Bins {
			n := c.Bins[i][b]
			if n > p.Bins[b].Count {
				return fmt.Errorf("coverage: %s: %s.%s observed %d times, hit only %d", r.Design, p.Name, p.Bins[b].Name, n, p.Bins[b].Count)
			}
			p.Bins[b].Observed = &n
			if n == 0 && p.Bins[b].Count > 0 && p.Bins[b].Unreachable == "" {
				obs.Masked = append(obs.Masked, p.Name+"."+p.Bins[b].Name)
			}
		}
	}
	r.Observed = obs
	return nil
}

// ObservedHoles returns "point.bin" of every reachable bin no vector hits
// observably (plain holes included), in model order; nil without
// AddObserved.
func (r *Report) ObservedHoles() []string {
	if r.Observed == nil {
		return nil
	}
	var h []string
	for _, p := range r.Points {
		for _, b := range p.Bins {
			if b.Unreachable == "" && b.Observed != nil && *b.Observed == 0 {
				h = append(h, p.Name+"."+b.Name)
			}
		}
	}
	return h
}

// writeObservedText appends the observed figure to a text report (nothing
// without AddObserved): its summary, the kinds table and the bins hit but
// never observed (at most maxHoles, 0: all).
func (r *Report) writeObservedText(b *strings.Builder, maxHoles int) {
	o := r.Observed
	if o == nil {
		return
	}
	s := o.Summary
	fmt.Fprintf(b, "\nobserved coverage (a hit counts only on vectors where its node is observable at an output, docs/vectors.md \"Observed coverage\"):\n")
	fmt.Fprintf(b, "hit %d of %d reachable = %.2f%%, holes %d (%d hit but never observed)\n", s.Hit, s.Reachable, s.Percent, s.Holes, len(o.Masked))
	if s.Closed() {
		b.WriteString("observed closed: every reachable bin is hit where its node is observable\n")
	} else {
		b.WriteString("observed NOT closed\n")
	}
	fmt.Fprintf(b, "\n%-8s %6s %9s %6s %6s %8s\n", "kind", "points", "reachable", "hit", "holes", "hit %")
	for _, k := range o.Kinds {
		fmt.Fprintf(b, "%-8s %6d %9d %6d %6d %7.2f%%\n", k.Kind, k.Points, k.Reachable, k.Hit, k.Holes, k.Percent)
	}
	if len(o.Masked) > 0 {
		fmt.Fprintf(b, "\nhit but never observed (%d):\n", len(o.Masked))
		for i, h := range o.Masked {
			if maxHoles > 0 && i == maxHoles {
				fmt.Fprintf(b, "  ... %d more (--format json or csv lists every bin)\n", len(o.Masked)-maxHoles)
				break
			}
			fmt.Fprintf(b, "  %s\n", h)
		}
	}
}

// writeObservedCSV appends one row per bin of kind "observed" (name the
// point, count the observed hits) after the plain rows (nothing without
// AddObserved).
func (r *Report) writeObservedCSV(c *csv.Writer) {
	if r.Observed == nil {
		return
	}
	for _, p := range r.Points {
		for _, b := range p.Bins {
			n := uint64(0)
			if b.Observed != nil {
				n = *b.Observed
			}
			c.Write([]string{"observed", p.Name, b.Name, strconv.FormatUint(n, 10)})
		}
	}
}
