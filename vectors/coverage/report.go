package coverage

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Report is a model's coverage over a vector set (or several merged): per
// point and bin the hits, with reachability; the form of `vectors cover
// --format json`.
type Report struct {
	Design  string        `json:"design"`
	Sources []string      `json:"sources"` // the vector sets sampled
	Vectors int64         `json:"vectors"`
	Summary Summary       `json:"summary"`
	Kinds   []KindSummary `json:"kinds"`
	Points  []PointReport `json:"points"`
	// Observed is the observed coverage beside the plain one (set by
	// AddObserved, `vectors cover --observed`; observe.go).
	Observed *ObservedReport `json:"observed,omitempty"`
}

// Summary counts bins: Hit of Reachable (Percent), Unreachable proved, and
// Holes (reachable, not hit: not generated).
type Summary struct {
	Bins        int     `json:"bins"`
	Reachable   int     `json:"reachable"`
	Unreachable int     `json:"unreachable"`
	Hit         int     `json:"hit"`
	Holes       int     `json:"holes"`
	Percent     float64 `json:"percent"` // 100 * Hit / Reachable
}

// KindSummary is Summary for the points of one kind.
type KindSummary struct {
	Kind Kind `json:"kind"`
	Summary
	Points int `json:"points"`
}

// PointReport is one point's bins with their counts.
type PointReport struct {
	Name string      `json:"name"`
	Kind Kind        `json:"kind"`
	Node string      `json:"node"`
	Doc  string      `json:"doc"`
	Bins []BinReport `json:"bins"`
}

// BinReport is one bin's count and reachability.
type BinReport struct {
	Name        string `json:"name"`
	Count       uint64 `json:"count"`
	Unreachable string `json:"unreachable,omitempty"`
	// Observed counts the hits on vectors where the point's node is
	// observable at an output (AddObserved; nil without it).
	Observed *uint64 `json:"observed,omitempty"`
}

func (s *Summary) add(count uint64, unreachable bool) {
	s.Bins++
	switch {
	case unreachable:
		s.Unreachable++
	case count > 0:
		s.Reachable++
		s.Hit++
	default:
		s.Reachable++
		s.Holes++
	}
}

func (s *Summary) finish() {
	if s.Reachable > 0 {
		s.Percent = 100 * float64(s.Hit) / float64(s.Reachable)
	}
}

// Closed reports whether every reachable bin is hit.
func (s Summary) Closed() bool { return s.Holes == 0 }

// Report combines the model with counts c of the vectors of sources.
func (m *Model) Report(c *Counts, sources []string) *Report {
	r := &Report{Design: m.Design, Sources: sources, Vectors: c.Vectors}
	kinds := map[Kind]*KindSummary{}
	var order []Kind
	for i, p := range m.Points {
		pr := PointReport{Name: p.Name, Kind: p.Kind, Node: p.Node, Doc: p.Doc}
		ks := kinds[p.Kind]
		if ks == nil {
			ks = &KindSummary{Kind: p.Kind}
			kinds[p.Kind] = ks
			order = append(order, p.Kind)
		}
		ks.Points++
		for b, bin := range p.Bins {
			n := c.Bins[i][b]
			pr.Bins = append(pr.Bins, BinReport{Name: bin.Name, Count: n, Unreachable: bin.Unreachable})
			r.Summary.add(n, bin.Unreachable != "")
			ks.add(n, bin.Unreachable != "")
		}
		r.Points = append(r.Points, pr)
	}
	r.Summary.finish()
	for _, k := range order {
		kinds[k].finish()
		r.Kinds = append(r.Kinds, *kinds[k])
	}
	return r
}

// Contradicted returns an error naming every bin proved unreachable that
// the vectors nonetheless hit (the proof would be wrong: a model error, not
// a coverage figure), or nil.
func (r *Report) Contradicted() error {
	var bad []string
	for _, p := range r.Points {
		for _, b := range p.Bins {
			if b.Unreachable != "" && b.Count != 0 {
				bad = append(bad, fmt.Sprintf("%s.%s (hit %d times, proof: %s)", p.Name, b.Name, b.Count, b.Unreachable))
			}
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return fmt.Errorf("coverage: %s: %d bins proved unreachable are hit: %s", r.Design, len(bad), strings.Join(bad, "; "))
}

// Holes returns "point.bin" of every reachable bin not hit, in model order.
func (r *Report) Holes() []string {
	var h []string
	for _, p := range r.Points {
		for _, b := range p.Bins {
			if b.Unreachable == "" && b.Count == 0 {
				h = append(h, p.Name+"."+b.Name)
			}
		}
	}
	return h
}

// WriteText prints the summary, a table per kind and the holes (at most
// maxHoles, 0: all).
func (r *Report) WriteText(w io.Writer, maxHoles int) error {
	var b strings.Builder
	s := r.Summary
	fmt.Fprintf(&b, "functional coverage of %s over %d vectors (%s)\n", r.Design, r.Vectors, strings.Join(r.Sources, ", "))
	fmt.Fprintf(&b, "bins %d: reachable %d, proved unreachable %d; hit %d of %d reachable = %.2f%%, holes (reachable, not generated) %d\n",
		s.Bins, s.Reachable, s.Unreachable, s.Hit, s.Reachable, s.Percent, s.Holes)
	if s.Closed() {
		b.WriteString("closed: every reachable bin is hit\n")
	} else {
		b.WriteString("NOT closed: reachable bins are not hit\n")
	}
	fmt.Fprintf(&b, "\n%-8s %6s %6s %9s %11s %6s %6s %8s\n", "kind", "points", "bins", "reachable", "unreachable", "hit", "holes", "hit %")
	for _, k := range r.Kinds {
		fmt.Fprintf(&b, "%-8s %6d %6d %9d %11d %6d %6d %7.2f%%\n", k.Kind, k.Points, k.Bins, k.Reachable, k.Unreachable, k.Hit, k.Holes, k.Percent)
	}
	holes := r.Holes()
	if len(holes) > 0 {
		fmt.Fprintf(&b, "\nholes (%d):\n", len(holes))
		for i, h := range holes {
			if maxHoles > 0 && i == maxHoles {
				fmt.Fprintf(&b, "  ... %d more (--format json or csv lists every bin)\n", len(holes)-maxHoles)
				break
			}
			fmt.Fprintf(&b, "  %s\n", h)
		}
	}
	r.writeObservedText(&b, maxHoles) // observe_report.go
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(js, '\n'))
	return err
}

// WriteCSVRows writes one row per bin in the four columns of `vectors cover
// --format csv` (kind,name,bin,count), without a header: kind "functional"
// for a reachable bin, "unreachable" for a bin proved unreachable; name is
// the cover point.
func (r *Report) WriteCSVRows(w io.Writer) error {
	c := csv.NewWriter(w)
	for _, p := range r.Points {
		for _, b := range p.Bins {
			k := "functional"
			if b.Unreachable != "" {
				k = "unreachable"
			}
			c.Write([]string{k, p.Name, b.Name, strconv.FormatUint(b.Count, 10)})
		}
	}
	r.writeObservedCSV(c) // observe_report.go
	c.Flush()
	return c.Error()
}
