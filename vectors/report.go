package vectors

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// newTable returns an ASCII table writer (plain ASCII so logs and CI
// consoles show it as is) with the given per-column alignments.
func newTable(w io.Writer, align ...tw.Align) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: align}),
	)
}

// WriteCoverage prints the coverage of manifest m as three tables: classes
// (vectors generated for each, and vectors of the set that hit each detected
// class), bit toggles of the input and output tables, and the cover points'
// bins.
func WriteCoverage(w io.Writer, m *Manifest) error {
	if c := m.Capture; c != nil {
		fmt.Fprintf(w, "%s vectors: %d (indices %d..%d of %d; shard %d/%d), captured (%s) from scenario %s (%s)\n",
			m.Model, m.Count, m.Shard.First, m.Shard.First+m.Count-1, m.Total, m.Shard.Index, m.Shard.Count, c.Source, c.Scenario, captureExtent(c))
	} else {
		fmt.Fprintf(w, "%s vectors: %d (indices %d..%d of %d; shard %d/%d), level %d, seed %d\n",
			m.Model, m.Count, m.Shard.First, m.Shard.First+m.Count-1, m.Total, m.Shard.Index, m.Shard.Count, m.Level, m.Seed)
	}

	t := newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight)
	t.Header("class", "level", "generated", "hit by set")
	var unreach []ClassCount
	for _, c := range m.Classes {
		if m.Capture != nil && c.Level > 0 && !c.Detected {
			continue // a captured set: only the classes its transactions can be seen to hit
		}
		if m.Capture == nil && c.Level > m.Level && c.Count == 0 {
			continue // a level-2 class in a level-1 set
		}
		hits := "-"
		if c.Detected {
			hits = strconv.FormatInt(c.Hits, 10)
		}
		if c.Unreachable != "" {
			hits = "unreachable"
			unreach = append(unreach, c)
		}
		lvl := strconv.Itoa(c.Level)
		if c.Level == 0 {
			lvl = "rnd"
			if m.Capture != nil {
				lvl = "sim"
			}
			if m.Module != nil {
				lvl = "stream"
			}
		}
		if err := t.Append([]string{c.Name, lvl, strconv.FormatInt(c.Count, 10), hits}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}
	for _, c := range unreach {
		fmt.Fprintf(w, "class %s is unreachable for this configuration (not a hole): %s\n", c.Name, c.Unreachable)
	}

	t = newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignLeft)
	t.Header("table", "bits", "toggled", "fields with untoggled bits")
	for _, b := range []struct {
		name string
		c    BitCoverage
	}{{"input", m.Coverage.InputBits}, {"output", m.Coverage.OutputBits}} {
		var un []string
		for _, f := range b.c.Fields {
			if f.Toggled < f.Width {
				un = append(un, fmt.Sprintf("%s(%d/%d)", f.Field, f.Toggled, f.Width))
			}
		}
		if err := t.Append([]string{b.name, strconv.Itoa(b.c.Width), strconv.Itoa(b.c.Toggled), wrapList(un, 60)}); err != nil {
			return err
		}
	}
	if err := t.Render(); err != nil {
		return err
	}

	if len(m.Coverage.Points) == 0 {
		return nil
	}
	t = newTable(w, tw.AlignLeft, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignRight, tw.AlignLeft)
	t.Header("cover point", "bins", "hit", "min", "max", "unhit bins")
	for _, p := range m.Coverage.Points {
		mn, mx := ^uint64(0), uint64(0)
		var un []string
		for b, n := range p.Counts {
			mn, mx = min(mn, n), max(mx, n)
			if n == 0 {
				un = append(un, binName(p, b))
			}
		}
		if len(un) > 8 {
			un = append(un[:8], fmt.Sprintf("... %d more", len(un)-8))
		}
		if err := t.Append([]string{p.Name, strconv.Itoa(p.Bins), strconv.Itoa(p.Hit),
			strconv.FormatUint(mn, 10), strconv.FormatUint(mx, 10), wrapList(un, 60)}); err != nil {
			return err
		}
	}
	return t.Render()
}

// captureExtent says whether a captured set holds its whole run.
func captureExtent(c *CaptureInfo) string {
	if c.Complete {
		return "every transaction of the run"
	}
	return fmt.Sprintf("the first %d transactions of the run", c.Limit)
}

func binName(p PointCoverage, b int) string {
	if p.Labels != nil {
		return p.Labels[b]
	}
	return strconv.Itoa(b)
}

// wrapList joins items with ", " and breaks lines at about width characters.
func wrapList(items []string, width int) string {
	var b strings.Builder
	col := 0
	for i, s := range items {
		if i > 0 {
			if col+len(s)+2 > width {
				b.WriteString(",\n")
				col = 0
			} else {
				b.WriteString(", ")
				col += 2
			}
		}
		b.WriteString(s)
		col += len(s)
	}
	return b.String()
}

// marshalLayoutFile renders layout.json (indented, trailing newline).
func marshalLayoutFile(lf layoutFile) ([]byte, error) {
	b, err := json.MarshalIndent(lf, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("vectors: marshal layout: %w", err)
	}
	return append(b, '\n'), nil
}
